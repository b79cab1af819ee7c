"""Memory on a phone (issue 44, goal 4): a scripted session of `--minutes` (5) in each viewer at 390 x 844 CSS
pixels, devicePixelRatio 3, touch, over a gallery of 30 generated images: on each image, zoom in twice, pan right,
down and left, zoom in once more, back to fit, then the next image (about 9 s an image, so the 30 are paged through
in five minutes). The client is its gallery page (`/`, the real one: three pages, the carousel recycling them);
OpenSeadragon 4.1 pages through the same images in its sequence mode (`osd-gallery.html`), canvas drawer.

Every `SAMPLE_S` seconds, through the DevTools protocol and /proc:
- the page's JS heap in use (`Performance.getMetrics`' JSHeapUsedSize),
- DOM nodes and JS event listeners (`Memory.getDOMCounters`),
- the renderer process's and the GPU process's proportional set size (PSS, /proc/PID/smaps_rollup; the pids from
  the browser's `SystemInfo.getProcessInfo`): the renderer's holds the JS heap and the decoded tiles (the client's
  tile images and OpenSeadragon's are decoded into the renderer's memory), the GPU process's the textures drawn from
  them. The goal's "JS heap and decoded-image memory" is at most the renderer's PSS, so that is the figure the
  150 MB is judged on, the JS heap beside it;
- what each viewer says it holds decoded (the client: bytes of decoded tiles in its caches and the tile images
  with pixels; OpenSeadragon: tiles in its cache).
At the start of the last two minutes and at the end the heap is collected first (`HeapProfiler.collectGarbage`), so
the growth over the last two minutes is what stays (retained JS heap, renderer PSS), and the slope of the renderer's
PSS over every sample of those two minutes is given beside it.
"""
import statistics
import time
from pathlib import Path

PHONE = {'width': 390, 'height': 844}
SAMPLE_S = 5
PAUSE_S = 0.9  # between two actions: an animation (300 ms here, OpenSeadragon's springs about a second) and tiles
IMAGES = 30
IMAGE_SIZE = (4096, 3072)
MEMORY_VIEWERS = {'tilescope': '/', 'osd-canvas': '/bench/osd-gallery.html'}

# The same driver as osd-gallery.html's, over the client's gallery page (`window.tilescope`, main.js).
TILESCOPE_DRIVER = """() => {
  const gallery = window.tilescope.gallery;
  const sv = () => gallery.scrollView;
  const layers = () => gallery.carousel.pages.map((p) => p.scrollView?.layer).filter(Boolean);
  window.memory = {
    ready: () => true,
    zoomIn: () => sv()?.setZoomScale(sv().zoomScale * 2, { animated: true }),
    pan: (fx, fy) => sv()?.setContentOffset({ x: sv().offsetX + fx * sv().width, y: sv().offsetY + fy * sv().height },
                                            { animated: true }),
    home: () => sv()?.fit(true),
    next: () => gallery.next(),
    page: () => gallery.ring?.page,
    counters: () => ({
      decodedMB: layers().reduce((n, l) => n + l.cache.bytes, 0) / 2 ** 20,
      encodedMB: layers().reduce((n, l) => n + l.loader.blobs.bytes, 0) / 2 ** 20,
      tilesCached: layers().reduce((n, l) => n + l.cache.size, 0),
      onScreenPageMB: (gallery.carousel.current.scrollView?.layer.cache.bytes ?? 0) / 2 ** 20,
      tileImages: document.querySelectorAll('img.tile').length,
      tileImagesWithPixels: [...document.querySelectorAll('img.tile')].filter((i) => i.naturalWidth > 0).length,
    }),
  };
}"""

# One image's part of the session: (action, argument) pairs, each followed by PAUSE_S.
SCRIPT = [('zoomIn', None), ('zoomIn', None), ('pan', (0.5, 0)), ('pan', (0, 0.5)), ('pan', (-0.5, 0)),
          ('zoomIn', None), ('home', None), ('next', None)]


def make_images(folder, make_one):
    """IMAGES photographs of noise, each its own (seeded) picture."""
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(IMAGES):
        make_one(folder / f'noise-{i:02d}.jpg', IMAGE_SIZE, seed=100 + i)


def pss_mb(pid):
    """Proportional set size of a process in MB (/proc/PID/smaps_rollup), 0 if it is gone."""
    try:
        for line in Path(f'/proc/{pid}/smaps_rollup').read_text().splitlines():
            if line.startswith('Pss:'):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def processes(browser_cdp):
    """{type: [pid, ...]} of the browser's processes."""
    found = {}
    for p in browser_cdp.send('SystemInfo.getProcessInfo')['processInfo']:
        found.setdefault(p['type'], []).append(p['id'])
    return found


