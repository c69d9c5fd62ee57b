#!/usr/bin/env bash
# Installs Debian's chromium for the browser tests: playwright-core drives /usr/bin/chromium and
# downloads no browser of its own. Idempotent: does nothing when chromium is already installed.
set -euo pipefail

say() { printf 'browsers: %s\n' "$*"; }
fail() { printf 'browsers: ERROR: %s\n' "$*" >&2; exit 1; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    fail "need root to run: $* (re-run as root, or install chromium yourself: apt-get install chromium)"
  fi
}

if [ -x /usr/bin/chromium ]; then
  say "$(/usr/bin/chromium --version 2>/dev/null || echo 'chromium') already installed"
  exit 0
fi

say "installing chromium"
log=$(mktemp)
as_root apt-get update -qq >"$log" 2>&1 || { cat "$log" >&2; fail "apt-get update failed"; }
DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends chromium >"$log" 2>&1 \
  || { tail -n 30 "$log" >&2; fail "apt-get install chromium failed"; }
rm -f "$log"
say "$(/usr/bin/chromium --version 2>/dev/null || echo 'chromium') installed"
