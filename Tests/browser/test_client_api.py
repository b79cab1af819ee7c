"""The embeddable viewer (Public/js/tilescope.js): createViewer from a Tilescope id, any Deep Zoom descriptor and
any IIIF info.json; the delegate's events and flags; UIScrollView's calls and settings; fullyLoaded; destroy();
several viewers on one page, and Public/embed.html keeping two of them in step."""
import io
import re
import math

import numpy as np
import pytest
from PIL import Image

import geometry
from conftest import TimedInput
from reference import psnr

EVENTS = ['scroll', 'zoom', 'beginDragging', 'endDragging', 'endDecelerating', 'beginZooming', 'endZooming',
          'endScrollingAnimation', 'fullyLoaded', 'pageChange']


def open_embed(session):
    """Public/embed.html: a page of this server with two viewers already in it."""
    session.page.goto(session.base + '/embed.html')
    session.page.wait_for_function('document.documentElement.dataset.ready === "true"', timeout=20000)


def add_viewer(session, name, options, width=400, height=300, left=0, top=700):
    """A new element at a fixed place on the page with createViewer(element, options) in it; its events are logged
    with the flags the viewer had when each arrived."""
    session.page.evaluate("""async ({ name, options, width, height, left, top, events }) => {
        const { createViewer } = await import('/js/tilescope.js');
        const element = document.createElement('div');
        element.id = name;
        Object.assign(element.style, { position: 'fixed', left: left + 'px', top: top + 'px', width: width + 'px',
                                       height: height + 'px', zIndex: 100 });
        document.body.append(element);
        const viewer = createViewer(element, options);
        window.__viewers = window.__viewers || {};
        window.__viewers[name] = viewer;
        const log = (window.__events = window.__events || {})[name] = [];
        for (const type of events) viewer.on(type, (e) => log.push({
            type: e.type, willDecelerate: e.willDecelerate, scale: e.scale,
            tracking: viewer.tracking, dragging: viewer.dragging, decelerating: viewer.decelerating,
            zooming: viewer.zooming, zoomScale: viewer.zoomScale, offset: viewer.contentOffset }));
        await viewer.ready;
    }""", {'name': name, 'options': options, 'width': width, 'height': height, 'left': left, 'top': top,
           'events': EVENTS})


def viewer_state(session, name):
    return session.page.evaluate("""(name) => { const v = window.__viewers[name];
        return { zoomScale: v.zoomScale, offset: v.contentOffset, insets: v.contentInset, fullyLoaded: v.fullyLoaded,
                 minimum: v.minimumZoomScale, maximum: v.maximumZoomScale, idle: v.scrollView.isIdle }; }""", name)


def wait_loaded(session, name):
    session.page.wait_for_function("""(name) => { const v = window.__viewers[name];
        return v.fullyLoaded && v.scrollView.isIdle; }""", arg=name, timeout=20000)


def events(session, name, clear=True):
    return session.page.evaluate("""([name, clear]) => { const log = window.__events[name].slice();
        if (clear) window.__events[name].length = 0; return log; }""", [name, clear])


def call(session, name, method, *args):
    session.page.evaluate("""([name, method, args]) => window.__viewers[name][method](...args)""", [name, method, list(args)])


def shot(session, name):
    # The scroll indicators fade 0.5 s after a move: the picture is compared without them.
    session.page.wait_for_function(f"!document.querySelector('#{name} .scroll-indicator.visible')")
    png = session.page.locator(f'#{name}').screenshot()
    return np.asarray(Image.open(io.BytesIO(png)).convert('RGB'))


def image_of(server, image_id):
    return next(i for i in server.images if i['id'] == image_id)


def request_of(st, width=400, height=300):
    ins = st['insets']
    return {'width': width, 'height': height, 'scale': 1, 'insets': (ins['top'], ins['left'], ins['bottom'], ins['right']),
            'zoomScale': st['zoomScale'], 'offsetX': st['offset']['x'], 'offsetY': st['offset']['y']}


