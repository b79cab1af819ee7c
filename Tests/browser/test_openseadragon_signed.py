"""OpenSeadragon 4.1, knowing nothing of Tilescope's credentials, given a signed URL's descriptor (issue 42, goal 2's
second half; docs/access.md): the signed Deep Zoom descriptor and the signed IIIF Image 3.0 info.json of a private
image. The server writes the signed base into the descriptor's `Url` and info.json's `id`, so every tile OpenSeadragon
asks for carries the token: each one is answered 200, and what is drawn is the image (its pixels against libvips's
rendering of the source at OpenSeadragon's own view). The same descriptors unsigned are 401, and nothing is drawn.

OpenSeadragon comes from scripts/openseadragon.sh (the client benchmark's peer); the page holding it is answered by
the browser itself on the server's origin (Playwright's routing), so the server is asked only for the image."""
import io
import os
import re
import subprocess

import numpy as np
import pytest
from PIL import Image

from conftest import OUTPUT, PRIVATE, REPO, mint, page_session
from reference import psnr, render_viewport

# OpenSeadragon may draw a level coarser than the screen's pixels (its minPixelRatio 0.5): the test image's fine grain
# then averages away, about 29 dB against libvips's rendering at the view's own scale (30 is what the client holds). The
# same view four pixels off is checked to fall below it, so the bound still tells the image from a misplaced one.
MIN_PSNR = 27.0
VIEW = (800, 600)
PAGE = f"""<!doctype html>
<meta charset="utf-8">
<style>html, body {{ margin: 0; background: #000; }} #osd {{ width: {VIEW[0]}px; height: {VIEW[1]}px; background: #000; }}</style>
<div id="osd"></div>
<script src="/__openseadragon/openseadragon.min.js"></script>
"""
# A tile of either protocol: Deep Zoom `{name}_files/{level}/{col}_{row}.{format}`, IIIF `{region}/{size}/0/default.jpg`.
TILE = re.compile(r'_files/\d+/\d+_\d+\.\w+|/iiif/3/[^/]+/[^/]+/[^/]+/0/default\.\w+')


@pytest.fixture(scope='module')
def openseadragon():
    """The path of OpenSeadragon 4.1's openseadragon.min.js (fetched once by the script, kept in test-output/)."""
    given = os.environ.get('OPENSEADRAGON')
    if given:
        return given
    return subprocess.run([str(REPO / 'scripts' / 'openseadragon.sh')], check=True, capture_output=True, text=True,
                          timeout=300).stdout.strip()


def open_osd(session, openseadragon, source):
    """Opens an OpenSeadragon page on the server's origin and gives it `source`; returns 'open' or the failure,
    and the answers to every request the page made for the image (url, status)."""
    page = session.page
    base = session.base
    script = open(openseadragon, 'rb').read()
    page.route(f'{base}/__openseadragon/page.html', lambda route: route.fulfill(body=PAGE, content_type='text/html'))
    page.route(f'{base}/__openseadragon/openseadragon.min.js',
               lambda route: route.fulfill(body=script, content_type='text/javascript'))
    answers = []
    page.on('response', lambda r: '/__openseadragon/' not in r.url and answers.append((r.url, r.status)))
    page.set_viewport_size({'width': VIEW[0], 'height': VIEW[1]})
    page.goto(f'{base}/__openseadragon/page.html')
    outcome = page.evaluate("""(source) => new Promise((resolve) => {
        const viewer = OpenSeadragon({ id: 'osd', tileSources: source, showNavigationControl: false,
                                       animationTime: 0, blendTime: 0 });
        window.viewer = viewer;
        viewer.addHandler('open', () => resolve('open'));
        viewer.addHandler('open-failed', (e) => resolve(`open-failed: ${e.message}`));
    })""", source)
    return outcome, answers


def wait_drawn(page):
    """Until OpenSeadragon has every tile of its view drawn, then two more frames for the canvas to show them."""
    page.wait_for_function('window.viewer.world.getItemAt(0) && window.viewer.world.getItemAt(0).getFullyLoaded()',
                           timeout=30000)
    page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))')


