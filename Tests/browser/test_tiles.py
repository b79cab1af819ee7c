"""The tile layer (Public/js/tiles) on its own, on the real server's tiles: what it fetches during a zoom
animation, that it cancels and never draws nothing, that it tells when the view is complete, and that its caches
stay bounded. The layer is driven directly, like ScrollView drives it, on a same-origin page without the gallery."""
import re

import pytest

from conftest import page_session

TILE = re.compile(r'_files/(\d+)/(\d+)_(\d+)\.(?:jpeg|webp|avif)')

# A driver in the page: window.t.show(zoomScale, offsetX, offsetY) lays the layer out as ScrollView.render does.
DRIVER = """async (id) => {
    const { Pyramid } = await import('/js/geometry/Pyramid.js');
    const V = await import('/js/geometry/Viewport.js');
    const { TileLayer } = await import('/js/tiles/TileLayer.js');
    // What the client's tileFormat() has found before any tile URL exists: the Accept its requests carry.
    await (await import('/js/tiles/TileFormat.js')).tileAccept();
    const image = await (await fetch(`/api/images/${id}`)).json();
    document.body.innerHTML = '';
    const element = document.createElement('div');
    element.style.cssText = 'position:absolute;left:0;top:0;width:800px;height:600px;overflow:hidden';
    document.body.append(element);
    const pyramid = new Pyramid(image.width, image.height, image.tileSize, image.overlap);
    const layer = new TileLayer(element, image, pyramid);
    const request = { width: 800, height: 600, scale: 1 };
    const t = window.t = { layer, pyramid, drawn: [], completions: 0, frames: [], V };
    layer.onTileDrawn = (tile) => t.drawn.push(tile.key);
    layer.onComplete = () => { t.completions++; };
    t.settle = (view) => V.settle(pyramid, { ...request, ...view });
    t.show = (view) => {
        const s = t.settle(view);
        const z = s.zoomScale;
        const visible = V.visibleRect(pyramid, request, z, s.offsetX, s.offsetY);
        const { level } = V.resolutionFor(pyramid, z, 1);
        const centre = { x: (s.offsetX + 400) / z, y: (s.offsetY + 300) / z };
        const tiles = level === null ? [] : V.tilesCovering(pyramid, level, visible, z, centre);
        layer.update({ ...s, level, tiles, viewWidth: 800, viewHeight: 600, scale: 1 });
        return s;
    };
    t.complete = () => new Promise((resolve) => {
        const check = () => layer.isComplete() ? resolve(true) : setTimeout(check, 20);
        check();
    });
    // An animation as ScrollView.animateTo runs it: geometric zoom, linear offsets, one layout per frame.
    t.animate = (to, frames, announce) => new Promise((resolve) => {
        const from = { zoomScale: layer.view.zoomScale, offsetX: layer.view.offsetX, offsetY: layer.view.offsetY };
        const end = t.settle(to);
        if (announce) layer.expect(end, frames * 16);
        let i = 0;
        const step = () => {
            i++;
            const k = i / frames;
            if (i >= frames) { t.show(end); resolve(end); return; }
            t.show({ zoomScale: from.zoomScale * Math.pow(end.zoomScale / from.zoomScale, k),
                     offsetX: from.offsetX + (end.offsetX - from.offsetX) * k,
                     offsetY: from.offsetY + (end.offsetY - from.offsetY) * k });
            // Never blank: from the first picture on, the base tile is on screen under everything.
            t.frames.push(layer.hasPicture ? [...layer.shown].some((tile) => tile.level === layer.baseLevel) : null);
            requestAnimationFrame(step);
        };
        requestAnimationFrame(step);
    });
    return { width: image.width, height: image.height, base: layer.baseLevel, preview: layer.previewLevel };
}"""


def open_layer(session, server, image_id):
    session.allowed_failures = re.compile(r'/favicon\.ico$')  # a JSON page makes Chromium ask for one
    session.page.goto(server.base + '/api/images')  # any page of the server: same origin, no gallery
    requested = []
    session.page.on('request', lambda r: TILE.search(r.url) and requested.append(r.url))
    info = session.page.evaluate(DRIVER, image_id)
    return info, requested


