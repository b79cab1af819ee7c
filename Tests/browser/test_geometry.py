"""The client's geometry agrees with the written rules (random cases, in the browser's own module) and, where
the server has it, with GET /api/images/{id}/viewport exactly."""
import json
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
        insets = req.get('insets', [0] * 4)
        if req['width'] - sum(insets[1::2]) <= 0 or req['height'] - sum(insets[0::2]) <= 0:
            continue  # insets that leave no available area: the API refuses them (400)
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


def test_base_level_is_the_largest_level_in_one_tile(session):
    """Pyramid.baseLevel (the tile under every view from the first frame) against rule 6's level sizes."""
    session.open()
    rng = random.Random(11)
    cases = [(rng.choice([1, 253, 254, 255, 508, 509, rng.randint(1, 100000)]),
              rng.choice([1, 254, 255, rng.randint(1, 100000)]), rng.choice([254, 256, 510, 1024]))
             for _ in range(300)]
    got = session.page.evaluate("""async (cases) => {
        const { Pyramid } = await import('/js/geometry/Pyramid.js');
        return cases.map(([w, h, t]) => new Pyramid(w, h, t, 1).baseLevel);
    }""", cases)
    for (w, h, tile), level in zip(cases, got):
        assert level == geometry.preview_level(w, h, tile), (w, h, tile)
        width, height = geometry.level_size(w, h, level)
        assert width <= tile and height <= tile, (w, h, tile, level)
        if level < geometry.max_level(w, h):
            finer = geometry.level_size(w, h, level + 1)
            assert finer[0] > tile or finer[1] > tile, (w, h, tile, level)


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
            client = session.page.evaluate('window.tilescope.deepZoomViewport()')
            req = session.page.evaluate('window.tilescope.request()')
            query = urllib.parse.urlencode({k: req[k] for k in ('width', 'height', 'scale', 'zoomScale', 'offsetX', 'offsetY')})
            if req.get('insets'):  # the bars' contentInset (top, left, bottom, right)
                query += '&insets=' + ','.join(repr(req['insets'][k]) for k in ('top', 'left', 'bottom', 'right'))
            status, api = http('GET', f"{server.base}/api/images/{image['id']}/viewport?{query}")
            assert status == 200, api
            api = with_frames(api)
            compare(client, api, f"{image['id']} {view}")
            assert [(t['column'], t['row']) for t in client['tiles']] == [(t['column'], t['row']) for t in api['tiles']]
            # The API spells every tile's URL with one template (its tiles carry none; with tileURLs=1 each
            # carries that template filled in). It names the stored JPEG tiles, the image record's `urls.tiles`.
            assert all('url' not in t for t in api['tiles'])
            spelt = [fill(api['tileURL'], t) for t in api['tiles']]
            status, listed = http('GET', f"{server.base}/api/images/{image['id']}/viewport?{query}&tileURLs=1")
            assert status == 200, listed
            assert 'tileURL' not in listed and [t['url'] for t in listed['tiles']] == spelt
            status, record = http('GET', f"{server.base}/api/images/{image['id']}")
            assert status == 200 and record['urls']['tiles'] == api['tileURL'], record
            assert record['urls']['preview'] == api['preview']['url'], record
            # The client asks for the first format its browser shows that the server makes (TileFormat.js), at
            # the URLs the record's `urls.formats` gives for it: the server's, never rewritten by the client.
            formats = session.page.evaluate("import('/js/tiles/TileFormat.js').then(m => m.tileFormats())")
            fmt = next(f for f in formats if f in record['urls']['formats'])
            offered = record['urls']['formats'][fmt]
            urls = {(t['level'], t['column'], t['row']): fill(offered['tiles'], t) for t in api['tiles']}
            for t in client['tiles']:
                assert t['url'] == urls[(t['level'], t['column'], t['row'])]
            assert client['preview']['url'] == offered['preview']


