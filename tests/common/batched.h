/*
 * batched.h — the batched SGEMM cases shared by the CPU test (tests/cpu/test_sgemm_batched.c) and
 * the GPU test (tests/cuda/test_cuda_batched.cu): a random batch in host memory laid out as a
 * strided call sees it (A and B items `stride` apart, gaps random, C's gaps NaN sentinels), the
 * float64 reference of every item (ref.h's rule, bound scaled by K) and the check that C outside
 * the items kept its bits. The pointer-array form of a batch takes the A and B items in a shuffled
 * order (perm), so a kernel that ignored the arrays and assumed strides would fail. Header-only (C
 * and CUDA C++).
 */
#ifndef GK_TEST_BATCHED_H
#define GK_TEST_BATCHED_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"

/* An argument error of a batched call: its status and a message naming `word` (check.h's T_CHECK
 * reports the call otherwise). */
#define TB_EXPECT(call, want, word)                                                                \
    do {                                                                                           \
        const gk_status s_ = (call);                                                               \
        T_CHECK(s_ == (want) && strstr(gk_last_error(), (word)) != NULL,                           \
                "%s: status %d (want %d), message \"%s\" (want \"%s\")", #call, (int)s_,           \
                (int)(want), gk_last_error(), (word));                                             \
    } while (0)

typedef struct tb_case {
    gk_layout layout;
    gk_trans ta, tb;
    int64_t m, n, k;
    float alpha, beta;
    int64_t lda, ldb, ldc;
    int64_t sa, sb, sc; /* strides in elements */
    int64_t batch;
} tb_case;

typedef struct tb_data {
    tb_case cs;
    float *a, *b, *c, *c0; /* host buffers; c0: C before the call */
    int64_t a_len, b_len, c_len;
    int64_t *perm;          /* pointer-array order: item i reads A and B item perm[i] */
    unsigned char *in_item; /* c_len flags: element of some C item's m x n block */
} tb_data;

static inline int64_t tb_extent(gk_layout layout, gk_trans t, int64_t op_rows, int64_t op_cols,
                                int64_t ld) {
    const int64_t rows = t == GK_NO_TRANS ? op_rows : op_cols;
    const int64_t cols = t == GK_NO_TRANS ? op_cols : op_rows;
    return gkh_extent(layout, rows, cols, ld);
}

static inline void tb_str(const tb_case *c, char *buf, size_t len) {
    snprintf(buf, len,
             "%s %c%c m=%lld n=%lld k=%lld lda=%lld ldb=%lld ldc=%lld sa=%lld sb=%lld sc=%lld "
             "batch=%lld alpha=%g beta=%g",
             c->layout == GK_ROW_MAJOR ? "row" : "col", c->ta == GK_NO_TRANS ? 'N' : 'T',
             c->tb == GK_NO_TRANS ? 'N' : 'T', (long long)c->m, (long long)c->n, (long long)c->k,
             (long long)c->lda, (long long)c->ldb, (long long)c->ldc, (long long)c->sa,
             (long long)c->sb, (long long)c->sc, (long long)c->batch, c->alpha, c->beta);
}

/* A random case: small and odd sizes (0 sometimes), either layout and transposition, padded
 * leading dimensions, strides 0 (broadcast A or B) or an item's extent plus a gap, C items apart
 * or exactly adjacent. max_dim bounds m, n, k. */
static inline tb_case tb_random(t_rng *r, int64_t max_dim, int64_t max_batch) {
    tb_case c;
    c.layout = t_rng_range(r, 0, 1) ? GK_ROW_MAJOR : GK_COL_MAJOR;
    c.ta = t_rng_range(r, 0, 1) ? GK_TRANS : GK_NO_TRANS;
    c.tb = t_rng_range(r, 0, 1) ? GK_TRANS : GK_NO_TRANS;
    c.m = t_rng_range(r, 0, 12) == 0 ? 0 : t_rng_range(r, 1, max_dim);
    c.n = t_rng_range(r, 0, 12) == 0 ? 0 : t_rng_range(r, 1, max_dim);
    c.k = t_rng_range(r, 0, 12) == 0 ? 0 : t_rng_range(r, 1, max_dim);
    static const float alphas[] = {1.0f, -0.5f, 0.0f, 2.0f}, betas[] = {0.0f, 1.0f, 0.5f, -1.0f};
    c.alpha = alphas[t_rng_range(r, 0, 3)];
    c.beta = betas[t_rng_range(r, 0, 3)];
    c.lda = t_min_ld(c.layout, c.ta, c.m, c.k) + (t_rng_range(r, 0, 1) ? t_rng_range(r, 1, 5) : 0);
    c.ldb = t_min_ld(c.layout, c.tb, c.k, c.n) + (t_rng_range(r, 0, 1) ? t_rng_range(r, 1, 5) : 0);
    c.ldc = t_min_ld(c.layout, GK_NO_TRANS, c.m, c.n) +
            (t_rng_range(r, 0, 1) ? t_rng_range(r, 1, 5) : 0);
    const int64_t ea = tb_extent(c.layout, c.ta, c.m, c.k, c.lda);
    const int64_t eb = tb_extent(c.layout, c.tb, c.k, c.n, c.ldb);
    const int64_t ec = tb_extent(c.layout, GK_NO_TRANS, c.m, c.n, c.ldc);
    c.sa = t_rng_range(r, 0, 5) == 0 ? 0 : ea + t_rng_range(r, 0, 7);
    c.sb = t_rng_range(r, 0, 5) == 0 ? 0 : eb + t_rng_range(r, 0, 7);
    c.sc = ec + (t_rng_range(r, 0, 2) == 0 ? 0 : t_rng_range(r, 1, 7));
    const int64_t pick = t_rng_range(r, 0, 9);
    c.batch = pick == 0 ? 0 : pick == 1 ? 1 : t_rng_range(r, 2, max_batch);
    return c;
}

