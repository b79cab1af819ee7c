"""Every answer for a region shows what libvips reads from the source, upright and in sRGB.

The reference is libvips's own reading of each source (`vips autorot`, `icc_transform` to sRGB with the
embedded profile, relative colorimetric; alpha flattened onto white), shrunk by the pyramid's box rule. It is
never Tilescope's own output. Held to it: the sizes every descriptor states, the preview, the preview level
and the full level stitched from their tiles, the WebP, AVIF and JPEG XL answers of a tile, and IIIF 3.0 and
2.1 images. Colours are compared as the mean of each flat quadrant, away from its edges: within 3 levels of
libvips's conversion, and within 2 of one another; the picture as a whole by PSNR (a turn, a flip or a
misplaced tile costs far more than JPEG does). A transparent source's answers in formats that keep alpha are
held to libvips's reading with its alpha, laid over black and over white (a wrong alpha shows on one of them)."""
import math
import re
import tempfile
from pathlib import Path

import numpy as np
import pytest
import pyvips

import sources

LIBVIPS_TOLERANCE = 3
BETWEEN_ANSWERS = 2
MIN_PSNR = 25  # JPEG at sharp quadrant edges of small images: 28-35 dB; a turn or a flip: under 12


def as_array(image):
    """8-bit RGB pixels (grey spread over three bands) as a height x width x 3 float array."""
    if image.hasalpha():
        image = image.flatten(background=[255] * (image.bands - 1))
    if image.format != 'uchar':
        image = image.cast('uchar')
    array = np.ndarray(buffer=image.write_to_memory(), dtype=np.uint8,
                       shape=(image.height, image.width, image.bands)).astype(np.float64)
    return np.repeat(array, 3, axis=2) if array.shape[2] == 1 else array[:, :, :3]


def libvips_converted(path):
    """libvips's reading of the source: upright, through its profile to 8-bit sRGB, alpha (if any) kept."""
    image = pyvips.Image.new_from_file(str(path)).autorot()
    if image.get_typeof('icc-profile-data'):
        image = image.icc_transform('srgb', embedded=True, intent='relative', depth=8)
    if image.interpretation not in ('srgb', 'b-w') or image.format != 'uchar':
        image = image.colourspace('srgb').cast('uchar')
    return image


def libvips_reading(path):
    """What libvips shows of the source: `libvips_converted`, on white (in 8-bit values: flattened before
    the conversion, a 16-bit image would take 255 for near black)."""
    image = libvips_converted(path)
    if image.hasalpha():
        image = image.flatten(background=[255] * (image.bands - 1))
    return as_array(image)


