"""Fixtures for the browser tests: test images, a real `tilescope serve` on a free loopback port, and
Debian's Chromium driven by Playwright, with every console error and failed request collected."""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from contextlib import contextmanager
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from testimages import make_image

REPO = Path(__file__).resolve().parents[2]
OUTPUT = REPO / 'test-output' / 'browser'
CHROMIUM = os.environ.get('CHROMIUM', '/usr/bin/chromium')
VIEW = {'width': 800, 'height': 600}

# name, width, height, seed, title, caption. Four images: more than one screen's worth of paging,
# sizes that cross different pyramid depths, a portrait and one smaller than the preview limit.
IMAGES = [
    ('a-land.png', 3000, 2000, 1, 'Landscape', 'Soft discs over a woven pattern, 3000 x 2000.'),
    ('b-tall.png', 1200, 2600, 2, 'Portrait', 'A tall one, 1200 x 2600.'),
    ('c-small.png', 600, 400, 3, 'Small', 'Smaller than the preview limit.'),
    ('d-wide.png', 4100, 1300, 4, 'Panorama', 'A wide one whose pyramid is one level deeper.'),
]


def pytest_runtest_makereport(item, call):
    if call.when == 'call':
        item.failed_call = call.excinfo is not None


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def http(method, url, body=None, timeout=10):
    """(status, parsed JSON or None) without raising on HTTP errors."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={'Content-Type': 'application/json'})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            raw, status = r.read(), r.status
    except urllib.error.HTTPError as e:
        raw, status = e.read(), e.code
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, None


@pytest.fixture(scope='session')
def image_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp('images')
    for name, w, h, seed, _, _ in IMAGES:
        make_image(folder / name, w, h, seed)
    captions = {name: {'title': title, 'caption': caption} for name, _, _, _, title, caption in IMAGES}
    (folder / 'captions.json').write_text(json.dumps(captions))
    return folder


class Server:
    """`tilescope serve` on a free loopback port, its output kept for failure reports. Every one started is
    stopped at the end of the session (`pytest_sessionfinish`) even when the fixture that started it failed
    before its `yield`, whose `stop()` then never runs: such a server outlived a CI run."""

    started = []

    @staticmethod
    def binary():
        binary = os.environ.get('TILESCOPE_BIN', str(REPO / '.build' / 'debug' / 'tilescope'))
        if not Path(binary).exists():
            pytest.fail(f'no server binary at {binary}: build it with `swift build --product tilescope`')
        return binary

    def __init__(self, images, data, log, extra=()):
        binary = self.binary()
        self.port = free_port()
        self.base = f'http://127.0.0.1:{self.port}'
        self.log = open(log, 'w')
        self.process = subprocess.Popen(
            [binary, 'serve', '--images', str(images), '--data', str(data), '--port', str(self.port),
             '--host', '127.0.0.1', '--public', str(REPO / 'Public'), *extra],
            cwd=REPO, stdout=self.log, stderr=subprocess.STDOUT)
        self.log_path = log
        Server.started.append(self)

    def wait_ready(self, count, timeout=180):
        """Until the server answers and all `count` images are ready (pyramids built)."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f'tilescope exited with {self.process.returncode}:\n{Path(self.log_path).read_text()[-3000:]}')
            try:
                status, body = http('GET', self.base + '/api/images', timeout=2)
                last = body
                images = (body or {}).get('images', [])
                if status == 200 and len(images) == count and all(i['status'] == 'ready' for i in images):
                    return images
                failed = [i for i in images if i.get('status') == 'failed']
                if failed:
                    pytest.fail(f'images failed to build: {failed}')
            except OSError:
                pass
            time.sleep(0.3)
        pytest.fail(f'server not ready after {timeout}s; last /api/images: {last}')

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def pytest_sessionfinish(session, exitstatus):
    for srv in Server.started:
        srv.stop()


@pytest.fixture(scope='session')
def server(image_folder, tmp_path_factory):
    data = tmp_path_factory.mktemp('data')
    OUTPUT.mkdir(parents=True, exist_ok=True)
    srv = Server(image_folder, data, OUTPUT / 'server.log')
    srv.images = srv.wait_ready(len(IMAGES))
    yield srv
    srv.stop()


@pytest.fixture(scope='session')
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=['--no-sandbox', '--force-color-profile=srgb'])
        yield b
        b.close()