def with_frames(answer):
    """The answer with every tile an object carrying its frame, looked up as a client of the default answer
    does: its tiles are `[level, column, row]` and `frames` holds each level's columns (`x`, `width`) and rows
    (`y`, `height`) once. An answer without `frames` (the client's own, `tileFrames=1`) is returned as it is."""
    if 'frames' not in answer:
        return answer
    grid = {f['level']: ({c['column']: c for c in f['columns']}, {r['row']: r for r in f['rows']})
            for f in answer['frames']}
    assert len(grid) == len(answer['frames']), 'a level listed twice in frames'

    def objects(listed):
        tiles = []
        for level, column, row in listed:
            c, r = grid[level][0][column], grid[level][1][row]
            tiles.append({'level': level, 'column': column, 'row': row,
                          'frame': {'x': c['x'], 'y': r['y'], 'width': c['width'], 'height': r['height']}})
        return tiles

    expanded = {k: v for k, v in answer.items() if k != 'frames'}
    for key in ('tiles', 'prefetch'):
        if key in answer:
            expanded[key] = objects(answer[key])
    return expanded


def fill(template, tile):
    """The viewport answer's tileURL with one tile's level, column and row."""
    return (template.replace('{level}', str(tile['level'])).replace('{col}', str(tile['column']))
            .replace('{row}', str(tile['row'])))


# Images whose sizes the geometry finds awkward: 1 x 1, sides just past a tile or a power of two, and
# long sides of 70,001 and 100,001 pixels (17 levels) that cost little to build because the other side is thin.
ODD_IMAGES = [(1, 1), (2, 3), (255, 254), (509, 1025), (1025, 7), (4097, 2049), (100001, 3), (2, 70001)]


@pytest.fixture(scope='module')
def odd_server(tmp_path_factory):
    from PIL import Image
    from conftest import OUTPUT, Server
    folder = tmp_path_factory.mktemp('odd-images')
    for w, h in ODD_IMAGES:
        Image.new('RGB', (w, h), (w % 256, h % 256, 90)).save(folder / f'odd-{w}x{h}.png')
    OUTPUT.mkdir(parents=True, exist_ok=True)
    srv = Server(folder, tmp_path_factory.mktemp('odd-data'), OUTPUT / 'odd-server.log')
    try:
        srv.images = srv.wait_ready(len(ODD_IMAGES))
        yield srv
    finally:
        srv.stop()


def exact_cases(seed, images, count):
    """Random viewport requests (JSON bodies) that use every field the API reads, valid by its rules."""
    rng = random.Random(seed)
    log_uniform = lambda lo, hi: 10 ** rng.uniform(lo, hi)
    cases = []
    while len(cases) < count:
        image = rng.choice(images)
        width = rng.choice([1280, 390, 800.5, rng.uniform(1, 2000), rng.uniform(0.001, 5), 16384])
        height = rng.choice([800, 844, 600.25, rng.uniform(1, 2000), rng.uniform(0.001, 5), 16384])
        if width * height > 4e6:  # a 16384-point side only with a thin other side: the tile lists stay short
            width, height = (width, rng.uniform(1, 200)) if width > height else (rng.uniform(1, 200), height)
        req = {'width': width, 'height': height}
        if rng.random() < 0.8:
            req['scale'] = rng.choice([1, 2, 3, 4, rng.uniform(1, 4)])
        if rng.random() < 0.5:
            # Some sides only, as an object: missing insets are 0. Together they leave an available area.
            share = rng.uniform(0, 0.98)
            top, bottom = [share * height * f for f in (rng.random(), 1)]
            bottom -= top
            share = rng.uniform(0, 0.98)
            left, right = [share * width * f for f in (rng.random(), 1)]
            right -= left
            insets = {'top': top, 'left': left, 'bottom': bottom, 'right': right}
            req['insets'] = {k: v for k, v in insets.items() if rng.random() < 0.8}
        if rng.random() < 0.8:
            req['zoomScale'] = rng.choice([log_uniform(-6, 2), 1, 0.5, 2, log_uniform(-300, 6)])
        for axis in ('offsetX', 'offsetY'):
            if rng.random() < 0.8:
                req[axis] = rng.choice([rng.uniform(-1000, 100000), 0, -1e9, 1e12, rng.uniform(-5, 5)])
        limits = rng.random()
        if limits < 0.15:
            req['maxZoomScale'] = log_uniform(-5, 1)  # alone: may pull the minimum down to it
        elif limits < 0.25:
            req['minZoomScale'] = log_uniform(-5, 1)
        elif limits < 0.35:
            lo, hi = sorted([log_uniform(-5, 2), log_uniform(-5, 2)])
            req['minZoomScale'], req['maxZoomScale'] = lo, hi
        elif limits < 0.37:
            req['minZoomScale'] = req['maxZoomScale'] = rng.choice([1e-300, 1e6, 1])
        zoom = rng.random()
        if zoom < 0.3:
            req['tap'] = {'x': rng.uniform(-10, image['width'] + 10), 'y': rng.uniform(-10, image['height'] + 10)}
            if rng.random() < 0.4:
                req['factor'] = rng.choice([1.5, 2, rng.uniform(0.1, 10)])
            if rng.random() < 0.7:
                req['tapDirection'] = rng.choice(['in', 'out', 'out'])
        elif zoom < 0.55:
            req['zoomRect'] = {'x': rng.uniform(-100, image['width']), 'y': rng.uniform(-100, image['height']),
                               'width': rng.choice([rng.uniform(0.01, image['width']), log_uniform(-3, 6)]),
                               'height': rng.choice([rng.uniform(0.01, image['height']), log_uniform(-3, 6)])}
        cases.append((image, req))
    return cases


