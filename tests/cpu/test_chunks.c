/*
 * test_chunks.c — the packed path's dynamic work distribution (docs/cpu.md, "Threads"): each
 * thread's block of C is cut into column chunks that idle threads take over, and the result must
 * still be bitwise the one thread's result, for any thread count and any timing. The cases are
 * shapes the planner cuts into several chunks per block (the GEMMKIT_VERBOSE line of a 2-thread
 * call must say chunks=2 or more: each C is at least 2 * GK_PLAN_STEAL_CHUNKS *
 * GK_PLAN_STEAL_MIN_COLS columns wide, so that even a 1 x 2 thread grid leaves each thread enough
 * columns for plan.h's chunk rule, whatever the kernel family and caches), in each packed variant:
 * the in-place ones must show in that line where the kernel family has them (the A-in-place
 * case's k is derived from this CPU's L1d, plan.h's GK_PLAN_ACOLS_L1_DIV rule). Each runs on 2,
 * 3, 4 and 7 threads, also while a spinning thread competes for the cores, so chunks change hands
 * between runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cpu/frame/plan.h"
#include "cpu/kernels/ukernel.h"
#include "gemmkit.h"
#include "threads_probe.h"

typedef struct {
    gk_layout layout;
    gk_trans ta, tb;
    int64_t m, n, k;
    const char *what;
    const char *option; /* in the 2-thread line where the family has the variant, or NULL */
} chunk_case;

enum { A_IN_PLACE = 4 };
static chunk_case cases[] = {
    {GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 1024, 3200, 300, "packed", NULL},
    /* rows (100, rounded up to MR) within a row block and GK_PLAN_BCOLS_MAX_ROWS */
    {GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 100, 6400, 200, "B in place", "b-in-place"},
    {GK_COL_MAJOR, GK_TRANS, GK_TRANS, 801, 3203, 257, "both transposed, edges", NULL},
    {GK_ROW_MAJOR, GK_NO_TRANS, GK_TRANS, 3100, 700, 230, "row-major", NULL},
    /* k set in main: kc * lda floats within L1d / GK_PLAN_ACOLS_L1_DIV */
    {GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 96, 4000, 0, "A in place", "a-in-place"},
};
enum { NCASES = sizeof cases / sizeof cases[0] };
static int has_bcols, has_acols; /* the kernel family in use has the in-place variants */

static float *random_floats(int64_t count, unsigned seed) {
    float *x = malloc((size_t)count * sizeof *x);
    if (!x) return NULL;
    for (int64_t i = 0; i < count; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)(seed >> 8) / 16777216.0f - 0.5f;
    }
    return x;
}

static int run(const chunk_case *cs, const float *a, const float *b, float *c, int threads) {
    const int col = cs->layout == GK_COL_MAJOR, at = cs->ta == GK_TRANS, bt = cs->tb == GK_TRANS;
    const int64_t lda = col ? (at ? cs->k : cs->m) : (at ? cs->m : cs->k);
    const int64_t ldb = col ? (bt ? cs->n : cs->k) : (bt ? cs->k : cs->n);
    const int64_t ldc = col ? cs->m : cs->n;
    if (gk_set_num_threads(threads) != GK_SUCCESS) return 0;
    return gk_sgemm(cs->layout, cs->ta, cs->tb, cs->m, cs->n, cs->k, 1.0f, a, lda, b, ldb, -0.5f, c,
                    ldc) == GK_SUCCESS;
}

/* One 2-thread call of a case, for t_verbose_field. */
typedef struct {
    const chunk_case *cs;
    const float *a, *b;
    float *c;
} two_call;
static int run_on_two(void *arg) {
    const two_call *t = arg;
    return run(t->cs, t->a, t->b, t->c, 2);
}

