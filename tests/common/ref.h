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
typedef struct {
    uint64_t s;
} t_rng;
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

/* ---- one checked GEMM problem -------------------------------------------------------------
 * t_gemm_data holds a problem's inputs laid out the way a careless kernel would trip over:
 * A and B are allocated to their exact span (so over-reads hit ASan or the next allocation), the
 * gaps between their rows/columns (ld > minimum) hold NaN (so reading them poisons the result),
 * and C sits between guard zones with every element outside the M x N block set to a
 * position-dependent NaN sentinel that must survive bit-identical. The float64 reference is
 * computed once at init, so a test can run many engine configurations on the same data. */

/* One problem in the caller's terms (gk_sgemm's arguments without the pointers). */
typedef struct t_gemm_case {
    gk_layout layout;
    gk_trans ta, tb;
    int64_t m, n, k;
    float alpha, beta;
    int64_t lda, ldb, ldc;
    int nan_c; /* fill C's block with NaN first; only meaningful with beta == 0 */
} t_gemm_case;

typedef struct t_gemm_data {
    t_gemm_case cs;
    float *a, *b;                /* the operands handed to the GEMM */
    float *a_copy, *b_copy;      /* to prove A and B were not written */
    float *c;                    /* the C handed to the GEMM, inside c_buf */
    float *c_buf, *c0_buf;       /* guard + C's span + guard, and its state before the call */
    int64_t a_len, b_len, c_len; /* elements of a, b, c_buf */
    double *r, *s;               /* reference and per-element scale (ref.h rule), m x n */
} t_gemm_data;

/* Smallest legal leading dimension for a stored rows x cols op-operand (BLAS: at least 1). */
int64_t t_min_ld(gk_layout layout, gk_trans t, int64_t op_rows, int64_t op_cols);

/* Format a case as "row-major TN m=.. n=.. k=.. lda=.. ldb=.. ldc=.. alpha=.. beta=..". */
void t_case_str(const t_gemm_case *cs, char *buf, size_t len);

/* Allocate and fill the data for `cs` from `rng` and compute the reference. Returns 0 on
 * success, -1 if memory ran out. */
int t_gemm_data_init(t_gemm_data *d, const t_gemm_case *cs, t_rng *rng);

/* Put C (block and sentinels) back to its state before the call, for another run. */
void t_gemm_data_reset_c(t_gemm_data *d);

/* Check a finished run: A and B bit-identical, everything of c_buf outside the M x N block
 * bit-identical, the block within the accuracy rule for operand roundoff u_in. Returns 0 when
 * all hold, else 1 with the first problem described in msg. */
int t_gemm_data_verify(const t_gemm_data *d, double u_in, char *msg, size_t msg_len);

void t_gemm_data_free(t_gemm_data *d);

#endif
