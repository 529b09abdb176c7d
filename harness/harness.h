/*
 * harness.h — the measuring and checking tools shared by the CLI (tools/), the benchmarks
 * (bench/) and the C tests (tests/): a seeded generator and random fill, the float64 reference
 * GEMM (whole matrix, or element by element for a sampled check of large shapes), comparison
 * under the accuracy rule (rule.h), a monotonic clock and median, and output helpers (directory
 * creation, JSON strings). GPU counterparts (L2 flush, event timing, a float64 reference on the
 * device) are in gpu.h. The harness depends on the public API (gemmkit.h) only.
 */
#ifndef GK_HARNESS_H
#define GK_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "gemmkit.h"
#include "rule.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- random data ------------------------------------------------------------------------------
 * xorshift64: deterministic, so a run's data and a failure reproduce from the printed seed. */
typedef struct gkh_rng {
    uint64_t s; /* state; never 0 */
} gkh_rng;

static inline uint64_t gkh_rng_next(gkh_rng *r) {
    r->s ^= r->s << 13, r->s ^= r->s >> 7, r->s ^= r->s << 17;
    return r->s;
}
/* Uniform in [-1, 1): never a zero-heavy pattern that would hide indexing mistakes. */
static inline float gkh_rng_float(gkh_rng *r) {
    return (float)((double)(gkh_rng_next(r) >> 11) * (2.0 / 9007199254740992.0) - 1.0);
}
void gkh_fill(float *x, int64_t count, gkh_rng *r);

/* ---- float64 reference --------------------------------------------------------------------- */

/* Elements a stored rows x cols matrix with leading dimension ld spans in `layout`. */
int64_t gkh_extent(gk_layout layout, int64_t rows, int64_t cols, int64_t ld);

/* Element (i, j) of alpha op(A) op(B) + beta C0 in float64 (*want) and its scale S_ij (*scale),
 * for gk_sgemm-style arguments; ta/tb: 1 if transposed. A and B are not read when alpha == 0,
 * nor C0 when beta == 0 (BLAS semantics: NaN there must not matter). */
void gkh_ref_element(gk_layout layout, int ta, int tb, int64_t i, int64_t j, int64_t k, float alpha,
                     const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                     const float *c0, int64_t ldc, double *want, double *scale);

/* The whole reference: R and S as column-major m x n arrays with leading dimension m. */
void gkh_ref_gemm(gk_layout layout, gk_trans ta, gk_trans tb, int64_t m, int64_t n, int64_t k,
                  float alpha, const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                  const float *c0, int64_t ldc, double *r, double *s);

/* Compare C (stored in `layout`, ldc) with gkh_ref_gemm's R and S. Returns the number of elements
 * outside the bound and describes the worst of them in msg ("" when none). */
int64_t gkh_compare(gk_layout layout, int64_t m, int64_t n, const float *c, int64_t ldc,
                    const double *r, const double *s, int64_t k, double u_in, char *msg,
                    size_t msg_len);

/* ---- sampled check of large results ---------------------------------------------------------
 * Verifying a 4096^3 result in full costs as much as the GEMM in float64; ~1000 dot products of
 * length K, the four corners first (edge tiles are where blocked kernels usually go wrong), find
 * any systematic mistake in milliseconds. */
typedef struct gkh_check_result {
    int64_t checked;  /* elements compared */
    int64_t failed;   /* elements outside the bound (NaN counts) */
    double max_ratio; /* worst |error| / bound; <= 1 passes, +inf for NaN */
    int64_t worst_i, worst_j;
    double worst_got, worst_want;
} gkh_check_result;

/* Elements to check for an m x n x k product: all of them up to 2^27 multiply-adds, else 1000. */
int64_t gkh_check_samples(int64_t m, int64_t n, int64_t k);

/* Compare C (after the call) against float64 at `samples` elements drawn from `seed`, or at every
 * element when m * n <= samples. c0 is C before the call; it is read only when beta != 0. */
void gkh_check_sampled(gk_layout layout, gk_trans ta, gk_trans tb, int64_t m, int64_t n, int64_t k,
                       float alpha, const float *a, int64_t lda, const float *b, int64_t ldb,
                       float beta, const float *c0, const float *c, int64_t ldc, double u_in,
                       int64_t samples, uint64_t seed, gkh_check_result *out);

/* ---- timing ---------------------------------------------------------------------------------- */

/* Monotonic wall clock in seconds. */
double gkh_now(void);

/* Median of v[0..n-1], n >= 1; sorts v ascending, so v[0] is then the best. */
double gkh_median(double *v, int n);

/* ---- output ---------------------------------------------------------------------------------- */

/* mkdir -p: 0 on success, -1 with errno set. */
int gkh_mkdirs(const char *path);

/* s as a JSON string literal (quotes, backslashes escaped, control characters dropped) in out;
 * a capacity of 2 * strlen(s) + 3 always suffices, a smaller one truncates. Returns out. */
char *gkh_json_quote(char *out, size_t cap, const char *s);

#ifdef __cplusplus
}
#endif

#endif
