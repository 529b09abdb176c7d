/*
 * formats.c — the public conversion API (gemmkit.h, "@formats-api"): the format registry,
 * argument checks, packing of the sub-byte formats, and the choice of bulk variant.
 * Definitions of the conversions: scalar.h; the loops: bulk_body.h; rules: docs/formats.md.
 */
#include "formats/formats.h"

#include <string.h>

#include "cpu/config/cpu.h"
#include "cpu/kernels/registry.h"
#include "cpu/kernels/ukernel.h"

/* ---- registry ------------------------------------------------------------------------------ */

typedef struct fmt_row {
    const char *name;
    int bits, bytes, ebits, mbits, bias, emax;
    int is_signed, has_zero, has_neg_zero, has_inf, has_nan, has_sub, mx;
    uint32_t max_code, nan_code;
} fmt_row;

/* Indexed by gk_format. The numbers follow from the bit layouts (docs/formats.md); the test
 * checks max_code/nan_code against scalar.h and the values against ml_dtypes' finfo. */
static const fmt_row rows[GK_FORMAT_COUNT] = {
    [GK_F32] = {"float32", 32, 4, 8, 23, 127, 127, 1, 1, 1, 1, 1, 1, 0, 0x7f7fffffu, 0x7fc00000u},
    [GK_TF32] = {"tfloat32", 19, 4, 8, 10, 127, 127, 1, 1, 1, 1, 1, 1, 0, 0x7f7fe000u, 0x7fc00000u},
    [GK_BF16] = {"bfloat16", 16, 2, 8, 7, 127, 127, 1, 1, 1, 1, 1, 1, 0, 0x7f7f, 0x7fc0},
    [GK_F16] = {"float16", 16, 2, 5, 10, 15, 15, 1, 1, 1, 1, 1, 1, 0, 0x7bff, 0x7e00},
    [GK_F8_E4M3FN] = {"float8_e4m3fn", 8, 1, 4, 3, 7, 8, 1, 1, 1, 0, 1, 1, 1, 0x7e, 0x7f},
    [GK_F8_E5M2] = {"float8_e5m2", 8, 1, 5, 2, 15, 15, 1, 1, 1, 1, 1, 1, 1, 0x7b, 0x7e},
    [GK_F8_E4M3FNUZ] = {"float8_e4m3fnuz", 8, 1, 4, 3, 8, 7, 1, 1, 0, 0, 1, 1, 0, 0x7f, 0x80},
    [GK_F8_E5M2FNUZ] = {"float8_e5m2fnuz", 8, 1, 5, 2, 16, 15, 1, 1, 0, 0, 1, 1, 0, 0x7f, 0x80},
    [GK_F8_E8M0FNU] = {"float8_e8m0fnu", 8, 1, 8, 0, 127, 127, 0, 0, 0, 0, 1, 0, 0, 0xfe, 0xff},
    [GK_F6_E2M3FN] = {"float6_e2m3fn", 6, 1, 2, 3, 1, 2, 1, 1, 1, 0, 0, 1, 1, 0x1f, 0x20},
    [GK_F6_E3M2FN] = {"float6_e3m2fn", 6, 1, 3, 2, 3, 4, 1, 1, 1, 0, 0, 1, 1, 0x1f, 0x20},
    [GK_F4_E2M1FN] = {"float4_e2m1fn", 4, 1, 2, 1, 1, 2, 1, 1, 1, 0, 0, 1, 1, 0x7, 0x8},
};

static int valid_format(gk_format fmt) {
    return (int)fmt >= 0 && (int)fmt < GK_FORMAT_COUNT;
}

const char *gk_format_name(gk_format fmt) {
    return valid_format(fmt) ? rows[fmt].name : NULL;
}

gk_status gk_format_info_get(gk_format fmt, gk_format_info *info) {
    gk_clear_error();
    if (!valid_format(fmt))
        return gk_fail(GK_ERR_INVALID_VALUE, "gk_format_info_get: fmt=%d is not a gk_format",
                       (int)fmt);
    if (!info) return gk_fail(GK_ERR_NULL_POINTER, "gk_format_info_get: info is NULL");
    const fmt_row *r = &rows[fmt];
    memset(info, 0, sizeof *info);
    info->name = r->name;
    info->bits = r->bits;
    info->storage_bytes = r->bytes;
    info->exponent_bits = r->ebits;
    info->mantissa_bits = r->mbits;
    info->bias = r->bias;
    info->emax = r->emax;
    info->is_signed = r->is_signed;
    info->has_zero = r->has_zero;
    info->has_neg_zero = r->has_neg_zero;
    info->has_inf = r->has_inf;
    info->has_nan = r->has_nan;
    info->has_subnormals = r->has_sub;
    info->max_code = r->max_code;
    info->nan_code = r->nan_code;
    info->mx_element = r->mx;
    /* Values from the decoder itself, so the registry cannot disagree with the conversions. */
    info->max_finite = gk_decode_scalar(fmt, r->max_code);
    if (fmt == GK_F8_E8M0FNU) {
        info->min_normal = info->min_subnormal = gk_decode_e8m0fnu(0);
    } else if (fmt == GK_F32 || fmt == GK_TF32) {
        info->min_normal = gk_bits_f32(0x00800000u);
        info->min_subnormal = gk_bits_f32(fmt == GK_F32 ? 1u : 0x2000u);
    } else {
        info->min_normal = gk_decode_scalar(fmt, 1u << r->mbits);
        info->min_subnormal = gk_decode_scalar(fmt, 1u);
    }
    return GK_SUCCESS;
}

