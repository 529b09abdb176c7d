/*
 * pack_body.h — packing of A and B blocks into micro-panels, written once and compiled per ISA
 * (pack.c for the baseline, pack_avx2.c / pack_avx512.c, whose contiguous copies become 32- and
 * 64-byte moves) by defining GK_PACK_NAME before including it; the registry pairs each
 * micro-kernel with the build its CPU can run.
 *
 * GK_PACK_NAME(dst, w, lanes, kb, src, ls, ps, npan) writes the npan panels of a block: panel q
 * holds lanes q*w .. q*w + w of `lanes` (the rest zero) over kb steps, at dst + q*w*kb, as
 * dst[q*w*kb + p*w + l] = src[(q*w + l) * ls + p * ps]. Either ls == 1 (lanes contiguous: plain A,
 * transposed B) or ps == 1 (steps contiguous: a transpose; transposed A, plain B).
 *
 * The copies are written with a compile-time panel width (the MR and NR of the registered
 * kernels) and restrict pointers, so the compiler emits straight vector moves: with a run-time
 * width gcc turned every 64-byte step into a call to memmove, which cost 19% of 4096x64x4096 on
 * Zen 3.
 */
#include <stdint.h>

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

static inline int64_t gk_pack_min(int64_t a, int64_t b) {
    return a < b ? a : b;
}

/* One step of contiguous lanes: d[0..w) = s[0..valid), zero past valid. W is a constant in the
 * callers below, so the full-width copy becomes a few vector moves. */
#define GK_PACK_STEP(W, d, s, valid)                                                               \
    do {                                                                                           \
        if ((valid) == (W)) {                                                                      \
            for (int l_ = 0; l_ < (W); l_++)                                                       \
                (d)[l_] = (s)[l_];                                                                 \
        } else {                                                                                   \
            for (int l_ = 0; l_ < (valid); l_++)                                                   \
                (d)[l_] = (s)[l_];                                                                 \
            for (int l_ = (valid); l_ < (W); l_++)                                                 \
                (d)[l_] = 0.0f;                                                                    \
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
 * panel needs no scalar copies: the scalar stores were the pack's limit. On Zen 3, 256-bit
 * versions of these transposes (4x8 and 8x8) were no faster than SSE, and software prefetch of the
 * next panel's columns made the in-cache case slower and the from-memory case no faster. */
static inline __attribute__((always_inline)) void gk_pack_trans(float *restrict dst, int w,
                                                                int valid, int64_t kb,
                                                                const float *restrict src,
                                                                int64_t ls) {
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
        for (l = valid; l < w; l++)
            for (int t = 0; t < 8; t++)
                d[t * w + l] = 0.0f;
    }
    for (; p0 < kb; p0++) {
        for (int l = 0; l < valid; l++)
            dst[p0 * w + l] = src[l * ls + p0];
        for (int l = valid; l < w; l++)
            dst[p0 * w + l] = 0.0f;
    }
}

void GK_PACK_NAME(float *dst, int w, int64_t lanes, int64_t kb, const float *src, int64_t ls,
                  int64_t ps, int64_t npan) {
    if (ls == 1) {
        /* A whole step of the block is one long contiguous read, so the block is walked in slabs
         * of 16 steps across all its panels: 16 sequential streams the prefetcher follows and
         * 16 * w floats written per panel. Panel by panel, each panel would read one short piece
         * of kb different lines a stride apart (4096x64x4096: 40 -> 60 GFLOPS on Zen 3). */
        for (int64_t p0 = 0; p0 < kb; p0 += 16) {
            const int64_t pk = gk_pack_min(16, kb - p0);
            for (int64_t q = 0; q < npan; q++)
                gk_pack_contig(dst + q * w * kb + p0 * w, w, (int)gk_pack_min(w, lanes - q * w), pk,
                               src + q * w + p0 * ps, ps);
        }
        return;
    }
    for (int64_t q = 0; q < npan; q++) {
        const int valid = (int)gk_pack_min(w, lanes - q * w);
        float *d = dst + q * w * kb;
        const float *sq = src + q * w * ls;
        /* full panels of the registered kernels' widths get a copy with constant w and valid,
         * whose lane loops unroll completely */
        if (valid == w && w == 6)
            gk_pack_trans(d, 6, 6, kb, sq, ls);
        else if (valid == w && w == 16)
            gk_pack_trans(d, 16, 16, kb, sq, ls);
        else if (valid == w && w == 12)
            gk_pack_trans(d, 12, 12, kb, sq, ls);
        else if (valid == w && w == 32)
            gk_pack_trans(d, 32, 32, kb, sq, ls);
        else
            gk_pack_trans(d, w, valid, kb, sq, ls);
    }
}
