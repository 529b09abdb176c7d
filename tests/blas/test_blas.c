/*
 * test_blas.c — the drop-in BLAS entry points sgemm_ and cblas_sgemm, called directly: every
 * illegal argument reported with reference BLAS / CBLAS positions (Fortran and both CBLAS
 * layouts), reference quick returns, results against the float64 reference for every
 * transposition (upper and lower case), padded leading dimensions, and failures the reference
 * cannot detect (NULL C) leaving C untouched. The program supplies its own xerbla_ and
 * cblas_xerbla, as the netlib testers do, which also checks that they replace gemmkit's.
 */
#include "blas/cblas_abi.h"
#include "blas_handlers.h"
#include "check.h"
#include "ref.h"

#include <math.h>
#include <stdlib.h>

/* One illegal Fortran call and the position reference SGEMM reports for it. */
typedef struct {
    char ta, tb;
    int m, n, k, lda, ldb, ldc, info;
} f77_case;

static const f77_case f77_cases[] = {
    {'/', 'N', 0, 0, 0, 1, 1, 1, 1},
    {'x', 'N', 0, 0, 0, 1, 1, 1, 1},
    {'N', '/', 0, 0, 0, 1, 1, 1, 2},
    {'T', 'y', 0, 0, 0, 1, 1, 1, 2},
    {'N', 'N', -1, 0, 0, 1, 1, 1, 3},
    {'T', 'T', -1, 0, 0, 1, 1, 1, 3},
    {'N', 'N', 0, -1, 0, 1, 1, 1, 4},
    {'t', 'n', 0, -1, 0, 1, 1, 1, 4},
    {'N', 'N', 0, 0, -1, 1, 1, 1, 5},
    {'c', 'c', 0, 0, -1, 1, 1, 1, 5},
    {'N', 'N', 2, 0, 0, 1, 1, 2, 8},
    {'T', 'N', 0, 0, 2, 1, 2, 1, 8},
    {'N', 'N', 0, 0, 2, 1, 1, 1, 10},
    {'N', 'T', 0, 2, 0, 1, 1, 1, 10},
    {'N', 'N', 2, 0, 0, 2, 1, 1, 13},
    {'T', 'T', 2, 0, 0, 1, 1, 1, 13},
    /* Several illegal at once: the first in argument order wins. */
    {'/', '/', -1, -1, -1, 0, 0, 0, 1},
    {'N', 'N', -1, -1, 0, 1, 1, 1, 3},
    {'N', 'N', 3, 0, 3, 1, 1, 1, 8},
};

static void f77_errors(void) {
    float a[4] = {0}, b[4] = {0}, c[4] = {7, 7, 7, 7};
    const float alpha = 1.0f, beta = 0.0f;
    for (size_t i = 0; i < sizeof f77_cases / sizeof f77_cases[0]; i++) {
        const f77_case *t = &f77_cases[i];
        blas_handlers_reset();
        sgemm_(&t->ta, &t->tb, &t->m, &t->n, &t->k, &alpha, a, &t->lda, b, &t->ldb, &beta, c,
               &t->ldc, 1, 1);
        T_CHECK(f77_calls == 1 && f77_info == t->info,
                "case %zu (%c%c m=%d n=%d k=%d lda=%d ldb=%d ldc=%d): xerbla called %d times, "
                "info %d, want once with %d",
                i, t->ta, t->tb, t->m, t->n, t->k, t->lda, t->ldb, t->ldc, f77_calls, f77_info,
                t->info);
        T_CHECK(strcmp(f77_name, "SGEMM ") == 0, "case %zu: srname '%s', want 'SGEMM '", i,
                f77_name);
        T_CHECK(c[0] == 7 && c[3] == 7, "case %zu: C written on an argument error", i);
    }
}

/* One illegal CBLAS call and the position reference CBLAS passes to cblas_xerbla. For row-major
 * calls that is the position in the equivalent column-major call (netlib c_s3chke.c + c_xerbla.c
 * expect exactly this: the tester's handler swaps 4<->5 and 9<->11 back). */
