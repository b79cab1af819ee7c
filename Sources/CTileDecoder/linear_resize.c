#include "CTileDecoder.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// Weights are fixed point with 14 fractional bits: 255 * 2^14 * taps stays far inside an int32.
#define WEIGHT_BITS 14
#define WEIGHT_ONE (1 << WEIGHT_BITS)

// For every output position of one axis: the first input position it reads and its weights.
struct axis {
    int taps;          // weights per output position (some trailing ones may be 0)
    int *start;        // first input position, per output position
    int32_t *weights;  // taps per output position
};

static void free_axis(struct axis *axis) {
    free(axis->start);
    free(axis->weights);
}

// A triangle (linear) filter: output pixel `o` is centred on input position (o + 0.5) * scale - 0.5,
// where scale = in / out, and weighs each input pixel by 1 - distance / radius. The radius is the
// scale when shrinking, so every input pixel contributes (an antialiased average, as libvips's
// reduce with its linear kernel), and 1 when enlarging (bilinear interpolation). Input positions
// past an edge count as the edge pixel.
static int make_axis_window(struct axis *axis, int in, int out, double scale, double offset);

static int make_axis(struct axis *axis, int in, int out) {
    return make_axis_window(axis, in, out, (double)in / (double)out, 0.0);
}

// `make_axis` for a window: output pixel `o` is centred on input position (o + 0.5) * scale - 0.5 + offset,
// where `scale` is the whole axis's (input per output) and `offset` puts this window's output in its input.
static int make_axis_window(struct axis *axis, int in, int out, double scale, double offset) {
    double radius = scale > 1.0 ? scale : 1.0;
    // The weights are non-zero on the open interval (center - radius, center + radius), which holds
    // at most ceil(2 * radius) whole positions: 4 for a shrink of up to 2, 2 when enlarging.
    axis->taps = (int)ceil(2.0 * radius);
    axis->start = malloc(sizeof(int) * (size_t)out);
    axis->weights = calloc((size_t)out * (size_t)axis->taps, sizeof(int32_t));
    double *real = malloc(sizeof(double) * (size_t)axis->taps);
    if (!axis->start || !axis->weights || !real) {
        free(real);
        free_axis(axis);
        return -1;
    }
    for (int o = 0; o < out; o++) {
        double center = ((double)o + 0.5) * scale - 0.5 + offset;
        int first = (int)floor(center - radius) + 1;
        int start = first < 0 ? 0 : first;
        if (start > in - 1) start = in - 1;
        int last = start + axis->taps - 1;
        if (last > in - 1) {
            last = in - 1;
            start = last - axis->taps + 1 < 0 ? 0 : last - axis->taps + 1;
        }
        for (int k = 0; k < axis->taps; k++) real[k] = 0.0;
        double total = 0.0;
        for (int i = first; i < first + axis->taps; i++) {
            double w = 1.0 - fabs((double)i - center) / radius;
            if (w <= 0.0) continue;
            int clamped = i < 0 ? 0 : (i > in - 1 ? in - 1 : i);
            int k = clamped - start;
            if (k < 0) k = 0;
            if (k > axis->taps - 1) k = axis->taps - 1;
            real[k] += w;
            total += w;
        }
        int32_t *weights = axis->weights + (size_t)o * (size_t)axis->taps;
        int32_t sum = 0, largest = 0;
        for (int k = 0; k < axis->taps; k++) {
            weights[k] = (int32_t)lround(real[k] / total * WEIGHT_ONE);
            sum += weights[k];
            if (weights[k] > weights[largest]) largest = k;
        }
        weights[largest] += WEIGHT_ONE - sum;  // the rounding remainder: the weights sum to exactly one
        axis->start[o] = start;
    }
    free(real);
    return 0;
}

static inline uint8_t to_byte(int32_t sum) {
    int32_t value = (sum + (WEIGHT_ONE >> 1)) >> WEIGHT_BITS;
    return (uint8_t)(value < 0 ? 0 : (value > 255 ? 255 : value));
}

