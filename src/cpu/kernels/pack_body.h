/*
 * pack_body.h — packing of A and B blocks into micro-panels, written once and compiled per ISA
 * (pack_generic.c for the baseline, pack_avx2.c / pack_avx512.c, whose contiguous copies become
 * 32- and 64-byte moves) by defining GK_PACK_NAME before including it; the registry pairs each
 * micro-kernel with the build its CPU can run.
 *
 * GK_PACK_NAME(dst, w, lanes, kb, src, ls, ps, npan) writes the npan panels of a block: panel q
 * holds lanes q*w .. q*w + w of `lanes` (the rest zero) over kb steps, at dst + q*w*kb, as
 * dst[q*w*kb + p*w + l] = src[(q*w + l) * ls + p * ps]. Either ls == 1 (lanes contiguous: plain A,
 * transposed B) or ps == 1 (steps contiguous: a transpose; transposed A, plain B).
 *
 * The copies are written with a compile-time panel width (the MR and NR of the registered
 * kernels) and restrict pointers, so the compiler emits straight vector moves: with a run-time
 * width gcc turned every 64-byte step into a call to memmove, a large part of a skinny GEMM's
 * time (docs/cpu.md, "Loop nest and packing").
 */
#include <stdint.h>
#include <string.h>

#include "core/internal.h"

/* The copies below are a few floats long: gcc must not turn their loops into memset/memmove
 * calls, which cost more than the copy (it did for the edge steps and the zero padding). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-loop-distribute-patterns")
#endif

#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#elif defined(__SSE__)
#include <xmmintrin.h>
#endif

/* One edge step of contiguous lanes, w > valid: d[0..w) = s[0..valid) then zeros, with masked
 * vector loads (masked-out lanes read nothing and load zero) and stores masked to w, since the
 * floats past w belong to the next step or panel. Scalar copies of run-time length here compiled
 * to a memmove and a memset call per step, which made an edge panel several times as slow as a
 * full one. */
static inline void gk_pack_edge_step(float *restrict d, const float *restrict s, int w, int valid) {
#if defined(__AVX512F__)
    for (int l = 0; l < w; l += 16) {
        const int nv = valid - l, nw = w - l;
        const __mmask16 lm = nv >= 16 ? 0xffff : nv > 0 ? (__mmask16)((1u << nv) - 1) : 0;
        const __mmask16 sm = nw >= 16 ? 0xffff : (__mmask16)((1u << nw) - 1);
        _mm512_mask_storeu_ps(d + l, sm, _mm512_maskz_loadu_ps(lm, s + l));
    }
#elif defined(__AVX2__)
    /* (masked stores are microcoded on Zen: whole-vector stores, and single floats past the
     * last whole vector of w) */
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    int l = 0;
    for (; l + 8 <= w; l += 8)
        _mm256_storeu_ps(d + l, _mm256_maskload_ps(
                                    s + l, _mm256_cmpgt_epi32(_mm256_set1_epi32(valid - l), lane)));
    for (; l < valid; l++)
        d[l] = s[l];
    for (; l < w; l++)
        d[l] = 0.0f;
#else
    int l = 0;
    for (; l < valid; l++)
        d[l] = s[l];
    for (; l < w; l++)
        d[l] = 0.0f;
#endif
}

/* One step of contiguous lanes: d[0..w) = s[0..valid), zero past valid. W is a constant in the
 * callers below, so the full-width copy becomes a few vector moves. */
#define GK_PACK_STEP(W, d, s, valid)                                                               \
    do {                                                                                           \
        if ((valid) == (W)) {                                                                      \
            for (int l_ = 0; l_ < (W); l_++)                                                       \
                (d)[l_] = (s)[l_];                                                                 \
        } else {                                                                                   \
            gk_pack_edge_step((d), (s), (W), (valid));                                             \
        }                                                                                          \
    } while (0)

/* Lanes contiguous: pk steps of one panel, each one short contiguous copy. */
static void gk_pack_contig(float *restrict dst, int w, int valid, int64_t pk,
                           const float *restrict src, int64_t ps) {
#define GK_PACK_CASE(W)                                                                            \
    case W:                                                                                        \
        for (int64_t p = 0; p < pk; p++)                                                           \
            GK_PACK_STEP(W, dst + p * (W), src + p * ps, valid);                                   \
        break;
    switch (w) {
        /* the panel widths of the registered kernels (MR and NR) */
        GK_PACK_CASE(4)
        GK_PACK_CASE(6)
        GK_PACK_CASE(8)
        GK_PACK_CASE(12)
        GK_PACK_CASE(16)
        GK_PACK_CASE(32)
    default:
        for (int64_t p = 0; p < pk; p++)
            GK_PACK_STEP(w, dst + p * w, src + p * ps, valid);
    }
#undef GK_PACK_CASE
}

