/*
 * internal.h — helpers shared by every backend: recording the per-thread error message and
 * validating GEMM arguments identically for the CPU and CUDA entry points.
 */
#ifndef GK_CORE_INTERNAL_H
#define GK_CORE_INTERNAL_H

#include "gemmkit.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define GK_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define GK_HIDDEN __attribute__((visibility("hidden")))
#else
#define GK_PRINTF(f, a)
#define GK_HIDDEN
#endif

/* Record `status` with a printf-style detail message for gk_last_error(); returns `status` so
 * callers can `return gk_fail(...)`. */
GK_HIDDEN gk_status gk_fail(gk_status status, const char *fmt, ...) GK_PRINTF(2, 3);

/* Clear the calling thread's message at the start of a public call. */
GK_HIDDEN void gk_clear_error(void);

/* A GEMM problem after validation, normalised to column-major: C (m x n, ldc) =
 * alpha * op(A) * op(B) + beta * C where transa/transb are 0/1 and lda/ldb refer to the stored
 * (column-major) matrices. A row-major problem is the column-major problem C^T = op(B)^T op(A)^T,
 * so the normalisation swaps A/B and m/n; it never copies data. */
typedef struct gk_gemm_args {
    int64_t m, n, k;
    int transa, transb; /* 1: the stored matrix is op()'s transpose */
    float alpha, beta;
    const float *a, *b;
    float *c;
    int64_t lda, ldb, ldc;
} gk_gemm_args;

/* Check every argument in the fixed order layout, transa, transb, m, n, k, lda, ldb, ldc,
 * pointers, byte overflow; on success fill `out` (column-major normalised). On failure return the
 * status with a message naming the argument (as the caller named it, e.g. "lda") and leave `out`
 * unspecified. `who` prefixes the message ("gk_sgemm"). */
GK_HIDDEN gk_status gk_check_gemm(const char *who, gk_layout layout, gk_trans transa,
                                  gk_trans transb, int64_t m, int64_t n, int64_t k, float alpha,
                                  const float *a, int64_t lda, const float *b, int64_t ldb,
                                  float beta, float *c, int64_t ldc, gk_gemm_args *out);

/* 1 when the call reduces to C = beta * C (or nothing), so A and B are never read. */
static inline int gk_gemm_is_scale_only(const gk_gemm_args *g) {
    return g->k == 0 || g->alpha == 0.0f;
}

#ifdef __cplusplus
}
#endif

#endif
