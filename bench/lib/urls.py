#!/usr/bin/env python3
"""Seeded random request lists for bench/run, one request path per line.

  urls.py tiles --tiles DIR --template T --count N --seed S > FILE
      Tile paths for the Deep Zoom tiles that exist under DIR (DIR/{level}/{col}_{row}.jpeg),
      formatted with T (e.g. "/dzi/bench_files/{level}/{col}_{row}.jpeg?v=abc"). Levels are
      weighted toward the deep ones: the deepest level gets 1/2 of the requests, the next
      1/4, and so on (halving, renormalised), the way a zoomed-in viewer asks; the tile
      within a level is uniform.

  urls.py viewports --id ID --width W --height H --count N --seed S > FILE
      Viewport API paths for a 1280x800 point viewport at scale 2: zoomScale log-uniform
      between aspect fit and the default maximum (2 / scale), offsets uniform over the
      scrollable range.
"""
import argparse
import math
import os
import random
import re
import sys

TILE_NAME = re.compile(r"^(\d+)_(\d+)\.jpeg$")


def tiles_by_level(directory):
    """{level: [(col, row), ...]} for the tiles on disk."""
    levels = {}
    for entry in os.listdir(directory):
        if entry.isdigit():
            names = os.listdir(os.path.join(directory, entry))
            tiles = [(int(m.group(1)), int(m.group(2))) for m in map(TILE_NAME.match, names) if m]
            if tiles:
                levels[int(entry)] = sorted(tiles)
    if not levels:
        sys.exit(f"urls.py: no tiles under {directory}")
    return levels


def tile_paths(args):
    levels = tiles_by_level(args.tiles)
    deepest = max(levels)
    order = sorted(levels)
    weights = [0.5 ** (deepest - level) for level in order]
    rng = random.Random(args.seed)
    for level in rng.choices(order, weights=weights, k=args.count):
        col, row = rng.choice(levels[level])
        print(args.template.replace("{level}", str(level))
              .replace("{col}", str(col)).replace("{row}", str(row)))


def viewport_paths(args):
    view_width, view_height, scale = 1280, 800, 2
    minimum = min(view_width / args.width, view_height / args.height)
    maximum = max(minimum, 2 / scale)
    rng = random.Random(args.seed)
    for _ in range(args.count):
        zoom = math.exp(rng.uniform(math.log(minimum), math.log(maximum)))
        offset_x = rng.uniform(0, max(0.0, args.width * zoom - view_width))
        offset_y = rng.uniform(0, max(0.0, args.height * zoom - view_height))
        print(f"/api/images/{args.id}/viewport?width={view_width}&height={view_height}&scale={scale}"
              f"&zoomScale={zoom:.6f}&offsetX={offset_x:.1f}&offsetY={offset_y:.1f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="kind", required=True)
    tiles = commands.add_parser("tiles")
    tiles.add_argument("--tiles", required=True)
    tiles.add_argument("--template", required=True)
    tiles.add_argument("--count", type=int, required=True)
    tiles.add_argument("--seed", type=int, required=True)
    viewports = commands.add_parser("viewports")
    viewports.add_argument("--id", required=True)
    viewports.add_argument("--width", type=int, required=True)
    viewports.add_argument("--height", type=int, required=True)
    viewports.add_argument("--count", type=int, required=True)
    viewports.add_argument("--seed", type=int, required=True)
    args = parser.parse_args()
    tile_paths(args) if args.kind == "tiles" else viewport_paths(args)


if __name__ == "__main__":
    main()
