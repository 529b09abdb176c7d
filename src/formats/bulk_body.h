/*
 * bulk_body.h — the bulk conversion loops, compiled once per ISA: bulk_generic.c (baseline, the
 * portable path), bulk_avx2.c and bulk_avx512.c include it after defining GK_FMT_SUFFIX and the
 * vector width GK_VBYTES, and the file name gives each copy its -m flags (Makefile). One source
 * for all variants is what keeps their results identical: every loop is the branch-free integer
 * form of the definition in scalar.h on VL lanes (selects instead of branches; floating-point
 * instructions only where they are exact or carry their own rounding mode, so MXCSR never
 * matters), and tests/formats/test_formats.c checks each variant usable on the machine against
 * scalar.h bit for bit. Measured speed: docs/formats.md.
 */
#include <stdint.h>
#include <string.h>
#if defined(__x86_64__) || defined(__SSE2__)
#include <immintrin.h>
#endif

#include "formats/formats.h"
#include "formats/scalar.h"

#define GK_CAT2(a, b) a##b
#define GK_CAT(a, b) GK_CAT2(a, b)
#define GK_V(name) GK_CAT(name, GK_FMT_SUFFIX)
#define GK_INLINE static inline __attribute__((always_inline))

/* GCC/Clang vector extensions: GK_VBYTES (set by the including file: 64 for AVX-512, 32 for AVX2,
 * 16 baseline) bytes of 32-bit lanes. Comparisons give -1/0 lane masks; `sel` blends by one. */
#define VL (GK_VBYTES / 4)
typedef uint32_t vu __attribute__((vector_size(GK_VBYTES)));
typedef int32_t vi __attribute__((vector_size(GK_VBYTES)));
typedef float vf __attribute__((vector_size(GK_VBYTES)));
typedef uint16_t vu16 __attribute__((vector_size(GK_VBYTES / 2)));
typedef uint8_t vu8 __attribute__((vector_size(GK_VBYTES / 4)));

GK_INLINE vu sel(vi m, vu a, vu b) {
#if GK_VBYTES == 32 && defined(__AVX2__)
    return (vu)_mm256_blendv_epi8((__m256i)b, (__m256i)a, (__m256i)m); /* compilers emit 3 ops */
#else
    return ((vu)m & a) | (~(vu)m & b);
#endif
}
GK_INLINE vu ld32(const void *p) {
    vu v;
    memcpy(&v, p, sizeof v);
    return v;
}
/* Widening loads and narrowing stores between 8/16-bit codes and 32-bit lanes. Intrinsics on
 * x86 because compilers lower __builtin_convertvector of these widths to per-byte scalar code. */
