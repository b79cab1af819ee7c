// libjpeg's own 1/8-scale decode, strict: the reference `ts_jpeg_eighth_scale` is checked against (by the
// jpeg-eighth fuzz target and the tests), as ts_resize_linear_scalar is for the resize's vector loops.
// Not used to serve or build anything.
#include "CTileDecoder.h"
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

#define MAX_REFERENCE_BYTES (64L << 20)

struct reference_errors {
    struct jpeg_error_mgr base;
    jmp_buf escape;
};

static void on_reference_error(j_common_ptr cinfo) {
    longjmp(((struct reference_errors *)cinfo->err)->escape, 1);
}

// Any warning (corrupt data, a premature end, extraneous bytes) makes the decode unclean: no reference.
static void on_reference_warning(j_common_ptr cinfo, int level) {
    if (level < 0) on_reference_error(cinfo);
}

int ts_jpeg_eighth_scale_libjpeg(const unsigned char *data, size_t size,
                                 unsigned char **pixels, int *width, int *height, int *bands) {
    *pixels = NULL;
    struct jpeg_decompress_struct cinfo;
    struct reference_errors errors;
    // Assigned after setjmp and read after a longjmp: kept in memory, not in a register.
    unsigned char *volatile out = NULL;
    JSAMPLE *volatile row = NULL;
    cinfo.err = jpeg_std_error(&errors.base);
    errors.base.error_exit = on_reference_error;
    errors.base.emit_message = on_reference_warning;
    if (setjmp(errors.escape)) {
        jpeg_destroy_decompress(&cinfo);
        free(out);
        free(row);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    cinfo.scale_num = 1;
    cinfo.scale_denom = 8;
    cinfo.out_color_space = cinfo.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_start_decompress(&cinfo);
    int components = cinfo.output_components;
    // libjpeg's whole output, the partial last column and row of blocks included.
    int kept_width = (int)cinfo.output_width, kept_height = (int)cinfo.output_height;
    size_t kept_bytes = (size_t)kept_width * (size_t)kept_height * (size_t)components;
    if (kept_width < 1 || kept_height < 1 || kept_bytes > (size_t)MAX_REFERENCE_BYTES
        || (int)cinfo.output_width < kept_width || (int)cinfo.output_height < kept_height)
        on_reference_error((j_common_ptr)&cinfo);
    out = malloc(kept_bytes);
    row = malloc((size_t)cinfo.output_width * (size_t)components);
    if (!out || !row) on_reference_error((j_common_ptr)&cinfo);
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW rows[1] = {row};
        int y = (int)cinfo.output_scanline;
        jpeg_read_scanlines(&cinfo, rows, 1);
        if (y < kept_height) memcpy(out + (size_t)y * (size_t)kept_width * (size_t)components, row, (size_t)kept_width * (size_t)components);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    free(row);
    *pixels = out;
    *width = kept_width;
    *height = kept_height;
    *bands = components;
    return 0;
}
