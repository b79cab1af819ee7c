"""Tilescope's client through the IIIF Authorization Flow 2.0 (issue 42, goal 2; docs/client.md, docs/access.md), in
headless Chromium against a real `tilescope serve` with a users file and a degraded tier: a viewer asked for a private
image meets a 401, shows the sign-in prompt in its own element (the access service's heading, note and button) over
the degraded tier; the button opens the sign-in page in a window, where the test signs in as a user would; the window
closes itself, the client asks the token service in a hidden frame, probes again with the bearer token, and draws the
image (its pixels against libvips's rendering of the source). Signing out brings the prompt back. A wrong password
leaves the prompt, with the token service's reason once the window is closed, and draws nothing."""
import io
import json
import re
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from conftest import IMAGES, OUTPUT, Server, http, page_session
from reference import psnr, render_viewport
from testimages import make_image

PRIVATE = 'zz-locked'
USER, PASSWORD = 'ann', 'correct horse battery staple'
PREVIEW = 96  # --private-preview-size: the degraded tier's longest side
MIN_PSNR = 30.0
VIEW = (800, 600)
PAGE = """<!doctype html>
<meta charset="utf-8">
<link rel="stylesheet" href="/css/tilescope.css">
<div id="viewer" style="position: fixed; inset: 0"></div>
<script type="module">
  import { createViewer } from '/js/tilescope.js';
  // ?image={id} or ?iiif={info.json URL}: the source the viewer is asked for.
  window.viewer = createViewer(document.getElementById('viewer'), Object.fromEntries(new URLSearchParams(location.search)));
</script>
"""
# The viewer's source, by kind: Tilescope's record of the image, or its IIIF Image 3.0 info.json; and its tiles.
SOURCES = {'image': (f'?image={PRIVATE}', f'/api/images/{PRIVATE}', re.compile(r'_files/|/preview\.')),
           'iiif': (f'?iiif=/iiif/3/{PRIVATE}/info.json', f'/iiif/3/{PRIVATE}/info.json',
                    re.compile(rf'/iiif/3/{PRIVATE}/[^/]+/[^/]+/0/default\.'))}
# What the page is expected to meet without being signed in: the source's 401 (Chromium logs it as a console error).
UNAUTHORIZED = re.compile(rf'/api/images/{PRIVATE}$|/iiif/3/{PRIVATE}/info\.json$|/__auth/')


@pytest.fixture(scope='module')
def auth_server(tmp_path_factory):
    """A server with a public image, a private one (its sidecar rule), the user `ann` and a degraded tier."""
    images = tmp_path_factory.mktemp('auth-images')
    name, w, h, seed, _, _ = IMAGES[0]
    make_image(images / name, w, h, seed)
    make_image(images / f'{PRIVATE}.png', 1500, 1000, 91)
    (images / 'captions.json').write_text(json.dumps({f'{PRIVATE}.png': {'title': 'Locked field', 'access': 'private'}}))
    accounts = tmp_path_factory.mktemp('auth-accounts')
    binary = Server.binary()
    digest = subprocess.run([binary, 'hash-password'], input=PASSWORD, capture_output=True, text=True, check=True,
                            timeout=60).stdout.strip()
    assert digest.startswith('$y$'), digest
    users = accounts / 'users'
    users.write_text(f'# name:role:hash\n{USER}:viewer:{digest}\n')
    OUTPUT.mkdir(parents=True, exist_ok=True)
    srv = Server(images, tmp_path_factory.mktemp('auth-data'), OUTPUT / 'auth-server.log',
                 extra=('--users', str(users), '--private-preview-size', str(PREVIEW)))
    srv.folder = images
    srv.images = srv.wait_ready(1)
    deadline = time.monotonic() + 180
    while 'substitute' not in probe_result(srv):  # once the image is built: its degraded tier exists
        assert time.monotonic() < deadline, 'the private image was not built'
        time.sleep(0.3)
    yield srv
    srv.stop()


