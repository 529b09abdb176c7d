/*
 * test_blas_batch.c — the batched CBLAS drop-ins cblas_sgemm_batch and cblas_sgemm_batch_strided,
 * called directly: random groups (each its own layout-compatible shape, transpositions, scalars,
 * padded leading dimensions, shuffled item pointers) and random strided batches against the
 * float64 reference with C outside the items bit-identical; every illegal argument reported to
 * cblas_xerbla once with its position in the caller's list, in both layouts, with no C written;
 * group_count 0 and group_size 0 doing nothing. The program's own cblas_xerbla records the calls.
 */
#include "batched.h"
#include "blas/cblas_abi.h"
#include "blas_handlers.h"
#include "check.h"
#include "ref.h"

#include <stdlib.h>

enum { MAX_GROUPS = 4 };

/* A random case in the given layout (tb_random draws the layout too; draw until it matches). */
static tb_case random_in_layout(t_rng *r, gk_layout layout, int64_t max_dim, int64_t max_batch) {
    tb_case c;
    do
        c = tb_random(r, max_dim, max_batch);
    while (c.layout != layout);
    return c;
}

static enum CBLAS_TRANSPOSE cblas_trans(gk_trans t, t_rng *r) {
    return t == GK_NO_TRANS ? CblasNoTrans : t_rng_range(r, 0, 1) ? CblasConjTrans : CblasTrans;
}

static void batch_results(void) {
    t_rng r = {0xba7c0001};
    for (int rep = 0; rep < 60; rep++) {
        const gk_layout layout = rep % 2 ? GK_ROW_MAJOR : GK_COL_MAJOR;
        const int groups = (int)t_rng_range(&r, 1, MAX_GROUPS);
        tb_data d[MAX_GROUPS];
        enum CBLAS_TRANSPOSE ta[MAX_GROUPS], tb[MAX_GROUPS];
        int m[MAX_GROUPS], n[MAX_GROUPS], k[MAX_GROUPS], lda[MAX_GROUPS], ldb[MAX_GROUPS],
            ldc[MAX_GROUPS], size[MAX_GROUPS];
        float alpha[MAX_GROUPS], beta[MAX_GROUPS];
        int64_t total = 0;
        for (int g = 0; g < groups; g++) {
            const tb_case cs = random_in_layout(&r, layout, rep < 50 ? 40 : 150, rep < 50 ? 12 : 3);
            T_REQUIRE(tb_init(&d[g], &cs, &r) == 0, "out of memory");
            ta[g] = cblas_trans(cs.ta, &r), tb[g] = cblas_trans(cs.tb, &r);
            m[g] = (int)cs.m, n[g] = (int)cs.n, k[g] = (int)cs.k;
            lda[g] = (int)cs.lda, ldb[g] = (int)cs.ldb, ldc[g] = (int)cs.ldc;
            alpha[g] = cs.alpha, beta[g] = cs.beta, size[g] = (int)cs.batch;
            total += cs.batch;
        }
        const float **pa = malloc(sizeof *pa * (size_t)(total + 1));
        const float **pb = malloc(sizeof *pb * (size_t)(total + 1));
        float **pc = malloc(sizeof *pc * (size_t)(total + 1));
        T_REQUIRE(pa && pb && pc, "out of memory");
        for (int g = 0, at = 0; g < groups; g++)
            for (int64_t i = 0; i < d[g].cs.batch; i++, at++) {
                pa[at] = d[g].a + d[g].perm[i] * d[g].cs.sa;
                pb[at] = d[g].b + d[g].perm[i] * d[g].cs.sb;
                pc[at] = d[g].c + i * d[g].cs.sc;
            }
        blas_handlers_reset();
        cblas_sgemm_batch(layout == GK_ROW_MAJOR ? CblasRowMajor : CblasColMajor, ta, tb, m, n, k,
                          alpha, pa, lda, pb, ldb, beta, pc, ldc, groups, size);
        T_CHECK(c_calls == 0, "rep %d: cblas_xerbla called for a valid call (position %d)", rep,
                c_info);
        for (int g = 0; g < groups; g++) {
            char desc[256], msg[512];
            if (tb_verify(&d[g], 1, msg, sizeof msg)) {
                tb_str(&d[g].cs, desc, sizeof desc);
                T_CHECK(0, "rep %d group %d of %d (%s): %s", rep, g, groups, desc, msg);
            }
            tb_free(&d[g]);
        }
        free(pa), free(pb), free(pc);
    }
}