def test_tilescope_id_deep_zoom_and_iiif_sources_draw_the_same_picture(session, server):
    land = image_of(server, 'a-land')
    open_embed(session)
    add_viewer(session, 'byid', {'image': 'a-land', 'controls': False}, left=0)
    add_viewer(session, 'bydzi', {'dzi': land['urls']['dzi'], 'controls': False}, left=410)
    add_viewer(session, 'byiiif', {'iiif': '/iiif/3/a-land/info.json', 'controls': False}, left=820)
    fit = geometry.settle(land, {'width': 400, 'height': 300})
    for view in (None, (1.0, 1234.5, 777.25)):
        for name in ('byid', 'bydzi', 'byiiif'):
            if view:
                call(session, name, 'setZoomScale', view[0])
                call(session, name, 'setContentOffset', {'x': view[1], 'y': view[2]})
            wait_loaded(session, name)
            st = viewer_state(session, name)
            expected = fit if view is None else geometry.settle(land, {'width': 400, 'height': 300, 'zoomScale': view[0],
                                                                        'offsetX': view[1], 'offsetY': view[2]})
            assert st['zoomScale'] == pytest.approx(expected[0]) and st['offset']['x'] == pytest.approx(expected[1])
            assert st['offset']['y'] == pytest.approx(expected[2])
        reference = shot(session, 'byid')
        for name in ('bydzi', 'byiiif'):
            quality = psnr(shot(session, name), reference)
            assert quality > 30, f'{name} at {view}: {quality:.1f} dB against the Tilescope-id viewer'
    urls = session.page.evaluate("performance.getEntriesByType('resource').map((e) => e.name)")
    assert any('/iiif/3/a-land/' in u and u.endswith('/0/default.jpg') for u in urls), 'the IIIF viewer asked for IIIF tiles'
    assert any('/dzi/a-land_files/' in u for u in urls)
    # A Tilescope id gets the tiles the gallery gets (AVIF in Chromium); a foreign .dzi what its descriptor says.
    templates = session.page.evaluate("['byid', 'bydzi'].map((n) => window.__viewers[n].image.urls.tiles)")
    assert templates[0].split('?')[0].endswith('.avif') and templates[1].split('?')[0].endswith('.jpeg'), templates


def test_delegate_hears_drags_momentum_and_animated_calls(session, server):
    land = image_of(server, 'a-land')
    open_embed(session)
    add_viewer(session, 'v', {'image': 'a-land', 'controls': False}, left=0, top=0, width=400, height=300)
    call(session, 'v', 'setZoomScale', 1)
    call(session, 'v', 'setContentOffset', {'x': 1000, 'y': 700})
    wait_loaded(session, 'v')
    events(session, 'v')
    # A drag that stops before lifting: dragging throughout, no deceleration.
    TimedInput(session.page).mouse_path([(200 - 5 * i, 150 - 3 * i) for i in range(11)], interval_ms=16, hold_ms=300)
    session.page.wait_for_function("window.__viewers.v.scrollView.isIdle")
    log = events(session, 'v')
    types = [e['type'] for e in log]
    assert types[0] == 'beginDragging' and 'endDragging' in types
    end = next(e for e in log if e['type'] == 'endDragging')
    assert end['willDecelerate'] is False and 'endDecelerating' not in types
    assert all(e['dragging'] and e['tracking'] for e in log[1:types.index('endDragging')] if e['type'] == 'scroll'), log
    st = viewer_state(session, 'v')
    assert (st['offset']['x'], st['offset']['y']) == (pytest.approx(1050), pytest.approx(730))
    # A flick: released while moving, it decelerates and says when it stops.
    TimedInput(session.page).mouse_path([(300 - 15 * i, 150) for i in range(9)], interval_ms=10, hold_ms=5)
    session.page.wait_for_function("window.__events.v.some((e) => e.type === 'endDecelerating')", timeout=10000)
    log = events(session, 'v')
    types = [e['type'] for e in log]
    end = log[types.index('endDragging')]
    assert end['willDecelerate'] is True
    gliding = [e for e in log[types.index('endDragging') + 1:types.index('endDecelerating')] if e['type'] == 'scroll']
    assert gliding and all(e['decelerating'] and not e['dragging'] for e in gliding)
    # Animated calls end with endScrollingAnimation (and endZooming when the scale changed).
    call(session, 'v', 'setZoomScale', 0.5, {'animated': True})
    session.page.wait_for_function("window.__events.v.some((e) => e.type === 'endScrollingAnimation')")
    log = events(session, 'v')
    assert [e['scale'] for e in log if e['type'] == 'endZooming'] == [pytest.approx(0.5)]
    assert any(e['type'] == 'zoom' for e in log)
    st = viewer_state(session, 'v')
    req = request_of(st)
    rect = {'x': 500, 'y': 400, 'width': 800, 'height': 300}
    call(session, 'v', 'zoomToRect', rect, {'animated': True})
    session.page.wait_for_function("window.__events.v.some((e) => e.type === 'endScrollingAnimation')")
    z, ox, oy = geometry.zoom_to_rect(land, req, (rect['x'], rect['y'], rect['width'], rect['height']))
    st = viewer_state(session, 'v')
    assert st['zoomScale'] == pytest.approx(z) and st['offset']['x'] == pytest.approx(ox) and st['offset']['y'] == pytest.approx(oy)
    # scrollRectToVisible moves the least distance that shows the rectangle (content points).
    before = viewer_state(session, 'v')['offset']
    call(session, 'v', 'scrollRectToVisible', {'x': before['x'] + 450, 'y': before['y'] + 10, 'width': 100, 'height': 50})
    after = viewer_state(session, 'v')['offset']
    assert after['x'] == pytest.approx(before['x'] + 150) and after['y'] == pytest.approx(before['y'])


