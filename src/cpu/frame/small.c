/*
 * small.c — the small-matrix path for the baseline ISA, and its runner for several threads (the
 * size rule that selects the path is inline in frame.h).
 * The body is small_body.h; the AVX2/AVX-512 builds of it live in small_avx2.c/small_avx512.c.
 */
#include "cpu/frame/frame.h"

#include <omp.h>

void gk_small_run_parallel(const gk_gemm_args *g, void (*fn)(const struct gk_gemm_args *),
                           int threads) {
    if (gk_small_swapped_form(g)) {
#pragma omp parallel num_threads(threads)
        {
            /* columns of C: rows of the swapped problem, each thread's slice whole vectors */
            const int64_t ct = GK_SMALL_ROW_ALIGN;
            int64_t lo, hi;
            gk_split((g->n + ct - 1) / ct, omp_get_num_threads(), omp_get_thread_num(), &lo, &hi);
            lo *= ct;
            hi = hi * ct < g->n ? hi * ct : g->n;
            if (hi > lo) {
                gk_gemm_args s = *g;
                s.n = hi - lo;
                s.b = g->transb ? g->b + lo : g->b + lo * g->ldb;
                s.c = g->c + lo * g->ldc;
                fn(&s);
            }
        }
        return;
    }
#pragma omp parallel num_threads(threads)
    {
        /* slices of whole row tiles keep each thread's part of a C column vector-aligned */
        const int64_t rt = GK_SMALL_ROW_ALIGN;
        int64_t lo, hi;
        gk_split((g->m + rt - 1) / rt, omp_get_num_threads(), omp_get_thread_num(), &lo, &hi);
        lo *= rt;
        hi = hi * rt < g->m ? hi * rt : g->m;
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
#define GK_SMALL_PACK gk_pack_generic
#include "cpu/frame/small_body.h"
