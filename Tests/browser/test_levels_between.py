"""The levels between Deep Zoom's in the client (Public/js/geometry/LevelsBetween.js; docs/api.md#levels-between-deep-zooms):
its sizes and tiles are the server's, rule 8 picks the coarsest of them at least as sharp as the screen, and a view
between two octaves is drawn complete from a level between, in fewer tiles than Deep Zoom's level would take."""
import math
import re

from conftest import page_session

BETWEEN = re.compile(r'/images/([^/]+)/between/(\d+)/([12])/(\d+)_(\d+)\.(jpeg|avif)')
DEEP_ZOOM = re.compile(r'_files/(\d+)/(\d+)_(\d+)\.(?:jpeg|webp|avif)')
FRACTIONS = {1: (5, 8), 2: (4, 5)}


def max_level(w, h):
    side = max(w, h)
    return 0 if side <= 1 else (side - 1).bit_length()


def level_size(w, h, level):
    """Level `level` in thirds (3L: Deep Zoom's L; 3L + 1 and 3L + 2: 5/8 and 4/5 of L + 1), as the server cuts it."""
    below, step = divmod(level, 3)
    if step == 0:
        d = 2 ** (max_level(w, h) - below)
        return -(-w // d), -(-h // d)
    fw, fh = level_size(w, h, 3 * (below + 1))
    n, d = FRACTIONS[step]
    return -(-fw * n // d), -(-fh * n // d)


def level_scale(w, h, level):
    below, step = divmod(level, 3)
    if step == 0:
        return 2.0 ** (below - max_level(w, h))
    n, d = FRACTIONS[step]
    return 2.0 ** (below + 1 - max_level(w, h)) * n / d


GEOMETRY = """async ([w, h, densities]) => {
    const { LevelsBetween } = await import('/js/geometry/LevelsBetween.js');
    const p = new LevelsBetween(w, h);
    const levels = [];
    for (let level = 0; level <= p.maxLevel; level++) {
        const grid = p.tileGrid(level);
        levels.push({ level, size: p.sizeOfLevel(level), scale: p.scaleOfLevel(level), grid,
                      last: p.tileRect(level, grid.columns - 1, grid.rows - 1) });
    }
    return { maxLevel: p.maxLevel, preview: p.previewLevel(), base: p.baseLevel, levels,
             chosen: densities.map((d) => p.levelForDensity(d)) };
}"""


def test_sizes_scales_and_the_level_chosen_are_the_rule(browser, server, request):
    sizes = [(3000, 2000), (1200, 2600), (4100, 1300), (16384, 16384), (255, 254), (100001, 3)]
    with page_session(browser, server.base, request.node) as session:
        session.allowed_failures = re.compile(r'/favicon\.ico$')  # a JSON page makes Chromium ask for one
        session.page.goto(server.base + '/api/images')
        for w, h in sizes:
            densities = [2.0 ** (-k / 7) for k in range(0, 7 * max_level(w, h) + 1)] + [1.5, 3.0]
            got = session.page.evaluate(GEOMETRY, [w, h, densities])
            assert got['maxLevel'] == 3 * max_level(w, h)
            for entry in got['levels']:
                level = entry['level']
                assert (entry['size']['width'], entry['size']['height']) == level_size(w, h, level), (w, h, level)
                assert math.isclose(entry['scale'], level_scale(w, h, level), rel_tol=1e-12), (w, h, level)
            assert got['preview'] % 3 == 0 and got['base'] % 3 == 0, 'the preview and the base are Deep Zoom levels'
            for density, level in zip(densities, got['chosen']):
                top = 3 * max_level(w, h)
                # The coarsest level at least as sharp: its scale reaches the density, the one below it does not.
                assert level == top or level_scale(w, h, level) >= density * (1 - 1e-9), (w, h, density, level)
                assert level == 0 or level_scale(w, h, level - 1) < density * (1 - 1e-9) or level == top, \
                    (w, h, density, level)


def test_the_servers_tiles_have_the_clients_sizes(browser, server, request):
    """The last tile of every level between of one image, fetched and decoded in the page: the size the client
    places it at (overlap included) is the size the server made it."""
    with page_session(browser, server.base, request.node) as session:
        session.allowed_failures = re.compile(r'/favicon\.ico$')
        session.page.goto(server.base + '/api/images')
        found = session.page.evaluate("""async () => {
            const { LevelsBetween } = await import('/js/geometry/LevelsBetween.js');
            const { withTileFormat } = await import('/js/tiles/TileFormat.js');
            const image = withTileFormat(await (await fetch('/api/images/d-wide')).json(), 'jpeg');
            const p = new LevelsBetween(image.width, image.height, image.tileSize, image.overlap);
            const out = [];
            for (let level = 1; level < p.maxLevel; level++) {
                if (level % 3 === 0) continue;
                const grid = p.tileGrid(level);
                const [c, r] = [grid.columns - 1, grid.rows - 1];
                const url = p.tileURL(image.urls, level, c, r);
                const bitmap = await createImageBitmap(await (await fetch(url)).blob());
                out.push({ level, url, expected: p.tileRect(level, c, r), width: bitmap.width, height: bitmap.height });
            }
            return out;
        }""")
    assert len(found) == 2 * max_level(4100, 1300)
    for tile in found:
        assert BETWEEN.search(tile['url']), tile['url']
        assert (tile['width'], tile['height']) == (tile['expected']['width'], tile['expected']['height']), tile


def test_a_view_between_octaves_is_drawn_from_a_level_between(browser, server, request):
    """At a zoomScale that needs 0.7x a Deep Zoom level's scale, the gallery's viewer asks for the level at 4/5
    of it, draws its tiles until the view is complete, and asks for fewer tiles than Deep Zoom's level covers."""
    with page_session(browser, server.base, request.node) as session:
        page = session.page
        requested = []
        page.on('request', lambda r: (BETWEEN.search(r.url) or DEEP_ZOOM.search(r.url)) and requested.append(r.url))
        session.open('#image=a-land')
        requested.clear()
        result = page.evaluate("""async () => {
            const view = window.tilescope.gallery.scrollView;
            const V = await import('/js/geometry/Viewport.js');
            const { Pyramid } = await import('/js/geometry/Pyramid.js');
            const deepZoom = new Pyramid(view.image.width, view.image.height);
            const octave = deepZoom.maxLevel - 1;
            const zoomScale = 0.7 * deepZoom.scaleOfLevel(octave) / view.scale;
            view.setZoomScale(zoomScale);
            const request = view.request();
            const visible = V.visibleRect(deepZoom, request, view.zoomScale, view.offsetX, view.offsetY);
            const centre = { x: 0, y: 0 };
            return { level: view.layer.level, octave, scale: view.scale,
                     deepZoomTiles: V.tilesCovering(deepZoom, octave, visible, view.zoomScale, centre).length,
                     needed: view.layer.neededTiles.length };
        }""")
        session.wait_idle(60000)
        shown = page.evaluate("""() => [...window.tilescope.gallery.scrollView.layer.shown]
            .filter((t) => t.level === window.tilescope.gallery.scrollView.layer.level).map((t) => t.url)""")
    assert result['level'] == 3 * (result['octave'] - 1) + 2, result
    assert 0 < result['needed'] < result['deepZoomTiles'], result
    between = [u for u in requested if BETWEEN.search(u)]
    assert {(int(m.group(2)), int(m.group(3))) for m in map(BETWEEN.search, between)} == {(result['octave'] - 1, 2)}
    assert len(shown) == result['needed'] and all(BETWEEN.search(u) for u in shown), shown
    assert not [u for u in requested if DEEP_ZOOM.search(u) and int(DEEP_ZOOM.search(u).group(1)) >= result['octave']]