def glide_distance(session, name, rate):
    session.page.evaluate("([name, rate]) => { window.__viewers[name].decelerationRate = rate; }", [name, rate])
    call(session, name, 'setZoomScale', 0.75)  # content 2250 wide: room for the whole glide
    call(session, name, 'setContentOffset', {'x': 1000, 'y': 700})
    events(session, name)
    TimedInput(session.page).mouse_path([(300 - 10 * i, 150) for i in range(9)], interval_ms=10, hold_ms=5)
    session.page.wait_for_function(f"window.__events.{name}.some((e) => e.type === 'endDecelerating')", timeout=10000)
    return viewer_state(session, name)['offset']['x'] - 1000


def test_zoom_limits_bounces_and_deceleration_rate_are_settings(session, server):
    open_embed(session)
    add_viewer(session, 'v', {'image': 'a-land', 'controls': False, 'maximumZoomScale': 0.75, 'bounces': False},
               left=0, top=0, width=400, height=300)
    st = viewer_state(session, 'v')
    assert st['maximum'] == pytest.approx(0.75)
    call(session, 'v', 'setZoomScale', 5)
    assert viewer_state(session, 'v')['zoomScale'] == pytest.approx(0.75)
    session.page.evaluate("window.__viewers.v.minimumZoomScale = 0.5")
    assert viewer_state(session, 'v')['zoomScale'] == pytest.approx(0.75)
    call(session, 'v', 'setZoomScale', 0.1)
    assert viewer_state(session, 'v')['zoomScale'] == pytest.approx(0.5)
    # Without bounces a drag past the edge stops at it: no offset outside the allowed range, ever.
    call(session, 'v', 'setContentOffset', {'x': 0, 'y': 0})
    events(session, 'v')
    TimedInput(session.page).mouse_path([(100 + 20 * i, 100 + 10 * i) for i in range(11)], interval_ms=16, hold_ms=300)
    session.page.wait_for_function("window.__viewers.v.scrollView.isIdle")
    offsets = [e['offset'] for e in events(session, 'v') if e['type'] == 'scroll']
    assert all(o['x'] >= -1e-9 and o['y'] >= -1e-9 for o in offsets), offsets
    session.page.evaluate("window.__viewers.v.bounces = true")
    events(session, 'v')
    TimedInput(session.page).mouse_path([(100 + 20 * i, 100 + 10 * i) for i in range(11)], interval_ms=16, hold_ms=300)
    session.page.wait_for_function("window.__viewers.v.scrollView.isIdle")
    offsets = [e['offset'] for e in events(session, 'v') if e['type'] == 'scroll']
    assert min(o['x'] for o in offsets) < -10, 'with bounces the content follows past the edge'
    # The same flick glides less far with the "fast" deceleration rate.
    normal = glide_distance(session, 'v', 'normal')
    fast = glide_distance(session, 'v', 'fast')
    assert normal > 0 and 0 < fast < normal * 0.5, (normal, fast)
    with pytest.raises(Exception, match='decelerationRate'):
        session.page.evaluate("window.__viewers.v.decelerationRate = 7")


