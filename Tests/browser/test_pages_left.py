"""Memory on a phone (issue 44, goal 4), the part a test can hold: a page the gallery leaves gives back its decoded
pixels at once. Paging on through every image, each page recycled for another image takes its tiles' images out
of the document and empties them (no source, no pixels: they go now, not when the element is collected).
Counted in elements, never timed; the five-minute session is `bench/client/run`'s to measure."""
from conftest import IMAGES

# The tiles' images of the page that the next turn recycles (the one before the page on screen), kept on the window.
KEEP_LEAVING = """() => {
  const page = window.tilescope.gallery.carousel.previous;
  window.__leaving = [...page.element.querySelectorAll('.tile')];
  return { id: page.element.dataset.imageId, images: window.__leaving.length };
}"""

RELEASED = """() => window.__leaving.map((c) => ({ connected: c.isConnected, source: c.getAttribute('src'), width: c.naturalWidth }))"""


def test_a_page_left_releases_its_decoded_tiles(session):
    session.open('#image=a-land')
    checked = 0
    for _ in range(len(IMAGES) + 1):
        leaving = session.page.evaluate(KEEP_LEAVING)
        session.page.evaluate('window.tilescope.gallery.next()')
        session.wait_idle()
        kept = [c for c in session.page.evaluate(RELEASED) if c['connected'] or c['source'] or c['width']]
        assert not kept, f'page of {leaving["id"]}: {len(kept)} of {leaving["images"]} tiles kept after it was left'
        checked += leaving['images']
        on_screen = session.page.evaluate("document.querySelectorAll('.tile').length")
        assert on_screen > 0
    assert checked > len(IMAGES), f'only {checked} tiles were on the pages left: the test shows nothing'


# What every page of the carousel holds decoded: its cache's tiles, and of those the ones neither its view needs
# nor its floor (the base tile, or the preview standing in for it) is.
HELD = """() => window.tilescope.gallery.carousel.pages.map((page) => {
  const layer = page.scrollView?.layer;
  if (!layer) return null;
  const tiles = [...layer.cache.values()];
  const extra = tiles.filter((t) => !layer.needed.has(t.key) && t.level !== layer.baseLevel && t.key !== 'preview');
  return { id: page.element.dataset.imageId, tiles: tiles.length, extra: extra.length, bytes: layer.cache.bytes,
           maxBytes: layer.cache.maxBytes, encoded: layer.loader.blobs.bytes };
})"""


def test_a_page_turned_away_keeps_only_its_fit(session):
    """Zoomed in on every image, then paged on, twice round the gallery: the pages off screen hold their fit's tiles
    and their floor, not the zoomed-in tiles of where they were (which would stay, up to the cache's bound, beside
    the page on screen's); the page on screen stays within its bound. Counted in tiles, never timed."""
    session.open('#image=a-land')
    zoomed_extra = 0
    for _ in range(2 * len(IMAGES)):
        session.page.evaluate('window.tilescope.gallery.scrollView.setZoomScale('
                              'window.tilescope.gallery.scrollView.zoomScale * 4)')
        session.wait_idle()
        zoomed_extra += session.page.evaluate(HELD)[1]['tiles']
        session.page.evaluate('window.tilescope.gallery.next()')
        session.wait_idle()
        pages = session.page.evaluate(HELD)
        left = pages[0]
        assert left['extra'] == 0, f'the page turned away from ({left["id"]}) holds {left["extra"]} tiles its fit does not need'
        assert left['encoded'] == 0, f'the page turned away from ({left["id"]}) holds {left["encoded"]} bytes of fetched tiles'
        assert all(p is None or p['bytes'] <= p['maxBytes'] for p in pages), pages
    assert zoomed_extra > 2 * len(IMAGES), f'only {zoomed_extra} tiles were held zoomed in: the test shows nothing'
