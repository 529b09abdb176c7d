/*
 * scalar.h — one-value conversions between float32 and every gk_format, and the MX block-scale
 * rules: the definition every other path (CPU bulk variants, CUDA kernels, tests) must reproduce
 * bit for bit. Usable from C and CUDA: under nvcc each function is __host__ __device__.
 *
 * Everything is integer arithmetic on the float32 bit pattern, so the results do not depend on
 * the floating-point environment (flush-to-zero, denormals-are-zero) or on the compiler.
 * Rules and the places where they differ from ml_dtypes: docs/formats.md.
 *
 * Names: gk_encode_<fmt>(float x, int saturate) returns the code, gk_decode_<fmt>(code) the exact
 * float32 value; gk_encode_scalar / gk_decode_scalar dispatch on a gk_format; gk_mx_* are the MX
 * scale rule and the scaled element conversions.
 */
#ifndef GK_FORMATS_SCALAR_H
#define GK_FORMATS_SCALAR_H

#include <stdint.h>
#include <string.h>

#include "gemmkit.h"

#if defined(__CUDACC__)
#define GK_HD static __host__ __device__ __forceinline__
#else
#define GK_HD static inline
#endif

/* ---- float32 bits ---------------------------------------------------------------------- */

GK_HD uint32_t gk_f32_bits(float x) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(x);
#else
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b;
#endif
}

GK_HD float gk_bits_f32(uint32_t b) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(b);
#else
    float x;
    memcpy(&x, &b, sizeof x);
    return x;
#endif
}

/* Leading zeros of a nonzero 32-bit value. */
GK_HD int gk_clz32(uint32_t v) {
#if defined(__CUDA_ARCH__)
    return __clz((int)v);
#else
    return __builtin_clz(v);
#endif
}

/* ---- the generic small-float rounding ---------------------------------------------------- */

/* How a format treats the values it cannot represent. */
enum {
    GK_MF_IEEE = 0, /* Inf = all-ones exponent, zero fraction; NaN = all-ones exponent, else */
    GK_MF_FN = 1,   /* no Inf; NaN = all-ones magnitude (E4M3FN) */
    GK_MF_FNUZ = 2, /* no Inf, no -0; the only NaN is the sign bit alone (0x80) */
    GK_MF_NONE = 3  /* no Inf, no NaN (FP6, FP4) */
};

/* |x| (its float32 bits a, finite) rounded to nearest even onto a format with `mbits` fraction
 * bits and exponent bias `bias`, as a magnitude code (biased exponent << mbits | fraction),
 * without any overflow check: the caller compares the result with its largest finite code.
 * The result never wraps for bias <= 142 (the largest an MX-scaled element format reaches).
 * Rounding adds the implicit bit back to a left-aligned significand and shifts right; a carry
 * out of the fraction correctly increments the exponent, and subnormal results come from a
 * longer shift with the exponent field left at 0 (the same construction as ml_dtypes). */
GK_HD uint32_t gk_round_mag(uint32_t a, int mbits, int bias) {
    if (a == 0) return 0;
    int e = (int)(a >> 23);
    uint32_t m = a & 0x7fffffu;
    if (e) {
        m |= 0x800000u;
    } else { /* float32 subnormal: normalise so that bit 23 is the leading one */
        const int lz = gk_clz32(m) - 8;
        m <<= lz;
        e = 1 - lz;
    }
    int te = e - 127 + bias; /* the target's biased exponent, were the result normal */
    int sh = 23 - mbits;
    if (te < 1) { /* subnormal (or zero) in the target: shift further, exponent field 0 */
        sh += 1 - te;
        te = 1;
        if (sh > 25) sh = 25; /* m < 2^24 = half of 2^25: rounds to 0 either way */
    }
    const uint32_t v = ((uint32_t)(te - 1) << 23) + m;
    return (v + (1u << (sh - 1)) - 1u + ((v >> sh) & 1u)) >> sh;
}

/* Encode float32 bits into a signed small format: nbits total, mbits fraction bits, bias,
 * max_mag the magnitude code of the largest finite value, kind one of GK_MF_*. */
