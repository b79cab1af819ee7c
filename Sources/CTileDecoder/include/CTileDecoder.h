// Decodes part of a stored JPEG tile straight into a caller's pixel buffer, with libjpeg-turbo.
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
#endif
