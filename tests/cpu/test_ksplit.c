/*
 * test_ksplit.c — the packed path's k split (docs/cpu.md, "Threads"): a C with fewer MR x NR
 * tiles than threads and a long k is computed as ranges of k on separate threads, summed in a
 * fixed order. The shapes are derived from the kernel family in use (its MR x NR: C is one
 * micro-tile or less, so fewer tiles than 2 threads) and the planner's thresholds (plan.h: k
 * spans several GK_PLAN_KSPLIT_MIN_K, enough multiply-adds for 2 threads and past the tiles'
 * size rule), so they are split on every CPU and under every GEMMKIT_ARCH. Each case must be
 * split (its GEMMKIT_VERBOSE line on 2 threads says ksplit=2 or more), lie within the accuracy rule
 * of the float64 reference on 2, 3, 4 and 7 threads (layouts, transpositions, padded leading
 * dimensions, beta 0 over NaN and beta != 0), and give the same bits on every run with the same
 * thread count, also while a spinning thread competes for the cores. gk_gemm_ex on such a shape
 * (whose low-precision C cannot be summed in parts) must still give the 1-thread bits.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cpu/frame/plan.h"
#include "ref.h"
#include "threads_probe.h"

typedef struct {
    gk_layout layout;
    gk_trans ta, tb;
    int64_t m, n, k, pad;
    float alpha, beta;
} ks_case;

/* Each case as the kernel sees it (after the row-major swap: C^T = op(B)^T op(A)^T): rows
 * MR - rows_short, columns NR - cols_short (at least 3 each, so that no GEMV-like path takes it),
 * k = parts ranges of GK_PLAN_KSPLIT_MIN_K (at least; see make_cases) plus a remainder. */
typedef struct {
    gk_layout layout;
    gk_trans ta, tb;
    int rows_short, cols_short, parts;
    int64_t extra, pad;
    float alpha, beta;
} ks_spec;

static const ks_spec specs[] = {
    {GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 0, 0, 14, 2656, 0, 1.0f, 0.0f},
    {GK_COL_MAJOR, GK_TRANS, GK_NO_TRANS, 15, 7, 7, 1329, 3, -0.5f, 0.5f},
    {GK_COL_MAJOR, GK_NO_TRANS, GK_TRANS, 23, 1, 9, 3136, 1, 2.0f, -1.0f},
    {GK_ROW_MAJOR, GK_TRANS, GK_TRANS, 12, 5, 12, 848, 2, 1.0f, 0.0f},
    {GK_ROW_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 2, 0, 8, 565, 0, 0.75f, 1.0f},
};
enum { NCASES = sizeof specs / sizeof specs[0] };
static ks_case cases[NCASES];

static int64_t max64(int64_t a, int64_t b) {
    return a > b ? a : b;
}

/* The cases for micro-tile mr x nr. */
static void make_cases(int mr, int nr) {
    for (int i = 0; i < NCASES; i++) {
        const ks_spec *sp = &specs[i];
        const int64_t rows = max64(3, mr - sp->rows_short), cols = max64(3, nr - sp->cols_short);
        /* k: at least `parts` ranges, 2 threads' worth of multiply-adds and beyond the tiles'
         * size rule (with transposed B, the larger one) */
        int64_t k = max64((int64_t)sp->parts * GK_PLAN_KSPLIT_MIN_K,
                          2 * (int64_t)GK_PLAN_MNK_PER_THREAD / (rows * cols) + 1);
        k = max64(k, (int64_t)GK_PLAN_TILES_MNK_TRANSB / (rows * cols) + 1);
        const int row = sp->layout == GK_ROW_MAJOR;
        cases[i] = (ks_case){.layout = sp->layout,
                             .ta = sp->ta,
                             .tb = sp->tb,
                             .m = row ? cols : rows,
                             .n = row ? rows : cols,
                             .k = k + sp->extra,
                             .pad = sp->pad,
                             .alpha = sp->alpha,
                             .beta = sp->beta};
    }
}

typedef struct {
    float *a, *b, *c0, *c;
    int64_t lda, ldb, ldc, nc;
} ks_data;

static int64_t stored_ld(gk_layout layout, gk_trans t, int64_t rows, int64_t cols, int64_t pad) {
    return t_min_ld(layout, t, rows, cols) + pad;
}

static int ks_init(ks_data *d, const ks_case *cs, t_rng *r) {
    const int row = cs->layout == GK_ROW_MAJOR;
    d->lda = stored_ld(cs->layout, cs->ta, cs->m, cs->k, cs->pad);
    d->ldb = stored_ld(cs->layout, cs->tb, cs->k, cs->n, cs->pad);
    d->ldc = stored_ld(cs->layout, GK_NO_TRANS, cs->m, cs->n, cs->pad);
    /* stored A has (layout's "other" extent) lines of lda */
    const int64_t a_lines =
        row ? (cs->ta != GK_NO_TRANS ? cs->k : cs->m) : (cs->ta != GK_NO_TRANS ? cs->m : cs->k);
    const int64_t b_lines =
        row ? (cs->tb != GK_NO_TRANS ? cs->n : cs->k) : (cs->tb != GK_NO_TRANS ? cs->k : cs->n);
    const int64_t na = a_lines * d->lda, nb = b_lines * d->ldb;
    d->nc = (row ? cs->m : cs->n) * d->ldc;
    d->a = malloc(sizeof(float) * na), d->b = malloc(sizeof(float) * nb);
    d->c0 = malloc(sizeof(float) * d->nc), d->c = malloc(sizeof(float) * d->nc);
    if (!d->a || !d->b || !d->c0 || !d->c) return -1;
    t_fill_random(d->a, na, r);
    t_fill_random(d->b, nb, r);
    t_fill_random(d->c0, d->nc, r);
    if (cs->beta == 0.0f)
        for (int64_t i = 0; i < d->nc; i++)
            d->c0[i] = NAN; /* must not leak */
    return 0;
}