#if GK_VBYTES == 64 && defined(__AVX512F__)
GK_INLINE vu ld16(const void *p) {
    return (vu)_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p));
}
GK_INLINE vu ld8(const void *p) {
    return (vu)_mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)p));
}
GK_INLINE void st16(void *p, vu v) {
    _mm256_storeu_si256((__m256i *)p, _mm512_cvtepi32_epi16((__m512i)v));
}
GK_INLINE void st8(void *p, vu v) {
    _mm_storeu_si128((__m128i *)p, _mm512_cvtepi32_epi8((__m512i)v));
}
#elif GK_VBYTES == 32 && defined(__AVX2__)
GK_INLINE vu ld16(const void *p) {
    return (vu)_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p));
}
GK_INLINE vu ld8(const void *p) {
    return (vu)_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p));
}
GK_INLINE void st16(void *p, vu v) { /* lanes hold values <= 0xffff: packus keeps them */
    const __m256i t = _mm256_packus_epi32((__m256i)v, (__m256i)v);
    _mm_storeu_si128((__m128i *)p, _mm256_castsi256_si128(_mm256_permute4x64_epi64(t, 0x08)));
}
GK_INLINE void st8(void *p, vu v) { /* byte 0 of each lane, then the two halves together */
    const __m256i pick =
        _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12,
                         -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m256i t = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8((__m256i)v, pick),
                                                  _mm256_setr_epi32(0, 4, 1, 1, 1, 1, 1, 1));
    _mm_storel_epi64((__m128i *)p, _mm256_castsi256_si128(t));
}
#elif GK_VBYTES == 16 && defined(__SSE2__)
GK_INLINE vu ld16(const void *p) {
    return (vu)_mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)p), _mm_setzero_si128());
}
GK_INLINE vu ld8(const void *p) {
    int32_t w;
    memcpy(&w, p, sizeof w);
    const __m128i z = _mm_setzero_si128();
    return (vu)_mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128(w), z), z);
}
GK_INLINE void st16(void *p, vu v) { /* SSE2 packs signed: shift the range by 0x8000 around it */
    const __m128i b = _mm_set1_epi32(0x8000);
    const __m128i t = _mm_packs_epi32(_mm_sub_epi32((__m128i)v, b), _mm_sub_epi32((__m128i)v, b));
    _mm_storel_epi64((__m128i *)p, _mm_xor_si128(t, _mm_set1_epi16((short)0x8000)));
}
GK_INLINE void st8(void *p, vu v) { /* lanes hold values < 256 */
    const __m128i t = _mm_packs_epi32((__m128i)v, (__m128i)v);
    const int32_t w = _mm_cvtsi128_si32(_mm_packus_epi16(t, t));
    memcpy(p, &w, sizeof w);
}
#else
GK_INLINE vu ld16(const void *p) {
    vu16 v;
    memcpy(&v, p, sizeof v);
    return __builtin_convertvector(v, vu);
}
GK_INLINE vu ld8(const void *p) {
    vu8 v;
    memcpy(&v, p, sizeof v);
    return __builtin_convertvector(v, vu);
}
GK_INLINE void st16(void *p, vu v) {
    const vu16 w = __builtin_convertvector(v, vu16);
    memcpy(p, &w, sizeof w);
}
GK_INLINE void st8(void *p, vu v) {
    const vu8 w = __builtin_convertvector(v, vu8);
    memcpy(p, &w, sizeof w);
}
#endif
GK_INLINE void st32(void *p, vu v) {
    memcpy(p, &v, sizeof v);
}

/* gk_round_mag (scalar.h) on VL lanes; `bias` may differ per call but not per lane.
 * norm = 0, for -100 < bias and bias + mbits < 125 (every plain format but BF16/TF32, which have
 * their own loops, and MX blocks away from float32's ends): a result in the target's normal range
 * rebiases and rounds with constant shifts; one below it (a < 2^(1 - bias)) is rounded at the
 * target's subnormal spacing, which sends zero and float32 subnormals to 0.
 * norm = 1, any bias up to 142 (the MX blocks near float32's ends): the general form of scalar.h,
 * float32 subnormal inputs normalised through an exact int -> float conversion. */