def levels(urls):
    return {int(TILE.search(u).group(1)) for u in urls}


def zoom_run(session, server, announce):
    """d-wide at fit, then a 20-frame zoom to 1.5 on its right end: the levels requested during the animation."""
    info, requested = open_layer(session, server, 'd-wide')
    session.page.evaluate('window.t.show({})')
    session.page.evaluate('window.t.complete()')
    before = len(requested)
    end = session.page.evaluate('(a) => window.t.animate({zoomScale: 1.5, offsetX: 4100 * 1.5, offsetY: 0}, 20, a)', announce)
    session.page.evaluate('window.t.complete()')
    session.page.wait_for_timeout(200)
    during = requested[before:]
    state = session.page.evaluate("""() => ({drawn: window.t.drawn, completions: window.t.completions,
        frames: window.t.frames, complete: window.t.layer.isComplete(), level: window.t.layer.level,
        pending: window.t.layer.loader.pendingKeys})""")
    return info, end, during, state


def test_zoom_animation_fetches_only_its_end_state(browser, server, request):
    with page_session(browser, server.base, request.node) as session:
        info, end, during, state = zoom_run(session, server, announce=True)
    end_level = state['level']
    assert levels(during) == {end_level}, f'requested levels {sorted(levels(during))}, the end needs {end_level}'
    never_drawn = {'/'.join(TILE.search(u).groups()) for u in during} - set(state['drawn'])
    assert not never_drawn, f'requested and never drawn: {sorted(never_drawn)}'
    assert state['complete'] and state['completions'] >= 2 and not state['pending']
    pictured = [f for f in state['frames'] if f is not None]
    assert pictured and all(pictured), 'a frame without the base tile under the image'


def test_without_the_end_state_intermediate_levels_are_fetched(browser, server, request):
    """The control of the test above: the same animation unannounced asks for the levels on the way, so the
    expectation is what saves them."""
    with page_session(browser, server.base, request.node) as session:
        _, _, during, state = zoom_run(session, server, announce=False)
    assert len(levels(during)) > 1, f'only {sorted(levels(during))}: the scenario no longer crosses levels'
    assert state['complete']


def test_jump_cancels_and_bytes_come_back_without_requests(browser, server, request):
    """A jump far away aborts what the old view still waited for; tiles whose decoded pixels were evicted come
    back from the kept JPEG bytes without a request; both caches stay within their byte bounds. The first view's
    requests are held in flight by an emulated latency until the jump: on loopback they could finish, or not yet
    have reached the network, in the moment between their start (in the page's idle time) and the jump."""
    with page_session(browser, server.base, request.node) as session:
        _, requested = open_layer(session, server, 'a-land')
        cdp = session.page.context.new_cdp_session(session.page)
        cdp.send('Network.enable')
        latency = lambda ms: cdp.send('Network.emulateNetworkConditions', {
            'offline': False, 'latency': ms, 'downloadThroughput': -1, 'uploadThroughput': -1})
        latency(2000)
        requested.clear()
        pending_a = session.page.evaluate("""() => {
            const t = window.t, layer = t.layer;
            t.show({zoomScale: 2, offsetX: 0, offsetY: 0});
            return layer.loader.pendingKeys.filter((k) => !k.startsWith(`${layer.baseLevel}/`));
        }""")
        assert pending_a, 'the first view waits for tiles'
        # Requests start in the page's idle time: until one of the first view's is on the network.
        base_level = session.page.evaluate('window.t.layer.baseLevel')
        for _ in range(500):
            if any(int(TILE.search(u).group(1)) != base_level for u in requested):
                break
            session.page.wait_for_timeout(10)
        result = session.page.evaluate("""(pendingA) => {
            const t = window.t, layer = t.layer;
            const startedA = layer.loader.startedTiles.length;
            t.show({zoomScale: 2, offsetX: 4000, offsetY: 3000});
            return { startedA, stillPendingA: layer.loader.pendingKeys.filter((k) => pendingA.includes(k)).length };
        }""", pending_a)
        latency(0)
        result.update(session.page.evaluate("""async () => {
            const t = window.t, layer = t.layer;
            await t.complete();
            t.show({zoomScale: 2, offsetX: 2000, offsetY: 1000});
            await t.complete();
            const requests = layer.loader.requests;
            layer.cache.maxBytes = 1;  // evict every decoded tile not on screen
            t.show({zoomScale: 2, offsetX: 4000, offsetY: 3000});
            const evicted = layer.cache.size;
            await t.complete();
            return { requestsBefore: requests, requestsAfter: layer.loader.requests, evicted,
                     blobBytes: layer.loader.blobs.bytes, blobMax: layer.loader.blobs.maxBytes };
        }"""))
        assert result['startedA'] > 0 and result['stillPendingA'] == 0, result
        assert result['requestsAfter'] == result['requestsBefore'], f'tiles fetched again: {result}'
        assert 0 < result['blobBytes'] <= result['blobMax'], result
        assert session.cancelled, 'the aborted requests show as cancelled (net::ERR_ABORTED)'


