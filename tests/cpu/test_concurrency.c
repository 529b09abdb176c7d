/*
 * test_concurrency.c — gk_sgemm called from several application threads at once, each on its own
 * matrices (small, medium and 300-500 sized shapes that take the packed, threaded path, both
 * layouts), every result checked against the float64 reference with the shared verifier. Run
 * once with the thread count fixed and once while another thread keeps changing it with
 * gk_set_num_threads, which gemmkit.h allows during running calls.
 *
 * GK_TEST_SEED=<n> picks the seed (printed first and in every failure).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "ref.h"

enum { WORKERS = 4, PROBLEMS = 8 };

/* Problem p of every worker has size class p % 4: small (the unpacked path, microseconds per
 * call), medium, small again, large (packed and threaded). Small calls repeat many times so
 * that calls of different threads really overlap: state shared by mistake shows up as wrong
 * results only when two calls interleave. */
static const int repeats[4] = {1500, 20, 1500, 2};
static int64_t calls_per_worker(void) {
    int64_t n = 0;
    for (int p = 0; p < PROBLEMS; p++)
        n += repeats[p % 4];
    return n;
}

typedef struct {
    int id;
    uint64_t seed;
    int64_t runs, fails;
    char first_fail[768];
} worker;

static uint64_t seed = 424242;
static atomic_int workers_done;

static int64_t dim(t_rng *r, int problem) {
    if (problem % 4 == 3) return t_rng_range(r, 300, 500);
    return problem % 2 ? t_rng_range(r, 60, 200) : t_rng_range(r, 1, 40);
}

static void make_case(t_rng *r, int problem, t_gemm_case *cs) {
    static const float scalars[] = {0.0f, 1.0f, -1.0f, 0.5f};
    memset(cs, 0, sizeof *cs);
    cs->layout = t_rng_next(r) % 2 ? GK_ROW_MAJOR : GK_COL_MAJOR;
    cs->ta = t_rng_next(r) % 2 ? GK_TRANS : GK_NO_TRANS;
    cs->tb = t_rng_next(r) % 2 ? GK_TRANS : GK_NO_TRANS;
    cs->m = dim(r, problem), cs->n = dim(r, problem), cs->k = dim(r, problem);
    /* alpha stays non-zero: the multiply is what must survive concurrency. */
    cs->alpha = scalars[1 + t_rng_next(r) % 3];
    cs->beta = scalars[t_rng_next(r) % 4];
    cs->nan_c = cs->beta == 0.0f;
    cs->lda = t_min_ld(cs->layout, cs->ta, cs->m, cs->k) + (int64_t)(t_rng_next(r) % 9);
    cs->ldb = t_min_ld(cs->layout, cs->tb, cs->k, cs->n) + (int64_t)(t_rng_next(r) % 9);
    cs->ldc = t_min_ld(cs->layout, GK_NO_TRANS, cs->m, cs->n) + (int64_t)(t_rng_next(r) % 9);
}

static void note_failure(worker *w, int problem, const t_gemm_case *cs, const char *why) {
    if (w->fails++) return;
    char desc[256];
    t_case_str(cs, desc, sizeof desc);
    snprintf(w->first_fail, sizeof w->first_fail, "seed=%" PRIu64 " worker %d problem %d (%s): %s",
             seed, w->id, problem, desc, why);
}

static void *work(void *arg) {
    worker *w = arg;
    t_rng rng = {w->seed};
    for (int p = 0; p < PROBLEMS; p++) {
        t_gemm_case cs;
        t_gemm_data d;
        make_case(&rng, p, &cs);
        if (t_gemm_data_init(&d, &cs, &rng)) {
            note_failure(w, p, &cs, "out of memory");
            break;
        }
        for (int rep = 0; rep < repeats[p % 4]; rep++) {
            char why[512] = "";
            t_gemm_data_reset_c(&d);
            gk_status st = gk_sgemm(cs.layout, cs.ta, cs.tb, cs.m, cs.n, cs.k, cs.alpha, d.a,
                                    cs.lda, d.b, cs.ldb, cs.beta, d.c, cs.ldc);
            if (st != GK_SUCCESS)
                snprintf(why, sizeof why, "returned %s: %s", gk_status_string(st), gk_last_error());
            else
                t_gemm_data_verify(&d, 0.0, why, sizeof why);
            w->runs++;
            if (why[0]) note_failure(w, p, &cs, why);
        }
        t_gemm_data_free(&d);
    }
    atomic_fetch_add(&workers_done, 1);
    return NULL;
}

/* Keeps changing the process-wide thread count until every worker finished. */
static void *toggle_threads(void *arg) {
    static const int counts[] = {1, 2, 3, 0};
    int64_t *changes = arg;
    const struct timespec pause = {0, 20000}; /* leave the two CI cores to the workers */
    for (int i = 0; atomic_load(&workers_done) < WORKERS; i++, ++*changes) {
        gk_set_num_threads(counts[i % 4]);
        nanosleep(&pause, NULL);
    }
    return NULL;
}

static void run_workers(int toggle, int salt) {
    worker w[WORKERS];
    pthread_t th[WORKERS], toggler;
    int64_t changes = 0;
    atomic_store(&workers_done, 0);
    gk_set_num_threads(0);
    int started = 0;
    for (; started < WORKERS; started++) {
        worker *wk = &w[started];
        memset(wk, 0, sizeof *wk);
        wk->id = started;
        wk->seed = seed * 1000003u + (uint64_t)(salt * WORKERS + started) + 1;
        if (pthread_create(&th[started], NULL, work, wk)) break;
    }
    /* Workers that never started count as done, so the toggler still stops. */
    atomic_fetch_add(&workers_done, WORKERS - started);
    int toggling = toggle && pthread_create(&toggler, NULL, toggle_threads, &changes) == 0;
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    if (toggling) pthread_join(toggler, NULL);
    gk_set_num_threads(0);
    T_REQUIRE(started == WORKERS, "only %d of %d worker threads started", started, WORKERS);
    T_CHECK(!toggle || toggling, "could not start the toggling thread");
    if (toggle) printf("# %lld thread-count changes during the run\n", (long long)changes);
    for (int i = 0; i < WORKERS; i++) {
        T_CHECK(w[i].runs == calls_per_worker(), "worker %d ran %lld of %lld calls", i,
                (long long)w[i].runs, (long long)calls_per_worker());
        T_CHECK(w[i].fails == 0, "%lld of %lld calls failed; first: %s", (long long)w[i].fails,
                (long long)w[i].runs, w[i].first_fail);
    }
}

static void concurrent_calls(void) {
    run_workers(0, 0);
}
static void concurrent_calls_while_thread_count_changes(void) {
    run_workers(1, 1);
}

int main(void) {
    const char *env = getenv("GK_TEST_SEED");
    if (env && *env) seed = strtoull(env, NULL, 0);
    printf("# seed=%" PRIu64 " (set GK_TEST_SEED to change)\n", seed);
    T_RUN(concurrent_calls);
    T_RUN(concurrent_calls_while_thread_count_changes);
    return t_finish();
}
