// dladdr (ts_vips_load_modules) is a GNU extension.
#define _GNU_SOURCE
#include "CVipsShims.h"
#include <dlfcn.h>
#include <gmodule.h>
#include <string.h>
#include <stdlib.h>
#include <stdio.h>

static void *ts_touch_class(VipsObjectClass *object_class, void *unused) {
    (void) object_class;
    (void) unused;
    return NULL;
}

int ts_vips_init(const char *argv0) {
    if (VIPS_INIT(argv0) != 0) return -1;
    // Initialise every libvips class now, on this one thread. Left to the first call of each
    // operation, two threads looking up operations for the first time at once (the worker pool's
    // first renders, tests that start together) were seen to fail with 'class "pngsave_buffer" not
    // found' and, once, to crash inside GLib: vips_type_find walks the classes while another thread
    // is still initialising them.
    vips_class_map_all(g_type_from_name("VipsObject"), ts_touch_class, NULL);
    return 0;
}

void ts_vips_hide_modules(int hide) {
    // libvips reads its modules from $VIPSHOME's library folder when VIPSHOME is set: /dev/null has none.
    static char *saved = NULL;
    static int had = 0;
    if (hide) {
        const char *set = getenv("VIPSHOME");
        had = set != NULL;
        saved = set ? strdup(set) : NULL;
        setenv("VIPSHOME", "/dev/null", 1);
    } else if (had) {
        setenv("VIPSHOME", saved, 1);
        free(saved);
        saved = NULL;
        had = 0;
    } else {
        unsetenv("VIPSHOME");
    }
}

int ts_vips_load_modules(void) {
    // Where libvips keeps them: vips-modules-MAJOR.MINOR in the folder of the libvips.so this process loaded.
    Dl_info library;
    if (!dladdr((void *) vips_init, &library) || !library.dli_fname) return 0;
    char *libdir = g_path_get_dirname(library.dli_fname);
    char *folder = g_strdup_printf("%s/vips-modules-%d.%d", libdir, VIPS_MAJOR_VERSION, VIPS_MINOR_VERSION);
    int loaded = 0;
    GDir *listing = g_dir_open(folder, 0, NULL);
    if (listing) {
        const char *name;
        while ((name = g_dir_read_name(listing))) {
            if (!g_str_has_suffix(name, "." G_MODULE_SUFFIX)) continue;
            char *path = g_build_filename(folder, name, NULL);
            // As libvips does: the module's g_module_check_init registers its classes and keeps it resident.
            if (g_module_open(path, G_MODULE_BIND_LAZY)) loaded += 1;
            g_free(path);
        }
        g_dir_close(listing);
    }
    g_free(folder);
    g_free(libdir);
    vips_class_map_all(g_type_from_name("VipsObject"), ts_touch_class, NULL);
    return loaded;
}

VipsImage *ts_image_open(const char *path, int sequential, int fail) {
    // A trailing "[]" makes libvips take everything before it as the file name,
    // so a name containing "[page=3]" cannot smuggle loader options in.
    size_t n = strlen(path);
    char *literal = g_malloc(n + 3);
    memcpy(literal, path, n);
    memcpy(literal + n, "[]", 3);
    VipsImage *image = vips_image_new_from_file(literal,
        "access", sequential ? VIPS_ACCESS_SEQUENTIAL : VIPS_ACCESS_RANDOM,
        "fail_on", fail ? VIPS_FAIL_ON_ERROR : VIPS_FAIL_ON_NONE,
        NULL);
    g_free(literal);
    return image;
}

VipsImage *ts_jpeg_open_shrunk(const char *path, int shrink, int fail) {
    VipsImage *image = NULL;
    if (vips_jpegload(path, &image,
            "shrink", shrink,
            "access", VIPS_ACCESS_SEQUENTIAL,
            "fail_on", fail ? VIPS_FAIL_ON_ERROR : VIPS_FAIL_ON_NONE,
            NULL)) return NULL;
    return image;
}

int ts_copy_memory(VipsImage *in, VipsImage **out) {
    *out = vips_image_copy_memory(in);
    return *out ? 0 : -1;
}