static void strided_results(void) {
    t_rng r = {0xba7c0002};
    for (int rep = 0; rep < 60; rep++) {
        const tb_case cs = tb_random(&r, rep < 50 ? 40 : 150, rep < 50 ? 12 : 3);
        tb_data d;
        T_REQUIRE(tb_init(&d, &cs, &r) == 0, "out of memory");
        blas_handlers_reset();
        cblas_sgemm_batch_strided(cs.layout == GK_ROW_MAJOR ? CblasRowMajor : CblasColMajor,
                                  cblas_trans(cs.ta, &r), cblas_trans(cs.tb, &r), (int)cs.m,
                                  (int)cs.n, (int)cs.k, cs.alpha, d.a, (int)cs.lda, (int)cs.sa, d.b,
                                  (int)cs.ldb, (int)cs.sb, cs.beta, d.c, (int)cs.ldc, (int)cs.sc,
                                  (int)cs.batch);
        char desc[256], msg[512];
        tb_str(&cs, desc, sizeof desc);
        T_CHECK(c_calls == 0, "%s: cblas_xerbla called for a valid call (position %d)", desc,
                c_info);
        T_CHECK(!tb_verify(&d, 0, msg, sizeof msg), "%s: %s", desc, msg);
        tb_free(&d);
    }
}

/* One group's arguments, with one of them made illegal by a case below. */
typedef struct {
    int order, ta, tb, m, n, k, lda, ldb, ldc, count, size;
} bad_case;

/* A valid 2x2x2 no-transpose group, then the case's one change, and the position reference-style
 * numbering gives it in cblas_sgemm_batch's list (1 order, 2 TransA, 3 TransB, 4 M, 5 N, 6 K,
 * 9 lda, 11 ldb, 14 ldc, 15 group_count, 16 group_size). Row-major numbers are the caller's. */
static const struct {
    bad_case c;
    int pos;
} batch_bad[] = {
    {{0, 111, 111, 2, 2, 2, 2, 2, 2, 1, 1}, 1},     {{102, 0, 111, 2, 2, 2, 2, 2, 2, 1, 1}, 2},
    {{102, 111, 114, 2, 2, 2, 2, 2, 2, 1, 1}, 3},   {{102, 111, 111, -1, 2, 2, 2, 2, 2, 1, 1}, 4},
    {{102, 111, 111, 2, -1, 2, 2, 2, 2, 1, 1}, 5},  {{102, 111, 111, 2, 2, -1, 2, 2, 2, 1, 1}, 6},
    {{102, 111, 111, 3, 2, 2, 2, 2, 3, 1, 1}, 9},   {{102, 111, 111, 2, 2, 3, 3, 2, 2, 1, 1}, 11},
    {{102, 111, 112, 2, 3, 2, 2, 2, 2, 1, 1}, 11},  {{102, 111, 111, 2, 2, 2, 2, 2, 1, 1, 1}, 14},
    {{102, 111, 111, 2, 2, 2, 2, 2, 2, -1, 1}, 15}, {{102, 111, 111, 2, 2, 2, 2, 2, 2, 1, -1}, 16},
    {{101, 0, 111, 2, 2, 2, 2, 2, 2, 1, 1}, 2},     {{101, 111, 0, 2, 2, 2, 2, 2, 2, 1, 1}, 3},
    {{101, 111, 111, -1, 2, 2, 2, 2, 2, 1, 1}, 4},  {{101, 111, 111, 2, -1, 2, 2, 2, 2, 1, 1}, 5},
    {{101, 111, 111, -1, -1, 2, 2, 2, 2, 1, 1}, 5}, /* row-major checks N (the column-major M) first
                                                     */
    {{101, 111, 111, 2, 2, -1, 2, 2, 2, 1, 1}, 6},  {{101, 111, 111, 2, 2, 3, 2, 3, 3, 1, 1}, 9},
    {{101, 112, 111, 3, 2, 2, 2, 2, 3, 1, 1}, 9},   {{101, 111, 111, 2, 3, 2, 2, 2, 3, 1, 1}, 11},
    {{101, 111, 111, 2, 3, 2, 2, 3, 2, 1, 1}, 14},
};

static void batch_errors(void) {
    float a[16] = {0}, b[16] = {0}, c[16];
    for (size_t i = 0; i < sizeof batch_bad / sizeof batch_bad[0]; i++) {
        const bad_case *t = &batch_bad[i].c;
        const enum CBLAS_TRANSPOSE ta = (enum CBLAS_TRANSPOSE)t->ta,
                                   tb = (enum CBLAS_TRANSPOSE)t->tb;
        const float one = 1.0f, zero = 0.0f;
        const float *pa = a, *pb = b;
        float *pc = c;
        for (int j = 0; j < 16; j++)
            c[j] = 7;
        blas_handlers_reset();
        cblas_sgemm_batch((enum CBLAS_ORDER)t->order, &ta, &tb, &t->m, &t->n, &t->k, &one, &pa,
                          &t->lda, &pb, &t->ldb, &zero, &pc, &t->ldc, t->count, &t->size);
        T_CHECK(c_calls == 1 && c_info == batch_bad[i].pos && f77_calls == 0,
                "case %zu: cblas_xerbla called %d times with %d (xerbla_ %d), want once with %d", i,
                c_calls, c_info, f77_calls, batch_bad[i].pos);
        T_CHECK(strcmp(c_rout, "cblas_sgemm_batch") == 0, "case %zu: rout '%s'", i, c_rout);
        T_CHECK(c[0] == 7 && c[15] == 7, "case %zu: C written on an argument error", i);
    }
}