static void ks_free(ks_data *d) {
    free(d->a), free(d->b), free(d->c0), free(d->c);
}

static int run(const ks_case *cs, ks_data *d, int threads) {
    memcpy(d->c, d->c0, sizeof(float) * d->nc);
    if (gk_set_num_threads(threads) != GK_SUCCESS) return 0;
    return gk_sgemm(cs->layout, cs->ta, cs->tb, cs->m, cs->n, cs->k, cs->alpha, d->a, d->lda, d->b,
                    d->ldb, cs->beta, d->c, d->ldc) == GK_SUCCESS;
}

/* One 2-thread call of a case, for t_verbose_field. */
typedef struct {
    const ks_case *cs;
    ks_data *d;
} two_call;
static int run_on_two(void *arg) {
    const two_call *t = arg;
    return run(t->cs, t->d, 2);
}

static void split_results(void) {
    static const int threads[] = {2, 3, 4, 7};
    t_rng r = {0x6b5e1170};
    for (int i = 0; i < NCASES; i++) {
        const ks_case *cs = &cases[i];
        ks_data d;
        T_REQUIRE(ks_init(&d, cs, &r) == 0, "out of memory");
        double *ref = malloc(sizeof(double) * cs->m * cs->n),
               *scale = malloc(sizeof(double) * cs->m * cs->n);
        float *first = malloc(sizeof(float) * d.nc);
        T_REQUIRE(ref && scale && first, "out of memory");
        t_ref_sgemm(cs->layout, cs->ta, cs->tb, cs->m, cs->n, cs->k, cs->alpha, d.a, d.lda, d.b,
                    d.ldb, cs->beta, d.c0, d.ldc, ref, scale);
        two_call tc = {cs, &d};
        const int ks = t_verbose_field(run_on_two, &tc, "ksplit=");
        T_CHECK(ks >= 2,
                "case %d (%lldx%lldx%lld): 2-thread plan has ksplit=%d, want >= 2 (the case "
                "tests nothing)",
                i, (long long)cs->m, (long long)cs->n, (long long)cs->k, ks);
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
            T_REQUIRE(run(cs, &d, threads[t]), "case %d: call failed: %s", i, gk_last_error());
            char msg[256];
            T_CHECK(t_compare(cs->layout, cs->m, cs->n, d.c, d.ldc, ref, scale, cs->k, 0.0, msg,
                              sizeof msg) == 0,
                    "case %d on %d threads: %s", i, threads[t], msg);
            memcpy(first, d.c, sizeof(float) * d.nc);
            /* the same thread count again, a spinning thread competing: the same bits */
            T_REQUIRE(t_spin_start() == 0, "pthread_create");
            const int ok = run(cs, &d, threads[t]);
            t_spin_stop();
            T_REQUIRE(ok, "case %d: call failed: %s", i, gk_last_error());
            T_CHECK(memcmp(first, d.c, sizeof(float) * d.nc) == 0,
                    "case %d on %d threads: a second run changed the bits", i, threads[t]);
        }
        free(ref), free(scale), free(first);
        ks_free(&d);
    }
    gk_set_num_threads(0);
}

/* gk_gemm_ex with bfloat16 operands and C on a k-split shape (the first case's C, one FP32
 * micro-tile): the threads take columns of C instead, and the bits are the 1-thread ones. */
static void low_precision_not_split(void) {
    const int64_t m = cases[0].m, n = cases[0].n, k = 50000;
    uint16_t *a = malloc(2 * m * k), *b = malloc(2 * k * n), *c1 = malloc(2 * m * n),
             *c2 = malloc(2 * m * n);
    T_REQUIRE(a && b && c1 && c2, "out of memory");
    for (int64_t i = 0; i < m * k; i++)
        a[i] = (uint16_t)(0x3f80 + (i * 7) % 64); /* bfloat16 values in [1, 2) */
    for (int64_t i = 0; i < k * n; i++)
        b[i] = (uint16_t)(0xbf80 + (i * 5) % 64);
    gk_status st[2];
    uint16_t *cs[2] = {c1, c2};
    for (int t = 0; t < 2; t++) {
        gk_set_num_threads(t + 1);
        st[t] = gk_gemm_ex(GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, m, n, k, 1.0f / 4096, GK_BF16, a,
                           m, GK_BF16, b, k, 0.0f, GK_BF16, cs[t], m);
    }
    gk_set_num_threads(0);
    T_CHECK(st[0] == GK_SUCCESS && st[1] == GK_SUCCESS, "gk_gemm_ex failed: %s", gk_last_error());
    T_CHECK(memcmp(c1, c2, 2 * m * n) == 0, "bfloat16 C differs between 1 and 2 threads");
    free(a), free(b), free(c1), free(c2);
}

int main(void) {
    setenv("GEMMKIT_VERBOSE", "1", 1); /* read at the first call: the k split is read from it */
    gk_cpu_info info;
    if (gk_cpu_get_info(&info) != GK_SUCCESS) {
        printf("FAIL cpu_info: gk_cpu_get_info: %s\n", gk_last_error());
        return 1;
    }
    make_cases(info.mr, info.nr);
    printf("# kernel family %s (%d x %d); cases derived from it:", info.arch, info.mr, info.nr);
    for (int i = 0; i < NCASES; i++)
        printf(" %lldx%lldx%lld", (long long)cases[i].m, (long long)cases[i].n,
               (long long)cases[i].k);
    printf("\n");
    T_RUN(split_results);
    T_RUN(low_precision_not_split);
    return t_finish();
}
