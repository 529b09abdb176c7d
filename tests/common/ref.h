/*
 * ref.h — what the C tests add to the harness (harness/harness.h: seeded generator, float64
 * reference, the accuracy rule of docs/testing.md): the tests' short names for those, and
 * t_gemm_data, one checked problem with guard zones and NaN sentinels shared by the CPU and GPU
 * tests.
 */
#ifndef GK_TEST_REF_H
#define GK_TEST_REF_H

#include <stddef.h>
#include <stdint.h>

#include "gemmkit.h"
#include "harness/harness.h"

/* The harness's xorshift generator: failures reproduce from the printed seed. */
typedef gkh_rng t_rng;
#define t_rng_next gkh_rng_next
#define t_rng_float gkh_rng_float /* uniform in [-1, 1) */
#define t_fill_random gkh_fill
/* R and S (column-major m x n) of the rule, and the comparison against them (harness.h). */
#define t_ref_sgemm gkh_ref_gemm
#define t_compare gkh_compare

static inline int64_t t_rng_range(t_rng *r, int64_t lo, int64_t hi) { /* inclusive */
    return lo + (int64_t)(t_rng_next(r) % (uint64_t)(hi - lo + 1));
}

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
