/*
 * small.c — the small-matrix path for the baseline ISA, and the size test that selects it.
 * The body is small_body.h; the AVX2/AVX-512 builds of it live in small_avx2.c/small_avx512.c.
 */
#include "cpu/frame/frame.h"

#include <omp.h>

/* Measured on Zen 3 against the packed path (docs/cpu.md): packing wins from about 10^3
 * multiply-adds on square shapes, but loses by 2-5x on GEMV-like shapes, where it pads a 1- or
 * 2-wide operand to a whole micro-panel and copies the big matrix once more than it reads it:
 * n <= 2 (axpy or dot form, both unit-stride) and m <= 2 with transposed A (dot form). */
#define GK_SMALL_MNK 1000.0

int gk_small_wanted(const gk_gemm_args *g) {
    if ((double)g->m * (double)g->n * (double)g->k <= GK_SMALL_MNK) return 1;
    return g->n <= 2 || (g->m <= 2 && g->transa);
}

void gk_small_run(const gk_gemm_args *g, void (*fn)(const struct gk_gemm_args *), int threads) {
    const double per_thread = (double)g->m * (double)g->n * (double)g->k / GK_MIN_MNK_PER_THREAD;
    if ((double)threads > per_thread) threads = per_thread < 1.0 ? 1 : (int)per_thread;
    if (threads <= 1) {
        fn(g);
        return;
    }
#pragma omp parallel num_threads(threads)
    {
        /* slices of whole 16-row groups keep each thread's part of a C column vector-aligned */
        int64_t lo, hi;
        gk_split((g->m + 15) / 16, omp_get_num_threads(), omp_get_thread_num(), &lo, &hi);
        lo *= 16;
        hi = hi * 16 < g->m ? hi * 16 : g->m;
        if (hi > lo) {
            gk_gemm_args s = *g;
            s.m = hi - lo;
            s.a = g->transa ? g->a + lo * g->lda : g->a + lo;
            s.c = g->c + lo;
            fn(&s);
        }
    }
}

#define GK_SMALL_NAME gk_small_gemm_generic
#include "cpu/frame/small_body.h"
