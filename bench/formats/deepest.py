"""The deepest level of bench/client's image: stored JPEG tiles against AVIF made from the source's own pixels.

usage: deepest.py SOURCE VERSION_FOLDER TILES QUALITY...

SOURCE: bench/client's source image (bench/out/client/images-16384/perlin-16384.jpg); VERSION_FOLDER: the
pyramid tilescope built from it (bench/out/client/data-16384/pyramids/{id}/{version}). TILES tiles spread over
the deepest level; for each, the reference is the source's pixels of the tile (overlap included), as dzsave
cuts them; "stored" is the stored tile. Each quality is an AVIF as the server makes the deepest level's (effort 3,
or EFFORT from the environment; 8-bit): its bytes against the stored tile's, and how many tiles reach the stored tile's own SSIM, each tile
against its own. The server tries `TileQualities.sourceAVIF` in turn and keeps the first AVIF
that is smaller than the JPEG and reaches its SSIM (`LumaSSIM`, the same measure as picture.py), so the figures
here say how many tiles each quality takes and what they cost.
"""
import os
import sys
import time

os.environ.setdefault("VIPS_CONCURRENCY", "1")
import numpy as np  # noqa: E402
import pyvips  # noqa: E402

from candidates import SIZE, decode, tile_box  # noqa: E402
from picture import luma, ssim  # noqa: E402

source_path, folder, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
qualities = [int(q) for q in sys.argv[4:]]
effort = int(os.environ.get("EFFORT", "3"))  # libheif AV1 effort: 0 fastest, 9 smallest
source = pyvips.Image.new_from_file(source_path)
deepest = max(source.width - 1, source.height - 1).bit_length()
columns, rows = (source.width + SIZE - 1) // SIZE, (source.height + SIZE - 1) // SIZE
grid = [(c, r) for r in range(rows) for c in range(columns)]
picked = grid[::max(1, len(grid) // count)][:count]
# One pass down the source, as the server reads it: a random-access crop of a JPEG would decode it whole.
by_row = {}
for column, row in picked:
    by_row.setdefault(row, []).append(column)
tiles = []
for row in sorted(by_row):
    for column in by_row[row]:
        box_ = tile_box(source.width, source.height, column, row)
        ref = source.crop(*box_).copy_memory()
        body = open(f"{folder}/image_files/{deepest}/{column}_{row}.jpeg", "rb").read()
        luma_ref = luma(ref)
        tiles.append((len(body), ssim(luma_ref, luma(decode(body))), ref, luma_ref))

jpeg_bytes = np.mean([t[0] for t in tiles])
print(f"level {deepest}, {len(tiles)} tiles: stored JPEG {jpeg_bytes:.0f} bytes a tile, "
      f"SSIM {np.mean([t[1] for t in tiles]):.4f}\n")
print(f"| AVIF effort {effort} from the source | bytes vs JPEG (mean) | SSIM (mean) | tiles at the JPEG's SSIM or above "
      "| worst SSIM - JPEG's | CPU ms a tile |")
print("|---|---:|---:|---:|---:|---:|")
for q in qualities:
    sizes, scores, reached, worst, cpu = [], [], 0, 1.0, 0.0
    for size, target, ref, luma_ref in tiles:
        start = time.process_time()
        body = ref.heifsave_buffer(Q=q, compression="av1", bitdepth=8, effort=effort, strip=True)
        cpu += time.process_time() - start
        score = ssim(luma_ref, luma(decode(body)))
        sizes.append(len(body) / size)
        scores.append(score)
        reached += score >= target
        worst = min(worst, score - target)
    print(f"| Q{q} | {100 * np.mean(sizes):.0f}% | {np.mean(scores):.4f} | {reached} of {len(tiles)} | "
          f"{worst:+.4f} | {1000 * cpu / len(tiles):.0f} |")
    sys.stdout.flush()