GK_INLINE vu vround_mag(vu a, int mbits, int bias, int norm) {
    const int S = 23 - mbits;
    const vu one = (vu){0} + 1u;
    if (!norm) {
        const vu v = a - ((uint32_t)(127 - bias) << 23);
        const vu rn = (v + ((1u << (S - 1)) - 1u) + ((v >> S) & 1u)) >> S;
#if defined(__AVX512F__) && GK_VBYTES == 64
        /* Below the normal range: adding C = 2^(1 - bias - mbits + 23), whose float32 ulp is the
         * target's subnormal spacing, rounds |x| to a multiple of it, nearest even, and leaves
         * the multiple in C's fraction bits. The add's rounding is given in the instruction, so
         * MXCSR's mode does not matter; a float32 subnormal |x| (zero under DAZ) gives 0 either
         * way, and the sum is never subnormal. */
        const uint32_t cb = (uint32_t)(127 + 1 - bias - mbits + 23) << 23;
        const __m512 sum =
            _mm512_add_round_ps((__m512)a, _mm512_castsi512_ps(_mm512_set1_epi32((int)cb)),
                                _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        const vu rs = (vu)sum - cb;
#elif defined(__AVX2__) && GK_VBYTES == 32
        /* Below the normal range: |x| / spacing (an exact power-of-two product, float32 normal or
         * too small to matter) rounded to the nearest integer, even on ties, by an instruction
         * whose rounding mode is its immediate, not MXCSR's. Lanes of the normal range are zeroed
         * first, so that no lane raises a floating-point exception (overflow, invalid). */
        const vi below = (vi)a < (127 - bias + 1) << 23;
        const vf y = (vf)((vu)below & a) * gk_bits_f32((uint32_t)(127 + bias + mbits - 1) << 23);
        const vu rs = (vu)_mm256_cvttps_epi32(
            _mm256_round_ps((__m256)y, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        return sel(below, rs, rn);
#else
        vi sh = (vi)(((uint32_t)(S + 1 + 127 - bias)) - (a >> 23));
        sh = (vi)sel(sh > 25, (vu){0} + 25u, (vu)sh);
        sh = (vi)sel(sh < S + 1, (vu){0} + (uint32_t)(S + 1), (vu)sh); /* normal lanes: unused */
        const vu ush = (vu)sh, m = (a & 0x7fffffu) | 0x800000u;
        const vu rs = (m + (one << (ush - 1u)) - 1u + ((m >> ush) & 1u)) >> ush;
#endif
        return sel((vi)a < (127 - bias + 1) << 23, rs, rn);
    }
    const vu e = a >> 23, f = a & 0x7fffffu;
    const vi ez = e == 0;
    const vu fb = (vu) __builtin_convertvector((vi)f, vf); /* exact: f < 2^23 */
    const vi lead = (vi)(fb >> 23) - 127;                  /* f's leading bit */
    const vu m = sel(ez, (fb & 0x7fffffu) | 0x800000u, f | 0x800000u);
    const vi ee = (vi)sel(ez, (vu)(lead - 22), e);
    vi te = ee + (bias - 127);
    const vi under = te < 1;
    vi sh = (vi)sel(under, (vu)((S + 1) - te), (vu){0} + (uint32_t)S);
    sh = (vi)sel(sh > 25, (vu){0} + 25u, (vu)sh);
    te = (vi)sel(under, one, (vu)te);
    const vu v = ((vu)(te - 1) << 23) + m;
    const vu ush = (vu)sh;
    const vu r = (v + (one << (ush - 1u)) - 1u + ((v >> ush) & 1u)) >> ush;
    return sel(a == 0, (vu){0}, r);
}

/* gk_encode_small (scalar.h) on VL lanes. */
GK_INLINE vu vencode_small(vu b, int sat, int nbits, int mbits, int bias, uint32_t max_mag,
                           int kind, int norm) {
    const vu sign = b >> 31, a = b & 0x7fffffffu;
    const vu sbit = sign << (nbits - 1);
    const uint32_t top = 1u << (nbits - 1);
    const vu c = vround_mag(a, mbits, bias, norm);
    const vi ovf =
        (vi)c > (int32_t)max_mag; /* Inf and NaN too (exponent 255): NaN replaced below */
    vu r = sbit | c;
    if (kind == GK_MF_FNUZ) r = sel(c == 0, (vu){0}, r);
    vu ovf_code;
    if (sat || kind == GK_MF_NONE)
        ovf_code = sbit | max_mag;
    else if (kind == GK_MF_FNUZ)
        ovf_code = (vu){0} + top;
    else
        ovf_code = sbit | (max_mag + 1);
    r = sel(ovf, ovf_code, r);
    /* Non-saturating FN/FNUZ: NaN's magnitude code overflows too, and its code is the overflow
     * code, so the select above already made it. */
    if (!sat && (kind == GK_MF_FN || kind == GK_MF_FNUZ)) return r;
    vu nan_code;
    if (kind == GK_MF_IEEE)
        nan_code = sbit | ((max_mag + 1) | (1u << (mbits - 1)));
    else if (kind == GK_MF_FN)
        nan_code = sbit | (max_mag + 1);
    else if (kind == GK_MF_FNUZ)
        nan_code = (vu){0} + top;
    else
        nan_code = (sign ^ 1u) << (nbits - 1);
    return sel((vi)a > 0x7f800000, nan_code, r);
}

/* gk_decode_small (scalar.h) on VL lanes; subnormals through an exact int -> float conversion
 * and a power-of-two multiply whose operands and result are float32 normals. */
GK_INLINE vu vdecode_small(vu code, int nbits, int mbits, int bias, int kind, int keep_payload) {
    code &= (1u << nbits) - 1u;
    const vu s = (code >> (nbits - 1)) << 31;
    const vu mag = code & ((1u << (nbits - 1)) - 1u);
    const uint32_t emask = (1u << (nbits - 1 - mbits)) - 1u, mmask = (1u << mbits) - 1u;
    const vu e = mag >> mbits, m = mag & mmask;
    const vu normal = (mag << (23 - mbits)) + ((uint32_t)(127 - bias) << 23);
    const vf scale = (vf){0} + gk_bits_f32((uint32_t)(127 + 1 - bias - mbits) << 23);
    const vu sub = (vu)(__builtin_convertvector((vi)m, vf) * scale);
    vu r = sel(e == 0, sub, normal);
    if (kind == GK_MF_IEEE) {
        const vu nan = keep_payload ? (m << (23 - mbits)) | 0x7f800000u : (vu){0} + 0x7fc00000u;
        const vu special = sel(m == 0, (vu){0} + 0x7f800000u, nan);
        r = sel(e == emask, special, r);
    } else if (kind == GK_MF_FN) {
        r = sel(mag == (emask << mbits | mmask), (vu){0} + 0x7fc00000u, r);
    }
    r |= s;
    if (kind == GK_MF_FNUZ) r = sel(code == (1u << (nbits - 1)), (vu){0} + 0xffc00000u, r);
    return r;
}

/* gk_encode_e8m0fnu / gk_decode_e8m0fnu (scalar.h) on VL lanes. */
GK_INLINE vu vencode_e8m0(vu b, int sat) {
    /* Ties up: adding half the fraction range carries into the exponent exactly when the value
     * is at least 1.5 times its power of two; for float32 subnormals (between 2^-127, code 0,
     * and 2^-126, code 1) the threshold 1.5 * 2^-127 is the bit pattern 0x600000. */
    const vi a = (vi)(b & 0x7fffffffu);
    vi c = (vi)(((vu)a + sel(a < 0x800000, (vu){0} + 0x200000u, (vu){0} + 0x400000u)) >> 23);
    const uint32_t high = sat ? 0xfeu : 0xffu, low = sat ? 0x00u : 0xffu;
    c = (vi)sel(c > 0xfe, (vu){0} + high, (vu)c); /* overflow and +Inf */
    c = (vi)sel(((vi)b < 0) | (a == 0), (vu){0} + low, (vu)c);
    if (sat) c = (vi)sel(a > 0x7f800000, (vu){0} + 0xffu, (vu)c); /* NaN (else already 0xFF) */
    return (vu)c;
}
GK_INLINE vu vdecode_e8m0(vu c) {
    c &= 0xffu;
    const vu r = sel(c == 0, (vu){0} + 0x00400000u, c << 23);
    return sel(c == 0xffu, (vu){0} + 0x7fc00000u, r);
}

/* A loop over n elements, VL at a time; the last n % VL go through zero-padded buffers, so that
 * every element takes the same vector code. IN/OUT: 4, 2 or 1 bytes per element. */
#define GK_MAP(n, in, out, IN, OUT, expr)                                                          \
    do {                                                                                           \
        int64_t i_ = 0;                                                                            \
        for (; i_ + VL <= (n); i_ += VL) {                                                         \
            const vu x_ = GK_LD##IN((const char *)(in) + i_ * (IN));                               \
            GK_ST##OUT((char *)(out) + i_ * (OUT), expr);                                          \
        }                                                                                          \
        if (i_ < (n)) {                                                                            \
            char ti_[VL * 4] = {0}, to_[VL * 4];                                                   \
            memcpy(ti_, (const char *)(in) + i_ * (IN), (size_t)((n)-i_) * (IN));                  \
            const vu x_ = GK_LD##IN(ti_);                                                          \
            GK_ST##OUT(to_, expr);                                                                 \
            memcpy((char *)(out) + i_ * (OUT), to_, (size_t)((n)-i_) * (OUT));                     \
        }                                                                                          \
    } while (0)
#define GK_LD4 ld32
#define GK_LD2 ld16
#define GK_LD1 ld8
#define GK_ST4 st32
#define GK_ST2 st16
#define GK_ST1 st8

/* The format's parameters are constants in each call after inlining. */
GK_INLINE void enc8(const float *x, uint8_t *out, int64_t n, int sat, int nbits, int mbits,
                    int bias, uint32_t max_mag, int kind) {
    GK_MAP(n, x, out, 4, 1, vencode_small(x_, sat, nbits, mbits, bias, max_mag, kind, 0));
}
GK_INLINE void enc16(const float *x, uint16_t *out, int64_t n, int sat, int mbits, int bias,
                     uint32_t max_mag) {
    GK_MAP(n, x, out, 4, 2, vencode_small(x_, sat, 16, mbits, bias, max_mag, GK_MF_IEEE, 0));
}
GK_INLINE void dec8(const uint8_t *in, float *y, int64_t n, int nbits, int mbits, int bias,
                    int kind) {
    GK_MAP(n, in, y, 1, 4, vdecode_small(x_, nbits, mbits, bias, kind, 0));
}

/* BF16 and TF32 keep float32's exponent: rounding is one add on the bit pattern (a carry out of
 * the fraction steps the exponent, up to Inf; the sign is never reached), then NaN and, when
 * saturating, Inf get their codes. Same results as gk_encode_small. */
GK_INLINE vu vencode_bf16(vu b, int sat) {
    vu r = (b + 0x7fffu + ((b >> 16) & 1u)) >> 16;
    if (sat) r = sel((r & 0x7fffu) == 0x7f80u, r - 1u, r);
    return sel((vi)(b & 0x7fffffffu) > 0x7f800000, ((b >> 16) & 0x8000u) | 0x7fc0u, r);
}
GK_INLINE vu vencode_tf32(vu b, int sat) {
    vu r = (b + 0xfffu + ((b >> 13) & 1u)) & 0xffffe000u;
    if (sat) r = sel((r & 0x7fffffffu) == 0x7f800000u, r - 0x2000u, r);
    return sel((vi)(b & 0x7fffffffu) > 0x7f800000, (b & 0x80000000u) | 0x7fc00000u, r);
}

/* Each mode gets its own instance (sat ? f(1) : f(0)), so `sat` is a constant inside each. */
void GK_V(gk_fmt_encode_)(gk_format fmt, const float *x, void *codes, int64_t n, int sat) {
    uint8_t *c8 = codes;
    uint16_t *c16 = codes;
    float *c32 = codes;
#define E8(S, nb, mb, bi, mm, k) enc8(x, c8, n, S, nb, mb, bi, mm, k)
    switch (fmt) {
    case GK_F32: /* may run in place: GK_MAP reads a vector before writing it */
        if (sat)
            GK_MAP(n, x, c32, 4, 4,
                   sel((x_ & 0x7fffffffu) == 0x7f800000u, (x_ - 0x00800000u) | 0x7fffffu, x_));
        else if ((const void *)x != codes)
            memmove(codes, x, (size_t)n * 4);
        break;
    case GK_TF32:
        if (sat)
            GK_MAP(n, x, c32, 4, 4, vencode_tf32(x_, 1));
        else
            GK_MAP(n, x, c32, 4, 4, vencode_tf32(x_, 0));
        break;
    case GK_BF16:
        if (sat)
            GK_MAP(n, x, c16, 4, 2, vencode_bf16(x_, 1));
        else
            GK_MAP(n, x, c16, 4, 2, vencode_bf16(x_, 0));
        break;
    case GK_F16:
        sat ? enc16(x, c16, n, 1, 10, 15, 0x7bff) : enc16(x, c16, n, 0, 10, 15, 0x7bff);
        break;
    case GK_F8_E4M3FN:
        sat ? E8(1, 8, 3, 7, 0x7e, GK_MF_FN) : E8(0, 8, 3, 7, 0x7e, GK_MF_FN);
        break;
    case GK_F8_E5M2:
        sat ? E8(1, 8, 2, 15, 0x7b, GK_MF_IEEE) : E8(0, 8, 2, 15, 0x7b, GK_MF_IEEE);
        break;
    case GK_F8_E4M3FNUZ:
        sat ? E8(1, 8, 3, 8, 0x7f, GK_MF_FNUZ) : E8(0, 8, 3, 8, 0x7f, GK_MF_FNUZ);
        break;
    case GK_F8_E5M2FNUZ:
        sat ? E8(1, 8, 2, 16, 0x7f, GK_MF_FNUZ) : E8(0, 8, 2, 16, 0x7f, GK_MF_FNUZ);
        break;
    case GK_F8_E8M0FNU:
        if (sat)
            GK_MAP(n, x, c8, 4, 1, vencode_e8m0(x_, 1));
        else
            GK_MAP(n, x, c8, 4, 1, vencode_e8m0(x_, 0));
        break;
    /* FP6/FP4 saturate in both modes: one instance */
    case GK_F6_E2M3FN:
        E8(1, 6, 3, 1, 0x1f, GK_MF_NONE);
        break;
    case GK_F6_E3M2FN:
        E8(1, 6, 2, 3, 0x1f, GK_MF_NONE);
        break;
    case GK_F4_E2M1FN:
        E8(1, 4, 1, 1, 0x7, GK_MF_NONE);
        break;
    default:
        break;
    }
#undef E8
}

void GK_V(gk_fmt_decode_)(gk_format fmt, const void *codes, float *y, int64_t n) {
    switch (fmt) {
    case GK_F32:
    case GK_TF32:
        if (codes != (const void *)y) memmove(y, codes, (size_t)n * 4);
        break;
    case GK_BF16:
        GK_MAP(n, codes, y, 2, 4, x_ << 16);
        break;
    case GK_F16:
        GK_MAP(n, codes, y, 2, 4, vdecode_small(x_, 16, 10, 15, GK_MF_IEEE, 1));
        break;
    case GK_F8_E4M3FN:
        dec8(codes, y, n, 8, 3, 7, GK_MF_FN);
        break;
    case GK_F8_E5M2:
        dec8(codes, y, n, 8, 2, 15, GK_MF_IEEE);
        break;
    case GK_F8_E4M3FNUZ:
        dec8(codes, y, n, 8, 3, 8, GK_MF_FNUZ);
        break;
    case GK_F8_E5M2FNUZ:
        dec8(codes, y, n, 8, 2, 16, GK_MF_FNUZ);
        break;
    case GK_F8_E8M0FNU:
        GK_MAP(n, codes, y, 1, 4, vdecode_e8m0(x_));
        break;
    case GK_F6_E2M3FN:
        dec8(codes, y, n, 6, 3, 1, GK_MF_NONE);
        break;
    case GK_F6_E3M2FN:
        dec8(codes, y, n, 6, 2, 3, GK_MF_NONE);
        break;
    case GK_F4_E2M1FN:
        dec8(codes, y, n, 4, 1, 1, GK_MF_NONE);
        break;
    default:
        break;
    }
}

/* ---- MX ---------------------------------------------------------------------------------- */

/* One row: blocks of `block` elements (the last one shorter when block does not divide cols).
 * The block's largest magnitude is the integer maximum of the sign-cleared bit patterns, which
 * orders finite values by magnitude and puts Inf and NaN above them all. */
GK_INLINE void mxq_row(const gk_mx_elem *p, int rule, const float *x, int64_t cols, int64_t block,
                       uint8_t *codes, uint8_t *scales, int nbits, int mbits, int bias,
                       uint32_t max_mag, int kind) {
    for (int64_t j0 = 0, b = 0; j0 < cols; j0 += block, b++) {
        const int64_t len = cols - j0 < block ? cols - j0 : block;
        const float *xb = x + j0;
        vu vmax = {0};
        int64_t j = 0;
        for (; j + VL <= len; j += VL) {
            const vu a = ld32(xb + j) & 0x7fffffffu;
            vmax = sel(a > vmax, a, vmax);
        }
        uint32_t amax = 0;
        for (int l = 0; l < VL; l++)
            amax = vmax[l] > amax ? vmax[l] : amax;
        for (; j < len; j++) {
            uint32_t a;
            memcpy(&a, xb + j, sizeof a);
            a &= 0x7fffffffu;
            amax = a > amax ? a : amax;
        }
        const uint8_t s = gk_mx_scale_code(p, rule, amax);
        scales[b] = s;
        if (s == 0xff) {
            memset(codes + j0, 0, (size_t)len);
            continue;
        }
        const int sbias = bias - ((int)s - 127); /* x / 2^(s-127) is x with this bias */
        /* vround_mag's short form holds while float32 subnormals still round to 0 (sbias +
         * mbits < 126) and its constants stay float32 normals (sbias > -100): every block but
         * those of magnitudes near float32's ends. */
        if (sbias > -100 && sbias + mbits < 125)
            GK_MAP(len, xb, codes + j0, 4, 1,
                   vencode_small(x_, 1, nbits, mbits, sbias, max_mag, kind, 0));
        else
            GK_MAP(len, xb, codes + j0, 4, 1,
                   vencode_small(x_, 1, nbits, mbits, sbias, max_mag, kind, 1));
    }
}

void GK_V(gk_fmt_mx_quantize_row_)(const gk_mx_elem *p, int rule, const float *x, int64_t cols,
                                   int64_t block, uint8_t *codes, uint8_t *scales) {
    switch (p->nbits * 16 + p->mbits) { /* constants for the element loop */
    case 8 * 16 + 3:
        mxq_row(p, rule, x, cols, block, codes, scales, 8, 3, 7, 0x7e, GK_MF_FN);
        break;
    case 8 * 16 + 2:
        mxq_row(p, rule, x, cols, block, codes, scales, 8, 2, 15, 0x7b, GK_MF_IEEE);
        break;
    case 6 * 16 + 3:
        mxq_row(p, rule, x, cols, block, codes, scales, 6, 3, 1, 0x1f, GK_MF_NONE);
        break;
    case 6 * 16 + 2:
        mxq_row(p, rule, x, cols, block, codes, scales, 6, 2, 3, 0x1f, GK_MF_NONE);
        break;
    default:
        mxq_row(p, rule, x, cols, block, codes, scales, 4, 1, 1, 0x7, GK_MF_NONE);
        break;
    }
}

/* decode(code) * 2^k1 * 2^k2, the split of gk_mx_decode_elem (scalar.h), so that both give the
 * same bits under any floating-point mode. */
GK_INLINE void mxd_row(const uint8_t *codes, const uint8_t *scales, int64_t cols, int64_t block,
                       float *y, int nbits, int mbits, int bias, int kind) {
    for (int64_t j0 = 0, b = 0; j0 < cols; j0 += block, b++) {
        const int64_t len = cols - j0 < block ? cols - j0 : block;
        const uint8_t s = scales[b];
        if (s == 0xff) {
            for (int64_t j = 0; j < len; j++)
                y[j0 + j] = gk_bits_f32(0x7fc00000u);
            continue;
        }
        const int k = (int)s - 127, k1 = k / 2, k2 = k - k1;
        const float f1 = gk_bits_f32((uint32_t)(k1 + 127) << 23);
        const float f2 = gk_bits_f32((uint32_t)(k2 + 127) << 23);
        GK_MAP(len, codes + j0, y + j0, 1, 4,
               (vu)((vf)vdecode_small(x_, nbits, mbits, bias, kind, 0) * f1 * f2));
    }
}

void GK_V(gk_fmt_mx_dequantize_row_)(const gk_mx_elem *p, const uint8_t *codes,
                                     const uint8_t *scales, int64_t cols, int64_t block, float *y) {
    switch (p->nbits * 16 + p->mbits) {
    case 8 * 16 + 3:
        mxd_row(codes, scales, cols, block, y, 8, 3, 7, GK_MF_FN);
        break;
    case 8 * 16 + 2:
        mxd_row(codes, scales, cols, block, y, 8, 2, 15, GK_MF_IEEE);
        break;
    case 6 * 16 + 3:
        mxd_row(codes, scales, cols, block, y, 6, 3, 1, GK_MF_NONE);
        break;
    case 6 * 16 + 2:
        mxd_row(codes, scales, cols, block, y, 6, 2, 3, GK_MF_NONE);
        break;
    default:
        mxd_row(codes, scales, cols, block, y, 4, 1, 1, GK_MF_NONE);
        break;
    }
}
