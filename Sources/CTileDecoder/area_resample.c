#include "CTileDecoder.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The resampling of a direct source's region (Swift's LevelArea.resampled, there through libvips's shrink and
// bilinear affine) done in plain memory: box means by whole factors, then bilinear interpolation at each output
// pixel's centre. Same arithmetic as libvips's, so the same pixels to within a level of rounding.

// Interpolation weights: fixed point with 11 fractional bits, so that the two passes' product
// (255 * 2^11 * 2^11) stays inside an int32.
#define WEIGHT_BITS 11
#define WEIGHT_ONE (1 << WEIGHT_BITS)

// The shrunk image's side: libvips's shrink rounds the quotient to the nearest whole pixel.
static int shrunk_side(int side, int shrink) {
    int out = (int)floor((double)side / (double)shrink + 0.5);
    return out < 1 ? 1 : out;
}

static int clamp(int value, int low, int high) { return value < low ? low : value > high ? high : value; }

// For every output position of one axis: the two shrunk pixels it interpolates between (edges repeated) and
// the second's weight. Output pixel i's centre lies at (i + 0.5) / scale after `start` on the shrunk image,
// whose pixel k spans k ..< k + 1 (its centre at k + 0.5).
struct axis {
    int *first;
    int *second;
    int32_t *weight;
    int low, high;  // the shrunk pixels read, inclusive
};

static void free_axis(struct axis *axis) {
    free(axis->first);
    free(axis->second);
    free(axis->weight);
}

static int make_axis(struct axis *axis, int out, double start, double scale, int side) {
    axis->first = malloc(sizeof(int) * (size_t)out);
    axis->second = malloc(sizeof(int) * (size_t)out);
    axis->weight = malloc(sizeof(int32_t) * (size_t)out);
    if (!axis->first || !axis->second || !axis->weight) {
        free_axis(axis);
        return -1;
    }
    axis->low = side - 1;
    axis->high = 0;
    for (int i = 0; i < out; i++) {
        double u = start + ((double)i + 0.5) / scale - 0.5;
        double k = floor(u);
        int32_t w = (int32_t)floor((u - k) * WEIGHT_ONE + 0.5);
        int a = (int)k, b = a + 1;
        if (w == WEIGHT_ONE) { a = b; w = 0; }
        // A pixel of no weight is not read: the window need not hold it.
        if (w == 0) b = a;
        axis->first[i] = clamp(a, 0, side - 1);
        axis->second[i] = clamp(b, 0, side - 1);
        axis->weight[i] = w;
        if (axis->first[i] < axis->low) axis->low = axis->first[i];
        if (axis->second[i] > axis->high) axis->high = axis->second[i];
    }
    if (axis->high < axis->low) axis->high = axis->low;
    return 0;
}

static int check_arguments(int level_width, int level_height, int bands, int shrink_x, int shrink_y,
                           double scale_x, double scale_y, int dst_width, int dst_height, char *error, size_t error_size) {
    if (level_width <= 0 || level_height <= 0 || (bands != 1 && bands != 3) || shrink_x <= 0 || shrink_y <= 0
        || (long)shrink_x > 2L * level_width || (long)shrink_y > 2L * level_height || !(scale_x > 0) || !(scale_y > 0)
        || !isfinite(scale_x) || !isfinite(scale_y) || dst_width <= 0 || dst_height <= 0) {
        snprintf(error, error_size, "cannot resample a %dx%d level (%d bands) shrunk %dx%d to %dx%d",
                 level_width, level_height, bands, shrink_x, shrink_y, dst_width, dst_height);
        return -1;
    }
    return 0;
}

