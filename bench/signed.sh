#!/usr/bin/env bash
# What checking a signed URL costs a hot tile (issue 42, goal 3; docs/access.md): the same tiles of the same
# picture, public at their plain versioned URLs and private behind a signed URL (/signed/{token}/dzi/...), from one
# release server, A and B alternating in one run; medians of CPU per request and requests/s side by side, with
# the ratio. Twice: hot answers in C (the default: a signed tile is looked up under its whole target, with its
# token's expiry checked) and every tile through Swift (--hot-tile-answers false: the HMAC-SHA256 check on every
# request).
#
#   bench/signed.sh          about 3 minutes (BENCH_ROUNDS=5 rounds of BENCH_DURATION=3 s per side and connection count)
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_DIR=$PWD/bench
OUT=${BENCH_OUT:-bench/out}/signed
ROUNDS=${BENCH_ROUNDS:-5}
DURATION=${BENCH_DURATION:-3}
CONNS=${BENCH_CONNS:-16}
THREADS=${BENCH_THREADS:-$(nproc)}
PY=$(python3 -c 'import sys; print(sys.executable)')
TOKEN=bench-admin-token
mkdir -p "$OUT/logs"
exec 9> "$OUT/.lock"
flock -n 9 || { echo "bench/signed.sh: another run uses $OUT" >&2; exit 1; }

swift build -c release --product tilescope > /dev/null
binary=$(swift build -c release --show-bin-path)/tilescope
# One 4096 x 4096 picture under two names: the public one and the private one have the same tiles.
if [[ ! -s $OUT/images/open.jpg ]]; then
  mkdir -p "$OUT/images"
  vips perlin "$OUT/images/r.v" 4096 4096 --cell-size 256 --uchar --seed 1
  vips bandjoin "$OUT/images/r.v $OUT/images/r.v $OUT/images/r.v" "$OUT/images/open.jpg[Q=85]"
  rm "$OUT/images/r.v"
fi
# Copied once: copying again on every run gave the private copy a new modification time, so a kept data folder
# rebuilt it while the signed side's URLs named the version before, which the hot table never holds (that run
# measured the Swift path under the name of the C one: 2.0x).
[[ -s $OUT/images/closed.jpg ]] || cp "$OUT/images/open.jpg" "$OUT/images/closed.jpg"

PIDS=()
trap 'for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2> /dev/null || true; done; wait' EXIT
RESULTS=$OUT/results.jsonl
: > "$RESULTS"
echo "# $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD) load $(cut -d' ' -f1-3 /proc/loadavg) $(nproc) cores"
for hot in true false; do
  port=$("$PY" "$BENCH_DIR/lib/probe.py" freeport)
  TILESCOPE_ADMIN_TOKEN=$TOKEN TILESCOPE_PRIVATE_IMAGES='closed*' TILESCOPE_HOT_TILE_ANSWERS=$hot \
    "$binary" serve --images "$OUT/images" --data "$OUT/data" --host 127.0.0.1 --port "$port" --quiet \
    > "$OUT/logs/server-$hot.log" 2>&1 &
  PIDS+=($!)
  pid=$!
  base=http://127.0.0.1:$port
  "$PY" "$BENCH_DIR/lib/probe.py" wait-up "$base/healthz" 120 "$pid" > /dev/null
  # Every tile of the two finest levels, at the URLs a viewer would ask: plain for the public copy, signed for
  # the private one. Written once the private image is built (the admin token reads its record).
  "$PY" - "$base" "$TOKEN" "$OUT" <<'PYEOF'
import json, sys, time, urllib.error, urllib.request
base, token, out = sys.argv[1:4]
def get(path, headers={}):
    with urllib.request.urlopen(urllib.request.Request(base + path, headers=headers), timeout=30) as answer:
        return json.load(answer)
admin = {"Authorization": f"Bearer {token}"}
deadline = time.time() + 600
while True:
    try:
        records = [get("/api/images/open"), get("/api/images/closed", admin)]
    except urllib.error.HTTPError:  # not scanned yet
        records = [{"status": "scanning"}]
    if all(r["status"] == "ready" for r in records):
        break
    assert time.time() < deadline, "not built"
    time.sleep(1)
request = urllib.request.Request(base + "/api/images/closed/signed-urls", method="POST", headers=admin,
                                 data=json.dumps({"expiresIn": 86400}).encode())
with urllib.request.urlopen(request, timeout=30) as answer:
    signed = json.load(answer)["base"]
for name, prefix, record in (("plain", "", records[0]), ("signed", signed, records[1])):
    top = record["maxLevel"]
    paths = []
    for level in (top - 1, top):
        side = -(-max(record["width"], record["height"]) // 2 ** (top - level))
        count = -(-side // record["tileSize"])
        paths += [f"{prefix}/dzi/{record['id']}_files/{level}/{c}_{r}.jpeg?v={record['version']}"
                  for c in range(count) for r in range(count)]
    open(f"{out}/{name}.txt", "w").write("\n".join(paths) + "\n")
PYEOF
  for side in plain signed; do  # warm-up: every tile once, so both sides answer hot
    "$PY" "$BENCH_DIR/lib/measure.py" wrk --out /dev/null --pid "$pid" --base "$base" --paths "$OUT/$side.txt" \
      --conns "$CONNS" --threads "$THREADS" --duration 2 --label server=$side > /dev/null
  done
  for round in $(seq "$ROUNDS"); do
    for side in plain signed; do
      "$PY" "$BENCH_DIR/lib/measure.py" wrk --out "$RESULTS" --pid "$pid" --base "$base" --paths "$OUT/$side.txt" \
        --conns "$CONNS" --threads "$THREADS" --duration "$DURATION" --label server=$side --label hot=$hot --label round=$round
    done
  done
  kill -TERM "$pid"
  wait "$pid" 2> /dev/null || true
done
"$PY" - "$RESULTS" <<'PYEOF'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
print()
print("| tiles answered | plain CPU/req (us) | signed CPU/req (us) | signed / plain CPU | plain req/s | signed req/s | errors |")
print("|---|---:|---:|---:|---:|---:|---:|")
for hot, label in (("true", "hot, in C (default)"), ("false", "through Swift (--hot-tile-answers false)")):
    pick = lambda side, key: statistics.median(r[key] for r in rows if r["hot"] == hot and r["server"] == side)
    plain, signed = pick("plain", "cpu_us_per_request"), pick("signed", "cpu_us_per_request")
    errors = sum(r["errors"] for r in rows if r["hot"] == hot)
    print(f"| {label} | {plain:.1f} | {signed:.1f} | {signed / plain:.3f} | {pick('plain', 'rps'):.0f} | {pick('signed', 'rps'):.0f} | {errors} |")
PYEOF
