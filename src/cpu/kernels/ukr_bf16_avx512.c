/*
 * ukr_bf16_avx512.c — the AVX512-BF16 micro-kernel (lp.h): a 32 x 12 tile of C from BF16 panels in
 * the pairs layout, one vdpbf16ps per A vector and B column for every two steps of k.
 *
 * The shape is the FP32 AVX-512 kernel's (ukr_avx512.c): two 16-lane A vectors (32 rows, each
 * lane a pair of k) and 12 broadcast B pairs give 24 accumulators, 26 of 32 registers, fewer
 * than one load per dot product; each vdpbf16ps does the work of two FMAs. Written with
 * intrinsics (the body is short enough that gcc keeps the accumulators in registers); the
 * AVX512-BF16 instructions come from the function's target attribute, the file name gives the
 * AVX-512 flags (Makefile).
 */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "cpu/kernels/lp.h"

#define MR 32
#define NR 12

__attribute__((target("avx512f,avx512bf16"))) void
gk_ukr_avx512bf16_32x12(int64_t kc, const float *pa_, const float *pb_, float *c, int64_t rs_c,
                        int64_t cs_c, float alpha, float beta, int m_valid, int n_valid) {
    const uint16_t *pa = (const uint16_t *)pa_;
    const uint16_t *pb = (const uint16_t *)pb_;
    __m512 acc0[NR], acc1[NR];
    for (int j = 0; j < NR; j++)
        acc0[j] = _mm512_setzero_ps(), acc1[j] = _mm512_setzero_ps();
    for (int64_t p = 0; p < kc; p += 2) { /* kc is even: pairs */
        const __m512bh a0 = (__m512bh)_mm512_loadu_si512(pa + p * MR);
        const __m512bh a1 = (__m512bh)_mm512_loadu_si512(pa + p * MR + 32);
        const uint16_t *bp = pb + p * NR;
        for (int j = 0; j < NR; j++) {
            int32_t pair;
            memcpy(&pair, bp + 2 * j, sizeof pair);
            const __m512bh b = (__m512bh)_mm512_set1_epi32(pair);
            acc0[j] = _mm512_dpbf16_ps(acc0[j], a0, b);
            acc1[j] = _mm512_dpbf16_ps(acc1[j], a1, b);
        }
    }
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    if (rs_c == 1 && m_valid == MR && n_valid == NR) { /* the whole tile, from registers */
        for (int j = 0; j < NR; j++) {
            float *cj = c + j * cs_c;
            __m512 r0 = _mm512_mul_ps(va, acc0[j]), r1 = _mm512_mul_ps(va, acc1[j]);
            if (beta != 0.0f) {
                r0 = _mm512_fmadd_ps(vb, _mm512_loadu_ps(cj), r0);
                r1 = _mm512_fmadd_ps(vb, _mm512_loadu_ps(cj + 16), r1);
            }
            _mm512_storeu_ps(cj, r0);
            _mm512_storeu_ps(cj + 16, r1);
        }
        return;
    }
    float t[MR * NR]; /* edge tile: through a local copy, only the valid part touches C */
    for (int j = 0; j < NR; j++) {
        _mm512_storeu_ps(t + j * MR, acc0[j]);
        _mm512_storeu_ps(t + j * MR + 16, acc1[j]);
    }
    gk_ukr_merge(t, MR, c, rs_c, cs_c, alpha, beta, m_valid, n_valid);
}
