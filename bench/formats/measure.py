"""Measures Deep Zoom tiles of a live tilescope in JPEG, WebP and AVIF (see bench/formats.sh).

usage: measure.py BASE_URL SERVER_PID IMAGES_FOLDER ROUNDS COMMIT TILES_PER_IMAGE
"""
import datetime
import json
import os
import sys
import time
import urllib.request

import numpy as np
import pyvips

from picture import luma, ssim

base, pid, images, rounds, commit = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]
per_image = int(sys.argv[6])
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds():
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def get(path):
    with urllib.request.urlopen(base + path, timeout=60) as reply:
        return reply.read(), reply.headers




deadline = time.time() + 600
sources = [f for f in os.listdir(images) if f.endswith((".png", ".jpg"))]
while True:
    listing = json.loads(get("/api/images")[0])["images"]
    if len(listing) == len(sources) and all(i["status"] == "ready" for i in listing):
        break
    if time.time() > deadline:
        sys.exit("pyramids not ready after 10 minutes")
    time.sleep(0.5)

info = json.loads(get(f"/iiif/3/{listing[0]['id']}/info.json")[0])
formats = ["jpeg", "webp"] + (["avif"] if "avif" in info["extraFormats"] else [])
rows = {f: {"bytes": [], "ssim": [], "first_cpu": 0.0, "first_n": 0, "cached_cpu": 0.0, "cached_n": 0} for f in formats}
tiles = []
for image in sorted(listing, key=lambda i: i["id"]):
    ident, width, height = image["id"], image["width"], image["height"]
    source = pyvips.Image.new_from_file(f"{images}/{image['fileName']}")
    level = max(width - 1, height - 1).bit_length()
    size, overlap = 254, 1
    grid = [(column, row) for row in range((height + size - 1) // size) for column in range((width + size - 1) // size)]
    for column, row in grid[::max(1, len(grid) // per_image)][:per_image]:
            x0, y0 = max(0, column * size - overlap), max(0, row * size - overlap)
            x1, y1 = min(width, (column + 1) * size + overlap), min(height, (row + 1) * size + overlap)
            tiles.append((ident, f"/dzi/{ident}_files/{level}/{column}_{row}", luma(source.crop(x0, y0, x1 - x0, y1 - y0))))
jpeg_tiles = {}

# First requests: image by image, each format's block in turn (WebP and AVIF are made then).
for ident in sorted({t[0] for t in tiles}):
    mine = [t for t in tiles if t[0] == ident]
    for fmt in formats:
        start = cpu_seconds()
        for _, path, reference in mine:
            body, headers = get(f"{path}.{fmt}")
            timing = headers.get("Server-Timing", "")
            if fmt != "jpeg" and "tile;desc=written" not in timing:
                sys.exit(f"{path}.{fmt} was not made on this request ({timing}): start from an empty data folder")
            rows[fmt]["bytes"].append(len(body))
            if fmt == "jpeg":
                jpeg_tiles[path] = pyvips.Image.new_from_buffer(body, "").copy_memory()
            rows[fmt]["ssim"].append(ssim(reference, luma(pyvips.Image.new_from_buffer(body, ""))))
        rows[fmt]["first_cpu"] += cpu_seconds() - start
        rows[fmt]["first_n"] += len(mine)

# Cached: every format is a file now; the formats' blocks alternate, ROUNDS times.
for _ in range(rounds):
    for fmt in formats:
        start = cpu_seconds()
        for _, path, _ in tiles:
            get(f"{path}.{fmt}")
        rows[fmt]["cached_cpu"] += cpu_seconds() - start
        rows[fmt]["cached_n"] += len(tiles)

jpeg_bytes = np.mean(rows["jpeg"]["bytes"])
idents = [t[0] for t in tiles]
now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
print(f"Measured at commit {commit} on {now}: {len(tiles)} full-resolution tiles (up to {per_image} an image) of "
      f"{', '.join(sorted({t[0] for t in tiles}))}; server CPU from /proc, {rounds} cached rounds.\n")
print("| format | bytes per tile | vs JPEG | SSIM vs source | first request, CPU ms | cached, CPU ms |")
print("|---|---:|---:|---:|---:|---:|")
for fmt in formats:
    r = rows[fmt]
    mean = np.mean(r["bytes"])
    first = "stored tile" if fmt == "jpeg" else f"{1000 * r['first_cpu'] / r['first_n']:.1f}"
    print(f"| {fmt} | {mean:.0f} | {100 * mean / jpeg_bytes:.0f}% | {np.mean(r['ssim']):.4f} | {first} | "
          f"{1000 * r['cached_cpu'] / r['cached_n']:.2f} |")

# Equal quality: the same decoded JPEG tiles encoded as the server does, over a range of qualities;
# the lowest quality whose mean SSIM is within 0.001 of the JPEG tiles' own, and its bytes.
SWEEP = {"webp": [90, 95, 100], "avif": [50, 60, 70, 80]}


def encode(fmt, image, q):
    if fmt == "webp":
        return image.webpsave_buffer(Q=q, strip=True)
    return image.heifsave_buffer(Q=q, compression="av1", bitdepth=8, effort=2, strip=True)


target = np.mean(rows["jpeg"]["ssim"]) - 0.001
print(f"\nAt equal quality (mean SSIM within 0.001 of the JPEG tiles' {target + 0.001:.4f}), made from the same JPEG tiles:\n")
print("| format | lowest quality that reaches it | bytes per tile | vs JPEG | SSIM |")
print("|---|---:|---:|---:|---:|")
for fmt in formats[1:]:
    found = None
    for q in SWEEP[fmt]:
        sizes, scores = [], []
        for _, path, reference in tiles:
            body = encode(fmt, jpeg_tiles[path], q)
            sizes.append(len(body))
            scores.append(ssim(reference, luma(pyvips.Image.new_from_buffer(body, ""))))
        found = (q, np.mean(sizes), np.mean(scores))
        if found[2] >= target:
            break
    q, size, score = found
    reached = "" if score >= target else " (not reached)"
    print(f"| {fmt} | Q{q}{reached} | {size:.0f} | {100 * size / jpeg_bytes:.0f}% | {score:.4f} |")

print("\nBytes per served tile by image (vs JPEG):\n")
print("| image | jpeg | " + " | ".join(formats[1:]) + " |")
print("|---|---:|" + "---:|" * (len(formats) - 1))
for ident in sorted(set(idents)):
    picks = [i for i, t in enumerate(idents) if t == ident]
    base_bytes = np.mean([rows["jpeg"]["bytes"][i] for i in picks])
    cells = [f"{np.mean([rows[f]['bytes'][i] for i in picks]):.0f} ({100 * np.mean([rows[f]['bytes'][i] for i in picks]) / base_bytes:.0f}%)"
             for f in formats[1:]]
    print(f"| {ident} | {base_bytes:.0f} | " + " | ".join(cells) + " |")
