"""The browser client opened with a signed URL (docs/access.md): `/?signed={token}` shows the private images the
token names, every request through the signed base, with no failed request; the plain gallery does not show them.
A real `tilescope serve` of its own, with one image private by `--private-images`."""
import json
import os
import time
import urllib.error
import urllib.request

import pytest

from conftest import IMAGES, OUTPUT, Server, page_session
from testimages import make_image

ADMIN = 'access-browser-admin-token'
PRIVATE = 'zz-private'


@pytest.fixture(scope='module')
def private_server(tmp_path_factory):
    images = tmp_path_factory.mktemp('access-images')
    name, w, h, seed, _, _ = IMAGES[0]
    make_image(images / name, w, h, seed)
    make_image(images / f'{PRIVATE}.png', 900, 600, 77)
    (images / 'captions.json').write_text(json.dumps({f'{PRIVATE}.png': {'title': 'Private field', 'access': 'private'}}))
    OUTPUT.mkdir(parents=True, exist_ok=True)
    os.environ['TILESCOPE_ADMIN_TOKEN'] = ADMIN
    try:
        srv = Server(images, tmp_path_factory.mktemp('access-data'), OUTPUT / 'access-server.log')
    finally:
        del os.environ['TILESCOPE_ADMIN_TOKEN']
    srv.images = srv.wait_ready(1)  # the list shows the public image only
    deadline = time.monotonic() + 180
    while image_status(srv, PRIVATE) != 'ready':
        assert time.monotonic() < deadline, 'the private image was not built'
        time.sleep(0.3)
    yield srv
    srv.stop()


def image_status(srv, image_id):
    """The image's build status as an admin sees it; None while the scan has not listed it yet (404): the two
    images are listed in whichever order the scan meets them, so the public one being ready says nothing of this."""
    try:
        return admin_get(srv, f'/api/images/{image_id}').get('status')
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return None
        raise


def admin_get(srv, path):
    request = urllib.request.Request(srv.base + path, headers={'Authorization': f'Bearer {ADMIN}'})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def mint(srv, image_id, seconds=3600):
    request = urllib.request.Request(srv.base + f'/api/images/{image_id}/signed-urls', method='POST',
                                     data=json.dumps({'expiresIn': seconds}).encode(),
                                     headers={'Authorization': f'Bearer {ADMIN}', 'Content-Type': 'application/json'})
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 201
        return json.load(answer)


def test_a_signed_url_opens_the_private_image_in_the_client(browser, private_server, request):
    minted = mint(private_server, PRIVATE)
    token = minted['token']
    assert minted['urls']['viewer'] == f'/?signed={token}#image={PRIVATE}'
    with page_session(browser, private_server.base, request.node) as session:
        session.open(f'?signed={token}')
        state = session.state()
        assert PRIVATE in state['pages'], state['pages']
        assert state['cachedTiles'] > 0 or state['tilesInDom'] > 0, state
        urls = session.page.evaluate("performance.getEntriesByType('resource').map((e) => e.name)")
        mine = [u for u in urls if f'/{PRIVATE}' in u]
        assert mine and all(f'/signed/{token}/' in u for u in mine), mine
        assert any('_files/' in u for u in mine), 'tiles of the private image were drawn through the signed base'
        # Zoom in: deeper tiles come through the signed base too.
        session.page.keyboard.press('+')
        session.wait_idle()
        urls = session.page.evaluate("performance.getEntriesByType('resource').map((e) => e.name)")
        assert all(f'/signed/{token}/' in u for u in urls if f'/{PRIVATE}' in u)
        # The page kept no problems (no 401, no failed request): page_session checks that on the way out.


def test_the_plain_gallery_does_not_show_a_private_image(browser, private_server, request):
    with page_session(browser, private_server.base, request.node) as session:
        session.open()
        assert PRIVATE not in session.state()['pages']
        assert 'Private field' not in session.page.content()
