/*
 * test_sgemm_random.c — randomized differential test of gk_sgemm against the float64 reference.
 *
 * Shapes mix small sizes, primes and the sizes around every CPU family's micro-tile (MR, NR) and
 * cache blocks (mc, kc, nc), over both layouts, all transposition pairs, padded leading
 * dimensions, alpha/beta in {0, 1, -1, 0.5} and NaN-filled C with beta = 0. Every shape runs
 * under each kernel family the CPU supports times thread counts 1, 2, 3 and the default; each
 * (family, threads) pair is one reported case. Data and reference are made once per shape.
 *
 * GK_TEST_SEED=<n> picks the seed (printed on the first line and in every failure),
 * GK_TEST_CASES=<n> the number of shapes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ref.h"

enum { N_ARCH = 3, N_THREADS = 4, N_CFG = N_ARCH * N_THREADS, MAX_SPECIAL = 128 };

static const char *const archs[N_ARCH] = {"generic", "avx2", "avx512"};
static const int thread_counts[N_THREADS] = {1, 2, 3, 0};

/* Per-configuration outcome, reported after all shapes ran. */
typedef struct {
    int supported;       /* gk_set_arch accepted the family */
    char skip_why[256];  /* gk_last_error() when it did not */
    int64_t runs, fails; /* shapes run, shapes failed */
    char first_fail[768];
} cfg_result;

static cfg_result results[N_CFG];
static int reporting; /* configuration whose result report_cfg prints */

static uint64_t seed = 20260101;
static int64_t n_cases = 360;

/* Sizes that stress edges of every supported family's blocking, collected at start-up, and
 * shapes that cross several block edges at once, run before the random ones so that every
 * family's mc/kc/nc edges meet the packed path whatever the seed. */
static int64_t special[MAX_SPECIAL];
static int n_special;
enum { MAX_EDGE_SHAPES = 4 * N_ARCH };
static int64_t edge_shapes[MAX_EDGE_SHAPES][3];
static int n_edge_shapes;

static const int64_t primes[] = {2,   3,   5,   7,   11,  13,  17,  19,  23,  29,  31,  37,
                                 41,  61,  67,  89,  97,  101, 127, 131, 193, 199, 251, 257,
                                 293, 311, 383, 401, 449, 509, 521, 613, 661, 691, 701};

/* The float64 reference costs m*n*k; most shapes stay under SMALL_VOLUME, one in BIG_EVERY may
 * reach 700^3 so the threaded packed path also meets realistic sizes. */
#define SMALL_VOLUME (3 * 1000 * 1000)
#define BIG_VOLUME (700LL * 700 * 700)
#define BIG_EVERY 40

static void add_special(int64_t v) {
    if (v < 1 || n_special == MAX_SPECIAL) return;
    for (int i = 0; i < n_special; i++)
        if (special[i] == v) return;
    special[n_special++] = v;
}

static void collect_specials(void) {
    for (int a = 0; a < N_ARCH; a++) {
        gk_cpu_info info;
        if (gk_set_arch(archs[a]) != GK_SUCCESS || gk_cpu_get_info(&info) != GK_SUCCESS) continue;
        const int64_t tiles[] = {info.mr, info.nr, 2 * info.mr, 3 * info.nr};
        for (size_t i = 0; i < sizeof tiles / sizeof *tiles; i++)
            for (int d = -1; d <= 1; d++)
                add_special(tiles[i] + d);
        /* The volume cap in make_case keeps even nc + 1 affordable: the other two dimensions
         * are redrawn small. The bound only guards against absurd blockings. */
        const int64_t blocks[] = {info.mc, info.kc, info.nc, 2 * info.kc};
        for (size_t i = 0; i < sizeof blocks / sizeof *blocks; i++)
            for (int d = -1; d <= 1; d++)
                if (blocks[i] + d <= 16384) add_special(blocks[i] + d);
        /* k = kc exactly where mc or nc must be crossed: an engine may rebalance a ragged k
         * into shorter blocks and then widen mc and nc to keep its cache footprint. */
        const int64_t shapes[4][3] = {{info.mc + 1, 2 * info.nr + 1, info.kc},
                                      {info.mc - 1, info.nr - 1, 2 * info.kc + 1},
                                      {info.mr + 1, info.nc + 1, info.kc},
                                      {2 * info.mr + 1, info.nc - 1, 7}};
        for (int i = 0; i < 4; i++)
            if (shapes[i][0] * shapes[i][1] * shapes[i][2] <= BIG_VOLUME / 2)
                memcpy(edge_shapes[n_edge_shapes++], shapes[i], sizeof shapes[i]);
    }
    gk_set_arch(NULL);
}

