#!/usr/bin/env bash
# The fidelity suite: sources made by the test (every orientation, colour profiles, 16-bit, alpha, odd sizes)
# served by a real `tilescope serve` on loopback, every answer checked against libvips's own reading of the
# source. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -c "import pytest, pyvips, numpy" 2>/dev/null \
  || .venv/bin/pip install -q --disable-pip-version-check pytest pyvips numpy
if [ -z "${TILESCOPE_BIN:-}" ]; then
    swift build --product tilescope 2>&1 | tail -n 3
    export TILESCOPE_BIN="$PWD/.build/debug/tilescope"
fi
exec .venv/bin/python -m pytest Tests/fidelity -p no:cacheprovider -q "$@"
