#!/usr/bin/env bash
# The browser tests in one command: installs chromium + playwright (idempotent, quick when present), builds the
# server if needed, and runs pytest against a real `tilescope serve` on a free loopback port.
# Extra arguments go to pytest (e.g. -k wheel, -x). Screenshots of failures land in test-output/browser/.
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/browser-test-setup.sh
if [ -z "${TILESCOPE_BIN:-}" ]; then
    swift build --product tilescope 2>&1 | tail -n 3
    export TILESCOPE_BIN="$PWD/.build/debug/tilescope"
fi
exec .venv/bin/python -m pytest Tests/browser -p no:cacheprovider -q "$@"
