"""The gallery page's own first picture and load under a slow connection (issue 44, goal 2: the preview visible
within 1 s on connection A): where `run.py` times its stripped benchmark page (the scroll view alone), this opens
the page a user gets, `/`, with its bars, gallery and side pages, on the one image of `run.py`'s data folder.

For each load, from the navigation (performance.now()): the first frame in which the image on screen shows a
picture (its base tile or its preview drawn, decoded, inside the window), the frame in which the page is ready and
the view complete, and when the last of the page's scripts (module files or module packs) arrived before the
first picture (Resource Timing).

Usage, after `bench/client/run` made its data folder:
    .venv/bin/python bench/client/gallery_first.py --binary .build/release/tilescope [--network A] [--runs 3]
"""
import argparse
import statistics
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

import throttle
from run import OUT, ROOT, VIEW, Server

# Checked every frame from the page's first script on: where the picture is drawn, as TileLayer.js marks its images
# (`tile loaded base`, `tile loaded preview`), and whether the gallery says it is ready with its view complete.
WATCH = """(() => {
  const marks = { firstPicture: null, complete: null };
  window.__firstPicture = marks;
  const onScreen = (image) => {
    if (!image.complete || !image.naturalWidth || !image.isConnected) return false;
    const box = image.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && box.right > 0 && box.bottom > 0
      && box.left < innerWidth && box.top < innerHeight && getComputedStyle(image).visibility !== 'hidden';
  };
  const frame = (now) => {
    if (marks.firstPicture === null
        && [...document.querySelectorAll('img.tile.loaded.base, img.tile.loaded.preview')].some(onScreen)) {
      marks.firstPicture = now;
    }
    const view = window.tilescope?.gallery?.scrollView;
    if (marks.complete === null && document.documentElement.dataset.ready === 'true' && view?.layer.isComplete()) {
      marks.complete = now;
    }
    if (marks.firstPicture === null || marks.complete === null) requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
})();"""


def one_load(browser, base, scale, network, timeline=False):
    context = browser.new_context(viewport=VIEW, device_scale_factor=scale)
    page = context.new_page()
    throttle.apply(page, network)
    page.add_init_script(WATCH)
    errors = []
    page.on('pageerror', lambda e: errors.append(str(e)))
    page.goto(base + '/')
    page.wait_for_function('window.__firstPicture.firstPicture !== null && window.__firstPicture.complete !== null',
                           timeout=120000)
    marks = page.evaluate('window.__firstPicture')
    modules = page.evaluate("""(before) => performance.getEntriesByType('resource')
        .filter((e) => new URL(e.name).pathname.startsWith('/js/') && e.responseEnd <= before)
        .map((e) => e.responseEnd)""",
                            marks['firstPicture'])
    if timeline:
        entries = page.evaluate("""() => performance.getEntriesByType('resource').map((e) =>
            [e.name.replace(location.origin, ''), e.startTime, e.responseStart, e.responseEnd])""")
        print(f'\nDPR {scale}: first picture {marks["firstPicture"] / 1000:.2f} s, complete {marks["complete"] / 1000:.2f} s; '
              'requests (asked, answer began, last byte; s):', file=sys.stderr)
        for name, start, began, end in sorted(entries, key=lambda e: e[1]):
            print(f'  {start / 1000:.2f} {began / 1000:.2f} {end / 1000:.2f} {name[:90]}', file=sys.stderr)
    context.close()
    if errors:
        sys.exit(f'page errors: {errors}')
    return marks['firstPicture'], marks['complete'], max(modules, default=0), len(modules)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--binary', required=True)
    parser.add_argument('--data', default=str(OUT / 'data-16384'))
    parser.add_argument('--images', default=str(OUT / 'images-16384'))
    parser.add_argument('--network', choices=sorted(throttle.NETWORKS), default='A')
    parser.add_argument('--scales', default='1,2')
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--timeline', action='store_true', help='print each scale\'s first load\'s requests')
    parser.add_argument('--public', default=str(ROOT / 'Public'), help='the client to serve (default: Public/)')
    parser.add_argument('--chromium', default='/usr/bin/chromium')
    args = parser.parse_args()
    server = Server(args.binary, Path(args.images), Path(args.data), Path(args.public))
    try:
        server.ready_image()
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=['--no-sandbox'])
            print(f'The gallery page `/` at {VIEW["width"]}x{VIEW["height"]}, {throttle.describe(args.network, 1)}, '
                  f'medians of {args.runs}, seconds from the navigation:\n')
            print('| DPR | first picture | page ready and view complete | last script in before the first picture '
                  '(module files or packs by then) |')
            print('|---:|---:|---:|---:|')
            for scale in (int(s) for s in args.scales.split(',')):
                one_load(browser, server.base, scale, args.network)  # warm: the server's answers made once
                runs = [one_load(browser, server.base, scale, args.network, args.timeline and not i)
                        for i in range(args.runs)]
                first, complete, module, count = (statistics.median(r[i] for r in runs) for i in range(4))
                print(f'| {scale} | {first / 1000:.2f} s | {complete / 1000:.2f} s | {module / 1000:.2f} s '
                      f'({count:.0f}) |', flush=True)
            browser.close()
    finally:
        server.stop()


if __name__ == '__main__':
    main()
