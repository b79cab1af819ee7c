"""The client's tile levels of bench/client's image: stored JPEG tiles against encodings made from the finer level.

usage: levels.py SOURCE.v VERSION_FOLDER TILES_PER_LEVEL LEVEL...

SOURCE.v: bench/client's source decoded once (random access to its pixels); VERSION_FOLDER: the pyramid
tilescope built from it (bench/out/client/data-16384/pyramids/{id}/{version}). For each level L named (below
the deepest), TILES tiles spread over the level: the reference is the source's pixels of the tile shrunk 2 x 2
by the mean once per level, to uchar each time, as dzsave builds its levels; "stored" is the stored tile;
"finer" is the stored tiles of level L + 1 that cover it, decoded, stitched without their overlap and shrunk
2 x 2. Candidates are encoded as in candidates.py; the first quality reaching the stored tiles' SSIM is shown.
"""
import os
import sys
import time

os.environ.setdefault("VIPS_CONCURRENCY", "1")
import numpy as np  # noqa: E402
import pyvips  # noqa: E402

from candidates import SIZE, decode, finer_pixels, tile_box  # noqa: E402
from picture import luma, ssim  # noqa: E402

source_path, folder, per_level = sys.argv[1], sys.argv[2], int(sys.argv[3])
source = pyvips.Image.new_from_file(source_path)
deepest = max(source.width - 1, source.height - 1).bit_length()


def stored(level, column, row):
    return open(f"{folder}/image_files/{level}/{column}_{row}.jpeg", "rb").read()


def level_size(level):
    k = deepest - level
    return (source.width + (1 << k) - 1) >> k, (source.height + (1 << k) - 1) >> k


def reference(level, box_):
    k = deepest - level
    x0, y0, w, h = box_
    region = source.crop(x0 << k, y0 << k, min(source.width - (x0 << k), w << k), min(source.height - (y0 << k), h << k))
    for _ in range(k):
        region = region.shrink(2, 2).cast("uchar").copy_memory()
    return region


def avif(effort):
    return lambda im, q: im.heifsave_buffer(Q=q, compression="av1", bitdepth=8, effort=effort, strip=True)


CANDIDATES = [
    ("WebP (shipped: Q90)", "stored", lambda im, q: im.webpsave_buffer(Q=q, strip=True), [90]),
    ("AVIF effort 2", "finer", avif(2), [75, 80, 85, 90]),
    ("AVIF effort 3", "finer", avif(3), [75, 78, 80, 83, 85, 88]),
    # Effort 3 at the server's Q83 and one step up, against effort 4 at Q83 (what the server makes below the deepest).
    ("AVIF effort 3, Q84", "finer", avif(3), [84]),
    ("AVIF effort 4, Q83", "finer", avif(4), [83]),
    ("AVIF effort 4", "finer", avif(4), [70, 75, 78, 80, 83, 85, 88]),
    ("WebP", "finer", lambda im, q: im.webpsave_buffer(Q=q, strip=True), [90, 95, 98]),
    # A stand-in quick enough to make on the first request (a cold server's answer before the AVIF is made).
    ("JPEG, optimized tables", "finer", lambda im, q: im.jpegsave_buffer(Q=q, optimize_coding=True, strip=True), [80, 85]),
]

for level in [int(a) for a in sys.argv[4:]]:
    width, height = level_size(level)
    finer_width, finer_height = level_size(level + 1)
    finer_level = pyvips.Image.black(finer_width, finer_height)  # only its size is read by finer_pixels
    columns, rows = (width + SIZE - 1) // SIZE, (height + SIZE - 1) // SIZE
    grid = [(c, r) for r in range(rows) for c in range(columns)]
    tiles = []
    for column, row in grid[::max(1, len(grid) // per_level)][:per_level]:
        box_ = tile_box(width, height, column, row)
        body = stored(level, column, row)
        ref = reference(level, box_)
        start = time.process_time()
        finer = finer_pixels(finer_level, box_, lambda c, r: stored(level + 1, c, r)).copy_memory()
        finer_cpu = time.process_time() - start
        luma_ref = luma(ref)
        tiles.append((len(body), ssim(luma_ref, luma(decode(body))), {"stored": decode(body), "finer": finer}, finer_cpu, luma_ref))
    jpeg_bytes, target = np.mean([t[0] for t in tiles]), np.mean([t[1] for t in tiles])
    print(f"\nlevel {level} ({width} x {height}), {len(tiles)} tiles: stored JPEG {jpeg_bytes:.0f} bytes a tile, "
          f"SSIM {target:.4f}; the finer level's pixels alone: SSIM "
          f"{np.mean([ssim(t[4], luma(t[2]['finer'])) for t in tiles]):.4f}\n")
    print("| candidate | made from | quality | bytes vs JPEG | SSIM | equal picture? | CPU ms a tile |")
    print("|---|---|---:|---:|---:|---|---:|")
    for label, origin, encode, qualities in CANDIDATES:
        for q in qualities:
            sizes, scores, cpu = [], [], 0.0
            for _, _, inputs, finer_cpu, luma_ref in tiles:
                start = time.process_time()
                body = encode(inputs[origin], q)
                cpu += time.process_time() - start + (finer_cpu if origin == "finer" else 0)
                sizes.append(len(body))
                scores.append(ssim(luma_ref, luma(decode(body))))
            if np.mean(scores) >= target:
                break
        equal = "yes" if np.mean(scores) >= target else "not reached"
        print(f"| {label} | {origin} | Q{q} | {100 * np.mean(sizes) / jpeg_bytes:.0f}% | {np.mean(scores):.4f} | "
              f"{equal} | {1000 * cpu / len(tiles):.0f} |")
    sys.stdout.flush()
