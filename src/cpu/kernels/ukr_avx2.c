/*
 * ukr_avx2.c — AVX2 + FMA micro-kernel, MR x NR = 16 x 6 (contract: ukernel.h). Compiled with
 * -mavx2 -mfma; only reached after the registry's cpuid predicate says the CPU has both.
 *
 * Why 16 x 6: there are 16 ymm registers. The tile takes 16/8 * 6 = 12 accumulators, one column
 * of A two more, and the broadcast B element one: 15 live registers. 12 independent FMA chains
 * cover FMA latency x throughput (4 cycles x 2 pipes = 8 needed on Zen 3 / Haswell..), and each
 * k step does 12 FMAs for 2 vector loads + 6 broadcasts, within the 2-3 loads/cycle of these
 * cores. Columns of C are 16 floats (two vectors), so col-major C stores are contiguous.
 */
#include <immintrin.h>

#include "cpu/kernels/kernels.h"
#include "cpu/kernels/ukernel.h"

#define MR 16
#define NR 6

/* X-macro over the NR columns so the accumulators stay named scalars (the compiler keeps them in
 * registers; an array of __m256 can end up spilled to the stack). */
#define GK_COLS(X) X(0) X(1) X(2) X(3) X(4) X(5)

#define DECL(j) __m256 c##j##0 = _mm256_setzero_ps(), c##j##1 = _mm256_setzero_ps();
#define FMA(j)                                                                                     \
    b = _mm256_broadcast_ss(bp + j);                                                               \
    c##j##0 = _mm256_fmadd_ps(a0, b, c##j##0);                                                     \
    c##j##1 = _mm256_fmadd_ps(a1, b, c##j##1);
#define STEP(off)                                                                                  \
    do {                                                                                           \
        const float *bp = pb + (off)*NR;                                                           \
        a0 = _mm256_loadu_ps(pa + (off)*MR);                                                       \
        a1 = _mm256_loadu_ps(pa + (off)*MR + 8);                                                   \
        GK_COLS(FMA)                                                                               \
    } while (0)
#define STORE_DIRECT0(j)                                                                           \
    _mm256_storeu_ps(c + (j)*cs_c, _mm256_mul_ps(va, c##j##0));                                    \
    _mm256_storeu_ps(c + (j)*cs_c + 8, _mm256_mul_ps(va, c##j##1));
#define STORE_DIRECT(j)                                                                            \
    _mm256_storeu_ps(c + (j)*cs_c, _mm256_fmadd_ps(vb, _mm256_loadu_ps(c + (j)*cs_c),              \
                                                   _mm256_mul_ps(va, c##j##0)));                   \
    _mm256_storeu_ps(c + (j)*cs_c + 8, _mm256_fmadd_ps(vb, _mm256_loadu_ps(c + (j)*cs_c + 8),      \
                                                       _mm256_mul_ps(va, c##j##1)));
#define STORE_TMP(j)                                                                               \
    _mm256_store_ps(t + (j)*MR, c##j##0);                                                          \
    _mm256_store_ps(t + (j)*MR + 8, c##j##1);
#define PREFETCH_C(j) _mm_prefetch((const char *)(c + (j)*cs_c), _MM_HINT_T0);

void gk_ukr_avx2_16x6(int64_t kc, const float *pa, const float *pb, float *c, int64_t rs_c,
                      int64_t cs_c, float alpha, float beta, int m_valid, int n_valid) {
    const int direct = m_valid == MR && n_valid == NR && rs_c == 1;
    /* The C tile is needed only after the k loop; touching it now hides its miss behind it. */
    if (direct && beta != 0.0f) {
        GK_COLS(PREFETCH_C)
    }
    GK_COLS(DECL)
    __m256 a0, a1, b;
    int64_t p = kc;
    for (; p >= 4; p -= 4) {
        STEP(0);
        STEP(1);
        STEP(2);
        STEP(3);
        pa += 4 * MR;
        pb += 4 * NR;
    }
    for (; p > 0; p--) {
        STEP(0);
        pa += MR;
        pb += NR;
    }

    const __m256 va = _mm256_set1_ps(alpha);
    if (direct) {
        if (beta == 0.0f) {
            GK_COLS(STORE_DIRECT0)
        } else {
            const __m256 vb = _mm256_set1_ps(beta);
            GK_COLS(STORE_DIRECT)
        }
        return;
    }
    _Alignas(32) float t[MR * NR];
    GK_COLS(STORE_TMP)
    gk_ukr_merge(t, MR, c, rs_c, cs_c, alpha, beta, m_valid, n_valid);
}