typedef struct {
    int order, ta, tb;
    int m, n, k, lda, ldb, ldc, info;
} c_case;

enum { BAD = 0 };
static const c_case c_cases[] = {
    {BAD, CblasNoTrans, CblasNoTrans, 0, 0, 0, 1, 1, 1, 1},
    {CblasColMajor, BAD, CblasNoTrans, 0, 0, 0, 1, 1, 1, 2},
    {CblasColMajor, CblasTrans, BAD, 0, 0, 0, 1, 1, 1, 3},
    {CblasColMajor, CblasNoTrans, CblasNoTrans, -1, 0, 0, 1, 1, 1, 4},
    {CblasColMajor, CblasNoTrans, CblasNoTrans, 0, -1, 0, 1, 1, 1, 5},
    {CblasColMajor, CblasNoTrans, CblasNoTrans, 0, 0, -1, 1, 1, 1, 6},
    {CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 0, 0, 1, 1, 2, 9},
    {CblasColMajor, CblasTrans, CblasNoTrans, 0, 0, 2, 1, 2, 1, 9},
    {CblasColMajor, CblasNoTrans, CblasNoTrans, 0, 0, 2, 1, 1, 1, 11},
    {CblasColMajor, CblasNoTrans, CblasConjTrans, 0, 2, 0, 1, 1, 1, 11},
    {CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 0, 0, 2, 1, 1, 14},
    {CblasRowMajor, BAD, CblasNoTrans, 0, 0, 0, 1, 1, 1, 2},
    {CblasRowMajor, CblasNoTrans, BAD, 0, 0, 0, 1, 1, 1, 3},
    {CblasRowMajor, BAD, BAD, 0, 0, 0, 1, 1, 1, 2},
    {CblasRowMajor, CblasNoTrans, CblasNoTrans, -1, 0, 0, 1, 1, 1, 5},
    {CblasRowMajor, CblasNoTrans, CblasNoTrans, 0, -1, 0, 1, 1, 1, 4},
    {CblasRowMajor, CblasNoTrans, CblasNoTrans, 0, 0, -1, 1, 1, 1, 6},
    {CblasRowMajor, CblasNoTrans, CblasNoTrans, 0, 0, 2, 1, 1, 2, 11},
    {CblasRowMajor, CblasTrans, CblasNoTrans, 2, 0, 0, 1, 2, 1, 11},
    {CblasRowMajor, CblasNoTrans, CblasNoTrans, 0, 2, 0, 1, 1, 1, 9},
    {CblasRowMajor, CblasNoTrans, CblasTrans, 0, 0, 2, 2, 1, 1, 9},
    {CblasRowMajor, CblasNoTrans, CblasNoTrans, 0, 2, 0, 1, 2, 1, 14},
    /* Row-major checks N before M (it is the column-major call's M). */
    {CblasRowMajor, CblasNoTrans, CblasNoTrans, -1, -1, 0, 1, 1, 1, 4},
};

static void cblas_errors(void) {
    float a[4] = {0}, b[4] = {0}, c[4] = {7, 7, 7, 7};
    for (size_t i = 0; i < sizeof c_cases / sizeof c_cases[0]; i++) {
        const c_case *t = &c_cases[i];
        blas_handlers_reset();
        cblas_sgemm((enum CBLAS_ORDER)t->order, (enum CBLAS_TRANSPOSE)t->ta,
                    (enum CBLAS_TRANSPOSE)t->tb, t->m, t->n, t->k, 1.0f, a, t->lda, b, t->ldb, 0.0f,
                    c, t->ldc);
        T_CHECK(c_calls == 1 && c_info == t->info && f77_calls == 0,
                "case %zu (order %d m=%d n=%d k=%d lda=%d ldb=%d ldc=%d): cblas_xerbla called %d "
                "times with %d (xerbla_ %d times), want once with %d",
                i, t->order, t->m, t->n, t->k, t->lda, t->ldb, t->ldc, c_calls, c_info, f77_calls,
                t->info);
        T_CHECK(strcmp(c_rout, "cblas_sgemm") == 0, "case %zu: rout '%s'", i, c_rout);
        T_CHECK(c[0] == 7 && c[3] == 7, "case %zu: C written on an argument error", i);
    }
}

