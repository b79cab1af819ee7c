"""The browser client opened with a signed URL (docs/access.md): `/?signed={token}` shows the private images the
token names, every request through the signed base, with no failed request; the plain gallery does not show them.
A real `tilescope serve` of its own (conftest's `private_server`), with one image private by its sidecar rule."""
from conftest import PRIVATE, mint, page_session


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
