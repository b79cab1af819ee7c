#!/usr/bin/env bash
# Installs what the browser tests need: Debian's chromium, fonts and the vips CLI (apt-get),
# and a local venv `.venv` with playwright and pytest from PyPI.
# Idempotent and quick when everything is already there. Playwright's own browser download is
# never used (it cannot work offline): the tests launch /usr/bin/chromium.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(chromium fonts-dejavu-core fonts-liberation libvips-tools)
PY_PACKAGES=(playwright pytest numpy pillow)

missing=()
for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "browser-test-setup: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    echo "browser-test-setup: creating .venv" >&2
    "$PYTHON" -m venv .venv || { apt-get install -y -qq python3-venv >/dev/null && "$PYTHON" -m venv .venv; }
fi
if ! .venv/bin/python -c "import playwright, pytest, numpy, PIL" 2>/dev/null; then
    echo "browser-test-setup: installing ${PY_PACKAGES[*]} into .venv" >&2
    .venv/bin/pip install -q --disable-pip-version-check "${PY_PACKAGES[@]}"
fi
test -x /usr/bin/chromium || { echo "browser-test-setup: /usr/bin/chromium missing" >&2; exit 1; }
