"""The gallery page's layout at a phone's size (390 x 844 CSS px, DPR 3, touch, in Chromium's emulation) and at a
desktop's: screenshots, every control at least 44 x 44 px, no two controls overlapping, at fit no image pixel under
a bar, zoomed in the content scrolling fully out from under them; the caption that expands on tap, a single tap
that hides the bars, scroll indicators, navigator, shortcuts under `?`, reduced motion, labels and focus."""
from contextlib import contextmanager

import pytest

from conftest import OUTPUT, Session, TimedInput, save_artefact

PHONE = {'viewport': {'width': 390, 'height': 844}, 'device_scale_factor': 3, 'is_mobile': True, 'has_touch': True}
DESKTOP = {'viewport': {'width': 1280, 'height': 800}, 'device_scale_factor': 1}
SIZES = {'phone': PHONE, 'desktop': DESKTOP}

CONTROLS = """() => [...document.querySelectorAll('#gallery button, #gallery .navigator')]
    .filter((el) => !el.closest('dialog') && el.checkVisibility({ visibilityProperty: true, opacityProperty: true }))
    .map((el) => { const r = el.getBoundingClientRect();
        return { name: el.getAttribute('aria-label') || el.textContent.trim(), cls: el.className,
                 x: r.x, y: r.y, width: r.width, height: r.height }; })"""

GEOMETRY = """() => {
    const box = (el) => { const r = el.getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width, height: r.height }; };
    const visible = (el) => el.checkVisibility({ visibilityProperty: true, opacityProperty: true });
    // The image's own rectangle, from the scroll view (the tiles' frames round up to whole pixels of their level).
    const sv = window.tilescope.viewer.scrollView;
    const page = sv.element.getBoundingClientRect();
    const image = { x: page.x - sv.offsetX, y: page.y - sv.offsetY,
                    width: sv.pyramid.width * sv.zoomScale, height: sv.pyramid.height * sv.zoomScale };
    return { image,
             bars: [...document.querySelectorAll('#gallery .chrome.top, #gallery .chrome.bottom')].filter(visible).map(box) };
}"""


@contextmanager
def layout_session(browser, server, node, size, **extra):
    context = browser.new_context(**SIZES[size], **extra)
    session = Session(context.new_page(), server.base)
    try:
        yield session
    except BaseException:
        save_artefact(session.page, f'{node.name}-{size}')
        raise
    finally:
        problems = list(session.problems)
        context.close()
    assert not problems, 'the page ran into problems:\n' + '\n'.join(problems)


def overlap(a, b):
    """The area two boxes share (0 for boxes that only touch)."""
    w = min(a['x'] + a['width'], b['x'] + b['width']) - max(a['x'], b['x'])
    h = min(a['y'] + a['height'], b['y'] + b['height']) - max(a['y'], b['y'])
    return max(0, w) * max(0, h)


def check_controls(session, what):
    controls = session.page.evaluate(CONTROLS)
    assert len(controls) >= 5, controls
    small = [c for c in controls if c['width'] < 44 - 0.01 or c['height'] < 44 - 0.01]
    assert not small, f'{what}: controls smaller than 44 x 44 px: {small}'
    clashes = [(a['name'], b['name']) for i, a in enumerate(controls) for b in controls[i + 1:] if overlap(a, b) > 0.5]
    assert not clashes, f'{what}: overlapping controls: {clashes}'
    return controls


def check_image_clear_of_bars(session, what):
    g = session.page.evaluate(GEOMETRY)
    assert g['bars'], 'the bars are shown'
    for bar in g['bars']:
        assert overlap(g['image'], bar) < 0.5, f'{what}: image {g["image"]} under a bar {bar}'
    return g


