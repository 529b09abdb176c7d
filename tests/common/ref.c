/*
 * ref.c — t_gemm_data (ref.h): a checked problem with guard zones and NaN sentinels, its data and
 * float64 reference from the harness (harness/harness.h).
 */
#include "ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Guard elements before and after C's span: out-of-range writes land here and are detected. */
enum { T_GUARD = 64 };

/* Sentinels are quiet NaNs whose payload encodes the position, so a value moved or written
 * out of place never matches; gaps of A and B use plain NaN. */
static float sentinel(int64_t idx) {
    uint32_t bits = 0x7fc00000u | (uint32_t)(idx & 0x3fffff);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

int64_t t_min_ld(gk_layout layout, gk_trans t, int64_t op_rows, int64_t op_cols) {
    int64_t rows = t == GK_NO_TRANS ? op_rows : op_cols;
    int64_t cols = t == GK_NO_TRANS ? op_cols : op_rows;
    int64_t need = layout == GK_COL_MAJOR ? rows : cols;
    return need > 1 ? need : 1;
}

/* Whether buffer index idx of a stored rows x cols matrix is one of its elements rather than a
 * gap: "inner" is the contiguous extent (rows in column-major). */
static int in_matrix(gk_layout layout, int64_t rows, int64_t cols, int64_t ld, int64_t idx) {
    int64_t inner = layout == GK_COL_MAJOR ? rows : cols;
    return idx >= 0 && idx < gkh_extent(layout, rows, cols, ld) && idx % ld < inner;
}

static const char *trans_str(gk_trans t) {
    return t == GK_NO_TRANS ? "N" : t == GK_TRANS ? "T" : t == GK_CONJ_TRANS ? "C" : "?";
}

void t_case_str(const t_gemm_case *cs, char *buf, size_t len) {
    snprintf(buf, len, "%s %s%s m=%lld n=%lld k=%lld lda=%lld ldb=%lld ldc=%lld alpha=%g beta=%g%s",
             cs->layout == GK_COL_MAJOR ? "col-major" : "row-major", trans_str(cs->ta),
             trans_str(cs->tb), (long long)cs->m, (long long)cs->n, (long long)cs->k,
             (long long)cs->lda, (long long)cs->ldb, (long long)cs->ldc, cs->alpha, cs->beta,
             cs->nan_c ? " C=NaN" : "");
}

/* A stored operand: random elements, NaN gaps; at least one element so the pointer is valid. */
static float *operand(gk_layout layout, gk_trans t, int64_t op_rows, int64_t op_cols, int64_t ld,
                      int64_t *len, t_rng *rng) {
    int64_t rows = t == GK_NO_TRANS ? op_rows : op_cols;
    int64_t cols = t == GK_NO_TRANS ? op_cols : op_rows;
    int64_t n = gkh_extent(layout, rows, cols, ld);
    *len = n > 0 ? n : 1;
    float *x = malloc((size_t)*len * sizeof *x);
    if (!x) return NULL;
    for (int64_t i = 0; i < *len; i++)
        x[i] = in_matrix(layout, rows, cols, ld, i) ? t_rng_float(rng) : NAN;
    return x;
}

int t_gemm_data_init(t_gemm_data *d, const t_gemm_case *cs, t_rng *rng) {
    memset(d, 0, sizeof *d);
    d->cs = *cs;
    d->a = operand(cs->layout, cs->ta, cs->m, cs->k, cs->lda, &d->a_len, rng);
    d->b = operand(cs->layout, cs->tb, cs->k, cs->n, cs->ldb, &d->b_len, rng);
    d->c_len = gkh_extent(cs->layout, cs->m, cs->n, cs->ldc) + 2 * T_GUARD;
    d->c_buf = malloc((size_t)d->c_len * sizeof(float));
    d->c0_buf = malloc((size_t)d->c_len * sizeof(float));
    d->a_copy = malloc((size_t)d->a_len * sizeof(float));
    d->b_copy = malloc((size_t)d->b_len * sizeof(float));
    size_t mn = (size_t)(cs->m * cs->n > 0 ? cs->m * cs->n : 1);
    d->r = malloc(mn * sizeof(double));
    d->s = malloc(mn * sizeof(double));
    if (!d->a || !d->b || !d->c_buf || !d->c0_buf || !d->a_copy || !d->b_copy || !d->r || !d->s) {
        t_gemm_data_free(d);
        return -1;
    }
    memcpy(d->a_copy, d->a, (size_t)d->a_len * sizeof(float));
    memcpy(d->b_copy, d->b, (size_t)d->b_len * sizeof(float));
    for (int64_t i = 0; i < d->c_len; i++) {
        int inside = in_matrix(cs->layout, cs->m, cs->n, cs->ldc, i - T_GUARD);
        d->c0_buf[i] = !inside ? sentinel(i) : cs->nan_c ? NAN : t_rng_float(rng);
    }
    d->c = d->c_buf + T_GUARD;
    t_gemm_data_reset_c(d);
    t_ref_sgemm(cs->layout, cs->ta, cs->tb, cs->m, cs->n, cs->k, cs->alpha, d->a, cs->lda, d->b,
                cs->ldb, cs->beta, d->c0_buf + T_GUARD, cs->ldc, d->r, d->s);
    return 0;
}

void t_gemm_data_reset_c(t_gemm_data *d) {
    memcpy(d->c_buf, d->c0_buf, (size_t)d->c_len * sizeof(float));
}

int t_gemm_data_verify(const t_gemm_data *d, double u_in, char *msg, size_t msg_len) {
    const t_gemm_case *cs = &d->cs;
    if (memcmp(d->a, d->a_copy, (size_t)d->a_len * sizeof(float))) {
        snprintf(msg, msg_len, "A was modified");
        return 1;
    }
    if (memcmp(d->b, d->b_copy, (size_t)d->b_len * sizeof(float))) {
        snprintf(msg, msg_len, "B was modified");
        return 1;
    }
    for (int64_t i = 0; i < d->c_len; i++) {
        if (in_matrix(cs->layout, cs->m, cs->n, cs->ldc, i - T_GUARD)) continue;
        if (memcmp(&d->c_buf[i], &d->c0_buf[i], sizeof(float))) {
            snprintf(msg, msg_len, "wrote outside C's block at offset %lld from c (now %g)",
                     (long long)(i - T_GUARD), d->c_buf[i]);
            return 1;
        }
    }
    return t_compare(cs->layout, cs->m, cs->n, d->c, cs->ldc, d->r, d->s, cs->k, u_in, msg,
                     msg_len) != 0;
}

void t_gemm_data_free(t_gemm_data *d) {
    free(d->a), free(d->b), free(d->a_copy), free(d->b_copy);
    free(d->c_buf), free(d->c0_buf), free(d->r), free(d->s);
    memset(d, 0, sizeof *d);
}
