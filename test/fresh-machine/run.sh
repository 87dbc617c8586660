#!/usr/bin/env bash
# Issue 43, "a fresh machine passes": `npm ci && npm test` on a machine with nothing but Node and npm.
#
#   test/fresh-machine/run.sh [--commit REV] [-- ARGS…]
#
# A clean `git archive` of REV (default HEAD) is copied into a Podman container of the local Debian bookworm
# stand-in image (test/container/base-image.sh, the versions test/container/image.test.ts builds): Node and npm,
# no PostgreSQL, no Redis, no system Chromium, TEST_DATABASE_URL and TEST_REDIS_URL unset. The unprivileged
# `node` user runs `npm ci && npm test -- ARGS` there (ARGS: vitest's, e.g. test files or `--project unit`, to
# re-run a few files). The script prints the tail of the output (the summary, its skip reasons and the closing
# `tests: N passed, N failed, N skipped`) and exits with npm test's status; the whole log stays in a file.
#
# The network is slirp4netns, not the host's: npm reaches its registry through the host as it would from any
# machine, but 127.0.0.1 in the container is the container's own loopback, so the host's PostgreSQL (5432) and
# Redis (6379) cannot be reached even by a test that ignores the variables. The container checks both before
# the tests run, and stops if either answers.
#
# Needs root and podman, runc, slirp4netns and debootstrap (installed here when missing, as .ci/run does).
set -euo pipefail

repo="$(cd "$(dirname "$0")/../.." && pwd)"
rev=HEAD
while [ $# -gt 0 ]; do
  case "$1" in
    --commit) rev="$2"; shift 2 ;;
    --) shift; break ;;
    *) break ;;
  esac
done
commit="$(git -C "$repo" rev-parse --verify "$rev^{commit}")"

[ "$(id -u)" = 0 ] || { echo "run.sh: rootful Podman: run it as root" >&2; exit 2; }
missing=""
for tool in podman runc slirp4netns debootstrap; do command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"; done
if [ -n "$missing" ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc slirp4netns debootstrap >/dev/null
fi

# The base image and its versions: the ones the container test builds, read from it so that there is one recipe.
recipe_line="$(grep -m 1 -E "^ +'node:[^']+': \{ node: '[^']+', npm: '[^']+' \}" "$repo/test/container/image.test.ts" || true)"
[ -n "$recipe_line" ] || { echo "run.sh: no stand-in recipe in test/container/image.test.ts" >&2; exit 2; }
image="$(sed -E "s/^ +'([^']+)'.*/\1/" <<<"$recipe_line")"
node_version="$(sed -E "s/.*node: '([^']+)'.*/\1/" <<<"$recipe_line")"
npm_version="$(sed -E "s/.*npm: '([^']+)'.*/\1/" <<<"$recipe_line")"
"$repo/test/container/base-image.sh" "$image" "$node_version" "$npm_version"

podman=(podman --runtime runc)
work="$(mktemp -d /var/tmp/mmgen-fresh.XXXXXX)"
container="mmgen-fresh-$$"
log="/var/tmp/mmgen-fresh-${commit:0:7}-$(date -u +%Y%m%dT%H%M%SZ).log"
trap '"${podman[@]}" rm --force --time 0 "$container" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

# The host's npm settings that reach the registry (its CA file above all); not nodedir, which names host headers.
# Read outside the repository: its own .npmrc is the archive's business.
get() { (cd / && npm config get "$1"); }
{
  echo "registry=$(get registry)"
  echo "omit-lockfile-registry-resolved=$(get omit-lockfile-registry-resolved)"
  for key in audit fund update-notifier; do echo "$key=$(get "$key")"; done
} >"$work/npmrc"
mounts=(--volume "$work/npmrc:/usr/local/etc/npmrc:ro")
cafile="$(get cafile)"
if [ -n "$cafile" ] && [ "$cafile" != null ] && [ "$cafile" != undefined ]; then
  echo "cafile=/run/mmgen-host/ca.crt" >>"$work/npmrc"
  mounts+=(--volume "$cafile:/run/mmgen-host/ca.crt:ro")
fi

# Inside: no service variables (podman passes none of the host's environment; unset anyway), both ports closed,
# then the newcomer's two commands. The quoted heredoc is run by the container's bash, with ARGS as its arguments.
cat >"$work/inner.sh" <<'INNER'
set -uo pipefail
unset TEST_DATABASE_URL TEST_REDIS_URL DATABASE_URL REDIS_URL CHROMIUM_PATH
cd /home/node/mmgen
echo "fresh machine: $(. /etc/os-release && echo "$PRETTY_NAME"), node $(node --version), npm $(npm --version), $(id -un) (uid $(id -u)), $(nproc) CPUs"
echo "service variables: $(env | grep -E '^(TEST_)?(DATABASE|REDIS)_URL=' || echo none)"
for bin in psql postgres pg_ctl redis-server redis-cli chromium chromium-browser google-chrome; do
  if command -v "$bin" >/dev/null 2>&1; then echo "fresh machine: $bin is installed" >&2; exit 3; fi
done
node -e '
  const net = require("node:net");
  const probe = (port) => new Promise((done) => {
    const s = net.connect(port, "127.0.0.1");
    s.on("connect", () => { s.destroy(); done(`${port} open`); }).on("error", (e) => done(`${port} ${e.code}`));
  });
  Promise.all([5432, 6379].map(probe)).then((r) => {
    console.log(`127.0.0.1: ${r.join(", ")}`);
    if (r.some((x) => x.endsWith("open"))) process.exit(3);
  });
' || { echo "fresh machine: PostgreSQL or Redis answers on 127.0.0.1" >&2; exit 3; }
t0=$(date +%s)
npm ci || { status=$?; echo "npm ci failed ($status) after $(( $(date +%s) - t0 )) s"; exit "$status"; }
t1=$(date +%s)
npm test -- "$@"
status=$?
t2=$(date +%s)
echo "wall: npm ci $(( t1 - t0 )) s, npm test $(( t2 - t1 )) s; npm test exited $status"
exit "$status"
INNER

# A clean tree of the commit (no node_modules, no build output, no .git), owned by the container's user.
"${podman[@]}" create --name "$container" --user node --network slirp4netns \
  --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 "${mounts[@]}" \
  --volume "$work/inner.sh:/run/mmgen-host/inner.sh:ro" \
  "$image" bash /run/mmgen-host/inner.sh "$@" >/dev/null
mkdir "$work/mmgen"
git -C "$repo" archive --format=tar "$commit" | tar -x -C "$work/mmgen"
"${podman[@]}" cp "$work/mmgen" "$container:/home/node/mmgen"

echo "fresh machine: $commit ($(git -C "$repo" log -1 --format=%s "$commit" | cut -c1-80)…), log in $log"
started=$SECONDS
set +e
"${podman[@]}" start --attach "$container" >"$log" 2>&1
status=$?
set -e
echo "wall: $((SECONDS - started)) s in the container" >>"$log"
sed -i 's/\x1b\[[0-9;]*m//g' "$log"  # vitest's colours
head -n 3 "$log"
# What failed, named once each (vitest's own list, with the errors, is in the log above the summary).
if grep -q '^ FAIL ' "$log"; then echo "failed:"; grep '^ FAIL ' "$log" | sort -u; fi
echo "…"
tail -n "${TAIL_LINES:-40}" "$log"
exit "$status"