def probe_result(srv):
    """The probe's result for the private image; empty while the server does not know the image yet (404)."""
    status, body = http('GET', f'{srv.base}/auth/probe/{PRIVATE}')
    return body if status == 200 else {}


def open_page(session, query):
    """The routed page (answered by the browser on the server's origin) with a viewer asked for the private image
    (`query`: its source); every request of the page is recorded as (method, url, status, Authorization header)."""
    page = session.page
    page.route(re.compile(re.escape(f'{session.base}/__auth/page.html') + r'(\?.*)?$'), lambda route: route.fulfill(body=PAGE, content_type='text/html'))
    seen = []
    page.on('response', lambda r: '/__auth/' not in r.url and seen.append(
        (r.request.method, r.url, r.status, r.request.headers.get('authorization'))))
    page.set_viewport_size({'width': VIEW[0], 'height': VIEW[1]})
    page.goto(f'{session.base}/__auth/page.html{query}')
    return seen


def wait_prompt(page):
    page.wait_for_selector('.auth-confirm:not([hidden]):not([disabled])', timeout=20000)


def sign_in(page, password):
    """Presses the prompt's button (the user gesture) and signs in in the window it opens; returns that window."""
    with page.expect_popup() as opened:
        page.click('.auth-confirm')
    popup = opened.value
    popup.wait_for_load_state()
    assert '/auth/login?origin=' in popup.url, popup.url
    popup.fill('#name', USER)
    popup.fill('#password', password)
    popup.click('button[type=submit]')
    return popup


