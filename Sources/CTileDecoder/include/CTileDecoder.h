// Decodes part of a stored JPEG tile straight into a caller's pixel buffer and resizes such buffers, with
// libjpeg-turbo and no libvips pipeline, and encodes them as JPEG; transcodes tiles with optimized Huffman tables;
// reads a source's rows; decodes a source JPEG at 1/8 scale on two threads (its own entropy decoder) for the
// preview.
// In C because libjpeg reports errors by longjmp, which Swift frames must never be unwound by.
#ifndef TILESCOPE_CTILEDECODER_H
#define TILESCOPE_CTILEDECODER_H
#include <stddef.h>

/// The number of colour components of the JPEG file at `path` (1 or 3), or -1 with a
/// message in `error` (NUL-terminated, at most `error_size` bytes).
int ts_jpeg_components(const char *path, char *error, size_t error_size);

/// Decodes the rectangle (`x`, `y`, `width`, `height`) of the JPEG file at `path` into `dest`,
/// whose rows are `stride` bytes apart, as `bands` bytes per pixel (1: grey, 3: RGB; libjpeg
/// converts between them): the pixels libvips's jpegload gives. Rows below the rectangle are
/// not decoded. Returns 0, or -1 with a message in `error` (a missing, truncated or corrupt
/// file, or a rectangle outside the image).
int ts_jpeg_decode_rect(const char *path, unsigned char *dest, size_t stride, int bands,
                        int x, int y, int width, int height, char *error, size_t error_size);

/// The whole JPEG file at `path` in a malloc'ed buffer of `*size` bytes for the caller to free, refused
/// (NULL, with a message in `error`) when it is missing, empty, over 64 MB or does not end with the EOI
/// marker: what the two calls above read. With it, a tile read once gives both its components and its pixels.
unsigned char *ts_jpeg_read_tile(const char *path, size_t *size, char *error, size_t error_size);

/// `ts_jpeg_components` of a file already read (`ts_jpeg_read_tile`).
int ts_jpeg_components_of(const unsigned char *data, size_t size, char *error, size_t error_size);

/// `ts_jpeg_decode_rect` of a file already read (`ts_jpeg_read_tile`); `path` only names it in messages.
int ts_jpeg_decode_rect_of(const unsigned char *data, size_t size, const char *path, unsigned char *dest,
                           size_t stride, int bands, int x, int y, int width, int height, char *error,
                           size_t error_size);

/// Resizes `src` (`src_width` x `src_height`, rows `src_stride` bytes apart, `bands` 1 or 3 bytes
/// per pixel) to exactly `dst_width` x `dst_height` into `dst` (rows `dst_stride` apart) with a
/// triangle filter: an antialiased linear average when shrinking, bilinear interpolation when
/// enlarging, edges extended. Returns 0, or -1 with a message in `error`.
int ts_resize_linear(const unsigned char *src, size_t src_stride, int src_width, int src_height, int bands,
                     unsigned char *dst, size_t dst_stride, int dst_width, int dst_height,
                     char *error, size_t error_size);

/// `ts_resize_linear` of a window of a larger resize: `src` is the part of a whole input that starts at
/// (`src_x`, `src_y`), `dst` the part of the whole output that starts at (`dst_x`, `dst_y`), and the whole
/// output is the whole input shrunk or enlarged by `scale_x` and `scale_y` input pixels per output pixel
/// (centres aligned, as libvips's resize). `src` must hold every input pixel the window's filter reaches
/// (`scale` beyond its centres when shrinking, 1 when enlarging) except past the whole input's edges, where
/// the nearest is repeated: so windows side by side give the bytes one whole resize would.
int ts_resize_linear_window(const unsigned char *src, size_t src_stride, int src_width, int src_height, int bands,
                            unsigned char *dst, size_t dst_stride, int dst_width, int dst_height,
                            double scale_x, double scale_y, double src_x, double src_y, double dst_x, double dst_y,
                            char *error, size_t error_size);

/// `ts_resize_linear` with the horizontal pass in plain C loops only: the reference its vector
/// loops are tested against (they must give exactly the same bytes).
int ts_resize_linear_scalar(const unsigned char *src, size_t src_stride, int src_width, int src_height, int bands,
                            unsigned char *dst, size_t dst_stride, int dst_width, int dst_height,
                            char *error, size_t error_size);

/// Encodes `width` x `height` pixels (`bands` 1 or 3 bytes each, rows `stride` bytes apart) as a
/// baseline JPEG at `quality`, as libvips's jpegsave does by default (chroma 4:2:0 below quality 90,
/// no Huffman optimisation). On success `*out` is a malloc'ed buffer of `*out_size` bytes for the
/// caller to free; returns 0, or -1 with a message in `error`.
int ts_jpeg_encode(const unsigned char *pixels, size_t stride, int width, int height, int bands, int quality,
                   unsigned char **out, unsigned long *out_size, char *error, size_t error_size);