def sample(page, cdp, renderers, gpu, started, collect=False):
    if collect:
        cdp.send('HeapProfiler.collectGarbage')
    metrics = {m['name']: m['value'] for m in cdp.send('Performance.getMetrics')['metrics']}
    counters = cdp.send('Memory.getDOMCounters')
    return {'t': round(time.monotonic() - started, 1), 'collected': collect,
            'js_heap_mb': metrics['JSHeapUsedSize'] / 2 ** 20,
            'renderer_pss_mb': sum(pss_mb(pid) for pid in renderers), 'gpu_pss_mb': sum(pss_mb(pid) for pid in gpu),
            'nodes': counters['nodes'], 'listeners': counters['jsEventListeners'],
            'viewer': page.evaluate('window.memory.counters()'), 'page': page.evaluate('window.memory.page()')}


def idle_renderer_pss(browser, base):
    """The PSS of a renderer showing a page of the same server with no viewer (its JSON image list): what any page
    costs, subtracted from the viewers' so that what is left is theirs."""
    browser_cdp = browser.new_browser_cdp_session()
    before = set(processes(browser_cdp).get('renderer', []))
    context = browser.new_context(viewport=PHONE, device_scale_factor=3, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(base + '/api/images')
    page.wait_for_timeout(2000)
    pss = sum(pss_mb(pid) for pid in processes(browser_cdp).get('renderer', []) if pid not in before)
    context.close()
    browser_cdp.detach()
    return pss


def allocators_mb(browser_cdp, page, pids):
    """What holds a process's memory, by Chromium's own accounting: one detailed memory dump
    (`Tracing.requestMemoryDump`, the `disabled-by-default-memory-infra` category) and its top-level allocators'
    effective sizes in MB (an allocator's memory owned by another counted once, where it is owned), summed over `pids`,
    and their parts one level down (`cc/tile_memory`, say): a top-level size includes its parts'.
    The names are Chromium's: `cc` the compositor's tiles and decoded images for raster, `discardable` memory the
    system may take back, `partition_alloc` Blink's and the DOM's heaps, `v8` the JS heap, `skia` its caches."""
    events, done = [], []
    browser_cdp.on('Tracing.dataCollected', lambda e: events.extend(e['value']))
    browser_cdp.on('Tracing.tracingComplete', lambda e: done.append(True))
    browser_cdp.send('Tracing.start', {'traceConfig': {'includedCategories': ['disabled-by-default-memory-infra'],
                                                       'memoryDumpConfig': {'triggers': []}},
                                       'transferMode': 'ReportEvents'})
    browser_cdp.send('Tracing.requestMemoryDump', {'deterministic': True, 'levelOfDetail': 'detailed'})
    browser_cdp.send('Tracing.end')
    for _ in range(300):
        if done:
            break
        page.wait_for_timeout(100)
    sizes = {}
    for event in events:
        if event.get('ph') != 'v' or event.get('pid') not in pids:
            continue
        for name, dump in event.get('args', {}).get('dumps', {}).get('allocators', {}).items():
            attrs = dump.get('attrs', {})
            size = attrs.get('effective_size', attrs.get('size'))
            if name.count('/') > 1 or not size:
                continue
            sizes[name] = sizes.get(name, 0) + int(size['value'], 16) / 2 ** 20
    return dict(sorted(sizes.items(), key=lambda item: -item[1]))


def one_run(browser, base, viewer, minutes, log):
    browser_cdp = browser.new_browser_cdp_session()
    before = set(processes(browser_cdp).get('renderer', []))
    context = browser.new_context(viewport=PHONE, device_scale_factor=3, is_mobile=True, has_touch=True)
    page = context.new_page()
    errors = []
    page.on('pageerror', lambda e: errors.append(str(e)))
    cdp = context.new_cdp_session(page)
    cdp.send('Performance.enable')
    page.goto(base + MEMORY_VIEWERS[viewer])
    if viewer == 'tilescope':
        page.wait_for_function("document.documentElement.dataset.ready === 'true'", timeout=60000)
        page.evaluate(TILESCOPE_DRIVER)
    page.wait_for_function('window.memory && window.memory.ready()', timeout=60000)
    page.wait_for_timeout(2000)
    procs = processes(browser_cdp)
    renderers = [pid for pid in procs.get('renderer', []) if pid not in before]
    gpu = procs.get('GPU', []) + procs.get('gpu-process', [])
    duration = minutes * 60
    last_two = max(0.0, duration - 120)
    started = time.monotonic()
    samples = [sample(page, cdp, renderers, gpu, started)]
    collected_at_last_two = False
    pages = 0
    step = 0
    while time.monotonic() - started < duration:
        action, argument = SCRIPT[step % len(SCRIPT)]
        step += 1
        if argument is None:
            page.evaluate(f'window.memory.{action}()')
        else:
            page.evaluate(f'([x, y]) => window.memory.{action}(x, y)', list(argument))
        pages += action == 'next'
        page.wait_for_timeout(PAUSE_S * 1000)
        elapsed = time.monotonic() - started
        if not collected_at_last_two and elapsed >= last_two:
            samples.append(sample(page, cdp, renderers, gpu, started, collect=True))
            collected_at_last_two = True
        elif elapsed - samples[-1]['t'] >= SAMPLE_S:
            samples.append(sample(page, cdp, renderers, gpu, started))
    samples.append(sample(page, cdp, renderers, gpu, started, collect=True))
    allocators = allocators_mb(browser_cdp, page, set(renderers))
    context.close()
    browser_cdp.detach()
    if errors:
        raise SystemExit(f'{viewer}: page errors: {errors}')
    result = summary(viewer, samples, last_two, pages)
    result['renderers'] = len(renderers)
    result['renderer_allocators_mb'] = {name: mb for name, mb in allocators.items() if '/' not in name}
    result['renderer_allocator_parts_mb'] = {name: mb for name, mb in allocators.items() if '/' in name and mb > 1}
    log(f"memory {viewer:10} {pages} pages: peak JS heap {result['peak_js_heap_mb']:.1f} MB, renderer PSS "
        f"{result['peak_renderer_pss_mb']:.0f} MB, GPU PSS {result['peak_gpu_pss_mb']:.0f} MB; last two minutes "
        f"retained JS heap {result['retained_js_growth_mb']:+.1f} MB, renderer PSS {result['renderer_growth_mb']:+.1f} MB "
        f"({result['renderer_slope_mb_per_min']:+.1f} MB/min)")
    log(f"memory {viewer:10} renderer at the end, by Chromium's allocators: "
        + ', '.join(f'{name} {mb:.1f}' for name, mb in list(result['renderer_allocators_mb'].items())[:8]) + ' MB; parts: '
        + ', '.join(f'{name} {mb:.1f}' for name, mb in list(result['renderer_allocator_parts_mb'].items())[:12]) + ' MB')
    return result


def slope(points):
    """Least-squares slope of (t seconds, y) points, per minute."""
    if len(points) < 2:
        return 0.0
    mt = statistics.fmean(t for t, _ in points)
    my = statistics.fmean(y for _, y in points)
    var = sum((t - mt) ** 2 for t, _ in points)
    return 60 * sum((t - mt) * (y - my) for t, y in points) / var if var else 0.0


def decoded_mb(counters):
    """Decoded tiles held: the client counts its caches' bytes; for OpenSeadragon, its cache's tiles at 256 x 256 x 4
    bytes each (254-pixel tiles and their overlap; an estimate: it holds an image or a canvas a tile)."""
    if 'decodedMB' in counters:
        return counters['decodedMB']
    return counters.get('tilesCached', 0) * 256 * 256 * 4 / 2 ** 20


def summary(viewer, samples, last_two, pages):
    start = next(s for s in samples if s['collected'])
    end = samples[-1]
    tail = [s for s in samples if s['t'] >= start['t']]
    return {
        'viewer': viewer, 'pages': pages, 'samples': samples,
        'peak_js_heap_mb': max(s['js_heap_mb'] for s in samples),
        'peak_renderer_pss_mb': max(s['renderer_pss_mb'] for s in samples),
        'peak_gpu_pss_mb': max(s['gpu_pss_mb'] for s in samples),
        'retained_js_start_mb': start['js_heap_mb'], 'retained_js_end_mb': end['js_heap_mb'],
        'retained_js_growth_mb': end['js_heap_mb'] - start['js_heap_mb'],
        'renderer_growth_mb': end['renderer_pss_mb'] - start['renderer_pss_mb'],
        'gpu_growth_mb': end['gpu_pss_mb'] - start['gpu_pss_mb'],
        'renderer_slope_mb_per_min': slope([(s['t'], s['renderer_pss_mb']) for s in tail]),
        'nodes_start': start['nodes'], 'nodes_end': end['nodes'],
        'listeners_start': start['listeners'], 'listeners_end': end['listeners'],
        'viewer_end': end['viewer'], 'peak_decoded_mb': max(s['viewer'].get('decodedMB', 0) for s in samples),
        'peak_encoded_mb': max(s['viewer'].get('encodedMB', 0) for s in samples),
        'peak_goal_mb': max(s['js_heap_mb'] + decoded_mb(s['viewer']) for s in samples),
    }


def run(browser, base, runs, minutes, log, viewers=tuple(MEMORY_VIEWERS)):
    results = []
    viewers = [v for v in MEMORY_VIEWERS if v in viewers]
    for run_index in range(runs):
        idle = idle_renderer_pss(browser, base)
        log(f'memory: an idle renderer of the same server: {idle:.0f} MB PSS')
        for viewer in viewers[run_index % len(viewers):] + viewers[:run_index % len(viewers)]:
            result = one_run(browser, base, viewer, minutes, log)
            result['idle_renderer_pss_mb'] = idle
            results.append(result)
    return results


def table(results, runs, minutes):
    def med(viewer, f):
        values = [f(r) for r in results if r['viewer'] == viewer]
        return statistics.median(values) if values else None

    rows = [('images paged through', lambda r: r['pages'], '{:.0f}'),
            ('peak JS heap in use', lambda r: r['peak_js_heap_mb'], '{:.1f} MB'),
            ('peak JS heap + decoded tiles (goal: under 150 MB; OpenSeadragon\'s tiles estimated)',
             lambda r: r['peak_goal_mb'], '{:.1f} MB'),
            ('peak renderer PSS (JS heap + decoded images + the rest)', lambda r: r['peak_renderer_pss_mb'], '{:.0f} MB'),
            ('the same, less an idle renderer of the same server', lambda r: r['peak_renderer_pss_mb'] - r['idle_renderer_pss_mb'],
             '{:.0f} MB'),
            ('peak GPU process PSS', lambda r: r['peak_gpu_pss_mb'], '{:.0f} MB'),
            ('peak decoded tiles held (the client\'s caches, its three pages)', lambda r: r['peak_decoded_mb'], '{:.1f} MB'),
            ('peak encoded tile bytes held (the client\'s caches)', lambda r: r['peak_encoded_mb'], '{:.1f} MB'),
            ('last two minutes: retained JS heap, start -> end',
             lambda r: (r['retained_js_start_mb'], r['retained_js_end_mb']), None),
            ('last two minutes: renderer PSS growth', lambda r: r['renderer_growth_mb'], '{:+.1f} MB'),
            ('last two minutes: renderer PSS slope', lambda r: r['renderer_slope_mb_per_min'], '{:+.1f} MB/min'),
            ('last two minutes: GPU process PSS growth', lambda r: r['gpu_growth_mb'], '{:+.1f} MB'),
            ('last two minutes: DOM nodes, start -> end', lambda r: (r['nodes_start'], r['nodes_end']), None),
            ('last two minutes: JS listeners, start -> end', lambda r: (r['listeners_start'], r['listeners_end']), None)]
    # What holds the renderer's memory at the end, by Chromium's allocators: those over 2 MB in any run.
    names = sorted({name for r in results for name, mb in r.get('renderer_allocators_mb', {}).items() if mb > 2},
                   key=lambda name: -max(r.get('renderer_allocators_mb', {}).get(name, 0) for r in results))
    rows += [(f'renderer at the end: `{name}`', lambda r, name=name: r.get('renderer_allocators_mb', {}).get(name, 0),
              '{:.1f} MB') for name in names]
    lines = [f'| medians of {runs}, {minutes:g} min | ' + ' | '.join(MEMORY_VIEWERS) + ' |',
             '|---|' + '---:|' * len(MEMORY_VIEWERS)]
    for label, f, fmt in rows:
        cells = []
        for v in MEMORY_VIEWERS:
            if fmt is None:
                a, b = med(v, lambda r: f(r)[0]), med(v, lambda r: f(r)[1])
                cells.append('-' if a is None else f'{a:,.1f} -> {b:,.1f}' if isinstance(a, float) else f'{a:,} -> {b:,}')
            else:
                m = med(v, f)
                cells.append('-' if m is None else fmt.format(m))
        lines.append(f'| {label} | ' + ' | '.join(cells) + ' |')
    return '\n'.join(lines)