def test_decoded_cache_is_bounded_in_bytes(browser, server, request):
    with page_session(browser, server.base, request.node) as session:
        open_layer(session, server, 'd-wide')
        worst = session.page.evaluate("""async () => {
            const t = window.t, layer = t.layer;
            layer.cache.maxBytes = 4 * 1024 * 1024;  // 16 tiles of 254 x 254: far less than the image needs
            let worst = 0, peak = 0;
            for (let x = 0; x < 4100 * 2; x += 600) {
                t.show({zoomScale: 2, offsetX: x, offsetY: 900});
                await t.complete();
                worst = Math.max(worst, layer.cache.bytes - [...layer.shown].reduce((n, tile) => n + tile.bytes, 0));
                peak = Math.max(peak, layer.cache.bytes);
            }
            return { worst, peak, max: layer.cache.maxBytes, drawn: new Set(t.drawn).size, cached: layer.cache.size };
        }""")
        # Beyond the tiles on screen (never evicted), the cache holds at most its bound.
        assert worst['worst'] <= worst['max'], worst
        assert worst['cached'] < worst['drawn'], f'nothing was evicted, the bound was never tested: {worst}'


def test_panning_fetches_the_column_ahead(browser, server, request):
    """While a pan moves right (no announced end: a drag), the column of tiles just beyond the right edge is
    fetched too; standing still at first, it is not."""
    with page_session(browser, server.base, request.node) as session:
        open_layer(session, server, 'd-wide')
        result = session.page.evaluate("""async () => {
            const t = window.t, layer = t.layer;
            const wanted = () => [...layer.loader.pendingKeys, ...[...layer.cache.values()].map((tile) => tile.key)];
            const columns = (keys, level) => keys.filter((k) => k.startsWith(`${level}/`)).map((k) => +k.split('/')[1]);
            t.show({zoomScale: 2, offsetX: 1000, offsetY: 900});
            await t.complete();
            const level = layer.level;
            const still = Math.max(...columns(wanted(), level));
            const needed = Math.max(...columns([...layer.needed.keys()], level));
            t.show({zoomScale: 2, offsetX: 1040, offsetY: 900});
            const movingNeeded = Math.max(...columns([...layer.needed.keys()], level));
            const moving = Math.max(...columns(wanted(), level));
            await t.complete();
            return { still, needed, movingNeeded, moving };
        }""")
        assert result['still'] == result['needed'], result
        assert result['moving'] == result['movingNeeded'] + 1, result


