# syntax=docker/dockerfile:1
# mmgen: one image for API nodes (`serve`), workers (`worker`) and the CLI.
# The server is compiled from TypeScript to JavaScript here, at image build time (scripts/build-server.mjs:
# esbuild, which tsx, a runtime dependency, brings), and bin/mmgen runs that tree; the dashboard is built
# (vite, a dev dependency) in a stage of its own.
#
# Node 22 (LTS): mmgen supports ^20.19 and ^22.13 (package.json "engines"), and
# Node 20 is past its end of life, so the image runs 22.
ARG NODE_IMAGE=node:22-bookworm-slim

# The dashboard: every dependency, then vite builds web/ into web/dist.
FROM ${NODE_IMAGE} AS dashboard
WORKDIR /app
# An npm that does not read package.json's allowScripts runs every install script on `npm rebuild`:
# onnxruntime-node's would fetch CUDA binaries from nuget.org, which the CPU build mmgen runs never
# loads (and which no network here reaches). Its own switch turns that off.
ENV ONNXRUNTIME_NODE_INSTALL=skip
COPY package.json package-lock.json ./
COPY sdk/package.json ./sdk/
# --ignore-scripts: the root `prepare` script builds the dashboard from sources not copied yet
# (it runs below). `npm rebuild` then runs the dependency install scripts that package.json's
# allowScripts approves (ffmpeg's chmod, esbuild's binary check), and no other.
RUN npm ci --ignore-scripts --no-audit --no-fund && npm rebuild
COPY web ./web
RUN node --import tsx web/build.ts --force

# Production dependencies only, the same way.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV ONNXRUNTIME_NODE_INSTALL=skip
COPY package.json package-lock.json ./
COPY sdk/package.json ./sdk/
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm rebuild && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PORT=8080 \
    HOST=0.0.0.0 \
    MMGEN_DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
# The user CLI (`mmgen generate …`) runs on the SDK (node_modules/@mmgen/sdk links here), compiled with the server.
COPY sdk/package.json sdk/tsconfig.json ./sdk/
COPY sdk/src ./sdk/src
COPY bin ./bin
COPY scripts ./scripts
COPY src ./src
COPY --from=dashboard /app/web/dist ./web/dist
# The compiled tree (.build/<hash of the sources>/): the sources stay beside it, for the source maps of stack traces
# and the files it links to (migrations, provider records, the moderation workers).
RUN node scripts/build-server.mjs
# The embedded database and files live in /data when DATABASE_URL and MMGEN_S3_BUCKET are not set.
RUN mkdir -p /data && chown node:node /data
# The official image's unprivileged user (uid 1000).
USER node
VOLUME ["/data"]
EXPOSE 8080
# bin/mmgen runs node in this very process, so SIGTERM reaches mmgen (exec form, no shell in between).
ENTRYPOINT ["node", "bin/mmgen"]
CMD ["serve"]
