// A baseline JPEG at 1/8 scale, decoded on two threads: the pixels of libjpeg-turbo's own scale 1/8
// decode (what libvips's jpegload gives at shrink 8), sooner.
//
// Why: a progressive build's preview comes from a 1/8-scale decode of the whole source, before the
// full pass; for a gigapixel JPEG that decode is nearly all of the preview's wait (93 % on the demo
// image, docs/benchmarks-history.md run H), and libjpeg spends it entropy-decoding on one thread. The entropy-coded data has
// no restart markers (libvips and most cameras write none), so it cannot be cut into independent
// parts; but JPEG's Huffman codes resynchronise within a few dozen bits when decoding starts at an
// arbitrary bit. A second thread decodes the second half of the data from its middle byte, keeping
// what each block needs and where each of its first blocks began; the first thread decodes the first
// half into pixels, and goes on until it reaches a block start the second one also saw (same bit,
// same block of the MCU): from there the two parses are the same, so the second thread's blocks are
// taken as they are. DC values are coded as differences, which do not depend on where decoding
// started: the first thread's predictors carry on over the second thread's blocks. Where no common
// block start is found, the first thread decodes the rest itself: the same pixels, later.
//
// What libjpeg computes at 1/8 (jdmaster.c, jidctred.c, jdcolor.c): a luma block, or any block of a
// 4:4:4 or grey source, is one pixel, its DC coefficient (the 1x1 inverse DCT); a chroma block of a
// 4:2:0 source covers 2x2 output pixels and goes through the 2x2 inverse DCT, which reads its
// coefficients of rows and columns 0, 1, 3, 5 and 7. Those are reproduced below, then libjpeg's
// YCbCr to RGB conversion. libjpeg-turbo runs the 2x2 transform in SSE2 with 16-bit products and
// 32-bit sums, and clamps samples that its C code wraps past +-512: a block whose numbers would leave
// those ranges (never seen in a real photo, only made up) is refused rather than computed differently.
//
// Anything else (4:2:2 and other samplings, progressive, arithmetic coding, 12-bit, 16-bit
// quantisers, restart markers, several scans, CMYK, RGB JPEGs, corrupt or truncated data, an image
// whose pixels would not fit the memory budget) is refused with 1, and the caller decodes it with
// libjpeg, which also says what is wrong with it. Data too short to split, or whose second thread's
// records would not fit the budget, is decoded on one thread: since the skip table and the bit buffer
// in registers (2026-12-03), one thread of this decoder takes 0.8-0.9x libjpeg-turbo's CPU.
#include "CTileDecoder.h"
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOOKAHEAD 12
#define READ_BUFFER (256 * 1024)
#define HEADER_LIMIT (1 << 20)         // markers before the scan: EXIF and ICC data fit in far less
#define SYNC_RECORDS (1 << 16)         // block starts the second thread records for the first to meet
// The 1/8 pixels and the second thread's records together, under the full pass's peak that follows:
// the demo's 1-gigapixel 4:2:0 image 116 MB resident (dzsave's peak on it: 193 MB), the 49152²
// 4:4:4 bench image 171 MB resident (dzsave: 225 MB). An image whose records would not fit is decoded
// on one thread (its pixels alone); one whose pixels would not fit goes to libjpeg, which streams.
#define MEMORY_BUDGET (192L << 20)
#define INT16_LIMIT 32767
#define INT32_LIMIT 2147483647L

// jpeg_natural_order of libjpeg: the zig-zag position of each coefficient; a run past the last
// coefficient of corrupt-looking but well-coded data lands on 63, as in libjpeg's padded table.
static const uint8_t natural_order[64 + 16] = {
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21,
    28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61,
    54, 47, 55, 62, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63};

// The coefficients the 2x2 inverse DCT reads are those of rows and columns 0, 1, 3, 5 and 7: 25 of
// them, kept as kept[5 * row index + column index]. KEPT_INDEX maps a zig-zag position (with the
// padded table's overflow) to that index, or to 25, a slot nothing reads.
#define KEPT 25
static uint8_t kept_index[64 + 16];
static const int kept_lines[5] = {0, 1, 3, 5, 7};

static void kept_index_init(void) {
    for (int k = 0; k < 64 + 16; k++) {
        int position = natural_order[k], row = position / 8, column = position % 8, index = KEPT;
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < 5; j++)
                if (kept_lines[i] == row && kept_lines[j] == column) index = 5 * i + j;
        kept_index[k] = (uint8_t)index;
    }
}

typedef struct {
    uint8_t counts[17];
    uint8_t symbols[256];
    int defined;
    int32_t max_code[18];
    int32_t offset[18];
    uint16_t lookup[1 << LOOKAHEAD];  // (length << 8) | symbol for codes of at most LOOKAHEAD bits
    // An AC code with its value bits in one: their bits | the value's size << 5 | (run + 1) << 9, or
    // the code's bits | END_OF_BLOCK; 0 for a code longer than LOOKAHEAD.
    uint32_t value_ac[1 << LOOKAHEAD];
    // For skipping AC codes: every whole code and value of the LOOKAHEAD bits in one, up to the end of
    // block: their bits | their positions << 5 | MANY_END if an end of block is the last; and the first
    // code and value alone (for a block that ends on the way): its bits << 14 | its positions << 19,
    // or | FIRST_END. 0 for a first code longer than LOOKAHEAD.
    uint32_t skip_ac[1 << LOOKAHEAD];
} Huffman;

#define END_OF_BLOCK (1u << 16)
#define MANY_END (1u << 13)
#define FIRST_END (1u << 24)

/// The `skip_ac` entry of the LOOKAHEAD bits `window`, from the `value_ac` table.
static uint32_t skip_entry(const Huffman *h, unsigned window) {
    uint32_t first = h->value_ac[window];
    if (!first) return 0;
    uint32_t entry = (first & END_OF_BLOCK) ? (first & 31) << 14 | FIRST_END
                                           : (first & 31) << 14 | (first >> 9 & 31) << 19;
    int used = 0, positions = 0;
    for (;;) {
        // The rest of the window, zeros after it: an entry whose bits all lie in the rest is its own.
        uint32_t next = h->value_ac[(window << used) & ((1u << LOOKAHEAD) - 1)];
        int bits = (int)(next & 31);
        if (!next || used + bits > LOOKAHEAD) break;
        used += bits;
        if (next & END_OF_BLOCK) { entry |= MANY_END; break; }
        positions += (int)(next >> 9 & 31);
        if (positions > 64) break;  // past any block: the walk stops here anyway
    }
    return entry | (uint32_t)used | (uint32_t)positions << 5;
}