/* Steps contiguous (a transpose): blocks of 8 steps per panel, so the 8 * w floats written and
 * the 8 floats read per lane stay in a few cache lines. Lanes go through in-register transposes,
 * 4 at a time (SSE 4x4 blocks), then 2 at a time (pairs interleaved by one unpack), so a 6-wide
 * panel needs no scalar copies: the scalar stores were the pack's limit. 256-bit versions of
 * these transposes (4x8 and 8x8) were no faster than SSE, and software prefetch of the next
 * panel's columns made the in-cache case slower and the from-memory case no faster. */
static inline __attribute__((always_inline)) void gk_pack_trans(float *restrict dst, int w,
                                                                int valid, int64_t kb,
                                                                const float *restrict src,
                                                                int64_t ls, int pad) {
    int64_t p0 = 0;
    for (; p0 + 8 <= kb; p0 += 8) {
        float *d = dst + p0 * w;
        int l = 0;
#if defined(__SSE__)
        for (; l + 4 <= valid; l += 4)
            for (int t = 0; t < 8; t += 4) {
                const float *sl = src + l * ls + p0 + t;
                __m128 r0 = _mm_loadu_ps(sl), r1 = _mm_loadu_ps(sl + ls);
                __m128 r2 = _mm_loadu_ps(sl + 2 * ls), r3 = _mm_loadu_ps(sl + 3 * ls);
                _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
                _mm_storeu_ps(d + t * w + l, r0);
                _mm_storeu_ps(d + (t + 1) * w + l, r1);
                _mm_storeu_ps(d + (t + 2) * w + l, r2);
                _mm_storeu_ps(d + (t + 3) * w + l, r3);
            }
        for (; l + 2 <= valid; l += 2)
            for (int t = 0; t < 8; t += 4) {
                const float *sl = src + l * ls + p0 + t;
                const __m128 r0 = _mm_loadu_ps(sl), r1 = _mm_loadu_ps(sl + ls);
                const __m128 lo = _mm_unpacklo_ps(r0, r1), hi = _mm_unpackhi_ps(r0, r1);
                _mm_storel_pi((__m64 *)(d + t * w + l), lo);
                _mm_storeh_pi((__m64 *)(d + (t + 1) * w + l), lo);
                _mm_storel_pi((__m64 *)(d + (t + 2) * w + l), hi);
                _mm_storeh_pi((__m64 *)(d + (t + 3) * w + l), hi);
            }
#endif
        for (; l < valid; l++) {
            const float *sl = src + l * ls + p0;
            for (int t = 0; t < 8; t++)
                d[t * w + l] = sl[t];
        }
        for (l = valid; pad && l < w; l++)
            for (int t = 0; t < 8; t++)
                d[t * w + l] = 0.0f;
    }
    for (; p0 < kb; p0++) {
        for (int l = 0; l < valid; l++)
            dst[p0 * w + l] = src[l * ls + p0];
        for (int l = valid; pad && l < w; l++)
            dst[p0 * w + l] = 0.0f;
    }
}

void GK_PACK_NAME(float *dst, int w, int64_t lanes, int64_t kb, const float *src, int64_t ls,
                  int64_t ps, int64_t npan) {
    if (ls == 1) {
        /* A whole step of the block is one long contiguous read, so the block is walked in slabs
         * of 16 steps across all its panels: 16 sequential streams the prefetcher follows and
         * 16 * w floats written per panel. Panel by panel, each panel would read one short piece
         * of kb different lines a stride apart, which the prefetcher does not follow. */
        for (int64_t p0 = 0; p0 < kb; p0 += 16) {
            const int64_t pk = gk_min64(16, kb - p0);
            for (int64_t q = 0; q < npan; q++)
                gk_pack_contig(dst + q * w * kb + p0 * w, w, (int)gk_min64(w, lanes - q * w), pk,
                               src + q * w + p0 * ps, ps);
        }
        return;
    }
    for (int64_t q = 0; q < npan; q++) {
        const int valid = (int)gk_min64(w, lanes - q * w);
        float *d = dst + q * w * kb;
        const float *sq = src + q * w * ls;
        /* Full panels of the registered kernels' widths get a copy with constant w and valid,
         * whose lane loops unroll completely. An edge panel is zeroed whole first and then gets
         * only its valid lanes: padding it lane by lane made gcc call memset for a few bytes per
         * 8-step block, several times the cost of a full panel. */
#define GK_PACK_TRANS_W(W)                                                                         \
    case W:                                                                                        \
        if (valid == (W)) {                                                                        \
            gk_pack_trans(d, (W), (W), kb, sq, ls, 0);                                             \
        } else {                                                                                   \
            memset(d, 0, sizeof(float) * (size_t)((W)*kb));                                        \
            gk_pack_trans(d, (W), valid, kb, sq, ls, 0);                                           \
        }                                                                                          \
        break;
        switch (w) {
            GK_PACK_TRANS_W(6)
            GK_PACK_TRANS_W(12)
            GK_PACK_TRANS_W(16)
            GK_PACK_TRANS_W(32)
        default:
            gk_pack_trans(d, w, valid, kb, sq, ls, 1);
        }
#undef GK_PACK_TRANS_W
    }
}
