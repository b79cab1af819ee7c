"""Gestures against the geometry rules: drag, rubber band, wheel, double click, keyboard, swipe, pinch."""
import math

import pytest

import geometry
from conftest import VIEW, TimedInput


def frame(session):
    """The page's scroll-view frame: its size and scale, and the contentInset its bars give it (top, left,
    bottom, right), which the rules take into account."""
    st = session.state()
    i = st['insets']
    assert (st['width'], st['height']) == (VIEW['width'], VIEW['height'])
    return {'width': st['width'], 'height': st['height'], 'scale': st['scale'],
            'insets': (i['top'], i['left'], i['bottom'], i['right'])}


def available_centre(req):
    top, left, bottom, right = req['insets']
    return (left + (req['width'] - left - right) / 2, top + (req['height'] - top - bottom) / 2)


def image(server, image_id):
    return next(i for i in server.images if i['id'] == image_id)


def assert_view(state, expected, what):
    z, ox, oy = expected
    assert state['zoomScale'] == pytest.approx(z, rel=1e-6), f'{what}: zoomScale'
    assert state['offsetX'] == pytest.approx(ox, abs=0.01), f'{what}: offsetX'
    assert state['offsetY'] == pytest.approx(oy, abs=0.01), f'{what}: offsetY'


def line(start, end, steps):
    return [(start[0] + (end[0] - start[0]) * i / steps, start[1] + (end[1] - start[1]) * i / steps)
            for i in range(steps + 1)]


def slow_drag(session, start, end, steps=10):
    """A drag that stops before lifting: no momentum, so the offset moves exactly with the pointer."""
    TimedInput(session.page).mouse_path(line(start, end, steps), interval_ms=16, hold_ms=300)


def flick(session, start, end, steps=8):
    """A quick drag released while moving: about (end - start) / (steps x 10 ms) points per ms."""
    TimedInput(session.page).mouse_path(line(start, end, steps), interval_ms=10, hold_ms=5)


def test_drag_pans_by_the_pointer_movement(session, server):
    land = image(server, 'a-land')
    session.open('#image=a-land&zoomScale=1&offsetX=1000&offsetY=700')
    slow_drag(session, (400, 300), (300, 250))
    session.wait_idle()
    assert_view(session.state(), geometry.settle(land, {**frame(session), 'zoomScale': 1, 'offsetX': 1100, 'offsetY': 750}), 'drag')


def test_drag_past_the_edge_bounces_back_to_the_edge(session, server):
    land = image(server, 'a-land')
    session.open('#image=a-land&zoomScale=1&offsetX=1000&offsetY=-50')
    page = session.page
    page.mouse.move(400, 200)
    page.mouse.down()
    for i in range(1, 11):
        page.mouse.move(400, 200 + 30 * i)
    # While held past the edge, the content shows beyond it, with resistance (less than the finger moved).
    held = session.state()
    edge = -frame(session)['insets'][0]  # the top of the allowed range: the content's top under the top bar's edge
    assert edge - 250 < held['offsetY'] < edge, f'rubber band: offsetY {held["offsetY"]}'
    page.mouse.up()
    session.wait_idle()
    assert_view(session.state(), geometry.settle(land, {**frame(session), 'zoomScale': 1, 'offsetX': 1000, 'offsetY': -250}),
                'after the bounce')
    assert session.state()['imageId'] == 'a-land'


def test_flick_keeps_moving_then_settles_inside_the_range(session, server):
    land = image(server, 'a-land')
    session.open('#image=a-land&zoomScale=1&offsetX=1000&offsetY=700')
    flick(session, (500, 400), (500, 300), steps=5)
    session.wait_idle()
    st = session.state()
    assert st['offsetY'] > 700 + 100 + 20, 'momentum carries the content past the release point'
    assert_view(st, geometry.settle(land, {**frame(session), 'zoomScale': 1, 'offsetX': st['offsetX'], 'offsetY': st['offsetY']}),
                'momentum ends settled')
    assert st['offsetX'] == pytest.approx(1000, abs=0.01)