/// Builds the canonical codes; 0 if the table is not a valid prefix code.
static int huffman_build(Huffman *h) {
    int lengths[257], codes[257], n = 0;
    for (int l = 1; l <= 16; l++)
        for (int i = 0; i < h->counts[l]; i++) {
            if (n >= 256) return 0;
            lengths[n++] = l;
        }
    int code = 0, k = 0;
    for (int l = 1; l <= 16; l++) {
        while (k < n && lengths[k] == l) codes[k++] = code++;
        if (code >= (1 << l)) return 0;  // an all-ones code: libjpeg refuses the table (JERR_BAD_HUFF_TABLE)
        code <<= 1;
    }
    int p = 0;
    for (int l = 1; l <= 16; l++) {
        if (h->counts[l]) {
            h->offset[l] = p - codes[p];
            p += h->counts[l];
            h->max_code[l] = codes[p - 1];
        } else {
            h->max_code[l] = -1;
        }
    }
    h->max_code[17] = INT32_MAX;
    memset(h->lookup, 0, sizeof h->lookup);
    memset(h->value_ac, 0, sizeof h->value_ac);
    for (int i = 0; i < n; i++) {
        int l = lengths[i];
        if (l > LOOKAHEAD) continue;
        int symbol = h->symbols[i], run = symbol >> 4, size = symbol & 15;
        // The code and its value bits together (at most 16 + 15 = 31 bits; a reader holds 33).
        uint32_t value = size == 0 && run != 15 ? (uint32_t)l | END_OF_BLOCK
            : (uint32_t)(l + size) | (uint32_t)size << 5 | (uint32_t)(size ? run + 1 : 16) << 9;
        int first = codes[i] << (LOOKAHEAD - l);
        for (int j = 0; j < 1 << (LOOKAHEAD - l); j++) {
            h->lookup[first + j] = (uint16_t)(l << 8 | symbol);
            h->value_ac[first + j] = value;
        }
    }
    for (unsigned window = 0; window < 1u << LOOKAHEAD; window++) h->skip_ac[window] = skip_entry(h, window);
    h->defined = 1;
    return 1;
}

/// Entropy-coded bits from a file, with the 0xFF 0x00 stuffing removed. At a marker (or the end of the
/// file) it feeds zeros and counts them, so a decode that ran past the data is seen.
typedef struct {
    int fd;
    uint8_t *buffer;
    size_t length, at;
    off_t next, end;
    uint64_t bits;
    int count;
    int stopped;
    long consumed;  // bits taken, from where this reader started
    long real;      // data bits loaded (zeros fed past a marker not counted)
} Reader;

static void reader_refill(Reader *r) {
    memmove(r->buffer, r->buffer + r->at, r->length - r->at);
    r->length -= r->at;
    r->at = 0;
    while (r->length < READ_BUFFER && r->next < r->end) {
        ssize_t n = pread(r->fd, r->buffer + r->length, READ_BUFFER - r->length, r->next);
        if (n <= 0) { r->end = r->next; break; }
        r->length += (size_t)n;
        r->next += n;
    }
}

static void reader_fill_slowly(Reader *r) {
    while (r->count <= 56) {
        uint64_t byte = 0;
        if (!r->stopped) {
            if (r->length - r->at < 2) reader_refill(r);
            if (r->at >= r->length) {
                r->stopped = 1;
            } else if (r->buffer[r->at] != 0xFF) {
                byte = r->buffer[r->at++];
                r->real += 8;
            } else if (r->at + 1 < r->length && r->buffer[r->at + 1] == 0) {
                byte = 0xFF;
                r->at += 2;
                r->real += 8;
            } else {
                r->stopped = 1;  // a marker: the end of the scan
            }
        }
        r->bits |= byte << (56 - r->count);
        r->count += 8;
    }
}

/// The next 4 bytes into `*bits` (holding `*count` <= 32 bits), if they are in the buffer and none is
/// 0xFF (stuffing or a marker, for the slow path); 1 if it took them.
static inline int reader_take_word(Reader *r, uint64_t *bits, int *count) {
    if (r->stopped || r->length - r->at < 4) return 0;
    uint32_t word;
    memcpy(&word, r->buffer + r->at, 4);
    uint32_t inverted = ~word;  // a zero byte here is an 0xFF byte there
    if ((inverted - 0x01010101u) & ~inverted & 0x80808080u) return 0;
    *bits |= (uint64_t)__builtin_bswap32(word) << (32 - *count);
    *count += 32;
    r->at += 4;
    r->real += 32;
    return 1;
}

/// At least 33 bits in hand: a Huffman code and its value bits (16 + 15) fit.
static inline void reader_fill(Reader *r) {
    if (r->count > 32) return;
    if (r->length - r->at < 4 && !r->stopped) reader_refill(r);
    if (!reader_take_word(r, &r->bits, &r->count)) reader_fill_slowly(r);
}

static inline unsigned reader_peek(Reader *r, int n) { return (unsigned)(r->bits >> (64 - n)); }
static inline void reader_skip(Reader *r, int n) {
    r->bits <<= n;
    r->count -= n;
    r->consumed += n;
}

/// The next symbol, or -1 (one bit skipped) for a code the table does not have.
static inline int huffman_decode(Reader *r, const Huffman *h) {
    uint16_t entry = h->lookup[reader_peek(r, LOOKAHEAD)];
    if (entry) {
        reader_skip(r, entry >> 8);
        return entry & 0xFF;
    }
    for (int l = LOOKAHEAD + 1; l <= 16; l++) {
        int32_t code = (int32_t)reader_peek(r, l);
        if (code <= h->max_code[l]) {
            reader_skip(r, l);
            return h->symbols[(code + h->offset[l]) & 0xFF];
        }
    }
    reader_skip(r, 1);
    return -1;
}

static inline int extend(int value, int size) { return value < (1 << (size - 1)) ? value - (1 << size) + 1 : value; }

