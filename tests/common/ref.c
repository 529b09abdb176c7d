/*
 * ref.c — the float64 reference and comparison used by all GEMM tests (see ref.h for the rule).
 */
#include "ref.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

void t_fill_random(float *x, int64_t count, t_rng *r) {
    for (int64_t i = 0; i < count; i++) x[i] = t_rng_float(r);
}

/* Element (i, j) of op(X) for a matrix stored in `layout` with leading dimension ld. */
static double at(gk_layout layout, gk_trans t, const float *x, int64_t ld, int64_t i, int64_t j) {
    if (t != GK_NO_TRANS) {
        int64_t tmp = i;
        i = j, j = tmp;
    }
    return layout == GK_COL_MAJOR ? x[i + j * ld] : x[i * ld + j];
}

void t_ref_sgemm(gk_layout layout, gk_trans ta, gk_trans tb, int64_t m, int64_t n, int64_t k,
                 float alpha, const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                 const float *c0, int64_t ldc, double *r, double *s) {
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double acc = 0.0, mag = 0.0;
            if (alpha != 0.0f)
                for (int64_t p = 0; p < k; p++) {
                    double prod = at(layout, ta, a, lda, i, p) * at(layout, tb, b, ldb, p, j);
                    acc += prod;
                    mag += fabs(prod);
                }
            double cv = 0.0;
            if (beta != 0.0f) cv = layout == GK_COL_MAJOR ? c0[i + j * ldc] : c0[i * ldc + j];
            r[i + j * m] = (double)alpha * acc + (double)beta * cv;
            s[i + j * m] = fabs((double)alpha) * mag + fabs((double)beta * cv);
        }
}

int64_t t_compare(gk_layout layout, int64_t m, int64_t n, const float *c, int64_t ldc,
                  const double *r, const double *s, int64_t k, double u_in, char *msg,
                  size_t msg_len) {
    int64_t bad = 0;
    double worst = -1.0;
    const double unit = (double)(k + 2) * FLT_EPSILON + 2.0 * u_in;
    if (msg_len) msg[0] = '\0';
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double got = layout == GK_COL_MAJOR ? c[i + j * ldc] : c[i * ldc + j];
            double want = r[i + j * m];
            double err = fabs(got - want);
            double bound = unit * s[i + j * m] + FLT_MIN;
            if (!(err <= bound)) { /* also catches NaN */
                bad++;
                double ratio = isnan(err) ? INFINITY : err / bound;
                if (ratio > worst) {
                    worst = ratio;
                    if (msg_len)
                        snprintf(msg, msg_len,
                                 "%lld bad; worst C(%lld,%lld)=%.9g want %.9g (err %.3g > bound %.3g)",
                                 (long long)bad, (long long)i, (long long)j, got, want, err, bound);
                }
            }
        }
    if (bad && msg_len) {
        /* refresh the count in the message */
        char tail[400];
        const char *p = msg;
        while (*p && *p != ';') p++;
        snprintf(tail, sizeof tail, "%s", p);
        snprintf(msg, msg_len, "%lld bad%s", (long long)bad, tail);
    }
    return bad;
}