def shown(page):
    """The viewer's pixels (RGB) and where the image lies in them: (zoomScale, offset x, offset y) as reference.py
    takes them, from OpenSeadragon's own viewport."""
    rect = page.evaluate("""() => {
        const item = window.viewer.world.getItemAt(0);
        const size = item.getContentSize();
        const topLeft = item.imageToViewerElementCoordinates(new OpenSeadragon.Point(0, 0));
        const topRight = item.imageToViewerElementCoordinates(new OpenSeadragon.Point(size.x, 0));
        return { x: topLeft.x, y: topLeft.y, width: topRight.x - topLeft.x, imageWidth: size.x };
    }""")
    png = page.locator('#osd').screenshot()
    pixels = np.asarray(Image.open(io.BytesIO(png)).convert('RGB'))
    return pixels, (rect['width'] / rect['imageWidth'], -rect['x'], -rect['y'])


@pytest.mark.parametrize('kind', ['dzi', 'iiif3'])
def test_openseadragon_draws_a_private_image_from_its_signed_descriptor(browser, private_server, openseadragon,
                                                                        kind, request):
    minted = mint(private_server, PRIVATE)
    token = minted['token']
    source = minted['urls'][kind]
    assert f'/signed/{token}/' in source, source
    with page_session(browser, private_server.base, request.node) as session:
        outcome, answers = open_osd(session, openseadragon, private_server.base + source if source.startswith('/')
                                    else source)
        assert outcome == 'open', outcome
        wait_drawn(session.page)
        pixels, (zoom, x, y) = shown(session.page)
        tiles = [(url, status) for url, status in answers if TILE.search(url)]
        assert tiles, f'OpenSeadragon asked for no tile: {answers}'
        assert all(f'/signed/{token}/' in url and status == 200 for url, status in tiles), tiles
        assert all(status == 200 for _, status in answers), answers
        reference = render_viewport(private_server.folder / f'{PRIVATE}.png', zoom, x, y, *VIEW)
        quality = psnr(pixels, reference)
        if quality <= MIN_PSNR:
            Image.fromarray(np.concatenate([pixels, reference], axis=1)).save(
                OUTPUT / f'openseadragon-signed-{kind}-vs-libvips.png')
        assert quality > MIN_PSNR, f'{kind}: {quality:.1f} dB against libvips ({len(tiles)} tiles)'
        off = psnr(pixels, render_viewport(private_server.folder / f'{PRIVATE}.png', zoom, x + 4, y, *VIEW))
        assert off < MIN_PSNR, f'the bound does not tell a view 4 px off ({off:.1f} dB) from the right one'


@pytest.mark.parametrize('kind', ['dzi', 'iiif3'])
def test_openseadragon_given_the_unsigned_descriptor_gets_401_and_draws_nothing(browser, private_server, openseadragon,
                                                                                kind, request):
    unsigned = {'dzi': f'/dzi/{PRIVATE}.dzi', 'iiif3': f'/iiif/3/{PRIVATE}/info.json'}[kind]
    with page_session(browser, private_server.base, request.node) as session:
        # The 401 is the point here, and Chromium reports it as a console error of the page.
        session.allowed_failures = re.compile(re.escape(unsigned) + '$|/__openseadragon/')
        outcome, answers = open_osd(session, openseadragon, private_server.base + unsigned)
        assert outcome.startswith('open-failed'), outcome
        assert answers == [(private_server.base + unsigned, 401)], answers
        session.page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))')
        # The drawer's canvas (OpenSeadragon writes its failure as text beside it, not on it): not one pixel painted.
        painted = session.page.evaluate("""() => {
            const canvas = window.viewer.drawer.canvas;
            const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
            let painted = 0;
            for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) painted++;
            return { painted, width: canvas.width, height: canvas.height };
        }""")
        assert painted['width'] > 0 and painted['painted'] == 0, painted
