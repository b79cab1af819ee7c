"""What the page shows: screenshots at fit, at a deep zoom and at a corner against libvips renderings of
the same viewport, the level chosen for the screen's pixel density, and the cap on cached tiles."""
import math

import numpy as np
import pytest
from PIL import Image

import geometry
from conftest import IMAGES, OUTPUT, VIEW, page_session
from reference import psnr, render_viewport
from geometry import level_in_thirds

MIN_PSNR = 30.0


def source_of(image_folder, image):
    name = next(n for n, *_ in IMAGES if n.rsplit('.', 1)[0] == image['id'])
    return image_folder / name


def by_id(server, image_id):
    return next(i for i in server.images if i['id'] == image_id)


def compare_with_reference(session, image_folder, server, label, scale):
    """Screenshot (chrome hidden) vs libvips: above 30 dB, better than any one-pixel shift, no seams."""
    st = session.state()
    image = by_id(server, st['imageId'])
    session.hide_chrome()
    session.page.wait_for_timeout(50)
    shot_path = OUTPUT / f'{label}-screenshot.png'
    OUTPUT.mkdir(parents=True, exist_ok=True)
    session.page.screenshot(path=str(shot_path))
    shot = np.asarray(Image.open(shot_path).convert('RGB'))
    source = source_of(image_folder, image)
    z, ox, oy = st['zoomScale'], st['offsetX'], st['offsetY']
    ref = render_viewport(source, z, ox, oy, VIEW['width'], VIEW['height'], scale=scale)
    quality = psnr(shot, ref)
    # The page must match the true view better than the same view one device pixel off in any direction:
    # a misplaced tile or an overlap drawn in the wrong place fails here even when it stays above 30 dB.
    controls = {(dx, dy): psnr(shot, render_viewport(source, z, ox + dx / scale, oy + dy / scale,
                                                     VIEW['width'], VIEW['height'], scale=scale))
                for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))}
    control = max(controls.values())
    expected = session.page.evaluate('window.tilescope.viewport()')
    seams = [(axis, at, worst, median) for axis, at, worst, median in seam_errors(shot, ref, expected, scale)
             if worst > 3 * median + 3]
    print(f'{label}: {quality:.1f} dB; one pixel off: {control:.1f} dB')
    if quality <= MIN_PSNR or control >= quality or seams:
        Image.fromarray(ref).save(OUTPUT / f'{label}-reference.png')
        diff = np.clip(np.abs(shot.astype(int) - ref.astype(int)) * 4, 0, 255).astype(np.uint8)
        Image.fromarray(diff).save(OUTPUT / f'{label}-difference.png')
    else:
        shot_path.unlink()
    assert quality > MIN_PSNR, f'{label}: PSNR {quality:.1f} dB against libvips (need > {MIN_PSNR}); see {OUTPUT}'
    assert control < quality, f'{label}: {quality:.1f} dB, but one pixel off matches as well or better: {controls}'
    assert not seams, f'{label}: seams at tile boundaries (axis, screen line, error, median error): {seams}'
    return quality


def seam_errors(shot, ref, expected, scale):
    """Mean error along each tile boundary line on screen, against the median error of all lines: a seam (a gap,
    or overlap drawn in the wrong place) shows as a boundary line much worse than the rest."""
    err = np.abs(shot.astype(float) - ref.astype(float)).mean(axis=2)
    cols, rows = err.mean(axis=0), err.mean(axis=1)
    ox, oy = expected['contentOffset']['x'], expected['contentOffset']['y']
    found = []
    for tile in expected['tiles']:
        for axis, start, offset, lines in (('x', tile['frame']['x'], ox, cols), ('y', tile['frame']['y'], oy, rows)):
            if start <= 0:
                continue
            # A frame starts `overlap` level pixels before the boundary it shares with the previous tile.
            level_scale = 2.0 ** (tile['level'] - expected['image']['maxLevel'])
            boundary = start + expected['image']['overlap'] * expected['zoomScale'] / level_scale
            at = int((boundary - offset) * scale)
            if 1 <= at < len(lines) - 1:
                found.append((axis, at, float(lines[at - 1:at + 1].max()), float(np.median(lines))))
    return found


def insets_of(state):
    """The contentInset the page's bars give its scroll view, as (top, left, bottom, right)."""
    i = state['insets']
    return (i['top'], i['left'], i['bottom'], i['right'])


