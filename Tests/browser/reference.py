"""Reference renderings of a viewport, made from the source image with libvips (the `vips` CLI), and PSNR.

The browser draws image pixel area [x, x+1) at device pixels [(x*z - ox)*s, ((x+1)*z - ox)*s), for zoomScale z,
contentOffset (ox, oy) in points and devicePixelRatio s. libvips' affine maps pixel indices, X = k*(x + idx) + odx,
so area-correct placement is idx = 0.5 and odx = t - 0.5 where t is where the image's left edge lands. Shrinking
goes through `vips resize` first (area-correct, antialiased), then a translation places it.
"""
import math
import subprocess
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image


def _vips(*args):
    subprocess.run(['vips', *map(str, args)], check=True, capture_output=True)


def render_viewport(source, zoom_scale, offset_x, offset_y, width, height, scale=1.0):
    """The viewport (width x height points at `scale`) as an RGB array, black outside the image."""
    k = zoom_scale * scale
    out_w, out_h = round(width * scale), round(height * scale)
    img_w, img_h = (int(subprocess.check_output(['vipsheader', '-f', f, str(source)])) for f in ('width', 'height'))
    # Only the part of the source in view (and a margin for the filters) goes through libvips.
    margin = math.ceil(4 / min(k, 1)) + 2
    x0 = max(0, math.floor(offset_x / zoom_scale) - margin)
    y0 = max(0, math.floor(offset_y / zoom_scale) - margin)
    x1 = min(img_w, math.ceil((offset_x + width) / zoom_scale) + margin)
    y1 = min(img_h, math.ceil((offset_y + height) / zoom_scale) + margin)
    if x1 <= x0 or y1 <= y0:
        return np.zeros((out_h, out_w, 3), np.uint8)
    tx, ty = (x0 * zoom_scale - offset_x) * scale, (y0 * zoom_scale - offset_y) * scale
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / 'region.v'
        _vips('extract_area', source, src, x0, y0, x1 - x0, y1 - y0)
        if k < 1:
            shrunk = Path(tmp) / 'shrunk.v'
            _vips('resize', src, shrunk, k)
            src, k = shrunk, 1.0
        out = Path(tmp) / 'out.png'
        _vips('affine', src, out, f'{k} 0 0 {k}', '--interpolate', 'bilinear', '--idx', 0.5, '--idy', 0.5,
              '--odx', tx - 0.5, '--ody', ty - 0.5, '--oarea', f'0 0 {out_w} {out_h}', '--background', '0')
        return np.asarray(Image.open(out).convert('RGB'))


def psnr(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    assert a.shape == b.shape, f'shapes differ: {a.shape} vs {b.shape}'
    mse = np.mean((a - b) ** 2)
    return math.inf if mse == 0 else 10 * math.log10(255.0 ** 2 / mse)
