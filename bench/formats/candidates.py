"""Tile encodings that might replace WebP for the client (issue 15, bytes goal): bytes and SSIM per candidate.

usage: candidates.py TILES_PER_LEVEL SOURCE...

Offline, no server: each source's deepest Deep Zoom level (the source itself) and the level below it (the
source shrunk 2 x 2 by the mean, as dzsave makes it) are cut into 254 px tiles with a 1 px overlap, as
tilescope's pyramids are. The "stored JPEG tile" is that crop at Q85 (what dzsave writes, and what
OpenSeadragon gets). Each candidate encodes one of three inputs:

  stored  the decoded stored JPEG tile (what the server encodes WebP and AVIF from today: a second generation)
  source  the level's own pixels (a first generation; for a JPEG source the server has no per-tile access
          to them: a crop of a non-tiled JPEG decodes the whole image)
  finer   the level below max only: the four (or more) stored JPEG tiles of the deepest level that cover
          the tile, stitched without their overlap and shrunk 2 x 2 (a first generation of this level,
          made from what the server does have)

SSIM is against the level's own pixels (luma, BT.601 weights, 9 x 9 boxes, as measure.py), averaged over the
tiles; bytes are a percentage of the stored JPEG tiles'. For each candidate with a quality scale the
qualities are tried from low to high and the first whose mean SSIM reaches the stored JPEG tiles' own is
reported ("equal picture"); when none does, the best one tried, marked "not reached". CPU is this process's
time per tile for the encoding alone (VIPS_CONCURRENCY=1, as the server's workers), decoding the finer
tiles and shrinking them included for "finer".
"""
import os
import sys
import time

os.environ.setdefault("VIPS_CONCURRENCY", "1")
import numpy as np  # noqa: E402
import pyvips  # noqa: E402

from picture import luma, ssim  # noqa: E402

SIZE, OVERLAP, JPEG_Q = 254, 1, 85




def tile_box(width, height, column, row):
    x0, y0 = max(0, column * SIZE - OVERLAP), max(0, row * SIZE - OVERLAP)
    x1, y1 = min(width, (column + 1) * SIZE + OVERLAP), min(height, (row + 1) * SIZE + OVERLAP)
    return x0, y0, x1 - x0, y1 - y0


def stored_tile(level, column, row):
    return level.crop(*tile_box(level.width, level.height, column, row)).jpegsave_buffer(Q=JPEG_Q)


def decode(body):
    return pyvips.Image.new_from_buffer(body, "").copy_memory()