def answer_fields(v):
    """Every number of a viewport answer that the client computes, in order, for exact comparison."""
    v = with_frames(v)
    tiles = [(t['level'], t['column'], t['row'], t['frame']['x'], t['frame']['y'], t['frame']['width'],
              t['frame']['height']) for t in v['tiles']]
    return {
        'zoomScale': v['zoomScale'], 'minimumZoomScale': v['minimumZoomScale'],
        'maximumZoomScale': v['maximumZoomScale'], 'contentSize': v['contentSize'],
        'contentOffset': v['contentOffset'], 'visibleRect': v['visibleRect'], 'resolution': v['resolution'],
        'threshold': v['threshold'], 'level': v['level'],
        'preview': (v['preview']['width'], v['preview']['height']), 'tiles': tiles,
    }


def test_client_equals_the_viewport_api_exactly(session, odd_server):
    """Public/js/geometry against POST /api/images/{id}/viewport on 2,000 seeded random requests that use every
    field (insets, zoom limits, taps in and out, zoomRect, scale), on tiny, odd and 17-level images: every number
    equal to the last bit, every tile in the same order."""
    import http.client
    images = [{'id': i['id'], 'width': i['width'], 'height': i['height']} for i in odd_server.images]
    assert sorted((i['width'], i['height']) for i in images) == sorted(ODD_IMAGES)
    cases = exact_cases(15, images, 2000)
    connection = http.client.HTTPConnection('127.0.0.1', odd_server.port, timeout=10)
    expected = []
    for image, req in cases:
        connection.request('POST', f"/api/images/{image['id']}/viewport", body=json.dumps(req),
                           headers={'Content-Type': 'application/json'})
        response = connection.getresponse()
        body = response.read()
        assert response.status == 200, (req, body[:300])
        expected.append(answer_fields(json.loads(body)))
    connection.close()

    session.open()
    got = session.page.evaluate("""async (cases) => {
        const { Pyramid } = await import('/js/geometry/Pyramid.js');
        const V = await import('/js/geometry/Viewport.js');
        return cases.map(([img, req]) => V.computeViewport(new Pyramid(img.width, img.height), req));
    }""", cases)
    mismatches = []
    for (image, req), client, server in zip(cases, got, expected):
        client = answer_fields(client)
        for key in server:
            if client[key] != server[key]:
                mismatches.append(f"{image['width']}x{image['height']} {json.dumps(req)}: {key} "
                                  f"client {str(client[key])[:200]} server {str(server[key])[:200]}")
                break
    assert not mismatches, f'{len(mismatches)} of {len(cases)} differ, e.g.:\n' + '\n'.join(mismatches[:8])
    kinds = {'tap out': sum(r.get('tapDirection') == 'out' for _, r in cases),
             'zoomRect': sum('zoomRect' in r for _, r in cases), 'insets': sum('insets' in r for _, r in cases),
             'maxZoomScale alone': sum('maxZoomScale' in r and 'minZoomScale' not in r for _, r in cases),
             'high': sum(e['resolution'] == 'high' for e in expected)}
    assert all(n >= 100 for n in kinds.values()), kinds  # the seed really exercises every field
