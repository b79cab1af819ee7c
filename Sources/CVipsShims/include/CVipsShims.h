// libvips for Imaging: non-variadic wrappers for the variadic libvips calls Swift cannot make (every
// operation takes its optional arguments as a NULL-terminated list) and for its macros (VIPS_INIT,
// g_signal_connect), plus the two callbacks that must be C: freeing wrapped pixels when an image closes,
// forwarding libvips's progress signal. Each does one thing; no application logic lives here.
// Nothing here knows libmicrohttpd: the HTTP server's C glue is CHTTPShims.
#ifndef TILESCOPE_CVIPSSHIMS_H
#define TILESCOPE_CVIPSSHIMS_H

#include <vips/vips.h>
#include <stddef.h>

/// VIPS_INIT is a macro.
int ts_vips_init(const char *argv0);

/// `hide` 1: points VIPSHOME where libvips finds none of its format modules (HEIF, JPEG XL, PDF, slides,
/// ImageMagick), so that a VIPS_INIT meanwhile loads none (`ts_vips_load_modules` loads them later); 0: puts
/// VIPSHOME back as it was. It changes the environment: call it while no other thread reads it.
void ts_vips_hide_modules(int hide);

/// Loads libvips's format modules from the folder beside the libvips that is loaded (as libvips itself would
/// at start-up), then initialises their classes on this thread. Returns how many were loaded.
int ts_vips_load_modules(void);

/// Opens an image lazily (header only). `sequential` chooses VIPS_ACCESS_SEQUENTIAL,
/// which lets whole-image pipelines (dzsave) stream without a full decode.
/// The path is taken literally: "[...]" in it is never parsed as loader options.
/// `fail` sets fail_on=error, for untrusted input.
VipsImage *ts_image_open(const char *path, int sequential, int fail);

/// Opens a JPEG decoded at 1/`shrink` scale (1, 2, 4 or 8) by libjpeg's DCT scaling, sequentially:
/// a preview without decoding the image whole. The path is taken literally (`vips_jpegload`).
VipsImage *ts_jpeg_open_shrunk(const char *path, int shrink, int fail);

/// Decodes an encoded image held in memory (a tile just encoded, to measure its picture) into
/// 8-bit pixels: a libvips image computed into memory, so `buf` may go away afterwards.
VipsImage *ts_image_decode_buffer(const void *buf, size_t len);

/// Computes rows [top, top + height) of `image`, every column, through `region` (made with
/// `vips_region_new(image)`) and copies them into `out`, `width * bands` bytes a row (8-bit images).
/// Rows must be asked for top to bottom without overlap: a sequential source reads forward only.
int ts_region_read_rows(VipsRegion *region, int top, int height, unsigned char *out);

/// The image computed once into memory, so that several outputs can read a sequential source.
int ts_copy_memory(VipsImage *in, VipsImage **out);

/// Deep Zoom pyramid: `<basename>.dzi` and `<basename>_files/`, JPEG tiles.
int ts_dzsave(VipsImage *in, const char *basename, int tile_size, int overlap, int quality);

int ts_jpegsave(VipsImage *in, const char *path, int quality);
int ts_jpegsave_buffer(VipsImage *in, void **buf, size_t *len, int quality);
int ts_pngsave_buffer(VipsImage *in, void **buf, size_t *len);
int ts_crop(VipsImage *in, VipsImage **out, int left, int top, int width, int height);
int ts_arrayjoin(VipsImage **in, int n, VipsImage **out, int across);
int ts_flatten(VipsImage *in, VipsImage **out, double r, double g, double b);
int ts_colourspace_srgb(VipsImage *in, VipsImage **out);
int ts_cast_uchar(VipsImage *in, VipsImage **out);
int ts_resize(VipsImage *in, VipsImage **out, double hscale, double vscale);
int ts_shrink(VipsImage *in, VipsImage **out, double hshrink, double vshrink);
int ts_linear1(VipsImage *in, VipsImage **out, double a, double b);
int ts_zone(VipsImage **out, int width, int height);
int ts_replicate(VipsImage *in, VipsImage **out, int across, int down);
int ts_add(VipsImage *left, VipsImage *right, VipsImage **out);
/// Enlarges by whole factors, repeating each pixel (nearest neighbour, lazy).
int ts_zoom(VipsImage *in, VipsImage **out, int xfac, int yfac);
/// Maps each pixel through a lookup table image (a row of entries, one per input value).
int ts_maplut(VipsImage *in, VipsImage **out, VipsImage *lut);

// Region rendering (IIIF).
/// Encodes to the format named by `suffix` (".jpg[Q=85]", ".png", ...). `suffix` is
/// always a constant chosen by the caller, never request text.
int ts_save_buffer(VipsImage *in, const char *suffix, void **buf, size_t *len);
/// Wraps `data` (from malloc: `width` x `height` pixels of `bands` uchar, sRGB when 3 bands,
/// B_W when 1) as an image that frees it when the image closes (g_signal_connect is a macro).
/// NULL on failure, and `data` is then still the caller's.
VipsImage *ts_image_from_malloc(void *data, size_t size, int width, int height, int bands);
/// vips_resize with a chosen kernel (VIPS_KERNEL_LINEAR, _CUBIC, _LANCZOS3...).
int ts_resize_kernel(VipsImage *in, VipsImage **out, double hscale, double vscale, VipsKernel kernel);
/// Mirrors left to right.
int ts_flip_horizontal(VipsImage *in, VipsImage **out);
/// Rotates clockwise by a multiple of 90 degrees (`quarter_turns` 0..3), exactly.
int ts_rot90s(VipsImage *in, VipsImage **out, int quarter_turns);
/// Rotates clockwise by any angle; the new corners are `background` on every band.
int ts_rotate(VipsImage *in, VipsImage **out, double angle, double background);
/// Adds an opaque alpha band.
int ts_addalpha(VipsImage *in, VipsImage **out);
int ts_colourspace_bw(VipsImage *in, VipsImage **out);
/// 255 where a pixel is >= `threshold`, else 0.
int ts_moreeq_const(VipsImage *in, VipsImage **out, double threshold);