GK_HD uint32_t gk_encode_small(uint32_t bits, int saturate, int nbits, int mbits, int bias,
                               uint32_t max_mag, int kind) {
    const uint32_t sign = bits >> 31;
    const uint32_t sbit = sign << (nbits - 1);
    const uint32_t a = bits & 0x7fffffffu;
    if (a > 0x7f800000u) {
        /* NaN */
        if (kind == GK_MF_IEEE) return sbit | (max_mag + 1) | (1u << (mbits - 1)); /* quiet */
        if (kind == GK_MF_FN) return sbit | (max_mag + 1);
        if (kind == GK_MF_FNUZ) return 1u << (nbits - 1);
        return (sign ^ 1u) << (nbits - 1); /* no NaN: ml_dtypes' stand-in, -0 for +NaN */
    }
    uint32_t c = a == 0x7f800000u ? max_mag + 1 : gk_round_mag(a, mbits, bias);
    if (c > max_mag) { /* overflow, or Inf */
        if (saturate || kind == GK_MF_NONE) return sbit | max_mag;
        if (kind == GK_MF_FNUZ) return 1u << (nbits - 1);
        return sbit | (max_mag + 1); /* Inf (IEEE) or the NaN (FN) */
    }
    if (kind == GK_MF_FNUZ && c == 0) return 0; /* no -0 */
    return sbit | c;
}

/* Exact float32 of a signed small-format code. keep_payload: an IEEE NaN keeps its fraction
 * (BF16, F16 widen bit for bit, as numpy); otherwise NaN decodes as the quiet NaN with the
 * code's sign (ml_dtypes' behaviour for the 8-bit formats). */
GK_HD float gk_decode_small(uint32_t code, int nbits, int mbits, int bias, int kind,
                            int keep_payload) {
    code &= (1u << nbits) - 1u;
    const uint32_t s = (code >> (nbits - 1)) << 31;
    const uint32_t mag = code & ((1u << (nbits - 1)) - 1u);
    const uint32_t emask = (1u << (nbits - 1 - mbits)) - 1u;
    const uint32_t e = mag >> mbits, m = mag & ((1u << mbits) - 1u);
    const uint32_t mmask = (1u << mbits) - 1u;
    if ((kind == GK_MF_IEEE && e == emask) || (kind == GK_MF_FN && e == emask && m == mmask)) {
        if (kind == GK_MF_IEEE && m == 0) return gk_bits_f32(s | 0x7f800000u);
        if (keep_payload) return gk_bits_f32(s | 0x7f800000u | (m << (23 - mbits)));
        return gk_bits_f32(s | 0x7fc00000u);
    }
    if (kind == GK_MF_FNUZ && code == (1u << (nbits - 1))) return gk_bits_f32(0xffc00000u);
    if (e == 0) {
        if (m == 0) return gk_bits_f32(s);
        const int lead = 31 - gk_clz32(m); /* value = m * 2^(1 - bias - mbits), a float32 normal */
        const uint32_t exp32 = (uint32_t)(lead + 1 - bias - mbits + 127);
        return gk_bits_f32(s | exp32 << 23 | ((m << (23 - lead)) & 0x7fffffu));
    }
    return gk_bits_f32(s | (e + 127u - (uint32_t)bias) << 23 | m << (23 - mbits));
}

/* ---- per-format encode (float -> code) ------------------------------------------------------ */

