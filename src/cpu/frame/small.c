/*
 * small.c — the small-matrix path for the baseline ISA, and the size test that selects it.
 * The body is small_body.h; the AVX2/AVX-512 builds of it live in small_avx2.c/small_avx512.c.
 */
#include "cpu/frame/frame.h"

#include <omp.h>

/* The unpacked path's register tiles against the packed path, 1 thread, `gk-cpu-probe` (tables in
 * docs/cpu.md). Zen 3: 2-9x faster up to 12^3 in every transposition (the packed path spends
 * ~0.2 us per call on edge panels and tiles), 0.6-0.95x of its time up to 32^3, level
 * (0.9-1.1x) at 48^3-64^3 with plain B; with transposed B, whose pack is a transpose that the
 * tiles avoid by broadcasting B in place, 0.5-0.85x up to 64^3. The Xeon's AVX-512 tiles gain
 * as much or more (0.6-0.95x at 48^3-64^3 with plain B), so one rule serves both. */
#define GK_SMALL_MNK (32.0 * 32.0 * 32.0)
#define GK_SMALL_MNK_TRANSB (64.0 * 64.0 * 64.0)

/* GEMV-like calls take the vector form at any size: packing would pad a 1- or 2-wide operand to
 * a whole micro-panel and copy the big matrix once more than it reads it (Zen 3: 1000x1x1000
 * 4x, 2000x2x500 2x faster unpacked). Otherwise the size rule above, provided a transposed A fits
 * the tiles' stack copy. */
int gk_small_wanted(const gk_gemm_args *g) {
    if (gk_small_vector_form(g)) return 1;
    const double mnk = (double)g->m * (double)g->n * (double)g->k;
    if (mnk > (g->transb ? GK_SMALL_MNK_TRANSB : GK_SMALL_MNK)) return 0;
    return !g->transa ||
           (g->m + GK_SMALL_ROW_ALIGN - 1) / GK_SMALL_ROW_ALIGN * GK_SMALL_ROW_ALIGN * g->k <=
               GK_SMALL_ABUF;
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