/// What a 4:2:0 chroma block's 2x2 pixels need besides its DC value (which waits for the predictor):
/// the odd part of column 0's first pass, and the odd parts of the two rows' second pass.
typedef struct { int32_t column0, row[2]; } ChromaAC;

/// A block's place in the scan: its slot in the MCU, and the MCU's row and column.
typedef struct { int slot, row, column; } Place;

static inline void place_next(Place *at, int blocks_per_mcu, int mcu_columns) {
    if (++at->slot < blocks_per_mcu) return;
    at->slot = 0;
    if (++at->column == mcu_columns) { at->column = 0; at->row++; }
}

/// Where the 1/8 pixels go: YCbCr (or grey) bytes, converted to RGB in place at the end.
typedef struct {
    uint8_t *pixels;
    int width, height, bands;
    int subsampled;                 // 4:2:0: slots 0-3 luma, 4 and 5 chroma at 2x2
    int component[6], dx[6], dy[6]; // of each block of an MCU
    int h, v;                       // luma blocks of an MCU across and down
    int dc_quant[3];
    int unsupported;                // a chroma block whose numbers libjpeg-turbo's SSE2 would not keep
} Picture;

typedef struct { long position; int slot; long chroma, escapes, bad; } BlockStart;

// The second thread's last block starts: it decodes on into the end's padding bits (its last blocks
// can be shorter than a byte), and the join takes only the blocks the frame needs.
#define RECENT 16
typedef struct { long consumed, bad; } RecentStart;

/// A DC difference past +-127 in the second thread's byte records: the difference itself is the next
/// of its `escapes`. Most differences fit a byte, so the records take half the memory of 16-bit ones
/// (the 49152² 4:4:4 image's 70 M blocks: 70 MB, not 141 MB) and the walk reads half the bytes.
#define ESCAPE INT8_MIN

/// One thread's decode. The first thread puts each block into the picture as it goes (`picture`
/// set); the second keeps each block's DC difference and a chroma block's AC part for later.
typedef struct {
    Reader reader;
    const Huffman *dc[6], *ac[6];
    const uint16_t *quant[6];       // `kept` order, for the chroma blocks whose AC is kept
    Place at;
    int blocks_per_mcu, mcu_columns, keeps_from;  // slots from keeps_from on keep their AC part
    long count;                     // blocks decoded
    long bad;                       // invalid codes (or numbers not taken) found so far
    // first thread
    Picture *picture;
    long predictor[3];              // 64 bits: corrupt data cannot overflow the sum
    // second thread
    int8_t *differences;            // or ESCAPE
    int16_t *escapes;
    ChromaAC *chroma;
    long limit, chroma_count, escape_count, escape_limit;
    BlockStart *starts;
    long start_count, start_limit;
    RecentStart recent[RECENT];
    long origin;                    // data bits before this reader's first byte
} Decode;

static inline void mark_bad(Decode *d) { d->bad++; }

static inline long decode_position(const Decode *d) { return d->origin + d->reader.consumed; }

/// libjpeg's 1x1 inverse DCT: the DC times its quantiser, descaled by 3 bits, centred and clamped
/// through libjpeg's wrapping range-limit table.
static inline uint8_t range_limit(long value) {
    int index = (int)(value & 1023);
    if (index < 128) return (uint8_t)(index + 128);
    if (index < 512) return 255;
    if (index < 896) return 0;
    return (uint8_t)(index - 896);
}

static inline uint8_t dc_sample(int dc, int quant) { return range_limit((dc * quant + 4) >> 3); }


// jidctred.c's constants (CONST_BITS 13).
#define FIX_0_720959822 5906
#define FIX_0_850430095 6967
#define FIX_1_272758580 10426
#define FIX_3_624509785 29692

/// The odd part of a column or row: rows (or columns) 1, 3, 5 and 7.
static inline long odd_part(long z1, long z3, long z5, long z7) {
    return z7 * -FIX_0_720959822 + z5 * FIX_0_850430095 + z3 * -FIX_1_272758580 + z1 * FIX_3_624509785;
}

// Bits of a kept-coefficient mask: column j's rows 1, 3, 5 and 7, and its whole column.
#define ODD_ROWS(j) ((1u << (5 + (j))) | (1u << (10 + (j))) | (1u << (15 + (j))) | (1u << (20 + (j))))
#define COLUMN(j) (ODD_ROWS(j) | (1u << (j)))

/// Whether `value` is within +-limit.
static inline int fits(long value, long limit) { return (unsigned long)(value + limit) <= (unsigned long)(2 * limit); }

/// A dequantised kept coefficient, or -2^40 (which fits nothing) if it leaves 16 bits.
static inline long dequantised(const int16_t *kept, const uint16_t *quant, int i) {
    long z = (long)kept[i] * quant[i];
    return fits(z, INT16_LIMIT) ? z : -(1L << 40);
}

/// The odd part of kept column j (rows 1, 3, 5 and 7), dequantised.
static inline long column_odd_part(const int16_t *kept, const uint16_t *quant, int j) {
    return odd_part(dequantised(kept, quant, 5 + j), dequantised(kept, quant, 10 + j),
                    dequantised(kept, quant, 15 + j), dequantised(kept, quant, 20 + j));
}

/// A 4:2:0 chroma block's AC part from its kept coefficients (`mask`: those not zero) and quantisers
/// (`kept` order), or 0 if a number would leave the range in which libjpeg-turbo's SSE2 transform
/// computes what its C code does. Columns and rows that are all zero are skipped: their terms are 0.
static int chroma_ac(const int16_t *kept, uint32_t mask, const uint16_t *quant, ChromaAC *out) {
    // First pass: columns 0, 1, 3, 5 and 7 into two rows (column 0's DC waits for its predictor).
    long odd = mask & ODD_ROWS(0) ? column_odd_part(kept, quant, 0) : 0;
    if (!fits(odd, INT32_LIMIT / 2)) return 0;
    out->column0 = (int32_t)odd;
    long ws[2][5] = {{0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}};
    int any = 0;
    for (int j = 1; j < 5; j++) {
        if (!(mask & COLUMN(j))) continue;
        any = 1;
        long even = dequantised(kept, quant, j) * (1L << 15);
        odd = mask & ODD_ROWS(j) ? column_odd_part(kept, quant, j) : 0;
        if (!fits(even + odd, INT32_LIMIT - 4096) || !fits(even - odd, INT32_LIMIT - 4096)) return 0;
        ws[0][j] = (even + odd + 4096) >> 13;
        ws[1][j] = (even - odd + 4096) >> 13;
        if (!fits(ws[0][j], INT16_LIMIT) || !fits(ws[1][j], INT16_LIMIT)) return 0;
    }
    // Second pass: the odd part of each row (its column 0 waits too).
    for (int r = 0; r < 2; r++) {
        odd = any ? odd_part(ws[r][1], ws[r][2], ws[r][3], ws[r][4]) : 0;
        if (!fits(odd, INT32_LIMIT / 2)) return 0;
        out->row[r] = (int32_t)odd;
    }
    return 1;
}

