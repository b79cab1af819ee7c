#!/usr/bin/env bash
# Bytes and CPU per tile of re-encoding stored JPEG tiles with optimized Huffman tables (OptimizedJPEG),
# baseline and progressive, on COUNT random tiles of one level of a built pyramid (default: bench/client's
# 16384 x 16384 Perlin image, level 14). Run under the bench lock: flock /work/bench.lock bench/formats/huffman.sh
#
#   bench/formats/huffman.sh [TILE_FOLDER] [COUNT]
set -euo pipefail
cd "$(dirname "$0")/../.."
folder=${1:-$(ls -d bench/out/client/data-16384/pyramids/*/*/image_files/14 | head -n 1)}
count=${2:-200}
binary=$(mktemp)
trap 'rm -f "$binary"' EXIT
cc -O2 -I Sources/CTileDecoder/include -o "$binary" bench/formats/huffman_cost.c Sources/CTileDecoder/jpeg_huffman.c -ljpeg
echo "# $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD) load $(cut -d' ' -f1-3 /proc/loadavg): $folder"
# A fixed sample (seeded shuffle), so runs compare.
mapfile -t tiles < <(ls "$folder"/*.jpeg | shuf -n "$count" --random-source=<(yes))
"$binary" "${tiles[@]}"
