#!/usr/bin/env python3
"""The scripted viewing run of issue 15, Tilescope's browser client against OpenSeadragon, side by side.

Both viewers run in Debian's Chromium (Playwright) at 1280 x 800 CSS pixels, at devicePixelRatio 1 and 2, on the
same Tilescope server and the same 16384 x 16384 image, each in a fresh browser context (empty HTTP cache),
alternating (OpenSeadragon, Tilescope, OpenSeadragon, ...), and go through the same views: load at fit, three
zooms x2 about the centre, four pans of half a viewport (right, down, left, up), back to fit. Each step is given
as the same zoomScale and contentOffset to both (OpenSeadragon's viewport converted from them), animated by
each viewer's own animation, and timed until the viewer has stopped and drawn every tile the view needs at its
level (Tilescope: `layer.isComplete()`, OpenSeadragon: `getFullyLoaded()`).

Counted through the DevTools protocol: tile requests (every request for a Deep Zoom tile, cancelled ones
included), bytes received for tiles and the preview, and requests for tiles never drawn (OpenSeadragon's
`tile-drawn` event, Tilescope's `onTileDrawn`). Medians of `--runs` runs are printed as the issue's table.

Also counted: the server's CPU time during each run (/proc/PID/stat), and tiles answered with the JPEG tile standing
in for an AVIF one not made yet (`Server-Timing: tile;desc=interim`).

With `--network A` or `B` and `--cpu N` (issue 44), every measured page runs under DevTools throttling
(throttle.py), and the table adds the time from navigation to the first frame with every tile of the view drawn,
the first picture from navigation, and each step's time; `--steps N` keeps the first N views of the run (4: the
load and the three zooms).

Usage: run.py --binary PATH --osd PATH/openseadragon.min.js [--size 16384] [--seed 1] [--cells 512,48,6] [--runs 3]
              [--scales 1,2]
              [--viewers osd,tilescope,osd-webp,osd-avif] [--cold | --prepare] [--network A|B [--http2]] [--cpu 4] [--steps N]
       run.py ... --phone [--runs 3] [--cpu 4]          (issue 44, goal 1: phone.py)
       run.py ... --phone --beside REF [--runs 5]       (the client against its Public/ at REF, alternating)
       run.py ... --memory [--runs 3] [--minutes 5]     (issue 44, goal 4: memory.py)
"""
import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

import memory
import module_loader
import phone
import throttle

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / 'Tests' / 'browser'))
import http2_front  # noqa: E402 (the browser tests' HTTP/2 front)
OUT = ROOT / 'bench' / 'out' / 'client'
VIEW = {'width': 1280, 'height': 800}
TILE = '_files/'
BETWEEN = '/between/'
TILE_FORMATS = ('.jpeg', '.webp', '.avif')
# The viewers, each a page under /bench/ and its query: OpenSeadragon with its defaults (the JPEG descriptor, as its
# users write /dzi/{id}.dzi), OpenSeadragon on the WebP or the AVIF descriptor (extra columns, for an honest
# comparison: the client asks for AVIF tiles where the browser shows them), and the client as it runs in a browser.
VIEWERS = {'osd': ('osd', ''), 'osd-webp': ('osd', '&format=webp'), 'osd-avif': ('osd', '&format=avif'),
           'tilescope': ('tilescope', '')}


def steps(size):
    """(name, {zoomScale, offsetX, offsetY}) of the scripted run, by the viewport rules (fit, then about the centre)."""
    w, h = VIEW['width'], VIEW['height']
    fit = min(w / size, h / size)

    def centred(z, cx, cy):
        return {'zoomScale': z, 'offsetX': cx * z - w / 2, 'offsetY': cy * z - h / 2}

    # At fit the image is smaller than the viewport on one axis and centred: the same formula gives that offset.
    result = [('load at fit', centred(fit, size / 2, size / 2))]
    for k in (1, 2, 3):
        result.append((f'zoom x2 ({k})', centred(fit * 2 ** k, size / 2, size / 2)))
    z = fit * 8
    view = dict(result[-1][1])
    for name, dx, dy in (('pan right', w / 2, 0), ('pan down', 0, h / 2), ('pan left', -w / 2, 0), ('pan up', 0, -h / 2)):
        view = {'zoomScale': z, 'offsetX': view['offsetX'] + dx, 'offsetY': view['offsetY'] + dy}
        result.append((name, view))
    result.append(('back to fit', centred(fit, size / 2, size / 2)))
    return result


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def get_json(url):
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.loads(r.read())


