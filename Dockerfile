# syntax=docker/dockerfile:1
# mmgen: one image for API nodes (`serve`), workers (`worker`) and the CLI.
# TypeScript runs through tsx (a runtime dependency), so there is no build step:
# the first stage only installs production dependencies.

FROM node:22-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=8080 \
    HOST=0.0.0.0 \
    MMGEN_DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY bin ./bin
COPY src ./src
# The embedded database and files live in /data when DATABASE_URL and MMGEN_S3_BUCKET are not set.
RUN mkdir -p /data && chown node:node /data
# The official image's unprivileged user (uid 1000).
USER node
VOLUME ["/data"]
EXPOSE 8080
# bin/mmgen runs node in this very process, so SIGTERM reaches mmgen (exec form, no shell in between).
ENTRYPOINT ["node", "bin/mmgen"]
CMD ["serve"]
