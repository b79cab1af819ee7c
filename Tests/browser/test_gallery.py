"""The gallery: endless paging with three pages in the DOM, caption, rating round trip, URL state, access."""
import re
import subprocess
import time

import pytest

from conftest import OUTPUT, Server, http, page_session
from testimages import make_image


def watch_pages(page):
    """Records the largest number of .page elements the DOM ever held."""
    page.evaluate("""() => {
        window.__maxPages = document.querySelectorAll('.page').length;
        new MutationObserver(() => {
            window.__maxPages = Math.max(window.__maxPages, document.querySelectorAll('.page').length);
        }).observe(document.body, {childList: true, subtree: true});
    }""")


def assert_same_ring_as_the_server(server, page, pages):
    """The three pages agree with GET /api/gallery?page=N (issue 3's paging ring). The route exists and there
    are images: any answer but 200 (a 404 or 501 included) fails."""
    status, body = http('GET', f'{server.base}/api/gallery?page={page}')
    assert status == 200, (status, body)
    assert [body['previous']['id'], body['current']['id'], body['next']['id']] == pages


def test_paging_wraps_both_ways_with_three_pages_in_the_dom(session, server):
    ids = [i['id'] for i in server.images]
    n = len(ids)
    session.open(f'#image={ids[0]}')
    watch_pages(session.page)
    seen = [session.state()['imageId']]
    for _ in range(n + 2):
        session.page.click('.nav.next')
        session.wait_idle()
        st = session.state()
        seen.append(st['imageId'])
        assert st['pages'] == [ids[(st['index'] - 1) % n], ids[st['index']], ids[(st['index'] + 1) % n]]
        assert_same_ring_as_the_server(server, len(seen) - 1, st['pages'])
    assert seen == [ids[i % n] for i in range(n + 3)], 'next wraps from the last image to the first'
    for _ in range(n + 1):
        session.page.keyboard.press('PageUp')
        session.wait_idle()
    assert session.state()['imageId'] == ids[(n + 2 - (n + 1)) % n]
    assert session.page.evaluate('window.__maxPages') == 3
    assert session.page.locator('.page').count() == 3


def test_caption_and_page_control_follow_the_image(session, server):
    session.open(f"#image={server.images[1]['id']}")
    image = server.images[1]
    assert session.page.text_content('.title') == image['title']
    assert session.page.text_content('.caption') == (image.get('caption') or '')
    assert session.page.locator('.caption').is_visible() == bool(image.get('caption'))
    dots = session.page.locator('.page-control .dot')
    assert dots.count() == len(server.images)
    assert dots.nth(1).get_attribute('aria-current') == 'true'
    dots.nth(3).click()
    session.wait_idle()
    assert session.state()['imageId'] == server.images[3]['id']
    assert session.page.text_content('.title') == server.images[3]['title']


def rating_endpoint_refuses_out_of_range(server, image_id):
    status, body = http('PUT', f'{server.base}/api/images/{image_id}/rating', {'rating': 11})
    assert status == 400, f'an out-of-range rating must be refused with 400, got {status} {body}'


def test_rating_is_saved_and_survives_reload(session, server):
    """The page shows this browser's own rating and everyone's average and count. Its first save makes it a
    viewer (an HttpOnly, SameSite=Lax cookie it never reads); later saves replace that viewer's one rating;
    a reload shows the same."""
    image_id = server.images[2]['id']
    rating_endpoint_refuses_out_of_range(server, image_id)
    _, before = http('GET', f'{server.base}/api/images/{image_id}')
    session.open(f'#image={image_id}')
    value = session.page.locator('.rating-value')
    shown = value.get_attribute('data-value')
    had_rated = shown != ''
    start = int(shown) if had_rated else 0
    for _ in range(3):
        with session.page.expect_response(lambda r: r.request.method == 'PUT' and '/rating' in r.url) as response:
            session.page.click('.rating-plus')
        assert response.value.status == 200
    expected = min(10, start + 3)
    assert value.get_attribute('data-value') == str(expected)
    # Another client (no cookie) sees no own rating, and one more rating in the count if this browser is new.
    _, saved = http('GET', f'{server.base}/api/images/{image_id}')
    assert saved['rating'] is None
    assert saved['ratingCount'] == before['ratingCount'] + (0 if had_rated else 1)
    average = session.page.locator('.rating-average')
    assert average.get_attribute('data-count') == str(saved['ratingCount'])
    assert average.text_content() == f"· avg {round(saved['ratingAverage'], 1):g} of {saved['ratingCount']}"
    cookie = next(c for c in session.page.context.cookies() if c['name'] == 'tilescope_viewer')
    assert cookie['httpOnly'] and cookie['sameSite'] == 'Lax'
    session.page.reload()
    session.wait_idle()
    assert session.page.locator('.rating-value').get_attribute('data-value') == str(expected)
    assert session.page.locator('.rating-average').get_attribute('data-count') == str(saved['ratingCount'])
    assert session.page.locator('.rating-error').is_hidden()