/// Re-encodes the sequential JPEG of `input_size` bytes at `input` losslessly: the same DCT coefficients
/// and quantization tables (so exactly the same pixels when decoded), with Huffman tables optimized for
/// its own symbols, and as progressive scans if `progressive` is non-zero. No markers are copied but the
/// JFIF header libjpeg writes. On success `*out` is a malloc'ed buffer of `*out_size` bytes for the caller
/// to free (it can be larger than the input: the caller keeps the smaller); returns 0, or -1 with a
/// message in `error` for anything that is not a whole sequential JPEG of at most 16 MB and 4096 pixels a
/// side (empty, truncated, corrupt, progressive). libjpeg's own lossless transcoding, the calls
/// `jpegtran -optimize -copy none` makes (the same bytes): no entropy coding here, only its error handling.
int ts_jpeg_optimize_huffman(const unsigned char *input, size_t input_size, int progressive,
                             unsigned char **out, unsigned long *out_size, char *error, size_t error_size);

/// The baseline JPEG file open at `fd` at 1/8 scale, with the pixels of libjpeg-turbo's own scale 1/8
/// decode, its partial last column and row included: ceil(width / 8) x ceil(height / 8), the size of the
/// pyramid level three below the full one. The entropy decoding runs on `threads` threads (1 or 2); asked for two, it uses one
/// for a file it cannot split (entropy-coded data under `parallel_min_bytes`, a marker in the first half,
/// or the second thread's records over its memory budget). Returns 0 with `*pixels` a malloc'ed buffer of
/// `*width` x `*height` x `*bands` bytes (1: grey, 3: RGB) for the caller to free, and `*split` 1 if the
/// second thread's half was used; or 1 for a file it does not take (not a baseline Huffman JPEG with one
/// scan, 8-bit quantisers and no restart markers; not grey, 4:4:4 or 4:2:0 YCbCr; corrupt or truncated;
/// pixels at 1/8 over its memory budget): decode that one with libjpeg.
int ts_jpeg_eighth_scale(int fd, int threads, long parallel_min_bytes,
                         unsigned char **pixels, int *width, int *height, int *bands, int *split);

/// libjpeg's own scale 1/8 decode of the `size` bytes at `data`, its partial last column and row included,
/// strict: any libjpeg warning is a failure. The reference that
/// `ts_jpeg_eighth_scale` is checked against; not used to serve or build. Returns 0 with `*pixels` a
/// malloc'ed buffer of `*width` x `*height` x `*bands` bytes (1: grey, 3: RGB) for the caller to free, or
/// -1 (an error, a warning, or over 64 MB of pixels).
int ts_jpeg_eighth_scale_libjpeg(const unsigned char *data, size_t size,
                                 unsigned char **pixels, int *width, int *height, int *bands);
/// A JPEG file's rows read top to bottom with libjpeg, holding a few rows of memory at a time (libvips's
/// sequential jpegload keeps hundreds of rows cached: 130 MB for a 49152-pixel-wide source).
typedef struct ts_jpeg_rows ts_jpeg_rows;

/// Opens the JPEG file at `path` for `ts_jpeg_rows_read`, decoded at 1/`scale` (1, 2, 4 or 8: libjpeg's DCT
/// scaling, its size rounded up, the partial last blocks kept): its size and bands (1: grey, 3: RGB), decoded
/// as libvips's jpegload decodes it. NULL, with a message in `error`, for a file that is missing, not a JPEG,
/// CMYK or YCCK (libvips gives those as CMYK: then `*bands` is 0), or needs more than 64 MB of libjpeg's
/// memory (a large progressive file).
ts_jpeg_rows *ts_jpeg_rows_open(const char *path, int scale, int *width, int *height, int *bands, char *error, size_t error_size);

/// The next `count` rows into `dest` (`width * bands` bytes a row), or decoded and dropped if `dest` is
/// NULL. Returns 0, or -1 with a message in `error` (past the last row, a corrupt or truncated file: any
/// libjpeg warning fails, as the build's strict load does); after a failure only `ts_jpeg_rows_close` is valid.
int ts_jpeg_rows_read(ts_jpeg_rows *rows, unsigned char *dest, int count, char *error, size_t error_size);

void ts_jpeg_rows_close(ts_jpeg_rows *rows);

/// A direct source's region resampled as libvips's shrink then bilinear affine do it (`LevelArea.resampled`):
/// the level (`level_width` x `level_height`) shrunk by whole factors into box means (a shrunk side is the
/// quotient rounded to nearest, the level's edge repeated past its end), then output pixel (i, j) interpolated
/// bilinearly at shrunk position (left + (i + 0.5) / scale_x, top + (j + 0.5) / scale_y), where shrunk pixel k
/// spans k ..< k + 1, edges repeated. `ts_area_window` gives the level pixels that needs (x, y, width, height);
/// `ts_area_resample` reads them from `window` (rows `stride` bytes apart, its first pixel level pixel
/// (window_x, window_y), `bands` 1 or 3) into `dst`. Both return 0, or -1 with a message in `error`.
int ts_area_window(int level_width, int level_height, int shrink_x, int shrink_y, double left, double top,
                   double scale_x, double scale_y, int dst_width, int dst_height,
                   int *x, int *y, int *width, int *height, char *error, size_t error_size);
int ts_area_resample(const unsigned char *window, size_t stride, int window_x, int window_y, int window_width,
                     int window_height, int level_width, int level_height, int bands, int shrink_x, int shrink_y,
                     double left, double top, double scale_x, double scale_y,
                     unsigned char *dst, size_t dst_stride, int dst_width, int dst_height, char *error, size_t error_size);

#endif
