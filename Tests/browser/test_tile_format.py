"""The client asks for tiles in the smallest format the browser shows (Public/js/tiles/TileFormat.js):
AVIF, then WebP, then JPEG. Debian's Chromium shows all three, so here every tile is asked for in AVIF; an
AVIF tile not made yet is answered with the JPEG tile's bytes and made behind the reply, and the client
draws either. The choice itself is checked for every combination of support, and the URLs for a format
against those the server's image record gives for it."""
import time
import urllib.request

import pytest

from conftest import IMAGES, OUTPUT, Server, http, page_session
from testimages import make_image

MODULE = "import('/js/tiles/TileFormat.js')"


def test_the_choice_is_avif_then_webp_then_jpeg(session):
    session.open()
    choices = session.page.evaluate(f"""{MODULE}.then(m => [
        m.chooseTileFormat(f => true), m.chooseTileFormat(f => f === 'webp'),
        m.chooseTileFormat(f => f === 'avif'), m.chooseTileFormat(f => false)])""")
    assert choices == ['avif', 'webp', 'avif', 'jpeg']


def test_the_client_takes_each_formats_urls_from_the_server(session, server):
    """The client spells no format into a URL: for the format it picks, it takes the tiles template and the
    preview the server's image record gives (`urls.formats`, built from the server's one table of URL shapes),
    and the next format it shows when the server makes none of one (no AV1 encoder: no `avif`)."""
    session.open()
    status, record = http('GET', f"{server.base}/api/images/{server.images[0]['id']}")
    assert status == 200, record
    offered = record['urls']['formats']
    assert {'jpeg', 'webp'} <= set(offered) <= {'jpeg', 'webp', 'avif'}, offered
    rest = {k: v for k, v in record['urls'].items() if k not in ('tiles', 'preview', 'formats')}
    for fmt, links in offered.items():
        got = session.page.evaluate(f"([image, f]) => {MODULE}.then(m => m.withTileFormat(image, f))", [record, fmt])
        # With the levels between Deep Zoom's where the server makes them in that format (JPEG and AVIF).
        between = {'between': links['between']} if 'between' in links else {}
        assert ('between' in links) == (fmt in ('jpeg', 'avif')), links
        assert got['urls'] == {**rest, 'tiles': links['tiles'], 'preview': links['preview'], **between}, fmt
        assert {k: v for k, v in got.items() if k != 'urls'} == {k: v for k, v in record.items() if k != 'urls'}
        # And the server answers them: a tile of the coarsest level and the preview, each in that format
        # (or the JPEG's bytes standing in for a tile not made yet: docs/api.md#tile-formats).
        tile = links['tiles'].replace('{level}', '0').replace('{col}', '0').replace('{row}', '0')
        for url in (tile, links['preview']):
            with urllib.request.urlopen(server.base + url, timeout=30) as r:
                assert r.status == 200 and r.headers['content-type'] in (f'image/{fmt}', 'image/jpeg'), (url, r.headers)
    # A list, best first, as tileFormats() gives it: the first the server makes.
    without_avif = {**record, 'urls': {**record['urls'], 'formats': {k: v for k, v in offered.items() if k != 'avif'}}}
    got = session.page.evaluate(f"image => {MODULE}.then(m => m.withTileFormat(image, ['avif', 'webp', 'jpeg']))", without_avif)
    assert got['urls']['tiles'] == offered['webp']['tiles'] and got['urls']['preview'] == offered['webp']['preview']
    # A format the server does not make, alone: the record's own (JPEG) URLs.
    got = session.page.evaluate(f"image => {MODULE}.then(m => m.withTileFormat(image, 'avif'))", without_avif)
    assert got['urls'] == {**rest, 'tiles': record['urls']['tiles'], 'preview': record['urls']['preview']}
    # The record passed in is left as it was; one without `urls.formats` (a foreign pyramid) is returned as it is.
    foreign = {'id': 'b', 'urls': {'tiles': '/x/{level}/{col}_{row}.jpeg', 'preview': '/x/8/0_0.jpeg'}}
    same, untouched = session.page.evaluate(f"""([image, record]) => {MODULE}.then(m => {{
        const copy = structuredClone(record);
        m.withTileFormat(copy, ['avif', 'webp']);
        return [m.withTileFormat(image, 'avif') === image, JSON.stringify(copy) === JSON.stringify(record)];
    }})""", [foreign, record])
    assert same and untouched


def pending_encodings(server):
    """AVIF tiles the server is still making behind a JPEG answer (its /metrics)."""
    with urllib.request.urlopen(server.base + '/metrics', timeout=10) as r:
        for line in r.read().decode().splitlines():
            if line.startswith('tilescope_format_tiles_pending '):
                return float(line.split()[-1])
    raise AssertionError('no tilescope_format_tiles_pending in /metrics')