@pytest.mark.parametrize('size', ['phone', 'desktop'])
def test_controls_are_big_apart_and_the_image_clear_of_the_bars(browser, server, request, size):
    with layout_session(browser, server, request.node, size) as session:
        for image in server.images:
            session.open(f"#image={image['id']}")
            st = session.state()
            assert st['insets']['top'] > 0 and st['insets']['bottom'] > 0, 'the bars are the scroll view\'s insets'
            check_controls(session, f"{size} {image['id']} at fit")
            check_image_clear_of_bars(session, f"{size} {image['id']} at fit")
            session.page.screenshot(path=str(OUTPUT / f"layout-{size}-{image['id']}-fit.png"))
        # Zoomed in (the navigator appears): still no clash, and the content scrolls fully out from under both bars.
        session.open('#image=a-land')
        session.page.evaluate('window.tilescope.viewer.setZoomScale(1)')
        session.wait_idle()
        check_controls(session, f'{size} zoomed in')
        assert session.page.locator('.navigator').is_visible()
        session.page.screenshot(path=str(OUTPUT / f'layout-{size}-zoomed.png'))
        for y, edge in ((-1e9, 'top'), (1e9, 'bottom')):
            session.page.evaluate(f'window.tilescope.viewer.setContentOffset({{ x: 0, y: {y} }})')
            session.wait_idle()
            g = session.page.evaluate(GEOMETRY)
            top_bar, bottom_bar = sorted(g['bars'], key=lambda b: b['y'])
            if edge == 'top':
                assert g['image']['y'] == pytest.approx(top_bar['y'] + top_bar['height'], abs=0.5)
            else:
                assert g['image']['y'] + g['image']['height'] == pytest.approx(bottom_bar['y'], abs=0.5)


def test_phone_caption_expands_on_tap_and_a_single_tap_hides_the_bars(browser, server, request):
    with layout_session(browser, server, request.node, 'phone') as session:
        page = session.page
        session.open('#image=a-land')
        caption = page.locator('.caption')
        toggle = page.locator('.caption-toggle')
        one_line = caption.bounding_box()['height']
        assert toggle.get_attribute('aria-expanded') == 'false'
        assert page.evaluate("(() => { const c = document.querySelector('.caption'); return c.scrollWidth > c.clientWidth; })()"), \
            'the test caption is longer than one line on a phone'
        top_before = session.state()['insets']['top']
        toggle.tap()
        page.wait_for_function("document.querySelector('.caption-toggle').getAttribute('aria-expanded') === 'true'")
        # The insets follow the bar's new height when the ResizeObserver reports it, after the next layout:
        # wait for that (a deadline that fails), not only for the view to be idle.
        page.wait_for_function(f'window.tilescope.state().insets.top > {top_before}', timeout=10000)
        session.wait_idle()
        assert caption.bounding_box()['height'] >= one_line + 20, 'the whole caption shows, on more lines'
        assert session.state()['insets']['top'] > top_before, 'the insets follow the taller bar'
        check_image_clear_of_bars(session, 'expanded caption')
        check_controls(session, 'expanded caption')
        page.screenshot(path=str(OUTPUT / 'layout-phone-caption.png'))
        toggle.tap()
        page.wait_for_function("document.querySelector('.caption-toggle').getAttribute('aria-expanded') === 'false'")
        # A single tap on the image hides the bars; the image then fits the whole screen (a tall one: taller).
        session.open('#image=b-tall')
        fit_with_bars = session.state()['zoomScale']
        TimedInput(page).touches([(0, [(195, 430)]), (50, [])])
        page.wait_for_function("document.querySelector('#gallery').classList.contains('bars-hidden')")
        session.wait_idle()
        st = session.state()
        assert st['insets'] == {'top': 0, 'left': 0, 'bottom': 0, 'right': 0}
        assert st['zoomScale'] > fit_with_bars
        page.wait_for_function("getComputedStyle(document.querySelector('.chrome.top')).visibility === 'hidden'")
        page.screenshot(path=str(OUTPUT / 'layout-phone-bars-hidden.png'))
        # A notch and a home indicator (env(safe-area-inset-*), which Chromium's emulation leaves at 0, stood in for
        # by the element that measures them) stay insets with the bars hidden.
        page.add_style_tag(content='.safe-area-probe { padding: 47px 0 34px 0 !important; }')
        page.keyboard.press('h')
        page.keyboard.press('h')
        page.wait_for_function("document.querySelector('#gallery').classList.contains('bars-hidden')")
        session.wait_idle()
        assert session.state()['insets'] == {'top': 47, 'left': 0, 'bottom': 34, 'right': 0}
        check = page.evaluate(GEOMETRY)['image']
        assert check['y'] >= 47 - 0.5 and check['y'] + check['height'] <= 844 - 34 + 0.5
        TimedInput(page).touches([(0, [(195, 430)]), (50, [])])
        page.wait_for_function("!document.querySelector('#gallery').classList.contains('bars-hidden')")
        session.wait_idle()
        assert session.state()['zoomScale'] == pytest.approx(fit_with_bars)