/// A 4:2:0 chroma block's 2x2 pixels from its DC and AC part (jpeg_idct_2x2); 0 if out of range.
static inline int chroma_pixels(int dc, int quant, const ChromaAC *ac, uint8_t out[2][2]) {
    long z0 = (long)dc * quant;
    if (!fits(z0, INT16_LIMIT)) return 0;
    long even = z0 * (1L << 15);  // libjpeg's LEFT_SHIFT: a multiplication, as shifting a negative number is undefined in C
    if (!fits(even + ac->column0, INT32_LIMIT - 4096) || !fits(even - ac->column0, INT32_LIMIT - 4096)) return 0;
    long first[2] = {(even + ac->column0 + 4096) >> 13, (even - ac->column0 + 4096) >> 13};
    for (int r = 0; r < 2; r++) {
        if (!fits(first[r], INT16_LIMIT)) return 0;
        long base = first[r] * (1L << 15), odd = ac->row[r];
        if (!fits(base + odd, INT32_LIMIT - (1 << 19)) || !fits(base - odd, INT32_LIMIT - (1 << 19))) return 0;
        // libjpeg's C code wraps a sample past +-512 through its range-limit table; its SSE2 code clamps.
        long sample[2] = {(base + odd + (1 << 19)) >> 20, (base - odd + (1 << 19)) >> 20};
        if (sample[0] < -512 || sample[0] > 511 || sample[1] < -512 || sample[1] > 511) return 0;
        out[r][0] = range_limit(sample[0]);
        out[r][1] = range_limit(sample[1]);
    }
    return 1;
}

/// Puts one block (its absolute DC value known) into the picture.
static inline __attribute__((always_inline)) void emit(Picture *p, Place at, int16_t dc, const ChromaAC *ac) {
    int component = p->component[at.slot];
    if (!p->subsampled || component == 0) {
        int x = at.column * p->h + p->dx[at.slot], y = at.row * p->v + p->dy[at.slot];
        if (x < p->width && y < p->height)
            p->pixels[((size_t)y * (size_t)p->width + (size_t)x) * (size_t)p->bands + (size_t)component] =
                dc_sample(dc, p->dc_quant[component]);
        return;
    }
    uint8_t values[2][2];
    if (!chroma_pixels(dc, p->dc_quant[component], ac, values)) { p->unsupported = 1; return; }
    for (int r = 0; r < 2; r++) {
        int y = 2 * at.row + r;
        if (y >= p->height) break;
        for (int s = 0; s < 2; s++) {
            int x = 2 * at.column + s;
            if (x < p->width) p->pixels[((size_t)y * (size_t)p->width + (size_t)x) * 3 + (size_t)component] = values[r][s];
        }
    }
}

/// The reader's bit buffer in locals while a block's AC codes are read: the compiler keeps them in
/// registers, where the reader's own fields went through memory on every code (10 % of the decode).
typedef struct { uint64_t bits; int count; long taken; } Bits;

static inline Bits bits_load(const Reader *r) { return (Bits){r->bits, r->count, 0}; }

static inline void bits_store(Reader *r, Bits *b) {
    r->bits = b->bits, r->count = b->count, r->consumed += b->taken;
    b->taken = 0;
}

/// reader_fill on the locals: at least 33 bits in hand.
static inline void bits_fill(Reader *r, Bits *b) {
    if (b->count > 32 || reader_take_word(r, &b->bits, &b->count)) return;
    bits_store(r, b);  // a refill, an 0xFF byte or the end of the scan: the reader's own fill
    reader_fill(r);
    *b = bits_load(r);
}

static inline void bits_skip(Bits *b, int n) { b->bits <<= n, b->count -= n, b->taken += n; }

/// huffman_decode for a code the LOOKAHEAD tables do not have (longer, or none).
static inline int bits_decode_long(Reader *r, Bits *b, const Huffman *h) {
    bits_store(r, b);
    int symbol = huffman_decode(r, h);
    *b = bits_load(r);
    return symbol;
}

/// Skips a block's AC coefficients: every code and value in the next LOOKAHEAD bits in one lookup, unless
/// the block ends on the way (past position 63, its last code not the end of block), then the first alone.
static inline void skip_ac(Decode *d, const Huffman *ac) {
    Reader *r = &d->reader;
    Bits b = bits_load(r);
    for (int k = 1; k < 64;) {
        bits_fill(r, &b);
        uint32_t entry = ac->skip_ac[b.bits >> (64 - LOOKAHEAD)];
        int after = k + (int)(entry >> 5 & 255);
        if ((entry & 31) && (after < 64 || (after == 64 && !(entry & MANY_END)))) {
            bits_skip(&b, (int)(entry & 31));
            if (entry & MANY_END) break;
            k = after;
            continue;
        }
        if (entry) {
            bits_skip(&b, (int)(entry >> 14 & 31));
            if (entry & FIRST_END) break;
            k += (int)(entry >> 19 & 31);
            continue;
        }
        int symbol = bits_decode_long(r, &b, ac);
        if (symbol < 0) { mark_bad(d); continue; }
        int run = symbol >> 4, size = symbol & 15;
        if (size) {
            bits_fill(r, &b);
            bits_skip(&b, size);
            k += run + 1;
        } else if (run == 15) {
            k += 16;
        } else {
            break;
        }
    }
    bits_store(r, &b);
}