// The flat loops over a row are compiled twice on x86-64, for AVX2 (32-bit multiplies 8 at a time)
// and for the baseline (SSE2, which has no 32-bit multiply and emulates it); the loader picks one
// for the CPU it runs on.
#if defined(__x86_64__) && defined(__clang__)
#define ROW_LOOP __attribute__((target_clones("avx2", "default")))
#else
#define ROW_LOOP
#endif

ROW_LOOP static void accumulate(int32_t *sums, const uint8_t *row, int32_t weight, size_t count) {
    for (size_t x = 0; x < count; x++) sums[x] += weight * row[x];
}

ROW_LOOP static void to_bytes(uint8_t *out, const int32_t *sums, size_t count) {
    for (size_t x = 0; x < count; x++) out[x] = to_byte(sums[x]);
}

// One row along the horizontal axis. `in` has `axis->taps` readable pixels past its end (their
// weights are 0), so every output pixel reads exactly `TAPS` inputs with no bounds test: a fixed
// count the compiler unrolls, which this pass (the one that cannot be vectorised across a row)
// needs to stay cheaper than the decoding.
#define RESIZE_ROW(TAPS)                                                                          \
    ROW_LOOP static void resize_row_##TAPS(const uint8_t *in, uint8_t *out, int width, int bands,         \
                                  const struct axis *axis) {                                     \
        for (int o = 0; o < width; o++) {                                                         \
            const uint8_t *p = in + (size_t)axis->start[o] * (size_t)bands;                       \
            const int32_t *w = axis->weights + (size_t)o * TAPS;                                  \
            if (bands == 3) {                                                                     \
                int32_t r = 0, g = 0, b = 0;                                                      \
                for (int k = 0; k < TAPS; k++) {                                                  \
                    r += w[k] * p[3 * k];                                                         \
                    g += w[k] * p[3 * k + 1];                                                     \
                    b += w[k] * p[3 * k + 2];                                                     \
                }                                                                                 \
                out[0] = to_byte(r);                                                              \
                out[1] = to_byte(g);                                                              \
                out[2] = to_byte(b);                                                              \
                out += 3;                                                                         \
            } else {                                                                              \
                int32_t v = 0;                                                                    \
                for (int k = 0; k < TAPS; k++) v += w[k] * p[k];                                  \
                *out++ = to_byte(v);                                                              \
            }                                                                                     \
        }                                                                                         \
    }
RESIZE_ROW(2)
RESIZE_ROW(3)
RESIZE_ROW(4)
RESIZE_ROW(5)
RESIZE_ROW(6)

static void resize_row_any(const uint8_t *in, uint8_t *out, int width, int bands, const struct axis *axis) {
    const int taps = axis->taps;
    for (int o = 0; o < width; o++) {
        const uint8_t *p = in + (size_t)axis->start[o] * (size_t)bands;
        const int32_t *w = axis->weights + (size_t)o * (size_t)taps;
        for (int c = 0; c < bands; c++) {
            int32_t v = 0;
            for (int k = 0; k < taps; k++) v += w[k] * p[k * bands + c];
            *out++ = to_byte(v);
        }
    }
}