def test_scroll_indicators_show_while_moving_then_fade(session, server):
    session.open('#image=a-land&zoomScale=1&offsetX=1000&offsetY=700')
    page = session.page
    bars = page.locator('.page.current [data-scroll-indicator]')
    assert bars.count() == 2
    assert page.locator('.page.current .visible[data-scroll-indicator]').count() == 0, 'hidden at rest'
    page.mouse.move(400, 300)
    page.mouse.down()
    for i in range(1, 6):
        page.mouse.move(400 - 10 * i, 300 - 10 * i)
    # While the finger is down both show, inside the area the bars leave free (scrollIndicatorInsets).
    st = session.state()
    for axis in ('horizontal', 'vertical'):
        bar = page.locator(f'.page.current [data-scroll-indicator="{axis}"]')
        assert 'visible' in bar.get_attribute('class')
        box = bar.bounding_box()
        assert box['y'] >= st['insets']['top'] - 0.5 and box['y'] + box['height'] <= 600 - st['insets']['bottom'] + 0.5
    vertical = page.locator('.page.current [data-scroll-indicator="vertical"]').bounding_box()
    # Where the vertical one is says where the view is: offset 750 of 0..(2000 - 600 + insets).
    ins = st['insets']
    track = 600 - ins['top'] - ins['bottom'] - 3 - 8
    position = (st['offsetY'] + ins['top']) / (2000 + ins['top'] + ins['bottom'] - 600)
    assert vertical['y'] == pytest.approx(ins['top'] + 3 + (track - vertical['height']) * position, abs=1)
    page.mouse.up()
    page.wait_for_function("document.querySelectorAll('.page.current .visible[data-scroll-indicator]').length === 0",
                           timeout=5000)


def test_navigator_shows_the_visible_part_and_moves_the_view(session, server):
    session.open('#image=a-land')
    page = session.page
    assert not page.locator('.navigator').is_visible(), 'no navigator at fit'
    page.evaluate('window.tilescope.viewer.setZoomScale(1)')
    session.wait_idle()
    nav = page.locator('.navigator')
    assert nav.is_visible()
    box = nav.bounding_box()
    rect = page.locator('.navigator-rect').bounding_box()
    # 3000 x 2000 in 160 x 120: 0.0533 px per image pixel; the view shows 800 x (600 - insets) image pixels.
    k = min(box['width'] / 3000, box['height'] / 2000)
    assert rect['width'] == pytest.approx(800 * k, abs=1.5)
    # Pressing and dragging on it centres the view on that image point.
    target = (box['x'] + box['width'] / 2, box['y'] + box['height'] / 2)
    page.mouse.move(target[0] + 30, target[1] + 10)
    page.mouse.down()
    page.mouse.move(*target)
    page.mouse.up()
    session.wait_idle()
    st = session.state()
    ins = st['insets']
    aw, ah = 800 - ins['left'] - ins['right'], 600 - ins['top'] - ins['bottom']
    centre = ((st['offsetX'] + ins['left'] + aw / 2) / st['zoomScale'], (st['offsetY'] + ins['top'] + ah / 2) / st['zoomScale'])
    assert centre[0] == pytest.approx(1500, abs=3 / k) and centre[1] == pytest.approx(1000, abs=3 / k)