def box_shrunk(array, factor):
    """The pyramid's rule, as dzsave makes each level from the one below: a pixel is the mean of a 2 x 2 block
    of the finer level, an odd side's last column or row averaged with a copy of itself."""
    while factor > 1:
        padded = np.pad(array, ((0, array.shape[0] % 2), (0, array.shape[1] % 2), (0, 0)), mode='edge')
        array = padded.reshape(padded.shape[0] // 2, 2, padded.shape[1] // 2, 2, 3).mean(axis=(1, 3))
        factor //= 2
    return array


def decode(body):
    return as_array(pyvips.Image.new_from_buffer(body, ''))


def psnr(a, b):
    assert a.shape == b.shape, f'{a.shape} against {b.shape}'
    mse = ((a - b) ** 2).mean()
    return math.inf if mse == 0 else 10 * math.log10(255 ** 2 / mse)


def quadrant_means(array):
    """The mean colour of the middle third of each quadrant: away from its edges, and from the bar whichever
    way the picture is turned (it lies within 12 to 29 % of its quadrant's side). A quadrant a few pixels thin
    (a strip's preview) is taken whole, and one of no pixels is left out (NaN)."""
    height, width = array.shape[:2]
    means = []
    for top, bottom in ((0, height // 2), (height // 2, height)):
        for left, right in ((0, width // 2), (width // 2, width)):
            h, w = bottom - top, right - left
            inner = array[top + h // 3: bottom - h // 3, left + w // 3: right - w // 3]
            if inner.size == 0:
                inner = array[top:bottom, left:right]
            means.append(inner.reshape(-1, 3).mean(axis=0) if inner.size else np.full(3, np.nan))
    return np.array(means)


def worst_difference(a, b):
    """The largest difference between two sets of quadrant means, quadrants of no pixels left out."""
    differences = np.abs(quadrant_means(a) - quadrant_means(b))
    return np.nanmax(differences) if not np.isnan(differences).all() else 0.0


def expect_faithful(answer, reference, what, within=LIBVIPS_TOLERANCE):
    assert answer.shape == reference.shape, f'{what}: {answer.shape[1]}x{answer.shape[0]}, ' \
                                            f'libvips {reference.shape[1]}x{reference.shape[0]}'
    quality = psnr(answer, reference)
    assert quality > MIN_PSNR, f'{what}: {quality:.1f} dB against libvips\'s reading (turned, flipped or misplaced?)'
    worst = worst_difference(answer, reference)
    assert worst <= within, f'{what}: a quadrant\'s colour is {worst:.1f} levels from libvips\'s'


def level_size(image, level):
    width, height = image['width'], image['height']
    for _ in range(image['maxLevel'] - level):
        width, height = (width + 1) // 2, (height + 1) // 2
    return width, height


def stitched(server, image, level, suffix='jpeg', accept=None):
    """The level from its tiles (`suffix` their format), each tile's overlap cut away."""
    template = image['urls']['tiles'].replace('.jpeg', '.' + suffix).replace('{level}', str(level))
    return assembled(server, image, level_size(image, level), template, accept)


def assembled(server, image, size_of_level, template, accept):
    """A level `size_of_level` (width, height) from the tiles `template` names by `{col}` and `{row}`, each tile's
    overlap cut away."""
    width, height = size_of_level
    size, overlap = image['tileSize'], image['overlap']
    out = np.zeros((height, width, 3))
    for row in range(-(-height // size)):
        for column in range(-(-width // size)):
            url = template.replace('{col}', str(column)).replace('{row}', str(row))
            status, _, body = server.get(url, accept=accept)
            assert status == 200, f'{url}: {status}'
            tile = decode(body)
            x, y = (overlap if column else 0), (overlap if row else 0)
            w, h = min(size, width - column * size), min(size, height - row * size)
            out[row * size: row * size + h, column * size: column * size + w] = tile[y: y + h, x: x + w]
    return out


def pytest_generate_tests(metafunc):
    """One case a source: the names make_all writes (made once more in a scratch folder to learn them)."""
    if 'name' in metafunc.fixturenames:
        with tempfile.TemporaryDirectory() as folder:
            metafunc.parametrize('name', sorted(sources.make_all(Path(folder))))


@pytest.fixture
def case(served, source_folder, name):
    folder, _ = source_folder
    reference = libvips_reading(folder / name)
    return served, served.images[name], reference


def test_pyramids_are_served_from_their_own_levels_and_other_sources_built(case):
    _, image, _ = case
    assert image['served'] == ('direct' if image['fileName'] in sources.DIRECT else 'built')


def test_every_descriptor_states_the_upright_size(case):
    server, image, reference = case
    height, width = reference.shape[:2]
    assert (image['width'], image['height']) == (width, height)
    dzi = server.get(image['urls']['dzi'])[2].decode()
    assert re.search(rf'Height="{height}"\s+Width="{width}"', dzi), dzi
    for version in (3, 2):
        info = server.json(f"/iiif/{version}/{image['id']}/info.json")
        assert (info['width'], info['height']) == (width, height), f'IIIF {version}'


def test_the_preview_and_every_level_are_the_source_shrunk(case):
    server, image, reference = case
    preview_level = image['previewLevel']
    factor = 2 ** (image['maxLevel'] - preview_level)
    status, _, body = server.get(image['urls']['preview'])
    assert status == 200
    preview = decode(body)
    expect_faithful(preview, box_shrunk(reference, factor), 'preview')
    levels = {}
    for level in sorted({max(0, preview_level - 1), preview_level, image['maxLevel']}):
        levels[level] = stitched(server, image, level)
        expect_faithful(levels[level], box_shrunk(reference, 2 ** (image['maxLevel'] - level)), f'level {level}')
    between = worst_difference(preview, levels[preview_level])
    assert between <= BETWEEN_ANSWERS, f'the preview and its level differ by {between:.1f} levels'


@pytest.mark.parametrize('suffix, accept', [('webp', None), ('avif', None), ('webp', 'image/jxl,image/avif,*/*')])
def test_every_tile_format_shows_the_same_picture(case, suffix, accept):
    server, image, reference = case
    if image['fileName'] in sources.DIRECT:
        # JPEG tiles only: the other formats are made from stored JPEG tiles, which such a source has none of.
        assert list(image['urls']['formats']) == ['jpeg']
        status, _, body = server.get(image['urls']['tiles'].split('?')[0].replace('{level}', '0').replace('{col}_{row}', '0_0')
                                     .replace('.jpeg', f'.{suffix}'), accept=accept)
        assert status == 404 and b'directly' in body, (status, body[:200])
        return
    # The full level, but for the strip (394 tiles to encode): its preview level.
    level = image['maxLevel'] if image['width'] * image['height'] <= 10_000_000 and image['width'] < 20000 \
        else image['previewLevel']
    jpeg = stitched(server, image, level)
    other = stitched(server, image, level, suffix=suffix, accept=accept)
    expect_faithful(other, box_shrunk(reference, 2 ** (image['maxLevel'] - level)), f'{suffix} tiles (Accept {accept})')
    between = worst_difference(other, jpeg)
    assert between <= BETWEEN_ANSWERS, f'{suffix} and JPEG tiles differ by {between:.1f} levels'


BETWEEN_FRACTIONS = {1: (5, 8), 2: (4, 5)}


def between_size(image, below, step):
    """A level between Deep Zoom levels `below` and `below + 1`: the finer one's size times 5/8 or 4/5, rounded up."""
    width, height = level_size(image, below + 1)
    numerator, denominator = BETWEEN_FRACTIONS[step]
    return -(-width * numerator // denominator), -(-height * numerator // denominator)


def stitched_between(server, image, below, step, suffix, accept=None):
    """A level between Deep Zoom's from its tiles in `suffix`, each tile's overlap cut away."""
    template = image['urls']['formats'][suffix]['between'].replace('{level}', str(below)).replace('{step}', str(step))
    return assembled(server, image, between_size(image, below, step), template, accept)


@pytest.mark.parametrize('step, suffix, accept', [(1, 'jpeg', None), (2, 'jpeg', None), (2, 'avif', None),
                                                  (1, 'avif', 'image/jxl,image/avif,*/*')])
def test_the_levels_between_show_the_same_picture(case, step, suffix, accept):
    """The levels between Deep Zoom's (docs/api.md#levels-between-deep-zooms), just above the preview level: libvips's
    reading shrunk by the pyramid's rule to the finer level, then resized by libvips to the level's size."""
    server, image, reference = case
    formats = image['urls']['formats']
    if image['fileName'] in sources.DIRECT or image.get('alpha'):
        # Made from stored JPEG tiles: a source served directly has none, a transparent one keeps PNG tiles.
        assert not any('between' in links for links in formats.values()), formats
        return
    below = image['previewLevel']
    if below >= image['maxLevel']:
        assert 'between' in formats[suffix]
        below = image['maxLevel'] - 1
        if below < 0:
            return
    finer = box_shrunk(reference, 2 ** (image['maxLevel'] - below - 1)).round().clip(0, 255).astype(np.uint8)
    width, height = between_size(image, below, step)
    finer_image = pyvips.Image.new_from_memory(np.ascontiguousarray(finer).tobytes(), finer.shape[1], finer.shape[0], 3, 'uchar')
    expected = as_array(finer_image.resize(width / finer.shape[1], vscale=height / finer.shape[0], kernel='linear'))
    answer = stitched_between(server, image, below, step, suffix, accept)
    expect_faithful(answer, expected, f'level {below}.{step} in {suffix} (Accept {accept})')


# The longest side IIIF `max` gives in each format: info.json's maxWidth (JPEG's 65500), or the format's own.
MAX_SIDE = {'jpg': 65500, 'png': 65500, 'tif': 65500, 'webp': 16383, 'avif': 16384}


def largest_within(width, height, limit):
    """The size IIIF `max` gives within a longest side of `limit`."""
    if max(width, height) <= limit:
        return width, height
    scale = limit / max(width, height)
    return max(1, round(width * scale)), max(1, round(height * scale))


@pytest.mark.parametrize('path', [
    '/iiif/3/{id}/full/max/0/default.jpg',
    '/iiif/3/{id}/full/max/0/default.png',
    '/iiif/3/{id}/full/max/0/default.webp',
    '/iiif/3/{id}/full/max/0/default.tif',
    '/iiif/3/{id}/full/max/0/default.avif',
    '/iiif/2/{id}/full/max/0/default.jpg',
    '/iiif/3/{id}/full/pct:50/0/default.jpg',
    '/iiif/3/{id}/{quarter}/max/0/default.png',
    '/iiif/3/{id}/{quarter}/max/0/default.jpg',
    '/iiif/3/{id}/{quarter}/max/0/default.webp',
])
def test_iiif_images_show_the_same_picture(case, path):
    server, image, reference = case
    height, width = reference.shape[:2]
    x, y, w, h = width // 4, height // 4, max(1, width // 2), max(1, height // 2)
    url = path.replace('{id}', image['id']).replace('{quarter}', f'{x},{y},{w},{h}')
    status, _, body = server.get(url)
    assert status == 200, f'{url}: {status} {body[:200]!r}'
    answer = decode(body)
    expected = reference[y: y + h, x: x + w] if '{quarter}' in path else reference
    if answer.shape[:2] != expected.shape[:2]:
        # Scaled: IIIF resizes with its own kernel, so the reference is libvips resizing its own reading to
        # the same size (the colour of flat quadrants does not depend on the kernel).
        if 'max' in path:
            limit = MAX_SIDE[path.rsplit('.', 1)[1]]
            assert (answer.shape[1], answer.shape[0]) == largest_within(expected.shape[1], expected.shape[0], limit), \
                f'{url}: max is {answer.shape[1]}x{answer.shape[0]}'
        read = pyvips.Image.new_from_memory(np.ascontiguousarray(expected).astype(np.uint8).tobytes(),
                                            expected.shape[1], expected.shape[0], 3, 'uchar')
        expected = as_array(read.resize(answer.shape[1] / expected.shape[1],
                                        vscale=answer.shape[0] / expected.shape[0]))
    expect_faithful(answer, expected, url)


def libvips_reading_with_alpha(path):
    """libvips's reading, the alpha kept: (over black, over white), each H x W x 3."""
    return over(libvips_converted(path))


def over(image):
    """An image with alpha laid over black and over white: the two pictures it shows, as arrays. An answer
    without alpha is opaque (libwebp leaves out an alpha that is opaque everywhere)."""
    if not image.hasalpha():
        picture = as_array(image)
        return picture, picture
    return tuple(as_array(image.flatten(background=[value] * (image.bands - 1))) for value in (0, 255))


TRANSPARENT = ['alpha.png', 'alpha-ramp.png', 'alpha-grey.png', 'alpha16.png']


@pytest.mark.parametrize('transparent', TRANSPARENT)
@pytest.mark.parametrize('suffix', ['png', 'webp', 'avif'])
def test_a_transparent_sources_tiles_keep_its_alpha(served, source_folder, transparent, suffix):
    """Every level's tiles in a format with alpha: the source with its alpha, shrunk by the pyramid's rule,
    laid over black and over white (the rule shrinks what is shown, so a pixel's hidden colour counts for
    nothing); the JPEG tiles are the source over the server's background (white)."""
    folder, _ = source_folder
    image = served.images[transparent]
    assert image['alpha'] is True and suffix in image['urls']['formats']
    read = pyvips.Image.new_from_file(str(folder / transparent))
    assert read.hasalpha()
    black, white = libvips_reading_with_alpha(folder / transparent)
    size, overlap = image['tileSize'], image['overlap']
    for level in (image['maxLevel'], image['maxLevel'] - 1, image['maxLevel'] - 2):
        factor = 2 ** (image['maxLevel'] - level)
        width, height = level_size(image, level)
        shown = [np.zeros((height, width, 3)), np.zeros((height, width, 3))]
        template = image['urls']['formats'][suffix]['tiles']
        for row in range(-(-height // size)):
            for column in range(-(-width // size)):
                url = template.replace('{level}', str(level)).replace('{col}', str(column)).replace('{row}', str(row))
                status, headers, body = served.get(url)
                assert status == 200, f'{url}: {status}'
                tile = pyvips.Image.new_from_buffer(body, '')
                x, y = (overlap if column else 0), (overlap if row else 0)
                w, h = min(size, width - column * size), min(size, height - row * size)
                for index, picture in enumerate(over(tile)):
                    shown[index][row * size: row * size + h, column * size: column * size + w] = picture[y: y + h, x: x + w]
        for picture, reference, on in zip(shown, (black, white), ('black', 'white')):
            expect_faithful(picture, box_shrunk(reference, factor), f'{suffix} level {level} over {on}')
    jpeg = stitched(served, image, image['maxLevel'])
    expect_faithful(jpeg, white, 'JPEG tiles, over the background')


@pytest.mark.parametrize('transparent', TRANSPARENT)
@pytest.mark.parametrize('path', [
    '/iiif/3/{id}/full/max/0/default.png',
    '/iiif/3/{id}/full/max/0/default.tif',
    '/iiif/3/{id}/full/max/0/default.webp',
    '/iiif/3/{id}/full/max/0/default.avif',
    '/iiif/3/{id}/full/pct:50/0/default.png',
    '/iiif/2/{id}/full/full/0/default.png',
    '/images/{id}/preview.png',
    '/images/{id}/preview.avif',
])
def test_a_transparent_sources_iiif_answers_and_previews_keep_its_alpha(served, source_folder, transparent, path):
    folder, _ = source_folder
    image = served.images[transparent]
    url = path.replace('{id}', image['id'])
    status, _, body = served.get(url)
    assert status == 200, f'{url}: {status} {body[:200]!r}'
    answer = over(pyvips.Image.new_from_buffer(body, ''))
    references = libvips_reading_with_alpha(folder / transparent)
    if answer[0].shape != references[0].shape:
        # Scaled: libvips resizing what its reading shows to the same size, as for the opaque sources.
        def resized(array):
            read = pyvips.Image.new_from_memory(np.ascontiguousarray(array).astype(np.uint8).tobytes(),
                                                array.shape[1], array.shape[0], 3, 'uchar')
            return as_array(read.resize(answer[0].shape[1] / array.shape[1], vscale=answer[0].shape[0] / array.shape[0]))
        references = tuple(resized(r) for r in references)
    for picture, reference, on in zip(answer, references, ('black', 'white')):
        expect_faithful(picture, reference, f'{url} over {on}')
    if url.endswith(('.png', '.tif')) and 'full/max' in url:
        # Lossless at full size: the source's pixels exactly, alpha and all.
        for picture, reference in zip(answer, references):
            assert np.abs(picture - reference).max() <= 1, f'{url}: not the source\'s pixels'
