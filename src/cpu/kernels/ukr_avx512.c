/*
 * ukr_avx512.c — AVX-512F micro-kernel, MR x NR = 32 x 12 (contract: ukernel.h). Compiled with
 * AVX-512 flags; only reached after the registry's cpuid predicate (CPU flag + OS ZMM state).
 *
 * Why 32 x 12: there are 32 zmm registers. The tile takes 32/16 * 12 = 24 accumulators, one
 * column of A two more and the broadcast B element one: 27 live, leaving room for the compiler.
 * 24 independent FMA chains cover 4-cycle latency x 2 FMA ports (8 needed) three times over, and
 * each k step is 24 FMAs for 2 vector loads + 12 broadcasts (< 1 load per FMA, so the two load
 * ports are never the limit). Columns of C are 32 floats (two vectors, two cache lines).
 */
#include <immintrin.h>

#include "cpu/kernels/kernels.h"
#include "cpu/kernels/ukernel.h"

#define MR 32
#define NR 12

#define GK_COLS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)

#define DECL(j) __m512 c##j##_0 = _mm512_setzero_ps(), c##j##_1 = _mm512_setzero_ps();
#define FMA(j)                                                                                     \
    b = _mm512_set1_ps(bp[j]);                                                                     \
    c##j##_0 = _mm512_fmadd_ps(a0, b, c##j##_0);                                                   \
    c##j##_1 = _mm512_fmadd_ps(a1, b, c##j##_1);
#define STEP(off)                                                                                  \
    do {                                                                                           \
        const float *bp = pb + (off)*NR;                                                           \
        a0 = _mm512_loadu_ps(pa + (off)*MR);                                                       \
        a1 = _mm512_loadu_ps(pa + (off)*MR + 16);                                                  \
        GK_COLS(FMA)                                                                               \
    } while (0)
#define STORE_DIRECT0(j)                                                                           \
    _mm512_storeu_ps(c + (j)*cs_c, _mm512_mul_ps(va, c##j##_0));                                   \
    _mm512_storeu_ps(c + (j)*cs_c + 16, _mm512_mul_ps(va, c##j##_1));
#define STORE_DIRECT(j)                                                                            \
    _mm512_storeu_ps(c + (j)*cs_c, _mm512_fmadd_ps(vb, _mm512_loadu_ps(c + (j)*cs_c),              \
                                                   _mm512_mul_ps(va, c##j##_0)));                  \
    _mm512_storeu_ps(c + (j)*cs_c + 16, _mm512_fmadd_ps(vb, _mm512_loadu_ps(c + (j)*cs_c + 16),    \
                                                        _mm512_mul_ps(va, c##j##_1)));
#define STORE_TMP(j)                                                                               \
    _mm512_store_ps(t + (j)*MR, c##j##_0);                                                         \
    _mm512_store_ps(t + (j)*MR + 16, c##j##_1);
/* A 32-float column spans two cache lines. */
#define PREFETCH_C(j)                                                                              \
    _mm_prefetch((const char *)(c + (j)*cs_c), _MM_HINT_T0);                                       \
    _mm_prefetch((const char *)(c + (j)*cs_c + 31), _MM_HINT_T0);

void gk_ukr_avx512_32x12(int64_t kc, const float *pa, const float *pb, float *c, int64_t rs_c,
                         int64_t cs_c, float alpha, float beta, int m_valid, int n_valid) {
    const int direct = m_valid == MR && n_valid == NR && rs_c == 1;
    if (direct && beta != 0.0f) {
        GK_COLS(PREFETCH_C)
    }
    GK_COLS(DECL)
    __m512 a0, a1, b;
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

    const __m512 va = _mm512_set1_ps(alpha);
    if (direct) {
        if (beta == 0.0f) {
            GK_COLS(STORE_DIRECT0)
        } else {
            const __m512 vb = _mm512_set1_ps(beta);
            GK_COLS(STORE_DIRECT)
        }
        return;
    }
    _Alignas(64) float t[MR * NR];
    GK_COLS(STORE_TMP)
    gk_ukr_merge(t, MR, c, rs_c, cs_c, alpha, beta, m_valid, n_valid);
}