/* A and B items (and their gaps) random, C items random with NaN sentinels in the gaps. NaN in C
 * items too when beta == 0 (they must not leak). Returns 0, or -1 without memory. */
static inline int tb_init(tb_data *d, const tb_case *cs, t_rng *r) {
    memset(d, 0, sizeof *d);
    d->cs = *cs;
    const int64_t nb = cs->batch > 0 ? cs->batch : 1;
    const int64_t ea = tb_extent(cs->layout, cs->ta, cs->m, cs->k, cs->lda);
    const int64_t eb = tb_extent(cs->layout, cs->tb, cs->k, cs->n, cs->ldb);
    const int64_t ec = tb_extent(cs->layout, GK_NO_TRANS, cs->m, cs->n, cs->ldc);
    d->a_len = (nb - 1) * cs->sa + ea + 1;
    d->b_len = (nb - 1) * cs->sb + eb + 1;
    d->c_len = (nb - 1) * cs->sc + ec + 1;
    d->a = (float *)malloc(sizeof(float) * d->a_len);
    d->b = (float *)malloc(sizeof(float) * d->b_len);
    d->c = (float *)malloc(sizeof(float) * d->c_len);
    d->c0 = (float *)malloc(sizeof(float) * d->c_len);
    d->perm = (int64_t *)malloc(sizeof(int64_t) * nb);
    d->in_item = (unsigned char *)calloc(d->c_len, 1);
    if (!d->a || !d->b || !d->c || !d->c0 || !d->perm || !d->in_item) return -1;
    t_fill_random(d->a, d->a_len, r);
    t_fill_random(d->b, d->b_len, r);
    for (int64_t i = 0; i < d->c_len; i++) {
        uint32_t bits = 0x7fc00000u | (uint32_t)(i & 0x3fffff); /* position-dependent NaN */
        memcpy(&d->c0[i], &bits, sizeof bits);
    }
    const int rowc = cs->layout == GK_ROW_MAJOR;
    for (int64_t it = 0; it < cs->batch; it++)
        for (int64_t i = 0; i < cs->m; i++)
            for (int64_t j = 0; j < cs->n; j++) {
                const int64_t at = it * cs->sc + (rowc ? i * cs->ldc + j : j * cs->ldc + i);
                d->in_item[at] = 1;
                if (cs->beta != 0.0f) d->c0[at] = t_rng_float(r);
            }
    memcpy(d->c, d->c0, sizeof(float) * d->c_len);
    for (int64_t i = 0; i < nb; i++)
        d->perm[i] = i;
    for (int64_t i = nb - 1; i > 0; i--) { /* Fisher-Yates */
        const int64_t j = t_rng_range(r, 0, i), t = d->perm[i];
        d->perm[i] = d->perm[j], d->perm[j] = t;
    }
    return 0;
}

static inline void tb_free(tb_data *d) {
    free(d->a), free(d->b), free(d->c), free(d->c0), free(d->perm), free(d->in_item);
}

/* Check C after a run (C items against the float64 reference of their A and B items: strided,
 * or perm's order for pointer arrays; every other element bit-identical). 0 or 1 with msg. */
static inline int tb_verify(const tb_data *d, int pointer_arrays, char *msg, size_t len) {
    const tb_case *cs = &d->cs;
    for (int64_t i = 0; i < d->c_len; i++)
        if (!d->in_item[i] && memcmp(&d->c[i], &d->c0[i], sizeof(float)) != 0) {
            snprintf(msg, len, "C element %lld outside every item was written", (long long)i);
            return 1;
        }
    const int64_t mn = cs->m * cs->n > 0 ? cs->m * cs->n : 1;
    double *rr = (double *)malloc(sizeof(double) * mn), *ss = (double *)malloc(sizeof(double) * mn);
    if (!rr || !ss) {
        free(rr), free(ss);
        snprintf(msg, len, "out of memory for the reference");
        return 1;
    }
    int bad = 0;
    for (int64_t it = 0; it < cs->batch && !bad && cs->m > 0 && cs->n > 0; it++) {
        const int64_t src = pointer_arrays ? d->perm[it] : it;
        t_ref_sgemm(cs->layout, cs->ta, cs->tb, cs->m, cs->n, cs->k, cs->alpha, d->a + src * cs->sa,
                    cs->lda, d->b + src * cs->sb, cs->ldb, cs->beta, d->c0 + it * cs->sc, cs->ldc,
                    rr, ss);
        char why[256];
        if (t_compare(cs->layout, cs->m, cs->n, d->c + it * cs->sc, cs->ldc, rr, ss, cs->k, 0.0,
                      why, sizeof why) != 0) {
            snprintf(msg, len, "item %lld: %s", (long long)it, why);
            bad = 1;
        }
    }
    free(rr), free(ss);
    return bad;
}

#endif