static int64_t pick_dim(t_rng *r) {
    switch (t_rng_next(r) % 8) {
    case 0:
        return t_rng_range(r, 1, 4);
    case 1:
    case 2:
    case 3:
        return n_special ? special[t_rng_next(r) % (uint64_t)n_special] : 1;
    case 4:
        return primes[t_rng_next(r) % (sizeof primes / sizeof *primes)];
    default:
        return t_rng_range(r, 1, 700);
    }
}

static void make_case(int64_t index, t_rng *r, t_gemm_case *cs) {
    static const float scalars[] = {0.0f, 1.0f, -1.0f, 0.5f};
    memset(cs, 0, sizeof *cs);
    /* Cycle the eight layout/transposition combinations so each gets an equal share. */
    cs->layout = index % 2 ? GK_ROW_MAJOR : GK_COL_MAJOR;
    cs->ta = (index / 2) % 2 ? GK_TRANS : GK_NO_TRANS;
    cs->tb = (index / 4) % 2 ? GK_TRANS : GK_NO_TRANS;
    if (cs->ta == GK_TRANS && t_rng_next(r) % 4 == 0) cs->ta = GK_CONJ_TRANS;
    if (cs->tb == GK_TRANS && t_rng_next(r) % 4 == 0) cs->tb = GK_CONJ_TRANS;

    int64_t d[3] = {pick_dim(r), pick_dim(r), pick_dim(r)};
    if (index < n_edge_shapes) memcpy(d, edge_shapes[index], sizeof d);
    const int64_t cap = index % BIG_EVERY == BIG_EVERY - 1 ? BIG_VOLUME : SMALL_VOLUME;
    /* Redraw a random dimension small until the volume fits: the others keep their edge sizes. */
    while (index >= n_edge_shapes && d[0] * d[1] * d[2] > cap) {
        int i = (int)(t_rng_next(r) % 3);
        d[i] = t_rng_range(r, 1, d[i] > 64 ? 64 : d[i]);
    }
    cs->m = d[0], cs->n = d[1], cs->k = d[2];

    cs->alpha = scalars[t_rng_next(r) % 4];
    cs->beta = scalars[t_rng_next(r) % 4];
    cs->nan_c = cs->beta == 0.0f && t_rng_next(r) % 2;

    /* A third of the leading dimensions are tight, the rest padded. */
    int64_t pads[3];
    for (int i = 0; i < 3; i++)
        pads[i] = t_rng_next(r) % 3 == 0 ? 0 : t_rng_range(r, 1, 37);
    cs->lda = t_min_ld(cs->layout, cs->ta, cs->m, cs->k) + pads[0];
    cs->ldb = t_min_ld(cs->layout, cs->tb, cs->k, cs->n) + pads[1];
    cs->ldc = t_min_ld(cs->layout, GK_NO_TRANS, cs->m, cs->n) + pads[2];
}

