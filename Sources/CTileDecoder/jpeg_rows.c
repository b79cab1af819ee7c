#include "CTileDecoder.h"
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

// libjpeg's own memory for one source: a baseline JPEG needs a few rows of its width; a progressive one
// the whole image's coefficients, which beyond this is refused (libjpeg-turbo has no backing store)
// rather than held by a server that is answering tiles meanwhile.
#define MAX_ROWS_MEMORY (64L << 20)

struct rows_errors {
    struct jpeg_error_mgr base;
    jmp_buf escape;
    char message[JMSG_LENGTH_MAX + 16];
};

struct ts_jpeg_rows {
    struct jpeg_decompress_struct cinfo;
    struct rows_errors errors;
    FILE *file;
    unsigned char *scratch;  // one row, for rows read and dropped
    int bands;
};

static void on_rows_error(j_common_ptr cinfo) {
    struct rows_errors *errors = (struct rows_errors *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    errors->base.format_message(cinfo, text);
    snprintf(errors->message, sizeof errors->message, "libjpeg: %s", text);
    longjmp(errors->escape, 1);
}

// Warnings are failures, as libvips's strict jpegload makes them for the build: a source cut short
// gives grey rows, which must not become tiles.
static void on_rows_warning(j_common_ptr cinfo, int level) {
    if (level < 0) on_rows_error(cinfo);
}

void ts_jpeg_rows_close(ts_jpeg_rows *rows) {
    if (!rows) return;
    jpeg_destroy_decompress(&rows->cinfo);
    if (rows->file) fclose(rows->file);
    free(rows->scratch);
    free(rows);
}

ts_jpeg_rows *ts_jpeg_rows_open(const char *path, int scale, int *width, int *height, int *bands, char *error, size_t error_size) {
    ts_jpeg_rows *rows = calloc(1, sizeof *rows);
    if (!rows) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    rows->cinfo.err = jpeg_std_error(&rows->errors.base);
    rows->errors.base.error_exit = on_rows_error;
    rows->errors.base.emit_message = on_rows_warning;
    if (setjmp(rows->errors.escape)) {
        snprintf(error, error_size, "%s", rows->errors.message);
        ts_jpeg_rows_close(rows);
        return NULL;
    }
    if (scale != 1 && scale != 2 && scale != 4 && scale != 8) {
        snprintf(error, error_size, "no scale 1/%d", scale);
        free(rows);
        return NULL;
    }
    jpeg_create_decompress(&rows->cinfo);
    rows->file = fopen(path, "rbe");
    if (!rows->file) {
        snprintf(error, error_size, "cannot open %s", path);
        ts_jpeg_rows_close(rows);
        return NULL;
    }
    rows->cinfo.mem->max_memory_to_use = MAX_ROWS_MEMORY;
    jpeg_stdio_src(&rows->cinfo, rows->file);
    jpeg_read_header(&rows->cinfo, TRUE);
    // libvips's jpegload gives grey and YCbCr or RGB files as 1 and 3 bands; CMYK and YCCK it gives as
    // CMYK, which the build converts: those are not read here.
    J_COLOR_SPACE space = rows->cinfo.jpeg_color_space;
    if (!(space == JCS_GRAYSCALE || space == JCS_YCbCr || space == JCS_RGB)) {
        snprintf(error, error_size, "%s is neither grey nor RGB", path);
        *bands = 0;
        ts_jpeg_rows_close(rows);
        return NULL;
    }
    rows->bands = space == JCS_GRAYSCALE ? 1 : 3;
    rows->cinfo.out_color_space = rows->bands == 1 ? JCS_GRAYSCALE : JCS_RGB;
    rows->cinfo.dct_method = JDCT_ISLOW;  // as libvips decodes: the pixels the build cut its tiles from
    rows->cinfo.scale_num = 1;
    rows->cinfo.scale_denom = (unsigned int)scale;
    jpeg_start_decompress(&rows->cinfo);
    rows->scratch = malloc((size_t)rows->cinfo.output_width * (size_t)rows->bands);
    if (!rows->scratch) {
        snprintf(error, error_size, "out of memory");
        ts_jpeg_rows_close(rows);
        return NULL;
    }
    *width = (int)rows->cinfo.output_width;
    *height = (int)rows->cinfo.output_height;
    *bands = rows->bands;
    return rows;
}

int ts_jpeg_rows_read(ts_jpeg_rows *rows, unsigned char *dest, int count, char *error, size_t error_size) {
    struct jpeg_decompress_struct *cinfo = &rows->cinfo;
    if (setjmp(rows->errors.escape)) {
        snprintf(error, error_size, "%s", rows->errors.message);
        return -1;
    }
    if (count < 0 || cinfo->output_scanline + (JDIMENSION)count > cinfo->output_height) {
        snprintf(error, error_size, "no rows %u to %u in %u", cinfo->output_scanline,
                 cinfo->output_scanline + (JDIMENSION)count, cinfo->output_height);
        return -1;
    }
    size_t row_bytes = (size_t)cinfo->output_width * (size_t)rows->bands;
    for (int line = 0; line < count; line++) {
        JSAMPROW target[1] = { dest ? dest + (size_t)line * row_bytes : rows->scratch };
        if (jpeg_read_scanlines(cinfo, target, 1) != 1) {
            snprintf(error, error_size, "the source ended at row %u", cinfo->output_scanline);
            return -1;
        }
    }
    return 0;
}
