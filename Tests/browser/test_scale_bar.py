"""The scale bar: shown for an image that says how large its pixels are (a pyramidal TIFF whose resolution is
4,000 pixels a millimetre, 0.25 µm a pixel, as a slide scanner writes, served directly), with a round length whose
bar is as long on screen as that length of the image at the current zoomScale; hidden for an image that says
nothing."""
import math
import re
import subprocess

import pytest

from conftest import OUTPUT, Server, page_session
from testimages import make_image

MICRONS = 0.25
UNITS = {'nm': 1e-3, 'µm': 1.0, 'mm': 1e3, 'm': 1e6}


@pytest.fixture(scope='module')
def slides(tmp_path_factory):
    images = tmp_path_factory.mktemp('slides')
    scratch = tmp_path_factory.mktemp('slide-scratch')
    make_image(images / 'plain.png', 1600, 1200, 6)
    measured = scratch / 'measured.v'
    subprocess.run(['vips', 'copy', str(images / 'plain.png'), str(measured), '--xres', '4000', '--yres', '4000'],
                   check=True, capture_output=True, timeout=60)
    subprocess.run(['vips', 'tiffsave', str(measured), str(images / 'slide.tif'), '--tile', '--pyramid',
                    '--compression', 'jpeg', '--resunit', 'cm', '--tile-width', '256', '--tile-height', '256'],
                   check=True, capture_output=True, timeout=60)
    OUTPUT.mkdir(parents=True, exist_ok=True)
    server = Server(images, tmp_path_factory.mktemp('slide-data'), OUTPUT / 'scale-bar-server.log')
    images_json = server.wait_ready(2)
    assert {i['id']: i.get('served') for i in images_json} == {'plain': 'built', 'slide': 'direct'}
    yield server
    server.stop()


def scale_bar(session):
    return session.page.evaluate("""() => {
      const bar = document.querySelector('.scale-bar');
      const line = bar && bar.querySelector('.scale-bar-line');
      return bar && { hidden: bar.hidden || getComputedStyle(bar).display === 'none',
                      text: bar.querySelector('.scale-bar-label').textContent,
                      width: line.getBoundingClientRect().width,
                      zoomScale: window.tilescope.viewer.zoomScale };
    }""")


def expect_true_length(bar):
    value, unit = re.fullmatch(r'([0-9.]+) (nm|µm|mm|m)', bar['text']).groups()
    micrometres = float(value) * UNITS[unit]
    # The bar's CSS pixels show width / zoomScale image pixels of 0.25 µm each.
    shown = bar['width'] / bar['zoomScale'] * MICRONS
    assert abs(shown - micrometres) <= 0.01 * micrometres, (bar, shown)
    assert 60 - 0.5 <= bar['width'] <= 150 + 0.5, bar
    mantissa = float(value) / 10 ** math.floor(math.log10(float(value)))
    assert any(abs(mantissa - round_value) < 1e-6 for round_value in (1, 2, 5)), bar


def test_the_bar_measures_the_slide_at_every_zoom(browser, slides, request):
    with page_session(browser, slides.base, request.node) as session:
        session.open('#image=slide')
        fit = scale_bar(session)
        assert fit and not fit['hidden'], fit
        expect_true_length(fit)
        seen = {fit['text']}
        for factor in (3, 9, 27):
            session.page.evaluate(f'window.tilescope.viewer.setZoomScale(window.tilescope.viewer.minimumZoomScale * {factor})')
            session.wait_idle()
            bar = scale_bar(session)
            assert not bar['hidden'], bar
            expect_true_length(bar)
            seen.add(bar['text'])
        # Zooming in 27 times needs shorter lengths: the bar followed.
        assert len(seen) >= 3, seen


def test_no_bar_for_an_image_that_does_not_say(browser, slides, request):
    with page_session(browser, slides.base, request.node) as session:
        session.open('#image=plain')
        bar = scale_bar(session)
        assert bar is None or bar['hidden'], bar