GK_HD uint16_t gk_encode_bf16(float x, int saturate) {
    return (uint16_t)gk_encode_small(gk_f32_bits(x), saturate, 16, 7, 127, 0x7f7f, GK_MF_IEEE);
}
GK_HD uint16_t gk_encode_f16(float x, int saturate) {
    return (uint16_t)gk_encode_small(gk_f32_bits(x), saturate, 16, 10, 15, 0x7bff, GK_MF_IEEE);
}
/* TF32: float32 rounded to 10 fraction bits, returned as a float32. */
GK_HD float gk_encode_tf32(float x, int saturate) {
    return gk_bits_f32(gk_encode_small(gk_f32_bits(x), saturate, 19, 10, 127, 0x3fbff, GK_MF_IEEE)
                       << 13);
}
/* F32 "encode": x itself, NaN payload kept; saturate = 1 maps +-Inf to +-FLT_MAX. */
GK_HD float gk_encode_f32(float x, int saturate) {
    const uint32_t b = gk_f32_bits(x);
    if (saturate && (b & 0x7fffffffu) == 0x7f800000u)
        return gk_bits_f32((b - 0x00800000u) | 0x7fffffu);
    return x;
}
GK_HD uint8_t gk_encode_e4m3fn(float x, int saturate) {
    return (uint8_t)gk_encode_small(gk_f32_bits(x), saturate, 8, 3, 7, 0x7e, GK_MF_FN);
}
GK_HD uint8_t gk_encode_e5m2(float x, int saturate) {
    return (uint8_t)gk_encode_small(gk_f32_bits(x), saturate, 8, 2, 15, 0x7b, GK_MF_IEEE);
}
GK_HD uint8_t gk_encode_e4m3fnuz(float x, int saturate) {
    return (uint8_t)gk_encode_small(gk_f32_bits(x), saturate, 8, 3, 8, 0x7f, GK_MF_FNUZ);
}
GK_HD uint8_t gk_encode_e5m2fnuz(float x, int saturate) {
    return (uint8_t)gk_encode_small(gk_f32_bits(x), saturate, 8, 2, 16, 0x7f, GK_MF_FNUZ);
}
GK_HD uint8_t gk_encode_e2m3fn(float x, int saturate) {
    return (uint8_t)gk_encode_small(gk_f32_bits(x), saturate, 6, 3, 1, 0x1f, GK_MF_NONE);
}
GK_HD uint8_t gk_encode_e3m2fn(float x, int saturate) {
    return (uint8_t)gk_encode_small(gk_f32_bits(x), saturate, 6, 2, 3, 0x1f, GK_MF_NONE);
}
GK_HD uint8_t gk_encode_e2m1fn(float x, int saturate) {
    return (uint8_t)gk_encode_small(gk_f32_bits(x), saturate, 4, 1, 1, 0x7, GK_MF_NONE);
}

/* E8M0 (unsigned power of two 2^(code - 127), code 0xFF NaN, no zero). A positive finite x is
 * rounded to the nearer power of two, ties up (ml_dtypes), values below 2^-127 to 2^-127.
 * Non-saturating: +-0, negatives, +-Inf, NaN and values that round above 2^127 give 0xFF.
 * Saturating: +-0 and negatives give 0x00 (2^-127), +Inf and large values 0xFE (2^127), -Inf
 * 0x00, NaN 0xFF. */
GK_HD uint8_t gk_encode_e8m0fnu(float x, int saturate) {
    const uint32_t b = gk_f32_bits(x);
    const uint32_t a = b & 0x7fffffffu;
    if (a > 0x7f800000u) return 0xff;
    if (b >> 31 || a == 0) return saturate ? 0x00 : 0xff; /* -0, negatives, -Inf, +0 */
    if (a == 0x7f800000u) return saturate ? 0xfe : 0xff;
    uint32_t code;
    if (a >= 0x00800000u) /* [2^(e-127), 2^(e-126)): 2^(e-127) below 1.5 * 2^(e-127), else up */
        code = (a >> 23) + ((a & 0x7fffffu) >= 0x400000u);
    else /* float32 subnormal: between 0 (2^-127 = 0x400000) and 1 (2^-126); midpoint 0x600000 */
        code = a >= 0x600000u;
    if (code > 0xfe) return saturate ? 0xfe : 0xff;
    return (uint8_t)code;
}

/* ---- per-format decode (code -> float) ------------------------------------------------------- */

GK_HD float gk_decode_bf16(uint16_t c) {
    return gk_bits_f32((uint32_t)c << 16);
}
GK_HD float gk_decode_f16(uint16_t c) {
    return gk_decode_small(c, 16, 10, 15, GK_MF_IEEE, 1);
}
GK_HD float gk_decode_e4m3fn(uint8_t c) {
    return gk_decode_small(c, 8, 3, 7, GK_MF_FN, 0);
}
GK_HD float gk_decode_e5m2(uint8_t c) {
    return gk_decode_small(c, 8, 2, 15, GK_MF_IEEE, 0);
}
GK_HD float gk_decode_e4m3fnuz(uint8_t c) {
    return gk_decode_small(c, 8, 3, 8, GK_MF_FNUZ, 0);
}
GK_HD float gk_decode_e5m2fnuz(uint8_t c) {
    return gk_decode_small(c, 8, 2, 16, GK_MF_FNUZ, 0);
}
GK_HD float gk_decode_e2m3fn(uint8_t c) {
    return gk_decode_small(c, 6, 3, 1, GK_MF_NONE, 0);
}
GK_HD float gk_decode_e3m2fn(uint8_t c) {
    return gk_decode_small(c, 6, 2, 3, GK_MF_NONE, 0);
}
GK_HD float gk_decode_e2m1fn(uint8_t c) {
    return gk_decode_small(c, 4, 1, 1, GK_MF_NONE, 0);
}
/* 2^(c - 127); code 0 is the float32 subnormal 2^-127; 0xFF is NaN. */
GK_HD float gk_decode_e8m0fnu(uint8_t c) {
    if (c == 0xff) return gk_bits_f32(0x7fc00000u);
    if (c == 0) return gk_bits_f32(0x00400000u);
    return gk_bits_f32((uint32_t)c << 23);
}