def test_fully_loaded_means_every_needed_tile_is_drawn(session, server):
    open_embed(session)
    add_viewer(session, 'v', {'image': 'd-wide', 'controls': False}, left=0, top=0, width=400, height=300)
    wait_loaded(session, 'v')
    events(session, 'v')
    # One step (a frame in between could complete the intermediate view), then the event.
    session.page.evaluate("const v = window.__viewers.v; v.setZoomScale(1); v.setContentOffset({ x: 2000, y: 500 })")
    session.page.wait_for_function("window.__events.v.some((e) => e.type === 'fullyLoaded')", timeout=20000)
    missing = session.page.evaluate("""() => {
        const sv = window.__viewers.v.scrollView;
        const drawn = new Set([...document.querySelectorAll('#v .tile.loaded')]
            .map((tile) => new URL(tile.dataset.url, location.href).href));
        return sv.viewport().tiles.map((t) => new URL(t.url, location.href).href).filter((url) => !drawn.has(url));
    }""")
    assert missing == []
    assert viewer_state(session, 'v')['fullyLoaded'] is True


def listeners(session, expression):
    """How many event listeners the page holds on `expression` (window, document), asked of DevTools."""
    cdp = session.page.context.new_cdp_session(session.page)
    handle = cdp.send('Runtime.evaluate', {'expression': expression})['result']['objectId']
    found = cdp.send('DOMDebugger.getEventListeners', {'objectId': handle})['listeners']
    cdp.detach()
    return len(found)


def test_destroy_removes_listeners_observers_and_elements(session, server):
    open_embed(session)
    before = (listeners(session, 'window'), listeners(session, 'document'))
    add_viewer(session, 'v', {'image': 'b-tall'}, left=0, top=0)
    wait_loaded(session, 'v')
    assert (listeners(session, 'window'), listeners(session, 'document')) != before
    session.page.evaluate("window.__viewers.v.destroy()")
    assert (listeners(session, 'window'), listeners(session, 'document')) == before
    assert session.page.evaluate("document.getElementById('v').childElementCount") == 0
    events(session, 'v')
    # A resize of the element and keys on it reach nothing any more.
    session.page.evaluate("document.getElementById('v').style.width = '300px'")
    session.page.focus('#v')
    session.page.keyboard.press('+')
    session.page.wait_for_timeout(100)
    assert events(session, 'v') == []


MIDDLES = """(viewers) => viewers.map((v) => {
    const { top, left, bottom, right } = v.contentInset;
    const mx = left + (v.element.clientWidth - left - right) / 2;
    const my = top + (v.element.clientHeight - top - bottom) / 2;
    return { z: v.zoomScale, x: (v.contentOffset.x + mx) / v.zoomScale, y: (v.contentOffset.y + my) / v.zoomScale,
             fit: v.scrollView.isAtFit };
})"""


def in_step(page):
    """Both viewers at one zoomScale with one image point in the middle of their free areas."""
    left, right = page.evaluate(f'({MIDDLES})(window.tilescope.viewers)')
    assert right['z'] == pytest.approx(left['z'])
    assert right['x'] == pytest.approx(left['x'], abs=1e-6) and right['y'] == pytest.approx(left['y'], abs=1e-6)
    return left, right


def test_embed_page_keeps_two_viewers_in_step(session, server):
    open_embed(session)
    page = session.page
    idle = "window.tilescope.viewers.every((v) => v.scrollView.isIdle)"
    box = page.locator('#left').bounding_box()
    page.mouse.move(box['x'] + box['width'] / 2, box['y'] + box['height'] / 2)
    for _ in range(4):
        page.mouse.wheel(0, -100)
    page.wait_for_function(idle)
    TimedInput(page).mouse_path([(box['x'] + 200 - 10 * i, box['y'] + 200 - 5 * i) for i in range(11)],
                                interval_ms=16, hold_ms=300)
    page.wait_for_function(idle)
    left, _ = in_step(page)
    assert left['z'] > page.evaluate("window.tilescope.viewers[0].minimumZoomScale") * 1.5
    # And the other way round: a key on the right viewer moves the left one.
    page.focus('#right')
    page.keyboard.press('0')
    page.wait_for_function("window.tilescope.viewers[1].scrollView.isAtFit")
    page.wait_for_function(idle)
    in_step(page)


def test_paging_can_be_switched_off(session, server):
    """With pagingEnabled false a swipe at fit no longer turns the page; the buttons and keys still do."""
    ids = [i['id'] for i in server.images]
    session.open(f'#image={ids[0]}')
    session.page.evaluate('window.tilescope.viewer.pagingEnabled = false')
    TimedInput(session.page).mouse_path([(600 - 50 * i, 300) for i in range(9)], interval_ms=10, hold_ms=5)
    session.wait_idle()
    assert session.state()['imageId'] == ids[0]
    session.page.evaluate('window.tilescope.viewer.pagingEnabled = true')
    TimedInput(session.page).mouse_path([(600 - 50 * i, 300) for i in range(9)], interval_ms=10, hold_ms=5)
    session.wait_idle()
    assert session.state()['imageId'] == ids[1]


