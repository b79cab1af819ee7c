#!/usr/bin/env bash
# The official IIIF Image API validator (PyPI iiif-validator) against a live tilescope
# serving the validator's own test image. Fails on any failure.
#
# Runs every test of level 2 for version 3.0, plus the optional tests for what info.json
# declares beyond level 2 (Link headers, mirroring, arbitrary rotation, upscaling, gif, tif).
# Skipped, because they are broken in iiif-validator 1.0.5 under Python 3 for any server
# (they call Python 2's `urllib.urlopen`, which Python 3 does not have):
#   format_webp, format_jp2, format_pdf.
# The script checks that they are still broken that way (so the skip is dropped once the
# validator is fixed) and does their checks itself for the formats we declare (webp, jp2).
set -euo pipefail
cd "$(dirname "$0")/../.."
ID=67352ccc-d1b0-11e1-89ae-279075081939
OPTIONAL=(linkheader_canonical linkheader_profile rot_full_non90 rot_mirror rot_mirror_180 rot_region_non90 size_up
          format_gif format_tif)
BROKEN=(format_webp format_jp2 format_pdf)

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -c "import iiif_validator" 2>/dev/null || .venv/bin/pip install -q iiif-validator
work=$(mktemp -d)
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The test image ships only in iiif-validator-ng's wheel. Download it, never install it:
# it carries its own `iiif_validator` package, which would shadow the validator we run.
mkdir -p "$work/wheel" "$work/images"
.venv/bin/pip download -q --no-deps --dest "$work/wheel" iiif-validator-ng
.venv/bin/python - "$work" "$ID" <<'PY'
import glob, sys, zipfile
work, ident = sys.argv[1], sys.argv[2]
wheel = glob.glob(work + "/wheel/*.whl")[0]
with zipfile.ZipFile(wheel) as z:
    data = z.read("iiif_validator/validation_image.png")
open(f"{work}/images/{ident}.png", "wb").write(data)
PY

echo "building tilescope" >&2
swift build --product tilescope > "$work/build.log" 2>&1 || { tail -n 40 "$work/build.log" >&2; exit 1; }
bin=$(swift build --show-bin-path)/tilescope
"$bin" serve --host 127.0.0.1 --port 0 --images "$work/images" --data "$work/data" > "$work/server.log" 2>&1 &
server_pid=$!
port=""
for _ in $(seq 1 100); do
  port=$(grep -oE 'http://127\.0\.0\.1:[0-9]+/' "$work/server.log" | head -n1 | grep -oE '[0-9]+/$' | tr -d / || true)
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { cat "$work/server.log" >&2; echo "server did not start" >&2; exit 1; }
for _ in $(seq 1 300); do
  curl -sf "http://127.0.0.1:$port/api/images/$ID" | grep -q '"status":"ready"' && break
  sleep 0.1
done
curl -sf "http://127.0.0.1:$port/iiif/3/$ID/info.json" > /dev/null || { echo "pyramid not ready" >&2; exit 1; }

validate() {
  .venv/bin/iiif-validate.py -s "127.0.0.1:$port" -p iiif/3 -i "$ID" --version=3.0 "$@" 2>&1
}
status=0
echo "== level 2" >&2
out=$(validate --level=2) || status=1
echo "$out" | grep -vE '^Importing' | grep -E 'FAIL|Done|  ' || true
echo "$out" | grep -q 'Done (.*, 0 failures)' || status=1

echo "== optional tests for the features declared beyond level 2" >&2
args=(); for t in "${OPTIONAL[@]}"; do args+=(--test "$t"); done
out=$(validate "${args[@]}") || status=1
echo "$out" | grep -vE '^Importing' | grep -E 'FAIL|Done|  ' || true
echo "$out" | grep -q "Done (${#OPTIONAL[@]} tests, 0 failures)" || status=1

echo "== skipped (broken under Python 3): ${BROKEN[*]}" >&2
args=(); for t in "${BROKEN[@]}"; do args+=(--test "$t"); done
out=$(validate "${args[@]}" -v) || true
broken=$(echo "$out" | grep -c "exception: module 'urllib' has no attribute 'urlopen'" || true)
if [ "$broken" -ne "${#BROKEN[@]}" ]; then
  echo "$out"
  echo "the skipped tests no longer fail on urllib.urlopen: run them for real and drop the skip" >&2
  status=1
fi
# What those tests meant to check, for the formats info.json declares.
base="http://127.0.0.1:$port/iiif/3/$ID/full/max/0/default"
curl -sf -o "$work/image.webp" "$base.webp" && curl -sf -o "$work/image.jp2" "$base.jp2"
[ "$(head -c 12 "$work/image.webp" | tail -c 4)" = WEBP ] || { echo "webp: not a WebP file" >&2; status=1; }
[ "$(head -c 12 "$work/image.jp2" | od -An -tx1 | tr -d ' \n')" = 0000000c6a5020200d0a870a ] \
  || { echo "jp2: not a JPEG 2000 file" >&2; status=1; }

[ "$status" -eq 0 ] && echo "IIIF validator: every level-2 test and every declared optional test passed" >&2
exit "$status"
