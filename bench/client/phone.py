"""Smooth on a phone (issue 44, goal 1): the client and OpenSeadragon 4.1 (its canvas drawer and its HTML drawer,
`useCanvas: false`) at 390 x 844 CSS pixels, devicePixelRatio 3, touch, the CPU slowed 4x (DevTools'
`Emulation.setCPUThrottlingRate`), through three gestures sent as touch events through the DevTools protocol
(`Input.dispatchTouchEvent`) at a finger's pace: a pinch-zoom, a fling with momentum and a double tap.

For each gesture, from its first touch to the last frame in which the view moved (smoothness.js, in the page): the
share of late frames (more than 25 ms after the previous `requestAnimationFrame` timestamp: a missed vsync) and the
long tasks' share of that time. Each viewer opens the image in a fresh context, settles at fit with its tiles
drawn, then goes through the gestures in order (the fling pans the zoomed-in view the pinch left). Medians of
`--runs` runs, viewers taking turns; goals: at most 5 % late frames, long tasks under 5 % of the gesture's time.
"""
import json
import os
import statistics
import time

import throttle

PHONE = {'width': 390, 'height': 844}
# `floor` (floor.html) is what any viewer must do for these gestures, one picture moved by a CSS transform: its late
# frames are this browser's and machine's, not a viewer's.
PHONE_VIEWERS = {'tilescope': 'phone.html?', 'osd-canvas': 'osd.html?phone&', 'osd-html': 'osd.html?phone&drawer=html&',
                 'floor': 'floor.html?'}
# Trace categories: the frames the compositor drew or dropped, and the pages' user timing marks to align the clocks.
TRACE_CATEGORIES = ['toplevel', 'devtools.timeline', 'disabled-by-default-devtools.timeline', 'disabled-by-default-devtools.timeline.frame', 'blink.user_timing']


def beside_viewers(ref):
    """The client against the client of commit `ref` (served under /bench/beside/ by run.py), for an A/B in one run."""
    return {'tilescope': 'phone.html?', f'tilescope@{ref}': 'phone.html?client=beside&', 'floor': 'floor.html?'}
FRAME_MS = 16  # a finger's events come once a frame


def pinch(send):
    """Two fingers 80 px apart in the middle moving to 280 px apart over 24 frames, then lifted."""
    cx, cy = PHONE['width'] / 2, PHONE['height'] / 2
    for i in range(25):
        half = 40 + 100 * i / 24
        send('touchStart' if i == 0 else 'touchMove', [(cx - half, cy), (cx + half, cy)], i * FRAME_MS)
    send('touchEnd', [], 25 * FRAME_MS)


def fling(send):
    """One finger up 240 px in 8 frames (1.9 px/ms), lifted while moving: momentum follows."""
    x, y = PHONE['width'] / 2, PHONE['height'] * 0.7
    for i in range(9):
        send('touchStart' if i == 0 else 'touchMove', [(x + 4 * i, y - 30 * i)], i * FRAME_MS)
    send('touchEnd', [], 9 * FRAME_MS)


def double_tap(send):
    """Two taps 150 ms apart a little off the middle: an animated zoom in about them."""
    x, y = PHONE['width'] * 0.4, PHONE['height'] * 0.45
    for tap in range(2):
        send('touchStart', [(x, y)], tap * 150)
        send('touchEnd', [], tap * 150 + 50)


GESTURES = [('pinch-zoom', pinch), ('fling', fling), ('double tap', double_tap)]


def wait_until(page, js, timeout_s, what):
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(js):
        if time.monotonic() > deadline:
            raise SystemExit(f'{what}: not after {timeout_s} s')
        time.sleep(0.1)