def test_pinch_reports_zooming_and_bouncesZoom_stops_at_the_limit(session, server):
    """A touch pinch: beginZooming, zoom events while `zooming`, endZooming with the settled scale; without
    bouncesZoom the scale never goes past the maximum, with it it overshoots and bounces back."""
    open_embed(session)
    add_viewer(session, 'v', {'image': 'a-land', 'controls': False, 'maximumZoomScale': 0.3}, left=0, top=0,
               width=400, height=300)
    fit = viewer_state(session, 'v')['zoomScale']
    frames = [(16 * i, [(200 - 20 - 12 * i, 150), (200 + 20 + 12 * i, 150)]) for i in range(11)]
    for bounces_zoom in (True, False):
        session.page.evaluate(f"window.__viewers.v.bouncesZoom = {'true' if bounces_zoom else 'false'}; "
                              "window.__viewers.v.setZoomScale(0)")
        wait_loaded(session, 'v')
        events(session, 'v')
        TimedInput(session.page).touches(frames + [(16 * 11 + 300, [])])
        session.page.wait_for_function("window.__events.v.some((e) => e.type === 'endZooming')")
        log = events(session, 'v')
        # fullyLoaded comes whenever the tiles of a view have all arrived: not part of the gesture's order.
        types = [e['type'] for e in log if e['type'] != 'fullyLoaded']
        assert types[0] == 'beginZooming'
        zooms = [e for e in log if e['type'] == 'zoom']
        assert zooms and all(e['zooming'] for e in zooms)
        ending = next(e for e in log if e['type'] == 'endZooming')
        assert ending['scale'] == pytest.approx(0.3) and fit < 0.3
        highest = max(e['zoomScale'] for e in zooms)
        if bounces_zoom:
            assert highest > 0.3 + 1e-6, 'with bouncesZoom the pinch goes past the maximum, then back'
        else:
            assert highest == pytest.approx(0.3), 'without bouncesZoom it stops at the maximum'


def test_bad_sources_are_refused_plainly(session, server):
    open_embed(session)
    session.allowed_failures = re.compile(r'/nothing\.dzi')
    with pytest.raises(Exception, match='exactly one of image, gallery: true, dzi or iiif'):
        session.page.evaluate("""async () => { const { createViewer } = await import('/js/tilescope.js');
            createViewer(document.body.appendChild(document.createElement('div')), { image: 'a', dzi: 'b' }); }""")
    message = session.page.evaluate("""async () => {
        const { createViewer } = await import('/js/tilescope.js');
        const element = document.body.appendChild(document.createElement('div'));
        element.style.height = '200px';
        const viewer = createViewer(element, { dzi: '/nothing.dzi' });
        try { await viewer.ready; return 'resolved'; } catch (error) {
            return [error.message, element.querySelector('.message').textContent, element.querySelector('.message').hidden];
        }
    }""")
    assert message != 'resolved'
    assert '/nothing.dzi' in message[0] and 'Could not load' in message[1] and message[2] is False


def test_scroll_indicator_options(session, server):
    """scrollIndicatorInsets move the indicators; showsVerticalScrollIndicator: false leaves only the horizontal one."""
    open_embed(session)
    add_viewer(session, 'v', {'image': 'a-land', 'controls': False, 'showsVerticalScrollIndicator': False,
                              'scrollIndicatorInsets': {'top': 0, 'left': 50, 'bottom': 40, 'right': 30}},
               left=0, top=0, width=400, height=300)
    session.page.evaluate("const v = window.__viewers.v; v.setZoomScale(1); v.setContentOffset({ x: 0, y: 0 })")
    shown = session.page.evaluate("""() => [...document.querySelectorAll('#v .scroll-indicator.visible')].map((bar) => {
        const r = bar.getBoundingClientRect(); return { axis: bar.dataset.scrollIndicator, x: r.x, y: r.y, w: r.width }; })""")
    assert [bar['axis'] for bar in shown] == ['horizontal']
    bar = shown[0]
    # At offset 0 the bar starts at the left inset (+3 px margin) and sits above the bottom inset.
    assert bar['x'] == pytest.approx(50 + 3) and bar['y'] == pytest.approx(300 - 40 - 3 - 3)
