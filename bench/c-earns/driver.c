// What each piece of hand-written C in Sources/CTileDecoder buys against the plain path (libjpeg as libvips
// calls it, or libvips itself), measured A, B, A, B ... in one process. Built and run by bench/c-earns.sh,
// which says what each mode measures; the figures and the decisions are in docs/architecture.md.
//
//   driver eighth JPEG ROUNDS             the preview's 1/8 decode: two-thread entropy decoder against libjpeg
//   driver rows JPEG ROUNDS               a whole source read row by row: libjpeg (ts_jpeg_rows) against jpegload
//   driver regions LEVELS W H ROUNDS N    IIIF-style regions from a pyramid's tiles: decode, resize, encode
//   driver huffman ROUNDS TILE...         kept JPEG answers: optimized Huffman tables against the stored tile
//   driver transcode FOLDER TILE...       each tile's kept JPEG written to FOLDER under the tile's file name
#include "CTileDecoder.h"
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <vips/vips.h>

#define TILE 254
#define OVERLAP 1
#define QUALITY 85

static double now(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, int count) {
    qsort(values, (size_t)count, sizeof *values, by_value);
    return count % 2 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2;
}

static void die(const char *what) {
    fprintf(stderr, "driver: %s: %s\n", what, vips_error_buffer());
    exit(1);
}

// One row of the table every mode prints: the C path, the plain path, their ratio.
static void row(const char *figure, double c, double plain, const char *unit) {
    printf("| %s | %.3f %s | %.3f %s | %.2fx |\n", figure, c, unit, plain, unit, plain / c);
}

static void header(void) {
    printf("| figure (median) | C path | plain path | plain / C |\n|---|---:|---:|---:|\n");
}

// ---- eighth: the two-thread 1/8 decoder (jpeg_eighth.c, EighthScaleJPEG) against the builder's fallback,
// libjpeg at scale 1/8 ----

int ts_jpeg_eighth_scale(int fd, int threads, long parallel_min_bytes,
                         unsigned char **pixels, int *width, int *height, int *bands, int *split);

static unsigned char *eighth_c(const char *path, int threads, int *width, int *height, int *bands) {
    int fd = open(path, O_RDONLY), split = 0;
    unsigned char *pixels = NULL;
    if (fd < 0 || ts_jpeg_eighth_scale(fd, threads, 1 << 20, &pixels, width, height, bands, &split) != 0) die("eighth");
    if (threads == 2 && !split) fprintf(stderr, "driver: the file was not split over two threads\n");
    close(fd);
    return pixels;
}

static unsigned char *eighth_libjpeg(const char *path, int scale, int *width, int *height, int *bands) {
    char error[256];
    ts_jpeg_rows *rows = ts_jpeg_rows_open(path, scale, width, height, bands, error, sizeof error);
    if (!rows) { fprintf(stderr, "%s\n", error); exit(1); }
    unsigned char *pixels = malloc((size_t)*width * *height * *bands);
    if (ts_jpeg_rows_read(rows, pixels, *height, error, sizeof error) != 0) { fprintf(stderr, "%s\n", error); exit(1); }
    ts_jpeg_rows_close(rows);
    return pixels;
}

