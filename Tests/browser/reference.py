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
    tx, ty = -offset_x * scale, -offset_y * scale
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(source)
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