static void run_config(int cfg, int64_t index, t_gemm_data *d) {
    cfg_result *res = &results[cfg];
    const t_gemm_case *cs = &d->cs;
    char why[512] = "";
    t_gemm_data_reset_c(d);
    gk_status st = gk_set_arch(archs[cfg / N_THREADS]);
    if (st == GK_SUCCESS) st = gk_set_num_threads(thread_counts[cfg % N_THREADS]);
    if (st == GK_SUCCESS) {
        st = gk_sgemm(cs->layout, cs->ta, cs->tb, cs->m, cs->n, cs->k, cs->alpha, d->a, cs->lda,
                      d->b, cs->ldb, cs->beta, d->c, cs->ldc);
        if (st == GK_SUCCESS)
            t_gemm_data_verify(d, 0.0, why, sizeof why);
        else
            snprintf(why, sizeof why, "gk_sgemm returned %s: %s", gk_status_string(st),
                     gk_last_error());
    } else {
        snprintf(why, sizeof why, "configuring failed: %s", gk_last_error());
    }
    res->runs++;
    if (why[0] && res->fails++ == 0) {
        char desc[256];
        t_case_str(cs, desc, sizeof desc);
        snprintf(res->first_fail, sizeof res->first_fail, "seed=%" PRIu64 " shape #%lld (%s): %s",
                 seed, (long long)index, desc, why);
    }
}

static void report_cfg(void) {
    const cfg_result *res = &results[reporting];
    if (!res->supported) T_SKIP("%s", res->skip_why);
    T_REQUIRE(res->runs == n_cases, "ran %lld of %lld shapes", (long long)res->runs,
              (long long)n_cases);
    T_CHECK(res->fails == 0, "%lld of %lld shapes failed; first: %s", (long long)res->fails,
            (long long)res->runs, res->first_fail);
}

int main(void) {
    const char *env = getenv("GK_TEST_SEED");
    if (env && *env) seed = strtoull(env, NULL, 0);
    env = getenv("GK_TEST_CASES");
    if (env && *env) n_cases = strtoll(env, NULL, 0);
    printf("# seed=%" PRIu64 " shapes=%lld (set GK_TEST_SEED / GK_TEST_CASES to change)\n", seed,
           (long long)n_cases);

    for (int cfg = 0; cfg < N_CFG; cfg++) {
        gk_status st = gk_set_arch(archs[cfg / N_THREADS]);
        results[cfg].supported = st == GK_SUCCESS;
        if (st == GK_ERR_UNSUPPORTED)
            snprintf(results[cfg].skip_why, sizeof results[cfg].skip_why,
                     "this CPU lacks the %s family: %s", archs[cfg / N_THREADS], gk_last_error());
        else if (st != GK_SUCCESS) /* anything but "unsupported" is a failure, not a skip */
            results[cfg].supported = 1;
    }
    gk_set_arch(NULL);
    collect_specials();
    printf("# edge sizes:");
    for (int i = 0; i < n_special; i++)
        printf(" %lld", (long long)special[i]);
    printf("\n# %d edge shapes first, then %lld random ones\n", n_edge_shapes, (long long)n_cases);
    n_cases += n_edge_shapes;

    t_rng rng = {seed ? seed : 1};
    for (int64_t index = 0; index < n_cases; index++) {
        t_gemm_case cs;
        t_gemm_data d;
        make_case(index, &rng, &cs);
        if (t_gemm_data_init(&d, &cs, &rng) != 0) {
            printf("FAIL random_setup: out of memory at shape #%lld\n", (long long)index);
            return 1;
        }
        for (int cfg = 0; cfg < N_CFG; cfg++)
            if (results[cfg].supported) run_config(cfg, index, &d);
        t_gemm_data_free(&d);
    }
    gk_set_arch(NULL);
    gk_set_num_threads(0);

    for (reporting = 0; reporting < N_CFG; reporting++) {
        char name[64];
        int threads = thread_counts[reporting % N_THREADS];
        if (threads)
            snprintf(name, sizeof name, "random_%s_threads%d", archs[reporting / N_THREADS],
                     threads);
        else
            snprintf(name, sizeof name, "random_%s_threads_default", archs[reporting / N_THREADS]);
        t_run(name, report_cfg);
    }
    return t_finish();
}
