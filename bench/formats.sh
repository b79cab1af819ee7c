#!/usr/bin/env bash
# Tile formats: bytes per tile, visual quality and server CPU of WebP and AVIF Deep Zoom tiles
# against the stored JPEG ones, on a live release tilescope. Writes Markdown tables to stdout and
# bench/out/formats.md (docs/api.md#tile-formats quotes them; the lossless part, docs/iiif.md#measured).
#
#   bench/formats.sh
#   PARTS=candidates bench/formats.sh     # only the candidates' table (any of served, lossless, candidates)
#
# Sources (made here, nothing downloaded): the demo gallery's quick images, painted by the project's
# own code (mandelbrot.png, grid.png, panorama.jpg, tower.jpg: a `tilescope serve` of the demo
# gallery writes them, and is stopped once they are there), and "photo", smooth shapes plus heavy
# grain as bench/iiif.sh makes (a worst case: per-pixel noise survives the JPEG tile and costs every
# later encoding). Tiles: up to TILES full-resolution tiles of each, spread over the image.
# Quality: SSIM of each served tile against the source's own pixels of that tile (luma, BT.601
# weights, 9 x 9 box windows), averaged over tiles. CPU: utime+stime of the server process from
# /proc over a block of requests, divided by the block's requests; the formats' blocks alternate
# (first requests image by image, cached requests in ROUNDS rounds), so they share the same noise.
# Then the same JPEG tiles are encoded over a range of qualities to find the bytes at equal SSIM.
# Last, offline (bench/formats/candidates.py): encodings that could replace WebP for the client, made from
# the stored tile, the source's pixels or the finer level's tiles, on the demo images and on bench/client's
# grainy Perlin image (its cells and seeds, CANDIDATE_SIZE square): bytes at the JPEG tile's SSIM.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
TILES=${TILES:-24}
WIDTH=${WIDTH:-3048}
HEIGHT=${HEIGHT:-2032}
PORT=${PORT:-18811}
PARTS=${PARTS:-served,lossless,candidates}
CANDIDATE_TILES=${CANDIDATE_TILES:-8}
CANDIDATE_SIZE=${CANDIDATE_SIZE:-2048}
work=${WORK:-/tmp/tilescope-bench-formats}
out=bench/out
mkdir -p "$work/images" "$out"

scripts/browser-test-setup.sh >/dev/null   # libvips-tools, .venv with numpy
.venv/bin/python -c "import pyvips" 2>/dev/null || .venv/bin/pip install -q --disable-pip-version-check pyvips

echo "building tilescope (release)" >&2
swift build -c release --product tilescope > "$work/build.log" 2>&1 || { tail -n 30 "$work/build.log" >&2; exit 1; }
tilescope="$(swift build -c release --show-bin-path)/tilescope"

t="$work/tmp"; mkdir -p "$t"
if [ ! -f "$work/images/photo.png" ]; then
  echo "making the ${WIDTH}x${HEIGHT} sources" >&2
  vips zone "$t/z.v" $((WIDTH / 8)) $((HEIGHT / 8))
  vips resize "$t/z.v" "$t/zl.v" 8
  vips linear "$t/zl.v" "$t/a.v" 90 128
  vips flip "$t/a.v" "$t/ag.v" horizontal
  vips flip "$t/a.v" "$t/ab.v" vertical
  vips bandjoin "$t/a.v $t/ag.v $t/ab.v" "$t/smooth.v"
  vips gaussnoise "$t/n.v" "$WIDTH" "$HEIGHT" --sigma 10 --mean 0
  vips add "$t/smooth.v" "$t/n.v" "$t/photo.v"
  vips cast "$t/photo.v" "$work/images/photo.png" uchar
fi

if [ ! -f "$work/images/tower.jpg" ]; then
  echo "painting the demo gallery's quick images" >&2
  rm -rf "$work/demo"
  "$tilescope" serve --host 127.0.0.1 --port "$PORT" --data "$work/demo" > "$work/demo.log" 2>&1 &
  demo=$!
  for _ in $(seq 1 600); do
    [ -f "$work/demo/demo-images/tower.jpg" ] && [ -f "$work/demo/demo-images/mandelbrot.png" ] \
      && [ -f "$work/demo/demo-images/panorama.jpg" ] && [ -f "$work/demo/demo-images/grid.png" ] && break
    sleep 0.2
  done
  kill "$demo"; wait "$demo" 2>/dev/null || true
  for f in mandelbrot.png grid.png panorama.jpg tower.jpg; do cp "$work/demo/demo-images/$f" "$work/images/" \
    || { echo "the demo gallery did not write $f (see $work/demo.log)" >&2; exit 1; }; done
fi

part() { [[ ",$PARTS," == *",$1,"* ]]; }
commit=$(git rev-parse --short HEAD)
: > "$out/formats.md"

if part served; then
rm -rf "$work/data"
"$tilescope" serve --host 127.0.0.1 --port "$PORT" --images "$work/images" --data "$work/data" --workers 1 \
  > "$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true' EXIT
nice -n 5 .venv/bin/python bench/formats/measure.py "http://127.0.0.1:$PORT" "$server" "$work/images" "$ROUNDS" "$commit" "$TILES" \
  | tee -a "$out/formats.md"
kill "$server"; wait "$server" 2>/dev/null || true
fi

if part lossless; then
{
  echo
  echo "Exact regions of a lossless source, per 512 x 512 PNG region (CPU ms), libvips $(vips --version | cut -d- -f2):"
  echo
  echo "| source | file | from the source each time | lossless copy: one-time CPU, size | from the copy |"
  echo "|---|---:|---:|---:|---:|"
  for f in photo mandelbrot; do
    nice -n 5 .venv/bin/python bench/formats/lossless.py "$work/images/$f.png" "$t"
  done
} | tee -a "$out/formats.md"
fi

if part candidates; then
  # bench/client/run.py's image (three octaves of Perlin noise, one a band), at CANDIDATE_SIZE.
  perlin="$work/images-candidates/perlin-$CANDIDATE_SIZE.jpg"
  if [ ! -f "$perlin" ]; then
    mkdir -p "$(dirname "$perlin")"
    for spec in "r 512 1" "g 48 2" "b 6 3"; do
      set -- $spec
      vips perlin "$t/$1.v" "$CANDIDATE_SIZE" "$CANDIDATE_SIZE" --cell-size "$2" --uchar --seed "$3"
    done
    vips bandjoin "$t/r.v $t/g.v $t/b.v" "$perlin[Q=92]"
  fi
  {
    echo
    echo "Candidate encodings for the client's tiles, measured at commit $commit on $(date -u +%Y-%m-%d) (libvips $(vips --version | cut -d- -f2), load average $(cut -d' ' -f1-3 /proc/loadavg)):"
    nice -n 5 .venv/bin/python bench/formats/candidates.py "$CANDIDATE_TILES" "$perlin" \
      "$work/images/tower.jpg" "$work/images/panorama.jpg" "$work/images/mandelbrot.png" "$work/images/grid.png"
  } | tee -a "$out/formats.md"
fi