DEFAULT_CELLS = (512, 48, 6)


def make_image(path, size, seed=1, cells=DEFAULT_CELLS):
    """Three octaves of Perlin noise in three bands, as bench/run makes its image: photographic tile sizes.
    `size` is a side or (width, height); `seed` makes another picture of the same kind, `cells` (the three bands'
    cell sizes in pixels) another kind: larger cells, a softer picture with smaller tiles."""
    if path.exists():
        return
    width, height = size if isinstance(size, tuple) else (size, size)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / 'tmp'
    tmp.mkdir(exist_ok=True)
    for band, cell, offset in zip('rgb', cells, range(3)):
        subprocess.run(['vips', 'perlin', str(tmp / f'{band}.v'), str(width), str(height), '--cell-size', str(cell),
                        '--uchar', '--seed', str(seed + offset)], check=True)
    subprocess.run(['vips', 'bandjoin', f"{tmp / 'r.v'} {tmp / 'g.v'} {tmp / 'b.v'}", f'{path}.tmp.jpg[Q=92]'], check=True)
    os.replace(f'{path}.tmp.jpg', path)
    shutil.rmtree(tmp)


def level_tiles(image, level):
    """The column and row of every tile of a Deep Zoom level of the image record."""
    scale = 2 ** (image['maxLevel'] - level)
    width, height = -(-image['width'] // scale), -(-image['height'] // scale)
    size = image['tileSize']
    return [(c, r) for r in range(-(-height // size)) for c in range(-(-width // size))]


def forget_derived_tiles(pyramids, keep_level):
    """Cold: the derived tiles as a fresh build leaves them. Only the fit level's AVIF tiles (made as the build
    is complete, FitLevelAVIF.swift) stay; their JPEG XL, made on request, goes too."""
    for formats in pyramids.glob('*/*/formats'):
        for level in formats.glob('*/*'):
            if level.parent.name.startswith('avif') and level.name == str(keep_level):
                for jxl in level.glob('*.jxl'):
                    jxl.unlink()
            else:
                shutil.rmtree(level)


def public_folder(osd, beside=None):
    """The client as served (Public/) plus the two benchmark pages and OpenSeadragon, under /bench/; with `beside` (a
    commit), that commit's client too, under /bench/beside/ (its js/ and css/), for an A/B in one run."""
    folder = OUT / 'public'
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(ROOT / 'Public', folder)
    (folder / 'bench').mkdir()
    for name in ('tilescope.html', 'osd.html', 'harness.js', 'phone.html', 'smoothness.js', 'osd-gallery.html', 'floor.html'):
        shutil.copy(HERE / name, folder / 'bench' / name)
    # The client's page loads its modules as the gallery page does, with the gallery page's own loader.
    page = folder / 'bench' / 'tilescope.html'
    page.write_text(module_loader.with_module_loader(page.read_text()))
    shutil.copy(osd, folder / 'bench' / 'openseadragon.min.js')
    if beside:
        target = folder / 'bench' / 'beside'
        target.mkdir()
        archive = subprocess.run(['git', 'archive', beside, 'Public/js', 'Public/css'], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        subprocess.run(['tar', '-x', '--strip-components=1', '-C', str(target)], input=archive, check=True)
    return folder


class Server:
    def __init__(self, binary, images, data, public):
        self.port = free_port()
        self.base = f'http://127.0.0.1:{self.port}'
        self.log = open(OUT / 'server.log', 'w')
        self.process = subprocess.Popen(
            [binary, 'serve', '--images', str(images), '--data', str(data), '--public', str(public),
             '--port', str(self.port), '--host', '127.0.0.1'], stdout=self.log, stderr=subprocess.STDOUT)

    def ready_image(self, timeout=900):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                sys.exit(f'tilescope exited with {self.process.returncode}; see {OUT / "server.log"}')
            try:
                images = get_json(self.base + '/api/images')['images']
                if images and images[0]['status'] == 'ready':
                    return images[0]
                if images and images[0]['status'] == 'failed':
                    sys.exit(f'the pyramid failed to build: {images[0]}')
            except OSError:
                pass
            time.sleep(1)
        sys.exit(f'the image was not ready after {timeout} s')

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


class Network:
    """Tile and preview requests of one page, from the DevTools protocol: counts, bytes, cancellations."""

    def __init__(self, page):
        self.requests = {}  # requestId -> {path, kind, bytes, state, type, timing, step}
        self.step = 0  # the step of the run under way: each request is counted against the step that asked for it
        cdp = page.context.new_cdp_session(page)
        cdp.on('Network.requestWillBeSent', self._sent)
        cdp.on('Network.responseReceived', self._response)
        cdp.on('Network.dataReceived', self._data)
        cdp.on('Network.loadingFinished', self._finished)
        cdp.on('Network.loadingFailed', self._failed)
        cdp.send('Network.enable')

    def _sent(self, e):
        path = urllib.request.urlparse(e['request']['url']).path
        # A tile of Deep Zoom's levels, or of the levels between them (Tilescope's own, /images/{id}/between/...).
        kind = ('tile' if (TILE in path or BETWEEN in path) and path.endswith(TILE_FORMATS)
                else 'preview' if path.endswith(('/preview.jpeg', '/preview.avif')) else None)
        if kind:
            self.requests[e['requestId']] = {'path': path, 'kind': kind, 'bytes': 0, 'state': 'sent', 'step': self.step}

    def _response(self, e):
        r = self.requests.get(e['requestId'])
        if r:
            headers = {k.lower(): v for k, v in e['response'].get('headers', {}).items()}
            r['type'] = headers.get('content-type', '')
            r['timing'] = headers.get('server-timing', '')

    def _data(self, e):
        r = self.requests.get(e['requestId'])
        if r:
            r['bytes'] += e.get('encodedDataLength', 0) or 0

    def _finished(self, e):
        r = self.requests.get(e['requestId'])
        if r:
            r['bytes'] = max(r['bytes'], e.get('encodedDataLength', 0))
            r['state'] = 'finished'

    def _failed(self, e):
        r = self.requests.get(e['requestId'])
        if r:
            r['state'] = 'cancelled' if e.get('canceled') or 'ABORTED' in e.get('errorText', '') else 'failed'


def cpu_seconds(pid):
    """User + system CPU time of a process so far (/proc/PID/stat fields 14 and 15)."""
    fields = Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def level_of(path):
    """A tile's level as text: Deep Zoom's ("11"), or a level between Deep Zoom's 11 and 12 ("11.1", "11.2")."""
    if BETWEEN in path:
        below, step = path.split(BETWEEN)[1].split('/')[:2]
        return f'{below}.{step}'
    return path.split(TILE)[1].split('/')[0]


def pending_encodings(base):
    """AVIF tiles the server is still making behind a JPEG answer (its /metrics)."""
    with urllib.request.urlopen(base + '/metrics', timeout=10) as r:
        for line in r.read().decode().splitlines():
            if line.startswith('tilescope_format_tiles_pending '):
                return float(line.split()[-1])
    return 0.0


def wait_for_encodings(base, timeout=3600):
    """Until the server has made every tile queued behind a reply; the seconds that took."""
    start = time.monotonic()
    while pending_encodings(base) > 0:
        if time.monotonic() - start > timeout:
            sys.exit(f'AVIF tiles still being made after {timeout} s')
        time.sleep(0.5)
    return time.monotonic() - start


def one_run(browser, base, viewer, image, scale, plan, pid=None, network=None, cpu=1, quick_ms=None):
    cpu_before = cpu_seconds(pid) if pid else 0.0
    # The certificate of `--http2`'s front is made for the run.
    context = browser.new_context(viewport=VIEW, device_scale_factor=scale, ignore_https_errors=True)
    page = context.new_page()
    throttle.apply(page, network, cpu)
    errors = []
    page.on('pageerror', lambda e: errors.append(str(e)))
    network = Network(page)
    html, query = VIEWERS[viewer]
    page.goto(f"{base}/bench/{html}.html?image={image['id']}{query}")
    page.wait_for_function('window.bench && window.bench.viewer', timeout=30000)
    times = [page.evaluate('window.bench.load()')]
    loaded_since_navigation = page.evaluate('window.bench.loadedSinceNavigation()')
    views = [page.evaluate('window.bench.report().view')]
    if quick_ms:
        # Goal 3: every view after the load, one every quick_ms, none waited for; only the last one is checked.
        network.step = 1
        times.append(page.evaluate('([v, g]) => window.bench.quick(v, g)', [[v for _, v in plan[1:]], quick_ms]))
        views, plan = views + [page.evaluate('window.bench.report().view')], [plan[0], plan[-1]]
    for step, (_, view) in enumerate(plan[1:] if not quick_ms else [], start=1):
        network.step = step
        times.append(page.evaluate('(v) => window.bench.step(v)', view))
        views.append(page.evaluate('window.bench.report().view'))
    page.wait_for_timeout(300)  # late network events of the last step
    report = page.evaluate('window.bench.report()')
    context.close()
    cpu = cpu_seconds(pid) - cpu_before if pid else 0.0
    if errors:
        sys.exit(f'{viewer}: page errors: {errors}')
    drawn = set(report['drawn'])
    tiles = [r for r in network.requests.values() if r['kind'] == 'tile']
    previews = [r for r in network.requests.values() if r['kind'] == 'preview']
    failed = [r for r in network.requests.values() if r['state'] == 'failed']
    if failed:
        sys.exit(f'{viewer}: failed requests: {failed[:5]}')
    deviation = max(max(abs(got['zoomScale'] / want['zoomScale'] - 1),
                        abs(got['offsetX'] - want['offsetX']) / VIEW['width'],
                        abs(got['offsetY'] - want['offsetY']) / VIEW['height'])
                    for got, (_, want) in zip(views, plan))
    return {
        'viewer': viewer, 'scale': scale,
        'tile_requests': len(tiles),
        'kib': sum(r['bytes'] for r in tiles + previews) / 1024,
        'never_drawn': sum(1 for r in tiles if r['path'] not in drawn),
        'cancelled': sum(1 for r in tiles if r['state'] == 'cancelled'),
        # Issue 44, goal 3: what the network carried for nothing, cancelled requests' partial bytes included.
        'wasted_kib': sum(r['bytes'] for r in tiles if r['path'] not in drawn) / 1024,
        'step_requests': [sum(1 for r in tiles if r['step'] == i) for i in range(len(plan))],
        'step_kib': [round(sum(r['bytes'] for r in tiles + previews if r['step'] == i) / 1024) for i in range(len(plan))],
        'seconds': sum(times) / 1000,
        'step_ms': [round(t) for t in times],
        'first_picture_ms': report['firstPicture'],
        'first_picture_from_navigation_ms': report['firstPictureSinceNavigation'],
        'loaded_from_navigation_ms': loaded_since_navigation,
        'view_deviation': deviation,
        'tiles_per_level': {level: sum(1 for r in tiles if level_of(r['path']) == level)
                            for level in sorted({level_of(r['path']) for r in tiles}, key=float)},
        'kib_per_level': {level: round(sum(r['bytes'] for r in tiles if level_of(r['path']) == level) / 1024)
                          for level in sorted({level_of(r['path']) for r in tiles}, key=float)},
        'preview_kib': round(sum(r['bytes'] for r in previews) / 1024),
        'preview_types': sorted({r.get('type') or '?' for r in previews}),
        'formats': sorted({r['path'].rsplit('.', 1)[1] for r in tiles}),
        'interim': sum(1 for r in tiles if 'interim' in r.get('timing', '')),
        'jpeg_answers': sum(1 for r in tiles if r.get('type') == 'image/jpeg'),
        'jxl_answers': sum(1 for r in tiles if r.get('type') == 'image/jxl'),
        'server_cpu_s': round(cpu, 2),
    }


def table(results, scales, runs, viewers, plan=None):
    """Per DPR: OpenSeadragon with its defaults, the client (its ratio to those defaults: what the goals are judged
    against), and OpenSeadragon on WebP or AVIF tiles as extra columns (the client's ratio to each in brackets), when
    run."""
    extras = [v for v in VIEWERS if v.startswith('osd-') and v in viewers]
    head = f'| medians of {runs} |' + ''.join(f' OpenSeadragon DPR {s} (defaults: JPEG) | Tilescope client DPR {s} |'
                                              + ''.join(f' extra: OpenSeadragon DPR {s} on {e[4:].upper()} |' for e in extras)
                                              for s in scales)
    lines = [head, '|---|' + '---:|' * ((2 + len(extras)) * len(scales))]
    rows = [('tile requests', 'tile_requests', '{:,.0f}', True), ('KiB received (tiles + preview)', 'kib', '{:,.0f}', True),
            ('requested, never drawn', 'never_drawn', '{:,.0f}', False), ('of which cancelled', 'cancelled', '{:,.0f}', False),
            ('KiB of tiles never drawn (wasted)', 'wasted_kib', '{:,.0f}', False),
            ('time to fully loaded, all steps', 'seconds', '{:.1f} s', True),
            ('first picture', 'first_picture_ms', '{:.0f} ms', False),
            ('tiles answered by a stand-in JPEG (interim)', 'interim', '{:,.0f}', False),
            ('server CPU during the run', 'server_cpu_s', '{:.1f} s', True)]
    if plan:
        # Throttled (issue 44's goal 2): from the navigation, and each step on its own.
        rows[4:4] = [('fit fully drawn, from navigation', 'loaded_from_navigation_ms', '{:,.0f} ms', True),
                     ('first picture, from navigation', 'first_picture_from_navigation_ms', '{:,.0f} ms', True)]
        rows += [(f'step {i}: {name}, fully drawn', ('step_ms', i), '{:,.0f} ms', True)
                 for i, (name, _) in enumerate(plan) if i > 0]
        rows += [row for i, (name, _) in enumerate(plan)
                 for row in ((f'step {i}: {name}, tile requests', ('step_requests', i), '{:,.0f}', True),
                             (f'step {i}: {name}, KiB', ('step_kib', i), '{:,.0f}', True))]
    med = lambda viewer, scale, key: statistics.median(
        (r[key[0]][key[1]] if isinstance(key, tuple) else r[key])
        for r in results if r['viewer'] == viewer and r['scale'] == scale)
    for label, key, fmt, ratio in rows:
        cells = []
        for s in scales:
            o, t = med('osd', s, key), med('tilescope', s, key)
            cells.append(fmt.format(o))
            cells.append(fmt.format(t) + (f' ({t / o:.2f}x)' if ratio and o else ''))
            for e in extras:
                w = med(e, s, key)
                cells.append(fmt.format(w) + (f' (client {t / w:.2f}x)' if ratio and w else ''))
        lines.append(f'| {label} | ' + ' | '.join(cells) + ' |')
    return '\n'.join(lines)


def phone_bench(args, server, image):
    """Issue 44, goal 1: gestures on a phone (phone.py); the table goes to results-phone-cpu{N}.md and .json."""
    cpu = args.cpu if args.cpu != 1 else 4
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=['--no-sandbox', '--force-color-profile=srgb'])
        viewers = phone.beside_viewers(args.beside) if args.beside else phone.PHONE_VIEWERS
        results = phone.run(browser, server.base, image, args.runs, cpu, lambda line: print(line, file=sys.stderr),
                            viewers, trace=OUT / 'traces' if args.trace else None)
        browser.close()
    commit = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(['git', 'status', '--porcelain', '--', 'Public', 'bench/client'], cwd=ROOT,
                           capture_output=True, text=True).stdout.strip()
    load = os.getloadavg()
    report = (f'Gestures on a phone, {args.size}x{args.size}, 390x844 CSS px at DPR 3, touch, CPU slowed {cpu:g}x, '
              f'commit {commit}{" (+ local changes)" if dirty else ""}'
              f'{f" beside the client of {args.beside}" if args.beside else ""}, '
              f'{time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}\n'
              'Late frame: more than 25 ms after the previous requestAnimationFrame timestamp; from the first touch to the '
              'last frame in which the view moved.\n\n' + phone.table(results, args.runs, viewers) + '\n')
    print(report)
    name = f'results-phone-cpu{cpu:g}' + ('-beside' if args.beside else '')
    (OUT / f'{name}.md').write_text(report)
    (OUT / f'{name}.json').write_text(json.dumps(results, indent=1))


def memory_bench(args):
    """Issue 44, goal 4: a session of --minutes over 30 images on a phone (memory.py); its own images, pyramids and
    server. The table goes to results-memory.md and .json."""
    images = OUT / 'images-memory'
    print(f'making the {memory.IMAGES} images of the memory session...', file=sys.stderr)
    memory.make_images(images, make_image)
    server = Server(args.binary, images, OUT / 'data-memory', public_folder(args.osd))
    try:
        deadline = time.monotonic() + 1800
        while True:
            try:
                listed = get_json(server.base + '/api/images')['images']
            except OSError:
                listed = []
            if len(listed) == memory.IMAGES and all(i['status'] == 'ready' for i in listed):
                break
            if server.process.poll() is not None or time.monotonic() > deadline:
                sys.exit(f'the {memory.IMAGES} pyramids were not ready; see {OUT / "server.log"}')
            time.sleep(1)
        wait_for_encodings(server.base)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=['--no-sandbox', '--force-color-profile=srgb'])
            # --viewers picks the sessions too: `tilescope`, and `osd` for OpenSeadragon's (its canvas drawer).
            chosen = args.viewers.split(',')
            viewers = [v for v in memory.MEMORY_VIEWERS if v in chosen or (v == 'osd-canvas' and 'osd' in chosen)]
            results = memory.run(browser, server.base, args.runs, args.minutes, lambda line: print(line, file=sys.stderr),
                                 viewers)
            browser.close()
    finally:
        server.stop()
    commit = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(['git', 'status', '--porcelain', '--', 'Public', 'bench/client'], cwd=ROOT,
                           capture_output=True, text=True).stdout.strip()
    load = os.getloadavg()
    width, height = memory.IMAGE_SIZE
    report = (f'Memory on a phone, {args.minutes:g}-minute session over {memory.IMAGES} images of {width}x{height}, '
              f'390x844 CSS px at DPR 3, touch, commit {commit}{" (+ local changes)" if dirty else ""}, '
              f'{time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}\n'
              'Each image: zoom in x2 twice, pan right, down, left by half a view, zoom in x2, back to fit, next; '
              f'{memory.PAUSE_S:g} s between actions. The last two minutes start and end on a collected heap.\n\n'
              + memory.table(results, args.runs, args.minutes) + '\n')
    print(report)
    (OUT / 'results-memory.md').write_text(report)
    (OUT / 'results-memory.json').write_text(json.dumps(results, indent=1))


def main():
    global OUT
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--binary', required=True)
    parser.add_argument('--osd', required=True)
    parser.add_argument('--size', type=int, default=16384)
    parser.add_argument('--seed', type=int, default=1,
                        help='another picture of the same size and kind (its own image and data folders)')
    parser.add_argument('--cells', default=','.join(map(str, DEFAULT_CELLS)),
                        help='the three bands\' Perlin cell sizes: another kind of picture (2048,512,128: softer)')
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--scales', default='1,2')
    parser.add_argument('--chromium', default='/usr/bin/chromium')
    parser.add_argument('--cold', action='store_true',
                        help='no untimed run; the derived (WebP, AVIF, JPEG XL) tiles are deleted before every run (once '
                             'the server has made those queued by the run before), but for those a fresh build leaves '
                             '(the fit level in AVIF), so each run starts as the first viewer of a new image')
    parser.add_argument('--prepare', action='store_true',
                        help='only the untimed runs, and wait until the server has made every tile they queued: '
                             'a later warm run then measures without making any (run it outside the bench lock)')
    parser.add_argument('--viewers', default=','.join(VIEWERS),
                        help='which viewers to run, of ' + ', '.join(VIEWERS) + ' (osd and tilescope at least)')
    parser.add_argument('--network', choices=sorted(throttle.NETWORKS),
                        help="issue 44's throttled connection for every measured page (A: 150 ms, 1.6 Mbit/s down; "
                             "B: 400 ms, 400 kbit/s)")
    parser.add_argument('--cpu', type=float, default=1, help='CPU slowdown of every measured page (4: a phone)')
    parser.add_argument('--http2', action='store_true',
                        help='both viewers through an HTTP/2 front (nginx with TLS, Tests/browser/http2_front.py) '
                             'instead of the server\'s own HTTP/1.1')
    parser.add_argument('--steps', type=int, default=0, help='only the first N views of the run (0: all)')
    parser.add_argument('--quick', type=int, default=0, metavar='MS',
                        help='issue 44, goal 3: after the load, go through the views one every MS ms without waiting '
                             'for any (cancelled requests and wasted KiB are what to read)')
    parser.add_argument('--phone', action='store_true',
                        help='issue 44, goal 1 instead of the views: gestures on a phone (phone.py), the client beside '
                             "OpenSeadragon's canvas and HTML drawers, the CPU slowed --cpu times (4 unless given)")
    parser.add_argument('--beside', metavar='REF',
                        help='with --phone: the client against the client of commit REF (its Public/js and css served '
                             'beside), alternating, instead of against OpenSeadragon')
    parser.add_argument('--trace', action='store_true',
                        help="with --phone: record a DevTools trace of each run's gestures (devtools.timeline) and "
                             "count its frames too (phone.py's trace_frames)")
    parser.add_argument('--out', default=str(OUT),
                        help='folder for the image, the pyramid and the results (a second one lets a cold run go on '
                             'beside a warm data folder)')
    parser.add_argument('--memory', action='store_true',
                        help='issue 44, goal 4 instead of the views: a --minutes session over 30 images on a phone '
                             '(memory.py), the client beside OpenSeadragon, JS heap and process memory sampled')
    parser.add_argument('--minutes', type=float, default=5, help='length of each --memory session')
    args = parser.parse_args()
    OUT = Path(args.out).resolve()
    if args.memory:
        OUT.mkdir(parents=True, exist_ok=True)
        return memory_bench(args)
    scales = [int(s) for s in args.scales.split(',')]
    viewers = [v for v in args.viewers.split(',') if v]
    if not args.phone and (not {'osd', 'tilescope'} <= set(viewers) or not set(viewers) <= set(VIEWERS)):
        sys.exit(f'--viewers must name osd and tilescope, and only {", ".join(VIEWERS)}')
    OUT.mkdir(parents=True, exist_ok=True)
    # Seed 1 and the default cells are the picture every figure before `--seed` was measured on, in the folders it
    # always had.
    cells = tuple(int(c) for c in args.cells.split(','))
    if len(cells) != 3 or min(cells) < 1:
        sys.exit('--cells takes three cell sizes in pixels, such as 512,48,6')
    named = (f'{args.size}' + (f'-seed{args.seed}' if args.seed != 1 else '')
             + (f'-cells{"-".join(map(str, cells))}' if cells != DEFAULT_CELLS else ''))
    images = OUT / f'images-{named}'
    make_image(images / f'perlin-{named}.jpg', args.size, seed=args.seed, cells=cells)
    data = OUT / f'data-{named}'
    server = Server(args.binary, images, data, public_folder(args.osd, args.beside))
    front = None
    try:
        print(f'building or loading the {args.size}x{args.size} pyramid...', file=sys.stderr)
        image = server.ready_image()
        # The AVIF preview is made as the build publishes its level; a pyramid built before that (an older
        # data folder) gets it on its first request, as it would from any server: made here, before any run,
        # so every run (cold ones too) finds the image as a fresh build leaves it.
        with urllib.request.urlopen(server.base + image['urls']['preview'].replace('/preview.jpeg', '/preview.avif'),
                                    timeout=60) as r:
            r.read()
        # So are the fit level's AVIF tiles (the level above the preview's, FitLevelAVIF.swift): asked for once
        # here, which queues those not made.
        fit = image['previewLevel'] + 1
        if fit < image['maxLevel']:
            for column, row in level_tiles(image, fit):
                url = image['urls']['tiles'].replace('{level}', str(fit)).replace('{col}', str(column))
                with urllib.request.urlopen(server.base + url.replace('{row}', str(row)).replace('.jpeg?', '.avif?'),
                                            timeout=60) as r:
                    r.read()
        wait_for_encodings(server.base)
        if args.phone:
            return phone_bench(args, server, image)
        plan = steps(args.size)[:args.steps or None]
        # What the browser talks to: the server itself, or the HTTP/2 front before it (the server's own address
        # stays the one its /metrics are read from).
        front = http2_front.Front(server.port, free_port()) if args.http2 else None
        base = front.base if front else server.base
        throttled = bool(args.network) or args.cpu != 1
        results = []
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=['--no-sandbox', '--force-color-profile=srgb']
                                        + (front.browser_args() if front else []))
            for scale in scales:
                # Untimed: the server makes an AVIF or WebP tile on its first request and keeps it; this run
                # makes the ones the views need, so that no measured run pays for making them (but see --cold).
                # The AVIF tiles are made behind the replies (a JPEG answers meanwhile): wait until they are.
                if not args.cold:
                    one_run(browser, base, 'tilescope', image, scale, plan)
                    waited = wait_for_encodings(server.base)
                    print(f'DPR {scale}: derived tiles made {waited:.0f} s after the untimed run', file=sys.stderr)
                if args.prepare:
                    continue
                for run in range(args.runs):
                    # Every viewer first, middle and last once in three runs.
                    order = [viewers[(i + run) % len(viewers)] for i in range(len(viewers))]
                    for viewer in order:
                        # No run pays for the encodings the run before queued.
                        waited = wait_for_encodings(server.base)
                        if waited > 1:
                            print(f'  (waited {waited:.0f} s for the server to make the tiles queued before)', file=sys.stderr)
                        if args.cold:
                            forget_derived_tiles(data / 'pyramids', keep_level=fit)
                        r = one_run(browser, base, viewer, image, scale, plan, pid=server.process.pid,
                                    network=args.network, cpu=args.cpu, quick_ms=args.quick)
                        r['cold'] = args.cold
                        results.append(r)
                        print(f"DPR {scale} run {run + 1} {viewer:9} ({'/'.join(r['formats'])}): "
                              f"{r['tile_requests']} tiles, {r['kib']:.0f} KiB, "
                              f"{r['never_drawn']} never drawn, {r['interim']} interim, {r['seconds']:.1f} s {r['step_ms']}, "
                              f"server CPU {r['server_cpu_s']:.1f} s, "
                              f"view deviation {r['view_deviation']:.1e}", file=sys.stderr)
            browser.close()
    finally:
        if front:
            front.stop()
        server.stop()
    if args.prepare:
        return
    commit = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(['git', 'status', '--porcelain', '--', 'Public', 'bench/client'], cwd=ROOT,
                           capture_output=True, text=True).stdout.strip()
    when = time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())
    report = (f'Client vs OpenSeadragon 4.1.0, {args.size}x{args.size} (Perlin noise, seed {args.seed}, cells '
              f'{",".join(map(str, cells))}), '
              f'{VIEW["width"]}x{VIEW["height"]}, '
              f'{len(plan)} steps, commit {commit}{" (+ local changes)" if dirty else ""}, {when}'
              f'{", cold: no derived tiles at the start of each run but those a fresh build leaves (the fit level in AVIF)" if args.cold else ", warm: derived tiles made before"}'
              f', {throttle.describe(args.network, args.cpu)}'
              f'{", through an HTTP/2 front (nginx, TLS)" if args.http2 else ", HTTP/1.1 from the server itself"}\n'
              'Ratios in brackets: the client to OpenSeadragon with its defaults (JPEG tiles), which the goals of '
              'issue 15 are judged against; in an extra column, the client to OpenSeadragon on WebP or AVIF tiles.\n\n'
              + (f'Quick: after the load, the {len(plan) - 1} views one every {args.quick} ms, none waited for; '
                 'the last step is the time from the last call until settled.\n\n' if args.quick else '')
              + table(results, scales, args.runs, viewers,
                      ([plan[0], ('quick run', plan[-1][1])] if args.quick else plan) if throttled else None) + '\n')
    print(report)
    name = ((f"results-{args.network or 'loopback'}-cpu{args.cpu:g}" if throttled else 'results')
            + ('-quick' if args.quick else '') + ('-http2' if args.http2 else ''))
    (OUT / f'{name}.md').write_text(report)
    (OUT / f'{name}.json').write_text(json.dumps({'plan': plan, 'results': results}, indent=1))
    worst = max(r['view_deviation'] for r in results)
    if worst > 1e-3:
        sys.exit(f'the viewers did not show the same views (largest deviation {worst:.1e} of the viewport)')


if __name__ == '__main__':
    main()