def test_the_preview_image_is_the_preview_level(browser, server, request):
    """Where the preview suffices (b-tall at fit: 0.23 points per pixel, its 300 x 650 preview level is 0.25), the
    layer draws Tilescope's preview.jpeg as that whole level: one request instead of the level's tiles, placed
    over the whole image; zoomed past it, the preview stays under the finer level until that is whole. At a
    screen scale of 2 the same view needs a finer level, and the preview is not fetched at all."""
    with page_session(browser, server.base, request.node) as session:
        info, requested = open_layer(session, server, 'b-tall')
        previews = []
        session.page.on('request', lambda r: '/preview.jpeg' in r.url and previews.append(r.url))
        result = session.page.evaluate("""async () => {
            const t = window.t, layer = t.layer;
            const s = t.show({});
            await t.complete();
            const preview = layer.cache.peek('preview');
            const fit = { zoomScale: s.zoomScale, level: layer.level, needed: [...layer.needed.keys()],
                          shown: preview && layer.shown.has(preview),
                          // Where it lies in the content (its element is placed by a transform).
                          frame: preview && ((r, c) => [r.left - c.left, r.top - c.top, r.width, r.height])(
                            preview.element.getBoundingClientRect(), layer.content.getBoundingClientRect()),
                          size: preview && [preview.element.width, preview.element.height] };
            t.show({ zoomScale: 0.4, offsetX: 0, offsetY: 0 });
            const underFiner = { level: layer.level, complete: layer.isComplete(), shown: layer.shown.has(preview) };
            await t.complete();
            return { fit, underFiner, finerShown: [...layer.shown].filter((tile) => tile.level === layer.level).length };
        }""")
        session.page.wait_for_timeout(200)
    fit = result['fit']
    assert fit['level'] == info['preview'] and fit['needed'] == ['preview'], result
    assert levels(requested[:1]) == {info['base']}, 'the base tile first'
    assert info['preview'] not in levels(requested), f'tiles of the preview level fetched: {requested}'
    assert len(previews) == 1, previews
    # The preview level is 300 x 650 and covers the whole 1200 x 2600 image at the view's zoomScale.
    assert fit['shown'] and fit['size'] == [300, 650], result
    z = fit['zoomScale']
    assert fit['frame'] == pytest.approx([0, 0, 1200 * z, 2600 * z], abs=1e-3), result
    finer = result['underFiner']
    assert finer['level'] == info['preview'] + 1 and not finer['complete'] and finer['shown'], result
    assert result['finerShown'] > 0

    with page_session(browser, server.base, request.node, 2) as session:
        _, requested = open_layer(session, server, 'b-tall')
        previews = []
        session.page.on('request', lambda r: '/preview.jpeg' in r.url and previews.append(r.url))
        level = session.page.evaluate("""async () => {
            const t = window.t, V = t.V, layer = t.layer;
            const s = t.settle({});
            const { level } = V.resolutionFor(t.pyramid, s.zoomScale, 2);
            const visible = V.visibleRect(t.pyramid, { width: 800, height: 600 }, s.zoomScale, s.offsetX, s.offsetY);
            const tiles = V.tilesCovering(t.pyramid, level, visible, s.zoomScale, { x: 600, y: 1300 });
            layer.update({ ...s, level, tiles, viewWidth: 800, viewHeight: 600, scale: 2 });
            await t.complete();
            return level;
        }""")
        session.page.wait_for_timeout(200)
    assert level == info['preview'] + 1 and levels(requested) == {info['base'], level}, requested
    assert not previews, f'the preview was fetched at scale 2: {previews}'


# The loader on its own, with a-land's tile at `level`, column c, row 0, as `tile(c)` (the two tests below).
LOADER_ON_A_LAND = """
            const { TileLoader, releaseImage } = await import('/js/tiles/TileLoader.js');
            const image = await (await fetch('/api/images/a-land')).json();
            const tile = (c) => ({ key: `${level}/${c}/0`,
                                   url: image.urls.tiles.replace('{level}', level).replace('{col}', c).replace('{row}', '0') });
"""


def test_a_decode_does_not_hold_a_download_slot(browser, server, request):
    """With one slot, the second tile's request starts as soon as the first tile's bytes are in, before that tile
    is decoded and drawn: the network does not wait for the decode."""
    with page_session(browser, server.base, request.node) as session:
        open_layer(session, server, 'a-land')
        result = session.page.evaluate("""async (level) => {""" + LOADER_ON_A_LAND + """
            return await new Promise((resolve) => {
                const atLoad = [];
                const loader = new TileLoader({ concurrency: 1, onLoad: (tile, image) => {
                    releaseImage(image);
                    atLoad.push(loader.requests);
                    if (atLoad.length === 2) resolve(atLoad);
                } });
                loader.want([0, 1].map(tile));
            });
        }""", 10)
    assert result == [2, 2], f'requests started when each tile was decoded: {result}'