#if defined(__SSE2__)
// The horizontal pass of an RGB row in SSE2 (the x86-64 baseline), one output pixel per step: two
// taps at a time, the pixels' bytes interleaved and widened to 16 bits, [r0 r1 g0 g1 b0 b1 . .],
// and multiplied by [w0 w1] with pmaddwd, which adds each pair into a 32-bit sum: the same integer
// products and sums as the scalar loop, so the bytes are exactly the same (a sum of integers does
// not depend on its order; the rounding shift and the packs saturate as `to_byte` clamps). Each
// pixel is read as 4 bytes: the 4th (the next pixel's red, or the row's padding) lands in a fourth
// lane that is never stored.
#define RESIZE_RGB_SSE2(TAPS)                                                                     \
    ROW_LOOP static void resize_rgb_sse2_##TAPS(const uint8_t *in, uint8_t *out, int width,       \
                                                const struct axis *axis) {                        \
        const __m128i zero = _mm_setzero_si128();                                                 \
        const __m128i half = _mm_set1_epi32(WEIGHT_ONE >> 1);                                     \
        for (int o = 0; o < width; o++) {                                                         \
            const uint8_t *p = in + (size_t)axis->start[o] * 3;                                   \
            const int32_t *w = axis->weights + (size_t)o * TAPS;                                  \
            __m128i sum = half;                                                                   \
            for (int k = 0; k < TAPS; k += 2) {                                                   \
                uint32_t first, second = 0;                                                       \
                uint32_t weights = (uint32_t)w[k] & 0xFFFF;                                       \
                memcpy(&first, p + 3 * k, 4);                                                     \
                if (k + 1 < TAPS) {                                                               \
                    memcpy(&second, p + 3 * (k + 1), 4);                                          \
                    weights |= (uint32_t)w[k + 1] << 16;                                          \
                }                                                                                 \
                __m128i bytes = _mm_unpacklo_epi8(_mm_cvtsi32_si128((int)first),                  \
                                                  _mm_cvtsi32_si128((int)second));                \
                __m128i pixels = _mm_unpacklo_epi8(bytes, zero);                                  \
                sum = _mm_add_epi32(sum, _mm_madd_epi16(pixels, _mm_set1_epi32((int)weights)));   \
            }                                                                                     \
            __m128i value = _mm_srai_epi32(sum, WEIGHT_BITS);                                     \
            value = _mm_packs_epi32(value, value);                                                \
            value = _mm_packus_epi16(value, value);                                               \
            uint32_t rgb = (uint32_t)_mm_cvtsi128_si32(value);                                    \
            memcpy(out, &rgb, 3);                                                                 \
            out += 3;                                                                             \
        }                                                                                         \
    }
RESIZE_RGB_SSE2(2)
RESIZE_RGB_SSE2(3)
RESIZE_RGB_SSE2(4)
RESIZE_RGB_SSE2(5)
RESIZE_RGB_SSE2(6)

// Whether the vector loops take the row: RGB with a tap count they are written for. `in` must have
// `axis->taps * 3` readable bytes past its row (every caller's `tall` has).
static int resize_row_vector(const uint8_t *in, uint8_t *out, int width, int bands, const struct axis *axis) {
    if (bands != 3) return 0;
    switch (axis->taps) {
    case 2: resize_rgb_sse2_2(in, out, width, axis); return 1;
    case 3: resize_rgb_sse2_3(in, out, width, axis); return 1;
    case 4: resize_rgb_sse2_4(in, out, width, axis); return 1;
    case 5: resize_rgb_sse2_5(in, out, width, axis); return 1;
    case 6: resize_rgb_sse2_6(in, out, width, axis); return 1;
    default: return 0;
    }
}
#else
static int resize_row_vector(const uint8_t *in, uint8_t *out, int width, int bands, const struct axis *axis) {
    (void)in; (void)out; (void)width; (void)bands; (void)axis;
    return 0;
}
#endif

static void resize_row(const uint8_t *in, uint8_t *out, int width, int bands, const struct axis *axis, int vector) {
    if (vector && resize_row_vector(in, out, width, bands, axis)) return;
    switch (axis->taps) {
    case 2: resize_row_2(in, out, width, bands, axis); break;
    case 3: resize_row_3(in, out, width, bands, axis); break;
    case 4: resize_row_4(in, out, width, bands, axis); break;
    case 5: resize_row_5(in, out, width, bands, axis); break;
    case 6: resize_row_6(in, out, width, bands, axis); break;
    default: resize_row_any(in, out, width, bands, axis); break;
    }
}

// The window of a whole resize (`ts_resize_linear_window`); the plain resize is the window of scale in / out at 0.
struct window {
    double scale_x, scale_y, offset_x, offset_y;
};