def test_wheel_zooms_around_the_pointer(session, server):
    land = image(server, 'a-land')
    session.open('#image=a-land')
    before = session.state()
    page = session.page
    page.mouse.move(250, 200)
    page.mouse.wheel(0, -100)
    session.wait_idle()
    req = {**frame(session), 'zoomScale': before['zoomScale'], 'offsetX': before['offsetX'], 'offsetY': before['offsetY']}
    expected = geometry.zoom_around(land, req, before['zoomScale'] * math.exp(100 * 0.002), (250, 200))
    assert_view(session.state(), expected, 'wheel in')
    mid = session.state()
    page.mouse.wheel(0, 100)
    session.wait_idle()
    req = {**frame(session), 'zoomScale': mid['zoomScale'], 'offsetX': mid['offsetX'], 'offsetY': mid['offsetY']}
    assert_view(session.state(), geometry.zoom_around(land, req, mid['zoomScale'] * math.exp(-0.2), (250, 200)),
                'wheel out')
    # Zooming out past aspect fit stops at it (rule 3).
    for _ in range(5):
        page.mouse.wheel(0, 400)
    session.wait_idle()
    assert_view(session.state(), geometry.settle(land, frame(session)), 'wheel out to the minimum')


def test_double_click_zooms_in_around_the_point(session, server):
    land = image(server, 'a-land')
    session.open('#image=a-land')
    for point in [(300, 260), (700, 100), (100, 500)]:
        before = session.state()
        req = {**frame(session), 'zoomScale': before['zoomScale'], 'offsetX': before['offsetX'], 'offsetY': before['offsetY']}
        image_point = ((before['offsetX'] + point[0]) / before['zoomScale'],
                       (before['offsetY'] + point[1]) / before['zoomScale'])
        session.page.mouse.dblclick(*point)
        session.wait_idle()
        assert_view(session.state(), geometry.tap(land, req, image_point, 1.5), f'double click at {point}')


def test_keyboard_zooms_pans_and_fits(session, server):
    land = image(server, 'a-land')
    session.open('#image=a-land')
    page = session.page
    page.keyboard.press('+')
    session.wait_idle()
    fit = geometry.settle(land, frame(session))
    req = {**frame(session), 'zoomScale': fit[0], 'offsetX': fit[1], 'offsetY': fit[2]}
    # Keys and buttons zoom about the centre of the area the bars leave free.
    zoomed = geometry.zoom_around(land, req, fit[0] * 1.5, available_centre(req))
    assert_view(session.state(), zoomed, '+')
    page.keyboard.press('ArrowDown')
    session.wait_idle()
    req = {**frame(session), 'zoomScale': zoomed[0], 'offsetX': zoomed[1], 'offsetY': zoomed[2] + 60}
    assert_view(session.state(), geometry.settle(land, req), 'ArrowDown')
    page.keyboard.press('0')
    session.wait_idle()
    assert_view(session.state(), fit, '0')
    page.keyboard.press('PageDown')
    session.wait_idle()
    assert session.state()['index'] == 1
    # At aspect fit there is nothing to pan sideways: left and right turn the page instead.
    page.keyboard.press('ArrowLeft')
    session.wait_idle()
    assert session.state()['index'] == 0


def test_swipe_turns_to_the_next_image_at_fit(session, server):
    ids = [i['id'] for i in server.images]
    session.open(f'#image={ids[0]}')
    flick(session, (600, 300), (200, 308))
    session.wait_idle()
    st = session.state()
    assert st['imageId'] == ids[1]
    assert_view(st, geometry.settle(image(server, ids[1]), frame(session)), 'the next image opens at aspect fit')
    # A short, slow pull springs back to the same image.
    slow_drag(session, (300, 300), (380, 300))
    session.wait_idle()
    assert session.state()['imageId'] == ids[1]
    # Swiping right goes back.
    flick(session, (200, 300), (600, 300))
    session.wait_idle()
    assert session.state()['imageId'] == ids[0]


def test_zoomed_in_drag_pans_before_it_pages(session, server):
    """Zoomed in, a horizontal drag pans the image; only past the image's edge does the page turn."""
    land = image(server, 'a-land')
    session.open('#image=a-land&zoomScale=1&offsetX=1000&offsetY=500')
    slow_drag(session, (600, 300), (300, 300))
    session.wait_idle()
    st = session.state()
    assert st['imageId'] == 'a-land'
    assert_view(st, geometry.settle(land, {**frame(session), 'zoomScale': 1, 'offsetX': 1300, 'offsetY': 500}), 'pan')