def finer_pixels(deepest, box_, stored_bytes):
    """The level-below-max tile at box_ from the deepest level's stored JPEG tiles (stored_bytes(column, row)):
    decoded, stitched, shrunk 2 x 2."""
    x0, y0, w, h = box_
    fx0, fy0 = 2 * x0, 2 * y0
    fx1, fy1 = min(deepest.width, 2 * (x0 + w)), min(deepest.height, 2 * (y0 + h))
    rows = []
    for fr in range(fy0 // SIZE, (fy1 - 1) // SIZE + 1):
        parts = []
        for fc in range(fx0 // SIZE, (fx1 - 1) // SIZE + 1):
            tb = tile_box(deepest.width, deepest.height, fc, fr)
            tile = decode(stored_bytes(fc, fr))
            parts.append(tile.crop(fc * SIZE - tb[0], fr * SIZE - tb[1],
                                   min(SIZE, deepest.width - fc * SIZE), min(SIZE, deepest.height - fr * SIZE)))
        rows.append(pyvips.Image.arrayjoin(parts, across=len(parts)))
    mosaic = pyvips.Image.arrayjoin(rows, across=1)
    mx0, my0 = (fx0 // SIZE) * SIZE, (fy0 // SIZE) * SIZE
    half = mosaic.crop(fx0 - mx0, fy0 - my0, fx1 - fx0, fy1 - fy0).shrink(2, 2).cast("uchar")
    return half.crop(0, 0, min(w, half.width), min(h, half.height))


# name, input, encoder(image, q), qualities tried low to high (None: one setting, no scale)
CANDIDATES = [
    ("WebP (shipped: Q90)", "stored", lambda im, q: im.webpsave_buffer(Q=q, strip=True), [90, 95, 100]),
    ("WebP, smart_subsample, preset photo", "stored",
     lambda im, q: im.webpsave_buffer(Q=q, smart_subsample=True, preset="photo", strip=True), [90, 95, 100]),
    ("WebP", "source", lambda im, q: im.webpsave_buffer(Q=q, strip=True), [90, 95, 98, 100]),
    ("WebP", "finer", lambda im, q: im.webpsave_buffer(Q=q, strip=True), [90, 95, 98, 100]),
    ("AVIF effort 2 (shipped: Q50)", "stored",
     lambda im, q: im.heifsave_buffer(Q=q, compression="av1", bitdepth=8, effort=2, strip=True), [50, 70, 80, 85, 90]),
    ("AVIF effort 4", "stored",
     lambda im, q: im.heifsave_buffer(Q=q, compression="av1", bitdepth=8, effort=4, strip=True), [80, 85, 90]),
    ("AVIF effort 4, 4:4:4", "source",
     lambda im, q: im.heifsave_buffer(Q=q, compression="av1", bitdepth=8, effort=4, subsample_mode="off",
                                      strip=True), [70, 80, 85]),
    ("AVIF effort 2", "source",
     lambda im, q: im.heifsave_buffer(Q=q, compression="av1", bitdepth=8, effort=2, strip=True), [70, 80, 85, 90]),
    ("AVIF effort 4", "source",
     lambda im, q: im.heifsave_buffer(Q=q, compression="av1", bitdepth=8, effort=4, strip=True),
     [70, 75, 80, 83, 85, 88]),
    ("AVIF effort 6", "source",
     lambda im, q: im.heifsave_buffer(Q=q, compression="av1", bitdepth=8, effort=6, strip=True), [85]),
    ("AVIF effort 2", "finer",
     lambda im, q: im.heifsave_buffer(Q=q, compression="av1", bitdepth=8, effort=2, strip=True), [70, 80, 85, 90]),
    ("AVIF effort 4", "finer",
     lambda im, q: im.heifsave_buffer(Q=q, compression="av1", bitdepth=8, effort=4, strip=True),
     [70, 75, 78, 80, 83, 85, 88]),
    # JPEG XL's lossy VarDCT mode (libjxl through libvips's jxlsave; Q maps to its distance), which Chromium
    # decodes here: what the lossless recompression the server sends today leaves on the table.
    ("JPEG XL effort 7", "source", lambda im, q: im.jxlsave_buffer(Q=q, effort=7, strip=True), [85, 86, 87, 88, 89, 90]),
    ("JPEG XL effort 5", "source", lambda im, q: im.jxlsave_buffer(Q=q, effort=5, strip=True), [86, 87, 88, 89, 90]),
    ("JPEG XL effort 7", "finer", lambda im, q: im.jxlsave_buffer(Q=q, effort=7, strip=True), [85, 86, 87, 88, 89, 90]),
    # Same pixels, same quantised coefficients as the stored tile; only the entropy coding differs (what
    # jpegtran -optimize -progressive does losslessly to the stored file).
    ("JPEG Q85, optimized Huffman + progressive", "source",
     lambda im, q: im.jpegsave_buffer(Q=JPEG_Q, optimize_coding=True, interlace=True, strip=True), None),
    ("JPEG Q85", "finer", lambda im, q: im.jpegsave_buffer(Q=JPEG_Q, strip=True), None),
]


def measure(path, per_level):
    source = pyvips.Image.new_from_file(path).copy_memory()
    if source.hasalpha():
        source = source.flatten()
    if source.bands == 1:
        source = source.bandjoin([source, source])
    levels = {"deepest": source, "below": source.shrink(2, 2).cast("uchar").copy_memory()}
    name = os.path.basename(path)
    for level_name, level in levels.items():
        columns, rows = (level.width + SIZE - 1) // SIZE, (level.height + SIZE - 1) // SIZE
        grid = [(c, r) for r in range(rows) for c in range(columns)]
        tiles = []
        for column, row in grid[::max(1, len(grid) // per_level)][:per_level]:
            box_ = tile_box(level.width, level.height, column, row)
            stored = stored_tile(level, column, row)
            inputs = {"stored": decode(stored), "source": level.crop(*box_).copy_memory()}
            if level_name == "below":
                deepest_tiles = {}
                for fr in range(2 * box_[1] // SIZE, min(source.height, 2 * (box_[1] + box_[3]) - 1) // SIZE + 1):
                    for fc in range(2 * box_[0] // SIZE, min(source.width, 2 * (box_[0] + box_[2]) - 1) // SIZE + 1):
                        deepest_tiles[fc, fr] = stored_tile(source, fc, fr)
                start = time.process_time()
                inputs["finer"] = finer_pixels(source, box_, lambda c, r: deepest_tiles[c, r]).copy_memory()
                inputs["finer_cpu"] = time.process_time() - start
            reference = luma(inputs["source"])
            tiles.append((len(stored), ssim(reference, luma(inputs["stored"])), inputs, reference))
        jpeg_bytes = np.mean([t[0] for t in tiles])
        target = np.mean([t[1] for t in tiles])
        print(f"\n{name} ({source.width} x {source.height}), {level_name} level ({level.width} x {level.height}), "
              f"{len(tiles)} tiles: stored JPEG {jpeg_bytes:.0f} bytes a tile, SSIM {target:.4f}\n")
        print("| candidate | made from | quality | bytes vs JPEG | SSIM | equal picture? | CPU ms a tile |")
        print("|---|---|---:|---:|---:|---|---:|")
        for label, origin, encode, qualities in CANDIDATES:
            if origin == "finer" and level_name != "below":
                continue
            best = None
            for q in qualities or [None]:
                sizes, scores, cpu = [], [], 0.0
                for _, _, inputs, reference in tiles:
                    start = time.process_time()
                    body = encode(inputs[origin], q)
                    cpu += time.process_time() - start + (inputs["finer_cpu"] if origin == "finer" else 0)
                    out = decode(body)
                    assert (out.width, out.height) == (inputs["source"].width, inputs["source"].height)
                    sizes.append(len(body))
                    scores.append(ssim(reference, luma(out)))
                best = (q, np.mean(sizes), np.mean(scores), cpu / len(tiles))
                if best[2] >= target:
                    break
            q, size, score, cpu = best
            equal = "yes" if score >= target else "no" if qualities is None else "not reached"
            print(f"| {label} | {origin} | {'-' if q is None else f'Q{q}'} | {100 * size / jpeg_bytes:.0f}% | "
                  f"{score:.4f} | {equal} | {1000 * cpu:.0f} |")
        sys.stdout.flush()


if __name__ == "__main__":
    per = int(sys.argv[1])
    for source_path in sys.argv[2:]:
        measure(source_path, per)
