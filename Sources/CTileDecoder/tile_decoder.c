#include "CTileDecoder.h"
#include <fcntl.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jpeglib.h>

// Stored tiles are small (tens of kilobytes); anything far larger is not one of ours.
#define MAX_TILE_FILE (64 << 20)

struct error_manager {
    struct jpeg_error_mgr base;
    jmp_buf escape;
    char *message;
    size_t message_size;
};

static void on_error(j_common_ptr cinfo) {
    struct error_manager *errors = (struct error_manager *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    errors->base.format_message(cinfo, text);
    snprintf(errors->message, errors->message_size, "libjpeg: %s", text);
    longjmp(errors->escape, 1);
}

// Warnings (a truncated file, a bad marker) are failures here: a tile that is not
// whole must not be served as if it were.
static void on_warning(j_common_ptr cinfo, int level) {
    if (level < 0) on_error(cinfo);
}

static void use_errors(struct jpeg_decompress_struct *cinfo, struct error_manager *errors,
                       char *message, size_t message_size) {
    cinfo->err = jpeg_std_error(&errors->base);
    errors->base.error_exit = on_error;
    errors->base.emit_message = on_warning;
    errors->message = message;
    errors->message_size = message_size;
}

// The whole file in memory: one read instead of libjpeg's stdio buffering.
static unsigned char *read_file(const char *path, size_t *size, char *error, size_t error_size) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(error, error_size, "cannot open %s", path);
        return NULL;
    }
    struct stat info;
    if (fstat(fd, &info) != 0 || info.st_size <= 0 || info.st_size > MAX_TILE_FILE) {
        snprintf(error, error_size, "%s is empty or not a tile", path);
        close(fd);
        return NULL;
    }
    unsigned char *data = malloc((size_t)info.st_size);
    size_t done = 0;
    while (data && done < (size_t)info.st_size) {
        ssize_t n = read(fd, data + done, (size_t)info.st_size - done);
        if (n <= 0) {
            free(data);
            data = NULL;
            snprintf(error, error_size, "cannot read %s", path);
        } else {
            done += (size_t)n;
        }
    }
    close(fd);
    // Every JPEG libvips writes ends with the EOI marker: a tile cut short by a crash or a full
    // disk is refused here, even where the rows asked for happen to lie before the cut.
    if (data && (done < 4 || data[done - 2] != 0xFF || data[done - 1] != 0xD9)) {
        snprintf(error, error_size, "%s is not a whole JPEG file", path);
        free(data);
        data = NULL;
    }
    *size = done;
    return data;
}

unsigned char *ts_jpeg_read_tile(const char *path, size_t *size, char *error, size_t error_size) {
    return read_file(path, size, error, error_size);
}

int ts_jpeg_components(const char *path, char *error, size_t error_size) {
    size_t size = 0;
    unsigned char *data = read_file(path, &size, error, error_size);
    if (!data) return -1;
    int components = ts_jpeg_components_of(data, size, error, error_size);
    free(data);
    return components;
}

