"""A transparent image in the page (issue 37, 2b): drawn over the viewer's own background from tiles that keep
their alpha, with nothing of the preview, a coarser level or the base tile showing through clear pixels, and no
overlap drawn twice at tile seams. Screenshots against libvips's rendering of the source laid over that
background."""
import subprocess

import numpy as np
import pytest
from PIL import Image

from conftest import OUTPUT, VIEW, Server, page_session
from reference import psnr, render_viewport
from test_rendering import seam_errors
from testimages import make_image

NAME = 'logo.png'
WIDTH, HEIGHT = 2400, 1600


def make_transparent(path):
    """The browser tests' colour field under an alpha with every kind of pixel: wholly clear bands (whose hidden
    colour is vivid, so a leak shows), a ramp from clear to opaque, and opaque discs."""
    make_image(path, WIDTH, HEIGHT, 7)
    rgb = np.asarray(Image.open(path).convert('RGB'))
    y, x = np.mgrid[0:HEIGHT, 0:WIDTH].astype(np.float32)
    alpha = np.clip(x / WIDTH * 1.4 - 0.2, 0, 1) * 255
    alpha[(y // 200) % 3 == 1] = 0
    for cx, cy, r in ((600, 500, 260), (1700, 1100, 330)):
        alpha[np.hypot(x - cx, y - cy) < r] = 255
    Image.fromarray(np.dstack([rgb, alpha.astype(np.uint8)]), 'RGBA').save(path)


@pytest.fixture(scope='module')
def transparent_server(tmp_path_factory):
    images = tmp_path_factory.mktemp('transparent-images')
    make_transparent(images / NAME)
    srv = Server(images, tmp_path_factory.mktemp('transparent-data'), OUTPUT / 'transparent-server.log')
    srv.images = srv.wait_ready(1)
    srv.images_folder = images
    yield srv
    srv.stop()


def shown_source(srv, tmp_path, background):
    """The source laid over `background` by libvips: what the page must show."""
    out = tmp_path / 'shown.png'
    subprocess.run(['vips', 'flatten', srv.images_folder / NAME, out, '--background', ' '.join(map(str, background))],
                   check=True, capture_output=True)
    return out


def test_the_api_marks_it_and_offers_alpha_formats(transparent_server):
    image = transparent_server.images[0]
    assert image['alpha'] is True
    formats = image['urls']['formats']
    assert formats['png']['tiles'].split('?')[0].endswith('.png')
    assert formats['png']['preview'].split('?')[0].endswith('/preview.png')
    assert formats['webp']['preview'].split('?')[0].endswith('/preview.png')


@pytest.mark.parametrize('label, view', [
    ('fit', {}),
    ('deep', {'zoomScale': 0.9, 'offsetX': 700, 'offsetY': 350}),
    ('deeper', {'zoomScale': 2.0, 'offsetX': 2200, 'offsetY': 1300}),
])
def test_the_page_shows_the_image_over_its_own_background(browser, transparent_server, request, tmp_path, label, view):
    with page_session(browser, transparent_server.base, request.node) as session:
        fragment = '#image=logo' + ''.join(f'&{k}={v}' for k, v in view.items())
        session.open(fragment)
        colour = session.page.evaluate("""() => getComputedStyle(document.querySelector('.tilescope'))
            .getPropertyValue('--background').trim()""")
        background = tuple(int(colour.lstrip('#')[i:i + 2] if len(colour) == 7 else colour.lstrip('#')[i // 2] * 2, 16)
                           for i in (0, 2, 4))
        drawn = session.page.evaluate("""() => [...document.querySelectorAll('.page.current .tile.loaded')]
            .map(t => t.dataset.url.split('?')[0].split('.').pop())""")
        assert drawn and not {'jpeg'} & set(drawn), f'tiles without alpha drawn: {drawn}'
        st = session.state()
        session.hide_chrome()
        session.page.wait_for_timeout(50)
        OUTPUT.mkdir(parents=True, exist_ok=True)
        shot_path = OUTPUT / f'transparent-{label}.png'
        session.page.screenshot(path=str(shot_path))
        shot = np.asarray(Image.open(shot_path).convert('RGB'))
        source = shown_source(transparent_server, tmp_path, background)
        ref = render_viewport(source, st['zoomScale'], st['offsetX'], st['offsetY'], VIEW['width'], VIEW['height'])
        quality = psnr(shot, ref)
        expected = session.page.evaluate('window.tilescope.viewport()')
        seams = [s for s in seam_errors(shot, ref, expected, 1) if s[2] > 3 * s[3] + 3]
        if quality <= 30 or seams:
            Image.fromarray(ref).save(OUTPUT / f'transparent-{label}-reference.png')
        else:
            shot_path.unlink()
        assert quality > 30, f'{label}: {quality:.1f} dB against libvips over {background}; see {OUTPUT}'
        assert not seams, f'{label}: seams (overlaps drawn twice?): {seams}'
