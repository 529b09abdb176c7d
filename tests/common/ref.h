/*
 * ref.h — float64 reference GEMM and the accuracy rule shared by CPU and GPU tests.
 *
 * Rule (docs/testing.md): element (i,j) passes when
 *   |C_ij - R_ij| <= ((K + 2) * FLT_EPSILON + 2 * u_in) * S_ij + FLT_MIN,
 *   S_ij = |alpha| * sum_k |op(A)_ik| |op(B)_kj| + |beta| |C0_ij|,
 * where u_in is the unit roundoff of the kernel's operand format (0 for FP32, 2^-11 for TF32).
 * The K-term bounds accumulated rounding of FP32 sums; NaN never passes.
 */
#ifndef GK_TEST_REF_H
#define GK_TEST_REF_H

#include <stdint.h>

#include "gemmkit.h"

/* Deterministic xorshift generator so failures reproduce from the printed seed. */
typedef struct { uint64_t s; } t_rng;
static inline uint64_t t_rng_next(t_rng *r) {
    r->s ^= r->s << 13, r->s ^= r->s >> 7, r->s ^= r->s << 17;
    return r->s;
}
/* Uniform in [-1, 1). */
static inline float t_rng_float(t_rng *r) {
    return (float)((double)(t_rng_next(r) >> 11) * (2.0 / 9007199254740992.0) - 1.0);
}
static inline int64_t t_rng_range(t_rng *r, int64_t lo, int64_t hi) { /* inclusive */
    return lo + (int64_t)(t_rng_next(r) % (uint64_t)(hi - lo + 1));
}

void t_fill_random(float *x, int64_t count, t_rng *r);

/* Reference: writes R (column-major m x n, leading dim m) = alpha op(A) op(B) + beta C0 in double,
 * and S, the per-element scale of the rule above. The arguments are those of gk_sgemm; C0 is read
 * only when beta != 0 (BLAS semantics). */
void t_ref_sgemm(gk_layout layout, gk_trans ta, gk_trans tb, int64_t m, int64_t n, int64_t k,
                 float alpha, const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                 const float *c0, int64_t ldc, double *r, double *s);

/* Compare C (caller's layout, ldc) against R/S. Returns the number of failing elements and writes
 * a description of the worst one into msg. */
int64_t t_compare(gk_layout layout, int64_t m, int64_t n, const float *c, int64_t ldc,
                  const double *r, const double *s, int64_t k, double u_in, char *msg,
                  size_t msg_len);

#endif