# A loader fetches a-land's tile (0, 0) of the finest level, then a second loader of the same page is asked for 24
# others, every answer a second late (DevTools' latency): half a second after the wish, none is in and every request
# the loader starts at once has started. Gives the first tile's protocol, both loaders' `concurrency` and the
# requests the second had started then (the two tests of `downloadsAtOnce`, here and in test_http2.py).
DOWNLOADS_AT_ONCE = """async (level) => {""" + LOADER_ON_A_LAND + """
    const first = await new Promise((resolve) => {
        const loader = new TileLoader({ onLoad: (t, image) => { releaseImage(image); resolve(loader); } });
        loader.want([tile(0)]);
    });
    const protocol = performance.getEntriesByName(new URL(tile(0).url, location.href).href)[0].nextHopProtocol;
    const at = (c, r) => ({ key: `${level}/${c}/${r}`, url: image.urls.tiles.replace('{level}', level)
                                                             .replace('{col}', c).replace('{row}', r) });
    const wanted = [];
    for (let r = 1; r < 4; r++) for (let c = 0; c < 8; c++) wanted.push(at(c, r));
    let arrived = 0;
    const second = new TileLoader({ onLoad: (t, image) => { releaseImage(image); arrived++; } });
    second.want(wanted);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const result = { protocol, first: first.concurrency, second: second.concurrency, started: second.requests, arrived };
    second.abortAll();
    return result;
}"""


def downloads_at_once(page):
    """DOWNLOADS_AT_ONCE on `page` (a page of the server already), every answer a second late."""
    cdp = page.context.new_cdp_session(page)
    cdp.send('Network.enable')
    cdp.send('Network.emulateNetworkConditions', {'offline': False, 'latency': 1000, 'downloadThroughput': -1,
                                                  'uploadThroughput': -1})
    return page.evaluate(DOWNLOADS_AT_ONCE, 12)  # a-land's finest level: 12 x 8 tiles


def test_over_http1_the_loader_keeps_six_tiles_on_their_way(browser, server, request):
    """Six downloads at a time over HTTP/1.1 (the browser's connections to a host; more would wait in its queue):
    the loader learns the protocol from its first tile's Resource Timing entry, and a later loader of the page starts
    with it. HTTP/2's sixteen are test_http2.py's; a loader given its concurrency keeps it."""
    with page_session(browser, server.base, request.node) as session:
        open_layer(session, server, 'a-land')
        result = downloads_at_once(session.page)
        given = session.page.evaluate("""async () => {
            const { TileLoader, downloadsAtOnce } = await import('/js/tiles/TileLoader.js');
            return { given: new TileLoader({ concurrency: 2 }).concurrency,
                     byProtocol: ['http/1.1', 'h2', 'h3', '', undefined].map(downloadsAtOnce) };
        }""")
    assert result == {'protocol': 'http/1.1', 'first': 6, 'second': 6, 'started': 6, 'arrived': 0}, result
    assert given == {'given': 2, 'byProtocol': [6, 16, 16, 6, 6]}, given


def test_a_tile_shown_again_from_its_kept_bytes_is_its_first_images_url_again(browser, server, request):
    """A tile decoded again from the bytes the loader kept (no second request) gets the very URL its first image had:
    Chromium keeps about a tile's bytes in the renderer for every image of a URL of its own, and nothing more for an
    image of a URL it has loaded (benchmarks.md, "What holds the renderer's memory"). Once the bytes are let go
    (`forgetBytes`) the URL is revoked, and the tile is fetched and decoded anew."""
    with page_session(browser, server.base, request.node) as session:
        open_layer(session, server, 'a-land')
        result = session.page.evaluate("""async (level) => {""" + LOADER_ON_A_LAND + """
            const loaded = [];
            let next = null;
            const loader = new TileLoader({ onLoad: (t, image) => { loaded.push(image.src); releaseImage(image); next?.(); } });
            const once = () => new Promise((resolve) => { next = resolve; loader.want([tile(0)]); });
            await once();
            loader.want([]);
            await once();
            const requestsBefore = loader.requests;
            loader.forgetBytes();
            await once();
            return { urls: loaded, requests: [requestsBefore, loader.requests] };
        }""", 10)
    first, again, anew = result['urls']
    assert first.startswith('blob:') and again == first, result
    assert anew != first and result['requests'] == [1, 2], result