/* Run one problem through sgemm_ (layout col) or cblas_sgemm and compare with the reference. */
static void check_one(int use_cblas, gk_layout layout, char ta, char tb, int m, int n, int k,
                      int pad, float alpha, float beta, t_rng *rng) {
    const int nota = ta == 'N' || ta == 'n', notb = tb == 'N' || tb == 'n';
    const int row = layout == GK_ROW_MAJOR;
    const int a_r = nota ? m : k, a_c = nota ? k : m, b_r = notb ? k : n, b_c = notb ? n : k;
    const int lda = (row ? a_c : a_r) + pad, ldb = (row ? b_c : b_r) + pad;
    const int ldc = (row ? n : m) + pad;
    const int lda1 = lda > 0 ? lda : 1, ldb1 = ldb > 0 ? ldb : 1, ldc1 = ldc > 0 ? ldc : 1;
    const size_t na = (size_t)lda1 * (row ? a_r : a_c) + 1,
                 nb = (size_t)ldb1 * (row ? b_r : b_c) + 1;
    const size_t nc = (size_t)ldc1 * (row ? m : n) + 1;
    float *a = malloc(na * sizeof *a), *b = malloc(nb * sizeof *b), *c = malloc(nc * sizeof *c);
    float *c0 = malloc(nc * sizeof *c0);
    double *r = malloc(((size_t)m * n + 1) * sizeof *r),
           *s = malloc(((size_t)m * n + 1) * sizeof *s);
    t_fill_random(a, (int64_t)na, rng);
    t_fill_random(b, (int64_t)nb, rng);
    t_fill_random(c0, (int64_t)nc, rng);
    memcpy(c, c0, nc * sizeof *c);
    const gk_trans gta = nota ? GK_NO_TRANS : GK_TRANS, gtb = notb ? GK_NO_TRANS : GK_TRANS;
    t_ref_sgemm(layout, gta, gtb, m, n, k, alpha, a, lda1, b, ldb1, beta, c0, ldc1, r, s);
    blas_handlers_reset();
    if (use_cblas)
        cblas_sgemm(row ? CblasRowMajor : CblasColMajor, nota ? CblasNoTrans : CblasTrans,
                    notb ? CblasNoTrans : CblasTrans, m, n, k, alpha, a, lda1, b, ldb1, beta, c,
                    ldc1);
    else
        sgemm_(&ta, &tb, &m, &n, &k, &alpha, a, &lda1, b, &ldb1, &beta, c, &ldc1, 1, 1);
    char msg[512];
    int64_t bad = t_compare(layout, m, n, c, ldc1, r, s, k, 0.0, msg, sizeof msg);
    T_CHECK(f77_calls == 0 && c_calls == 0, "%s reported an error for a valid call",
            use_cblas ? "cblas_sgemm" : "sgemm_");
    T_CHECK(bad == 0, "%s %s %c%c m=%d n=%d k=%d pad=%d alpha=%g beta=%g: %s",
            use_cblas ? "cblas_sgemm" : "sgemm_", row ? "row" : "col", ta, tb, m, n, k, pad, alpha,
            beta, msg);
    /* Padding between columns (rows) of C is outside the matrix and must survive. */
    for (int j = 0; j < (row ? m : n) && pad; j++)
        for (int i = (row ? n : m); i < ldc1; i++)
            T_CHECK(c[(size_t)j * ldc1 + i] == c0[(size_t)j * ldc1 + i],
                    "padding of C written at (%d,%d)", i, j);
    free(a), free(b), free(c), free(c0), free(r), free(s);
}

static const char trans_chars[] = {'N', 'T', 'C', 'n', 't', 'c'};
static const int sizes[][3] = {{1, 1, 1}, {7, 5, 3}, {17, 33, 9}, {64, 48, 80}, {129, 70, 257}};