def one_run(browser, base, viewer, image, cpu, viewers=PHONE_VIEWERS, trace=None):
    context = browser.new_context(viewport=PHONE, device_scale_factor=3, is_mobile=True, has_touch=True)
    page = context.new_page()
    cdp = throttle.apply(page, None, cpu)
    errors = []
    page.on('pageerror', lambda e: errors.append(str(e)))
    page.goto(f"{base}/bench/{viewers[viewer]}image={image['id']}")
    wait_until(page, 'window.phone && window.smoothness', 120, f'{viewer} open')
    # Every tile of the fit drawn before the gestures, where the viewer gets there (OpenSeadragon 4.1's canvas drawer
    # at DPR 3 with the CPU slowed did not say so within two minutes once): then the gestures start anyway.
    deadline = time.monotonic() + 60
    while not page.evaluate('window.phone.loaded()') and time.monotonic() < deadline:
        time.sleep(0.2)

    clock = {}

    def send(kind, points, at_ms):
        """A touch event `at_ms` after its gesture's first, stamped with that time: a finger keeps its pace whatever
        the page does, so the release velocity, and the glide after it, are the same for every viewer (stamped with
        the time of sending, a busy page slowed the finger down and its fling was 0.5-2.2 s long from run to run)."""
        if clock.get('start') is None:
            clock['start'] = time.time()
        when = clock['start'] + at_ms / 1000
        time.sleep(max(0.0, when - time.time()))
        cdp.send('Input.dispatchTouchEvent', {'type': kind, 'timestamp': when, 'touchPoints': [
            {'x': x, 'y': y, 'id': i, 'radiusX': 4, 'radiusY': 4} for i, (x, y) in enumerate(points)]})

    result = {'viewer': viewer, 'loaded_at_fit': page.evaluate('window.phone.loaded()')}
    if trace:
        browser.start_tracing(page=page, categories=TRACE_CATEGORIES)
    for name, gesture in GESTURES:
        start = page.evaluate('window.smoothness.mark()')
        clock['start'] = None
        gesture(send)
        # Still for 30 frames (half a second) after its last event: the momentum, bounce or animation is over. Frames
        # before that event do not count: the view was still before the gesture, and a double tap's zoom starts
        # only once its last event has been taken (counted from the start, its report was taken before the zoom).
        sent = page.evaluate('performance.now()')
        wait_until(page, f'window.smoothness.stillFrames({sent}) >= 30', 60, f'{viewer}: {name}')
        # A gesture the viewer does not take (OpenSeadragon 4.1 ignores the touch double tap here) is reported so.
        result[name] = page.evaluate('(start) => window.smoothness.report(start)', start)
    if trace:
        events = json.loads(browser.stop_tracing())
        events = events['traceEvents'] if isinstance(events, dict) else events
        trace.mkdir(parents=True, exist_ok=True)
        (trace / f"{viewer.replace('@', '-')}-{time.strftime('%H%M%S')}.json").write_text(json.dumps(events))
        for name, _ in GESTURES:
            if result[name]['moved']:
                result[name]['trace'] = trace_frames(events, result[name])
    context.close()
    if errors:
        raise SystemExit(f'{viewer}: page errors: {errors}')
    return result


def trace_frames(events, gesture):
    """The frames the compositor drew (`DrawFrame`) and dropped (`DroppedFrame`) in the renderer of the page during a
    gesture's window (`gesture['mark']`, a user timing mark at its start, aligns the page's clock with the trace's),
    and those drawn more than 25 ms after the one before: the rAF count's cross-check."""
    mark = next((e for e in events if e.get('name') == gesture['markName'] and e.get('ph') in ('R', 'I', 'i', 'n')), None)
    if mark is None:
        return None
    offset = mark['ts'] / 1000 - gesture['markTime']  # trace ms = page ms + offset
    start, end = gesture['markTime'] + offset, gesture['markTime'] + gesture['ms'] + offset
    pid = mark['pid']
    drawn = sorted(e['ts'] / 1000 for e in events if e.get('name') == 'DrawFrame' and e.get('pid') == pid
                   and start <= e['ts'] / 1000 <= end)
    dropped = sum(1 for e in events if e.get('name') == 'DroppedFrame' and e.get('pid') == pid
                  and start <= e['ts'] / 1000 <= end)
    gaps = [b - a for a, b in zip(drawn, drawn[1:])]
    # The renderer main thread's CPU time (thread time, which the machine's load does not add to) in its tasks.
    main = next((e['tid'] for e in events if e.get('ph') == 'M' and e.get('name') == 'thread_name'
                 and e.get('pid') == pid and e['args'].get('name') == 'CrRendererMain'), None)
    tasks = [e for e in events if e.get('pid') == pid and e.get('tid') == main and e.get('ph') == 'X'
             and e.get('name') == 'ThreadControllerImpl::RunTask' and start <= e['ts'] / 1000 <= end]
    return {'drawn': len(drawn), 'dropped': dropped, 'late': sum(1 for g in gaps if g > 25),
            'worstGapMs': max(gaps, default=0), 'mainCpuMs': sum(e.get('tdur', 0) for e in tasks) / 1000}


