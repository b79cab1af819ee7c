"""The viewport rules of issue 3 (rules 1-10, zoomToRect, tap), written again in Python for the tests, so the
browser's numbers are checked against the written rules and not against themselves."""
import math
import re

EPS = 1e-9


def max_level(w, h):
    n = max(w, h)
    return 0 if n <= 1 else (n - 1).bit_length()


def level_scale(w, h, level):
    return 2.0 ** (level - max_level(w, h))


def level_size(w, h, level):
    d = 2 ** (max_level(w, h) - level)
    return -(-w // d), -(-h // d)


def preview_level(w, h, max_side=1024):
    level = max_level(w, h)
    while level > 0:
        lw, lh = level_size(w, h, level)
        if lw <= max_side and lh <= max_side:
            break
        level -= 1
    return level


def span(low, high, extent):
    """Integer [low, high) in [0, extent], floor/ceil with the tolerance, never empty (rule 9)."""
    start = clamp(math.floor(low + EPS), 0, extent)
    end = clamp(math.ceil(high - EPS), 0, extent)
    if end <= start:
        start = min(start, extent - 1)
        end = start + 1
    return start, end


def limits(img, req):
    ins = req.get('insets', (0, 0, 0, 0))  # top, left, bottom, right
    aw = req['width'] - ins[1] - ins[3]
    ah = req['height'] - ins[0] - ins[2]
    scale = req.get('scale', 1)
    lo = req.get('minZoomScale', min(aw / img['width'], ah / img['height']))
    if 'minZoomScale' not in req and 'maxZoomScale' in req:
        lo = min(lo, req['maxZoomScale'])  # a maximum sent alone pulls the minimum down to it
    hi = max(lo, req.get('maxZoomScale', max(lo, 2 / scale)))
    return aw, ah, ins, lo, hi


def clamp(x, lo, hi):
    return min(max(x, lo), hi)


def axis_offset(offset, content, size, lead, trail):
    lo, hi = -lead, content + trail - size
    if hi < lo:
        return -lead - ((size - lead - trail) - content) / 2
    return clamp(offset, lo, hi)


def settle(img, req):
    """Rules 3 and 4: (zoomScale, offsetX, offsetY)."""
    aw, ah, ins, lo, hi = limits(img, req)
    z = clamp(req.get('zoomScale', lo), lo, hi)
    ox = axis_offset(req.get('offsetX', 0), img['width'] * z, req['width'], ins[1], ins[3])
    oy = axis_offset(req.get('offsetY', 0), img['height'] * z, req['height'], ins[0], ins[2])
    return z, ox, oy


def viewport(img, req):
    """The whole answer, shaped like the API's (without URLs)."""
    w, h, T, O = img['width'], img['height'], img['tileSize'], img['overlap']
    aw, ah, ins, zmin, zmax = limits(img, req)
    z, ox, oy = settle(img, req)
    cw, ch = w * z, h * z
    x0, y0 = clamp(ox, 0, cw), clamp(oy, 0, ch)
    x1, y1 = clamp(ox + req['width'], 0, cw), clamp(oy + req['height'], 0, ch)
    vis = {'x': x0 / z, 'y': y0 / z, 'width': (x1 - x0) / z, 'height': (y1 - y0) / z}
    scale = req.get('scale', 1)
    P = preview_level(w, h)
    sP = level_scale(w, h, P)
    d = z * scale
    M = max_level(w, h)
    tiles = []
    if d <= sP + EPS:
        resolution, level = 'low', None
    else:
        resolution = 'high'
        level = clamp(M + math.ceil(math.log2(d) - EPS), 0, M)
        s = level_scale(w, h, level)
        lw, lh = level_size(w, h, level)
        lx0, lx1 = span(vis['x'] * s, (vis['x'] + vis['width']) * s, lw)
        ly0, ly1 = span(vis['y'] * s, (vis['y'] + vis['height']) * s, lh)
        cx, cy = (ox + req['width'] / 2) / z * s, (oy + req['height'] / 2) / z * s
        for row in range(ly0 // T, -(-ly1 // T)):
            for col in range(lx0 // T, -(-lx1 // T)):
                fx0 = col * T - (O if col > 0 else 0)
                fx1 = min(lw, (col + 1) * T + O)
                fy0 = row * T - (O if row > 0 else 0)
                fy1 = min(lh, (row + 1) * T + O)
                k = z / s
                dx = (col * T + min((col + 1) * T, lw)) / 2 - cx
                dy = (row * T + min((row + 1) * T, lh)) / 2 - cy
                tiles.append({'level': level, 'column': col, 'row': row, 'order': (dx * dx + dy * dy, row, col),
                              'frame': {'x': fx0 * k, 'y': fy0 * k, 'width': (fx1 - fx0) * k,
                                        'height': (fy1 - fy0) * k}})
        tiles.sort(key=lambda t: t['order'])  # nearest the viewport centre first, then row, column
        for t in tiles:
            del t['order']
    return {'zoomScale': z, 'minimumZoomScale': zmin, 'maximumZoomScale': zmax,
            'contentSize': {'width': cw, 'height': ch}, 'contentOffset': {'x': ox, 'y': oy},
            'visibleRect': vis, 'resolution': resolution, 'threshold': sP / scale, 'level': level, 'tiles': tiles}


def zoom_to_rect(img, req, rect):
    aw, ah, ins, lo, hi = limits(img, req)
    x, y, rw, rh = rect
    z = clamp(min(aw / rw, ah / rh), lo, hi)
    cx, cy = x + rw / 2, y + rh / 2
    return settle(img, {**req, 'zoomScale': z, 'offsetX': cx * z - (ins[1] + aw / 2),
                        'offsetY': cy * z - (ins[0] + ah / 2)})


def tap(img, req, point, factor=1.5):
    aw, ah, ins, lo, hi = limits(img, req)
    z, _, _ = settle(img, req)
    nz = clamp(z * factor, lo, hi)
    w, h = aw / nz, ah / nz
    return zoom_to_rect(img, req, (point[0] - w / 2, point[1] - h / 2, w, h))


def zoom_around(img, req, new_zoom, view_point):
    """Wheel and pinch: the image point under view_point stays there, then rules 3 and 4."""
    z, ox, oy = settle(img, req)
    ix, iy = (ox + view_point[0]) / z, (oy + view_point[1]) / z
    _, _, _, lo, hi = limits(img, req)
    nz = clamp(new_zoom, lo, hi)
    return settle(img, {**req, 'zoomScale': nz, 'offsetX': ix * nz - view_point[0], 'offsetY': iy * nz - view_point[1]})


# Tile URLs: Deep Zoom's (id, level, column, row), and the levels between them (docs/api.md#levels-between-deep-zooms:
# id, the Deep Zoom level below, step 1 or 2, column, row).
DEEP_ZOOM_TILE = re.compile(r'/dzi/([^/]+)_files/(\d+)/(\d+)_(\d+)\.(?:jpeg|webp|avif|png)')
BETWEEN_TILE = re.compile(r'/images/([^/]+)/between/(\d+)/([12])/(\d+)_(\d+)\.(?:jpeg|avif)')


def is_tile(url):
    return bool(DEEP_ZOOM_TILE.search(url) or BETWEEN_TILE.search(url))


def level_in_thirds(url):
    """The client's level of a tile URL (LevelsBetween.js): Deep Zoom's level L is 3L, the two between L and L + 1
    are 3L + 1 and 3L + 2."""
    deep_zoom = DEEP_ZOOM_TILE.search(url)
    if deep_zoom:
        return 3 * int(deep_zoom.group(2))
    between = BETWEEN_TILE.search(url)
    return 3 * int(between.group(2)) + int(between.group(3))