/* ---- variants ------------------------------------------------------------------------------ */

const gk_fmt_variant gk_fmt_variants[] = {
#if defined(__x86_64__)
    {.arch = "avx512",
     .usable = gk_cpu_usable_avx512,
     .encode = gk_fmt_encode_avx512,
     .decode = gk_fmt_decode_avx512,
     .mx_quantize_row = gk_fmt_mx_quantize_row_avx512,
     .mx_dequantize_row = gk_fmt_mx_dequantize_row_avx512},
    {.arch = "avx2",
     .usable = gk_cpu_usable_avx2,
     .encode = gk_fmt_encode_avx2,
     .decode = gk_fmt_decode_avx2,
     .mx_quantize_row = gk_fmt_mx_quantize_row_avx2,
     .mx_dequantize_row = gk_fmt_mx_dequantize_row_avx2},
#endif
    {.arch = "generic",
     .usable = gk_cpu_usable_generic,
     .encode = gk_fmt_encode_generic,
     .decode = gk_fmt_decode_generic,
     .mx_quantize_row = gk_fmt_mx_quantize_row_generic,
     .mx_dequantize_row = gk_fmt_mx_dequantize_row_generic},
};
const int gk_fmt_variant_count = (int)(sizeof gk_fmt_variants / sizeof gk_fmt_variants[0]);

const gk_fmt_variant *gk_fmt_variant_now(void) {
    /* The GEMM's family, as the kernel registry keeps it (src/cpu/kernels/registry.h). */
    const char *arch = gk_ukr_table[gk_ukr_now(NULL)].arch;
    for (int i = 0; i < gk_fmt_variant_count; i++)
        if (strcmp(gk_fmt_variants[i].arch, arch) == 0 && gk_fmt_variants[i].usable())
            return &gk_fmt_variants[i];
    for (int i = 0; i < gk_fmt_variant_count; i++)
        if (gk_fmt_variants[i].usable()) return &gk_fmt_variants[i];
    return &gk_fmt_variants[gk_fmt_variant_count - 1];
}

/* ---- checks -------------------------------------------------------------------------------- */

static gk_status check_fmt(const char *who, gk_format fmt) {
    if (!valid_format(fmt))
        return gk_fail(GK_ERR_INVALID_VALUE, "%s: fmt=%d is not a gk_format", who, (int)fmt);
    return GK_SUCCESS;
}

gk_status gk_fmt_check_n(const char *who, int64_t n, const void *a, const char *an, const void *b,
                         const char *bn, int64_t max_bytes_per_elem) {
    if (n < 0) return gk_fail(GK_ERR_INVALID_SIZE, "%s: n=%lld is negative", who, (long long)n);
    if (n > (int64_t)(PTRDIFF_MAX / max_bytes_per_elem))
        return gk_fail(GK_ERR_OVERFLOW, "%s: n=%lld elements overflow the address space", who,
                       (long long)n);
    if (n > 0 && !a) return gk_fail(GK_ERR_NULL_POINTER, "%s: %s is NULL", who, an);
    if (n > 0 && !b) return gk_fail(GK_ERR_NULL_POINTER, "%s: %s is NULL", who, bn);
    return GK_SUCCESS;
}

/* ---- encode / decode ----------------------------------------------------------------------- */

gk_status gk_encode(gk_format fmt, const float *x, void *codes, int64_t n, int saturate) {
    static const char who[] = "gk_encode";
    gk_clear_error();
    gk_status st = check_fmt(who, fmt);
    if (st == GK_SUCCESS) st = gk_fmt_check_n(who, n, x, "x", codes, "codes", 4);
    if (st != GK_SUCCESS) return st;
    if (saturate != 0 && saturate != 1)
        return gk_fail(GK_ERR_INVALID_VALUE, "%s: saturate=%d is not 0 or 1", who, saturate);
    if (n > 0) gk_fmt_variant_now()->encode(fmt, x, codes, n, saturate);
    return GK_SUCCESS;
}

