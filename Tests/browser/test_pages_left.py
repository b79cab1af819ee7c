"""Memory on a phone (issue 44, goal 4), the part a test can hold: a page the gallery leaves gives back its decoded
pixels at once. Paging on through every image, each page recycled for another image takes its tiles' canvases out
of the document and empties them (width and height 0: the pixels go now, not when the element is collected).
Counted in elements, never timed; the five-minute session is `bench/client/run`'s to measure."""
from conftest import IMAGES

# The canvases of the page that the next turn recycles (the one before the page on screen), kept on the window.
KEEP_LEAVING = """() => {
  const page = window.tilescope.gallery.carousel.previous;
  window.__leaving = [...page.element.querySelectorAll('canvas.tile')];
  return { id: page.element.dataset.imageId, canvases: window.__leaving.length };
}"""

RELEASED = """() => window.__leaving.map((c) => ({ connected: c.isConnected, width: c.width, height: c.height }))"""


def test_a_page_left_releases_its_decoded_tiles(session):
    session.open('#image=a-land')
    checked = 0
    for _ in range(len(IMAGES) + 1):
        leaving = session.page.evaluate(KEEP_LEAVING)
        session.page.evaluate('window.tilescope.gallery.next()')
        session.wait_idle()
        kept = [c for c in session.page.evaluate(RELEASED) if c['connected'] or c['width'] or c['height']]
        assert not kept, f'page of {leaving["id"]}: {len(kept)} of {leaving["canvases"]} canvases kept after it was left'
        checked += leaving['canvases']
        on_screen = session.page.evaluate("document.querySelectorAll('canvas.tile').length")
        assert on_screen > 0
    assert checked > len(IMAGES), f'only {checked} canvases were on the pages left: the test shows nothing'
