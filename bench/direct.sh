#!/usr/bin/env bash
# Time to first view of a source that already is a pyramid (issue 39): a SIZE x SIZE tiled pyramidal JPEG TIFF
# is moved into the images folder of a running tilescope, and the clock runs from the move to the preview and a
# full-resolution tile both answered. With --pyramidal-sources auto (served directly) and, if BUILD=1, build
# (the whole pyramid built first) for comparison. Also what the direct source wrote to disk.
#
#   bench/direct.sh                  # SIZE=50000
#   SIZE=20000 BUILD=1 bench/direct.sh
#   SIZE=56000 Q=90 bench/direct.sh   # a 2 GB slide (7.4 GB at SIZE=104000): check `df -h` first; KEEP=1 keeps it
#   BENCH_TILESCOPE=/path/to/tilescope bench/direct.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${SIZE:-50000}
Q=${Q:-85}
PORT=${PORT:-18931}
work=${WORK:-/tmp/tilescope-bench-direct}
mkdir -p "$work"
if [ -n "${BENCH_TILESCOPE:-}" ]; then
  tilescope=$BENCH_TILESCOPE
else
  swift build -c release --product tilescope > "$work/build.log" 2>&1 || { tail -n 30 "$work/build.log" >&2; exit 1; }
  tilescope="$(swift build -c release --show-bin-path)/tilescope"
fi
slide="$work/slide-$SIZE-q$Q.tif"
if [ ! -f "$slide" ]; then
  echo "making a ${SIZE}x${SIZE} pyramidal JPEG TIFF (once)" >&2
  # Smooth shapes, made small and scaled up by the save itself: no intermediate file of the full size.
  vips zone "$work/z.v" $((SIZE / 16)) $((SIZE / 16))
  vips linear "$work/z.v" "$work/a.v" 90 128
  vips flip "$work/a.v" "$work/b.v" horizontal
  vips flip "$work/a.v" "$work/c.v" vertical
  vips bandjoin "$work/a.v $work/b.v $work/c.v" "$work/rgb.v"
  vips cast "$work/rgb.v" "$work/u.v" uchar
  vips copy "$work/u.v" "$work/srgb.v" --interpretation srgb
  vips resize "$work/srgb.v" \
    "$slide[tile,pyramid,compression=jpeg,Q=$Q,tile-width=256,tile-height=256,bigtiff]" 16
  rm -f "$work"/*.v
fi
pid=""
finish() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true
  # A source of gigabytes is made again rather than left behind on a shared disk, unless KEEP=1.
  if [ "${KEEP:-0}" != 1 ] && [ "$(stat -c %s "$slide" 2>/dev/null || echo 0)" -gt $((1 << 30)) ]; then
    rm -f "$slide" "$work"/images-*/slide.tif
  fi
}
trap finish EXIT

first_view() {  # mode
  local mode=$1 images="$work/images-$1" data="$work/data-$1"
  rm -rf "$images" "$data" && mkdir -p "$images"
  setsid "$tilescope" serve --host 127.0.0.1 --port "$PORT" --images "$images" --data "$data" \
    --settle 0 --rescan 1 --pyramidal-sources "$mode" > "$work/server-$mode.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 200); do curl -sf "http://127.0.0.1:$PORT/healthz" > /dev/null && break; sleep 0.05; done
  cp "$slide" "$work/incoming.tif"  # on the same file system: the move below is a rename
  # The copy's gigabytes written back to disk before the clock starts: a file that appears has been copied, and
  # the write-back of a copy still under way would be the copy's time, not the server's.
  sync "$work/incoming.tif"
  local start end
  start=$(date +%s.%N)
  mv "$work/incoming.tif" "$images/slide.tif"
  until curl -sf "http://127.0.0.1:$PORT/images/slide/preview.jpeg" -o /dev/null; do sleep 0.01; done
  local max
  max=$(curl -sf "http://127.0.0.1:$PORT/api/images/slide" | python3 -c 'import json,sys; print(json.load(sys.stdin)["maxLevel"])')
  curl -sf "http://127.0.0.1:$PORT/dzi/slide_files/$max/40_40.jpeg" -o /dev/null
  end=$(date +%s.%N)
  local served written
  served=$(curl -sf "http://127.0.0.1:$PORT/api/images/slide" | python3 -c 'import json,sys; print(json.load(sys.stdin)["served"])')
  written=$(du -sb "$data/pyramids" | cut -f1)
  printf '| %s | %s | %.2f s | %s bytes |\n' "$mode" "$served" "$(echo "$end - $start" | bc)" "$written"
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
}

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); source $(stat -c %s "$slide") bytes ($(du -h "$slide" | cut -f1)), ${SIZE}x${SIZE}, Q$Q"
echo
echo "| --pyramidal-sources | served | file moved in to preview and a full-resolution tile answered | written to the data folder's pyramids |"
echo "|---|---|---:|---:|"
first_view auto
[ "${BUILD:-0}" = 1 ] && first_view build
exit 0