gk_status gk_decode(gk_format fmt, const void *codes, float *y, int64_t n) {
    static const char who[] = "gk_decode";
    gk_clear_error();
    gk_status st = check_fmt(who, fmt);
    if (st == GK_SUCCESS) st = gk_fmt_check_n(who, n, codes, "codes", y, "y", 4);
    if (st != GK_SUCCESS) return st;
    if (n > 0) gk_fmt_variant_now()->decode(fmt, codes, y, n);
    return GK_SUCCESS;
}

/* ---- packing ------------------------------------------------------------------------------- */

static int sub_byte_bits(gk_format fmt) {
    if (fmt == GK_F4_E2M1FN) return 4;
    if (fmt == GK_F6_E2M3FN || fmt == GK_F6_E3M2FN) return 6;
    return 0;
}

int64_t gk_packed_bytes(gk_format fmt, int64_t n) {
    const int b = sub_byte_bits(fmt);
    if (!b || n < 0 || n > INT64_MAX / 8) return -1;
    return (n * b + 7) / 8;
}

static gk_status check_pack(const char *who, gk_format fmt, const void *in, const char *inn,
                            const void *out, const char *outn, int64_t n) {
    if (!sub_byte_bits(fmt))
        return gk_fail(GK_ERR_INVALID_VALUE,
                       "%s: fmt=%d is not a packed format (GK_F6_E2M3FN, GK_F6_E3M2FN, "
                       "GK_F4_E2M1FN)",
                       who, (int)fmt);
    return gk_fmt_check_n(who, n, in, inn, out, outn, 1);
}

gk_status gk_pack(gk_format fmt, const uint8_t *codes, void *packed, int64_t n) {
    gk_clear_error();
    gk_status st = check_pack("gk_pack", fmt, codes, "codes", packed, "packed", n);
    if (st != GK_SUCCESS) return st;
    uint8_t *out = packed;
    if (sub_byte_bits(fmt) == 4) {
        int64_t i = 0;
        for (; i + 1 < n; i += 2)
            out[i / 2] = (uint8_t)((codes[i] & 0xf) | (codes[i + 1] & 0xf) << 4);
        if (i < n) out[i / 2] = codes[i] & 0xf;
    } else {
        int64_t i = 0, o = 0;
        for (; i + 3 < n; i += 4, o += 3) {
            const uint32_t w = (uint32_t)(codes[i] & 0x3f) | (uint32_t)(codes[i + 1] & 0x3f) << 6 |
                               (uint32_t)(codes[i + 2] & 0x3f) << 12 |
                               (uint32_t)(codes[i + 3] & 0x3f) << 18;
            out[o] = (uint8_t)w, out[o + 1] = (uint8_t)(w >> 8), out[o + 2] = (uint8_t)(w >> 16);
        }
        if (i < n) { /* 1 to 3 elements left: 1 to 3 bytes, high bits zero */
            uint32_t w = 0;
            for (int k = 0; i + k < n; k++)
                w |= (uint32_t)(codes[i + k] & 0x3f) << (6 * k);
            const int64_t nb = (6 * (n - i) + 7) / 8;
            for (int64_t k = 0; k < nb; k++)
                out[o + k] = (uint8_t)(w >> (8 * k));
        }
    }
    return GK_SUCCESS;
}

gk_status gk_unpack(gk_format fmt, const void *packed, uint8_t *codes, int64_t n) {
    gk_clear_error();
    gk_status st = check_pack("gk_unpack", fmt, packed, "packed", codes, "codes", n);
    if (st != GK_SUCCESS) return st;
    const uint8_t *in = packed;
    if (sub_byte_bits(fmt) == 4) {
        for (int64_t i = 0; i < n; i++)
            codes[i] = (uint8_t)(in[i / 2] >> (4 * (i & 1)) & 0xf);
    } else {
        int64_t i = 0, o = 0;
        for (; i + 3 < n; i += 4, o += 3) {
            const uint32_t w =
                (uint32_t)in[o] | (uint32_t)in[o + 1] << 8 | (uint32_t)in[o + 2] << 16;
            codes[i] = w & 0x3f, codes[i + 1] = w >> 6 & 0x3f;
            codes[i + 2] = w >> 12 & 0x3f, codes[i + 3] = w >> 18 & 0x3f;
        }
        if (i < n) {
            uint32_t w = 0;
            const int64_t nb = (6 * (n - i) + 7) / 8;
            for (int64_t k = 0; k < nb; k++)
                w |= (uint32_t)in[o + k] << (8 * k);
            for (int k = 0; i + k < n; k++)
                codes[i + k] = (uint8_t)(w >> (6 * k) & 0x3f);
        }
    }
    return GK_SUCCESS;
}

/* ---- MX ------------------------------------------------------------------------------------ */