/* ---- dispatch on gk_format ---------------------------------------------------------------- */

/* The code of x in fmt: the value gk_encode stores (F32/TF32: the float32 bits). fmt must be a
 * valid gk_format (others give 0). */
GK_HD uint32_t gk_encode_scalar(gk_format fmt, float x, int saturate) {
    switch (fmt) {
    case GK_F32:
        return gk_f32_bits(gk_encode_f32(x, saturate));
    case GK_TF32:
        return gk_f32_bits(gk_encode_tf32(x, saturate));
    case GK_BF16:
        return gk_encode_bf16(x, saturate);
    case GK_F16:
        return gk_encode_f16(x, saturate);
    case GK_F8_E4M3FN:
        return gk_encode_e4m3fn(x, saturate);
    case GK_F8_E5M2:
        return gk_encode_e5m2(x, saturate);
    case GK_F8_E4M3FNUZ:
        return gk_encode_e4m3fnuz(x, saturate);
    case GK_F8_E5M2FNUZ:
        return gk_encode_e5m2fnuz(x, saturate);
    case GK_F8_E8M0FNU:
        return gk_encode_e8m0fnu(x, saturate);
    case GK_F6_E2M3FN:
        return gk_encode_e2m3fn(x, saturate);
    case GK_F6_E3M2FN:
        return gk_encode_e3m2fn(x, saturate);
    case GK_F4_E2M1FN:
        return gk_encode_e2m1fn(x, saturate);
    default:
        return 0;
    }
}

/* The float32 value of a code (F32/TF32: the code is the float32 bits). */
GK_HD float gk_decode_scalar(gk_format fmt, uint32_t code) {
    switch (fmt) {
    case GK_F32:
    case GK_TF32:
        return gk_bits_f32(code);
    case GK_BF16:
        return gk_decode_bf16((uint16_t)code);
    case GK_F16:
        return gk_decode_f16((uint16_t)code);
    case GK_F8_E4M3FN:
        return gk_decode_e4m3fn((uint8_t)code);
    case GK_F8_E5M2:
        return gk_decode_e5m2((uint8_t)code);
    case GK_F8_E4M3FNUZ:
        return gk_decode_e4m3fnuz((uint8_t)code);
    case GK_F8_E5M2FNUZ:
        return gk_decode_e5m2fnuz((uint8_t)code);
    case GK_F8_E8M0FNU:
        return gk_decode_e8m0fnu((uint8_t)code);
    case GK_F6_E2M3FN:
        return gk_decode_e2m3fn((uint8_t)code);
    case GK_F6_E3M2FN:
        return gk_decode_e3m2fn((uint8_t)code);
    case GK_F4_E2M1FN:
        return gk_decode_e2m1fn((uint8_t)code);
    default:
        return gk_bits_f32(0x7fc00000u);
    }
}

/* ---- MX block scaling ---------------------------------------------------------------------- */

/* Parameters of an MX element format: fraction bits, bias, largest finite magnitude code,
 * total bits, kind, emax (exponent of the largest finite value) and that value's significand as
 * a 24-bit integer with the implicit bit (1.75 -> 0xE00000). Returns 0 for a format that is not
 * an MX element format. */
typedef struct gk_mx_elem {
    int nbits, mbits, bias, kind, emax;
    uint32_t max_mag, max_sig;
} gk_mx_elem;

