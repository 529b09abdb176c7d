/*
 * small.c — the small-matrix path for the baseline ISA, and the size test that selects it.
 * The body is small_body.h; the AVX2/AVX-512 builds of it live in small_avx2.c/small_avx512.c.
 */
#include "cpu/frame/frame.h"

/* Below this many multiply-adds, packing A and B costs more than it saves (docs/cpu.md). */
#define GK_SMALL_MNK (32.0 * 32.0 * 32.0)

int gk_small_wanted(const gk_gemm_args *g) {
    return (double)g->m * (double)g->n * (double)g->k <= GK_SMALL_MNK;
}

#define GK_SMALL_NAME gk_small_gemm_generic
#include "cpu/frame/small_body.h"
