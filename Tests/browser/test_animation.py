"""Every frame of every animated zoom shows the image (issue 44): the rectangle of the image a frame shows moves
from the start's to the end's as one straight interpolation (UIScrollView's zoom(to:animated:)), so it always
overlaps the image. Sampled at every rendered frame (frames.py), from zoomed-in, panned starting views."""
import pytest

import frames
from conftest import TimedInput

STATE = '() => { const s = window.tilescope.state(); return [s.zoomScale, s.offsetX, s.offsetY]; }'

# a-land is 3000 x 2000; the view 800 x 600 at DPR 1, where its maximum zoomScale is 2.
CORNER = '#image=a-land&zoomScale=2&offsetX=5400&offsetY=3600'  # settled to the bottom-right corner
TOP_LEFT = '#image=a-land&zoomScale=1.2&offsetX=150&offsetY=80'
ONE = '#image=a-land&zoomScale=1&offsetX=2400&offsetY=1600'  # zoomScale 1 at the bottom-right corner


def click(selector):
    return lambda session: session.page.click(selector)


def call(js):
    return lambda session: session.page.evaluate(js)


def double_click(session):
    session.page.mouse.dblclick(150, 450)


def two_finger_tap(session):
    TimedInput(session.page).touches([(0, [(380, 300), (420, 300)]), (80, [])])


# (name, starting view, what starts the animation): every animated zoom the client has.
CASES = [
    ('fit from the corner', CORNER, lambda s: s.page.keyboard.press('0')),
    ('fit from the top left', TOP_LEFT, lambda s: s.page.keyboard.press('0')),
    ('fit button', CORNER, click('.zoom-fit')),
    ('zoomToRect far away', CORNER,
     call('() => window.tilescope.viewer.zoomToRect({x: 100, y: 100, width: 600, height: 400}, {animated: true})')),
    ('zoomToRect the other corner', TOP_LEFT,
     call('() => window.tilescope.viewer.zoomToRect({x: 2400, y: 1500, width: 500, height: 400}, {animated: true})')),
    ('setZoomScale animated', CORNER, call('() => window.tilescope.viewer.setZoomScale(0.4, {animated: true})')),
    ('double tap', ONE, double_click),
    ('two-finger tap', CORNER, two_finger_tap),
    ('zoom out button', CORNER, click('.zoom-out')),
    ('zoom in key', TOP_LEFT, lambda s: s.page.keyboard.press('+')),
]


def image_rect(view, sample):
    """The rectangle of image pixels the whole view shows at a frame: (x, y, width, height)."""
    z, ox, oy = sample
    return (ox / z, oy / z, view[0] / z, view[1] / z)


def outside(view, size, sample):
    """The whole image lies outside the view (no pixel of it on screen)."""
    x, y, w, h = image_rect(view, sample)
    return x >= size[0] or y >= size[1] or x + w <= 0 or y + h <= 0


def off_the_line(start, end, rect, tolerance=0.05):
    """None when `rect` is start + t (end - start) for one t in [0, 1] (image pixels, within `tolerance`), else why
    not. t comes from the width, which a zoom changes; without a zoom, from the larger move of x and y."""
    span = [b - a for a, b in zip(start, end)]
    axis = 2 if abs(span[2]) > 1e-9 else (0 if abs(span[0]) >= abs(span[1]) else 1)
    if abs(span[axis]) < 1e-9:
        return None if all(abs(r - a) <= tolerance for r, a in zip(rect, start)) else f'{rect} moved, {start} = {end}'
    t = (rect[axis] - start[axis]) / span[axis]
    if not -1e-6 <= t <= 1 + 1e-6:
        return f't = {t:.4f} outside [0, 1]'
    expected = [a + t * d for a, d in zip(start, span)]
    worst = max(abs(r - e) for r, e in zip(rect, expected))
    return None if worst <= tolerance else f't = {t:.3f}: {tuple(round(v, 2) for v in rect)} is {worst:.1f} px from the line'


@pytest.mark.parametrize('name,start,action', CASES, ids=[c[0] for c in CASES])
def test_every_frame_of_an_animated_zoom_shows_the_image(session, server, name, start, action):
    frames.install(session.page)
    session.open(start)
    page = session.page
    before = session.state()
    view = (before['width'], before['height'])
    size = (3000, 2000)
    first = (before['zoomScale'], before['offsetX'], before['offsetY'])
    assert not outside(view, size, first)
    frames.sample(page, STATE)
    action(session)
    session.wait_idle()
    page.wait_for_timeout(50)
    shown = frames.samples(page)
    after = session.state()
    last = (after['zoomScale'], after['offsetX'], after['offsetY'])
    assert last[0] != pytest.approx(first[0], rel=1e-3), f'{name}: the scenario no longer zooms'
    moving = [s for s in shown if tuple(s) != first and tuple(s) != last]
    # Not a test that cannot fail: the animation must have been seen frame by frame.
    assert len(moving) >= 4, f'{name}: only {len(moving)} frames between start and end'
    lost = [s for s in shown if outside(view, size, s)]
    assert not lost, f'{name}: {len(lost)} of {len(shown)} frames show none of the image, e.g. {lost[:3]}'
    a, b = image_rect(view, first), image_rect(view, last)
    bent = [(s, why) for s in shown if (why := off_the_line(a, b, image_rect(view, s)))]
    assert not bent, (f'{name}: {len(bent)} of {len(shown)} frames are not on the straight line from the start\'s '
                      f'visible rectangle to the end\'s, e.g. {bent[:3]}')


TRACKED = ('() => { const s = window.tilescope.state(); '
           'return [s.zoomScale, s.offsetX, s.offsetY, window.tilescope.viewer.tracking]; }')


def test_every_frame_of_the_bounce_after_a_pinch_shows_the_image(session, server):
    """A pinch past the maximum zoomScale near a corner, released: the bounce back to the limit is an animated
    zoom too, from the view at the release to the settled one."""
    frames.install(session.page)
    session.open('#image=a-land&zoomScale=1.6&offsetX=4400&offsetY=2900')
    page = session.page
    st = session.state()
    view, size = (st['width'], st['height']), (3000, 2000)
    frames.sample(page, TRACKED)
    # Fingers apart from 100 to 300 points about (600, 420): 3x wanted, past the maximum of 2.
    moves = [(16 * i, [(600 - 50 - 10 * i, 420), (600 + 50 + 10 * i, 420)]) for i in range(11)]
    TimedInput(page).touches(moves + [(16 * 11 + 50, [])])
    session.wait_idle()
    page.wait_for_timeout(50)
    shown = frames.samples(page)
    after = session.state()
    released = max(i for i, s in enumerate(shown) if s[3])
    first = tuple(shown[released][:3])
    last = (after['zoomScale'], after['offsetX'], after['offsetY'])
    assert first[0] > last[0] * 1.01, f'the pinch did not go past the maximum: {first} then {last}'
    bounce = [tuple(s[:3]) for s in shown[released + 1:]]
    assert len([s for s in bounce if s != last]) >= 4, f'only {len(bounce)} frames of bounce'
    lost = [s for s in bounce if outside(view, size, s)]
    assert not lost, f'{len(lost)} frames of the bounce show none of the image'
    a, b = image_rect(view, first), image_rect(view, last)
    bent = [(s, why) for s in bounce if (why := off_the_line(a, b, image_rect(view, s)))]
    assert not bent, f'{len(bent)} of {len(bounce)} frames of the bounce leave the line, e.g. {bent[:3]}'