int ts_area_window(int level_width, int level_height, int shrink_x, int shrink_y, double left, double top,
                   double scale_x, double scale_y, int dst_width, int dst_height,
                   int *x, int *y, int *width, int *height, char *error, size_t error_size) {
    if (check_arguments(level_width, level_height, 3, shrink_x, shrink_y, scale_x, scale_y, dst_width, dst_height,
                        error, error_size) < 0) return -1;
    struct axis across, down;
    if (make_axis(&across, dst_width, left, scale_x, shrunk_side(level_width, shrink_x)) < 0) {
        snprintf(error, error_size, "out of memory");
        return -1;
    }
    if (make_axis(&down, dst_height, top, scale_y, shrunk_side(level_height, shrink_y)) < 0) {
        free_axis(&across);
        snprintf(error, error_size, "out of memory");
        return -1;
    }
    // Shrunk pixel k is the mean of level pixels k * shrink ..< (k + 1) * shrink, those past the level's end
    // taken as its last (libvips extends the edge before it shrinks).
    *x = across.low * shrink_x;
    *y = down.low * shrink_y;
    int end_x = (across.high + 1) * shrink_x, end_y = (down.high + 1) * shrink_y;
    *width = (end_x < level_width ? end_x : level_width) - *x;
    *height = (end_y < level_height ? end_y : level_height) - *y;
    free_axis(&across);
    free_axis(&down);
    if (*width <= 0 || *height <= 0) {
        snprintf(error, error_size, "no level pixels under the area");
        return -1;
    }
    return 0;
}

// Shrunk row `k` (all of the shrunk columns low ..< high + 1) into `out`: box means of the window's pixels,
// rounded as libvips's shrink rounds (half up).
static void shrunk_row(const unsigned char *window, size_t stride, int window_x, int window_y, int window_width,
                       int window_height, int level_width, int level_height, int bands, int shrink_x, int shrink_y,
                       int k, int low, int high, uint32_t *sums, unsigned char *out) {
    int columns = high - low + 1;
    memset(sums, 0, sizeof(uint32_t) * (size_t)columns * (size_t)bands);
    for (int r = 0; r < shrink_y; r++) {
        int level_y = k * shrink_y + r;
        if (level_y > level_height - 1) level_y = level_height - 1;
        const unsigned char *line = window + (size_t)clamp(level_y - window_y, 0, window_height - 1) * stride;
        for (int c = 0; c < columns; c++) {
            uint32_t *sum = sums + (size_t)c * (size_t)bands;
            int base = (low + c) * shrink_x;
            for (int s = 0; s < shrink_x; s++) {
                int level_x = base + s;
                if (level_x > level_width - 1) level_x = level_width - 1;
                const unsigned char *pixel = line + (size_t)clamp(level_x - window_x, 0, window_width - 1) * (size_t)bands;
                for (int b = 0; b < bands; b++) sum[b] += pixel[b];
            }
        }
    }
    uint32_t count = (uint32_t)shrink_x * (uint32_t)shrink_y;
    for (int i = 0; i < columns * bands; i++) out[i] = (unsigned char)((sums[i] + count / 2) / count);
}

// Interpolates one shrunk row (`row`, its first pixel shrunk column `low`) across: out[i] = a * (1 - w) + b * w.
static void across_row(const unsigned char *row, int low, const struct axis *axis, int dst_width, int bands,
                       int32_t *out) {
    for (int i = 0; i < dst_width; i++) {
        const unsigned char *a = row + (size_t)(axis->first[i] - low) * (size_t)bands;
        const unsigned char *b = row + (size_t)(axis->second[i] - low) * (size_t)bands;
        int32_t w = axis->weight[i], v = WEIGHT_ONE - w;
        for (int c = 0; c < bands; c++) out[i * bands + c] = a[c] * v + b[c] * w;
    }
}

