// Bytes and CPU of re-encoding stored JPEG tiles with optimized Huffman tables (ts_jpeg_optimize_huffman,
// Sources/CTileDecoder/jpeg_huffman.c), baseline and progressive, on the tile files named on the command line.
// Built and run by bench/formats/huffman.sh. CPU is this process's (CLOCK_PROCESS_CPUTIME_ID), per tile, the
// median of ROUNDS passes over all tiles, the two modes alternating pass by pass.
#include "CTileDecoder.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ROUNDS 7

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int count = argc - 1;
    unsigned char **tiles = calloc((size_t)count, sizeof *tiles);
    size_t *sizes = calloc((size_t)count, sizeof *sizes);
    size_t plain = 0, kept[2] = {0, 0};
    for (int i = 0; i < count; i++) {
        FILE *file = fopen(argv[i + 1], "rb");
        if (!file) { fprintf(stderr, "cannot open %s\n", argv[i + 1]); return 1; }
        fseek(file, 0, SEEK_END);
        sizes[i] = (size_t)ftell(file);
        rewind(file);
        tiles[i] = malloc(sizes[i]);
        if (fread(tiles[i], 1, sizes[i], file) != sizes[i]) return 1;
        fclose(file);
        plain += sizes[i];
    }
    double times[2][ROUNDS];
    char error[256];
    for (int round = 0; round < ROUNDS; round++) {
        for (int mode = 0; mode < 2; mode++) {
            double start = cpu_seconds();
            for (int i = 0; i < count; i++) {
                unsigned char *out = NULL;
                unsigned long size = 0;
                if (ts_jpeg_optimize_huffman(tiles[i], sizes[i], mode, &out, &size, error, sizeof error) != 0) {
                    fprintf(stderr, "%s: %s\n", argv[i + 1], error);
                    return 1;
                }
                if (round == 0) kept[mode] += size < sizes[i] ? size : sizes[i];
                free(out);
            }
            times[mode][round] = (cpu_seconds() - start) / count;
        }
    }
    for (int mode = 0; mode < 2; mode++) qsort(times[mode], ROUNDS, sizeof(double), by_value);
    printf("tiles %d, plain %zu bytes (%.1f KiB a tile)\n", count, plain, plain / 1024.0 / count);
    printf("| mode | bytes | ratio to plain | CPU per tile (median of %d passes) |\n|---|---:|---:|---:|\n", ROUNDS);
    const char *names[2] = {"baseline, optimized tables", "progressive, optimized tables"};
    for (int mode = 0; mode < 2; mode++) {
        printf("| %s | %zu | %.3fx | %.0f us |\n", names[mode], kept[mode], (double)kept[mode] / plain,
               times[mode][ROUNDS / 2] * 1e6);
    }
    return 0;
}