# Cancelling a tile that is no longer needed is a feature: Chromium reports it as net::ERR_ABORTED.
CANCELLABLE = re.compile(r'/dzi/[^/]+_files/\d+/\d+_\d+\.(jpeg|webp|avif)|/images/[^/]+/preview\.(jpeg|avif)'
                         r'|/images/[^/]+/between/\d+/[12]/\d+_\d+\.(jpeg|avif)')


class Session:
    """A page with the problems it ran into: console errors, page errors, failed requests, HTTP errors."""

    def __init__(self, page, base):
        self.page = page
        self.base = base
        self.problems = []
        self.cancelled = []
        self.allowed_failures = re.compile(r'$^')
        page.on('console', self._console)
        page.on('pageerror', lambda e: self.problems.append(f'page error: {e}'))
        page.on('requestfailed', self._failed)
        page.on('response', lambda r: r.status >= 400 and not self.allowed_failures.search(r.url)
                and self.problems.append(f'HTTP {r.status} {r.request.method} {r.url}'))

    def _console(self, message):
        if message.type != 'error':
            return
        where = (message.location or {}).get('url', '')
        if self.allowed_failures.search(where):
            return
        self.problems.append(f'console error: {message.text} ({where})')

    def _failed(self, request):
        failure = request.failure or ''
        if self.allowed_failures.search(request.url):
            return
        if 'ERR_ABORTED' in failure and CANCELLABLE.search(request.url):
            self.cancelled.append(request.url)
            return
        # A `blob:` URL is the tile loader's own bytes in memory: its load fails only when it is aborted, as when the
        # page is left while the side pages' tiles decode (the next `open` here), an element is released, or the
        # URL is let go while it loads (TileLoader retries from the blob). Not a failed request, nor a cancelled one.
        if 'ERR_ABORTED' in failure and request.url.startswith('blob:'):
            return
        self.problems.append(f'request failed: {request.method} {request.url} {failure}')

    def open(self, fragment=''):
        """A fresh load of the gallery (a change of fragment alone would not reload it)."""
        if self.page.url != 'about:blank':
            self.page.goto('about:blank')
        self.page.goto(self.base + '/' + fragment)
        self.wait_idle()
        self.wait_settled()

    def wait_settled(self, timeout=20.0):
        """Until the layout stops moving: the bars fill in after the first idle frame (title, caption,
        rating), their sizes change the insets and with them the fit, so a test that reads the view at
        once may read the one before. Settled = idle with the same insets and zoomScale three times
        in a row, 100 ms apart."""
        deadline = time.monotonic() + timeout
        seen, same = None, 0
        while same < 3:
            assert time.monotonic() < deadline, f'the layout kept moving: last {seen}'
            self.wait_idle()
            st = self.state()
            now = (tuple(sorted((st['insets'] or {}).items())), st['zoomScale'], st['offsetX'], st['offsetY'])
            same = same + 1 if now == seen else 1
            seen = now
            if same < 3:
                self.page.wait_for_timeout(100)

    def wait_idle(self, timeout=20000):
        """Until the gallery is up, nothing moves and every visible tile (or the preview) has loaded."""
        self.page.wait_for_function('window.tilescope && window.tilescope.state().idle', timeout=timeout)

    def state(self):
        return self.page.evaluate('window.tilescope.state()')

    def hide_chrome(self):
        self.page.add_style_tag(content='.chrome, .navigator { visibility: hidden !important; transition: none !important; }')


def save_artefact(page, name):
    OUTPUT.mkdir(parents=True, exist_ok=True)
    safe = re.sub(r'[^A-Za-z0-9_.-]+', '_', name)
    try:
        page.screenshot(path=str(OUTPUT / f'{safe}.png'))
    except Exception:  # the page may be gone; the test's own failure is what matters
        pass


@contextmanager
def page_session(browser, base, node, scale=1):
    """A fresh browser context on the server; on failure a screenshot goes to test-output/browser/."""
    context = browser.new_context(viewport=VIEW, device_scale_factor=scale)
    session = Session(context.new_page(), base)
    try:
        yield session
    except BaseException:
        save_artefact(session.page, f'{node.name}-{scale}x')
        raise
    finally:
        problems = list(session.problems)
        context.close()
    assert not problems, 'the page ran into problems:\n' + '\n'.join(problems)