def test_touch_pinch_zooms_around_the_fingers(session, server):
    land = image(server, 'a-land')
    session.open('#image=a-land&zoomScale=0.5&offsetX=300&offsetY=200')
    before = session.state()
    centre = (400, 300)
    frames = [(16 * i, [(400 - 50 - 5 * i, 300), (400 + 50 + 5 * i, 300)]) for i in range(11)]
    TimedInput(session.page).touches(frames + [(16 * 11 + 300, [])])
    session.wait_idle()
    req = {**frame(session), 'zoomScale': before['zoomScale'], 'offsetX': before['offsetX'], 'offsetY': before['offsetY']}
    assert_view(session.state(), geometry.zoom_around(land, req, before['zoomScale'] * 2, centre), 'pinch x2')


def test_a_moving_pinch_asks_for_no_tiles_until_the_fingers_hold_still(session, server):
    """While two fingers zoom, each frame has another zoomScale: the tiles of the levels passed through are not asked
    for (on a phone their fetches and arrivals took the frames' main thread). Held still for 150 ms, the pinch's own
    view is asked for; lifted, it is drawn whole."""
    session.open('#image=a-land&zoomScale=0.5&offsetX=300&offsetY=200')
    session.page.evaluate('''() => {
        window.pinchMoves = [];
        addEventListener('touchmove', () => window.pinchMoves.push(performance.now()), { capture: true });
    }''')
    touch = TimedInput(session.page)
    frames = [(16 * i, [(400 - 40 - 12 * i, 300), (400 + 40 + 12 * i, 300)]) for i in range(16)]
    touch.touches(frames)  # the fingers stay down
    session.page.wait_for_timeout(700)  # held still
    touch.touches([(0, [])])
    session.wait_idle()
    moves, tiles = session.page.evaluate('''() => [window.pinchMoves,
        performance.getEntriesByType('resource').filter((e) => e.name.includes('_files/')).map((e) => e.startTime)]''')
    assert len(moves) >= 10, f'the pinch moved: {moves}'
    first, last = min(moves), max(moves)
    during = [t for t in tiles if first <= t < last + 140]
    assert during == [], f'tiles asked for while the pinch moved, at {during} (moves {first:.0f}-{last:.0f} ms)'
    held = [t for t in tiles if t >= last + 140]
    assert held, 'the pinch held still asked for its view\'s tiles'
    assert session.state()['zoomScale'] > 1.5