static void f77_results(void) {
    t_rng rng = {0x5eed0001};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++)
                check_one(0, GK_COL_MAJOR, trans_chars[i], trans_chars[j], sizes[s][0], sizes[s][1],
                          sizes[s][2], (int)(s % 3), 0.75f, s % 2 ? 0.0f : -1.5f, &rng);
}

static void cblas_results(void) {
    t_rng rng = {0x5eed0002};
    for (int row = 0; row < 2; row++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++)
                    check_one(1, row ? GK_ROW_MAJOR : GK_COL_MAJOR, "NT"[i], "NT"[j], sizes[s][0],
                              sizes[s][1], sizes[s][2], (int)((s + 1) % 3), -1.25f,
                              s % 2 ? 1.0f : 0.5f, &rng);
}

/* Reference quick returns: m or n == 0, or (alpha == 0 or k == 0) with beta == 1, leave C
 * unread; beta == 0 overwrites C even where it held NaN. */
static void quick_returns(void) {
    const int two = 2, zero = 0, one = 1;
    const float fzero = 0.0f, fone = 1.0f, ftwo = 2.0f;
    float nan_ab[4] = {NAN, NAN, NAN, NAN};
    float c[4] = {NAN, 1, 2, 3};
    blas_handlers_reset();
    /* alpha = 0, beta = 1: C untouched, A/B never read (NaN would poison C). */
    sgemm_("N", "N", &two, &two, &two, &fzero, nan_ab, &two, nan_ab, &two, &fone, c, &two, 1, 1);
    T_CHECK(isnan(c[0]) && c[1] == 1 && c[2] == 2 && c[3] == 3, "alpha=0 beta=1 changed C");
    /* k = 0, beta = 1: unchanged; pointers to A/B may be NULL. */
    sgemm_("N", "N", &two, &two, &zero, &fone, NULL, &two, NULL, &one, &fone, c, &two, 1, 1);
    T_CHECK(isnan(c[0]) && c[3] == 3, "k=0 beta=1 changed C");
    /* m = 0: nothing happens, even with C NULL (lda must still be >= 1). */
    sgemm_("N", "N", &zero, &two, &two, &fone, NULL, &one, NULL, &two, &fone, NULL, &one, 1, 1);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 0, 2, 1.0f, NULL, 2, NULL, 1, 0.0f,
                NULL, 1);
    /* alpha = 0, beta = 0: C zeroed, NaN included. */
    sgemm_("N", "N", &two, &two, &two, &fzero, nan_ab, &two, nan_ab, &two, &fzero, c, &two, 1, 1);
    T_CHECK(c[0] == 0 && c[1] == 0 && c[2] == 0 && c[3] == 0, "alpha=0 beta=0 did not zero C");
    /* alpha = 0, beta = 2: C scaled. */
    float d[4] = {1, 2, 3, 4};
    sgemm_("T", "T", &two, &two, &two, &fzero, nan_ab, &two, nan_ab, &two, &ftwo, d, &two, 1, 1);
    T_CHECK(d[0] == 2 && d[1] == 4 && d[2] == 6 && d[3] == 8, "alpha=0 beta=2 did not scale C");
    T_CHECK(f77_calls == 0 && c_calls == 0, "a valid quick-return call reported an error");
}

/* A NULL C with m, n > 0 is valid to reference BLAS (which would crash); gemmkit leaves memory
 * alone, calls no handler (there is no position for it) and keeps the reason in gk_last_error. */
static void null_c_is_refused(void) {
    const int two = 2;
    const float fone = 1.0f;
    float a[4] = {1, 2, 3, 4};
    blas_handlers_reset();
    sgemm_("N", "N", &two, &two, &two, &fone, a, &two, a, &two, &fone, NULL, &two, 1, 1);
    T_CHECK(f77_calls == 0, "xerbla_ called for a NULL C");
    T_CHECK(strstr(gk_last_error(), "c is NULL") != NULL, "gk_last_error() = '%s'",
            gk_last_error());
}

int main(void) {
    T_RUN(f77_errors);
    T_RUN(cblas_errors);
    T_RUN(f77_results);
    T_RUN(cblas_results);
    T_RUN(quick_returns);
    T_RUN(null_c_is_refused);
    return t_finish();
}