static int resize(const unsigned char *src, size_t src_stride, int src_width, int src_height, int bands,
                  unsigned char *dst, size_t dst_stride, int dst_width, int dst_height, int vector,
                  const struct window *window, char *error, size_t error_size) {
    if ((bands != 1 && bands != 3) || src_width <= 0 || src_height <= 0 || dst_width <= 0 || dst_height <= 0
        || (window && !(window->scale_x > 0 && window->scale_y > 0 && window->scale_x < 65536
                        && window->scale_y < 65536))) {
        snprintf(error, error_size, "cannot resize %dx%d to %dx%d with %d bands",
                 src_width, src_height, dst_width, dst_height, bands);
        return -1;
    }
    struct axis horizontal = {0}, vertical = {0};
    size_t src_row = (size_t)src_width * (size_t)bands;
    // The vertical pass first, one output row at a time, summed along the whole input row in one
    // flat loop (vectorised); then the horizontal pass on that one row, so it runs on output rows
    // only. `tall` is the one intermediate row, with room past its end for the horizontal taps.
    int make_ok = window
        ? make_axis_window(&horizontal, src_width, dst_width, window->scale_x, window->offset_x) == 0
            && make_axis_window(&vertical, src_height, dst_height, window->scale_y, window->offset_y) == 0
        : make_axis(&horizontal, src_width, dst_width) == 0 && make_axis(&vertical, src_height, dst_height) == 0;
    // The taps past the row, plus one word: the vector loops read every pixel as 4 bytes.
    size_t padding = make_ok ? (size_t)horizontal.taps * (size_t)bands + 4 : 0;
    uint8_t *tall = calloc(src_row + padding, 1);
    int32_t *sums = malloc(sizeof(int32_t) * src_row);
    if (!make_ok || !tall || !sums) {
        snprintf(error, error_size, "out of memory resizing %dx%d to %dx%d", src_width, src_height, dst_width, dst_height);
        free(tall);
        free(sums);
        free_axis(&horizontal);
        free_axis(&vertical);
        return -1;
    }
    for (int o = 0; o < dst_height; o++) {
        const int32_t *w = vertical.weights + (size_t)o * (size_t)vertical.taps;
        int start = vertical.start[o];
        memset(sums, 0, sizeof(int32_t) * src_row);
        for (int k = 0; k < vertical.taps; k++) {
            if (w[k] == 0 || start + k > src_height - 1) continue;
            accumulate(sums, src + (size_t)(start + k) * src_stride, w[k], src_row);
        }
        uint8_t *out = dst + (size_t)o * dst_stride;
        // A plain resize to the same width needs no horizontal pass; a window always takes one.
        int same_width = !window && dst_width == src_width;
        uint8_t *target = same_width ? out : tall;
        to_bytes(target, sums, src_row);
        if (!same_width) resize_row(tall, out, dst_width, bands, &horizontal, vector);
    }
    free(tall);
    free(sums);
    free_axis(&horizontal);
    free_axis(&vertical);
    return 0;
}

int ts_resize_linear(const unsigned char *src, size_t src_stride, int src_width, int src_height, int bands,
                     unsigned char *dst, size_t dst_stride, int dst_width, int dst_height,
                     char *error, size_t error_size) {
    return resize(src, src_stride, src_width, src_height, bands, dst, dst_stride, dst_width, dst_height, 1,
                  NULL, error, error_size);
}

int ts_resize_linear_scalar(const unsigned char *src, size_t src_stride, int src_width, int src_height, int bands,
                            unsigned char *dst, size_t dst_stride, int dst_width, int dst_height,
                            char *error, size_t error_size) {
    return resize(src, src_stride, src_width, src_height, bands, dst, dst_stride, dst_width, dst_height, 0,
                  NULL, error, error_size);
}

int ts_resize_linear_window(const unsigned char *src, size_t src_stride, int src_width, int src_height, int bands,
                            unsigned char *dst, size_t dst_stride, int dst_width, int dst_height,
                            double scale_x, double scale_y, double src_x, double src_y, double dst_x, double dst_y,
                            char *error, size_t error_size) {
    // Output pixel o of the window is pixel dst_x + o of the whole output, centred on whole-input position
    // (dst_x + o + 0.5) * scale - 0.5, which is that minus src_x in `src`.
    struct window window = {scale_x, scale_y, dst_x * scale_x - src_x, dst_y * scale_y - src_y};
    return resize(src, src_stride, src_width, src_height, bands, dst, dst_stride, dst_width, dst_height, 1,
                  &window, error, error_size);
}
