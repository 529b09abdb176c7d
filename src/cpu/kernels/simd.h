/*
 * simd.h — the few vector operations of the small-matrix path (small_body.h), for the ISA the
 * including file is compiled for: 16-float zmm with AVX-512, 8-float ymm with AVX2 + FMA, and a
 * 4-float GCC vector elsewhere (the portable build, where multiply and add stay separate, as
 * ISO C asks).
 *
 * GK_VW is the vector width in floats; GK_VNB the columns of a register tile of two vectors
 * height, chosen so that its 2 * GK_VNB accumulators, two A vectors and one broadcast B element
 * fit the register file: 27 of 32 zmm, 15 of 16 ymm, 11 of 16 xmm.
 *
 * A gk_vmask stands for the first n lanes of a vector (1 <= n <= GK_VW): a load through it reads
 * only those floats (the other lanes are zero) and a store writes only those, so a tile at the
 * bottom edge of a matrix never touches memory below it. (The portable build copies lane by
 * lane.)
 */
#ifndef GK_CPU_KERNELS_SIMD_H
#define GK_CPU_KERNELS_SIMD_H

#include <string.h>

#if defined(__AVX512F__)
#include <immintrin.h>

#define GK_VW 16
#define GK_VNB 12
typedef __m512 gk_v;
typedef __mmask16 gk_vmask;

static inline gk_vmask gk_vmask_first(int n) {
    return (gk_vmask)(0xffffu >> (16 - n));
}
static inline gk_v gk_v_zero(void) {
    return _mm512_setzero_ps();
}
static inline gk_v gk_v_set1(float x) {
    return _mm512_set1_ps(x);
}
static inline gk_v gk_v_load(const float *p) {
    return _mm512_loadu_ps(p);
}
static inline gk_v gk_v_loadm(const float *p, gk_vmask m) {
    return _mm512_maskz_loadu_ps(m, p);
}
static inline gk_v gk_v_fma(gk_v a, gk_v b, gk_v c) {
    return _mm512_fmadd_ps(a, b, c);
}
static inline gk_v gk_v_mul(gk_v a, gk_v b) {
    return _mm512_mul_ps(a, b);
}
static inline void gk_v_store(float *p, gk_v v) {
    _mm512_storeu_ps(p, v);
}
static inline void gk_v_storem(float *p, gk_v v, gk_vmask m) {
    _mm512_mask_storeu_ps(p, m, v);
}
static inline gk_v gk_v_add(gk_v a, gk_v b) {
    return _mm512_add_ps(a, b);
}
static inline float gk_v_hsum(gk_v v) {
    return _mm512_reduce_add_ps(v);
}

#elif defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

#define GK_VW 8
#define GK_VNB 6
typedef __m256 gk_v;
typedef struct {
    __m256i lanes; /* all ones in the first n lanes */
    int n;
} gk_vmask;

static inline gk_vmask gk_vmask_first(int n) {
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return (gk_vmask){_mm256_cmpgt_epi32(_mm256_set1_epi32(n), idx), n};
}
static inline gk_v gk_v_zero(void) {
    return _mm256_setzero_ps();
}
static inline gk_v gk_v_set1(float x) {
    return _mm256_set1_ps(x);
}
static inline gk_v gk_v_load(const float *p) {
    return _mm256_loadu_ps(p);
}
static inline gk_v gk_v_loadm(const float *p, gk_vmask m) {
    return _mm256_maskload_ps(p, m.lanes);
}
static inline gk_v gk_v_fma(gk_v a, gk_v b, gk_v c) {
    return _mm256_fmadd_ps(a, b, c);
}
static inline gk_v gk_v_mul(gk_v a, gk_v b) {
    return _mm256_mul_ps(a, b);
}
static inline void gk_v_store(float *p, gk_v v) {
    _mm256_storeu_ps(p, v);
}
/* Masked stores are microcoded on Zen: a whole vector, or pieces of 4, 2 and 1 floats. */
static inline void gk_v_storem(float *p, gk_v v, gk_vmask m) {
    if (m.n == GK_VW) {
        _mm256_storeu_ps(p, v);
        return;
    }
    __m128 h = _mm256_castps256_ps128(v);
    if (m.n & 4) {
        _mm_storeu_ps(p, h);
        h = _mm256_extractf128_ps(v, 1), p += 4;
    }
    if (m.n & 2) {
        _mm_storel_pi((__m64 *)p, h);
        h = _mm_movehl_ps(h, h), p += 2;
    }
    if (m.n & 1) _mm_store_ss(p, h);
}

static inline gk_v gk_v_add(gk_v a, gk_v b) {
    return _mm256_add_ps(a, b);
}
static inline float gk_v_hsum(gk_v v) {
    __m128 h = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    h = _mm_add_ps(h, _mm_movehl_ps(h, h));
    return _mm_cvtss_f32(_mm_add_ss(h, _mm_movehdup_ps(h)));
}

#else

#define GK_VW 4
#define GK_VNB 4
typedef float gk_v __attribute__((vector_size(16)));
typedef int gk_vmask;

static inline gk_vmask gk_vmask_first(int n) {
    return n;
}
static inline gk_v gk_v_zero(void) {
    return (gk_v){0, 0, 0, 0};
}
static inline gk_v gk_v_set1(float x) {
    return (gk_v){x, x, x, x};
}
static inline gk_v gk_v_load(const float *p) {
    gk_v v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline gk_v gk_v_loadm(const float *p, gk_vmask n) {
    gk_v v = gk_v_zero();
    for (int i = 0; i < n; i++)
        v[i] = p[i];
    return v;
}
static inline gk_v gk_v_fma(gk_v a, gk_v b, gk_v c) {
    return a * b + c;
}
static inline gk_v gk_v_mul(gk_v a, gk_v b) {
    return a * b;
}
static inline void gk_v_store(float *p, gk_v v) {
    memcpy(p, &v, sizeof v);
}
static inline void gk_v_storem(float *p, gk_v v, gk_vmask n) {
    for (int i = 0; i < n; i++)
        p[i] = v[i];
}
static inline gk_v gk_v_add(gk_v a, gk_v b) {
    return a + b;
}
static inline float gk_v_hsum(gk_v v) {
    return (v[0] + v[2]) + (v[1] + v[3]);
}

#endif

#endif
