#!/usr/bin/env bash
# Ten slides viewed at once (issue 39, goal 3): COUNT tiled pyramidal JPEG TIFFs of SIZE x SIZE, served
# directly, under wrk with random tiles of all of them for SECONDS: Deep Zoom tiles of the finest levels (cut
# from the source and encoded) and IIIF tiles of the file's own grid (sent as stored), in equal numbers. The
# server's resident memory (VmRSS, and RssAnon) and open file descriptors are sampled every second; the table
# gives requests/s, latency, peak memory and memory over the last third against the first (flat or growing).
#
#   bench/slides.sh                      # COUNT=10 SIZE=30000 SECONDS=600
#   SECONDS_RUN=120 bench/slides.sh
#   BENCH_TILESCOPE=/path/to/tilescope bench/slides.sh
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=${COUNT:-10}
SIZE=${SIZE:-30000}
SECONDS_RUN=${SECONDS_RUN:-600}
CONNECTIONS=${CONNECTIONS:-16}
PATHS=${PATHS:-20000}
PORT=${PORT:-18941}
work=${WORK:-/tmp/tilescope-bench-slides}
mkdir -p "$work/images"
if [ -n "${BENCH_TILESCOPE:-}" ]; then
  tilescope=$BENCH_TILESCOPE
else
  swift build -c release --product tilescope > "$work/build.log" 2>&1 || { tail -n 30 "$work/build.log" >&2; exit 1; }
  tilescope="$(swift build -c release --show-bin-path)/tilescope"
fi
for i in $(seq 1 "$COUNT"); do
  slide="$work/images/slide-$i.tif"
  [ -f "$slide" ] && continue
  echo "making $slide (${SIZE}x${SIZE}, once)" >&2
  # Smooth rings, each slide its own (a different zone size and band order), saved straight from a small image.
  vips zone "$work/z.v" $((SIZE / 16 + i * 7)) $((SIZE / 16 + i * 7))
  vips linear "$work/z.v" "$work/a.v" 90 128
  vips flip "$work/a.v" "$work/b.v" horizontal
  vips rot "$work/a.v" "$work/c.v" d90
  vips bandjoin "$work/a.v $work/b.v $work/c.v" "$work/rgb.v"
  vips cast "$work/rgb.v" "$work/u.v" uchar
  vips copy "$work/u.v" "$work/srgb.v" --interpretation srgb
  vips resize "$work/srgb.v" "$slide[tile,pyramid,compression=jpeg,Q=85,tile-width=256,tile-height=256,bigtiff]" \
    "$(python3 -c "print($SIZE / ($SIZE // 16 + $i * 7))")"
  rm -f "$work"/*.v
done
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true' EXIT
rm -rf "$work/data"
# wrk is one client: its budget of renders is lifted (as for a trusted front end) so that the server's memory is
# measured at its capacity, not at one client's share of it.
setsid "$tilescope" serve --host 127.0.0.1 --port "$PORT" --images "$work/images" --data "$work/data" \
  --render-budget 1000000 --render-burst 1000000 > "$work/server.log" 2>&1 &
pid=$!
for _ in $(seq 1 600); do
  [ "$(curl -sf "http://127.0.0.1:$PORT/api/images" | grep -o '"served":"direct"' | wc -l)" -eq "$COUNT" ] && break
  sleep 0.5
done
python3 - "$PORT" "$COUNT" "$PATHS" "$work/paths" <<'PY'
import json, random, sys, urllib.request
port, count, total, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
random.seed(39)
lines = []
for i in range(1, count + 1):
    image = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/api/images/slide-{i}"))
    w, h, top = image["width"], image["height"], image["maxLevel"]
    for _ in range(total // (2 * count)):
        level = random.randint(top - 4, top)  # the finest five levels: what a viewer zoomed in asks for
        scale = 2 ** (top - level)
        cols, rows = -(-w // scale // 254), -(-h // scale // 254)
        lines.append(f"/dzi/slide-{i}_files/{level}/{random.randrange(cols)}_{random.randrange(rows)}.jpeg")
        s = 2 ** random.randint(0, 4)
        side = 256 * s
        # Whole tiles only (not the short last column or row): the file's own tiles, sent as stored.
        x, y = random.randrange(w // side) * side, random.randrange(h // side) * side
        lines.append(f"/iiif/3/slide-{i}/{x},{y},{side},{side}/256,/0/default.jpg")
random.shuffle(lines)
open(out, "w").write("\n".join(lines) + "\n")
PY
samples="$work/samples"; : > "$samples"
(
  while kill -0 "$pid" 2>/dev/null; do
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status"); anon=$(awk '/^RssAnon/ {print $2}' "/proc/$pid/status")
    echo "$(date +%s.%N) $rss $anon $(ls "/proc/$pid/fd" | wc -l)" >> "$samples"
    sleep 1
  done
) &
sampler=$!
load=$(cut -d' ' -f1-3 /proc/loadavg)
json=$(wrk -t 2 -c "$CONNECTIONS" -d "${SECONDS_RUN}s" --timeout 10s -s bench/iiif/list.lua "http://127.0.0.1:$PORT" -- "$work/paths" | grep '^{')
kill "$sampler" 2>/dev/null || true
python3 - "$json" "$samples" "$load" "$COUNT" "$SIZE" "$SECONDS_RUN" "$CONNECTIONS" <<'PY'
import json, sys
result, samples = json.loads(sys.argv[1]), [list(map(float, l.split())) for l in open(sys.argv[2]) if l.strip()]
load, count, size, seconds, connections = sys.argv[3:8]
third = max(1, len(samples) // 3)
first, last = samples[:third], samples[-third:]
mb = lambda kb: kb / 1024
print(f"### {count} slides of {size}x{size} served directly, wrk {connections} connections for {seconds} s "
      f"(load average at start {load})\n")
print("| requests/s | p50 | p99 | bad | peak RSS | peak RssAnon | RSS, first third (mean) | RSS, last third (mean) | open fds (max) |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
mean = lambda rows, k: sum(r[k] for r in rows) / len(rows)
print(f"| {result['requests'] / result['seconds']:.0f} | {result['p50_us'] / 1000:.1f} ms | {result['p99_us'] / 1000:.1f} ms "
      f"| {result['bad_status'] + result['socket_errors']} | {mb(max(r[1] for r in samples)):.0f} MB "
      f"| {mb(max(r[2] for r in samples)):.0f} MB | {mb(mean(first, 1)):.0f} MB | {mb(mean(last, 1)):.0f} MB "
      f"| {max(int(r[3]) for r in samples)} |")
PY