GK_HD int gk_mx_elem_params(gk_format elem, gk_mx_elem *p) {
    /* nbits, mbits, bias, kind, emax, max_mag, max_sig (no compound literals: nvcc compiles this
     * as C++) */
    static const int t[5][7] = {{8, 3, 7, GK_MF_FN, 8, 0x7e, 0xe00000},
                                {8, 2, 15, GK_MF_IEEE, 15, 0x7b, 0xe00000},
                                {6, 3, 1, GK_MF_NONE, 2, 0x1f, 0xf00000},
                                {6, 2, 3, GK_MF_NONE, 4, 0x1f, 0xe00000},
                                {4, 1, 1, GK_MF_NONE, 2, 0x7, 0xc00000}};
    int i;
    switch (elem) {
    case GK_F8_E4M3FN:
        i = 0;
        break;
    case GK_F8_E5M2:
        i = 1;
        break;
    case GK_F6_E2M3FN:
        i = 2;
        break;
    case GK_F6_E3M2FN:
        i = 3;
        break;
    case GK_F4_E2M1FN:
        i = 4;
        break;
    default:
        return 0;
    }
    p->nbits = t[i][0], p->mbits = t[i][1], p->bias = t[i][2], p->kind = t[i][3];
    p->emax = t[i][4], p->max_mag = (uint32_t)t[i][5], p->max_sig = (uint32_t)t[i][6];
    return 1;
}

/* E8M0 scale code of a block whose largest magnitude has float32 bits amax (sign clear), by
 * `rule` (gk_mx_scale_rule). amax NaN or Inf: 0xFF; amax 0: 0x00; else 127 + e, e clamped below
 * at -127 (no rule can exceed 127 for a finite float32 amax). */
GK_HD uint8_t gk_mx_scale_code(const gk_mx_elem *p, int rule, uint32_t amax) {
    if (amax >= 0x7f800000u) return 0xff;
    if (amax == 0) return 0;
    int E;        /* floor(log2(amax)) */
    uint32_t sig; /* amax's significand, 24 bits with the leading one at bit 23 */
    if (amax >= 0x00800000u) {
        E = (int)(amax >> 23) - 127;
        sig = (amax & 0x7fffffu) | 0x800000u;
    } else {
        const int lz = gk_clz32(amax) - 8;
        E = -126 - lz;
        sig = amax << lz;
    }
    int e = E - p->emax; /* GK_MX_SCALE_FLOOR */
    if (rule == GK_MX_SCALE_CEIL) {
        e += sig != 0x800000u;
    } else if (rule == GK_MX_SCALE_EVEN) { /* round sig to mbits fraction bits, ties away */
        e += sig + (1u << (22 - p->mbits)) >= 0x1000000u;
    } else if (rule == GK_MX_SCALE_RCEIL) { /* amax / 2^e <= max_elem  <=>  sig <= max_sig */
        e += sig > p->max_sig;
    }
    if (e < -127) e = -127;
    return (uint8_t)(e + 127);
}

/* The element code of x / 2^(scale - 127), rounded to nearest even and saturating to the
 * element's largest finite value, computed exactly (the division is a change of bias, never a
 * float32 operation). scale must not be 0xFF. */
GK_HD uint8_t gk_mx_encode_elem(const gk_mx_elem *p, float x, uint8_t scale) {
    return (uint8_t)gk_encode_small(gk_f32_bits(x), 1, p->nbits, p->mbits,
                                    p->bias - ((int)scale - 127), p->max_mag, p->kind);
}

/* decode(code) * 2^(scale - 127): exact (every product of an element value and a power of two in
 * E8M0's range is a float32, or beyond float32's range and then Inf); NaN when scale is 0xFF. */
GK_HD float gk_mx_decode_elem(const gk_mx_elem *p, uint8_t code, uint8_t scale) {
    const float v = gk_decode_small(code, p->nbits, p->mbits, p->bias, p->kind, 0);
    if (scale == 0xff) return gk_bits_f32(0x7fc00000u);
    /* Split 2^(scale-127) into two normal float32 factors so that no operand or intermediate is
     * a float32 subnormal that flush-to-zero / denormals-are-zero modes would destroy; the
     * final product is exact unless it is itself subnormal under such a mode. */
    const int k = (int)scale - 127;
    const int k1 = k / 2, k2 = k - k1;
    return v * gk_bits_f32((uint32_t)(k1 + 127) << 23) * gk_bits_f32((uint32_t)(k2 + 127) << 23);
}

#endif
