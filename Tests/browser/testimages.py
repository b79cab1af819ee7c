"""Test images for the browser tests: smooth colour fields with mid-frequency detail and soft discs, so that
a misplaced tile, a wrong level or a seam shows in the PSNR against a libvips rendering, while honest
resampling differences between Chromium and libvips do not."""
import numpy as np
from PIL import Image


def make_image(path, width, height, seed):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    r = 128 + 90 * np.sin(2 * np.pi * x / 300 + seed) * np.cos(2 * np.pi * y / 410)
    g = 40 + 170 * (x / width) * (0.6 + 0.4 * np.cos(2 * np.pi * y / 530))
    b = 128 + 80 * np.sin(2 * np.pi * (x + y) / 170 + seed)
    img = np.stack([r, g, b], axis=-1)
    img += (22 * np.sin(2 * np.pi * x / 64) * np.sin(2 * np.pi * y / 64))[..., None]
    for _ in range(12):
        cx, cy = rng.uniform(0, width), rng.uniform(0, height)
        radius = rng.uniform(40, 0.2 * min(width, height) + 40)
        colour = rng.uniform(0, 255, size=3).astype(np.float32)
        d = np.sqrt((x - cx) ** 2 + (y - cy) ** 2)
        alpha = np.clip((radius - d) / 4.0 + 0.5, 0, 1)[..., None] * 0.8
        img = img * (1 - alpha) + colour * alpha
    # Fine grain (features of about 4 pixels) so that a shift of one pixel, or a tile's overlap drawn in the
    # wrong place, shows at deep zoom; at fit it averages away in any decent downscaler.
    grain = rng.normal(0, 1, size=(height // 4 + 1, width // 4 + 1)).astype(np.float32)
    grain = np.asarray(Image.fromarray(grain, 'F').resize((width, height), Image.BICUBIC))
    img += (12 * grain)[..., None]
    Image.fromarray(np.clip(img + 0.5, 0, 255).astype(np.uint8), 'RGB').save(path)


if __name__ == '__main__':
    import sys
    make_image(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
