/*
 * small.c — the small-matrix path for the baseline ISA, and its runner for several threads (the
 * size rule that selects the path is inline in frame.h).
 * The body is small_body.h; the AVX2/AVX-512 builds of it live in small_avx2.c/small_avx512.c.
 */
#include "cpu/frame/frame.h"

#include <omp.h>

/* Each thread takes whole 32-element groups of C's rows (or, for the swapped form, of its
 * columns, the rows of the swapped problem): a row slice keeps each thread's part of a C column
 * vector-aligned, and the slices share nothing. */
void gk_small_run_parallel(const gk_gemm_args *g, void (*fn)(const struct gk_gemm_args *),
                           int threads) {
    const int by_cols = gk_small_swapped_form(g);
    const int64_t extent = by_cols ? g->n : g->m, group = GK_SMALL_ROW_ALIGN;
#pragma omp parallel num_threads(threads)
    {
        int64_t lo, hi;
        gk_split((extent + group - 1) / group, omp_get_num_threads(), omp_get_thread_num(), &lo,
                 &hi);
        lo *= group;
        hi = hi * group < extent ? hi * group : extent;
        if (hi > lo) {
            gk_gemm_args s = *g;
            if (by_cols) {
                s.n = hi - lo;
                s.b = g->transb ? g->b + lo : g->b + lo * g->ldb;
                s.c = g->c + lo * g->ldc;
            } else {
                s.m = hi - lo;
                s.a = g->transa ? g->a + lo * g->lda : g->a + lo;
                s.c = g->c + lo;
            }
            fn(&s);
        }
    }
}

#define GK_SMALL_NAME gk_small_gemm_generic
#define GK_SMALL_PACK gk_pack_generic
#include "cpu/frame/small_body.h"