int ts_dzsave(VipsImage *in, const char *basename, int tile_size, int overlap, int quality) {
    char suffix[32];
    snprintf(suffix, sizeof suffix, ".jpeg[Q=%d]", quality);
    return vips_dzsave(in, basename,
        "layout", VIPS_FOREIGN_DZ_LAYOUT_DZ,
        "tile_size", tile_size,
        "overlap", overlap,
        "suffix", suffix,
        "depth", VIPS_FOREIGN_DZ_DEPTH_ONEPIXEL,
        NULL);
}

/* The deepest level of a transparent image's PNG tiles (8-bit, alpha kept), in `{basename}_files/0/`: the
 * coarser levels are shrunk from it weighting each pixel by its alpha, which dzsave's mean does not. */
int ts_dzsave_png_deepest(VipsImage *in, const char *basename, int tile_size, int overlap) {
    return vips_dzsave(in, basename,
        "layout", VIPS_FOREIGN_DZ_LAYOUT_DZ,
        "tile_size", tile_size,
        "overlap", overlap,
        "suffix", ".png",
        "depth", VIPS_FOREIGN_DZ_DEPTH_ONE,
        NULL);
}

int ts_bandjoin2(VipsImage *a, VipsImage *b, VipsImage **out) { return vips_bandjoin2(a, b, out, NULL); }