int ts_area_resample(const unsigned char *window, size_t stride, int window_x, int window_y, int window_width,
                     int window_height, int level_width, int level_height, int bands, int shrink_x, int shrink_y,
                     double left, double top, double scale_x, double scale_y,
                     unsigned char *dst, size_t dst_stride, int dst_width, int dst_height, char *error, size_t error_size) {
    if (check_arguments(level_width, level_height, bands, shrink_x, shrink_y, scale_x, scale_y, dst_width, dst_height,
                        error, error_size) < 0) return -1;
    struct axis across = {0}, down = {0};
    int shrunk_width = shrunk_side(level_width, shrink_x), shrunk_height = shrunk_side(level_height, shrink_y);
    if (make_axis(&across, dst_width, left, scale_x, shrunk_width) < 0) {
        snprintf(error, error_size, "out of memory");
        return -1;
    }
    if (make_axis(&down, dst_height, top, scale_y, shrunk_height) < 0) {
        free_axis(&across);
        snprintf(error, error_size, "out of memory");
        return -1;
    }
    // The window must hold every level pixel the shrunk pixels read (`ts_area_window`).
    int need_x = across.low * shrink_x, need_y = down.low * shrink_y;
    int need_end_x = (across.high + 1) * shrink_x, need_end_y = (down.high + 1) * shrink_y;
    if (need_end_x > level_width) need_end_x = level_width;
    if (need_end_y > level_height) need_end_y = level_height;
    if (window_x > need_x || window_y > need_y || window_x + window_width < need_end_x
        || window_y + window_height < need_end_y) {
        snprintf(error, error_size, "the window %d,%d %dx%d does not hold the level pixels %d,%d to %d,%d",
                 window_x, window_y, window_width, window_height, need_x, need_y, need_end_x, need_end_y);
        free_axis(&across);
        free_axis(&down);
        return -1;
    }
    int columns = across.high - across.low + 1;
    int boxed = shrink_x > 1 || shrink_y > 1;
    // Two interpolated rows (the shrunk rows an output row lies between), kept while output rows share them.
    int32_t *rows[2] = { malloc(sizeof(int32_t) * (size_t)dst_width * (size_t)bands),
                         malloc(sizeof(int32_t) * (size_t)dst_width * (size_t)bands) };
    int held[2] = { -1, -1 };
    unsigned char *shrunk = boxed ? malloc((size_t)columns * (size_t)bands) : NULL;
    uint32_t *sums = boxed ? malloc(sizeof(uint32_t) * (size_t)columns * (size_t)bands) : NULL;
    if (!rows[0] || !rows[1] || (boxed && (!shrunk || !sums))) {
        snprintf(error, error_size, "out of memory");
        free(rows[0]); free(rows[1]); free(shrunk); free(sums);
        free_axis(&across); free_axis(&down);
        return -1;
    }
    for (int o = 0; o < dst_height; o++) {
        int want[2] = { down.first[o], down.second[o] };
        int32_t *got[2];
        for (int n = 0; n < 2; n++) {
            int slot = held[0] == want[n] ? 0 : held[1] == want[n] ? 1 : -1;
            if (slot < 0) {
                // Replace the row this output row does not also want.
                slot = held[0] == want[1 - n] ? 1 : 0;
                const unsigned char *source;
                if (boxed) {
                    shrunk_row(window, stride, window_x, window_y, window_width, window_height, level_width,
                               level_height, bands, shrink_x, shrink_y, want[n], across.low, across.high, sums, shrunk);
                    source = shrunk;
                } else {
                    source = window + (size_t)(want[n] - window_y) * stride + (size_t)(across.low - window_x) * (size_t)bands;
                }
                across_row(source, across.low, &across, dst_width, bands, rows[slot]);
                held[slot] = want[n];
            }
            got[n] = rows[slot];
        }
        int32_t w = down.weight[o], v = WEIGHT_ONE - w;
        unsigned char *line = dst + (size_t)o * dst_stride;
        const int32_t *a = got[0], *b = got[1];
        const int32_t half = 1 << (2 * WEIGHT_BITS - 1);
        for (int i = 0; i < dst_width * bands; i++) {
            int32_t value = (a[i] * v + b[i] * w + half) >> (2 * WEIGHT_BITS);
            line[i] = (unsigned char)(value > 255 ? 255 : value);
        }
    }
    free(rows[0]); free(rows[1]); free(shrunk); free(sums);
    free_axis(&across);
    free_axis(&down);
    return 0;
}
