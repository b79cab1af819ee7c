"""What the page draws and fetches as an image loads (issue 44): no frame shows part of the image with nothing
under it, and no tile or preview is fetched twice. Counted in frames (frames.py) and in requests, never timed."""
import re
from collections import Counter

import pytest

import frames
from conftest import page_session

TILE = re.compile(r'/dzi/([^/]+)_files/(\d+)/(\d+)_(\d+)\.(?:jpeg|webp|avif|png)')
PICTURE = re.compile(TILE.pattern + r'|/images/[^/]+/preview\.(?:jpeg|avif)')

# At every frame, for each page on screen: is some tile drawn, and is the floor (the base tile or the preview
# image, each of which covers the whole image) drawn under it?
FLOOR = """() => {
  const found = { drawn: 0, floorless: 0 };
  for (const content of document.querySelectorAll('.page .content')) {
    const box = content.closest('.page').getBoundingClientRect();
    if (box.right <= 0 || box.left >= innerWidth) continue;
    if (!content.querySelector('.tile')) continue;
    found.drawn++;
    if (!content.querySelector('.tile.base, .tile.preview')) found.floorless++;
  }
  return found;
}"""


def base_level(image):
    """The largest level whose whole image is one tile (Pyramid.baseLevel)."""
    longest = max(image['width'], image['height'])
    level = (longest - 1).bit_length()
    while level > 0:
        k = 2 ** ((longest - 1).bit_length() - level)
        if -(-image['width'] // k) <= image['tileSize'] and -(-image['height'] // k) <= image['tileSize']:
            break
        level -= 1
    return level


def frames_until(page, count):
    start = page.evaluate('() => window.__probe.frames')
    page.wait_for_function(f'() => window.__probe.frames >= {start + count}')


# (devicePixelRatio, starting view): at DPR 2 the fit needs tiles of level 11; at DPR 1 the fit is the preview,
# so there the view starts zoomed in, where tiles are needed.
STARTS = [(1, '#image=a-land&zoomScale=0.6&offsetX=500&offsetY=300'), (2, '#image=a-land'),
          (1, '#image=b-tall&zoomScale=0.8&offsetX=100&offsetY=600'), (2, '#image=d-wide')]


@pytest.mark.parametrize('scale,fragment', STARTS)
def test_no_frame_draws_tiles_without_the_base_or_the_preview_under_them(browser, server, request, scale, fragment):
    """The base tile's answer is held back until the needed tiles have arrived (as on a network where it comes
    last): every frame from navigation on is sampled, and none may show tiles with nothing under them."""
    bases = {i['id']: base_level(i) for i in server.images}
    with page_session(browser, server.base, request.node, scale) as session:
        page = session.page
        held = []
        finished = set()

        def route(r):
            m = TILE.search(r.request.url)
            if m and int(m.group(2)) == bases.get(m.group(1)) and m.group(3, 4) == ('0', '0'):
                held.append(r)
            else:
                r.continue_()
        page.route(re.compile(r'/dzi/'), route)
        page.on('requestfinished', lambda r: finished.add(r.url))
        frames.install(page, FLOOR)
        page.goto(server.base + '/' + fragment)
        page.wait_for_function('() => window.tilescope')
        needed = page.evaluate("""() => { const v = window.tilescope.viewport();
            return v.tiles.length ? v.tiles.map((t) => new URL(t.url, location.href).href) : [v.preview.url]; }""")
        deadline = 400
        while not all(any(f.startswith(u.split('?')[0]) for f in finished) for u in needed) and deadline:
            page.wait_for_timeout(50)
            deadline -= 1
        assert deadline, f'the needed tiles never arrived: {needed}'
        frames_until(page, 30)  # their decodes, and frames to show them in
        assert held, 'no base tile was asked for: the scenario no longer tests anything'
        for r in held:
            r.continue_()
        session.wait_idle()
        frames_until(page, 5)
        seen = frames.samples(page)
    drawn = [s for s in seen if s['drawn']]
    floorless = [s for s in seen if s['floorless']]
    assert drawn, 'the image was never drawn'
    assert not floorless, (f'{len(floorless)} of {len(drawn)} frames with the image drawn show tiles with neither '
                           f'the base tile nor the preview under them (DPR {scale}, {fragment})')


# The navigator's mini-map against the tile layer's base tile, pixel for pixel.
NAVIGATOR_PICTURE = """() => {
  const pixels = (source) => {
    const c = document.createElement('canvas');
    c.width = source.naturalWidth ?? source.width; c.height = source.naturalHeight ?? source.height;
    const g = c.getContext('2d');
    g.drawImage(source, 0, 0);
    return g.getImageData(0, 0, c.width, c.height).data;
  };
  const mini = document.querySelector('.navigator-image');
  const base = window.tilescope.viewer.scrollView.layer.baseElement;
  if (!(mini instanceof HTMLCanvasElement) || !base || !mini.width) return { kind: mini.tagName, width: mini.width };
  const a = pixels(mini), b = pixels(base);
  let opaque = 0;
  for (let i = 3; i < a.length; i += 4) if (a[i] > 0) opaque++;
  return { same: a.length === b.length && a.every((v, i) => v === b[i]), opaque, size: [mini.width, mini.height] };
}"""


def picture_requests(page):
    """Every tile or preview answer the page got, by URL."""
    counts = Counter()
    page.on('response', lambda r: PICTURE.search(r.url) and counts.update([r.url]))
    return counts


@pytest.mark.parametrize('scale', [1, 2])
def test_each_tile_and_preview_is_fetched_once(browser, server, request, scale):
    """At load, zoomed in (the navigator shows the whole image beside the tiles) and after zooming from fit: the
    tile layer and the navigator share the base tile, so no URL is answered twice."""
    with page_session(browser, server.base, request.node, scale) as session:
        page = session.page
        counts = picture_requests(page)
        session.open('#image=a-land&zoomScale=1&offsetX=1000&offsetY=700')
        assert page.locator('.navigator').is_visible(), 'the navigator is not shown: the scenario no longer tests it'
        page.keyboard.press('0')
        session.wait_idle()
        page.keyboard.press('+')
        session.wait_idle()
        page.keyboard.press('+')
        session.wait_idle()
        assert page.locator('.navigator').is_visible()
        shown = page.evaluate(NAVIGATOR_PICTURE)
    assert shown.get('same') and shown.get('opaque'), f'the navigator does not show the base tile: {shown}'
    twice = {url: n for url, n in counts.items() if n > 1}
    assert counts, 'no tile was fetched'
    assert not twice, f'fetched more than once (DPR {scale}): {twice}'