def expect_view(session, image, fragment_view, scale=1):
    """The page's settled view equals the rules applied to the requested one."""
    st = session.state()
    req = {'width': VIEW['width'], 'height': VIEW['height'], 'scale': scale, 'insets': insets_of(st), **fragment_view}
    z, ox, oy = geometry.settle(image, req)
    assert st['zoomScale'] == pytest.approx(z, rel=1e-6)
    assert st['offsetX'] == pytest.approx(ox, abs=1e-3)
    assert st['offsetY'] == pytest.approx(oy, abs=1e-3)
    expected = geometry.viewport(image, {**req, 'zoomScale': st['zoomScale'], 'offsetX': st['offsetX'],
                                         'offsetY': st['offsetY']})
    drawn = session.page.evaluate("""() => [...document.querySelectorAll('.page.current .tile.loaded:not(.base)')]
        .map(t => t.dataset.url)""")
    # Keys without the extension: the client asks for its browser's tile format (TileFormat.js).
    wanted = {f"/{t['level']}/{t['column']}_{t['row']}" for t in expected['tiles']}
    drawn_keys = {'/' + '/'.join(src.split('?')[0].rsplit('.', 1)[0].split('/')[-2:]) for src in drawn}
    assert wanted <= drawn_keys, f'tiles missing from the page: {sorted(wanted - drawn_keys)}'
    if expected['level'] is not None:
        stale = {k for k in drawn_keys if not k.startswith(f"/{expected['level']}/")}
        assert not stale, f'tiles of other levels left after the needed level loaded: {sorted(stale)}'
    return expected


@pytest.mark.parametrize('scale', [1, 2], ids=['1x', '2x'])
def test_fit_deep_zoom_and_corner_match_libvips(browser, server, image_folder, request, scale):
    with page_session(browser, server.base, request.node, scale) as session:
        land = by_id(server, 'a-land')
        views = [
            ('fit', {}),
            ('deep', {'zoomScale': 1.6 / scale, 'offsetX': 1900 / scale, 'offsetY': 1100 / scale}),
            ('corner', {'zoomScale': 2 / scale, 'offsetX': 1e9, 'offsetY': 1e9}),
        ]
        for label, view in views:
            fragment = '#image=a-land' + ''.join(f'&{k}={v}' for k, v in view.items())
            session.open(fragment)
            expected = expect_view(session, land, view, scale)
            if label == 'fit':
                top, left, bottom, right = insets_of(session.state())
                assert session.state()['zoomScale'] == pytest.approx(min((800 - left - right) / 3000,
                                                                         (600 - top - bottom) / 2000))
            else:
                assert expected['resolution'] == 'high'
            compare_with_reference(session, image_folder, server, f'{label}-{scale}x', scale)


def test_retina_fetches_sharper_tiles_than_plain(browser, server, request):
    """The same view at devicePixelRatio 1 and 2: level chosen by density, one Deep Zoom level apart (rule 8, as the
    viewport API says), and the level drawn (with the levels between: in thirds) the finest fetched, never finer."""
    levels, drawn = {}, {}
    for scale in (1, 2):
        with page_session(browser, server.base, request.node, scale) as session:
            session.open('#image=a-land&zoomScale=0.3&offsetX=500&offsetY=300')
            vp = session.page.evaluate('window.tilescope.deepZoomViewport()')
            levels[scale] = vp['level']
            land = by_id(server, 'a-land')
            expected = geometry.viewport(land, {**VIEW, 'scale': scale, 'zoomScale': 0.3, 'offsetX': 500, 'offsetY': 300})
            assert vp['level'] == expected['level']
            drawn[scale] = session.page.evaluate('window.tilescope.viewport()')['level']
            assert 3 * (expected['level'] - 1) < drawn[scale] <= 3 * expected['level']
            requested = session.page.evaluate("""() => performance.getEntriesByType('resource')
                .map(e => e.name).filter(n => n.includes('/a-land_files/') || n.includes('/a-land/between/'))""")
            deepest = max(level_in_thirds(u) for u in requested)
            assert deepest == drawn[scale], f'fetched level {deepest}, needed {drawn[scale]} (over-fetching?)'
    assert levels[2] == levels[1] + 1 and drawn[2] > drawn[1]


