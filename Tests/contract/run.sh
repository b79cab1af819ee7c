#!/usr/bin/env bash
# The OpenAPI contract (Sources/Tilescope/OpenAPI/openapi.json) against a live tilescope, with
# schemathesis (PyPI).
#
# 1. The contract must be JSON without repeated keys and valid OpenAPI 3.1 (validate_openapi.py,
#    with openapi-spec-validator).
# 2. A real `tilescope serve` on a free loopback port, with a small images folder (two images made
#    with the vips CLI and one file that is not an image, so every build status is served) and an
#    admin token, so uploads and deletions are on.
# 3. `schemathesis run` against the server's own GET /openapi.json with every check on, in all
#    phases (examples, coverage, fuzzing, stateful links upload -> job -> image -> rating), bounded
#    by --max-examples and --max-time, after checking that the server sends the file's bytes.
#    Exits nonzero on any failure. Settings: schemathesis.toml.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/lib/server-port.sh
repo=$PWD
MAX_EXAMPLES=${CONTRACT_MAX_EXAMPLES:-25}
MAX_TIME=${CONTRACT_MAX_TIME:-80}
DELETE_TIME=${CONTRACT_DELETE_TIME:-25}
TOKEN=contract-test-token

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -c "import schemathesis, openapi_spec_validator" 2>/dev/null \
  || .venv/bin/pip install -q schemathesis openapi-spec-validator
command -v vips > /dev/null || { echo "the vips CLI is missing: apt-get install libvips-tools" >&2; exit 1; }

contract_file=Sources/Tilescope/OpenAPI/openapi.json
echo "== $contract_file is valid OpenAPI 3.1" >&2
.venv/bin/python Tests/contract/validate_openapi.py

work=$(mktemp -d)
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/images"
# tiny: 600x300, levels 0-10 with a preview; gradient: 1500x1000, several tiles per level.
vips black "$work/tiny.v" 600 300 --bands 3
vips linear "$work/tiny.v" "$work/images/tiny.png" 1 90
vips xyz "$work/xyz.v" 1500 1000
vips cast "$work/xyz.v" "$work/images/gradient.jpg" uchar
printf 'not an image' > "$work/images/broken.jpg"

echo "building tilescope" >&2
swift build --product tilescope > "$work/build.log" 2>&1 || { tail -n 40 "$work/build.log" >&2; exit 1; }
bin=$(swift build --show-bin-path)/tilescope
# The IIIF settings are on, so that the Presentation documents carry rights and requiredStatement,
# and collection pages of one image, so that the Collection nests pages (and their partOf).
# Users, so the sign-in routes answer their pages and forms (and a degraded tier, so its route is on).
printf 'ann:viewer:%s\n' "$(printf 'contract password' | "$bin" hash-password)" > "$work/users"
TILESCOPE_ADMIN_TOKEN=$TOKEN "$bin" serve --host 127.0.0.1 --port 0 --images "$work/images" --data "$work/data" \
  --users "$work/users" --private-preview-size 64 --rescan 1 --iiif-rights http://creativecommons.org/licenses/by/4.0/ \
  --iiif-attribution "Tilescope contract test, “quoted” & <marked>" --iiif-collection-page 1 \
  > "$work/server.log" 2>&1 &
server_pid=$!
port=$(tilescope_port "$work/server.log")
base="http://127.0.0.1:$port"
for id in tiny gradient; do
  for _ in $(seq 1 300); do
    curl -sf "$base/api/images/$id" | grep -q '"status":"ready"' && break
    sleep 0.1
  done
  curl -sf "$base/api/images/$id" | grep -q '"status":"ready"' || { echo "image $id was not built" >&2; exit 1; }
done

# The server's contract is the file's bytes (a SwiftPM resource), not an older build's copy.
curl -sf "$base/openapi.json" -o "$work/served.json" || { echo "GET /openapi.json failed" >&2; exit 1; }
cmp -s "$work/served.json" "$contract_file" || { echo "GET /openapi.json differs from $contract_file" >&2; exit 1; }

# CONTRACT_ARGS: extra schemathesis arguments, split on spaces (e.g. --include-path-regex ^/iiif).
read -r -a extra_args <<< "${CONTRACT_ARGS:-}"
version=$(.venv/bin/schemathesis --version | grep -oE '[0-9.]+$')
status=0
# schemathesis against the server's own contract, every check on; "$@" selects operations.
contract() {
  local label=$1 budget=$2
  shift 2
  echo "== schemathesis $version, $label, against $base/openapi.json" >&2
  # Run from the temporary folder: schemathesis keeps a .schemathesis/ cache in its working directory.
  # hooks.py leaves out cases whose path, query and headers pass 7 KiB: libmicrohttpd answers those heads itself (see there).
  (cd "$work" && PYTHONPATH="$repo/Tests/contract" SCHEMATHESIS_HOOKS=hooks "$repo/.venv/bin/schemathesis" --config-file "$repo/Tests/contract/schemathesis.toml" \
    run "$base/openapi.json" \
    --checks all --max-examples "$MAX_EXAMPLES" --max-time "$budget" --seed "${CONTRACT_SEED:-1}" \
    --workers 1 --request-timeout 10 --no-color -H "Authorization: Bearer $TOKEN" "$@" "${extra_args[@]}" \
    --report junit --report-dir "$work/report") 2>&1 | tee -a "${CONTRACT_LOG:-/dev/null}" || status=1
}
# Deleting first would leave the other operations only 404s to test, so deletions run last, with
# uploads (the stateful links upload -> job -> image -> rating -> delete) and what they link to.
contract "every operation but DELETE" "$MAX_TIME" --exclude-operation-id deleteImage
contract "uploads and deletions" "$DELETE_TIME" --include-operation-id uploadImage --include-operation-id deleteImage \
  --include-operation-id getJob --include-operation-id getImage --include-operation-id rateImage

# What the runs reached: responses per route and status, from the server's own metrics.
echo "== responses by route and status (tilescope_http_requests_total)" >&2
curl -sf "$base/metrics" | grep -E '^tilescope_http_requests_total' | grep -v ' 0$' \
  | sed -E 's/^tilescope_http_requests_total\{route="([^"]*)",code="([^"]*)"\} /\1 \2: /' | paste -sd ' ' | fold -s -w 120 >&2 || true

# A crash of the server is a failure even if schemathesis saw only connection errors.
if ! kill -0 "$server_pid" 2>/dev/null; then
  echo "the server died during the run:" >&2
  tail -n 40 "$work/server.log" >&2
  status=1
fi
if [ "$status" -ne 0 ]; then
  cp "$work/server.log" test-output.contract-server.log
  echo "schemathesis found failures (server log: test-output.contract-server.log)" >&2
fi
exit "$status"
