"""The client behind an HTTP/2 front (nginx with TLS on loopback, http2_front.py), as a deployment behind any TLS
front or CDN serves it: tiles come over one multiplexed connection, and the loader keeps more of them on their way at
once than over HTTP/1.1's six connections (TileLoader.js, `downloadsAtOnce`)."""
import pytest

from conftest import VIEW, free_port
from http2_front import Front
from test_tiles import downloads_at_once


@pytest.fixture(scope='module')
def front(server):
    f = Front(server.port, free_port())
    yield f
    f.stop()


def test_over_http2_the_loader_keeps_sixteen_tiles_on_their_way(browser, front):
    """The first tile arrives over h2 (its Resource Timing entry says so), and a later loader of the page has sixteen
    tiles on their way before any of them is in."""
    context = browser.new_context(viewport=VIEW, ignore_https_errors=True)
    try:
        page = context.new_page()
        errors = []
        page.on('pageerror', lambda e: errors.append(str(e)))
        page.goto(front.base + '/api/images')  # any page of the server behind the front: same origin
        result = downloads_at_once(page)
    finally:
        context.close()
    assert not errors, errors
    assert result == {'protocol': 'h2', 'first': 16, 'second': 16, 'started': 16, 'arrived': 0}, result