/* An error in a later group stops the whole call before any group runs; NULL arrays are named. */
static void batch_errors_across_groups(void) {
    float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[8] = {7, 7, 7, 7, 7, 7, 7, 7};
    const enum CBLAS_TRANSPOSE ta[2] = {CblasNoTrans, CblasNoTrans}, tb[2] = {CblasNoTrans, 9};
    const int two[2] = {2, 2}, size[2] = {1, 1};
    const float one[2] = {1, 1}, zero[2] = {0, 0};
    const float *pa[2] = {a, a}, *pb[2] = {b, b};
    float *pc[2] = {c, c + 4};
    blas_handlers_reset();
    cblas_sgemm_batch(CblasColMajor, ta, tb, two, two, two, one, pa, two, pb, two, zero, pc, two, 2,
                      size);
    T_CHECK(c_calls == 1 && c_info == 3, "bad TransB in group 1: %d calls, position %d", c_calls,
            c_info);
    T_CHECK(c[0] == 7 && c[4] == 7, "group 0 ran although group 1 was illegal");
    /* Each array argument NULL in turn (the others valid). */
    const void *args[14];
    static const int pos[] = {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16};
    for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++) {
        const void *v[] = {ta, ta, two, two, two, one, pa, two, pb, two, zero, pc, two, size};
        memcpy(args, v, sizeof args);
        args[i] = NULL;
        blas_handlers_reset();
        cblas_sgemm_batch(CblasRowMajor, args[0], args[1], args[2], args[3], args[4], args[5],
                          (const float **)args[6], args[7], (const float **)args[8], args[9],
                          args[10], (float **)args[11], args[12], 1, args[13]);
        T_CHECK(c_calls == 1 && c_info == pos[i], "NULL argument %d: %d calls, position %d", pos[i],
                c_calls, c_info);
    }
    T_CHECK(c[0] == 7 && c[4] == 7, "C written by a call with a NULL array");
}

/* group_count 0: nothing read, not even the arrays. Groups of size 0 (and quick-return groups)
 * are skipped, their parameters still checked; a call with no items may pass NULL item arrays. */
static void batch_empty(void) {
    blas_handlers_reset();
    cblas_sgemm_batch(CblasColMajor, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                      NULL, NULL, NULL, 0, NULL);
    T_CHECK(c_calls == 0, "group_count 0 reported position %d", c_info);
    const enum CBLAS_TRANSPOSE t[3] = {CblasNoTrans, CblasTrans, CblasNoTrans};
    const int m[3] = {2, 2, 2}, k[3] = {2, 2, 0}, size[3] = {0, 1, 1};
    const float alpha[3] = {1, 2, 1}, beta[3] = {0, 0, 1};
    float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[4] = {7, 7, 7, 7}, c2[4] = {5, 5, 5, 5};
    const float *pa[2] = {a, NULL}, *pb[2] = {b, NULL};
    float *pc[2] = {c, c2};
    blas_handlers_reset();
    cblas_sgemm_batch(CblasColMajor, t, t, m, m, k, alpha, pa, m, pb, m, beta, pc, m, 3, size);
    T_CHECK(c_calls == 0, "valid call reported position %d", c_info);
    /* Group 1: C = 2 * A^T * B^T with B = I: 2 * A^T. Group 2: k = 0, beta = 1: untouched. */
    T_CHECK(c[0] == 2 && c[1] == 6 && c[2] == 4 && c[3] == 8, "group 1 wrong: %g %g %g %g", c[0],
            c[1], c[2], c[3]);
    T_CHECK(c2[0] == 5 && c2[3] == 5, "quick-return group wrote C");
    const int zero_size[1] = {0};
    blas_handlers_reset();
    cblas_sgemm_batch(CblasRowMajor, t, t, m, m, k, alpha, NULL, m, NULL, m, beta, NULL, m, 1,
                      zero_size);
    T_CHECK(c_calls == 0, "group_size 0 with NULL item arrays reported position %d", c_info);
    /* A NULL item pointer no argument check sees: C untouched, no handler, gk_last_error set. */
    const float *pa1[1] = {NULL};
    blas_handlers_reset();
    cblas_sgemm_batch(CblasColMajor, t, t, m, m, k, alpha, pa1, m, pb, m, beta, pc, m, 1, size + 1);
    T_CHECK(c_calls == 0 && c[0] == 2, "NULL item pointer: %d handler calls, c[0]=%g", c_calls,
            c[0]);
    T_CHECK(strstr(gk_last_error(), "a[0] is NULL") != NULL, "gk_last_error() = '%s'",
            gk_last_error());
}

