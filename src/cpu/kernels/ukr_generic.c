/*
 * ukr_generic.c — the portable micro-kernel: plain C loops for any MR x NR. It is both the
 * fallback on CPUs without a SIMD kernel (and off x86) and the oracle of tests/cpu/test_ukernels.c.
 * The registered instance fixes MR x NR = 8 x 4 so the compiler can unroll and vectorise with the
 * baseline ISA (8 x 4 accumulators = 8 SSE registers of the 16).
 */
#include "cpu/kernels/ukernel.h"

#include "cpu/kernels/kernels.h"

static inline __attribute__((always_inline)) void
ukr_body(int mr, int nr, int64_t kc, const float *pa, const float *pb, float *c, int64_t rs_c,
         int64_t cs_c, float alpha, float beta, int m_valid, int n_valid) {
    float t[GK_UKR_MAX_TILE];
    for (int i = 0; i < mr * nr; i++)
        t[i] = 0.0f;
    for (int64_t p = 0; p < kc; p++) {
        const float *ap = pa + p * mr, *bp = pb + p * nr;
        for (int j = 0; j < nr; j++) {
            const float bj = bp[j];
            for (int i = 0; i < mr; i++)
                t[j * mr + i] += ap[i] * bj;
        }
    }
    gk_ukr_merge(t, mr, c, rs_c, cs_c, alpha, beta, m_valid, n_valid);
}

void gk_ukr_ref(int mr, int nr, int64_t kc, const float *pa, const float *pb, float *c,
                int64_t rs_c, int64_t cs_c, float alpha, float beta, int m_valid, int n_valid) {
    ukr_body(mr, nr, kc, pa, pb, c, rs_c, cs_c, alpha, beta, m_valid, n_valid);
}

void gk_ukr_generic_8x4(int64_t kc, const float *pa, const float *pb, float *c, int64_t rs_c,
                        int64_t cs_c, float alpha, float beta, int m_valid, int n_valid) {
    ukr_body(8, 4, kc, pa, pb, c, rs_c, cs_c, alpha, beta, m_valid, n_valid);
}
