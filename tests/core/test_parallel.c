/*
 * test_parallel.c — the thread pool behind gk_parallel (src/core/parallel.c): every part runs
 * exactly once, a child of fork() can use the pool after its parent did (and the parent still
 * can), calls from inside an OpenMP parallel region or from many threads at once add no threads
 * past the CPU budget, and GEMMKIT_DYNAMIC=0 lifts that rule.
 */
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "core/parallel.h"

typedef struct {
    atomic_int runs[64];  /* times each part ran */
    atomic_int parts;     /* the nthreads the parts saw (all equal) */
    atomic_int mismatch;  /* a part saw another nthreads */
    atomic_int now, peak; /* workers (id > 0) running at once, across calls */
    int spin_us;          /* how long each part works */
} probe;

static void part(void *ctx, int id, int nthreads) {
    probe *p = ctx;
    atomic_fetch_add(&p->runs[id], 1);
    int expected = 0;
    if (!atomic_compare_exchange_strong(&p->parts, &expected, nthreads) && expected != nthreads)
        atomic_store(&p->mismatch, 1);
    if (id > 0) {
        int n = atomic_fetch_add(&p->now, 1) + 1, pk = atomic_load(&p->peak);
        while (n > pk && !atomic_compare_exchange_weak(&p->peak, &pk, n)) {
        }
    }
    if (p->spin_us) usleep((useconds_t)p->spin_us);
    if (id > 0) atomic_fetch_sub(&p->now, 1);
}

/* One call asking for `want`; returns the parts it ran (0 if any ran twice or not at all). */
static int run_once(int want, probe *p) {
    for (int i = 0; i < 64; i++)
        atomic_store(&p->runs[i], 0);
    atomic_store(&p->parts, 0);
    gk_parallel(want, part, p);
    const int t = atomic_load(&p->parts);
    if (t < 1 || t > want || atomic_load(&p->mismatch)) return 0;
    for (int i = 0; i < 64; i++)
        if (atomic_load(&p->runs[i]) != (i < t)) return 0;
    return t;
}

static void parts(void) {
    probe p = {0};
    for (int want = 1; want <= 9; want++) {
        const int t = run_once(want, &p);
        T_CHECK(t == want, "asked %d, ran %d parts (or a part twice)", want, t);
    }
    for (int r = 0; r < 2000; r++) /* back-to-back calls reuse the workers */
        T_REQUIRE(run_once(3, &p) == 3, "call %d of a series ran the wrong parts", r);
}

static void record_thread(void *ctx, int id, int nthreads) {
    (void)nthreads;
    ((pthread_t *)ctx)[id] = pthread_self();
}

/* Part i of consecutive calls runs on the same thread, so that the blocks a part works on stay
 * in that core's caches from call to call. */
static void stable_parts(void) {
    pthread_t first[8], again[8];
    gk_parallel(8, record_thread, first);
    for (int r = 0; r < 20; r++) {
        gk_parallel(8, record_thread, again);
        for (int i = 0; i < 8; i++)
            T_REQUIRE(pthread_equal(first[i], again[i]), "call %d: part %d moved to another thread",
                      r, i);
    }
}

/* Run `calls` parallel calls of 4 parts in a fresh child; 0 when all were right. A hang fails
 * through alarm(). */
static int child_status(int calls) {
    pid_t pid = fork();
    if (pid == 0) {
        alarm(10);
        probe p = {0};
        int ok = 1;
        for (int r = 0; r < calls; r++)
            ok &= run_once(4, &p) == 4;
        _exit(ok ? 0 : 3);
    }
    int st = 0;
    if (waitpid(pid, &st, 0) != pid) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void *busy_caller_wide(void *arg) {
    probe *p = arg;
    for (int r = 0; r < 100; r++)
        gk_parallel(gk_parallel_cpus(), part, p);
    return NULL;
}

static void *busy_caller(void *arg) {
    probe *p = arg;
    for (int r = 0; r < 200; r++)
        run_once(2, p);
    return NULL;
}

static void fork_after_use(void) {
    probe p = {0};
    T_REQUIRE(run_once(4, &p) == 4, "parent's first call");
    int st = child_status(50);
    T_CHECK(st == 0, "child after the parent used the pool: status %d (%s)", st,
            st == 128 + 14 ? "hung" : "wrong parts or crashed");
    T_CHECK(run_once(4, &p) == 4, "parent after the fork");
    /* Fork while another thread of the parent is inside parallel calls. */
    probe q = {.spin_us = 200};
    pthread_t th;
    T_REQUIRE(pthread_create(&th, NULL, busy_caller, &q) == 0, "pthread_create");
    for (int i = 0; i < 5; i++) {
        usleep(1000);
        st = child_status(20);
        T_CHECK(st == 0, "child forked during a parallel call: status %d", st);
    }
    pthread_join(th, NULL);
    T_CHECK(run_once(4, &p) == 4, "parent after forks during calls");
}

/* Inside an OpenMP parallel region a call runs on its caller's thread alone. */
static void nested_in_openmp(void) {
    atomic_int worst = 0;
#pragma omp parallel num_threads(2)
    {
        probe p = {0};
        const int t = run_once(4, &p);
        if (t != 1) atomic_store(&worst, t ? t : -1);
    }
    T_CHECK(atomic_load(&worst) == 0, "a call inside a 2-thread region ran %d parts",
            atomic_load(&worst));
}

/* Peak number of workers busy at once while 8 application threads call at the same time. */
static int concurrent_peak(void) {
    probe p = {.spin_us = 100};
    pthread_t th[8];
    for (int i = 0; i < 8; i++)
        if (pthread_create(&th[i], NULL, busy_caller_wide, &p) != 0) return -1;
    for (int i = 0; i < 8; i++)
        pthread_join(th[i], NULL);
    return atomic_load(&p.peak);
}

/* Many application threads at once: the workers busy at any moment stay below the CPU count. */
static void concurrent_callers(void) {
    const int cpus = gk_parallel_cpus(), peak = concurrent_peak();
    T_CHECK(peak >= 0 && peak <= cpus - 1,
            "%d workers ran at once for 8 callers on %d CPUs (at most %d allowed)", peak, cpus,
            cpus - 1);
}

/* GEMMKIT_DYNAMIC=0 (read once per process: checked in a fresh copy of this program) lets every
 * call have its threads. */
static void dynamic_off(void) {
    char cmd[4096];
    const ssize_t len = readlink("/proc/self/exe", cmd + 1, sizeof cmd - 64);
    if (len <= 0) T_SKIP("no /proc/self/exe");
    cmd[0] = '"';
    snprintf(cmd + 1 + len, 64, "\" --peak");
    setenv("GEMMKIT_DYNAMIC", "0", 1);
    FILE *f = popen(cmd, "r");
    unsetenv("GEMMKIT_DYNAMIC");
    T_REQUIRE(f, "popen");
    int peak = -1;
    T_CHECK(fscanf(f, "%d", &peak) == 1, "no peak printed");
    pclose(f);
    T_CHECK(peak > gk_parallel_cpus() - 1, "peak %d with the rule off (expected above %d)", peak,
            gk_parallel_cpus() - 1);
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--peak") == 0) {
        printf("%d\n", concurrent_peak());
        return 0;
    }
    T_RUN(parts);
    T_RUN(stable_parts);
    T_RUN(fork_after_use);
    T_RUN(nested_in_openmp);
    T_RUN(concurrent_callers);
    T_RUN(dynamic_off);
    return t_finish();
}