// libvips's shrink-on-load: drops the partial last blocks, so not a level's pixels (docs/fidelity.md).
static void eighth_vips(const char *path) {
    VipsImage *image = vips_image_new_from_file(path, "shrink", 8, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    size_t size;
    void *pixels = image ? vips_image_write_to_memory(image, &size) : NULL;
    if (!pixels) die("jpegload shrink=8");
    g_free(pixels);
    g_object_unref(image);
}

static void mode_eighth(const char *path, int rounds) {
    double c[rounds], plain[rounds], vips[rounds], one[rounds], c_cpu[rounds], plain_cpu[rounds], one_cpu[rounds];
    int w1, h1, b1, w2, h2, b2;
    for (int i = 0; i < rounds; i++) {
        double t = now(CLOCK_MONOTONIC), cpu = now(CLOCK_PROCESS_CPUTIME_ID);
        unsigned char *a = eighth_c(path, 2, &w1, &h1, &b1);
        c[i] = now(CLOCK_MONOTONIC) - t;
        c_cpu[i] = now(CLOCK_PROCESS_CPUTIME_ID) - cpu;
        t = now(CLOCK_MONOTONIC), cpu = now(CLOCK_PROCESS_CPUTIME_ID);
        unsigned char *b = eighth_libjpeg(path, 8, &w2, &h2, &b2);
        plain[i] = now(CLOCK_MONOTONIC) - t;
        plain_cpu[i] = now(CLOCK_PROCESS_CPUTIME_ID) - cpu;
        t = now(CLOCK_MONOTONIC), cpu = now(CLOCK_PROCESS_CPUTIME_ID);
        free(eighth_c(path, 1, &w1, &h1, &b1));
        one[i] = now(CLOCK_MONOTONIC) - t;
        one_cpu[i] = now(CLOCK_PROCESS_CPUTIME_ID) - cpu;
        t = now(CLOCK_MONOTONIC);
        eighth_vips(path);
        vips[i] = now(CLOCK_MONOTONIC) - t;
        if (w1 != w2 || h1 != h2 || b1 != b2 || memcmp(a, b, (size_t)w1 * h1 * b1) != 0) {
            fprintf(stderr, "driver: the two 1/8 decodes differ\n");
            exit(1);
        }
        free(a);
        free(b);
    }
    printf("1/8 decode of %s (%dx%d), wall time, %d rounds\n\n", path, w1, h1, rounds);
    header();
    double vips_median = median(vips, rounds);
    row("wall time: C on two threads, against libjpeg at 1/8 (ts_jpeg_rows)", median(c, rounds), median(plain, rounds), "s");
    row("wall time: C on one thread, against libjpeg", median(one, rounds), median(plain, rounds), "s");
    row("CPU: C on two threads, against libjpeg", median(c_cpu, rounds), median(plain_cpu, rounds), "s");
    row("CPU: C on one thread, against libjpeg", median(one_cpu, rounds), median(plain_cpu, rounds), "s");
    printf("| (libvips jpegload shrink=8, wall: %.3f s; not a level's pixels, refused for fidelity) | | | |\n", vips_median);
}

// ---- rows: SourceRowReader's libjpeg rows against libvips's sequential jpegload, the whole source at scale 1 ----

static void mode_rows(const char *path, int rounds) {
    double c[rounds], plain[rounds];
    for (int i = 0; i < rounds; i++) {
        char error[256];
        int width, height, bands;
        double t = now(CLOCK_MONOTONIC);
        ts_jpeg_rows *rows = ts_jpeg_rows_open(path, 1, &width, &height, &bands, error, sizeof error);
        if (!rows) { fprintf(stderr, "%s\n", error); exit(1); }
        for (int y = 0; y < height; y += 16) {
            int count = height - y < 16 ? height - y : 16;
            if (ts_jpeg_rows_read(rows, NULL, count, error, sizeof error) != 0) { fprintf(stderr, "%s\n", error); exit(1); }
        }
        ts_jpeg_rows_close(rows);
        c[i] = now(CLOCK_MONOTONIC) - t;
        t = now(CLOCK_MONOTONIC);
        VipsImage *image = vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
        double mean;
        if (!image || vips_avg(image, &mean, NULL) != 0) die("jpegload");
        g_object_unref(image);
        plain[i] = now(CLOCK_MONOTONIC) - t;
    }
    printf("whole source decoded top to bottom (%s), wall time, %d rounds\n\n", path, rounds);
    header();
    row("wall time: ts_jpeg_rows, against jpegload sequential + avg", median(c, rounds), median(plain, rounds), "s");
}

// ---- regions: PyramidRegionReader + RegionPixels (tile_decoder.c, linear_resize.c, jpeg_encoder.c) ----

struct region { int level, x, y, width, height, out_width, out_height; };

// IIIF regions as bench/iiif/requests.py draws them, each read from the level with 1 to 2 times the
// output's resolution, as Pyramid.levelRegion picks it.
static struct region draw_region(int width, int height, int max_level, unsigned *seed) {
    int size = 128 + rand_r(seed) % 897;
    int w = size + rand_r(seed) % (7 * size + 1);
    if (w > width) w = width;
    int h = (int)(w * (0.5 + (double)rand_r(seed) / RAND_MAX));
    if (h > height) h = height;
    if (h < 16) h = 16;
    int x = rand_r(seed) % (width - w + 1), y = rand_r(seed) % (height - h + 1);
    int out_w = size < w ? size : w, out_h = (int)lround((double)h * out_w / w);
    if (out_h < 1) out_h = 1;
    int shift = 0;
    while ((w >> (shift + 1)) >= out_w && (h >> (shift + 1)) >= out_h) shift++;
    int x0 = x >> shift, y0 = y >> shift;
    int x1 = (x + w + (1 << shift) - 1) >> shift, y1 = (y + h + (1 << shift) - 1) >> shift;
    return (struct region){max_level - shift, x0, y0, x1 - x0, y1 - y0, out_w, out_h};
}

static int level_side(int full, int max_level, int level) {
    int side = full;
    for (int l = max_level; l > level; l--) side = (side + 1) / 2;
    return side;
}

static void tile_path(char *path, size_t size, const char *levels, int level, int column, int row_) {
    snprintf(path, size, "%s/%d/%d_%d.jpeg", levels, level, column, row_);
}

// Where tile (column, row) of a level starts: its cell, less the overlap on the sides that have a neighbour.
static int stored_origin(int index) { return index * TILE - (index > 0 ? OVERLAP : 0); }

// The C path's decode: each covering tile's part straight into one buffer (PyramidRegionReader.levelPixels).
static unsigned char *decode_c(const char *levels, struct region r) {
    unsigned char *pixels = malloc((size_t)r.width * r.height * 3);
    char path[4096], error[256];
    for (int row_ = r.y / TILE; row_ <= (r.y + r.height - 1) / TILE; row_++) {
        for (int column = r.x / TILE; column <= (r.x + r.width - 1) / TILE; column++) {
            int x0 = r.x > column * TILE ? r.x : column * TILE, y0 = r.y > row_ * TILE ? r.y : row_ * TILE;
            int x1 = r.x + r.width < (column + 1) * TILE ? r.x + r.width : (column + 1) * TILE;
            int y1 = r.y + r.height < (row_ + 1) * TILE ? r.y + r.height : (row_ + 1) * TILE;
            tile_path(path, sizeof path, levels, r.level, column, row_);
            size_t size;
            unsigned char *data = ts_jpeg_read_tile(path, &size, error, sizeof error);
            if (!data || ts_jpeg_decode_rect_of(data, size, path, pixels + ((size_t)(y0 - r.y) * r.width + (x0 - r.x)) * 3,
                                                (size_t)r.width * 3, 3, x0 - stored_origin(column), y0 - stored_origin(row_),
                                                x1 - x0, y1 - y0, error, sizeof error) != 0) {
                fprintf(stderr, "%s\n", error);
                exit(1);
            }
            free(data);
        }
    }
    return pixels;
}

// The plain path's decode: each tile loaded and cropped by libvips, the parts joined, written to memory.
static unsigned char *decode_vips(const char *levels, struct region r) {
    int first_column = r.x / TILE, last_column = (r.x + r.width - 1) / TILE;
    int first_row = r.y / TILE, last_row = (r.y + r.height - 1) / TILE;
    int count = (last_column - first_column + 1) * (last_row - first_row + 1), n = 0;
    VipsImage *parts[count];
    char path[4096];
    for (int row_ = first_row; row_ <= last_row; row_++) {
        for (int column = first_column; column <= last_column; column++) {
            int x0 = r.x > column * TILE ? r.x : column * TILE, y0 = r.y > row_ * TILE ? r.y : row_ * TILE;
            int x1 = r.x + r.width < (column + 1) * TILE ? r.x + r.width : (column + 1) * TILE;
            int y1 = r.y + r.height < (row_ + 1) * TILE ? r.y + r.height : (row_ + 1) * TILE;
            tile_path(path, sizeof path, levels, r.level, column, row_);
            VipsImage *tile = vips_image_new_from_file(path, NULL);
            if (!tile || vips_crop(tile, &parts[n], x0 - stored_origin(column), y0 - stored_origin(row_),
                                   x1 - x0, y1 - y0, NULL) != 0) die("tile");
            g_object_unref(tile);
            n++;
        }
    }
    VipsImage *joined;
    if (vips_arrayjoin(parts, &joined, n, "across", last_column - first_column + 1, NULL) != 0) die("arrayjoin");
    size_t size;
    unsigned char *pixels = vips_image_write_to_memory(joined, &size);
    if (!pixels) die("write_to_memory");
    g_object_unref(joined);
    for (int i = 0; i < n; i++) g_object_unref(parts[i]);
    return pixels;
}

static unsigned char *resize_c(const unsigned char *pixels, struct region r) {
    unsigned char *out = malloc((size_t)r.out_width * r.out_height * 3);
    char error[256];
    if (ts_resize_linear(pixels, (size_t)r.width * 3, r.width, r.height, 3, out, (size_t)r.out_width * 3,
                         r.out_width, r.out_height, error, sizeof error) != 0) { fprintf(stderr, "%s\n", error); exit(1); }
    return out;
}

// libvips's resize with the same triangle kernel, to the same size.
static unsigned char *resize_vips(const unsigned char *pixels, struct region r) {
    VipsImage *in = vips_image_new_from_memory(pixels, (size_t)r.width * r.height * 3, r.width, r.height, 3, VIPS_FORMAT_UCHAR);
    VipsImage *out;
    if (!in || vips_resize(in, &out, (double)r.out_width / r.width, "vscale", (double)r.out_height / r.height,
                           "kernel", VIPS_KERNEL_LINEAR, NULL) != 0) die("resize");
    size_t size;
    unsigned char *bytes = vips_image_write_to_memory(out, &size);
    if (!bytes) die("write_to_memory");
    g_object_unref(out);
    g_object_unref(in);
    return bytes;
}

static size_t encode_c(const unsigned char *pixels, struct region r) {
    unsigned char *out = NULL;
    unsigned long size = 0;
    char error[256];
    if (ts_jpeg_encode(pixels, (size_t)r.out_width * 3, r.out_width, r.out_height, 3, QUALITY, &out, &size,
                       error, sizeof error) != 0) { fprintf(stderr, "%s\n", error); exit(1); }
    free(out);
    return size;
}

static size_t encode_vips(const unsigned char *pixels, struct region r) {
    VipsImage *in = vips_image_new_from_memory(pixels, (size_t)r.out_width * r.out_height * 3, r.out_width,
                                               r.out_height, 3, VIPS_FORMAT_UCHAR);
    void *out;
    size_t size;
    if (!in || vips_jpegsave_buffer(in, &out, &size, "Q", QUALITY, NULL) != 0) die("jpegsave");
    g_free(out);
    g_object_unref(in);
    return size;
}

// A stage's CPU over all regions, one implementation or the other; the other stages' inputs are prepared
// outside the timing.
enum stage { DECODE, RESIZE, ENCODE };

static double stage_cpu(enum stage stage, int plain, const char *levels, struct region *regions, int count,
                        unsigned char **decoded, unsigned char **resized) {
    double total = 0;
    for (int i = 0; i < count; i++) {
        double t = now(CLOCK_PROCESS_CPUTIME_ID);
        if (stage == DECODE) {
            unsigned char *p = plain ? decode_vips(levels, regions[i]) : decode_c(levels, regions[i]);
            total += now(CLOCK_PROCESS_CPUTIME_ID) - t;
            plain ? g_free(p) : free(p);
        } else if (stage == RESIZE) {
            unsigned char *p = plain ? resize_vips(decoded[i], regions[i]) : resize_c(decoded[i], regions[i]);
            total += now(CLOCK_PROCESS_CPUTIME_ID) - t;
            plain ? g_free(p) : free(p);
        } else {
            plain ? encode_vips(resized[i], regions[i]) : encode_c(resized[i], regions[i]);
            total += now(CLOCK_PROCESS_CPUTIME_ID) - t;
        }
    }
    return total / count * 1e6;
}

static void mode_regions(const char *levels, int width, int height, int rounds, int count) {
    int max_level = (int)ceil(log2(width > height ? width : height));
    struct region regions[count];
    unsigned char *decoded[count], *resized[count];
    unsigned seed = 42;
    for (int i = 0; i < count; i++) {
        regions[i] = draw_region(width, height, max_level, &seed);
        int lw = level_side(width, max_level, regions[i].level), lh = level_side(height, max_level, regions[i].level);
        if (regions[i].x + regions[i].width > lw) regions[i].width = lw - regions[i].x;
        if (regions[i].y + regions[i].height > lh) regions[i].height = lh - regions[i].y;
        decoded[i] = decode_c(levels, regions[i]);
        resized[i] = resize_c(decoded[i], regions[i]);
    }
    const char *names[] = {"decode the covering tiles: tile_decoder.c, against jpegload + crop + arrayjoin",
                           "resize: linear_resize.c, against vips_resize (linear kernel)",
                           "encode: jpeg_encoder.c, against jpegsave_buffer"};
    double c[3][rounds], plain[3][rounds];
    for (int i = 0; i < rounds; i++) {
        for (int s = 0; s < 3; s++) {
            c[s][i] = stage_cpu((enum stage)s, 0, levels, regions, count, decoded, resized);
            plain[s][i] = stage_cpu((enum stage)s, 1, levels, regions, count, decoded, resized);
        }
    }
    double cm[3], pm[3], total = 0;
    for (int s = 0; s < 3; s++) {
        cm[s] = median(c[s], rounds);
        pm[s] = median(plain[s], rounds);
        total += cm[s];
    }
    printf("%d IIIF-style regions of a %dx%d pyramid (%s), CPU per region, %d rounds\n\n", count, width, height,
           levels, rounds);
    header();
    for (int s = 0; s < 3; s++) row(names[s], cm[s], pm[s], "us");
    printf("| all three in C (a region's CPU short of HTTP) | %.0f us | | |\n\n", total);
    printf("what each piece saves of a region's CPU with that piece plain: ");
    for (int s = 0; s < 3; s++) printf("%s %.0f %%", s ? ", " : "", 100 * (pm[s] - cm[s]) / (total - cm[s] + pm[s]));
    printf("\n");
}

// ---- huffman: OptimizedJPEG (jpeg_huffman.c) against the stored tile, and against libvips's re-encode ----

static unsigned char *read_file(const char *path, size_t *size) {
    char error[256];
    unsigned char *data = ts_jpeg_read_tile(path, size, error, sizeof error);
    if (!data) { fprintf(stderr, "%s\n", error); exit(1); }
    return data;
}

static void mode_huffman(int rounds, int count, char **paths) {
    size_t stored = 0, optimized = 0, revips = 0;
    double c[rounds], plain[rounds];
    for (int i = 0; i < rounds; i++) {
        double tc = 0, tv = 0;
        for (int t = 0; t < count; t++) {
            size_t size;
            unsigned char *data = read_file(paths[t], &size);
            unsigned char *out = NULL;
            unsigned long out_size = 0;
            char error[256];
            double start = now(CLOCK_PROCESS_CPUTIME_ID);
            if (ts_jpeg_optimize_huffman(data, size, 0, &out, &out_size, error, sizeof error) != 0) {
                fprintf(stderr, "%s\n", error);
                exit(1);
            }
            tc += now(CLOCK_PROCESS_CPUTIME_ID) - start;
            start = now(CLOCK_PROCESS_CPUTIME_ID);
            VipsImage *image = vips_image_new_from_buffer(data, size, "", NULL);
            void *again;
            size_t again_size;
            if (!image || vips_jpegsave_buffer(image, &again, &again_size, "Q", QUALITY, "optimize_coding", TRUE, NULL) != 0)
                die("jpegsave");
            tv += now(CLOCK_PROCESS_CPUTIME_ID) - start;
            if (i == 0) {
                stored += size;
                optimized += out_size < size ? out_size : size;
                revips += again_size;
            }
            g_free(again);
            g_object_unref(image);
            free(out);
            free(data);
        }
        c[i] = tc / count * 1e6;
        plain[i] = tv / count * 1e6;
    }
    printf("%d stored tiles, kept JPEG answers, %d rounds\n\n", count, rounds);
    header();
    printf("| bytes: optimized Huffman tables (never more than stored), against the stored tiles | %zu | %zu | %.3fx (the C saves %.1f %%) |\n",
           optimized, stored, (double)stored / optimized, 100.0 * (stored - optimized) / stored);
    printf("| (libvips decode + jpegsave Q%d optimize_coding: %zu bytes, %.3fx of the stored; a second generation of loss) | | | |\n",
           QUALITY, revips, (double)revips / stored);
    row("CPU a tile: ts_jpeg_optimize_huffman, against libvips decode + jpegsave optimize_coding", median(c, rounds),
        median(plain, rounds), "us");
}

// The kept JPEGs themselves, for bench/c-earns.sh to compare with `jpegtran -optimize -copy none`'s.
static void mode_transcode(const char *folder, int count, char **paths) {
    for (int t = 0; t < count; t++) {
        size_t size;
        unsigned char *data = read_file(paths[t], &size);
        unsigned char *out = NULL;
        unsigned long out_size = 0;
        char error[256], path[4096];
        if (ts_jpeg_optimize_huffman(data, size, 0, &out, &out_size, error, sizeof error) != 0) {
            fprintf(stderr, "%s: %s\n", paths[t], error);
            exit(1);
        }
        const char *name = strrchr(paths[t], '/');
        snprintf(path, sizeof path, "%s/%s", folder, name ? name + 1 : paths[t]);
        FILE *file = fopen(path, "wb");
        if (!file || fwrite(out, 1, out_size, file) != out_size || fclose(file) != 0) {
            fprintf(stderr, "driver: cannot write %s\n", path);
            exit(1);
        }
        free(out);
        free(data);
    }
}

int main(int argc, char **argv) {
    if (VIPS_INIT(argv[0])) die("vips_init");
    vips_concurrency_set(1);  // as the server's region reads run: one thread each, the server's pool around them
    vips_cache_set_max(0);    // each request's tiles are new to libvips, as in the server
    if (argc == 4 && strcmp(argv[1], "eighth") == 0) mode_eighth(argv[2], atoi(argv[3]));
    else if (argc == 4 && strcmp(argv[1], "rows") == 0) mode_rows(argv[2], atoi(argv[3]));
    else if (argc == 7 && strcmp(argv[1], "regions") == 0)
        mode_regions(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), atoi(argv[6]));
    else if (argc > 3 && strcmp(argv[1], "huffman") == 0) mode_huffman(atoi(argv[2]), argc - 3, argv + 3);
    else if (argc > 3 && strcmp(argv[1], "transcode") == 0) mode_transcode(argv[2], argc - 3, argv + 3);
    else {
        fprintf(stderr, "usage: see the header of bench/c-earns/driver.c\n");
        return 2;
    }
    return 0;
}
