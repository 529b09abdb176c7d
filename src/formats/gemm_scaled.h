/*
 * gemm_scaled.h — the checks of the block-scaled GEMM (gk_gemm_scaled, gk_cuda_gemm_scaled;
 * include/gemmkit.h, above gk_scaling) that do not depend on where the data live, so the CPU and
 * GPU entry points give the same status and message for the same mistake. Defined in
 * gemm_scaled_check.c.
 */
#ifndef GK_FORMATS_GEMM_SCALED_H
#define GK_FORMATS_GEMM_SCALED_H

#include "core/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* scaling (GK_ERR_INVALID_VALUE), then atype, btype, ctype: a value outside gk_format is
 * GK_ERR_INVALID_VALUE; an operand format the scaling does not take, an E5M2 x E5M2 pair with
 * BLOCK128, or a ctype other than F32/BF16/F16 is GK_ERR_UNSUPPORTED. Values are taken as ints
 * (a caller's out-of-range value must not be held in the enum type under C++). */
GK_HIDDEN gk_status gk_check_scaled_formats(const char *who, int scaling, int atype, int btype,
                                            int ctype);

/* The scale arrays of a call that reads A and B (m, n > 0, k > 0, alpha != 0): a NULL a_scale
 * or b_scale is GK_ERR_INVALID_POINTER; an array whose extent in bytes overflows is
 * GK_ERR_OVERFLOW. m, n, k as the caller gave them. */
GK_HIDDEN gk_status gk_check_scale_arrays(const char *who, gk_scaling scaling, int64_t m, int64_t n,
                                          int64_t k, const void *a_scale, const void *b_scale);

/* Scale blocks per row of K: ceil(k / group). */
GK_HIDDEN int64_t gk_scaled_blocks(int64_t k, int64_t group);

#ifdef __cplusplus
}
#endif

#endif