// A source as it is shown: upright, in sRGB.
/// The EXIF/TIFF orientation libvips read (1 to 8), 1 when there is none or it is out of range.
int ts_orientation(VipsImage *in);
/// Applies the orientation tag (vips_autorot); the result carries none.
int ts_autorot(VipsImage *in, VipsImage **out);
/// Whether the image carries an ICC profile.
int ts_has_icc(VipsImage *in);
/// The image's ICC profile (owned by the image) and its length, or NULL.
const void *ts_icc_profile(VipsImage *in, size_t *length);
/// A copy of `in` carrying `from`'s ICC profile (a reduced decode made without libvips gets its source's).
int ts_with_icc_of(VipsImage *in, VipsImage *from, VipsImage **out);
/// Converts through the embedded ICC profile to 8-bit sRGB, relative colorimetric (libvips's icc_transform).
int ts_icc_to_srgb(VipsImage *in, VipsImage **out);
/// A copy without the metadata that would mislead once the pixels are upright sRGB: the ICC profile,
/// EXIF and the orientation.
int ts_without_profile(VipsImage *in, VipsImage **out);
/// Band `band` alone.
int ts_extract_band(VipsImage *in, VipsImage **out, int band);
int ts_bandjoin2(VipsImage *a, VipsImage *b, VipsImage **out);
int ts_dzsave_png_deepest(VipsImage *in, const char *basename, int tile_size, int overlap);
/// Enlarged to `width` x `height` at the top left, the new pixels copies of the nearest edge.
int ts_embed_copy(VipsImage *in, VipsImage **out, int width, int height);
/// Writes the image to `path` in libvips's own format, streaming it; the path is taken literally.
int ts_write_vips(VipsImage *in, const char *path);

/// Lossless copy for exact regions: a tiled (256 px), pyramidal, deflate-compressed TIFF with the
/// horizontal predictor, each page half the one before.
int ts_tiffsave_pyramid(VipsImage *in, const char *path);
/// Opens page `page` of a TIFF for random access (header only). The path is taken literally.
VipsImage *ts_tiffload_page(const char *path, int page);
/// Opens one level of a source that already is a pyramid for random access (header only), outside libvips's
/// operation cache: `loader` ("tiffload", "openslideload", "jp2kload") with the int `option` ("page", "subifd",
/// "level"; none when NULL) set to `value`. Uncached, so the level's memory goes when its image does (the
/// cache would keep it, and would answer a file rewritten in place with its old image). The path is taken
/// literally; `loader` and `option` are constants chosen by the caller.
VipsImage *ts_load_level(const char *loader, const char *path, const char *option, int value);
/// Reads at most `length` bytes at `offset` of the object behind `context` into `buffer`: how many, 0 at its end,
/// -1 for an error (which the reader keeps; libvips then fails the read).
typedef int64_t (*ts_range_read_fn)(void *context, int64_t offset, void *buffer, int64_t length);
/// Called once when the source is gone, to let `context` go.
typedef void (*ts_range_release_fn)(void *context);
/// A libvips source over an object of `length` bytes read by ranges (`vips_source_custom` with read and seek
/// handlers): seekable, so a loader reads only what it needs where it is, never the whole object (a source
/// that cannot seek is read whole into memory by libvips). NULL when libvips cannot make one.
VipsSource *ts_source_ranged(ts_range_read_fn read, ts_range_release_fn release, void *context, int64_t length);
/// `ts_load_level` from a source (`loader` a `*_source` loader: "tiffload_source").
VipsImage *ts_load_level_source(const char *loader, VipsSource *source, const char *option, int value);
/// Bands `first` to `first + n - 1`.
int ts_extract_bands(VipsImage *in, VipsImage **out, int first, int n);
/// `width` x `height` pixels of `in` scaled by `scale_x`, `scale_y` with bilinear interpolation, output pixel
/// (x, y) sampling input position (x / scale_x - offset_x, y / scale_y - offset_y), where input pixel (i, j)
/// sits at (i, j) (vips_affine's corner convention: scale 1 and offset 0 give the input back); beyond its
/// edges the input's edge pixels repeat.
int ts_scale_bilinear(VipsImage *in, VipsImage **out, double scale_x, double scale_y, double offset_x, double offset_y,
    int width, int height);
/// Called from libvips's "eval" signal while an image computes; runs on the computing thread.
typedef void (*ts_progress_fn)(void *context, int percent, int eta_seconds);
/// Enables progress on `image` and forwards its eval signal to `callback`; returns the handler id.
unsigned long ts_progress_connect(VipsImage *image, ts_progress_fn callback, void *context);
/// Disconnects a handler of `ts_progress_connect`: the image may outlive its observer.
void ts_progress_disconnect(VipsImage *image, unsigned long handler);

#endif
