"""What a renderer keeps of images it has shown and let go (issue 44, goal 4): `ROUNDS` x 150 images of distinct
256 x 256 noise JPEGs, each decoded, shown for two frames and released, in a fresh page per way; then two
collections, and Chromium's own accounting of the renderer's memory before and after (`memory.allocators_mb`).

    .venv/bin/python bench/client/image_memory.py [--rounds 20] [--ways bitmap,canvas2d,blob,again,data,http] [--low-end]

Ways: `bitmap` an ImageBitmap in a `bitmaprenderer` canvas (the client before 2026-12-07), `canvas2d` one drawn into
a software 2D canvas (`willReadFrequently`; a composited layer each, like `bitmap`), `blob` an image of a
`blob:` URL of its own revoked once decoded (the client until 2026-12-07 10:40 UTC), `again` 64 tiles shown again and
again, each an image of the one URL its bytes are kept under (the client since; the only way whose images are not all
distinct), `data` an image of a `data:` URL, `http` an image whose `src` is a URL of the page's server (as a viewer that
sets a tile's URL), `onload` a `blob:` image waited for by its load event instead of `decode()`, `svg` an SVG `<image>`
of a `blob:` URL, `block` ImageBitmaps drawn into one 2D canvas for all the round's tiles (one layer). `--low-end`: Chromium's low-end device mode
(a phone's smaller caches). The page (`image-memory.html`) and its 64 JPEGs are served on a loopback port.
"""
import argparse
import functools
import http.server
import sys
import tempfile
import threading
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

import memory

HERE = Path(__file__).resolve().parent
PER_ROUND = 150
SHOWN = ['partition_alloc', 'blink_gc', 'cc', 'malloc', 'discardable', 'v8']


def serve(folder):
    """The folder over HTTP on a loopback port, in a thread; returns the server."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), functools.partial(Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def noise_jpegs(folder):
    """The 64 JPEGs of the `http` way: the same kind the page makes for the others."""
    import numpy as np
    from PIL import Image
    random = np.random.default_rng(1)
    for i in range(64):
        Image.fromarray(random.integers(0, 256, (256, 256, 3), dtype=np.uint8)).save(folder / f't{i}.jpg', quality=50)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--rounds', type=int, default=20)
    parser.add_argument('--ways', default='bitmap,canvas2d,blob,again,data,http')
    parser.add_argument('--low-end', action='store_true')
    parser.add_argument('--chromium', default='/usr/bin/chromium')
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        (folder / 'image-memory.html').write_text((HERE / 'image-memory.html').read_text())
        noise_jpegs(folder)
        server = serve(folder)
        base = f'http://127.0.0.1:{server.server_address[1]}'
        flags = ['--no-sandbox'] + (['--enable-low-end-device-mode'] if args.low_end else [])
        print(f'| way, {args.rounds * PER_ROUND:,} images | ' + ' | '.join(f'`{name}` MB, before -> after' for name in SHOWN)
              + ' | seconds |')
        print('|---|' + '---:|' * (len(SHOWN) + 1))
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=flags)
            browser_cdp = browser.new_browser_cdp_session()
            for way in args.ways.split(','):
                known = set(memory.processes(browser_cdp).get('renderer', []))
                context = browser.new_context(viewport=memory.PHONE, device_scale_factor=3)
                page = context.new_page()
                page.goto(base + '/image-memory.html')
                cdp = context.new_cdp_session(page)
                renderers = {pid for pid in memory.processes(browser_cdp).get('renderer', []) if pid not in known}

                def collected():
                    for _ in range(2):
                        cdp.send('HeapProfiler.collectGarbage')
                    page.wait_for_timeout(500)
                    return memory.allocators_mb(browser_cdp, page, renderers)

                page.evaluate(f'run("{way}", 2, {PER_ROUND})')  # the page's own first allocations
                before = collected()
                started = time.monotonic()
                page.evaluate(f'run("{way}", {args.rounds}, {PER_ROUND})')
                seconds = time.monotonic() - started
                after = collected()
                print(f'| {way} | ' + ' | '.join(f'{before.get(n, 0):.1f} -> {after.get(n, 0):.1f}' for n in SHOWN)
                      + f' | {seconds:.0f} |', flush=True)
                context.close()
            browser.close()
        server.shutdown()


if __name__ == '__main__':
    sys.exit(main())