def test_a_glide_asks_only_for_where_it_comes_to_rest(session, server):
    """A flick's glide asks for none of the tiles it passes over (at speed, what it uncovers is gone before its
    tiles could land), only for the view it comes to rest at, known from the release, and before it has come to
    rest (once it has slowed to half a point per ms, or reached the edge it rests at)."""
    session.open('#image=a-land&zoomScale=1&offsetX=200&offsetY=200')
    session.page.evaluate('''() => {
        window.glide = [];
        addEventListener('pointerup', () => { window.released = performance.now(); }, { capture: true });
        const step = () => {
            window.glide.push([performance.now(), window.tilescope.state().offsetX]);
            if (window.glide.length < 400) requestAnimationFrame(step);
        };
        requestAnimationFrame(step);
    }''')
    # 400 points left in 40 ms: 10 points per ms at the release, towards the right edge 2,000 points away.
    TimedInput(session.page).mouse_path(line((700, 300), (300, 300), 8), interval_ms=5, hold_ms=0)
    session.wait_idle()
    released, glide, tiles = session.page.evaluate('''() => [window.released, window.glide,
        performance.getEntriesByType('resource').filter((e) => e.name.includes('_files/')).map((e) => [e.startTime, e.name])]''')
    state = session.state()
    end = state['offsetX']
    assert end > 200 + 400 + 1000, 'the glide carried the view well past the release'
    rest = max(b[0] for a, b in zip(glide, glide[1:]) if b[1] != a[1])
    # Level 12 is this 3000-point-wide image's full size: at zoomScale 1 a tile is 254 points wide.
    resting = range(int(end // 254), int((end + state['width'] - 1) // 254) + 1)
    # The frame that takes the release may still start what the drag had asked for.
    asked = [(round(t), name.split('_files/')[1].split('.')[0]) for t, name in tiles if t > released + 20]
    assert asked, 'the glide asked for its resting view'
    passed_over = [(t, key) for t, key in asked if key.startswith('12/') and int(key[3:].split('_')[0]) not in resting]
    assert passed_over == [], f'tiles of columns the glide passed over (it rests on columns {list(resting)}): {passed_over}'
    assert min(t for t, _ in asked) < rest, f'asked for at {asked[0]}, after the glide came to rest at {rest:.0f} ms'


GLIDE_SAMPLER = '''() => {
    // At every frame, once its callbacks (the scroll view's among them) have run: the state's offset, the content's
    // transform as the screen has it (its animation's value at the frame's time), how many animations move it, and how
    // many style writes to what a glide moves (the content, the bars) were made so far.
    window.glide = { frames: [], writes: 0 };
    const root = document.querySelector('.tilescope');
    new MutationObserver((records) => {
        for (const r of records) if (r.target.matches('.content, .scroll-indicator')) window.glide.writes++;
    }).observe(root, { subtree: true, attributes: true, attributeFilter: ['style'] });
    const step = () => {
        const content = document.querySelector('.page.current .content');
        const m = new DOMMatrix(getComputedStyle(content).transform);
        const st = window.tilescope.state();
        window.glide.frames.push({ offsetX: st.offsetX, offsetY: st.offsetY, shownX: -m.e, shownY: -m.f,
                                   playing: content.getAnimations().length, writes: window.glide.writes });
        if (window.glide.frames.length < 600) requestAnimationFrame(() => setTimeout(step));
    };
    requestAnimationFrame(() => setTimeout(step));
}'''


def test_a_glide_is_played_by_the_compositor(session, server):
    """A glide's whole curve is known at the release: it is handed to the compositor as animations of the content's and
    the scroll indicators' transforms, and its frames write no style to them (on a phone, each transform written by
    script cost a frame a style pass, a commit of every tile's layer and a layerization). What the page reads at each
    frame is what the screen shows, and the glide ends where it says, its animations gone."""
    session.open('#image=a-land&zoomScale=1&offsetX=200&offsetY=200')
    session.page.evaluate(GLIDE_SAMPLER)
    TimedInput(session.page).mouse_path(line((700, 300), (300, 300), 8), interval_ms=5, hold_ms=0)
    session.wait_idle()
    frames = session.page.evaluate('window.glide.frames')
    state = session.state()
    played = [f for f in frames if f['playing'] > 0]
    assert len(played) >= 10, f'{len(played)} frames of the glide played by animations'
    assert played[-1]['offsetX'] > 200 + 400 + 500, 'the played glide carried the view on'
    for f in played:
        assert f['shownX'] == pytest.approx(f['offsetX'], abs=1) and f['shownY'] == pytest.approx(f['offsetY'], abs=1), \
            f'the screen shows {f["shownX"]:.1f}, {f["shownY"]:.1f} where the page reads {f["offsetX"]:.1f}, {f["offsetY"]:.1f}'
    # Between its first played frame (which placed the bars where the glide starts) and its last, nothing written.
    assert played[-1]['writes'] == played[0]['writes'], \
        f'{played[-1]["writes"] - played[0]["writes"]} style writes to the content or the bars during the glide'
    after = frames[frames.index(played[-1]) + 1:]
    assert after and after[-1]['playing'] == 0, 'its animations are cancelled once it has come to rest'
    assert after[-1]['shownX'] == pytest.approx(state['offsetX'], abs=0.01), 'the content is where the view came to rest'


def test_a_played_glide_keeps_only_the_samples_a_straight_line_cannot_skip(session):
    """The keyframes handed to the compositor are the samples of the glide's curve that a straight line cannot skip
    within a quarter of a point (PlayedMotion's keptSamples): played straight between them, the glide is within that of
    every 8 ms sample, on a long glide in the open and on one that bounces at an edge; and they are a fraction of the
    samples (the browser parses each keyframe at the release)."""
    session.open()
    results = session.page.evaluate("""async () => {
        const { sampleTimes, keptSamples, TOLERANCE } = await import('/js/dom/PlayedMotion.js');
        const { MomentumAxis } = await import('/js/dom/Animator.js');
        const glides = {
            open: [new MomentumAxis(1000, 2.2, 0, 100000), new MomentumAxis(500, -0.7, 0, 100000)],
            bounce: [new MomentumAxis(1000, 3.5, 0, 1400), new MomentumAxis(300, 0.4, 0, 100000)],
        };
        return Object.fromEntries(Object.entries(glides).map(([name, [ax, ay]]) => {
            const duration = Math.max(ax.duration, ay.duration);
            const samples = sampleTimes(duration).map((t) => ({ t, x: ax.at(t), y: ay.at(t) }));
            const kept = keptSamples(samples, (s) => [s.x, s.y]);
            let worst = 0;
            for (const s of samples) {
                const j = kept.findIndex((k) => k.t >= s.t);
                const b = kept[j], a = kept[Math.max(0, j - 1)];
                const k = b.t === a.t ? 0 : (s.t - a.t) / (b.t - a.t);
                worst = Math.max(worst, Math.abs(a.x + (b.x - a.x) * k - s.x), Math.abs(a.y + (b.y - a.y) * k - s.y));
            }
            return [name, { samples: samples.length, kept: kept.length, worst, tolerance: TOLERANCE,
                            ends: kept[0] === samples[0] && kept.at(-1) === samples.at(-1),
                            ordered: kept.every((k, i) => i === 0 || k.t > kept[i - 1].t) }];
        }));
    }""")
    for name, r in results.items():
        assert r['ends'] and r['ordered'], f'{name}: the first and last samples kept, in order'
        assert r['worst'] <= r['tolerance'] + 1e-9, f'{name}: strays {r["worst"]:.3f} points from its samples'
        assert r['samples'] > 100 and r['kept'] < r['samples'] / 3, f'{name}: {r["kept"]} of {r["samples"]} samples kept'


def test_a_finger_stops_a_played_glide_where_it_is_shown(session, server):
    """Caught mid-glide, the view stops where the screen showed it (the animation's time, not the page's last frame),
    and the content's own transform takes over from the cancelled animation: nothing jumps back."""
    session.open('#image=a-land&zoomScale=1&offsetX=200&offsetY=200')
    session.page.evaluate(GLIDE_SAMPLER)
    TimedInput(session.page).mouse_path(line((700, 300), (300, 300), 8), interval_ms=5, hold_ms=0)
    session.page.wait_for_function('window.glide.frames.filter((f) => f.playing > 0).length >= 5')
    caught = session.page.evaluate('''() => {
        const content = document.querySelector('.page.current .content');
        const shown = -new DOMMatrix(getComputedStyle(content).transform).e;
        content.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true, clientX: 400, clientY: 300, button: 0,
                                                                 buttons: 1, pointerId: 1, isPrimary: true }));
        const after = -new DOMMatrix(getComputedStyle(content).transform).e;
        return { shown, after, offsetX: window.tilescope.state().offsetX, playing: document.getAnimations().filter((a) => a instanceof CSSTransition === false).length };
    }''')
    assert caught['playing'] == 0, 'the glide\'s animations stopped with it'
    assert caught['after'] == pytest.approx(caught['offsetX'], abs=0.01), 'the content shows the view the page reads'
    assert caught['after'] == pytest.approx(caught['shown'], abs=1), \
        f'shown at {caught["shown"]:.1f} before the finger, at {caught["after"]:.1f} after it'


def test_a_pan_restyles_only_what_moves(session, server):
    """A pan's frames change only transforms: the content's, the scroll indicators' and the navigator's rectangle.
    No tile is restyled (they keep their places in the content) and nothing is given a new position or size, so a
    frame of a pan lays out nothing; a left, top, width or height written at every frame laid out the page at every
    frame of a glide, and an attribute set to what it was (hidden) still cost a style pass."""
    session.open('#image=a-land&zoomScale=1&offsetX=1000&offsetY=700')
    session.wait_idle()
    session.page.evaluate('''() => {
        window.styled = [];
        const root = document.querySelector('.tilescope');
        new MutationObserver((records) => {
            for (const r of records) {
                const what = r.target.className || r.target.tagName;
                window.styled.push([what, r.attributeName, r.oldValue, r.target.getAttribute(r.attributeName)]);
            }
        }).observe(root, { subtree: true, attributes: true, attributeOldValue: true,
                           attributeFilter: ['style', 'hidden', 'class'] });
    }''')
    slow_drag(session, (400, 300), (330, 260), steps=14)
    changes = session.page.evaluate('window.styled')
    properties = lambda style: dict(p.split(':', 1) for p in (style or '').replace(' ', '').split(';') if ':' in p)
    changed = set()
    for what, attribute, old, new in changes:
        if attribute != 'style':
            changed.add((what, attribute))
            continue
        before, after = properties(old), properties(new)
        changed |= {(what, key) for key in before.keys() | after.keys() if before.get(key) != after.get(key)}
    assert ('content', 'transform') in changed, 'the content moved'
    assert ('navigator-rect', 'transform') in changed, 'the navigator followed'
    assert changed <= {('content', 'transform'), ('navigator-rect', 'transform'),
                       ('scroll-indicator horizontal visible', 'transform'),
                       ('scroll-indicator vertical visible', 'transform'),
                       # the bars appear as the finger moves
                       ('scroll-indicator horizontal', 'class'), ('scroll-indicator vertical', 'class'),
                       ('scroll-indicator horizontal visible', 'class'), ('scroll-indicator vertical visible', 'class')}, \
        f'restyled during a pan: {sorted(changed)}'


def test_an_animated_zoom_scales_the_content_not_each_tile(session, server):
    """The frames of an animated zoom (a double click) write the content's transform, a scale with its translation,
    and leave the tiles where they were placed: they are placed anew only when the level changes and at the last
    frame, so a frame costs one transform where it cost one a tile."""
    session.open('#image=a-land&zoomScale=0.5&offsetX=100&offsetY=100')
    session.wait_idle()
    session.page.evaluate('''() => {
        window.restyled = { tiles: new Set(), frames: new Set(), scaled: 0 };
        const content = document.querySelector('.page.current .content');
        const tick = () => { window.restyled.frames.add(document.timeline.currentTime); requestAnimationFrame(tick); };
        requestAnimationFrame(tick);
        new MutationObserver((records) => {
            for (const r of records) {
                if (r.target === content && r.target.style.transform.includes('scale')) window.restyled.scaled++;
                if (r.target.matches('.tile')) window.restyled.tiles.add(document.timeline.currentTime);
            }
        }).observe(content, { subtree: true, attributes: true, attributeFilter: ['style'] });
    }''')
    started = session.page.evaluate('document.timeline.currentTime')
    session.page.mouse.dblclick(400, 300)
    session.wait_idle()
    tiles, frames, scaled = session.page.evaluate('''() => [[...window.restyled.tiles], [...window.restyled.frames],
        window.restyled.scaled]''')
    assert session.state()['zoomScale'] == pytest.approx(0.75), 'the double click zoomed in x1.5'
    animated = [t for t in frames if t > started]
    assert len(animated) >= 10, f'{len(animated)} frames'
    assert scaled >= 5, 'the content was scaled during the animation'
    assert len(tiles) <= 3, f'tiles restyled in {len(tiles)} frames of the zoom\'s {len(animated)}'


def test_two_finger_tap_zooms_out(session, server):
    land = image(server, 'a-land')
    session.open('#image=a-land&zoomScale=1.2&offsetX=900&offsetY=600')
    before = session.state()
    TimedInput(session.page).touches([(0, [(380, 300), (420, 300)]), (80, [])])
    session.wait_idle()
    req = {**frame(session), 'zoomScale': before['zoomScale'], 'offsetX': before['offsetX'], 'offsetY': before['offsetY']}
    point = ((before['offsetX'] + 400) / before['zoomScale'], (before['offsetY'] + 300) / before['zoomScale'])
    assert_view(session.state(), geometry.tap(land, req, point, 1 / 1.5), 'two-finger tap')


def test_double_tap_on_touch_zooms_in(session, server):
    land = image(server, 'a-land')
    session.open('#image=a-land')
    before = session.state()
    TimedInput(session.page).touches([(0, [(500, 250)]), (60, []), (160, [(502, 251)]), (220, [])])
    session.wait_idle()
    req = {**frame(session), 'zoomScale': before['zoomScale'], 'offsetX': before['offsetX'], 'offsetY': before['offsetY']}
    # Centred where the second tap landed.
    point = ((before['offsetX'] + 502) / before['zoomScale'], (before['offsetY'] + 251) / before['zoomScale'])
    assert_view(session.state(), geometry.tap(land, req, point, 1.5), 'double tap')