/// Decodes a block's AC coefficients as libjpeg's decode_mcu does, keeping those the 2x2 transform
/// reads; returns the mask of those that are not zero.
static inline uint32_t read_ac(Decode *d, const Huffman *ac, int16_t kept[KEPT + 1]) {
    Reader *r = &d->reader;
    Bits b = bits_load(r);
    uint32_t mask = 0;
    for (int k = 1; k < 64; k++) {
        bits_fill(r, &b);
        // A code of at most LOOKAHEAD bits: its length, run and value size from one lookup, so the
        // next code's lookup waits for one shift only.
        uint32_t entry = ac->value_ac[b.bits >> (64 - LOOKAHEAD)];
        if (entry & END_OF_BLOCK) { bits_skip(&b, (int)(entry & 31)); break; }
        if (entry) {
            int total = (int)(entry & 31), size = (int)(entry >> 5 & 15), step = (int)(entry >> 9 & 31);
            if (size) {
                int index = kept_index[k + step - 1];
                kept[index] = (int16_t)extend((int)((b.bits >> (64 - total)) & ((1u << size) - 1)), size);
                mask |= 1u << index;
            }
            bits_skip(&b, total);
            k += step - 1;
            continue;
        }
        int symbol = bits_decode_long(r, &b, ac);
        if (symbol < 0) { mark_bad(d); k--; continue; }
        int run = symbol >> 4, size = symbol & 15;
        if (size) {
            bits_fill(r, &b);
            k += run;
            int index = kept_index[k];
            kept[index] = (int16_t)extend((int)(b.bits >> (64 - size)), size);
            bits_skip(&b, size);
            mask |= 1u << index;
        } else if (run == 15) {
            k += 15;
        } else {
            break;
        }
    }
    bits_store(r, &b);
    return mask & ((1u << KEPT) - 1);
}

static inline void decode_block(Decode *d) {
    Reader *r = &d->reader;
    int slot = d->at.slot;
    reader_fill(r);
    int size = huffman_decode(r, d->dc[slot]), difference = 0;
    if (size < 0 || size > 11) {
        mark_bad(d);
    } else if (size) {
        reader_fill(r);
        difference = extend((int)reader_peek(r, size), size);
        reader_skip(r, size);
    }
    ChromaAC ac = {0, {0, 0}};
    int keeps = slot >= d->keeps_from;
    if (keeps) {
        int16_t kept[KEPT + 1] = {0};
        uint32_t mask = read_ac(d, d->ac[slot], kept);
        if (mask && !chroma_ac(kept, mask, d->quant[slot], &ac)) mark_bad(d);  // not taken, as a bad code
    } else {
        skip_ac(d, d->ac[slot]);
    }
    if (d->picture) {
        int component = d->picture->component[slot];
        d->predictor[component] += difference;
        // libjpeg keeps the coefficient in 16 bits (JCOEF) before dequantising it.
        emit(d->picture, d->at, (int16_t)d->predictor[component], &ac);
    } else {
        if (difference > INT8_MIN && difference <= INT8_MAX) {
            d->differences[d->count] = (int8_t)difference;
        } else {
            d->differences[d->count] = ESCAPE;
            d->escapes[d->escape_count++] = (int16_t)difference;
        }
        if (keeps) d->chroma[d->chroma_count++] = ac;
    }
    d->count++;
    place_next(&d->at, d->blocks_per_mcu, d->mcu_columns);
}

/// The second thread: from the middle to the end of the data (or its records' end), recording where
/// its first blocks began and its last ones.
static void *decode_second_half(void *argument) {
    Decode *d = argument;
    long chroma_limit = d->limit / d->blocks_per_mcu * (d->blocks_per_mcu - d->keeps_from) + d->blocks_per_mcu;
    while (d->count < d->limit && d->chroma_count < chroma_limit && d->escape_count < d->escape_limit
           && !(d->reader.stopped && d->reader.consumed >= d->reader.real)) {
        if (d->start_count < d->start_limit) {
            d->starts[d->start_count] = (BlockStart){decode_position(d), d->at.slot, d->chroma_count, d->escape_count, d->bad};
            d->start_count++;
        }
        d->recent[d->count % RECENT] = (RecentStart){d->reader.consumed, d->bad};
        decode_block(d);
    }
    d->recent[d->count % RECENT] = (RecentStart){d->reader.consumed, d->bad};
    return NULL;
}

/// Whether the second thread's blocks from `joined_at` on are the `needed` last blocks of the scan: all
/// decoded, all valid, and ending where the data ends but for its padding (under a byte).
static int second_half_fits(const Decode *second, long joined_at, long needed) {
    long end = joined_at + needed;  // the first block past the frame's
    if (end > second->count || second->count - end >= RECENT) return 0;
    RecentStart after = second->recent[end % RECENT];
    long real = second->reader.real;
    return after.consumed <= real && real - after.consumed < 8 && after.bad == second->starts[joined_at].bad;
}

typedef struct {
    int width, height, components;
    int h[3], v[3], quant_table[3], dc_table[3], ac_table[3], id[3];
    int h_max, v_max;
    uint16_t quant[4][64];  // natural order
    uint16_t kept_quant[4][KEPT];
    int quant_defined[4];
    Huffman dc[4], ac[4];
    int adobe_transform;  // -1: no Adobe marker
    off_t scan_start;
} Header;

static int read_exactly(int fd, uint8_t *into, size_t size, off_t at) {
    size_t done = 0;
    while (done < size) {
        ssize_t n = pread(fd, into + done, size - done, at + (off_t)done);
        if (n <= 0) return 0;
        done += (size_t)n;
    }
    return 1;
}

