#!/usr/bin/env bash
# Makes sure podman, buildah, runc, debootstrap and podman-compose are installed and configured so that
# `npm run images` and test/images.test.ts work on this machine kind (a VM whose kernel refuses crun,
# overlay mounts and the runtime's default rlimits). Idempotent and quiet when all is well.
# Configuration it writes, only where the file does not exist yet (an existing one is left alone):
#   /etc/containers/storage.conf     driver "vfs" (no overlay mounts here)
#   /etc/containers/containers.conf  runtime runc (crun refuses the hybrid cgroups), cgroupfs, host network,
#                                    explicit ulimits (without them the runtime's setrlimit is refused)
set -euo pipefail

SETUP_NAME=containers
# shellcheck source=lib/setup.sh
source "$(dirname "$0")/lib/setup.sh"

# The dnsname CNI plugin lets the containers of one Compose project find each other by service name;
# catatonit is the pause process of the pods `podman kube play` makes.
ensure_packages podman buildah runc debootstrap podman-compose catatonit \
  golang-github-containernetworking-plugin-dnsname

write_once() {
  local path=$1 content=$2
  [ -e "$path" ] && return 0
  say "writing $path"
  as_root mkdir -p "$(dirname "$path")"
  printf '%s\n' "$content" | as_root tee "$path" >/dev/null
}

write_once /etc/containers/storage.conf '# Written by scripts/containers.sh: overlay mounts are refused on this machine kind.
[storage]
driver = "vfs"
runroot = "/run/containers/storage"
graphroot = "/var/lib/containers/storage"'

write_once /etc/containers/containers.conf '# Written by scripts/containers.sh for this machine kind (see the comment there).
[containers]
netns = "host"
default_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]

[engine]
cgroup_manager = "cgroupfs"
runtime = "runc"
events_logger = "file"'

driver=$(podman info --format '{{.Store.GraphDriverName}}' 2>&1) \
  || fail "podman info failed: $driver (a store made earlier with another driver: podman system reset)"
[ "$driver" = vfs ] || say "storage driver is '$driver', not vfs (an existing /etc/containers/storage.conf is kept)"
