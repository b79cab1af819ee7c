#!/usr/bin/env bash
# OpenSeadragon 4.1.0, the peer viewer of the client benchmark and of the browser tests that drive OpenSeadragon, into
# DIR (default test-output/openseadragon) once; prints the path of openseadragon.min.js. No registry here ships
# OpenSeadragon itself: tissuumaps' wheel vendors 4.1.0, so the wheel is downloaded (never installed) and the file
# taken out of it. Needs .venv (scripts/browser-test-setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-test-output/openseadragon}
mkdir -p "$out/wheel"
if [ ! -f "$out/openseadragon.min.js" ]; then
    ls "$out"/wheel/tissuumaps-*.whl >/dev/null 2>&1 \
        || .venv/bin/pip download -q --disable-pip-version-check --no-deps --dest "$out/wheel" tissuumaps >&2
    .venv/bin/python - "$out" <<'PY'
import glob, sys, zipfile
out = sys.argv[1]
with zipfile.ZipFile(sorted(glob.glob(out + "/wheel/tissuumaps-*.whl"))[-1]) as z:
    name = next(n for n in z.namelist() if n.endswith("openseadragon-bin-4.1.0/openseadragon.min.js"))
    open(out + "/openseadragon.min.js", "wb").write(z.read(name))
PY
fi
echo "$PWD/$out/openseadragon.min.js"
