"""Picture measures shared by the formats benchmarks: luma of a libvips image and SSIM between two
lumas (9 x 9 box windows, the constants of Wang et al. 2004), as bench/formats.sh reports them."""
import numpy as np


def box(a, r=4):
    c = np.cumsum(np.cumsum(np.pad(a, ((1, 0), (1, 0))), 0), 1)
    k = 2 * r + 1
    return (c[k:, k:] - c[:-k, k:] - c[k:, :-k] + c[:-k, :-k]) / (k * k)


def luma(image):
    a = np.ndarray(buffer=image.write_to_memory(), dtype=np.uint8,
                   shape=[image.height, image.width, image.bands]).astype(np.float64)
    return 0.299 * a[..., 0] + 0.587 * a[..., 1] + 0.114 * a[..., 2]


def ssim(x, y):
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    mx, my = box(x), box(y)
    sxx, syy, sxy = box(x * x) - mx * mx, box(y * y) - my * my, box(x * y) - mx * my
    return float(np.mean(((2 * mx * my + c1) * (2 * sxy + c2)) / ((mx * mx + my * my + c1) * (sxx + syy + c2))))
