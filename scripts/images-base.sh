#!/usr/bin/env bash
# Builds the local stand-in for the official node:20-bookworm-slim image where no image registry can be
# reached: Debian bookworm (debootstrap --variant=minbase) plus this machine's node and npm in the official
# image's places (/usr/local/bin/node, /usr/local/lib/node_modules/npm) and its user `node` (uid 1000).
# Saved as an OCI archive, it can be named anywhere an image can: NODE_IMAGE=oci-archive:<path>.
# Prints that path. Cached (debootstrap takes a minute or more) under $IMAGES_BASE_CACHE, default
# /var/cache/platform-images, keyed by the node and npm versions and this script's content.
# Usage: bash scripts/images-base.sh   (as root; needs debootstrap and podman: scripts/containers.sh)
set -euo pipefail

say() { printf 'images-base: %s\n' "$*" >&2; }
fail() { printf 'images-base: ERROR: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || fail "debootstrap and podman import need root; re-run as root"
command -v debootstrap >/dev/null || fail "debootstrap is not installed (bash scripts/containers.sh installs it)"
node=$(command -v node) || fail "no node on PATH"
node=$(readlink -f "$node")
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
[ -f "$npm_dir/package.json" ] || fail "cannot find npm's directory (from $(command -v npm))"

node_version=$("$node" --version)
npm_version=$("$node" -p "require('$npm_dir/package.json').version")
script_hash=$(sha256sum "$0" | cut -c1-12)
cache=${IMAGES_BASE_CACHE:-/var/cache/platform-images}
archive="$cache/node-$node_version-npm-$npm_version-bookworm-$script_hash.oci.tar"
if [ -s "$archive" ]; then
  echo "$archive"
  exit 0
fi

mkdir -p "$cache"
work=$(mktemp -d "$cache/.build.XXXXXX")
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
say "debootstrap --variant=minbase bookworm (about 80 s)"
debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 \
  || { tail -n 20 "$work/debootstrap.log" >&2; fail "debootstrap failed (log above)"; }

say "adding node $node_version and npm $npm_version"
install -m 0755 "$node" "$rootfs/usr/local/bin/node"
mkdir -p "$rootfs/usr/local/lib/node_modules"
cp -a "$npm_dir" "$rootfs/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
# What the official image's Dockerfile removes too: apt lists and caches, docs would be kept by it.
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb

tag="localhost/platform-node-base:$node_version"
say "podman import as $tag"
tar -C "$rootfs" -c . | podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=${node_version#v}" \
  --change 'CMD ["node"]' - "$tag" >/dev/null
podman save --format oci-archive -o "$work/base.oci.tar" "$tag" >/dev/null
mv "$work/base.oci.tar" "$archive"
say "saved $archive"
echo "$archive"