def test_shortcuts_under_question_mark_and_fullscreen(session, server):
    session.open('#image=a-land')
    page = session.page
    page.keyboard.press('?')
    dialog = page.locator('dialog.help')
    assert dialog.is_visible()
    text = dialog.inner_text()
    for words in ('Zoom in', 'Zoom out', 'Fit', 'Page Up', 'Fullscreen', 'Hide or show the bars'):
        assert words in text
    page.keyboard.press('Escape')
    assert not dialog.is_visible()
    page.click('.help-button')
    assert dialog.is_visible()
    page.click('.help-close')
    assert not dialog.is_visible()
    # H hides and shows the bars from the keyboard too.
    page.keyboard.press('h')
    page.wait_for_function("document.querySelector('#gallery').classList.contains('bars-hidden')")
    page.keyboard.press('h')
    page.wait_for_function("!document.querySelector('#gallery').classList.contains('bars-hidden')")
    if page.evaluate('document.fullscreenEnabled'):
        page.click('.fullscreen')
        page.wait_for_function("document.fullscreenElement === document.getElementById('gallery')")
        page.wait_for_function("document.querySelector('.fullscreen').getAttribute('aria-pressed') === 'true'")
        page.keyboard.press('f')
        page.wait_for_function('document.fullscreenElement === null')
    else:
        assert not page.locator('.fullscreen').is_visible(), 'no fullscreen button where fullscreen is refused'


def test_reduced_motion_jumps_instead_of_animating(browser, server, request):
    with layout_session(browser, server, request.node, 'desktop', reduced_motion='reduce') as session:
        session.open('#image=a-land')
        page = session.page
        before, after = page.evaluate("""() => {
            const before = window.tilescope.state().zoomScale;
            document.querySelector('.zoom-in').click();
            return [before, window.tilescope.state().zoomScale];  // no frame has run: only a jump gets here
        }""")
        assert after == pytest.approx(before * 1.5)
        turned = page.evaluate("""async () => {
            const viewer = window.tilescope.viewer;
            const page = new Promise((resolve) => viewer.on('pageChange', (e) => resolve(e.page)));
            window.tilescope.gallery.next();
            return page;
        }""")
        assert turned == 1 and session.state()['index'] == 1


def test_every_control_is_labelled_and_shows_focus(session, server):
    session.open('#image=a-land')
    page = session.page
    unnamed = page.evaluate("""() => [...document.querySelectorAll('#gallery button')]
        .filter((b) => !b.closest('dialog') && !b.hidden)
        .filter((b) => !(b.getAttribute('aria-label') || '').trim() && !b.textContent.trim())
        .map((b) => b.outerHTML)""")
    assert unnamed == []
    focused = []
    for _ in range(14):
        page.keyboard.press('Tab')
        info = page.evaluate("""() => { const el = document.activeElement;
            const s = getComputedStyle(el);
            return { tag: el.tagName, name: el.getAttribute('aria-label') || el.textContent.trim(),
                     outline: s.outlineStyle, width: parseFloat(s.outlineWidth) }; }""")
        if info['tag'] == 'BUTTON':
            focused.append(info)
            assert info['outline'] != 'none' and info['width'] >= 2, f'no visible focus on {info}'
    assert len({f['name'] for f in focused}) >= 6, focused
    # The gallery is on the page for automation.
    assert page.evaluate('window.tilescope.gallery.page') == 0
    page.evaluate('window.tilescope.gallery.next()')
    session.wait_idle()
    assert page.evaluate('window.tilescope.gallery.page') == 1
    page.evaluate('window.tilescope.gallery.previous()')
    session.wait_idle()
    assert session.state()['index'] == 0