def run(browser, base, image, runs, cpu, log, viewers=PHONE_VIEWERS, trace=None):
    results = []
    names = list(viewers)
    for run_index in range(runs):
        for viewer in names[run_index % len(names):] + names[:run_index % len(names)]:
            r = one_run(browser, base, viewer, image, cpu, viewers, trace)
            r['load'] = os.getloadavg()[0]
            results.append(r)
            log(f'phone run {run_index + 1} {viewer:10} load {r["load"]:.1f} ' + ', '.join(
                f"{name}: {r[name]['late']}/{r[name]['frames']} late, {r[name]['longTaskMs']:.0f} of {r[name]['ms']:.0f} ms "
                f"in long tasks, worst gap {r[name]['worstGapMs']:.0f} ms"
                + (f" (trace: {r[name]['trace']['late']}/{r[name]['trace']['drawn']} drawn late, "
                   f"{r[name]['trace']['dropped']} dropped)" if r[name].get('trace') else '')
                if r[name]['moved'] else f'{name}: did not move'
                for name, _ in GESTURES))
    return results


def table(results, runs, viewers=PHONE_VIEWERS):
    def med(viewer, name, f):
        moved = [f(r[name]) for r in results if r['viewer'] == viewer and r[name]['moved']]
        moved = [v for v in moved if v is not None]
        return statistics.median(moved) if moved else None

    late = lambda g: 100 * g['late'] / max(g['frames'], 1)
    long_share = lambda g: 100 * g['longTaskMs'] / g['ms']
    lines = [f'| medians of {runs} | ' + ' | '.join(viewers) + ' |', '|---|' + '---:|' * len(viewers)]
    traced = lambda g: 100 * g['trace']['late'] / max(g['trace']['drawn'] - 1, 1) if g.get('trace') else None
    for name, _ in GESTURES:
        for label, f, fmt in ((f'{name}: late frames', late, '{:.1f} %'),
                              (f'{name}: late frames in the trace (DrawFrame)', traced, '{:.1f} %'),
                              (f'{name}: main thread CPU in the trace', lambda g: g['trace'].get('mainCpuMs') if g.get('trace') else None, '{:.0f} ms'),
                              (f'{name}: long tasks, share of its time', long_share, '{:.1f} %'),
                              (f'{name}: frames, time', None, None),
                              (f'{name}: worst gap between frames', lambda g: g['worstGapMs'], '{:.0f} ms')):
            if f is None:
                cells = [f"{med(v, name, lambda g: g['frames']):.0f}, {med(v, name, lambda g: g['ms']):,.0f} ms"
                         if med(v, name, lambda g: g['frames']) is not None else 'did not move' for v in viewers]
            else:
                cells = [fmt.format(med(v, name, f)) if med(v, name, f) is not None else 'did not move'
                         for v in viewers]
            if 'trace' in label and all(c == 'did not move' for c in cells):
                continue  # no trace taken
            lines.append(f'| {label} | ' + ' | '.join(cells) + ' |')
    loads = [f"{min(r['load'] for r in results if r['viewer'] == v):.1f}-{max(r['load'] for r in results if r['viewer'] == v):.1f}"
             for v in viewers]
    lines.append('| load average (1 min) at the runs | ' + ' | '.join(loads) + ' |')
    return '\n'.join(lines)