@pytest.fixture
def session(browser, server, request):
    with page_session(browser, server.base, request.node) as s:
        yield s
        if getattr(request.node, 'failed_call', False):
            save_artefact(s.page, request.node.name)


class TimedInput:
    """Real input events through the DevTools protocol with explicit timestamps, so that velocities and tap
    timings are what the test says, however loaded the machine is."""

    def __init__(self, page):
        self.cdp = page.context.new_cdp_session(page)
        self.t0 = time.time()

    def mouse_path(self, points, interval_ms=10, hold_ms=0):
        """Press at the first point, move through the others `interval_ms` apart, release `hold_ms` after the last."""
        t = 0.0
        x, y = points[0]
        self._mouse('mousePressed', x, y, t, buttons=1)
        for x, y in points[1:]:
            t += interval_ms / 1000
            self._mouse('mouseMoved', x, y, t, buttons=1)
        self._mouse('mouseReleased', x, y, t + hold_ms / 1000, buttons=0)
        self.t0 += t + hold_ms / 1000 + 1

    def _mouse(self, kind, x, y, t, buttons):
        self.cdp.send('Input.dispatchMouseEvent', {'type': kind, 'x': x, 'y': y, 'button': 'left', 'buttons': buttons,
                                                   'clickCount': 1, 'timestamp': self.t0 + t})

    def touches(self, frames):
        """frames: [(t_ms, [(x, y), ...]), ...]; an empty list of points lifts every finger."""
        previous = 0
        for t, points in frames:
            kind = 'touchEnd' if not points else ('touchStart' if previous < len(points) else 'touchMove')
            self.cdp.send('Input.dispatchTouchEvent', {
                'type': kind, 'timestamp': self.t0 + t / 1000,
                'touchPoints': [{'x': x, 'y': y, 'id': i} for i, (x, y) in enumerate(points)]})
            previous = len(points)
        self.t0 += frames[-1][0] / 1000 + 1


# A server with a private image, for the tests of signed URLs (test_access.py, test_openseadragon_signed.py).
ADMIN = 'access-browser-admin-token'
PRIVATE = 'zz-private'


@pytest.fixture(scope='session')
def private_server(tmp_path_factory):
    """A server of its own for the access tests: the first test image, public, and `zz-private`, private by its
    sidecar rule, both built; the admin token `ADMIN` mints signed URLs (docs/access.md)."""
    images = tmp_path_factory.mktemp('access-images')
    name, w, h, seed, _, _ = IMAGES[0]
    make_image(images / name, w, h, seed)
    make_image(images / f'{PRIVATE}.png', 900, 600, 77)
    (images / 'captions.json').write_text(json.dumps({f'{PRIVATE}.png': {'title': 'Private field', 'access': 'private'}}))
    OUTPUT.mkdir(parents=True, exist_ok=True)
    os.environ['TILESCOPE_ADMIN_TOKEN'] = ADMIN
    try:
        srv = Server(images, tmp_path_factory.mktemp('access-data'), OUTPUT / 'access-server.log')
    finally:
        del os.environ['TILESCOPE_ADMIN_TOKEN']
    srv.folder = images
    srv.images = srv.wait_ready(1)  # the list shows the public image only
    deadline = time.monotonic() + 180
    while image_status(srv, PRIVATE) != 'ready':
        assert time.monotonic() < deadline, 'the private image was not built'
        time.sleep(0.3)
    yield srv
    srv.stop()


def image_status(srv, image_id):
    """The image's build status as an admin sees it; None while the scan has not listed it yet (404): the two
    images are listed in whichever order the scan meets them, so the public one being ready says nothing of this."""
    try:
        return admin_get(srv, f'/api/images/{image_id}').get('status')
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return None
        raise


def admin_get(srv, path):
    request = urllib.request.Request(srv.base + path, headers={'Authorization': f'Bearer {ADMIN}'})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def mint(srv, image_id, seconds=3600):
    request = urllib.request.Request(srv.base + f'/api/images/{image_id}/signed-urls', method='POST',
                                     data=json.dumps({'expiresIn': seconds}).encode(),
                                     headers={'Authorization': f'Bearer {ADMIN}', 'Content-Type': 'application/json'})
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 201
        return json.load(answer)