@pytest.fixture(scope='module')
def own_server(tmp_path_factory):
    """A server of one image for this test alone. The suite's shared server is still making the AVIF tiles
    the tests before asked for (the deepest level's from the source, a debug build's 0.4 s a tile), so
    waiting on its queue would measure the whole suite's tiles, not this test's."""
    folder = tmp_path_factory.mktemp('format-images')
    name, width, height, seed, _, _ = IMAGES[0]
    make_image(folder / name, width, height, seed)
    data = tmp_path_factory.mktemp('format-data')
    srv = Server(folder, data, OUTPUT / 'format-server.log')
    try:
        srv.images = srv.wait_ready(1)
        yield srv
    finally:
        srv.stop()


def test_chromium_gets_and_draws_avif_tiles_with_the_jpeg_as_jpeg_xl_meanwhile(browser, own_server, request):
    server = own_server
    expected = 'avif'  # Chromium shows all three; AVIF comes first (TileFormat.js says why)
    # Zoomed in to the deepest level (the level above, the fit level, is made by the build: FitLevelAVIF.swift),
    # where the AVIF tiles are made from the source's own pixels.
    fragment = f"#image={server.images[0]['id']}&zoomScale=0.6&offsetX=100&offsetY=100"
    visits = []
    for visit in ('cold', 'warm'):
        # Cold: after what the build queued (the fit level). Warm: the first visit's tiles were made behind its
        # replies, so a later visit gets them.
        deadline = time.monotonic() + 120
        while pending_encodings(server) > 0:
            assert time.monotonic() < deadline, 'AVIF tiles still being made after 120 s'
            time.sleep(0.1)
        with page_session(browser, server.base, request.node) as session:
            tiles = []
            session.page.on('response', lambda r: ('/dzi/' in r.url and '_files/' in r.url or '/between/' in r.url)
                            and tiles.append((r.url, r.status, r.headers.get('content-type'), r.headers.get('server-timing', ''))))
            session.open(fragment)
            assert session.page.evaluate(f"{MODULE}.then(m => m.tileFormat())") == expected
            # Chromium 156 decodes JPEG XL: the loader names it, so the server's JPEG answers come as JPEG XL.
            assert session.page.evaluate(f"{MODULE}.then(m => m.tileAccept())").startswith('image/jxl,')
            drawn = session.page.evaluate("""() => [...document.querySelectorAll('.page.current .tile.loaded')]
                .map(t => [t.dataset.url, t.width])""")
            visits.append((tiles, drawn))
        assert drawn, f'{visit}: no tile drawn'
        for src, width in drawn:
            assert src.split('?')[0].endswith('.' + expected), src
            assert width > 0, f'{src} was not decoded'
        assert tiles
        for url, status, content_type, _ in tiles:
            assert url.split('?')[0].endswith('.' + expected), url
            # A tile not made yet, one whose AVIF came out no smaller, and every tile of the deepest level
            # are the JPEG's bytes, recompressed as JPEG XL where that is smaller (DeepZoomFormatTiles,
            # InterimFormatTiles, JPEGXLAnswers).
            assert status == 200 and content_type in (f'image/{expected}', 'image/jxl', 'image/jpeg'), (url, status, content_type)
    cold_tiles, _ = visits[0]
    assert any(content_type == 'image/jxl' for _, _, content_type, timing in cold_tiles if 'interim' in timing), \
        'no stand-in came as JPEG XL'
    warm_tiles, warm_drawn = visits[1]
    assert not [url for url, _, _, timing in warm_tiles if 'interim' in timing], 'the warm visit still got stand-ins'
    assert any(content_type == f'image/{expected}' for _, _, content_type, _ in warm_tiles), 'no tile in the smaller format'
    # Every tile drawn is no larger than the same tile in JPEG.
    for src, _ in warm_drawn:
        with urllib.request.urlopen(server.base + src, timeout=10) as r:
            modern = len(r.read())
        with urllib.request.urlopen(server.base + src.replace('.' + expected + '?', '.jpeg?'), timeout=10) as r:
            jpeg = len(r.read())
        assert modern <= jpeg, f'{src}: {modern} bytes, the JPEG tile {jpeg}'


def test_the_gallery_draws_the_avif_preview(browser, server, request):
    """Where the preview suffices (b-tall at fit, DPR 1: tests/test_tiles.py), a browser that shows AVIF asks for
    preview.avif, made by the build from the finer level (or, where no AVIF reached the JPEG's picture in fewer
    bytes, the JPEG re-encoded losslessly), and draws it as the whole preview level."""
    image = next(i for i in server.images if i['id'] == 'b-tall')
    with page_session(browser, server.base, request.node) as session:
        previews = []
        session.page.on('response', lambda r: '/preview.' in r.url and previews.append(
            (r.url, r.status, r.headers.get('content-type'))))
        session.open('#image=b-tall')
        drawn = session.page.evaluate("""() => [...document.querySelectorAll('.page.current .tile.loaded.preview')]
            .map(t => [t.dataset.url, t.width, t.height])""")
    assert len(previews) == 1, previews
    url, status, content_type = previews[0]
    assert url.split('?')[0].endswith('/images/b-tall/preview.avif') and f"v={image['version']}" in url, url
    assert status == 200 and content_type in ('image/avif', 'image/jxl', 'image/jpeg'), previews
    assert len(drawn) == 1 and drawn[0][0].split('?')[0].endswith('/preview.avif'), drawn
    assert drawn[0][1:] == [300, 650], drawn
