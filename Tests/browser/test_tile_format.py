"""The client asks for tiles in the smallest format the browser shows (Public/js/tiles/TileFormat.js):
AVIF, then WebP, then JPEG. Debian's Chromium shows all three, so here every tile is AVIF where the
server offers it (libvips with an AV1 encoder), else WebP; the choice itself is checked for every
combination of support, and the URL rewrite for what it must and must not touch."""
import urllib.request

from conftest import http

MODULE = "import('/js/tiles/TileFormat.js')"


def test_the_choice_is_webp_then_avif_then_jpeg(session):
    session.open()
    choices = session.page.evaluate(f"""{MODULE}.then(m => [
        m.chooseTileFormat(f => true), m.chooseTileFormat(f => f === 'webp'),
        m.chooseTileFormat(f => f === 'avif'), m.chooseTileFormat(f => false)])""")
    assert choices == ['webp', 'webp', 'avif', 'jpeg']


def test_only_the_tile_template_changes(session):
    session.open()
    image = {'id': 'a', 'urls': {'tiles': '/dzi/a_files/{level}/{col}_{row}.jpeg?v=3', 'preview': '/images/a/preview.jpeg?v=3',
                                 'dzi': '/dzi/a.dzi?v=3'}}
    out = session.page.evaluate(f"image => {MODULE}.then(m => [m.withTileFormat(image, 'webp'), m.withTileFormat(image, 'jpeg'), image])", image)
    webp, jpeg, original = out
    assert webp['urls']['tiles'] == '/dzi/a_files/{level}/{col}_{row}.webp?v=3'
    assert webp['urls']['preview'] == image['urls']['preview'] and webp['urls']['dzi'] == image['urls']['dzi']
    assert jpeg == image and original == image  # the record passed in is left as it was


def test_chromium_gets_and_draws_webp_tiles(session, server):
    expected = 'webp'  # Chromium shows both; WebP comes first (TileFormat.js says why)
    tiles = []
    session.page.on('response', lambda r: '/dzi/' in r.url and '_files/' in r.url
                    and tiles.append((r.url, r.status, r.headers.get('content-type'))))
    # Zoomed in, but drawn from a level below the deepest, where AVIF tiles are not the JPEG ones.
    session.open(f"#image={server.images[0]['id']}&zoomScale=0.3&offsetX=100&offsetY=100")
    assert session.page.evaluate(f"{MODULE}.then(m => m.tileFormat())") == expected
    drawn = session.page.evaluate("""() => [...document.querySelectorAll('.page.current .tile.loaded')]
        .map(t => [t.dataset.url, t.width])""")
    assert drawn, 'no tile drawn'
    for src, width in drawn:
        assert src.split('?')[0].endswith('.' + expected), src
        assert width > 0, f'{src} was not decoded'
    assert tiles
    for url, status, content_type in tiles:
        assert url.split('?')[0].endswith('.' + expected), url
        # A tile whose encoding came out no smaller than its JPEG, and every AVIF tile of the deepest level,
        # is the JPEG itself (DeepZoomFormatTiles).
        assert status == 200 and content_type in (f'image/{expected}', 'image/jpeg'), (url, status, content_type)
    assert any(content_type == f'image/{expected}' for _, _, content_type in tiles), 'no tile in the smaller format'
    # Every tile drawn is no larger than the same tile in JPEG.
    for src, _ in drawn:
        with urllib.request.urlopen(server.base + src, timeout=10) as r:
            modern = len(r.read())
        with urllib.request.urlopen(server.base + src.replace('.' + expected + '?', '.jpeg?'), timeout=10) as r:
            jpeg = len(r.read())
        assert modern <= jpeg, f'{src}: {modern} bytes, the JPEG tile {jpeg}'