@pytest.mark.parametrize('kind', SOURCES)
def test_sign_in_through_the_prompt_draws_the_private_image_and_signing_out_brings_the_prompt_back(
        browser, auth_server, kind, request):
    query, source, tile = SOURCES[kind]
    with page_session(browser, auth_server.base, request.node) as session:
        session.allowed_failures = UNAUTHORIZED
        page = session.page
        seen = open_page(session, query)
        wait_prompt(page)
        # The access service's texts (heading, note, confirmLabel, label), as the spec's active pattern shows them.
        assert page.text_content('.auth-heading') == 'This image is private'
        assert page.text_content('.auth-note') == 'Sign in with your account on this server to see it.'
        assert page.text_content('.auth-confirm') == 'Sign in'
        assert page.text_content('.auth-label') == 'Sign in to see this image'
        # Meanwhile the degraded tier (the probe's location), at most PREVIEW pixels, is shown.
        page.wait_for_function("document.querySelector('.auth-tier:not([hidden])')?.complete", timeout=20000)
        tier = page.evaluate("(() => { const i = document.querySelector('.auth-tier'); return [i.naturalWidth, i.naturalHeight, i.src]; })()")
        assert max(tier[:2]) == PREVIEW and tier[2].endswith(f'/auth/degraded/{PRIVATE}.jpeg'), tier
        assert not page.query_selector('.pager .tile'), 'nothing of the image is drawn before signing in'

        popup = sign_in(page, PASSWORD)
        if not popup.is_closed():  # the sign-in page closes the window a script opened, maybe already
            popup.wait_for_event('close', timeout=20000)
        page.wait_for_selector('.auth', state='detached', timeout=20000)
        page.wait_for_function('window.viewer.fullyLoaded && window.viewer.scrollView.isIdle', timeout=30000)

        # probe (no token) -> token service in a frame -> probe with the bearer token -> the source again -> tiles.
        probes = [(status, auth) for method, url, status, auth in seen if f'/auth/probe/{PRIVATE}' in url]
        assert probes[0] == (200, None), probes
        bearer = [auth for _, auth in probes if auth]
        assert bearer and bearer[-1].startswith('Bearer '), probes
        tokens = [url for _, url, _, _ in seen if '/auth/token?' in url]
        assert tokens and all('messageId=' in url and 'origin=' in url for url in tokens), tokens
        records = [status for _, url, status, _ in seen if url.endswith(source)]
        assert records[0] == 401 and records[-1] == 200, records
        tiles = [(url, status, auth) for _, url, status, auth in seen if tile.search(url)]
        assert tiles and all(status == 200 for _, status, _ in tiles), tiles
        token = bearer[-1].removeprefix('Bearer ')
        # The access token goes to the probe only (spec 4.4): tiles carry the session cookie.
        assert all(token not in url and auth is None for url, _, auth in tiles), tiles

        # The picture is the image: the bars hidden, against libvips at the viewer's own view.
        session.hide_chrome()
        state = page.evaluate('(() => { const v = window.viewer; return { z: v.zoomScale, o: v.contentOffset }; })()')
        shot = np.asarray(Image.open(io.BytesIO(page.locator('#viewer').screenshot())).convert('RGB'))
        reference = render_viewport(auth_server.folder / f'{PRIVATE}.png', state['z'], state['o']['x'], state['o']['y'], *VIEW)
        quality = psnr(shot, reference)
        if quality <= MIN_PSNR:
            Image.fromarray(np.concatenate([shot, reference], axis=1)).save(OUTPUT / f'auth-flow-{kind}-vs-libvips.png')
        assert quality > MIN_PSNR, f'{quality:.1f} dB against libvips'
        page.evaluate("document.querySelectorAll('style').forEach((s) => s.textContent.includes('.chrome') && s.remove())")

        # Sign out: the logout service's page in a window, its form sent, the window closed; the prompt comes back.
        assert page.text_content('.sign-out') == 'Sign out'
        # The button the top bar gained is a control like the others: at least 44 x 44, overlapping none.
        boxes = page.evaluate('''[...document.querySelectorAll('.top button')].filter((b) => b.offsetParent)
            .map((b) => { const r = b.getBoundingClientRect(); return [b.className, r.left, r.top, r.right, r.bottom]; })''')
        assert any(name == 'sign-out' for name, *_ in boxes), boxes
        for i, (name, left, top, right, bottom) in enumerate(boxes):
            assert right - left >= 44 and bottom - top >= 44, (name, right - left, bottom - top)
            for other, l2, t2, r2, b2 in boxes[i + 1:]:
                assert right <= l2 or r2 <= left or bottom <= t2 or b2 <= top, f'{name} overlaps {other}'
        with page.expect_popup() as opened:
            page.click('.sign-out')
        out = opened.value
        out.wait_for_load_state()
        assert out.url.endswith('/auth/logout'), out.url
        out.click('button[type=submit]')
        out.wait_for_selector('text=You are signed out')
        out.close()
        wait_prompt(page)
        assert not page.query_selector('.pager .tile'), 'the image is gone once signed out'
        records = [status for _, url, status, _ in seen if url.endswith(source)]
        assert records[-1] == 401, records


def test_a_wrong_password_leaves_the_prompt_with_a_message_and_draws_nothing(browser, auth_server, request):
    with page_session(browser, auth_server.base, request.node) as session:
        session.allowed_failures = UNAUTHORIZED
        page = session.page
        seen = open_page(session, SOURCES['image'][0])
        wait_prompt(page)
        popup = sign_in(page, 'not the password')
        popup.wait_for_selector('.error')
        assert popup.text_content('.error') == 'Wrong name or password.'
        # While the window is open the prompt waits for it, its button disabled (no second window).
        assert page.is_disabled('.auth-confirm') and page.is_visible('.auth-waiting')
        popup.close()
        wait_prompt(page)
        # The token service's error (missingAspect: no session), with its heading and note, and the button again.
        assert page.is_visible('.auth-error')
        assert page.text_content('.auth-error-heading') == 'Not signed in'
        assert page.text_content('.auth-error-note') == 'Sign in to see this image.'
        assert not page.query_selector('.pager .tile')
        assert not [url for _, url, _, _ in seen if '_files/' in url], 'no tile was asked for'
        bearer = [auth for _, url, _, auth in seen if '/auth/probe/' in url and auth]
        assert not bearer, 'no token, so no probe with one'
