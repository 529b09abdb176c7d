/*
 * parallel.c — gemmkit's own thread pool behind gk_parallel (parallel.h).
 *
 * Why not OpenMP: GNU libgomp keeps its thread team across a fork(), and a child that starts a
 * parallel region waits for threads that do not exist, for ever (docs/decisions.md, "Threads").
 * This pool is small enough to own: worker threads are created on first need and kept; a call
 * takes idle workers, posts one part to each, runs part 0 itself and waits for the rest.
 *
 * Fork: pthread_atfork handlers hold the pool's lock across fork() (so no list is half-edited)
 * and, in the child, forget every worker (they were not copied) and every reservation. The
 * child then creates its own workers on its first parallel call. The forgotten worker records
 * (a few hundred bytes each) stay allocated in the child.
 *
 * Oversubscription (the documented rule, docs/cpu.md "Threads"): a parallel call made from one
 * of gemmkit's workers or from inside an active OpenMP parallel region runs on its caller's
 * thread alone, and a call made while other parallel calls run gets only the threads they leave
 * of this process's CPUs (at least its own). A call with the pool to itself gets the count it
 * asks for, as an explicit setting.
 * GEMMKIT_DYNAMIC=0 turns the rule off (every call gets the threads it asks for, inside an
 * OpenMP region too); calls from gemmkit's own workers stay on one thread regardless.
 *
 * Waiting: a worker spins for a few milliseconds for its next part before it sleeps on a futex,
 * and so does a caller waiting for its parts, so calls in a loop cost no system call, while an
 * idle pool gives its cores back soon.
 */
#include "core/parallel.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define cpu_relax() _mm_pause()
#else
#define cpu_relax() ((void)0)
#endif

/* Present when the process has an OpenMP runtime loaded; NULL otherwise. */
extern int omp_in_parallel(void) __attribute__((weak));

/* How long a waiting thread spins before it sleeps: about as long as GNU OpenMP's default,
 * because waking a sleeping thread costs as much as a whole small GEMM on a VM (figures in
 * docs/decisions.md, "Threads"). */
#define SPIN_NS 8000000

/* ---- futex-style wait and wake on one 32-bit word ------------------------------------------ */