/// Reads the markers up to the scan; 0 for anything this decoder does not take.
static int read_header(int fd, off_t file_size, Header *header) {
    memset(header, 0, sizeof *header);
    header->adobe_transform = -1;
    uint8_t marker[4];
    if (!read_exactly(fd, marker, 2, 0) || marker[0] != 0xFF || marker[1] != 0xD8) return 0;
    off_t at = 2;
    int frame = 0;
    uint8_t *data = malloc(65536);
    if (!data) return 0;
    int ok = 0;
    while (at + 4 <= file_size && at < HEADER_LIMIT) {
        if (!read_exactly(fd, marker, 4, at) || marker[0] != 0xFF) break;
        int type = marker[1], length = marker[2] << 8 | marker[3];
        if (type == 0xFF) { at += 1; continue; }  // fill byte
        if (length < 2 || at + 2 + length > file_size || !read_exactly(fd, data, (size_t)length - 2, at + 4)) break;
        const uint8_t *p = data;
        int size = length - 2;
        if (type == 0xDB) {
            int i = 0;
            while (i < size) {
                int precision = p[i] >> 4, table = p[i] & 15;
                i++;
                // 16-bit quantisers: libjpeg-turbo's transforms keep them in 16 signed bits.
                if (table > 3 || precision != 0 || i + 64 > size) goto done;
                for (int k = 0; k < 64; k++, i++) header->quant[table][natural_order[k]] = p[i];
                header->quant_defined[table] = 1;
            }
        } else if (type == 0xC4) {
            int i = 0;
            while (i < size) {
                int kind = p[i] >> 4, table = p[i] & 15, total = 0;
                i++;
                if (kind > 1 || table > 3 || i + 16 > size) goto done;
                Huffman *h = kind ? &header->ac[table] : &header->dc[table];
                for (int l = 1; l <= 16; l++) total += h->counts[l] = p[i++];
                if (total > 256 || i + total > size) goto done;
                memcpy(h->symbols, p + i, (size_t)total);
                i += total;
                if (!huffman_build(h)) goto done;
            }
        } else if (type == 0xC0 || type == 0xC1) {
            if (frame || size < 6 || p[0] != 8) goto done;
            frame = 1;
            header->height = p[1] << 8 | p[2];
            header->width = p[3] << 8 | p[4];
            header->components = p[5];
            if ((header->components != 1 && header->components != 3) || size < 6 + 3 * header->components) goto done;
            for (int c = 0; c < header->components; c++) {
                header->id[c] = p[6 + 3 * c];
                header->h[c] = p[7 + 3 * c] >> 4;
                header->v[c] = p[7 + 3 * c] & 15;
                header->quant_table[c] = p[8 + 3 * c];
                if (header->h[c] < 1 || header->h[c] > 2 || header->v[c] < 1 || header->v[c] > 2
                    || header->quant_table[c] > 3) goto done;
            }
        } else if (type >= 0xC2 && type <= 0xCF) {
            goto done;  // progressive, lossless, hierarchical or arithmetic coding
        } else if (type == 0xDD) {
            if (size < 2 || (p[0] << 8 | p[1]) != 0) goto done;  // restart markers
        } else if (type == 0xEE) {
            if (size >= 12 && memcmp(p, "Adobe", 5) == 0) header->adobe_transform = p[11];
        } else if (type == 0xDA) {
            if (!frame || size < 1 || p[0] != header->components || size < 1 + 2 * p[0] + 3) goto done;
            for (int c = 0; c < header->components; c++) {
                if (p[1 + 2 * c] != header->id[c]) goto done;
                header->dc_table[c] = p[2 + 2 * c] >> 4;
                header->ac_table[c] = p[2 + 2 * c] & 15;
                if (header->dc_table[c] > 3 || header->ac_table[c] > 3) goto done;
            }
            const uint8_t *spectral = p + 1 + 2 * header->components;
            if (spectral[0] != 0 || spectral[1] != 63 || spectral[2] != 0) goto done;
            header->scan_start = at + 2 + length;
            ok = 1;
            goto done;
        } else if (type == 0xD9 || (type >= 0xD0 && type <= 0xD7)) {
            goto done;
        }
        at += 2 + length;
    }
done:
    free(data);
    if (!ok || header->width < 1 || header->height < 1) return 0;
    header->h_max = header->v_max = 1;
    for (int c = 0; c < header->components; c++) {
        const Huffman *dc = &header->dc[header->dc_table[c]];
        if (!header->quant_defined[header->quant_table[c]] || !dc->defined || !header->ac[header->ac_table[c]].defined) return 0;
        // libjpeg refuses a DC table with a symbol over 15 (JERR_BAD_HUFF_TABLE).
        int symbols = 0;
        for (int l = 1; l <= 16; l++) symbols += dc->counts[l];
        for (int i = 0; i < symbols; i++)
            if (dc->symbols[i] > 15) return 0;
        if (header->h[c] > header->h_max) header->h_max = header->h[c];
        if (header->v[c] > header->v_max) header->v_max = header->v[c];
    }
    // One component is one non-interleaved scan: a block per MCU, whatever its sampling factors say.
    if (header->components == 1) {
        header->h[0] = header->v[0] = header->h_max = header->v_max = 1;
        return 1;
    }
    // Colour is YCbCr (as libjpeg assumes without other signs), 4:4:4 or 4:2:0: in libjpeg at 1/8, other
    // samplings go through its upsampling filters.
    if (header->adobe_transform == 0) return 0;
    if (header->id[0] == 'R' && header->id[1] == 'G' && header->id[2] == 'B') return 0;
    int full = header->h[0] == 1 && header->v[0] == 1;
    int half = header->h[0] == 2 && header->v[0] == 2;
    for (int c = 1; c < 3; c++)
        if (header->h[c] != 1 || header->v[c] != 1) return 0;
    return full || half;
}

/// The second thread's records of blocks [from, to), and the state of the decode at `from`: the DC
/// predictors, the block's place, and the index of the next chroma record.
typedef struct {
    Picture picture;  // a copy: its own `unsupported`
    const int8_t *differences;
    const int16_t *escapes;
    const ChromaAC *chroma;
    long from, to, chroma_at, escape_at;
    long predictor[3];
    Place at;
    int blocks_per_mcu, mcu_columns, keeps_from;
} Records;

/// Puts the records into the picture (`put`), or only moves the state to `to`.
static void records_walk(Records *r, int put) {
    // The state in locals, not in `r`: a pixel is a byte store, which C lets alias anything, so the
    // compiler reloaded every field of `r` after each one (a third of the walk's time; 0.17-0.24 s
    // of the demo image's preview went to the walk).
    Picture picture = r->picture;
    const int8_t *differences = r->differences;
    const int16_t *escapes = r->escapes;
    const ChromaAC *chroma = r->chroma;
    long chroma_at = r->chroma_at, escape_at = r->escape_at;
    long predictor[3] = {r->predictor[0], r->predictor[1], r->predictor[2]};
    Place at = r->at;
    const int blocks_per_mcu = r->blocks_per_mcu, mcu_columns = r->mcu_columns, keeps_from = r->keeps_from;
    for (long j = r->from; j < r->to; j++) {
        int component = picture.component[at.slot], keeps = at.slot >= keeps_from;
        int difference = differences[j];
        if (difference == ESCAPE) difference = escapes[escape_at++];
        predictor[component] += difference;
        if (put) emit(&picture, at, (int16_t)predictor[component], keeps ? &chroma[chroma_at] : NULL);
        chroma_at += keeps;
        place_next(&at, blocks_per_mcu, mcu_columns);
    }
    r->picture.unsupported = picture.unsupported;
    r->chroma_at = chroma_at;
    r->escape_at = escape_at;
    for (int c = 0; c < 3; c++) r->predictor[c] = predictor[c];
    r->at = at;
    r->from = r->to;
}