int ts_jpegsave(VipsImage *in, const char *path, int quality) {
    return vips_jpegsave(in, path, "Q", quality, NULL);
}
int ts_jpegsave_buffer(VipsImage *in, void **buf, size_t *len, int quality) {
    return vips_jpegsave_buffer(in, buf, len, "Q", quality, NULL);
}
int ts_pngsave_buffer(VipsImage *in, void **buf, size_t *len) {
    return vips_pngsave_buffer(in, buf, len, NULL);
}
int ts_crop(VipsImage *in, VipsImage **out, int left, int top, int width, int height) {
    return vips_crop(in, out, left, top, width, height, NULL);
}
int ts_arrayjoin(VipsImage **in, int n, VipsImage **out, int across) {
    return vips_arrayjoin(in, out, n, "across", across, NULL);
}
int ts_flatten(VipsImage *in, VipsImage **out, double r, double g, double b) {
    VipsArrayDouble *background = vips_array_double_newv(3, r, g, b);
    int result = vips_flatten(in, out, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    return result;
}
int ts_colourspace_srgb(VipsImage *in, VipsImage **out) {
    return vips_colourspace(in, out, VIPS_INTERPRETATION_sRGB, NULL);
}
int ts_cast_uchar(VipsImage *in, VipsImage **out) {
    return vips_cast(in, out, VIPS_FORMAT_UCHAR, NULL);
}
int ts_resize(VipsImage *in, VipsImage **out, double hscale, double vscale) {
    return vips_resize(in, out, hscale, "vscale", vscale, NULL);
}
int ts_shrink(VipsImage *in, VipsImage **out, double hshrink, double vshrink) {
    return vips_shrink(in, out, hshrink, vshrink, NULL);
}
int ts_linear1(VipsImage *in, VipsImage **out, double a, double b) {
    return vips_linear1(in, out, a, b, NULL);
}
int ts_replicate(VipsImage *in, VipsImage **out, int across, int down) {
    return vips_replicate(in, out, across, down, NULL);
}
int ts_add(VipsImage *left, VipsImage *right, VipsImage **out) { return vips_add(left, right, out, NULL); }
int ts_zone(VipsImage **out, int width, int height) { return vips_zone(out, width, height, NULL); }
int ts_zoom(VipsImage *in, VipsImage **out, int xfac, int yfac) { return vips_zoom(in, out, xfac, yfac, NULL); }
int ts_maplut(VipsImage *in, VipsImage **out, VipsImage *lut) { return vips_maplut(in, out, lut, NULL); }

VipsImage *ts_image_decode_buffer(const void *buf, size_t len) {
    VipsImage *lazy = vips_image_new_from_buffer(buf, len, "", "fail_on", VIPS_FAIL_ON_ERROR, NULL);
    if (!lazy) return NULL;
    VipsImage *decoded = vips_image_copy_memory(lazy);
    g_object_unref(lazy);
    return decoded;
}
int ts_region_read_rows(VipsRegion *region, int top, int height, unsigned char *out) {
    VipsImage *image = region->im;
    VipsRect rows = { 0, top, image->Xsize, height };
    if (vips_region_prepare(region, &rows)) return -1;
    size_t row_bytes = VIPS_IMAGE_SIZEOF_LINE(image);
    for (int y = 0; y < height; y++) {
        memcpy(out + (size_t)y * row_bytes, VIPS_REGION_ADDR(region, 0, top + y), row_bytes);
    }
    return 0;
}
int ts_save_buffer(VipsImage *in, const char *suffix, void **buf, size_t *len) {
    return vips_image_write_to_buffer(in, suffix, buf, len, NULL);
}
static void ts_free_pixels(VipsImage *image, void *data) {
    (void)image;
    free(data);
}
VipsImage *ts_image_from_malloc(void *data, size_t size, int width, int height, int bands) {
    VipsImage *image = vips_image_new_from_memory(data, size, width, height, bands, VIPS_FORMAT_UCHAR);
    if (!image) return NULL;
    image->Type = bands <= 2 ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB;  /* grey, grey + alpha */
    g_signal_connect(image, "postclose", G_CALLBACK(ts_free_pixels), data);
    return image;
}
int ts_resize_kernel(VipsImage *in, VipsImage **out, double hscale, double vscale, VipsKernel kernel) {
    return vips_resize(in, out, hscale, "vscale", vscale, "kernel", kernel, NULL);
}
int ts_flip_horizontal(VipsImage *in, VipsImage **out) {
    return vips_flip(in, out, VIPS_DIRECTION_HORIZONTAL, NULL);
}
int ts_rot90s(VipsImage *in, VipsImage **out, int quarter_turns) {
    static const VipsAngle angles[4] = { VIPS_ANGLE_D0, VIPS_ANGLE_D90, VIPS_ANGLE_D180, VIPS_ANGLE_D270 };
    return vips_rot(in, out, angles[((quarter_turns % 4) + 4) % 4], NULL);
}
int ts_rotate(VipsImage *in, VipsImage **out, double angle, double background) {
    int bands = vips_image_get_bands(in);
    double values[16];
    for (int i = 0; i < bands && i < 16; i++) values[i] = background;
    VipsArrayDouble *array = vips_array_double_new(values, bands < 16 ? bands : 16);
    int result = vips_rotate(in, out, angle, "background", array, NULL);
    vips_area_unref(VIPS_AREA(array));
    return result;
}
int ts_addalpha(VipsImage *in, VipsImage **out) { return vips_addalpha(in, out, NULL); }
int ts_colourspace_bw(VipsImage *in, VipsImage **out) {
    return vips_colourspace(in, out, VIPS_INTERPRETATION_B_W, NULL);
}
int ts_moreeq_const(VipsImage *in, VipsImage **out, double threshold) {
    return vips_moreeq_const1(in, out, threshold, NULL);
}

typedef struct { ts_progress_fn callback; void *context; } ts_progress_target;

static void ts_on_eval(VipsImage *image, VipsProgress *progress, void *data) {
    ts_progress_target *target = data;
    target->callback(target->context, progress->percent, progress->eta);
}

static void ts_free_target(void *data, GClosure *closure) { g_free(data); }

unsigned long ts_progress_connect(VipsImage *image, ts_progress_fn callback, void *context) {
    ts_progress_target *target = g_new(ts_progress_target, 1);
    target->callback = callback;
    target->context = context;
    vips_image_set_progress(image, TRUE);
    return g_signal_connect_data(image, "eval", G_CALLBACK(ts_on_eval), target, ts_free_target, 0);
}

void ts_progress_disconnect(VipsImage *image, unsigned long handler) {
    g_signal_handler_disconnect(image, handler);
}

int ts_tiffsave_pyramid(VipsImage *in, const char *path) {
    return vips_tiffsave(in, path,
        "tile", TRUE, "tile_width", 256, "tile_height", 256, "pyramid", TRUE,
        "compression", VIPS_FOREIGN_TIFF_COMPRESSION_DEFLATE,
        "predictor", VIPS_FOREIGN_TIFF_PREDICTOR_HORIZONTAL,
        "strip", TRUE,
        NULL);
}

VipsImage *ts_tiffload_page(const char *path, int page) {
    VipsImage *image = NULL;
    // vips_tiffload takes the name literally: no "[...]" options are parsed from it.
    if (vips_tiffload(path, &image, "page", page, "access", VIPS_ACCESS_RANDOM, NULL)) return NULL;
    return image;
}

int ts_orientation(VipsImage *in) {
    int orientation = 1;
    if (vips_image_get_typeof(in, VIPS_META_ORIENTATION) && vips_image_get_int(in, VIPS_META_ORIENTATION, &orientation) == 0
        && orientation >= 1 && orientation <= 8) return orientation;
    return 1;
}
int ts_autorot(VipsImage *in, VipsImage **out) { return vips_autorot(in, out, NULL); }
int ts_has_icc(VipsImage *in) { return vips_image_get_typeof(in, VIPS_META_ICC_NAME) != 0; }
const void *ts_icc_profile(VipsImage *in, size_t *length) {
    const void *data = NULL;
    *length = 0;
    if (!vips_image_get_typeof(in, VIPS_META_ICC_NAME) || vips_image_get_blob(in, VIPS_META_ICC_NAME, &data, length)) return NULL;
    return data;
}
int ts_with_icc_of(VipsImage *in, VipsImage *from, VipsImage **out) {
    const void *data = NULL;
    size_t length = 0;
    if (vips_image_get_blob(from, VIPS_META_ICC_NAME, &data, &length)) return -1;
    if (vips_copy(in, out, NULL)) return -1;
    vips_image_set_blob_copy(*out, VIPS_META_ICC_NAME, data, length);
    return 0;
}
int ts_icc_to_srgb(VipsImage *in, VipsImage **out) {
    return vips_icc_transform(in, out, "srgb", "embedded", TRUE, "intent", VIPS_INTENT_RELATIVE, "depth", 8, NULL);
}
int ts_without_profile(VipsImage *in, VipsImage **out) {
    // Nothing to remove (a reduced decode held in memory, say): the image itself, so that copying it into
    // memory later is a reference, not a second buffer.
    if (!vips_image_get_typeof(in, VIPS_META_ICC_NAME) && !vips_image_get_typeof(in, VIPS_META_EXIF_NAME)
        && !vips_image_get_typeof(in, VIPS_META_ORIENTATION)) {
        g_object_ref(in);
        *out = in;
        return 0;
    }
    if (vips_copy(in, out, NULL)) return -1;
    vips_image_remove(*out, VIPS_META_ICC_NAME);
    vips_image_remove(*out, VIPS_META_EXIF_NAME);
    vips_image_remove(*out, VIPS_META_ORIENTATION);
    return 0;
}
int ts_extract_band(VipsImage *in, VipsImage **out, int band) { return vips_extract_band(in, out, band, NULL); }
int ts_embed_copy(VipsImage *in, VipsImage **out, int width, int height) {
    return vips_embed(in, out, 0, 0, width, height, "extend", VIPS_EXTEND_COPY, NULL);
}
int ts_write_vips(VipsImage *in, const char *path) { return vips_vipssave(in, path, NULL); }

VipsImage *ts_load_level(const char *loader, const char *path, const char *option, int value) {
    VipsOperation *operation = vips_operation_new(loader);
    if (!operation) return NULL;
    g_object_set(operation, "filename", path, "access", VIPS_ACCESS_RANDOM, NULL);
    if (option) g_object_set(operation, option, value, NULL);
    // vips_object_build, not vips_cache_operation_buildp (what vips_call does): see the header.
    VipsImage *out = NULL;
    if (vips_object_build(VIPS_OBJECT(operation)) == 0) g_object_get(operation, "out", &out, NULL);
    vips_object_unref_outputs(VIPS_OBJECT(operation));
    g_object_unref(operation);
    return out;
}
/* A source read by ranges: where libvips is in the object, and the reader. */
typedef struct {
    ts_range_read_fn read;
    ts_range_release_fn release;
    void *context;
    gint64 position;
    gint64 length;
} TsRanged;

static gint64 ts_ranged_read(VipsSourceCustom *source, void *buffer, gint64 length, TsRanged *ranged) {
    (void) source;
    if (length <= 0 || ranged->position >= ranged->length) return 0;
    if (length > ranged->length - ranged->position) length = ranged->length - ranged->position;
    /* Whole: libtiff takes a short read for a damaged file ("Read error ... got N bytes, expected M"), and a
     * reader answers from one block of the object at a time. */
    gint64 done = 0;
    while (done < length) {
        gint64 got = ranged->read(ranged->context, ranged->position + done, (char *) buffer + done, length - done);
        if (got < 0) return -1;
        if (got == 0) break;
        done += got;
    }
    ranged->position += done;
    return done;
}

static gint64 ts_ranged_seek(VipsSourceCustom *source, gint64 offset, int whence, TsRanged *ranged) {
    (void) source;
    gint64 position;
    switch (whence) {
    case SEEK_SET: position = offset; break;
    case SEEK_CUR: position = ranged->position + offset; break;
    case SEEK_END: position = ranged->length + offset; break;
    default: return -1;
    }
    if (position < 0 || position > ranged->length) return -1;
    ranged->position = position;
    return position;
}

static void ts_ranged_free(gpointer data) {
    TsRanged *ranged = data;
    if (ranged->release) ranged->release(ranged->context);
    g_free(ranged);
}

VipsSource *ts_source_ranged(ts_range_read_fn read, ts_range_release_fn release, void *context, int64_t length) {
    VipsSourceCustom *source = vips_source_custom_new();
    if (!source) {
        if (release) release(context);
        return NULL;
    }
    TsRanged *ranged = g_new0(TsRanged, 1);
    ranged->read = read;
    ranged->release = release;
    ranged->context = context;
    ranged->length = length;
    g_signal_connect(source, "read", G_CALLBACK(ts_ranged_read), ranged);
    g_signal_connect(source, "seek", G_CALLBACK(ts_ranged_seek), ranged);
    /* Freed with the source, whichever image holds it last. */
    g_object_set_data_full(G_OBJECT(source), "ts-ranged", ranged, ts_ranged_free);
    return VIPS_SOURCE(source);
}

VipsImage *ts_load_level_source(const char *loader, VipsSource *source, const char *option, int value) {
    VipsOperation *operation = vips_operation_new(loader);
    if (!operation) return NULL;
    g_object_set(operation, "source", source, "access", VIPS_ACCESS_RANDOM, NULL);
    if (option) g_object_set(operation, option, value, NULL);
    VipsImage *out = NULL;
    if (vips_object_build(VIPS_OBJECT(operation)) == 0) g_object_get(operation, "out", &out, NULL);
    vips_object_unref_outputs(VIPS_OBJECT(operation));
    g_object_unref(operation);
    return out;
}

int ts_extract_bands(VipsImage *in, VipsImage **out, int first, int n) {
    return vips_extract_band(in, out, first, "n", n, NULL);
}
int ts_scale_bilinear(VipsImage *in, VipsImage **out, double scale_x, double scale_y, double offset_x, double offset_y,
    int width, int height) {
    VipsArrayInt *area = vips_array_int_newv(4, 0, 0, width, height);
    int result = vips_affine(in, out, scale_x, 0, 0, scale_y,
        "idx", offset_x, "idy", offset_y, "oarea", area,
        "interpolate", vips_interpolate_bilinear_static(), "extend", VIPS_EXTEND_COPY, NULL);
    vips_area_unref(VIPS_AREA(area));
    return result;
}