def test_rating_failure_is_shown_plainly(browser, request, tmp_path):
    """The server goes away; pressing + says the rating was not saved and shows the saved value again."""
    folder = tmp_path / 'images'
    folder.mkdir()
    make_image(folder / 'only.png', 300, 200, 9)
    server = Server(folder, tmp_path / 'data', tmp_path / 'server.log')
    try:
        server.images = server.wait_ready(1)
        with page_session(browser, server.base, request.node) as session:
            session.allowed_failures = re.compile(r'/rating$')
            session.open(f"#image={server.images[0]['id']}")
            before = session.page.locator('.rating-value').text_content()
            server.stop()
            session.page.click('.rating-plus')
            error = session.page.locator('.rating-error')
            error.wait_for(state='visible')
            assert 'not saved' in error.text_content()
            assert session.page.locator('.rating-value').text_content() == before
    finally:
        server.stop()


def test_url_keeps_the_view_across_reload(session, server):
    session.open(f"#image={server.images[0]['id']}")
    session.page.mouse.dblclick(300, 200)
    session.wait_idle()
    session.page.mouse.dblclick(500, 400)
    session.wait_idle()
    before = session.state()
    session.page.wait_for_function("location.hash.includes('zoomScale')")
    session.page.wait_for_timeout(300)
    url = session.page.url
    session.page.goto('about:blank')
    session.page.goto(url)
    session.wait_idle()
    after = session.state()
    assert after['imageId'] == before['imageId']
    assert after['zoomScale'] == pytest.approx(before['zoomScale'], rel=1e-6)
    assert after['offsetX'] == pytest.approx(before['offsetX'], abs=0.01)
    assert after['offsetY'] == pytest.approx(before['offsetY'], abs=0.01)


def test_keyboard_only_use_and_labelled_buttons(session, server):
    session.open(f"#image={server.images[0]['id']}")
    page = session.page
    unlabeled = page.evaluate("""() => [...document.querySelectorAll('button')]
        .filter(b => !(b.getAttribute('aria-label') || b.textContent.trim()) && b.offsetParent !== null)
        .map(b => b.outerHTML)""")
    assert not unlabeled, unlabeled
    # Tab reaches the next button, its focus ring shows, Enter presses it.
    for _ in range(10):
        page.keyboard.press('Tab')
        if page.evaluate("document.activeElement.classList.contains('next')"):
            break
    else:
        pytest.fail('Tab never reached the next-image button')
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline not in ('none', ''), 'focus must be visible'
    page.keyboard.press('Enter')
    session.wait_idle()
    assert session.state()['imageId'] == server.images[1]['id']


def test_an_image_still_building_shows_its_progress_then_opens(browser, request, tmp_path):
    """A large image dropped into the folder while the server runs: the page shows its build progress instead of
    a broken view, and opens the image by itself once the pyramid is ready."""
    folder = tmp_path / 'images'
    folder.mkdir()
    make_image(folder / 'a-only.png', 300, 200, 9)
    server = Server(folder, tmp_path / 'data', tmp_path / 'server.log')
    try:
        server.wait_ready(1)
        staged = tmp_path / 'big.png'
        subprocess.run(['vips', 'gaussnoise', str(staged), '18000', '13000'], check=True)
        staged.rename(folder / 'b-big.png')  # appears whole: the rename is atomic
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            _, body = http('GET', f'{server.base}/api/images/b-big')
            if body and body.get('status') == 'building':
                break
            time.sleep(0.2)
        else:
            pytest.fail(f'the new image never showed as building: {body}')
        with page_session(browser, server.base, request.node) as session:
            session.open('#image=b-big')
            status = session.page.locator('.page.current .status')
            assert status.is_visible()
            assert 'Preparing tiles' in status.text_content()
            assert session.page.locator('.page.current .status progress').count() == 1
            session.page.screenshot(path=str(OUTPUT / 'building.png'))
            assert session.state()['zoomScale'] is None, 'no scroll view over an image without tiles'
            session.page.wait_for_function("window.tilescope.state().zoomScale !== null", timeout=180000)
            session.wait_idle()
            assert status.is_hidden()
            assert session.state()['imageId'] == 'b-big'
    finally:
        server.stop()


def test_many_images_get_a_compact_counter(session, server):
    """Dots for a few images; past ten, a '3 / 24' counter (the component itself, fed a long list)."""
    session.open()
    text = session.page.evaluate("""async () => {
        const { PageControl } = await import('/js/gallery/PageControl.js');
        const element = document.createElement('nav');
        const control = new PageControl(element, { onSelect() {} });
        control.update(24, 2);  // a count: the client never holds the whole list
        return [element.textContent, element.querySelectorAll('button').length];
    }""")
    assert text == ['3 / 24', 0]
