"""What-if for issue 44's goal 2: a view's bytes if the pyramid had levels a third of an octave apart (scales
2^(-k/3)) instead of an octave (2^-k).

A viewer draws a view from the coarsest level whose scale is at least the view's (zoomScale x devicePixelRatio):
with levels an octave apart that level holds between 1x and 4x the pixels the screen shows (2.16x on average over
views spread evenly in log scale), with levels a third of an octave apart between 1x and 1.59x (1.27x). The bench's
steps are the worst case for today's pyramid: its 800 px high view of a 16384 px image at fit, then three zooms x2,
each asks for a scale just under a level's (0.78x of it), so each view gets 1.64x the pixels it shows, where a level
2^(-1/3) lower would give it 1.03x.

Whether that saves bytes depends on how an intermediate level's tiles compress, so this encodes them: for each of
`run.py`'s load and three zooms, at DPR 1 and 2, the tiles (or the preview) the view needs at today's level and at
the third-of-an-octave level, each made from the next finer stored level (as the server's AVIF tiles are: today's by
its 2 x 2 mean, libvips's `shrink`; an intermediate level by libvips's `resize`, Lanczos 3) and encoded in AVIF at
the stored tiles' quality and effort (the preview at the rung of its ladder whose bytes are nearest the stored
preview's). The ratio of the two encodings is applied to what the client receives today for that view (the smaller
of each tile's AVIF and JPEG XL, or the preview). Nothing is served this way: it says what the change would buy
before it is built. The mean SSIM (luma, libvips's own resampling as the reference) says the two encodings keep the
same picture.

Usage, after `bench/client/run` made its data folder:
    .venv/bin/python bench/client/third_levels.py [bench/out/client/data-16384] [--sweep] [--network A [--runs 5]]
With `--network`, each step's answers at DPR 1 (`--network-scales 1,2` for both), today's and those estimated with
levels between, are also fetched in Chromium under that connection, over HTTP/1.1 and HTTP/2 (quarters_network.py).
`--sweep` also counts, without encoding, the tiles over 2,000 views spread evenly in log scale (1280x800 at DPR 1
and 2, 390x844 at DPR 3): the mean number of tiles a view needs at each kind of pyramid.
"""
import argparse
import json
import math
import os
import random
import sys
from pathlib import Path

import pyvips

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / 'Tests' / 'browser'))
sys.path.insert(0, str(ROOT / 'bench' / 'formats'))
import geometry  # noqa: E402 (the viewport rules, written again in Python)
import picture  # noqa: E402 (the formats benchmarks' luma and SSIM)
import throttle  # noqa: E402
from edge_quadrants import pyramid_folder, received  # noqa: E402
from run import VIEW, steps  # noqa: E402

TILE, OVERLAP = 254, 1
AVIF = {'Q': 83, 'effort': 4, 'compression': 'av1', 'strip': True}  # the stored AVIF tiles: finer-q83-e4
DEEPEST_AVIF = {'Q': 88, 'effort': 3, 'compression': 'av1', 'strip': True}  # the deepest level's: source-q88-89-e3
PREVIEW_LADDER = (70, 75, 80, 85, 89)  # the stored preview's: avif-finer-q70-75-80-85-89-e3
PREVIEW_EFFORT = 3
EPS = 1e-9


def third_scale(needed):
    """The coarsest scale 2^(-k/3) (k >= 0) at least `needed` (which is at most 1)."""
    k = math.floor(-3 * math.log2(needed) + EPS)
    return 2.0 ** (-max(0, k) / 3)


def dyadic_scale(needed):
    return 2.0 ** -max(0, math.floor(-math.log2(needed) + EPS))


class Levels:
    """Any level's pixels, from libvips's reading of the source: a level an octave apart by the mean of each
    2^k x 2^k block (libvips's `shrink`, what dzsave's repeated 2 x 2 means give), one between by libvips's
    `resize` (Lanczos 3). Each is computed only where its tiles are cropped from it."""

    def __init__(self, source):
        self.source = pyvips.Image.new_from_file(str(source), access='random').copy_memory()
        self.width, self.height = self.source.width, self.source.height

    def made(self, scale):
        """(the level's pixels at `scale`, its width and height)."""
        width, height = math.ceil(self.width * scale - EPS), math.ceil(self.height * scale - EPS)
        factor = round(1 / scale)
        if abs(factor * scale - 1) < EPS:
            pixels = self.source.shrink(factor, factor) if factor > 1 else self.source
            if pixels.width < width or pixels.height < height:
                pixels = pixels.embed(0, 0, width, height, extend='copy')
        else:
            pixels = self.source.resize(width / self.width, vscale=height / self.height, kernel='lanczos3')
        return pixels.crop(0, 0, width, height), width, height


