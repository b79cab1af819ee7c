"""What-if for issue 44's goal 2: a zoom's bytes if the tiles at the view's edges were sent as the quarters the view
touches instead of whole.

At DPR 1 the bench's zoom steps need 40 tiles of 254 px whose area is 1.56x the visible area (the view's edges cut
through the outer ring of tiles); with 127 px quarters at the edges it would be 1.21x. Whether that saves bytes
depends on how well a quarter compresses alone, so this re-encodes them: for each zoom step of `run.py` at DPR 1,
every edge tile's stored JPEG (the level's own pixels) is encoded whole and as the quarters the view touches (each
with the tile's one-pixel overlap), in AVIF at the quality and effort of the stored AVIF tiles, and the ratio of
the two is applied to the bytes the client receives for that tile today (the smaller of its AVIF and JPEG XL).
Nothing is served this way; it estimates what the change would buy before building it.

Usage, after `bench/client/run` made its data folder (the client's format ladder named there):
    .venv/bin/python bench/client/edge_quadrants.py [bench/out/client/data-16384] [--network A [--runs 5]]
With `--network`, each step's answers (today's, and with the quarters) are also fetched in Chromium under that
connection, as the client fetches them, over HTTP/1.1 and over HTTP/2 (quarters_network.py).
"""
import argparse
import os
import sys
from pathlib import Path
from xml.etree import ElementTree

import pyvips

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / 'Tests' / 'browser'))
import geometry  # noqa: E402 (the viewport rules, written again in Python)
import throttle  # noqa: E402
from run import VIEW, steps  # noqa: E402

TILE, QUARTER, OVERLAP = 254, 127, 1
AVIF = {'Q': 83, 'effort': 4, 'compression': 'av1', 'strip': True}  # the stored AVIF tiles' ladder: finer-q83-e4


def pyramid_folder(data):
    """The one pyramid in the bench's data folder, and the folder of its derived formats the client is sent."""
    [image] = (data / 'pyramids').iterdir()
    [version] = image.iterdir()
    formats = sorted((version / 'formats').iterdir(), key=lambda p: len(p.name))
    return version, formats[-1]  # the longest ladder: AVIF with the JPEG XL beside it


def received(version, formats, level, column, row):
    """Bytes the client gets for a tile today: the smaller derived answer, or the stored JPEG."""
    sizes = [os.path.getsize(p) for p in (formats / str(level) / f'{column}_{row}.avif',
                                          formats / str(level) / f'{column}_{row}.jxl') if p.exists()]
    return min(sizes) if sizes else os.path.getsize(version / 'image_files' / str(level) / f'{column}_{row}.jpeg')


def avif_bytes(image):
    return len(image.heifsave_buffer(**AVIF))


def touched_quarters(column, row, view):
    x0, y0, x1, y1 = view
    return [(qx, qy) for qx in (0, 1) for qy in (0, 1)
            if column * TILE + qx * QUARTER < x1 and column * TILE + (qx + 1) * QUARTER > x0
            and row * TILE + qy * QUARTER < y1 and row * TILE + (qy + 1) * QUARTER > y0]


def quarter(tile, column, row, qx, qy):
    """A quarter of the stored tile with one pixel of overlap on its inner sides (and the tile's own outer ones)."""
    left = max(0, (OVERLAP if column > 0 else 0) + qx * QUARTER - (OVERLAP if qx else 0))
    top = max(0, (OVERLAP if row > 0 else 0) + qy * QUARTER - (OVERLAP if qy else 0))
    width = min(tile.width - left, QUARTER + 2 * OVERLAP)
    height = min(tile.height - top, QUARTER + 2 * OVERLAP)
    return tile.crop(left, top, width, height)


def plans(data):
    """Per zoom step of `run.py` at DPR 1: (name, level, today's answers' bytes, the answers' bytes with edge quarters),
    each list in the client's order (nearest the view's centre first; a tile's quarters where the tile was)."""
    version, formats = pyramid_folder(data)
    size = ElementTree.parse(version / 'image.dzi').getroot().find('{*}Size')
    width, height = int(size.get('Width')), int(size.get('Height'))
    assert width == height, 'run.py scripts its steps for a square image'
    image = {'width': width, 'height': height, 'tileSize': TILE, 'overlap': OVERLAP}
    result = []
    for name, view in steps(width)[1:4]:
        answer = geometry.viewport(image, {**VIEW, 'scale': 1, **view})
        level = answer['level']
        s = geometry.level_scale(width, height, level)
        rect = answer['visibleRect']
        box = (rect['x'] * s, rect['y'] * s, (rect['x'] + rect['width']) * s, (rect['y'] + rect['height']) * s)
        today, quartered = [], []
        for t in answer['tiles']:
            column, row = t['column'], t['row']
            got = received(version, formats, level, column, row)
            today.append(got)
            quarters = touched_quarters(column, row, box)
            if len(quarters) == 4:
                quartered.append(got)
                continue
            tile = pyvips.Image.new_from_file(str(version / 'image_files' / str(level) / f'{column}_{row}.jpeg'))
            whole = avif_bytes(tile)
            # Each quarter's share of the bytes the client gets for the tile, by its share of the re-encodings.
            quartered += [round(got * avif_bytes(quarter(tile, column, row, qx, qy)) / whole) for qx, qy in quarters]
        result.append((name, level, today, quartered))
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('data', nargs='?', default=str(ROOT / 'bench' / 'out' / 'client' / 'data-16384'))
    parser.add_argument('--network', choices=sorted(throttle.NETWORKS),
                        help='also time each plan in Chromium under this connection (quarters_network.py)')
    parser.add_argument('--runs', type=int, default=5)
    parser.add_argument('--chromium', default='/usr/bin/chromium')
    args = parser.parse_args()
    steps_planned = plans(Path(args.data))
    print('| zoom step (DPR 1) | level | tiles | KiB today | KiB with edge quarters | ratio | requests |')
    print('|---|---:|---:|---:|---:|---:|---:|')
    for name, level, today, quartered in steps_planned:
        print(f'| {name} | {level} | {len(today)} | {sum(today) / 1024:,.0f} | {sum(quartered) / 1024:,.0f} | '
              f'{sum(quartered) / sum(today):.2f}x | {len(quartered)} |')
    if args.network:
        import quarters_network
        quarters_network.report(steps_planned, args.network, args.runs, args.chromium)


if __name__ == '__main__':
    main()