static void bitwise_any_threads(void) {
    static const int threads[] = {2, 3, 4, 7, 2, 3, 4, 7};
    for (int i = 0; i < NCASES; i++) {
        const chunk_case *cs = &cases[i];
        const int64_t mn = cs->m * cs->n;
        const int64_t cols = cs->layout == GK_COL_MAJOR ? cs->n : cs->m; /* C's, column-major */
        T_REQUIRE(cols >= 2 * GK_PLAN_STEAL_CHUNKS * GK_PLAN_STEAL_MIN_COLS,
                  "%s: %lld columns, too few for plan.h's chunk rule on 2 threads", cs->what,
                  (long long)cols);
        float *a = random_floats(cs->m * cs->k, 11u + (unsigned)i);
        float *b = random_floats(cs->k * cs->n, 211u + (unsigned)i);
        float *c0 = random_floats(mn, 5u);
        float *ref = malloc((size_t)mn * sizeof *ref), *c = malloc((size_t)mn * sizeof *c);
        T_REQUIRE(a && b && c0 && ref && c, "out of memory");
        memcpy(ref, c0, (size_t)mn * sizeof *ref);
        T_REQUIRE(run(cs, a, b, ref, 1), "%s: call failed: %s", cs->what, gk_last_error());
        two_call tc = {cs, a, b, c};
        char line[4096];
        const int ok2 = t_verbose_text(run_on_two, &tc, line, sizeof line);
        const char *at = strstr(line, "chunks=");
        const int chunks = ok2 && at ? atoi(at + 7) : -1;
        T_CHECK(chunks >= 2, "%s: 2-thread plan has chunks=%d, want >= 2 (the case tests nothing)",
                cs->what, chunks);
        const int want_option =
            cs->option && (strcmp(cs->option, "b-in-place") == 0 ? has_bcols : has_acols);
        T_CHECK(!want_option || strstr(line, cs->option), "%s: 2-thread plan without %s: %s",
                cs->what, cs->option, line);
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
            /* The second round competes with a spinning thread for the cores. */
            const int contend = t >= 4;
            if (contend) T_REQUIRE(t_spin_start() == 0, "pthread_create");
            memcpy(c, c0, (size_t)mn * sizeof *c);
            const int ok = run(cs, a, b, c, threads[t]);
            if (contend) t_spin_stop();
            T_REQUIRE(ok, "call failed: %s", gk_last_error());
            int64_t diff = 0;
            for (int64_t e = 0; e < mn; e++)
                diff += memcmp(&c[e], &ref[e], sizeof(float)) != 0;
            T_CHECK(diff == 0,
                    "%s %lldx%lldx%lld: %lld elements differ from 1 thread on %d threads%s",
                    cs->what, (long long)cs->m, (long long)cs->n, (long long)cs->k, (long long)diff,
                    threads[t], contend ? " (contended)" : "");
        }
        free(a), free(b), free(c0), free(ref), free(c);
    }
    gk_set_num_threads(0);
}

int main(void) {
    /* read at the first call; the 2-thread plan is read from it */
    setenv("GEMMKIT_VERBOSE", "1", 1);
    gk_cpu_info info;
    if (gk_cpu_get_info(&info) != GK_SUCCESS) {
        printf("FAIL cpu_info: gk_cpu_get_info: %s\n", gk_last_error());
        return 1;
    }
    const int u = gk_ukr_find(info.arch);
    has_bcols = u >= 0 && gk_ukr_table[u].bcols != NULL;
    has_acols = u >= 0 && gk_ukr_table[u].acols != NULL && gk_ukr_table[u].abcols != NULL &&
                info.l1d_bytes > 0;
    chunk_case *ac = &cases[A_IN_PLACE];
    ac->k = info.l1d_bytes / GK_PLAN_ACOLS_L1_DIV / ((int64_t)sizeof(float) * ac->m);
    if (ac->k < 8) ac->k = 8;
    printf("# kernel family %s: in-place B %s, in-place A %s (L1d %lld bytes: A-in-place k=%lld)\n",
           info.arch, has_bcols ? "checked" : "absent", has_acols ? "checked" : "absent",
           (long long)info.l1d_bytes, (long long)ac->k);
    T_RUN(bitwise_any_threads);
    return t_finish();
}