def test_tile_cache_stays_bounded_while_panning(session, server):
    """Pan across the whole image at the deepest zoom: cached tile bytes never exceed the cap, DOM tiles stay few."""
    session.open('#image=d-wide&zoomScale=2&offsetX=0&offsetY=0')
    wide = by_id(server, 'd-wide')
    worst = session.page.evaluate("""async ({width, height}) => {
        const sv = window.tilescope.gallery.scrollView;
        sv.layer.cache.maxBytes = 8 * 1024 * 1024;  // about 32 tiles: small enough that panning fills it
        let worst = {cached: 0, dom: 0};
        for (let y = 0; y < height * 2; y += 500) {
          for (let x = 0; x < width * 2; x += 700) {
            sv.setView({zoomScale: 2, offsetX: x, offsetY: y});
            await new Promise(r => setTimeout(r, 15));
            const s = window.tilescope.state();
            worst = {cached: Math.max(worst.cached, sv.layer.cache.bytes), dom: Math.max(worst.dom, s.tilesInDom)};
          }
        }
        return worst;
    }""", {'width': wide['width'], 'height': wide['height']})
    session.wait_idle()
    cap = session.page.evaluate('window.tilescope.gallery.scrollView.layer.cache.maxBytes')
    assert worst['cached'] <= cap, worst
    # One screen of tiles at 800 x 600 is at most 5 x 4 of one level, plus a previous level kept while loading.
    assert worst['dom'] <= 2 * 5 * 4, worst


def test_last_good_level_stays_until_the_new_one_has_loaded(session, server):
    """Zooming in from one level to the next finer one the view needs (Deep Zoom's 11 to 12; drawn from the levels
    between them and below, in thirds): in the same instant the old level's tiles are still drawn under the loading
    new ones (no blank area); once the new level has loaded, the old one is gone. Then a jump far away cancels
    the tiles still on their way."""
    session.open('#image=a-land&zoomScale=0.4&offsetX=100&offsetY=50')
    land = by_id(server, 'a-land')
    before = geometry.viewport(land, {**VIEW, 'zoomScale': 0.4, 'offsetX': 100, 'offsetY': 50})
    after = geometry.viewport(land, {**VIEW, 'zoomScale': 0.8, 'offsetX': 400, 'offsetY': 250})
    assert (before['level'], after['level']) == (11, 12)
    snapshot = session.page.evaluate("""() => {
        const sv = window.tilescope.gallery.scrollView;
        // The base tile (the one-tile level, always underneath) aside.
        const shown = () => [...sv.layer.shown].filter(t => t.level !== sv.layer.baseLevel)
            .map(t => ({level: t.level, loaded: t.loaded}));
        const old = sv.layer.level;
        sv.setView({zoomScale: 0.8, offsetX: 400, offsetY: 250});
        const level = sv.layer.level, needed = sv.layer.neededTiles.length;
        const during = shown();
        const pending = sv.layer.loader.pendingKeys.filter(k => k.startsWith(`${level}/`));
        sv.setView({zoomScale: 2, offsetX: 4000, offsetY: 3000});
        const stillLoading = sv.layer.loader.pendingKeys.filter(k => pending.includes(k));
        sv.setView({zoomScale: 0.8, offsetX: 400, offsetY: 250});
        return {old, level, needed, during, pendingCount: pending.length, stillLoading: stillLoading.length};
    }""")
    old, level, during = snapshot['old'], snapshot['level'], snapshot['during']
    assert 3 * 10 < old <= 3 * 11 and 3 * 11 < level <= 3 * 12 and old < level, snapshot
    assert any(t['level'] == old and t['loaded'] for t in during), 'the last good level must stay visible'
    assert {t['level'] for t in during} <= {old, level}
    assert snapshot['pendingCount'] > 0 and snapshot['stillLoading'] == 0, 'tiles left behind are cancelled'
    session.wait_idle()
    levels = session.page.evaluate("""(() => { const layer = window.tilescope.gallery.scrollView.layer;
        return [...layer.shown].filter(t => t.level !== layer.baseLevel).map(t => t.level); })()""")
    assert set(levels) == {level}
    assert len(levels) == snapshot['needed'] <= len(after['tiles'])


def test_window_resize_keeps_aspect_fit(session, server):
    session.open('#image=b-tall')
    tall = by_id(server, 'b-tall')
    session.page.set_viewport_size({'width': 390, 'height': 700})
    session.page.wait_for_timeout(100)
    session.wait_idle()
    st = session.state()
    z, ox, oy = geometry.settle(tall, {'width': 390, 'height': 700, 'insets': insets_of(st)})
    assert (st['width'], st['height']) == (390, 700)
    assert st['zoomScale'] == pytest.approx(z) and st['offsetX'] == pytest.approx(ox) and st['offsetY'] == pytest.approx(oy)
