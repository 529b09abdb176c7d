/*
 * formats_bench.c — `gk-formats-bench`: single-thread bandwidth of the bulk conversions (gk_encode
 * / gk_decode and every ISA variant behind them) against memcpy on this machine; the target is
 * >= 50 % of memcpy's bytes read + written per second (docs/formats.md, "Bulk conversions on the
 * CPU"). A developer probe, not a test (built with the CLI and by `make probes`, bench/bench.mk):
 *
 *   build/bin/gk-formats-bench [MiB]
 *
 * MiB (default 64) is the float32 side of each conversion: past the caches, so both sides
 * stream from and to memory as memcpy's do. Prints one line per format, direction and variant:
 * GB/s of bytes read + written, memcpy's GB/s (read + written) measured just before, the ratio.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "formats/formats.h"
#include "gemmkit.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define REPS 7

/* Median seconds of REPS runs of fn (after one warm-up run). */
#define TIME(median, stmt)                                                                         \
    do {                                                                                           \
        double t_[REPS];                                                                           \
        stmt;                                                                                      \
        for (int r_ = 0; r_ < REPS; r_++) {                                                        \
            const double t0_ = now();                                                              \
            stmt;                                                                                  \
            t_[r_] = now() - t0_;                                                                  \
        }                                                                                          \
        qsort(t_, REPS, sizeof t_[0], cmp);                                                        \
        median = t_[REPS / 2];                                                                     \
    } while (0)

int main(int argc, char **argv) {
    const size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 64;
    const int64_t n = (int64_t)(mib << 20) / 4;
    float *x = aligned_alloc(64, (size_t)n * 4), *y = aligned_alloc(64, (size_t)n * 4);
    void *codes = aligned_alloc(64, (size_t)n * 4);
    if (!x || !y || !codes) return 1;
    srand(1);
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)((rand() / (double)RAND_MAX - 0.5) * 900.0);
    memset(codes, 0, (size_t)n * 4);
    memset(y, 0, (size_t)n * 4);

    /* memcpy is timed again next to every conversion and each ratio uses that figure: on a
     * shared machine the bandwidth available drifts between rows. */
    double t, tc;
    printf("%-16s %-6s %-8s %8s %8s %8s\n", "format", "dir", "variant", "GB/s", "memcpy", "ratio");
    for (int f = 0; f < GK_FORMAT_COUNT; f++) {
        gk_format_info info;
        gk_format_info_get((gk_format)f, &info);
        const double bytes = (double)n * (4.0 + info.storage_bytes), cbytes = 2.0 * (double)n * 4;
        for (int v = 0; v < gk_fmt_variant_count; v++) {
            const gk_fmt_variant *var = &gk_fmt_variants[v];
            if (!var->usable()) continue;
            for (int dir = 0; dir < 2; dir++) {
                TIME(tc, memcpy(y, x, (size_t)n * 4));
                if (dir == 0)
                    TIME(t, var->encode((gk_format)f, x, codes, n, 0));
                else
                    TIME(t, var->decode((gk_format)f, codes, y, n));
                printf("%-16s %-6s %-8s %8.1f %8.1f %8.2f\n", info.name, dir ? "decode" : "encode",
                       var->arch, bytes / t / 1e9, cbytes / tc / 1e9, (bytes / t) / (cbytes / tc));
            }
        }
    }
    free(x);
    free(y);
    free(codes);
    return 0;
}
