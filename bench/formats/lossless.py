"""Which costs less for exact regions of a lossless source: reading the source on every request, or a
lossless tiled pyramidal TIFF copy written once (what tilescope does)? libvips (pyvips) on one PNG.

usage: lossless.py SOURCE.png WORK_FOLDER [REQUESTS]

Per request: open, crop a 512 x 512 region at a random place, encode PNG; CPU (process time) per
request. The source path reopens the PNG for each request, as a server that keeps nothing must
(libvips then decodes the whole file: random access into PNG has no index). The copy path opens the
TIFF copy once and crops from it, as tilescope does. The copy's one-time cost and size are printed too.
"""
import os
import random
import sys
import time

import pyvips

source, work = sys.argv[1], sys.argv[2]
requests = int(sys.argv[3]) if len(sys.argv) > 3 else 20
pyvips.cache_set_max(0)  # no operation cache: each request pays for what it reads
copy = os.path.join(work, "lossless.tif")
header = pyvips.Image.new_from_file(source)
random.seed(17)
places = [(random.randrange(0, header.width - 512), random.randrange(0, header.height - 512)) for _ in range(requests)]

start = time.process_time()
pyvips.Image.new_from_file(source, access="sequential").tiffsave(
    copy, tile=True, tile_width=256, tile_height=256, pyramid=True, compression="deflate", predictor="horizontal", strip=True)
write_cpu = time.process_time() - start


def per_request(open_image, reopen):
    image = open_image()
    start = time.process_time()
    for x, y in places:
        if reopen:
            image = open_image()
        image.crop(x, y, 512, 512).pngsave_buffer()
    return (time.process_time() - start) / len(places)


from_source = per_request(lambda: pyvips.Image.new_from_file(source, access="random"), True)
from_copy = per_request(lambda: pyvips.Image.new_from_file(copy, access="random"), False)
print(f"| {os.path.basename(source)} {header.width} x {header.height} | {os.path.getsize(source) / 1e6:.1f} MB "
      f"| {1000 * from_source:.0f} | {write_cpu:.2f} s, {os.path.getsize(copy) / 1e6:.1f} MB | {1000 * from_copy:.1f} |")