def test_a_released_tile_leaves_no_node_behind(browser, server, request):
    """A tile the layer lets go of (`releaseImage`) gives its pixels back and leaves nothing in the page once
    collected: a hundred tiles decoded, shown, taken off and released, then two collections, and the renderer's
    count of DOM nodes is back where it was (an image whose `src` was removed left 6 nodes each)."""
    with page_session(browser, server.base, request.node) as session:
        open_layer(session, server, 'a-land')
        cdp = session.page.context.new_cdp_session(session.page)

        def nodes():
            for _ in range(2):
                cdp.send('HeapProfiler.collectGarbage')
            return cdp.send('Memory.getDOMCounters')['nodes']

        before = nodes()
        widths = session.page.evaluate("""async () => {
            const { decodedImage, releaseImage } = await import('/js/tiles/TileLoader.js');
            const blob = await (await fetch(window.t.layer.image.urls.preview)).blob();
            const widths = [];
            for (let i = 0; i < 100; i++) {
                const image = await decodedImage(blob);
                document.body.append(image);
                await new Promise((resolve) => requestAnimationFrame(resolve));
                image.remove();
                releaseImage(image);
                widths.push(image.naturalWidth);
            }
            return widths;
        }""")
        after = nodes()
    assert widths == [0] * 100, 'a released image keeps its pixels'
    assert after - before < 20, f'{after - before} DOM nodes left after 100 tiles were released'


def test_requests_start_in_idle_time_and_a_wish_replaced_before_starts_nothing(browser, server, request):
    """`want` starts no request in its caller's task (a frame's): they start in the page's idle time, so a wish
    replaced within the same task, as a gesture's next frame replaces it, never reaches the network."""
    with page_session(browser, server.base, request.node) as session:
        open_layer(session, server, 'a-land')
        result = session.page.evaluate("""async (level) => {""" + LOADER_ON_A_LAND + """
            const loaded = [];
            const loader = new TileLoader({ onLoad: (t, image) => { releaseImage(image); loaded.push(t.key); } });
            loader.want([0, 1].map(tile));
            const inTask = loader.requests;
            loader.want([2, 3].map(tile));
            await new Promise((resolve) => requestIdleCallback(resolve));
            const afterIdle = loader.requests;
            while (loaded.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
            return { inTask, afterIdle, loaded: loaded.sort(), requests: loader.requests };
        }""", 11)
    assert result['inTask'] == 0, f'requests started in the caller\'s task: {result}'
    assert result['afterIdle'] > 0, result
    assert result['loaded'] == ['11/2/0', '11/3/0'] and result['requests'] == 2, result


def test_without_its_preview_the_preview_level_is_drawn_from_tiles(browser, server, request):
    """If preview.jpeg cannot be had (here the browser aborts it), the preview level's tiles are fetched instead
    and the view still becomes complete."""
    with page_session(browser, server.base, request.node) as session:
        session.page.route(re.compile(r'/preview\.jpeg'), lambda route: route.abort())
        info, requested = open_layer(session, server, 'b-tall')
        session.allowed_failures = re.compile(r'/favicon\.ico$|/preview\.jpeg')
        result = session.page.evaluate("""async () => {
            const t = window.t, layer = t.layer;
            t.show({});
            await new Promise((resolve) => {
                layer.onChange = () => layer.failed.has('preview') && resolve();
                setTimeout(resolve, 20000);
            });
            t.show({});  // as ScrollView lays out again on onChange
            await Promise.race([t.complete(), new Promise((resolve) => setTimeout(resolve, 20000))]);
            return { needed: [...layer.needed.keys()], level: layer.level, complete: layer.isComplete() };
        }""")
    assert result['level'] == info['preview'] and 'preview' not in result['needed'], result
    assert info['preview'] in levels(requested) and len(result['needed']) > 1 and result['complete'], result
