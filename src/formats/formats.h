/*
 * formats.h — internal interface of the conversion module: the bulk variants (one per ISA, all
 * compiled from bulk_body.h) and how a call picks one. The public API is in gemmkit.h; the
 * one-value definitions every variant reproduces are in scalar.h.
 */
#ifndef GK_FORMATS_FORMATS_H
#define GK_FORMATS_FORMATS_H

#include <stdint.h>

#include "core/internal.h"
#include "formats/scalar.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A bulk variant. Arguments are already validated; fmt is a valid gk_format, p an MX element. */
typedef struct gk_fmt_variant {
    const char *arch; /* the CPU kernel family it belongs to, as GEMMKIT_ARCH names it */
    int (*usable)(void);
    void (*encode)(gk_format fmt, const float *x, void *codes, int64_t n, int saturate);
    void (*decode)(gk_format fmt, const void *codes, float *y, int64_t n);
    /* One row of gk_mx_quantize / gk_mx_dequantize: ceil(cols / block) blocks. */
    void (*mx_quantize_row)(const gk_mx_elem *p, int rule, const float *x, int64_t cols,
                            int64_t block, uint8_t *codes, uint8_t *scales);
    void (*mx_dequantize_row)(const gk_mx_elem *p, const uint8_t *codes, const uint8_t *scales,
                              int64_t cols, int64_t block, float *y);
} gk_fmt_variant;

/* Best first, the generic one last (always usable). */
GK_HIDDEN extern const gk_fmt_variant gk_fmt_variants[];
GK_HIDDEN extern const int gk_fmt_variant_count;

/* The variant of the CPU kernel family a GEMM made now would use (cpuid, GEMMKIT_ARCH,
 * gk_set_arch), so GEMMKIT_ARCH=generic forces the portable loops here too. */
GK_HIDDEN const gk_fmt_variant *gk_fmt_variant_now(void);

#define GK_FMT_DECLARE(sfx)                                                                        \
    GK_HIDDEN void gk_fmt_encode_##sfx(gk_format, const float *, void *, int64_t, int);            \
    GK_HIDDEN void gk_fmt_decode_##sfx(gk_format, const void *, float *, int64_t);                 \
    GK_HIDDEN void gk_fmt_mx_quantize_row_##sfx(const gk_mx_elem *, int, const float *, int64_t,   \
                                                int64_t, uint8_t *, uint8_t *);                    \
    GK_HIDDEN void gk_fmt_mx_dequantize_row_##sfx(const gk_mx_elem *, const uint8_t *,             \
                                                  const uint8_t *, int64_t, int64_t, float *);
GK_FMT_DECLARE(generic)
#if defined(__x86_64__)
GK_FMT_DECLARE(avx2)
GK_FMT_DECLARE(avx512)
#endif

/* ---- the argument checks of the conversion entry points, shared by the CPU (formats.c) and the
 * GPU (src/cuda/formats/convert.cu) so both give the same statuses and messages ---- */

/* n (>= 0, n * max_bytes_per_elem addressable), then the two arrays (non-NULL when n > 0). */
GK_HIDDEN gk_status gk_fmt_check_n(const char *who, int64_t n, const void *a, const char *an,
                                   const void *b, const char *bn, int64_t max_bytes_per_elem);

/* Bytes spanned by a row-major rows x cols array of `size`-byte elements with row stride ld, or
 * -1 on overflow. */
static inline int64_t gk_fmt_row_span(int64_t rows, int64_t cols, int64_t ld, int64_t size) {
    return gk_span_bytes_of(cols, rows, ld, size);
}

/* One array operand of an MX call: `blocks` = 1 when its rows hold one entry per block (the
 * scales), else one per element. */
typedef struct gk_fmt_operand {
    const void *ptr;
    const char *name, *ldname;
    int64_t ld, size;
    int blocks;
} gk_fmt_operand;

/* The checks shared by quantize and dequantize: elem (its parameters into *p), rule (when
 * has_rule), sizes, then each operand in the caller's argument order: leading dimension, pointer,
 * extent. */
GK_HIDDEN gk_status gk_fmt_check_mx(const char *who, gk_format elem, int has_rule, int rule,
                                    gk_mx_elem *p, int64_t rows, int64_t cols, int64_t block,
                                    const gk_fmt_operand op[3]);

#ifdef __cplusplus
}
#endif

#endif
