#include "CTileDecoder.h"
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>

struct encode_errors {
    struct jpeg_error_mgr base;
    jmp_buf escape;
    char *message;
    size_t message_size;
};

static void on_encode_error(j_common_ptr cinfo) {
    struct encode_errors *errors = (struct encode_errors *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    errors->base.format_message(cinfo, text);
    snprintf(errors->message, errors->message_size, "libjpeg: %s", text);
    longjmp(errors->escape, 1);
}

int ts_jpeg_encode(const unsigned char *pixels, size_t stride, int width, int height, int bands, int quality,
                   unsigned char **out, unsigned long *out_size, char *error, size_t error_size) {
    *out = NULL;
    *out_size = 0;
    if ((bands != 1 && bands != 3) || width <= 0 || height <= 0 || width > 65500 || height > 65500
        || quality < 1 || quality > 100) {
        snprintf(error, error_size, "cannot encode %dx%d pixels of %d bands at quality %d", width, height, bands, quality);
        return -1;
    }
    struct jpeg_compress_struct cinfo;
    struct encode_errors errors;
    // jpeg_mem_dest's buffer, grown by libjpeg as it fills. Its address escapes, so it lives in
    // memory and holds the current buffer after a longjmp back into this frame.
    unsigned char *destination = NULL;
    unsigned long size = 0;
    cinfo.err = jpeg_std_error(&errors.base);
    errors.base.error_exit = on_encode_error;
    errors.message = error;
    errors.message_size = error_size;
    if (setjmp(errors.escape)) {
        jpeg_destroy_compress(&cinfo);
        free(destination);
        return -1;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &destination, &size);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = bands;
    cinfo.in_color_space = bands == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    // libvips's jpegsave defaults, so the bytes match what it wrote before: baseline Huffman
    // tables (no optimize_coding pass), not progressive, chroma 4:2:0 below Q90 and 4:4:4 from it.
    cinfo.optimize_coding = FALSE;
    if (bands == 3) {
        int sampling = quality < 90 ? 2 : 1;
        cinfo.comp_info[0].h_samp_factor = sampling;
        cinfo.comp_info[0].v_samp_factor = sampling;
    }
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row[1] = { (JSAMPROW)(pixels + (size_t)cinfo.next_scanline * stride) };
        jpeg_write_scanlines(&cinfo, row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = destination;
    *out_size = size;
    return 0;
}