/* cblas_sgemm_batch_strided's positions: 1 order, 2 TransA, 3 TransB, 4 M, 5 N, 6 K, 9 lda,
 * 10 stridea, 12 ldb, 13 strideb, 16 ldc, 17 stridec, 18 batch_size. */
static void strided_errors(void) {
    float x[64], c[64];
    static const struct {
        int order, ta, tb, m, n, k, lda, sa, ldb, sb, ldc, sc, batch, pos;
    } cases[] = {
        {0, 111, 111, 2, 2, 2, 2, 4, 2, 4, 2, 4, 2, 1},
        {102, 1, 111, 2, 2, 2, 2, 4, 2, 4, 2, 4, 2, 2},
        {102, 111, 1, 2, 2, 2, 2, 4, 2, 4, 2, 4, 2, 3},
        {102, 111, 111, -2, 2, 2, 2, 4, 2, 4, 2, 4, 2, 4},
        {101, 111, 111, 2, -2, 2, 2, 4, 2, 4, 2, 4, 2, 5},
        {102, 111, 111, 2, 2, -2, 2, 4, 2, 4, 2, 4, 2, 6},
        {102, 111, 111, 3, 2, 2, 2, 6, 2, 4, 3, 6, 2, 9},
        {101, 111, 111, 2, 2, 3, 2, 6, 3, 6, 2, 4, 2, 9},
        {102, 111, 111, 2, 2, 3, 2, 6, 2, 6, 2, 4, 2, 12},
        {101, 111, 111, 2, 3, 2, 2, 4, 2, 6, 3, 6, 2, 12},
        {102, 111, 111, 2, 2, 2, 2, 4, 2, 4, 1, 4, 2, 16},
        {102, 111, 111, 2, 2, 2, 2, -1, 2, 4, 2, 4, 2, 10},
        {102, 111, 111, 2, 2, 2, 2, 4, 2, -1, 2, 4, 2, 13},
        {102, 111, 111, 2, 2, 2, 2, 4, 2, 4, 2, -1, 2, 17},
        {102, 111, 111, 2, 2, 2, 2, 4, 2, 4, 2, 3, 2, 17}, /* C items would overlap */
        {102, 111, 111, 2, 2, 2, 2, 4, 2, 4, 2, 4, -1, 18},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int j = 0; j < 64; j++)
            x[j] = 1, c[j] = 7;
        blas_handlers_reset();
        cblas_sgemm_batch_strided((enum CBLAS_ORDER)cases[i].order,
                                  (enum CBLAS_TRANSPOSE)cases[i].ta,
                                  (enum CBLAS_TRANSPOSE)cases[i].tb, cases[i].m, cases[i].n,
                                  cases[i].k, 1.0f, x, cases[i].lda, cases[i].sa, x, cases[i].ldb,
                                  cases[i].sb, 0.0f, c, cases[i].ldc, cases[i].sc, cases[i].batch);
        T_CHECK(c_calls == 1 && c_info == cases[i].pos,
                "case %zu: cblas_xerbla called %d times with %d, want once with %d", i, c_calls,
                c_info, cases[i].pos);
        T_CHECK(strcmp(c_rout, "cblas_sgemm_batch_strided") == 0, "case %zu: rout '%s'", i, c_rout);
        T_CHECK(c[0] == 7 && c[63] == 7, "case %zu: C written on an argument error", i);
    }
    /* batch_size 0 and a stride 0 for C with one item are legal. */
    blas_handlers_reset();
    cblas_sgemm_batch_strided(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0f, NULL, 2, 4,
                              NULL, 2, 4, 0.0f, NULL, 2, 4, 0);
    cblas_sgemm_batch_strided(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0f, x, 2, 0, x,
                              2, 0, 0.0f, c, 2, 0, 1);
    T_CHECK(c_calls == 0, "a legal call reported position %d", c_info);
    T_CHECK(c[0] == 2 && c[3] == 2 && c[4] == 7, "stride-0 single item: %g %g %g", c[0], c[3],
            c[4]);
}

int main(void) {
    T_RUN(batch_results);
    T_RUN(strided_results);
    T_RUN(batch_errors);
    T_RUN(batch_errors_across_groups);
    T_RUN(batch_empty);
    T_RUN(strided_errors);
    return t_finish();
}
