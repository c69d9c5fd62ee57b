# Shared by the machine set-up scripts (services.sh, browsers.sh, containers.sh): one-line messages
# prefixed by the script's name, root for apt-get, and installing the Debian packages that are missing.
# Source it after setting SETUP_NAME (the prefix) and, optionally, SETUP_ROOT_HINT (what to do without root).

say() { printf '%s: %s\n' "$SETUP_NAME" "$*"; }
fail() { printf '%s: ERROR: %s\n' "$SETUP_NAME" "$*" >&2; exit 1; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    fail "need root to run: $* (${SETUP_ROOT_HINT:-re-run as root or install sudo})"
  fi
}

apt_updated=0
# ensure_packages <debian package>...: installs those not installed yet, quietly; shows apt's log on failure.
ensure_packages() {
  local missing=()
  local pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing ${missing[*]}"
  local log
  log=$(mktemp)
  if [ $apt_updated -eq 0 ]; then
    as_root apt-get update -qq >"$log" 2>&1 || { cat "$log" >&2; fail "apt-get update failed"; }
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >"$log" 2>&1 \
    || { tail -n 30 "$log" >&2; fail "apt-get install ${missing[*]} failed"; }
  rm -f "$log"
}
