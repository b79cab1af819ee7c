"""The sources the fidelity suite serves, made here with libvips (pyvips) and a few bytes of EXIF and ICC
written by hand: every orientation, colour profiles, 16-bit and linear tones, alpha, odd sizes.

Each picture is four flat quadrants of distinct colours with a dark bar near the top left, so a turn, a flip
or a colour shift shows in the quadrants' means, and a misaligned level in its edges."""
import struct
import zlib
from pathlib import Path

import pyvips

# The top left quadrant is the red of the issue that found the colour bug (235, 51, 35).
QUADRANTS = [(235, 51, 35), (40, 170, 70), (30, 60, 200), (240, 220, 60)]
PROFILES = Path('/usr/share/color/icc')


def pattern(width, height, bands=3, depth=8):
    """Four quadrants and a dark bar along the top left's top edge; 16-bit when `depth` is 16."""
    half_w, half_h = width // 2, height // 2
    quads = []
    for i, colour in enumerate(QUADRANTS):
        w = half_w if i % 2 == 0 else width - half_w
        h = half_h if i < 2 else height - half_h
        quads.append(pyvips.Image.black(w, h, bands=3).new_from_image(list(colour)).cast('uchar'))
    image = quads[0].join(quads[1], 'horizontal').join(quads[2].join(quads[3], 'horizontal'), 'vertical')
    bar = pyvips.Image.black(max(1, width // 4), max(1, height // 12), bands=3).new_from_image([20, 20, 20]).cast('uchar')
    image = image.insert(bar, width // 16, height // 16)
    if bands == 1:
        image = image.colourspace('b-w')
    if depth == 16:
        image = (image.cast('ushort') * 257).cast('ushort')
        image = image.copy(interpretation='rgb16' if image.bands >= 3 else 'grey16')
    return image


def exif_orientation(orientation: int) -> bytes:
    """A little-endian TIFF header and one IFD whose one tag is Orientation (0x0112)."""
    ifd = struct.pack('<H', 1) + struct.pack('<HHIHH', 0x0112, 3, 1, orientation, 0) + struct.pack('<I', 0)
    return b'II*\x00' + struct.pack('<I', 8) + ifd


def with_exif_orientation(jpeg: bytes, orientation: int) -> bytes:
    """The JPEG with an APP1 EXIF segment after SOI holding the orientation."""
    assert jpeg[:2] == b'\xff\xd8'
    payload = b'Exif\x00\x00' + exif_orientation(orientation)
    return jpeg[:2] + b'\xff\xe1' + struct.pack('>H', len(payload) + 2) + payload + jpeg[2:]


def png_with_exif_orientation(png: bytes, orientation: int) -> bytes:
    """The PNG with an eXIf chunk holding the orientation, after its header chunk."""
    data = exif_orientation(orientation)
    chunk = struct.pack('>I', len(data)) + b'eXIf' + data + struct.pack('>I', zlib.crc32(b'eXIf' + data))
    end_of_header = 8 + 8 + 13 + 4
    return png[:end_of_header] + chunk + png[end_of_header:]


def linear_profile() -> bytes:
    """libvips's sRGB profile with its tone curves replaced by the identity (a 'curv' of no entries): an RGB
    space with sRGB's primaries and gamma 1.0, as a linear-light scan or render carries."""
    srgb = pyvips.Image.black(1, 1, bands=3).icc_transform('srgb').get('icc-profile-data')
    data = bytearray(srgb)
    count = struct.unpack('>I', data[128:132])[0]
    identity_at = len(data) + (-len(data)) % 4
    data += b'\x00' * (identity_at - len(data)) + b'curv' + b'\x00' * 4 + struct.pack('>I', 0)
    for i in range(count):
        entry = 132 + 12 * i
        if data[entry:entry + 4] in (b'rTRC', b'gTRC', b'bTRC'):
            data[entry + 4:entry + 12] = struct.pack('>II', identity_at, 12)
    data[0:4] = struct.pack('>I', len(data))
    data[84:100] = b'\x00' * 16  # the profile id (an MD5) no longer holds: zero means none
    return bytes(data)


def _set_blob(image, profile):
    copy = image.copy()
    copy.set_type(pyvips.GValue.blob_type, 'icc-profile-data', profile)
    return copy


def converted_into(image, profile_path):
    """sRGB pixels converted into the space of the profile at `profile_path`, carrying it."""
    return image.icc_transform(str(profile_path), input_profile='srgb', intent='relative', embedded=False)


def make_all(folder: Path):
    """Writes every source into `folder`; returns {file name: what it tests}."""
    made = {}
    base = pattern(301, 203)
    jpeg = base.jpegsave_buffer(Q=95)
    for orientation in range(1, 9):
        name = f'orient-jpeg-{orientation}.jpg'
        (folder / name).write_bytes(with_exif_orientation(jpeg, orientation))
        made[name] = f'JPEG with EXIF orientation {orientation}'
    for orientation in (3, 6, 8):
        oriented = base.copy()
        oriented.set_type(pyvips.GValue.gint_type, 'orientation', orientation)
        for suffix, save in (('tif', lambda im, p: im.tiffsave(p)),
                             ('webp', lambda im, p: im.webpsave(p, lossless=True))):
            name = f'orient-{suffix}-{orientation}.{suffix}'
            save(oriented, str(folder / name))
            made[name] = f'{suffix.upper()} with orientation {orientation}'
        name = f'orient-png-{orientation}.png'
        (folder / name).write_bytes(png_with_exif_orientation(base.pngsave_buffer(), orientation))
        made[name] = f'PNG with orientation {orientation}'
    # HEIF/AVIF carry their turn in the container; libheif applies it: never turned twice.
    avif = base.copy()
    avif.set_type(pyvips.GValue.gint_type, 'orientation', 6)
    avif.heifsave(str(folder / 'orient-avif-6.avif'), compression='av1', Q=95, lossless=True)
    made['orient-avif-6.avif'] = 'AVIF with EXIF orientation 6'

    colour = pattern(640, 480)
    converted_into(colour, 'p3').jpegsave(str(folder / 'profile-p3.jpg'), Q=95)
    made['profile-p3.jpg'] = 'Display P3 JPEG'
    for name, path in (('adobergb', PROFILES / 'colord' / 'AdobeRGB1998.icc'),
                       ('prophoto', PROFILES / 'colord' / 'ProPhotoRGB.icc')):
        converted_into(colour, path).tiffsave(str(folder / f'profile-{name}.tif'))
        made[f'profile-{name}.tif'] = f'{name} TIFF'
    converted_into(colour, 'cmyk').jpegsave(str(folder / 'profile-cmyk.jpg'), Q=95)
    made['profile-cmyk.jpg'] = 'CMYK JPEG with its profile'
    grey = pattern(640, 480, bands=1)
    _set_blob(grey, (PROFILES / 'Gray.icc').read_bytes()).pngsave(str(folder / 'profile-grey.png'))
    made['profile-grey.png'] = 'grey PNG with a grey profile'
    # 16-bit linear light: sRGB's tones through the identity curve, kept at 16 bits.
    linear16 = pattern(640, 480, depth=16).cast('float') / 65535.0
    linear16 = ((linear16 <= 0.04045).ifthenelse(linear16 / 12.92, ((linear16 + 0.055) / 1.055) ** 2.4) * 65535).cast('ushort')
    linear16 = _set_blob(linear16.copy(interpretation='rgb16'), linear_profile())
    linear16.pngsave(str(folder / 'profile-linear16.png'))
    made['profile-linear16.png'] = '16-bit linear-light PNG'
    pattern(640, 480, depth=16).pngsave(str(folder / 'deep16.png'))
    made['deep16.png'] = '16-bit PNG without a profile'

    opaque = pyvips.Image.black(401, 307).new_from_image(255).cast('uchar')
    rgba = pattern(401, 307).bandjoin(opaque.draw_rect(0, 0, 0, 200, 150, fill=True))
    rgba.pngsave(str(folder / 'alpha.png'))
    made['alpha.png'] = 'RGBA PNG, its top left transparent'
    ramp = (pyvips.Image.xyz(517, 391)[0] * 255 / 516).cast('uchar')
    pattern(517, 391).bandjoin(ramp).pngsave(str(folder / 'alpha-ramp.png'))
    made['alpha-ramp.png'] = 'RGBA PNG, clear at the left to opaque at the right'
    pattern(517, 391, bands=1).bandjoin(ramp).copy(interpretation='b-w').pngsave(str(folder / 'alpha-grey.png'))
    made['alpha-grey.png'] = 'grey and alpha PNG, the same ramp'
    deep = pattern(517, 391, depth=16).bandjoin((ramp.cast('ushort') * 257).cast('ushort'))
    deep.copy(interpretation='rgb16').pngsave(str(folder / 'alpha16.png'))
    made['alpha16.png'] = '16-bit RGBA PNG, the same ramp'
    # A strip a hundred thousand pixels long: its IIIF `max` is bounded by what each format can hold. Four
    # bands of the quadrants' colours side by side, no edge along it (a sharp one in ten rows would be all
    # edge: every resampling kernel would see it differently).
    bands = [pyvips.Image.black(25000, 10, bands=3).new_from_image(list(c)).cast('uchar') for c in QUADRANTS]
    bands[0].join(bands[1], 'horizontal').join(bands[2].join(bands[3], 'horizontal'), 'horizontal') \
        .pngsave(str(folder / 'strip-100000x10.png'))
    made['strip-100000x10.png'] = 'a 100000x10 strip'
    for width, height in ((1001, 1003), (3001, 1999)):
        name = f'odd-{width}x{height}.jpg'
        pattern(width, height).jpegsave(str(folder / name), Q=95)
        made[name] = 'odd-sized JPEG'
    # Sources that already are pyramids, served from their own levels without a build (docs/direct-sources.md),
    # odd-sized so that every level's last column and row are partial blocks.
    pyramid = pattern(3001, 1999)
    pyramid.tiffsave(str(folder / 'pyramid-pages.tif'), tile=True, pyramid=True, compression='jpeg', Q=95,
                     tile_width=256, tile_height=256)
    made['pyramid-pages.tif'] = 'tiled pyramidal JPEG TIFF, levels in pages (served directly)'
    pyramid.tiffsave(str(folder / 'pyramid-subifd.tif'), tile=True, pyramid=True, subifd=True, compression='deflate',
                     tile_width=256, tile_height=256)
    made['pyramid-subifd.tif'] = 'tiled pyramidal deflate TIFF, levels in SubIFDs (served directly)'
    pyramid.jp2ksave(str(folder / 'pyramid.jp2'), lossless=True, tile_width=256, tile_height=256)
    made['pyramid.jp2'] = 'JPEG 2000 with resolution levels, lossless (served directly)'
    return made


# Sources served from their own levels: JPEG tiles only (docs/direct-sources.md).
DIRECT = ('pyramid-pages.tif', 'pyramid-subifd.tif', 'pyramid.jp2')
