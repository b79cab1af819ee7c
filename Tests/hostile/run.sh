#!/usr/bin/env bash
# Hostile traffic against a real `tilescope serve` on loopback: 10,000 slow and idle clients, a flood of
# 1,000 connections, the header deadline, a full server, unknown transfer codings, huge IIIF sizes,
# request heads and header lines past libmicrohttpd's buffer.
# Bounded: about two minutes on 2 cores. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v vips >/dev/null || { echo "hostile tests: the vips CLI is missing (scripts/install-deps.sh --test)" >&2; exit 1; }
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -c "import pytest" 2>/dev/null || .venv/bin/pip install -q --disable-pip-version-check pytest
if [ -z "${TILESCOPE_BIN:-}" ]; then
    swift build --product tilescope 2>&1 | tail -n 3
    export TILESCOPE_BIN="$PWD/.build/debug/tilescope"
fi
exec .venv/bin/python -m pytest Tests/hostile -p no:cacheprovider -q -s "$@"
