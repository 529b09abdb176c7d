/*
 * refcheck.h — float64 spot check of an SGEMM result for the CLI (`gemmkit run`, `gemmkit bench`),
 * and the float64 element reference it shares with the test suite (tests/common/ref.c builds its
 * full reference from rc_ref_element). The CLI checks a random sample of elements so multi-GFLOP
 * shapes verify in milliseconds, with the tests' accuracy rule:
 *   |C_ij - R_ij| <= ((K + 2) * FLT_EPSILON + 2 * u_in) * S_ij + FLT_MIN,
 *   S_ij = |alpha| * sum_k |op(A)_ik op(B)_kj| + |beta C0_ij|.
 */
#ifndef GK_TOOLS_REFCHECK_H
#define GK_TOOLS_REFCHECK_H

#include <stdint.h>

#include "gemmkit.h"

typedef struct rc_result {
    int64_t checked;  /* elements compared */
    int64_t failed;   /* elements outside the bound (NaN counts) */
    double max_ratio; /* worst |error| / bound; <= 1 passes, +inf for NaN */
    int64_t worst_i, worst_j;
    double worst_got, worst_want;
} rc_result;

/* Deterministic generator (xorshift64) so a run's data reproduce from its seed. */
uint64_t rc_next(uint64_t *state);
/* Fill count floats with uniform values in [-1, 1). */
void rc_fill(float *x, int64_t count, uint64_t *state);

/* Compare C (after the call) against the float64 result of the gk_sgemm-style arguments at
 * `samples` random elements, or at every element when m * n <= samples. c0 is C before the call;
 * it is read only when beta != 0. */
void rc_check(gk_layout layout, gk_trans ta, gk_trans tb, int64_t m, int64_t n, int64_t k,
              float alpha, const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
              const float *c0, const float *c, int64_t ldc, double u_in, int64_t samples,
              uint64_t seed, rc_result *out);

/* Elements a stored rows x cols matrix with leading dimension ld occupies in `layout`. */
int64_t rc_extent(gk_layout layout, int64_t rows, int64_t cols, int64_t ld);

/* Element (i, j) of alpha op(A) op(B) + beta C0 in float64 (*want) and its scale S_ij of the rule
 * above (*scale), for matrices stored in `layout`; ta/tb: 1 if transposed. A and B are not read
 * when alpha == 0, nor C0 when beta == 0 (BLAS semantics: NaN there must not matter). */
void rc_ref_element(gk_layout layout, int ta, int tb, int64_t i, int64_t j, int64_t k, float alpha,
                    const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                    const float *c0, int64_t ldc, double *want, double *scale);

#endif