int ts_jpeg_components_of(const unsigned char *data, size_t size, char *error, size_t error_size) {
    struct jpeg_decompress_struct cinfo;
    struct error_manager errors;
    use_errors(&cinfo, &errors, error, error_size);
    if (setjmp(errors.escape)) {
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    int components = cinfo.num_components;
    jpeg_destroy_decompress(&cinfo);
    return components;
}

int ts_jpeg_decode_rect(const char *path, unsigned char *dest, size_t stride, int bands,
                        int x, int y, int width, int height, char *error, size_t error_size) {
    size_t size = 0;
    unsigned char *data = read_file(path, &size, error, error_size);
    if (!data) return -1;
    int result = ts_jpeg_decode_rect_of(data, size, path, dest, stride, bands, x, y, width, height, error, error_size);
    free(data);
    return result;
}

int ts_jpeg_decode_rect_of(const unsigned char *data, size_t size, const char *path, unsigned char *dest,
                           size_t stride, int bands, int x, int y, int width, int height, char *error,
                           size_t error_size) {
    if (bands != 1 && bands != 3) {
        snprintf(error, error_size, "cannot decode to %d bands", bands);
        return -1;
    }
    struct jpeg_decompress_struct cinfo;
    struct error_manager errors;
    // volatile: read after a longjmp back into this frame.
    unsigned char *volatile row = NULL;
    use_errors(&cinfo, &errors, error, error_size);
    if (setjmp(errors.escape)) {
        jpeg_destroy_decompress(&cinfo);
        free(row);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    if (x < 0 || y < 0 || width <= 0 || height <= 0
        || (JDIMENSION)(x + width) > cinfo.image_width || (JDIMENSION)(y + height) > cinfo.image_height) {
        snprintf(error, error_size, "%s is %ux%u: no rectangle %d,%d,%d,%d in it",
                 path, cinfo.image_width, cinfo.image_height, x, y, width, height);
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    cinfo.out_color_space = bands == 1 ? JCS_GRAYSCALE : JCS_RGB;
    cinfo.dct_method = JDCT_ISLOW;  // as libvips decodes: the same pixels as the rest of Tilescope
    jpeg_start_decompress(&cinfo);
    // Only the columns and rows the rectangle needs, plus a margin of one iMCU (16 pixels with
    // 4:2:0 chroma) on every side that is cut: jpeg_crop_scanline and jpeg_skip_scanlines leave the
    // chroma upsampler without the neighbouring samples it smooths with, which changes the pixels
    // next to the cut (not those of a whole decode, libvips's, which every other path of Tilescope
    // serves), and the margin keeps that change out of the rectangle. A region's tiles at its edges
    // are mostly unused.
    int margin = cinfo.max_h_samp_factor * DCTSIZE;
    JDIMENSION first = x > margin ? (JDIMENSION)(x - margin) : 0;
    JDIMENSION end = (JDIMENSION)(x + width + margin) < cinfo.output_width ? (JDIMENSION)(x + width + margin) : cinfo.output_width;
    JDIMENSION crop_x = first, crop_width = end - first;
    if (crop_x > 0 || crop_width < cinfo.output_width) jpeg_crop_scanline(&cinfo, &crop_x, &crop_width);
    // jpeg_crop_scanline moves the start down to an iMCU boundary and widens the span to match.
    int offset = x - (int)crop_x;
    row = malloc((size_t)cinfo.output_width * (size_t)bands);
    if (!row || offset < 0 || (JDIMENSION)(offset + width) > cinfo.output_width) {
        if (row) snprintf(error, error_size, "libjpeg cropped %s to %u columns from %u", path, cinfo.output_width, crop_x);
        else snprintf(error, error_size, "out of memory");
        jpeg_destroy_decompress(&cinfo);
        free(row);
        return -1;
    }
    // Rows above the rectangle: whole iMCU rows skipped (entropy-decoded only). Skips that end on an
    // iMCU row gave a whole decode's pixels in levelPixelsAreTheStoredTilesCores even right above the
    // rectangle; ending two iMCU rows before it costs little and keeps the rows the upsampler
    // smooths the rectangle's first rows with decoded whatever libjpeg-turbo's skip does with them.
    int block_rows = cinfo.max_v_samp_factor * DCTSIZE;
    int skip = (y - 2 * block_rows) / block_rows * block_rows;
    int line = 0;
    if (skip > 0) line = (int)jpeg_skip_scanlines(&cinfo, (JDIMENSION)skip);
    for (; line < y + height; line++) {
        JSAMPROW rows[1] = { row };
        if (jpeg_read_scanlines(&cinfo, rows, 1) != 1) {
            snprintf(error, error_size, "%s ended early", path);
            jpeg_destroy_decompress(&cinfo);
            free(row);
            return -1;
        }
        if (line >= y) memcpy(dest + (size_t)(line - y) * stride, row + (size_t)offset * (size_t)bands, (size_t)width * (size_t)bands);
    }
    // Not jpeg_finish_decompress: the rows below the rectangle are never decoded.
    jpeg_destroy_decompress(&cinfo);
    free(row);
    return 0;
}
