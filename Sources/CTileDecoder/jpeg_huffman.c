// A stored tile transcoded losslessly with optimized Huffman tables: libjpeg's own transcoding, the calls
// `jpegtran -optimize -copy none` makes (the same bytes). What is ours is the bounds and the error handling.
#include "CTileDecoder.h"
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>

// Stored tiles are tens of kilobytes and at most a few hundred pixels a side; anything far larger is
// not one of ours, and its coefficients are not worth the memory.
#define MAX_INPUT_BYTES (16u << 20)
#define MAX_SIDE 4096u
#define MAX_LIBJPEG_MEMORY (128L << 20)

struct huffman_errors {
    struct jpeg_error_mgr base;
    jmp_buf *escape;
    char *message;
    size_t message_size;
};

static void on_huffman_error(j_common_ptr cinfo) {
    struct huffman_errors *errors = (struct huffman_errors *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    errors->base.format_message(cinfo, text);
    snprintf(errors->message, errors->message_size, "libjpeg: %s", text);
    longjmp(*errors->escape, 1);
}

// A warning (data cut short, a bad marker, a corrupt entropy segment) is a failure: libjpeg would
// carry on with made-up coefficients, and those are not the stored tile's pixels.
static void on_huffman_warning(j_common_ptr cinfo, int level) {
    if (level < 0) on_huffman_error(cinfo);
}

int ts_jpeg_optimize_huffman(const unsigned char *input, size_t input_size, int progressive,
                             unsigned char **out, unsigned long *out_size, char *error, size_t error_size) {
    *out = NULL;
    *out_size = 0;
    if (input == NULL || input_size < 4 || input_size > MAX_INPUT_BYTES) {
        snprintf(error, error_size, "%zu bytes is not a JPEG tile", input_size);
        return -1;
    }
    struct jpeg_decompress_struct source;
    struct jpeg_compress_struct target;
    struct huffman_errors source_errors, target_errors;
    // jpeg_mem_dest's buffer, grown by libjpeg as it fills. Its address escapes, so it lives in memory
    // and holds the current buffer after a longjmp back into this frame.
    unsigned char *destination = NULL;
    unsigned long size = 0;
    // Both objects get their error managers before either is created, so that either longjmp finds both
    // destroyable (jpeg_destroy_* on a created object; `created` says which ones are).
    volatile int created = 0;
    // One jump target for both objects' errors.
    jmp_buf escape;
    source.err = jpeg_std_error(&source_errors.base);
    source_errors.base.error_exit = on_huffman_error;
    source_errors.base.emit_message = on_huffman_warning;
    source_errors.escape = &escape;
    source_errors.message = error;
    source_errors.message_size = error_size;
    target.err = jpeg_std_error(&target_errors.base);
    target_errors.base.error_exit = on_huffman_error;
    target_errors.base.emit_message = on_huffman_warning;
    target_errors.escape = &escape;
    target_errors.message = error;
    target_errors.message_size = error_size;
    if (setjmp(escape)) {
        if (created & 2) jpeg_destroy_compress(&target);
        if (created & 1) jpeg_destroy_decompress(&source);
        free(destination);
        return -1;
    }
    jpeg_create_decompress(&source);
    created |= 1;
    source.mem->max_memory_to_use = MAX_LIBJPEG_MEMORY;
    jpeg_mem_src(&source, input, (unsigned long)input_size);
    // No markers saved (jpeg_save_markers is never called): nothing but the coefficients and the
    // tables that decode them goes into the copy.
    jpeg_read_header(&source, TRUE);
    // Baseline or extended sequential only, as every stored tile is: a progressive file can hold any
    // number of scans, each a pass over the coefficients, and is not one of ours.
    if (source.progressive_mode || source.image_width > MAX_SIDE || source.image_height > MAX_SIDE) {
        snprintf(error, error_size, "a %ux%u %s JPEG is not a stored tile", source.image_width,
                 source.image_height, source.progressive_mode ? "progressive" : "sequential");
        jpeg_destroy_decompress(&source);
        return -1;
    }
    jvirt_barray_ptr *coefficients = jpeg_read_coefficients(&source);
    jpeg_create_compress(&target);
    created |= 2;
    target.mem->max_memory_to_use = MAX_LIBJPEG_MEMORY;
    jpeg_copy_critical_parameters(&source, &target);
    // The point of the copy: Huffman tables made for this tile's own symbols (a second pass over the
    // coefficients) instead of the standard tables of the JPEG specification.
    target.optimize_coding = TRUE;
    if (progressive) jpeg_simple_progression(&target);
    jpeg_mem_dest(&target, &destination, &size);
    jpeg_write_coefficients(&target, coefficients);
    jpeg_finish_compress(&target);
    // Reads to the end of the file: a tile whose entropy data ends early was refused above (a warning).
    jpeg_finish_decompress(&source);
    jpeg_destroy_compress(&target);
    jpeg_destroy_decompress(&source);
    *out = destination;
    *out_size = size;
    return 0;
}
