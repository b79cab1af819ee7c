"""The client's geometry agrees with the written rules (random cases, in the browser's own module) and, where
the server has it, with GET /api/images/{id}/viewport exactly."""
import random
import urllib.parse

import pytest

import geometry
from conftest import VIEW, http


def close(a, b, what, rel=1e-9, abs_=1e-7):
    if a is None or b is None or isinstance(a, str):
        assert a == b, what
    else:
        assert a == pytest.approx(b, rel=rel, abs=abs_), what


def compare(client, expected, what):
    for key in ('zoomScale', 'minimumZoomScale', 'maximumZoomScale', 'threshold', 'resolution', 'level'):
        close(client[key], expected[key], f'{what}: {key}')
    for key, fields in (('contentSize', ('width', 'height')), ('contentOffset', ('x', 'y')),
                        ('visibleRect', ('x', 'y', 'width', 'height'))):
        for f in fields:
            close(client[key][f], expected[key][f], f'{what}: {key}.{f}')
    got = {(t['level'], t['column'], t['row']): t['frame'] for t in client['tiles']}
    want = {(t['level'], t['column'], t['row']): t['frame'] for t in expected['tiles']}
    assert set(got) == set(want), f'{what}: tiles {sorted(set(got) ^ set(want))} differ'
    for key, frame in want.items():
        for f in ('x', 'y', 'width', 'height'):
            close(got[key][f], frame[f], f'{what}: tile {key} frame.{f}')


def random_cases(seed, count):
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        w = rng.choice([1, 2, 3, 254, 255, 509, 1024, 1025, 2048, 3000, 4100, rng.randint(1, 70000)])
        h = rng.choice([1, 7, 254, 600, 1000, 2600, rng.randint(1, 70000)])
        req = {'width': rng.choice([320, 800, 1024.5, rng.uniform(1, 4000)]),
               'height': rng.choice([480, 600, rng.uniform(1, 3000)]),
               'scale': rng.choice([1, 2, 3, rng.uniform(1, 4)])}
        if rng.random() < 0.3:
            req['insets'] = [rng.uniform(0, 40) for _ in range(4)]
        if rng.random() < 0.8:
            req['zoomScale'] = rng.choice([2 ** rng.uniform(-12, 3), 0.25, 0.5, 1, 2])
        req['offsetX'] = rng.uniform(-500, 60000)
        req['offsetY'] = rng.uniform(-500, 60000)
        img = {'width': w, 'height': h, 'tileSize': 254, 'overlap': 1}
        if req['width'] - sum(req.get('insets', [0] * 4)[1::2]) <= 0:
            continue
        cases.append((img, req))
    return cases


def test_client_geometry_follows_the_rules(session):
    """The browser's own geometry module (Public/js/geometry) against this file's reading of rules 1-10."""
    session.open()
    cases = random_cases(4, 400)
    results = session.page.evaluate("""async (cases) => {
        const { Pyramid } = await import('/js/geometry/Pyramid.js');
        const V = await import('/js/geometry/Viewport.js');
        return cases.map(([img, req]) => {
            const insets = req.insets && { top: req.insets[0], left: req.insets[1], bottom: req.insets[2], right: req.insets[3] };
            const pyramid = new Pyramid(img.width, img.height, img.tileSize, img.overlap);
            return V.computeViewport(pyramid, { ...req, insets });
        });
    }""", cases)
    for (img, req), client in zip(cases, results):
        compare(client, geometry.viewport(img, req), f'{img["width"]}x{img["height"]} {req}')
        order = [(t['level'], t['column'], t['row']) for t in client['tiles']]
        expected = [(t['level'], t['column'], t['row']) for t in geometry.viewport(img, req)['tiles']]
        assert order == expected, 'nearest the viewport centre first, then by row and column'


def test_zoom_to_rect_and_tap_follow_the_rules(session):
    session.open()
    rng = random.Random(7)
    cases = []
    for _ in range(200):
        img = {'width': rng.randint(1, 30000), 'height': rng.randint(1, 30000), 'tileSize': 254, 'overlap': 1}
        req = {'width': 800, 'height': 600, 'scale': rng.choice([1, 2]), 'zoomScale': 2 ** rng.uniform(-8, 1),
               'offsetX': rng.uniform(0, 5000), 'offsetY': rng.uniform(0, 5000)}
        rect = [rng.uniform(-100, img['width']), rng.uniform(-100, img['height']),
                rng.uniform(1, img['width']), rng.uniform(1, img['height'])]
        point = [rng.uniform(0, img['width']), rng.uniform(0, img['height'])]
        cases.append((img, req, rect, point, rng.choice([1.5, 1 / 1.5, 0.6667, 3])))
    results = session.page.evaluate("""async (cases) => {
        const { Pyramid } = await import('/js/geometry/Pyramid.js');
        const V = await import('/js/geometry/Viewport.js');
        return cases.map(([img, req, r, p, f]) => {
            const pyramid = new Pyramid(img.width, img.height);
            return [V.zoomToRect(pyramid, req, { x: r[0], y: r[1], width: r[2], height: r[3] }),
                    V.tapZoom(pyramid, req, { x: p[0], y: p[1] }, f)];
        });
    }""", cases)
    for (img, req, rect, point, factor), (zr, tp) in zip(cases, results):
        for got, want, what in ((zr, geometry.zoom_to_rect(img, req, rect), 'zoomToRect'),
                                (tp, geometry.tap(img, req, point, factor), 'tap')):
            close(got['zoomScale'], want[0], what)
            close(got['offsetX'], want[1], what, abs_=1e-6)
            close(got['offsetY'], want[2], what, abs_=1e-6)


def test_client_agrees_with_the_viewport_api(session, server):
    """The page's own numbers for its current view against GET /api/images/{id}/viewport (issue 3)."""
    image_id = server.images[0]['id']
    status, body = http('GET', f'{server.base}/api/images/{image_id}/viewport?width=800&height=600')
    assert status == 200, body  # a missing route fails here: it is never a reason to skip
    views = ['', '&zoomScale=0.26&offsetX=0&offsetY=0', '&zoomScale=0.9&offsetX=777.5&offsetY=333.25',
             '&zoomScale=2&offsetX=1e9&offsetY=1e9', '&zoomScale=0.5&offsetX=10&offsetY=20']
    for image in server.images:
        for view in views:
            session.open(f"#image={image['id']}{view}")
            client = session.page.evaluate('window.tilescope.viewport()')
            req = session.page.evaluate('window.tilescope.request()')
            query = urllib.parse.urlencode({k: req[k] for k in ('width', 'height', 'scale', 'zoomScale', 'offsetX', 'offsetY')})
            status, api = http('GET', f"{server.base}/api/images/{image['id']}/viewport?{query}")
            assert status == 200, api
            compare(client, api, f"{image['id']} {view}")
            assert [(t['column'], t['row']) for t in client['tiles']] == [(t['column'], t['row']) for t in api['tiles']]
            # The API names the stored JPEG tiles; the client asks for its browser's format (TileFormat.js).
            fmt = session.page.evaluate("import('/js/tiles/TileFormat.js').then(m => m.tileFormat())")
            urls = {(t['level'], t['column'], t['row']): t['url'].replace('.jpeg?', f'.{fmt}?') for t in api['tiles']}
            for t in client['tiles']:
                assert t['url'] == urls[(t['level'], t['column'], t['row'])]
            assert client['preview']['url'] == api['preview']['url']
