"""Nothing stale on a slow network (issue 44, goal 3): keys that zoom and pan faster than the tiles arrive, on a
connection throttled through the DevTools protocol (issue 44's connection B: 400 ms, 400 kbit/s). Sampled at every
frame (frames.py), never timed:
- no tile is drawn of a level coarser than one step below the preview's: the preview (or the base tile) is the
  floor, and a coarser tile over it would only blur it;
- whenever a tile is drawn, the floor is drawn under it;
- nothing is on its way but the tiles the view (or the end of its animation) needs, the base and the preview: tiles
  of levels no longer needed are cancelled as the view leaves them, not left to finish;
and the run did cancel requests (else it tested nothing)."""
import frames
from conftest import page_session
from geometry import is_tile, level_in_thirds

# What the current page's tile layer shows and waits for at one frame.
LAYER = """() => {
  const layer = window.tilescope?.gallery?.scrollView?.layer;
  if (!layer || !layer.view) return null;
  const levelOf = (key) => (key === 'preview' ? 'preview' : Number(key.split('/')[0]));
  const unique = (values) => [...new Set(values)];
  const shown = [...layer.shown];
  return {
    level: layer.level, base: layer.baseLevel, preview: layer.previewLevel,
    expected: layer.expected ? unique(layer.expected.tiles.map((t) => (t.whole ? 'preview' : t.level))) : null,
    pending: unique(layer.loader.pendingKeys.map(levelOf)),
    drawn: unique(shown.filter((t) => !t.whole && t.level !== layer.baseLevel).map((t) => t.level)),
    floor: shown.some((t) => t.whole || t.level === layer.baseLevel),
    urls: shown.map((t) => new URL(t.url, location.href).pathname),
  };
}"""

CONNECTION_B = {'offline': False, 'latency': 400, 'downloadThroughput': 400_000 / 8, 'uploadThroughput': 400_000 / 8}

# Faster than connection B delivers: every key starts an animation that the next one cuts short, and zooms in and out
# cross levels both ways (at fit the preview is the level; 1.5x in, level 11; twice, level 12), so that tiles of a
# level just left are still on their way when the next key comes.
KEYS = ['+', '-', '+', '+', '-', 'ArrowRight', '+', '-', '-', '+', '+', '+', 'ArrowDown', '-', '-', '-', '+', '+']


def test_quick_zooms_and_pans_on_a_slow_network_show_and_fetch_nothing_stale(browser, server, request):
    with page_session(browser, server.base, request.node) as session:
        page = session.page
        frames.install(page)
        cancelled, finished = [], []
        page.on('requestfailed', lambda r: 'ERR_ABORTED' in (r.failure or '') and is_tile(r.url)
                and cancelled.append(r.url))
        page.on('requestfinished', lambda r: is_tile(r.url) and finished.append(r.url))
        session.open('#image=a-land')
        cdp = page.context.new_cdp_session(page)
        cdp.send('Network.enable')
        cdp.send('Network.emulateNetworkConditions', CONNECTION_B)
        cancelled.clear()
        finished.clear()
        frames.sample(page, LAYER)
        for key in KEYS:
            page.keyboard.press(key)
        page.wait_for_function('window.tilescope.state().idle', timeout=120000)
        samples = [s for s in frames.samples(page) if s]
    assert len(samples) > len(KEYS), f'only {len(samples)} frames sampled'
    for i, s in enumerate(samples):
        coarse = [level for level in s['drawn'] if level < s['preview'] - 1]
        assert not coarse, f'frame {i} draws levels {coarse}, coarser than the preview ({s["preview"]}) by more than one: {s}'
        assert not s['drawn'] or s['floor'], f'frame {i} draws tiles with no floor under them: {s}'
        wanted = {s['base'], 'preview'} | set(s['expected'] if s['expected'] is not None else [s['level']])
        stale = set(s['pending']) - wanted
        assert not stale, f'frame {i} still waits for levels {sorted(stale, key=str)} no longer needed: {s}'
    assert cancelled, 'no request was cancelled: the keys no longer outrun the network, the test shows nothing'
    levels = sorted({level_in_thirds(u) for u in cancelled})
    print(f'{len(cancelled)} tile requests cancelled (levels {levels}), {len(finished)} finished, '
          f'{len(samples)} frames')
