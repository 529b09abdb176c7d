/*
 * gemm_scaled_check.c — the argument checks of the block-scaled GEMM that do not depend on where
 * the data live (gemm_scaled.h), shared by the CPU entry point (src/cpu/frame/gemm_scaled.c) and
 * the GPU one (src/cuda/api/gemm_scaled.cu), so both give the same status and message for the
 * same mistake. They are checks of operand formats and scale arrays, so they live beside the
 * format registry; the file depends on nothing but the status module, so the emulated CUDA tests
 * compile it alone.
 */
#include "formats/gemm_scaled.h"

static const char *name_of(int f) {
    const char *s = gk_format_name((gk_format)f);
    return s ? s : "?";
}

static int is_fp8(int f) {
    return f == GK_F8_E4M3FN || f == GK_F8_E5M2;
}

static int is_mx_elem(int f) {
    return is_fp8(f) || f == GK_F6_E2M3FN || f == GK_F6_E3M2FN || f == GK_F4_E2M1FN;
}

gk_status gk_check_scaled_formats(const char *who, int scaling, int atype, int btype, int ctype) {
    if (scaling != GK_SCALING_BLOCK128 && scaling != GK_SCALING_MX)
        return gk_fail(GK_ERR_INVALID_VALUE,
                       "%s: scaling=%d is not a gk_scaling value (GK_SCALING_BLOCK128, "
                       "GK_SCALING_MX)",
                       who, scaling);
    const char *names[3] = {"atype", "btype", "ctype"};
    const int f[3] = {atype, btype, ctype};
    for (int i = 0; i < 3; i++)
        if ((unsigned)f[i] >= (unsigned)GK_FORMAT_COUNT)
            return gk_fail(GK_ERR_INVALID_VALUE, "%s: %s=%d is not a gk_format value", who,
                           names[i], f[i]);
    const int mx = scaling == GK_SCALING_MX;
    for (int i = 0; i < 2; i++) {
        if (mx && !is_mx_elem(f[i]))
            return gk_fail(GK_ERR_UNSUPPORTED,
                           "%s: %s=%s is not an MX element format (float8_e4m3fn, float8_e5m2, "
                           "float6_e2m3fn, float6_e3m2fn, float4_e2m1fn)",
                           who, names[i], name_of(f[i]));
        if (!mx && !is_fp8(f[i]))
            return gk_fail(GK_ERR_UNSUPPORTED,
                           "%s: %s=%s is not supported with GK_SCALING_BLOCK128 (float8_e4m3fn, "
                           "float8_e5m2)",
                           who, names[i], name_of(f[i]));
    }
    if (!mx && atype == GK_F8_E5M2 && btype == GK_F8_E5M2)
        return gk_fail(GK_ERR_UNSUPPORTED,
                       "%s: atype=btype=float8_e5m2 is not supported with GK_SCALING_BLOCK128 (an "
                       "FP8 product takes at least one float8_e4m3fn operand)",
                       who);
    if (ctype != GK_F32 && ctype != GK_BF16 && ctype != GK_F16)
        return gk_fail(GK_ERR_UNSUPPORTED,
                       "%s: ctype=%s is not supported (float32, bfloat16 or float16)", who,
                       name_of(ctype));
    return GK_SUCCESS;
}

/* Blocks per row of K: ceil(k / group). */
int64_t gk_scaled_blocks(int64_t k, int64_t group) {
    return k / group + (k % group != 0);
}

gk_status gk_check_scale_arrays(const char *who, gk_scaling scaling, int64_t m, int64_t n,
                                int64_t k, const void *a_scale, const void *b_scale) {
    const int mx = scaling == GK_SCALING_MX;
    const int64_t kb = gk_scaled_blocks(k, mx ? 32 : 128), size = mx ? 1 : 4;
    const struct {
        const void *p;
        const char *name;
        int64_t rows;
    } s[2] = {{a_scale, "a_scale", m}, {b_scale, "b_scale", mx ? n : gk_scaled_blocks(n, 128)}};
    for (int i = 0; i < 2; i++) {
        if (s[i].p == NULL)
            return gk_fail(GK_ERR_INVALID_POINTER, "%s: %s is NULL", who, s[i].name);
        if (gk_span_bytes_of(kb, s[i].rows, kb, size) < 0)
            return gk_fail(GK_ERR_OVERFLOW, "%s: %s (%lld x %lld) overflows the address space", who,
                           s[i].name, (long long)s[i].rows, (long long)kb);
    }
    return GK_SUCCESS;
}