gk_status gk_fmt_check_mx(const char *who, gk_format elem, int has_rule, int rule, gk_mx_elem *p,
                          int64_t rows, int64_t cols, int64_t block, const gk_fmt_operand op[3]) {
    if (!valid_format(elem) || !gk_mx_elem_params(elem, p))
        return gk_fail(GK_ERR_INVALID_VALUE,
                       "%s: elem=%d is not an MX element format (GK_F8_E4M3FN, GK_F8_E5M2, "
                       "GK_F6_E2M3FN, GK_F6_E3M2FN, GK_F4_E2M1FN)",
                       who, (int)elem);
    if (has_rule && (rule < GK_MX_SCALE_FLOOR || rule > GK_MX_SCALE_RCEIL))
        return gk_fail(GK_ERR_INVALID_VALUE,
                       "%s: rule=%d is not a gk_mx_scale_rule (FLOOR, CEIL, EVEN, RCEIL)", who,
                       rule);
    if (rows < 0)
        return gk_fail(GK_ERR_INVALID_SIZE, "%s: rows=%lld is negative", who, (long long)rows);
    if (cols < 0)
        return gk_fail(GK_ERR_INVALID_SIZE, "%s: cols=%lld is negative", who, (long long)cols);
    if (block < 1)
        return gk_fail(GK_ERR_INVALID_VALUE, "%s: block=%lld is not positive", who,
                       (long long)block);
    const int64_t nblocks = cols / block + (cols % block != 0);
    for (int i = 0; i < 3; i++) {
        const int64_t need = op[i].blocks ? nblocks : cols, min_ld = need > 1 ? need : 1;
        if (op[i].ld < min_ld)
            return gk_fail(GK_ERR_INVALID_LD, "%s: %s=%lld is less than %s (%lld)", who,
                           op[i].ldname, (long long)op[i].ld,
                           op[i].blocks ? "the blocks per row" : "cols", (long long)min_ld);
        if (rows > 0 && cols > 0 && !op[i].ptr)
            return gk_fail(GK_ERR_NULL_POINTER, "%s: %s is NULL", who, op[i].name);
        if (gk_fmt_row_span(rows, need, op[i].ld, op[i].size) < 0)
            return gk_fail(GK_ERR_OVERFLOW,
                           "%s: %s (rows=%lld, %s=%lld) overflows the address space", who,
                           op[i].name, (long long)rows, op[i].ldname, (long long)op[i].ld);
    }
    return GK_SUCCESS;
}

gk_status gk_mx_quantize(gk_format elem, gk_mx_scale_rule rule, int64_t rows, int64_t cols,
                         int64_t block, const float *x, int64_t ldx, uint8_t *codes,
                         int64_t ldcodes, uint8_t *scales, int64_t ldscales) {
    gk_clear_error();
    gk_mx_elem p;
    const gk_fmt_operand op[3] = {{x, "x", "ldx", ldx, 4, 0},
                                  {codes, "codes", "ldcodes", ldcodes, 1, 0},
                                  {scales, "scales", "ldscales", ldscales, 1, 1}};
    gk_status st = gk_fmt_check_mx("gk_mx_quantize", elem, 1, (int)rule, &p, rows, cols, block, op);
    if (st != GK_SUCCESS) return st;
    if (rows == 0 || cols == 0) return GK_SUCCESS;
    const gk_fmt_variant *v = gk_fmt_variant_now();
    for (int64_t i = 0; i < rows; i++)
        v->mx_quantize_row(&p, (int)rule, x + i * ldx, cols, block, codes + i * ldcodes,
                           scales + i * ldscales);
    return GK_SUCCESS;
}

gk_status gk_mx_dequantize(gk_format elem, int64_t rows, int64_t cols, int64_t block,
                           const uint8_t *codes, int64_t ldcodes, const uint8_t *scales,
                           int64_t ldscales, float *y, int64_t ldy) {
    gk_clear_error();
    gk_mx_elem p;
    const gk_fmt_operand op[3] = {{codes, "codes", "ldcodes", ldcodes, 1, 0},
                                  {scales, "scales", "ldscales", ldscales, 1, 1},
                                  {y, "y", "ldy", ldy, 4, 0}};
    gk_status st = gk_fmt_check_mx("gk_mx_dequantize", elem, 0, 0, &p, rows, cols, block, op);
    if (st != GK_SUCCESS) return st;
    if (rows == 0 || cols == 0) return GK_SUCCESS;
    const gk_fmt_variant *v = gk_fmt_variant_now();
    for (int64_t i = 0; i < rows; i++)
        v->mx_dequantize_row(&p, codes + i * ldcodes, scales + i * ldscales, cols, block,
                             y + i * ldy);
    return GK_SUCCESS;
}
