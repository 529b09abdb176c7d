/*
 * ref.c — random fill, the float64 reference and the comparisons of harness.h. Products of two
 * floats are exact in double, so the reference's own error is that of a float64 sum, far below
 * the rule's bound (docs/testing.md).
 */
#include "harness.h"

#include <math.h>
#include <stdio.h>

void gkh_fill(float *x, int64_t count, gkh_rng *r) {
    for (int64_t i = 0; i < count; i++)
        x[i] = gkh_rng_float(r);
}

/* Element (r, c) of a stored matrix in the caller's layout. */
static double at(const float *x, int64_t ld, int row_major, int64_t r, int64_t c) {
    return row_major ? x[r * ld + c] : x[r + c * ld];
}

int64_t gkh_extent(gk_layout layout, int64_t rows, int64_t cols, int64_t ld) {
    if (rows == 0 || cols == 0) return 0;
    return layout == GK_ROW_MAJOR ? (rows - 1) * ld + cols : (cols - 1) * ld + rows;
}

void gkh_ref_element(gk_layout layout, int ta, int tb, int64_t i, int64_t j, int64_t k, float alpha,
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

void gkh_ref_gemm(gk_layout layout, gk_trans ta, gk_trans tb, int64_t m, int64_t n, int64_t k,
                  float alpha, const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                  const float *c0, int64_t ldc, double *r, double *s) {
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++)
            gkh_ref_element(layout, ta != GK_NO_TRANS, tb != GK_NO_TRANS, i, j, k, alpha, a, lda, b,
                            ldb, beta, c0, ldc, &r[i + j * m], &s[i + j * m]);
}

int64_t gkh_compare(gk_layout layout, int64_t m, int64_t n, const float *c, int64_t ldc,
                    const double *r, const double *s, int64_t k, double u_in, char *msg,
                    size_t msg_len) {
    int64_t bad = 0;
    double worst = -1.0;
    if (msg_len) msg[0] = '\0';
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double got = layout == GK_COL_MAJOR ? c[i + j * ldc] : c[i * ldc + j];
            double want = r[i + j * m];
            double err = fabs(got - want);
            double bound = gkh_bound(k, u_in, s[i + j * m]);
            if (!(err <= bound)) { /* also catches NaN */
                bad++;
                double ratio = isnan(err) ? INFINITY : err / bound;
                if (ratio > worst) {
                    worst = ratio;
                    if (msg_len)
                        snprintf(
                            msg, msg_len,
                            "%lld bad; worst C(%lld,%lld)=%.9g want %.9g (err %.3g > bound %.3g)",
                            (long long)bad, (long long)i, (long long)j, got, want, err, bound);
                }
            }
        }
    if (bad && msg_len) {
        /* the count in the message is the one at the worst element's time: refresh it */
        char tail[400];
        const char *p = msg;
        while (*p && *p != ';')
            p++;
        snprintf(tail, sizeof tail, "%s", p);
        snprintf(msg, msg_len, "%lld bad%s", (long long)bad, tail);
    }
    return bad;
}

int64_t gkh_check_samples(int64_t m, int64_t n, int64_t k) {
    return (double)m * (double)n * (double)k <= (double)(1 << 27) ? m * n : 1000;
}

static void check_one(gk_layout layout, int ta, int tb, int64_t i, int64_t j, int64_t k,
                      float alpha, const float *a, int64_t lda, const float *b, int64_t ldb,
                      float beta, const float *c0, const float *c, int64_t ldc, double u_in,
                      gkh_check_result *out) {
    const int row = layout == GK_ROW_MAJOR;
    double want, scale;
    gkh_ref_element(layout, ta, tb, i, j, k, alpha, a, lda, b, ldb, beta, c0, ldc, &want, &scale);
    double got = at(c, ldc, row, i, j);
    double err = fabs(got - want);
    double ratio = isnan(err) ? INFINITY : err / gkh_bound(k, u_in, scale);
    out->checked++;
    if (!(ratio <= 1.0)) out->failed++;
    if (ratio > out->max_ratio || out->checked == 1) {
        out->max_ratio = ratio;
        out->worst_i = i, out->worst_j = j;
        out->worst_got = got, out->worst_want = want;
    }
}

void gkh_check_sampled(gk_layout layout, gk_trans ta, gk_trans tb, int64_t m, int64_t n, int64_t k,
                       float alpha, const float *a, int64_t lda, const float *b, int64_t ldb,
                       float beta, const float *c0, const float *c, int64_t ldc, double u_in,
                       int64_t samples, uint64_t seed, gkh_check_result *out) {
    *out = (gkh_check_result){0};
    const int ta1 = ta != GK_NO_TRANS, tb1 = tb != GK_NO_TRANS;
    if (m == 0 || n == 0) return;
    if (m * n <= samples) {
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++)
                check_one(layout, ta1, tb1, i, j, k, alpha, a, lda, b, ldb, beta, c0, c, ldc, u_in,
                          out);
        return;
    }
    const int64_t ci[4] = {0, m - 1, 0, m - 1}, cj[4] = {0, 0, n - 1, n - 1};
    gkh_rng rng = {seed | 1};
    for (int64_t t = 0; t < samples; t++) {
        int64_t i = t < 4 ? ci[t] : (int64_t)(gkh_rng_next(&rng) % (uint64_t)m);
        int64_t j = t < 4 ? cj[t] : (int64_t)(gkh_rng_next(&rng) % (uint64_t)n);
        check_one(layout, ta1, tb1, i, j, k, alpha, a, lda, b, ldb, beta, c0, c, ldc, u_in, out);
    }
}