static void word_wait(atomic_int *w, int expected) {
#if defined(__linux__)
    syscall(SYS_futex, (int *)w, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
#else
    (void)w, (void)expected;
    sched_yield();
#endif
}

static void word_wake(atomic_int *w) {
#if defined(__linux__)
    syscall(SYS_futex, (int *)w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
#else
    (void)w;
#endif
}

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Spin until *w != value or SPIN_NS pass; returns the last value read. */
static int spin_while(atomic_int *w, int value) {
    int v = atomic_load_explicit(w, memory_order_acquire);
    if (v != value) return v;
    const int64_t until = now_ns() + SPIN_NS;
    for (unsigned i = 1;; i++) {
        cpu_relax();
        v = atomic_load_explicit(w, memory_order_acquire);
        if (v != value) return v;
        if ((i & 255) == 0 && now_ns() > until) return v;
    }
}

/* States of a wait word: the waiter is RUNNING (or spinning), has gone to SLEEP on it, or the
 * event it waits for is DONE. */
enum { RUNNING = 0, SLEEP = 1, DONE = 2 };

/* Wait until *w == DONE (spin, then sleep), then reset it to RUNNING. */
static void wait_done(atomic_int *w) {
    for (;;) {
        int v = spin_while(w, RUNNING);
        if (v == DONE) break;
        int expected = RUNNING;
        if (v == RUNNING && !atomic_compare_exchange_strong(w, &expected, SLEEP)) continue;
        word_wait(w, SLEEP);
        if (atomic_load_explicit(w, memory_order_acquire) == DONE) break;
    }
    atomic_store_explicit(w, RUNNING, memory_order_relaxed);
}

/* Set *w to DONE and wake its waiter if it sleeps. The waiter may return as soon as it sees
 * DONE, so *w must be the last of its memory touched (the wake is a system call on the address
 * and harmless if the word is gone). */
static void signal_done(atomic_int *w) {
    if (atomic_exchange_explicit(w, DONE, memory_order_acq_rel) == SLEEP) word_wake(w);
}

/* ---- the pool -------------------------------------------------------------------------------- */

typedef struct worker worker;

typedef struct team {
    gk_task_fn fn;
    void *ctx;
    int nthreads;
    worker **crew; /* crew[i] runs part i + 1 */
    /* Workers count down `left` while the caller spins on `done`: apart, so the countdown does
     * not disturb the spin. */
    _Alignas(64) atomic_int left; /* parts not yet finished by workers */
    _Alignas(64) atomic_int done; /* the caller's wait word */
} team;

/* One cache line each: a worker spins on its own `posted`, which no other worker's post may
 * disturb. */
struct worker {
    _Alignas(64) team *job; /* set before `posted` becomes DONE */
    int id;                 /* part number within job */
    atomic_int posted;      /* the worker's wait word */
    struct worker *next_idle;
};

/* Post part i + 1 of t to t->crew[i]. */
static void post(team *t, int i) {
    worker *w = t->crew[i];
    w->job = t;
    w->id = i + 1;
    signal_done(&w->posted);
}

/* Parts are posted down a binary tree (the caller posts crew[0] and crew[1], crew[i] posts
 * crew[2i + 2] and crew[2i + 3]): a team of 16 starts after 4 hand-offs instead of 15 from one
 * thread, each a cache line moving between cores. */
static void post_children(team *t, int first) {
    for (int i = first; i < first + 2 && i < t->nthreads - 1; i++)
        post(t, i);
}

static struct {
    pthread_mutex_t lock; /* guards idle; taken by callers only */
    worker *idle;         /* workers waiting for a part */
    atomic_int busy;      /* threads reserved by running parallel calls, callers included */
    int cpus;             /* budget for `busy` */
    int dynamic;          /* GEMMKIT_DYNAMIC: apply the oversubscription rule */
    int forkable;         /* the fork handlers are registered (else no worker is ever made) */
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER};

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static _Thread_local int in_worker;

static void *worker_main(void *arg) {
    worker *w = arg;
    in_worker = 1;
    for (;;) {
        wait_done(&w->posted);
        team *t = w->job;
        post_children(t, 2 * w->id);
        t->fn(t->ctx, w->id, t->nthreads);
        /* The caller puts us back on the idle list, all of its workers under one lock: many
         * workers finishing at once would otherwise queue on the lock. */
        if (atomic_fetch_sub_explicit(&t->left, 1, memory_order_acq_rel) == 1)
            signal_done(&t->done);
    }
    return NULL;
}

/* A new worker, or NULL when no thread can be created. Workers block every signal: a process's
 * handlers are for its own threads. */
static worker *worker_new(void) {
    worker *w = aligned_alloc(64, sizeof *w);
    if (!w) return NULL;
    memset(w, 0, sizeof *w);
    atomic_init(&w->posted, RUNNING);
    pthread_attr_t attr;
    sigset_t all, old;
    sigfillset(&all);
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t tid;
    const int err = pthread_create(&tid, &attr, worker_main, w);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (err) {
        free(w);
        return NULL;
    }
    return w;
}

static void before_fork(void) {
    pthread_mutex_lock(&pool.lock);
}
static void after_fork_parent(void) {
    pthread_mutex_unlock(&pool.lock);
}
static void after_fork_child(void) {
    /* Only the forking thread exists now: the workers and every call in flight are gone. */
    pthread_mutex_init(&pool.lock, NULL);
    pool.idle = NULL;
    atomic_store(&pool.busy, 0);
}

int gk_parallel_cpus(void) {
#if defined(__linux__)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        const int n = CPU_COUNT(&set);
        if (n > 0) return n;
    }
#endif
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static void pool_init(void) {
    pool.cpus = gk_parallel_cpus();
    const char *d = getenv("GEMMKIT_DYNAMIC");
    pool.dynamic = !(d && (strcmp(d, "0") == 0 || strcmp(d, "false") == 0));
    /* Without the handlers (out of memory) a child of fork() would wait for workers it does not
     * have: the pool then stays empty and every call runs on its caller's thread. */
    pool.forkable = pthread_atfork(before_fork, after_fork_parent, after_fork_child) == 0;
}

/* Reserve up to `want` threads (the caller's included); at least 1. A call that finds no other
 * parallel call running gets all it asks for (an explicit thread count is honoured); otherwise
 * what the budget has left. */
static int reserve(int want) {
    if (!pool.dynamic) {
        atomic_fetch_add(&pool.busy, want);
        return want;
    }
    int busy = atomic_load_explicit(&pool.busy, memory_order_relaxed);
    for (;;) {
        int t = busy == 0 ? want : pool.cpus - busy;
        t = t < 1 ? 1 : t > want ? want : t;
        if (atomic_compare_exchange_weak(&pool.busy, &busy, busy + t)) return t;
    }
}

void gk_parallel(int nthreads, gk_task_fn fn, void *ctx) {
    if (nthreads <= 1 || in_worker) {
        fn(ctx, 0, 1);
        return;
    }
    pthread_once(&pool_once, pool_init);
    if (!pool.forkable || (pool.dynamic && omp_in_parallel && omp_in_parallel())) {
        fn(ctx, 0, 1);
        return;
    }
    const int reserved = reserve(nthreads);

    /* Take reserved - 1 idle workers, creating threads for the shortfall. */
    worker *crew[64], **w = crew;
    if (reserved > (int)(sizeof crew / sizeof crew[0])) w = malloc((size_t)reserved * sizeof *w);
    int got = 0;
    if (w && reserved > 1) {
        pthread_mutex_lock(&pool.lock);
        while (got < reserved - 1 && pool.idle) {
            w[got++] = pool.idle;
            pool.idle = pool.idle->next_idle;
        }
        pthread_mutex_unlock(&pool.lock);
        while (got < reserved - 1 && (w[got] = worker_new()) != NULL)
            got++;
    }
    /* Threads that could not be had go back to the budget; the parts are fewer. */
    if (got + 1 < reserved) atomic_fetch_sub(&pool.busy, reserved - (got + 1));

    team t = {.fn = fn, .ctx = ctx, .nthreads = got + 1, .crew = w};
    atomic_init(&t.left, got);
    atomic_init(&t.done, RUNNING);
    post_children(&t, 0);
    fn(ctx, 0, got + 1);
    if (got > 0) {
        wait_done(&t.done);
        /* Pushed last to first, so that the next call takes them in the same order and each
         * part number lands on the thread that ran it before, whose caches hold that part's
         * blocks of A, B and C (docs/decisions.md, "Threads", for what the order cost). A worker
         * may not be waiting yet when it is taken again: its next part is posted to its wait word,
         * which it reads when it gets there. */
        pthread_mutex_lock(&pool.lock);
        for (int i = got - 1; i >= 0; i--) {
            w[i]->next_idle = pool.idle;
            pool.idle = w[i];
        }
        pthread_mutex_unlock(&pool.lock);
    }
    atomic_fetch_sub(&pool.busy, got + 1);
    if (w != crew) free(w);
}
