/*
 * test_chunks.c — the packed path's dynamic work distribution (docs/cpu.md, "Threads"): each
 * thread's block of C is cut into column chunks that idle threads take over, and the result must
 * still be bitwise the one thread's result, for any thread count and any timing. The cases are
 * shapes the planner cuts into several chunks per block (the GEMMKIT_VERBOSE line of a 2-thread
 * call must say chunks=2 or more), in each packed variant; each runs on 2, 3, 4 and 7 threads,
 * also while a spinning thread competes for the cores, so chunks change hands between runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "gemmkit.h"
#include "threads_probe.h"

typedef struct {
    gk_layout layout;
    gk_trans ta, tb;
    int64_t m, n, k;
    const char *what;
} chunk_case;

static const chunk_case cases[] = {
    {GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 1024, 3200, 300, "packed"},
    {GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 100, 6400, 200, "B in place"},
    {GK_COL_MAJOR, GK_TRANS, GK_TRANS, 801, 3203, 257, "both transposed, edges"},
    {GK_ROW_MAJOR, GK_NO_TRANS, GK_TRANS, 3100, 700, 230, "row-major"},
    {GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 96, 4000, 900, "A in place"},
};
enum { NCASES = sizeof cases / sizeof cases[0] };

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
        float *a = random_floats(cs->m * cs->k, 11u + (unsigned)i);
        float *b = random_floats(cs->k * cs->n, 211u + (unsigned)i);
        float *c0 = random_floats(mn, 5u);
        float *ref = malloc((size_t)mn * sizeof *ref), *c = malloc((size_t)mn * sizeof *c);
        T_REQUIRE(a && b && c0 && ref && c, "out of memory");
        memcpy(ref, c0, (size_t)mn * sizeof *ref);
        T_REQUIRE(run(cs, a, b, ref, 1), "%s: call failed: %s", cs->what, gk_last_error());
        two_call tc = {cs, a, b, c};
        const int chunks = t_verbose_field(run_on_two, &tc, "chunks=");
        T_CHECK(chunks >= 2, "%s: 2-thread plan has chunks=%d, want >= 2 (the case tests nothing)",
                cs->what, chunks);
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
    setenv("GEMMKIT_VERBOSE", "1", 1); /* read at the first call; only the chunk count is read from it */
    T_RUN(bitwise_any_threads);
    return t_finish();
}