static void *records_put(void *argument) {
    records_walk(argument, 1);
    return NULL;
}

/// Puts the second thread's records from `joined_at` into the picture after the first thread's blocks,
/// in two halves on two threads (the second half's state found by walking the first half's records).
static int records_put_all(Picture *picture, const Decode *first, const Decode *second, long joined_at, long count) {
    Records head = {*picture, second->differences, second->escapes, second->chroma, joined_at, joined_at + count / 2,
                    second->starts[joined_at].chroma, second->starts[joined_at].escapes,
                    {first->predictor[0], first->predictor[1], first->predictor[2]},
                    first->at, first->blocks_per_mcu, first->mcu_columns,
                    first->keeps_from};
    Records tail = head;
    records_walk(&tail, 0);
    tail.to = joined_at + count;
    pthread_t thread;
    int parallel = pthread_create(&thread, NULL, records_put, &tail) == 0;
    records_walk(&head, 1);
    if (parallel) pthread_join(thread, NULL);
    else records_walk(&tail, 1);
    return !head.picture.unsupported && !tail.picture.unsupported;
}

/// libjpeg's YCbCr to RGB in 16-bit fixed point (jdcolor.c), rounding included; in place.
static void ycc_to_rgb(uint8_t *pixels, size_t count) {
    int cr_r[256], cb_b[256];
    int32_t cr_g[256], cb_g[256];
    for (int i = 0; i < 256; i++) {
        int32_t x = i - 128;
        cr_r[i] = (int)((91881 * x + 32768) >> 16);   // FIX(1.40200)
        cb_b[i] = (int)((116130 * x + 32768) >> 16);  // FIX(1.77200)
        cr_g[i] = -46802 * x;                         // -FIX(0.71414)
        cb_g[i] = -22554 * x + 32768;                 // -FIX(0.34414), with the rounding half
    }
    for (size_t i = 0; i < count; i++, pixels += 3) {
        int l = pixels[0], cb = pixels[1], cr = pixels[2];
        int r = l + cr_r[cr], g = l + (int)((cb_g[cb] + cr_g[cr]) >> 16), b = l + cb_b[cb];
        pixels[0] = (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
        pixels[1] = (uint8_t)(g < 0 ? 0 : g > 255 ? 255 : g);
        pixels[2] = (uint8_t)(b < 0 ? 0 : b > 255 ? 255 : b);
    }
}

typedef struct { uint8_t *pixels; size_t count; } Pixels;

static void *rgb_of(void *argument) {
    Pixels *part = argument;
    ycc_to_rgb(part->pixels, part->count);
    return NULL;
}

/// ycc_to_rgb, the second half on a second thread if `parallel`.
static void rgb_in_halves(uint8_t *pixels, size_t count, int parallel) {
    Pixels tail = {pixels + count / 2 * 3, count - count / 2};
    pthread_t thread;
    if (parallel && pthread_create(&thread, NULL, rgb_of, &tail) == 0) {
        ycc_to_rgb(pixels, count / 2);
        pthread_join(thread, NULL);
    } else {
        ycc_to_rgb(pixels, count);
    }
}

/// Bytes of the scan's data before `middle` that are stuffing (0xFF 0x00 counts one data byte), and
/// where the second thread may start: not just after an 0xFF. -1 if a marker comes first.
static long stuffing_before(int fd, off_t scan_start, off_t *middle) {
    long stuffing = 0;
    uint8_t *scan = malloc(READ_BUFFER);
    if (!scan) return -1;
    off_t at = scan_start;
    uint8_t previous = 0;
    int valid = 1;
    while (valid && at < *middle) {
        size_t size = (size_t)(*middle - at < READ_BUFFER ? *middle - at : READ_BUFFER);
        if (!read_exactly(fd, scan, size, at)) { valid = 0; break; }
        if (previous == 0xFF && scan[0] != 0) valid = 0;  // a marker across two reads
        for (const uint8_t *p = scan; valid && (p = memchr(p, 0xFF, size - (size_t)(p - scan))) != NULL; p++) {
            stuffing++;
            if (p + 1 < scan + size && p[1] != 0) valid = 0;  // a marker in the first half
        }
        previous = scan[size - 1];
        at += (off_t)size;
    }
    free(scan);
    // Just after an 0xFF, the byte is its stuffing 0x00 (or a marker), not data.
    if (valid && previous == 0xFF) {
        uint8_t after = 1;
        valid = read_exactly(fd, &after, 1, *middle) && after == 0;
        (*middle)++;
    }
    return valid ? stuffing : -1;
}

int ts_jpeg_eighth_scale(int fd, int threads, long parallel_min_bytes,
                         unsigned char **pixels, int *width, int *height, int *bands, int *split) {
    *pixels = NULL;
    *split = 0;
    struct stat info;
    Header header;
    int result = 1;
    Picture picture = {0};
    Decode second = {0};
    uint8_t *buffers[2] = {NULL, NULL};
    if (fstat(fd, &info) != 0 || !read_header(fd, info.st_size, &header)) return 1;
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, kept_index_init);
    for (int t = 0; t < 4; t++)
        for (int i = 0; i < KEPT; i++) header.kept_quant[t][i] = header.quant[t][8 * kept_lines[i / 5] + kept_lines[i % 5]];

    // libjpeg's partial last column and row of blocks are kept (libvips's shrink-on-load drops them): the
    // DC of a partial block is the mean of its pixels and of the encoder's padding, which repeats the edge,
    // so pixel i covers source pixels [8i, 8i + 8) with the edge repeated, as every coarser level does.
    picture.width = (header.width + 7) / 8;
    picture.height = (header.height + 7) / 8;
    picture.bands = header.components;
    if (picture.width < 1 || picture.height < 1) return 1;
    size_t picture_bytes = (size_t)picture.width * (size_t)picture.height * (size_t)picture.bands;
    if (picture_bytes > (size_t)MEMORY_BUDGET) return 1;

    int mcu_columns = (header.width + 8 * header.h_max - 1) / (8 * header.h_max);
    int mcu_rows = (header.height + 8 * header.v_max - 1) / (8 * header.v_max);
    int blocks_per_mcu = 0;
    picture.subsampled = header.h_max == 2;
    picture.h = header.h[0];
    picture.v = header.v[0];
    Decode first = {.mcu_columns = mcu_columns, .picture = &picture};
    for (int c = 0; c < header.components; c++) {
        picture.dc_quant[c] = header.quant[header.quant_table[c]][0];
        for (int i = 0; i < header.h[c] * header.v[c]; i++, blocks_per_mcu++) {
            picture.component[blocks_per_mcu] = c;
            picture.dx[blocks_per_mcu] = i % header.h[c];
            picture.dy[blocks_per_mcu] = i / header.h[c];
            first.dc[blocks_per_mcu] = &header.dc[header.dc_table[c]];
            first.ac[blocks_per_mcu] = &header.ac[header.ac_table[c]];
            first.quant[blocks_per_mcu] = header.kept_quant[header.quant_table[c]];
        }
    }
    first.blocks_per_mcu = blocks_per_mcu;
    first.keeps_from = picture.subsampled ? 4 : blocks_per_mcu;
    long total = (long)mcu_columns * mcu_rows * blocks_per_mcu;

    picture.pixels = malloc(picture_bytes);
    buffers[0] = malloc(READ_BUFFER);
    if (!picture.pixels || !buffers[0]) goto end;
    first.reader = (Reader){.fd = fd, .buffer = buffers[0], .next = header.scan_start, .end = info.st_size};

    // The second thread's records: a DC difference a block and a chroma block's AC part, for up to
    // 5/8 of the blocks (it starts at the middle byte; data denser at the end gives it more blocks;
    // if its records run out first, the first thread decodes the rest itself). Its escaped differences
    // get what the budget leaves, up to one a block (pages never written are never resident); under
    // 1/32 of the blocks, they would run out too often to be worth the split.
    long second_limit = total / 8 * 5 + blocks_per_mcu;
    long kept_per_mcu = blocks_per_mcu - first.keeps_from;
    size_t chroma_bytes = (size_t)(second_limit / blocks_per_mcu * kept_per_mcu + blocks_per_mcu) * sizeof(ChromaAC);
    size_t second_bytes = (size_t)second_limit * sizeof(int8_t) + chroma_bytes + SYNC_RECORDS * sizeof(BlockStart);
    long escape_limit = picture_bytes + second_bytes > (size_t)MEMORY_BUDGET ? 0
        : (long)(((size_t)MEMORY_BUDGET - picture_bytes - second_bytes) / sizeof(int16_t));
    if (escape_limit > second_limit) escape_limit = second_limit;
    pthread_t thread;
    int parallel = 0;
    off_t data_bytes = info.st_size - header.scan_start;
    if (threads > 1 && data_bytes >= parallel_min_bytes && data_bytes >= 2 && escape_limit >= second_limit / 32 + 1) {
        off_t middle = header.scan_start + data_bytes / 2;
        long stuffing = stuffing_before(fd, header.scan_start, &middle);
        if (stuffing >= 0) {
            second = first;
            second.picture = NULL;
            second.limit = second_limit;
            second.differences = malloc((size_t)second_limit * sizeof(int8_t));
            second.escapes = malloc((size_t)escape_limit * sizeof(int16_t));
            second.escape_limit = escape_limit;
            second.chroma = kept_per_mcu ? malloc(chroma_bytes) : NULL;
            second.starts = malloc(sizeof(BlockStart) * SYNC_RECORDS);
            buffers[1] = malloc(READ_BUFFER);
            if (second.differences && second.escapes && (second.chroma || !kept_per_mcu) && second.starts && buffers[1]) {
                second.reader = (Reader){.fd = fd, .buffer = buffers[1], .next = middle, .end = info.st_size};
                second.start_limit = SYNC_RECORDS;
                second.origin = 8 * ((long)(middle - header.scan_start) - stuffing);
                parallel = pthread_create(&thread, NULL, decode_second_half, &second) == 0;
            }
        }
    }

    long joined_at = -1;
    if (parallel) {
        while (first.count < total && decode_position(&first) < second.origin) decode_block(&first);
        pthread_join(thread, NULL);
        long next = 0;
        while (first.count < total) {
            long position = decode_position(&first);
            while (next < second.start_count && second.starts[next].position < position) next++;
            if (next >= second.start_count) break;
            if (second.starts[next].position == position && second.starts[next].slot == first.at.slot) {
                joined_at = next;
                break;
            }
            decode_block(&first);
        }
        // Otherwise the first thread decodes the rest.
        if (joined_at >= 0 && !second_half_fits(&second, joined_at, total - first.count)) joined_at = -1;
    }
    if (joined_at >= 0) {
        *split = 1;
        if (!records_put_all(&picture, &first, &second, joined_at, total - first.count)) picture.unsupported = 1;
    } else {
        // Past the end of the data, stop at once: a few bytes that claim a huge frame are not decoded
        // from zeros block after block.
        while (first.count < total && !(first.reader.stopped && first.reader.consumed > first.reader.real))
            decode_block(&first);
        if (first.count < total || first.reader.consumed > first.reader.real) goto end;  // truncated: libjpeg says why
    }
    if (first.bad || picture.unsupported) goto end;

    if (picture.bands == 3) rgb_in_halves(picture.pixels, (size_t)picture.width * (size_t)picture.height, *split);
    *pixels = picture.pixels;
    picture.pixels = NULL;
    *width = picture.width;
    *height = picture.height;
    *bands = picture.bands;
    result = 0;
end:
    free(picture.pixels);
    free(second.differences);
    free(second.escapes);
    free(second.chroma);
    free(second.starts);
    free(buffers[0]);
    free(buffers[1]);
    return result;
}
