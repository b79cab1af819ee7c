"""The embeddable viewer on images from another server that is not Tilescope: a plain static file server on another
port (another origin, with CORS headers) holding a Deep Zoom pyramid and a static IIIF Image API 3 level-0 tile set,
both cut by libvips's own `vips dzsave` with other tile sizes and overlaps than Tilescope's. What the viewer draws is
compared with libvips renderings of the same views."""
import functools
import http.server
import io
import subprocess
import threading

import numpy as np
import pytest
from PIL import Image

import geometry
from conftest import IMAGES, OUTPUT, free_port
from reference import psnr, render_viewport
from test_client_api import add_viewer, open_embed, viewer_state

MIN_PSNR = 30.0


class CorsHandler(http.server.SimpleHTTPRequestHandler):
    """Static files with the CORS header a server must send for its descriptors to be fetched from another origin."""

    def end_headers(self):
        self.send_header('Access-Control-Allow-Origin', '*')
        super().end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture(scope='module')
def foreign(image_folder, tmp_path_factory):
    """A static server on another port with `land.dzi` (tiles 300 px, overlap 2) and `iiif/land/info.json`."""
    root = tmp_path_factory.mktemp('foreign')
    source = image_folder / next(name for name, *_ in IMAGES if name.startswith('a-land'))
    port = free_port()
    base = f'http://127.0.0.1:{port}'
    subprocess.run(['vips', 'dzsave', str(source), str(root / 'land'), '--tile-size', '300', '--overlap', '2'],
                   check=True, capture_output=True, timeout=120)
    (root / 'iiif').mkdir()
    subprocess.run(['vips', 'dzsave', str(source), str(root / 'iiif' / 'land'), '--layout', 'iiif3',
                    '--id', f'{base}/iiif'], check=True, capture_output=True, timeout=120)
    server = http.server.ThreadingHTTPServer(('127.0.0.1', port), functools.partial(CorsHandler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield {'base': base, 'source': source}
    server.shutdown()
    server.server_close()


def compare(session, name, source, what):
    st = viewer_state(session, name)
    session.page.wait_for_function(f"!document.querySelector('#{name} .scroll-indicator.visible')")
    png = session.page.locator(f'#{name}').screenshot()
    shot = np.asarray(Image.open(io.BytesIO(png)).convert('RGB'))
    ref = render_viewport(source, st['zoomScale'], st['offset']['x'], st['offset']['y'], 400, 300)
    quality = psnr(shot, ref)
    if quality <= MIN_PSNR:
        OUTPUT.mkdir(parents=True, exist_ok=True)
        Image.fromarray(np.concatenate([shot, ref], axis=1)).save(OUTPUT / f'foreign-{name}-{what[:4]}-vs-libvips.png')
    assert quality > MIN_PSNR, f'{what}: {quality:.1f} dB against libvips'


@pytest.mark.parametrize('kind', ['dzi', 'iiif'])
def test_deep_zoom_and_iiif_from_another_server(session, server, foreign, kind):
    url = f"{foreign['base']}/land.dzi" if kind == 'dzi' else f"{foreign['base']}/iiif/land/info.json"
    open_embed(session)
    add_viewer(session, 'v', {kind: url, 'controls': False}, left=0, top=0, width=400, height=300)
    land = {'width': 3000, 'height': 2000}
    for view in ({}, {'zoomScale': 0.9, 'offsetX': 1100.5, 'offsetY': 640.25}, {'zoomScale': 2, 'offsetX': 1e9, 'offsetY': 1e9}):
        if view:
            session.page.evaluate("""(view) => { const v = window.__viewers.v;
                v.setZoomScale(view.zoomScale); v.setContentOffset({ x: view.offsetX, y: view.offsetY }); }""", view)
        session.page.wait_for_function("window.__viewers.v.fullyLoaded && window.__viewers.v.scrollView.isIdle", timeout=20000)
        st = viewer_state(session, 'v')
        z, ox, oy = geometry.settle(land, {'width': 400, 'height': 300, **view})
        assert (st['zoomScale'], st['offset']['x'], st['offset']['y']) == (pytest.approx(z), pytest.approx(ox), pytest.approx(oy))
        compare(session, 'v', foreign['source'], f'{kind} {view}')
    asked = session.page.evaluate("performance.getEntriesByType('resource').map((e) => e.name)")
    tiles = [u for u in asked if u.startswith(foreign['base']) and u.endswith(('.jpeg', '.jpg'))]
    assert tiles, 'tiles came from the other server'