def covering(width, height, level_width, level_height, visible):
    """(column, row, left, top, w, h) of each tile of a level whose pixels cover `visible` (rule 9's spans)."""
    sx, sy = level_width / width, level_height / height
    x0, x1 = geometry.span(visible['x'] * sx, (visible['x'] + visible['width']) * sx, level_width)
    y0, y1 = geometry.span(visible['y'] * sy, (visible['y'] + visible['height']) * sy, level_height)
    tiles = []
    for row in range(y0 // TILE, -(-y1 // TILE)):
        for column in range(x0 // TILE, -(-x1 // TILE)):
            left, top = column * TILE - (OVERLAP if column else 0), row * TILE - (OVERLAP if row else 0)
            right, bottom = min(level_width, (column + 1) * TILE + OVERLAP), min(level_height, (row + 1) * TILE + OVERLAP)
            tiles.append((column, row, left, top, right - left, bottom - top))
    return tiles


def encoded(pixels, **settings):
    data = pixels.heifsave_buffer(**settings)
    return len(data), picture.ssim(picture.luma(pyvips.Image.new_from_buffer(data, '')), picture.luma(pixels))


def tiles_bytes(image_size, pixels, width, height, visible, settings):
    """(each tile's AVIF bytes, their mean SSIM) for the tiles covering `visible` in a level's pixels, nearest the
    view's centre first (as the client asks for them)."""
    sizes, scores = [], []
    tiles = covering(*image_size, width, height, visible)
    cx, cy = (visible['x'] + visible['width'] / 2) * width / image_size[0], (visible['y'] + visible['height'] / 2) * height / image_size[1]
    tiles.sort(key=lambda t: ((t[2] + t[4] / 2 - cx) ** 2 + (t[3] + t[5] / 2 - cy) ** 2, t[1], t[0]))
    for _, _, left, top, w, h in tiles:
        size, score = encoded(pixels.crop(left, top, w, h).copy_memory(), **settings)
        sizes.append(size)
        scores.append(score)
    return sizes, sum(scores) / len(scores)


def preview_rung(levels, preview_bytes):
    """The preview ladder's quality whose encoding of today's preview is nearest the stored preview's bytes."""
    pixels, _, _ = levels.made(geometry.level_scale(levels.width, levels.height,
                                                    geometry.preview_level(levels.width, levels.height)))
    pixels = pixels.copy_memory()
    sizes = {q: len(pixels.heifsave_buffer(Q=q, effort=PREVIEW_EFFORT, compression='av1', strip=True))
             for q in PREVIEW_LADDER}
    return min(sizes, key=lambda q: abs(sizes[q] - preview_bytes))


def compare(data):
    version, formats = pyramid_folder(data)
    pyramid = json.loads((version / 'pyramid.json').read_text())
    width, height = pyramid['width'], pyramid['height']
    image = {'width': width, 'height': height, 'tileSize': TILE, 'overlap': OVERLAP}
    levels = Levels(data.parent / data.name.replace('data-', 'images-', 1) / pyramid['source'])
    [preview_file] = (version / 'previews').iterdir()
    preview_bytes = os.path.getsize(preview_file)
    rung = preview_rung(levels, preview_bytes)
    rows = []
    for scale in (1, 2):
        for name, view in steps(width)[:4]:
            answer = geometry.viewport(image, {**VIEW, 'scale': scale, **view})
            needed = answer['zoomScale'] * scale
            visible = answer['visibleRect']
            today_scale, third = dyadic_scale(needed), third_scale(needed)
            if answer['resolution'] == 'low':
                # Today the preview; with thirds the whole image at its third-of-an-octave level, one image too.
                got = [preview_bytes]
                settings = {'Q': rung, 'effort': PREVIEW_EFFORT, 'compression': 'av1', 'strip': True}
                pixels, _, _ = levels.made(today_scale)
                now_bytes, now_ssim = encoded(pixels.copy_memory(), **settings)
                pixels, w, h = levels.made(third)
                new_bytes, new_ssim = encoded(pixels.copy_memory(), **settings)
                now_sizes, new_sizes = [now_bytes], [new_bytes]
                label = f'preview {round(width * today_scale)} px -> {w} px'
            else:
                level = answer['level']
                got = [received(version, formats, level, t['column'], t['row']) for t in answer['tiles']]
                # The deepest level's AVIF tiles are made from the source at their own quality: both sides alike.
                settings = DEEPEST_AVIF if level == geometry.max_level(width, height) else AVIF
                pixels, w, h = levels.made(today_scale)
                now_sizes, now_ssim = tiles_bytes((width, height), pixels, w, h, visible, settings)
                assert len(now_sizes) == len(answer['tiles']), (len(now_sizes), len(answer['tiles']))
                pixels, w, h = levels.made(third)
                new_sizes, new_ssim = tiles_bytes((width, height), pixels, w, h, visible, settings)
                label = f'level {level} ({round(width * today_scale)} px) -> {w} px'
            # The plan with thirds in what the client would receive: each tile's encoding scaled by the step's ratio
            # of what it receives today to what this encodes today.
            factor = sum(got) / sum(now_sizes)
            estimate = [round(size * factor) for size in new_sizes]
            rows.append({'name': f'{name}, DPR {scale}', 'scale': scale, 'needed': needed, 'label': label,
                         'got': got, 'now': now_sizes, 'new': new_sizes, 'estimate': estimate,
                         'ssim': (now_ssim, new_ssim)})
            print(f'  {rows[-1]["name"]}: {label}', file=sys.stderr)
    return rung, rows


def sweep(runs=2000, seed=1):
    """Mean tiles a view needs, today's levels against thirds, over views spread evenly in log zoomScale."""
    rng = random.Random(seed)
    width = height = 16384
    image = {'width': width, 'height': height, 'tileSize': TILE, 'overlap': OVERLAP}
    result = []
    for view_width, view_height, scale in ((1280, 800, 1), (1280, 800, 2), (390, 844, 3)):
        totals = [0, 0]
        counted = 0
        preview = geometry.level_scale(width, height, geometry.preview_level(width, height))
        for _ in range(runs):
            fit = min(view_width / width, view_height / height)
            z = fit * 2 ** rng.uniform(0, math.log2(1 / (fit * scale)))  # up to a screen pixel per image pixel
            if z * scale <= preview + EPS:
                continue  # the preview's views: one image either way
            req = {'width': view_width, 'height': view_height, 'scale': scale, 'zoomScale': z,
                   'offsetX': rng.uniform(0, max(0, width * z - view_width)),
                   'offsetY': rng.uniform(0, max(0, height * z - view_height))}
            answer = geometry.viewport(image, req)
            visible = answer['visibleRect']
            for i, s in enumerate((dyadic_scale(z * scale), third_scale(z * scale))):
                w, h = math.ceil(width * s - EPS), math.ceil(height * s - EPS)
                totals[i] += len(covering(width, height, w, h, visible))
            counted += 1
        result.append((f'{view_width}x{view_height}, DPR {scale}', counted, totals[0] / counted, totals[1] / counted))
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('data', nargs='?', default=str(ROOT / 'bench' / 'out' / 'client' / 'data-16384'))
    parser.add_argument('--sweep', action='store_true')
    parser.add_argument('--network', choices=sorted(throttle.NETWORKS),
                        help='also time each plan in Chromium under this connection (quarters_network.py)')
    parser.add_argument('--network-scales', type=lambda v: [int(x) for x in v.split(',')], default=[1],
                        help='the DPRs whose steps are timed, such as 1,2 (default 1)')
    parser.add_argument('--runs', type=int, default=5)
    parser.add_argument('--chromium', default='/usr/bin/chromium')
    args = parser.parse_args()
    rung, rows = compare(Path(args.data))
    print(f'AVIF Q{AVIF["Q"]} effort {AVIF["effort"]} for tiles, the preview at its ladder\'s Q{rung} effort '
          f'{PREVIEW_EFFORT}; mean SSIM of each encoding against its own level\'s pixels')
    print('| view | needed scale | today -> a third of an octave | tiles | KiB received today | encoded today / thirds '
          '| ratio | KiB with thirds (estimate) | SSIM today / thirds |')
    print('|---|---:|---|---:|---:|---:|---:|---:|---:|')
    for row in rows:
        now, new = sum(row['now']), sum(row['new'])
        print(f'| {row["name"]} | {row["needed"]:.4f} | {row["label"]} | {len(row["now"])} -> {len(row["new"])} | '
              f'{sum(row["got"]) / 1024:,.0f} | {now / 1024:,.0f} / {new / 1024:,.0f} | {new / now:.2f}x | '
              f'{sum(row["estimate"]) / 1024:,.0f} | {row["ssim"][0]:.4f} / {row["ssim"][1]:.4f} |')
    if args.network:
        import quarters_network
        for scale in args.network_scales:
            plans = [(row['name'], None, row['got'], row['estimate']) for row in rows if row['scale'] == scale]
            quarters_network.report(plans, args.network, args.runs, args.chromium, 'with levels between', scale)
    if args.sweep:
        print()
        print('| view | views | mean tiles, levels an octave apart | a third of an octave | ratio |')
        print('|---|---:|---:|---:|---:|')
        for name, counted, now, new in sweep():
            print(f'| {name} | {counted} | {now:.1f} | {new:.1f} | {new / now:.2f}x |')


if __name__ == '__main__':
    main()
