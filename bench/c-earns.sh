#!/usr/bin/env bash
# What the hand-written C buys (docs/architecture.md#what-the-hand-written-c-buys): each piece against the
# plain path, A and B alternating in one run, medians and ratios side by side.
#
#   bench/c-earns.sh             the CTileDecoder pieces (bench/c-earns/driver.c), about 3 minutes
#   bench/c-earns.sh hot         the hot tile answers (hot_responses.c) against the Swift path: bench/compare of
#                                one release binary with --hot-tile-answers true and false (a quick bench/run
#                                first when bench/out has no tile list)
#
# The CTileDecoder pieces run on a 16384 x 16384 Perlin JPEG at Q85 (4:2:0, as photographs and the demo's
# gigapixel image are; made once with the vips CLI into bench/out/c-earns/) and its pyramid (vips dzsave, tile
# 254, overlap 1, Q85: the stored tiles' settings):
#   - eighth: the preview's 1/8 decode (jpeg_eighth.c, two threads) against libjpeg's own 1/8 decode
#     (ts_jpeg_rows at scale 8: what PyramidBuilder.reducedPreview falls back to); wall time, the wait for the
#     preview. libvips's jpegload shrink=8 is shown too: it drops the partial last blocks, so it is no option.
#   - rows: a whole source decoded row by row with libjpeg (jpeg_rows.c) against libvips's sequential jpegload.
#   - regions: 200 IIIF regions drawn as bench/iiif/requests.py draws them, each stage (decode the covering
#     tiles, resize, encode) in C and with libvips, CPU per region (VIPS_CONCURRENCY 1, as the server runs them).
#   - huffman: 200 deepest-level tiles re-encoded with optimized Huffman tables, bytes against the stored tile;
#     where jpegtran is installed (Debian: libjpeg-turbo-progs), each output compared with
#     `jpegtran -optimize -copy none`'s: jpeg_huffman.c is libjpeg's own lossless transcoding, the same calls.
# Set C_EARNS_IMAGE=FILE to measure eighth and rows on another JPEG (the demo's gigapixel image, say).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${BENCH_OUT:-bench/out}/c-earns
ROUNDS=${C_EARNS_ROUNDS:-5}
mkdir -p "$OUT"
stamp() { echo "# $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD) load $(cut -d' ' -f1-3 /proc/loadavg)"; }

if [[ ${1:-} == hot ]]; then
  swift build -c release > /dev/null
  binary=$(swift build -c release --show-bin-path)/tilescope
  [[ -s ${BENCH_OUT:-bench/out}/tiles.txt ]] || BENCH_QUICK=1 BENCH_BUILD_RUNS=1 bench/run > /dev/null
  # A second name for the same binary, its hot answers off: bench/compare takes binaries, not flags.
  swift_path=$OUT/tilescope-swift-path
  printf '#!/bin/sh\nTILESCOPE_HOT_TILE_ANSWERS=false exec %q "$@"\n' "$(realpath "$binary")" > "$swift_path"
  chmod +x "$swift_path"
  stamp
  BENCH_ROUNDS=${BENCH_ROUNDS:-$ROUNDS} bench/compare c="$binary" swift="$swift_path"
  exit 0
fi

image=${C_EARNS_IMAGE:-$OUT/source-16384.jpg}
if [[ ! -s $image ]]; then
  tmp=$(mktemp -d)
  vips perlin "$tmp/r.v" 16384 16384 --cell-size 512 --uchar --seed 1
  vips perlin "$tmp/g.v" 16384 16384 --cell-size 48 --uchar --seed 2
  vips perlin "$tmp/b.v" 16384 16384 --cell-size 6 --uchar --seed 3
  vips bandjoin "$tmp/r.v $tmp/g.v $tmp/b.v" "$image[Q=85]"
  rm -rf "$tmp"
fi
levels=$OUT/pyramid_files
if [[ ! -d $levels/14 ]]; then
  rm -rf "$OUT/pyramid_files" "$OUT/pyramid.dzi"
  vips dzsave "$OUT/source-16384.jpg" "$OUT/pyramid" --tile-size 254 --overlap 1 --suffix ".jpeg[Q=85]"
fi
driver=$OUT/driver
cc -O2 -I Sources/CTileDecoder/include -o "$driver" bench/c-earns/driver.c Sources/CTileDecoder/*.c \
  $(pkg-config --cflags --libs vips libjpeg) -lm -lpthread
stamp
"$driver" eighth "$image" "$ROUNDS"; echo
"$driver" rows "$image" 3; echo
"$driver" regions "$levels" 16384 16384 "$ROUNDS" 200; echo
# A fixed sample of the deepest level (seeded shuffle), so runs compare.
mapfile -t tiles < <(ls "$levels"/14/*.jpeg | shuf -n 200 --random-source=<(yes))
"$driver" huffman "$ROUNDS" "${tiles[@]}"
if command -v jpegtran > /dev/null; then
  rm -rf "$OUT/transcoded" && mkdir -p "$OUT/transcoded"
  "$driver" transcode "$OUT/transcoded" "${tiles[@]}"
  same=0
  for tile in "${tiles[@]}"; do
    cmp -s "$OUT/transcoded/${tile##*/}" <(jpegtran -optimize -copy none "$tile") && same=$((same + 1))
  done
  echo; echo "kept JPEGs the same bytes as jpegtran -optimize -copy none's: $same of ${#tiles[@]}"
fi
