#!/usr/bin/env bash
# Installs Debian's chromium for the browser tests: playwright-core drives /usr/bin/chromium and
# downloads no browser of its own. Idempotent: does nothing when chromium is already installed.
set -euo pipefail

SETUP_NAME=browsers
SETUP_ROOT_HINT='re-run as root, or install chromium yourself: apt-get install chromium'
# shellcheck source=lib/setup.sh
source "$(dirname "$0")/lib/setup.sh"

if [ -x /usr/bin/chromium ]; then
  say "$(/usr/bin/chromium --version 2>/dev/null || echo 'chromium') already installed"
  exit 0
fi

ensure_packages chromium
say "$(/usr/bin/chromium --version 2>/dev/null || echo 'chromium') installed"
