/*
 * refcheck.c — sampled float64 verification for the CLI commands (see refcheck.h for the rule).
 * Sampling keeps verification of 4096^3 problems to ~1000 dot products of length K.
 */
#include "refcheck.h"

#include <float.h>
#include <math.h>

uint64_t rc_next(uint64_t *s) {
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

void rc_fill(float *x, int64_t count, uint64_t *state) {
    for (int64_t i = 0; i < count; i++)
        x[i] = (float)((double)(rc_next(state) >> 11) * (2.0 / 9007199254740992.0) - 1.0);
}

/* Element (r, c) of a stored matrix in the caller's layout. */
static double at(const float *x, int64_t ld, int row_major, int64_t r, int64_t c) {
    return row_major ? x[r * ld + c] : x[r + c * ld];
}

int64_t rc_extent(gk_layout layout, int64_t rows, int64_t cols, int64_t ld) {
    if (rows == 0 || cols == 0) return 0;
    return layout == GK_ROW_MAJOR ? (rows - 1) * ld + cols : (cols - 1) * ld + rows;
}

void rc_ref_element(gk_layout layout, int ta, int tb, int64_t i, int64_t j, int64_t k, float alpha,
                    const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                    const float *c0, int64_t ldc, double *want, double *scale) {
    const int row = layout == GK_ROW_MAJOR;
    double sum = 0.0, abs_sum = 0.0;
    if (alpha != 0.0f)
        for (int64_t p = 0; p < k; p++) {
            double prod = (ta ? at(a, lda, row, p, i) : at(a, lda, row, i, p)) *
                          (tb ? at(b, ldb, row, j, p) : at(b, ldb, row, p, j));
            sum += prod;
            abs_sum += fabs(prod);
        }
    *want = (double)alpha * sum, *scale = fabs((double)alpha) * abs_sum;
    if (beta != 0.0f) {
        double old = at(c0, ldc, row, i, j);
        *want += (double)beta * old;
        *scale += fabs((double)beta * old);
    }
}

static void check_one(gk_layout layout, int ta, int tb, int64_t i, int64_t j, int64_t k,
                      float alpha, const float *a, int64_t lda, const float *b, int64_t ldb,
                      float beta, const float *c0, const float *c, int64_t ldc, double unit,
                      rc_result *out) {
    const int row = layout == GK_ROW_MAJOR;
    double want, scale;
    rc_ref_element(layout, ta, tb, i, j, k, alpha, a, lda, b, ldb, beta, c0, ldc, &want, &scale);
    double got = at(c, ldc, row, i, j);
    double err = fabs(got - want);
    double ratio = isnan(err) ? INFINITY : err / (unit * scale + FLT_MIN);
    out->checked++;
    if (!(ratio <= 1.0)) out->failed++;
    if (ratio > out->max_ratio || out->checked == 1) {
        out->max_ratio = ratio;
        out->worst_i = i, out->worst_j = j;
        out->worst_got = got, out->worst_want = want;
    }
}

void rc_check(gk_layout layout, gk_trans ta, gk_trans tb, int64_t m, int64_t n, int64_t k,
              float alpha, const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
              const float *c0, const float *c, int64_t ldc, double u_in, int64_t samples,
              uint64_t seed, rc_result *out) {
    *out = (rc_result){0};
    const double unit = (double)(k + 2) * FLT_EPSILON + 2.0 * u_in;
    const int ta1 = ta != GK_NO_TRANS, tb1 = tb != GK_NO_TRANS;
    if (m == 0 || n == 0) return;
    if (m * n <= samples) {
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++)
                check_one(layout, ta1, tb1, i, j, k, alpha, a, lda, b, ldb, beta, c0, c, ldc, unit,
                          out);
        return;
    }
    /* The four corners first: edge tiles are where blocked kernels usually go wrong. */
    const int64_t ci[4] = {0, m - 1, 0, m - 1}, cj[4] = {0, 0, n - 1, n - 1};
    uint64_t s = seed | 1;
    for (int64_t t = 0; t < samples; t++) {
        int64_t i = t < 4 ? ci[t] : (int64_t)(rc_next(&s) % (uint64_t)m);
        int64_t j = t < 4 ? cj[t] : (int64_t)(rc_next(&s) % (uint64_t)n);
        check_one(layout, ta1, tb1, i, j, k, alpha, a, lda, b, ldb, beta, c0, c, ldc, unit, out);
    }
}
