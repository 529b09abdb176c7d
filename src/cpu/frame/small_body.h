/*
 * small_body.h — the unpacked small-matrix GEMM, written once and compiled per ISA (small.c for
 * the baseline, small_avx2.c / small_avx512.c with wider vectors) by defining GK_SMALL_NAME
 * before including it. Column j of C is finished before the next: C(:,j) = beta C(:,j), then
 * alpha * op(B)(:,j) is copied in chunks to a contiguous buffer and applied as axpys over the
 * columns of A (plain A) or dot products with the rows of A (transposed A), so every access in
 * the inner loops is unit-stride and vectorisable.
 */
#include <stdint.h>

#include "core/internal.h"

#define GK_SMALL_CHUNK 256

void GK_SMALL_NAME(const gk_gemm_args *g) {
    const int64_t m = g->m, n = g->n, k = g->k;
    float bt[GK_SMALL_CHUNK];
    for (int64_t j = 0; j < n; j++) {
        float *restrict cj = g->c + j * g->ldc;
        if (g->beta == 0.0f)
            for (int64_t i = 0; i < m; i++)
                cj[i] = 0.0f;
        else if (g->beta != 1.0f)
            for (int64_t i = 0; i < m; i++)
                cj[i] *= g->beta;
        for (int64_t p0 = 0; p0 < k; p0 += GK_SMALL_CHUNK) {
            const int64_t pl = k - p0 < GK_SMALL_CHUNK ? k - p0 : GK_SMALL_CHUNK;
            if (g->transb)
                for (int64_t p = 0; p < pl; p++)
                    bt[p] = g->alpha * g->b[j + (p0 + p) * g->ldb];
            else
                for (int64_t p = 0; p < pl; p++)
                    bt[p] = g->alpha * g->b[p0 + p + j * g->ldb];
            if (!g->transa) {
                for (int64_t p = 0; p < pl; p++) {
                    const float *restrict ap = g->a + (p0 + p) * g->lda;
                    const float bv = bt[p];
                    for (int64_t i = 0; i < m; i++)
                        cj[i] += ap[i] * bv;
                }
            } else {
                for (int64_t i = 0; i < m; i++) {
                    const float *restrict ar = g->a + p0 + i * g->lda;
                    /* eight partial sums: a vector accumulator without reassociation flags */
                    float s[8] = {0};
                    int64_t p = 0;
                    for (; p + 8 <= pl; p += 8)
                        for (int l = 0; l < 8; l++)
                            s[l] += ar[p + l] * bt[p + l];
                    for (; p < pl; p++)
                        s[0] += ar[p] * bt[p];
                    cj[i] += ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
                }
            }
        }
    }
}
