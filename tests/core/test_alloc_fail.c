/*
 * test_alloc_fail.c — every allocation the CPU path makes fails cleanly. The program is linked
 * with -Wl,--wrap for the allocators and the thread calls (Makefile, ALLOC_FAIL_WRAP), so each
 * call that libgemmkit.a makes to them comes here first; while armed, the k-th such call fails
 * (NULL/ENOMEM, EAGAIN for pthread_create) for k = 1, 2, ... until a run makes fewer than k.
 *
 * Each call on each path (tiles, the vector forms, packed on 1 and 3 threads, cblas_sgemm,
 * sgemm_) must then either succeed with a correct C that is bitwise the result of an undisturbed
 * call (fewer threads change no bit: docs/cpu.md, "Reproducibility"), or report
 * GK_ERR_OUT_OF_MEMORY with gk_last_error() saying what could not be allocated and C
 * bit-identical to before; the BLAS entry points have no status, so there the message is the
 * only sign. A thread that cannot be created or a fork handler that cannot be registered must
 * cost threads, never the call. The same call without injection must succeed right after.
 *
 * Two settings: "first use" runs the whole sequence in a fresh child of fork() per k, so the
 * one-time set-up (thread key, fork handlers, the pool's first workers) meets the failure too, and
 * a grandchild of fork() then checks that threaded calls still work; "fresh thread" runs one path
 * per k on a new thread of this process (whose packing buffer does not exist yet) with the pool
 * already warm, including a 66-thread call whose crew list is allocated.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "gemmkit.h"
#include "ref.h"

/* The BLAS entry points libgemmkit exports (src/blas/). */
void sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc, size_t ta_len, size_t tb_len);
void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a,
                 int lda, const float *b, int ldb, float beta, float *c, int ldc);

/* ---- the injector ---------------------------------------------------------------------------- */

static atomic_int armed;
static atomic_long calls;            /* wrapped calls made while armed */
static atomic_long fail_at;          /* the armed call to fail, counting from 1 */
static _Atomic(const char *) failed; /* what was made to fail; NULL when nothing was */

static char trace[1024]; /* the armed calls' names, in order (written by one thread at a time) */

static int inject(const char *what) {
    if (!atomic_load(&armed)) return 0;
    const size_t used = strlen(trace);
    snprintf(trace + used, sizeof trace - used, " %s", what);
    if (atomic_fetch_add(&calls, 1) + 1 != atomic_load(&fail_at)) return 0;
    atomic_store(&failed, what);
    return 1;
}

static void arm(long k) {
    atomic_store(&calls, 0);
    atomic_store(&fail_at, k);
    atomic_store(&failed, NULL);
    trace[0] = '\0';
}

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__real_aligned_alloc(size_t align, size_t n);
int __real_posix_memalign(void **p, size_t align, size_t n);
char *__real_strdup(const char *s);
FILE *__real_fopen(const char *path, const char *mode);
int __real_pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);
int __real_pthread_key_create(pthread_key_t *key, void (*dtor)(void *));
int __real_pthread_setspecific(pthread_key_t key, const void *value);
int __real_pthread_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void));

#define FAIL_NULL(what)                                                                            \
    do {                                                                                           \
        if (inject(what)) {                                                                        \
            errno = ENOMEM;                                                                        \
            return NULL;                                                                           \
        }                                                                                          \
    } while (0)

void *__wrap_malloc(size_t n) {
    FAIL_NULL("malloc");
    return __real_malloc(n);
}
void *__wrap_calloc(size_t n, size_t size) {
    FAIL_NULL("calloc");
    return __real_calloc(n, size);
}
void *__wrap_realloc(void *p, size_t n) {
    FAIL_NULL("realloc");
    return __real_realloc(p, n);
}
void *__wrap_aligned_alloc(size_t align, size_t n) {
    FAIL_NULL("aligned_alloc");
    return __real_aligned_alloc(align, n);
}
int __wrap_posix_memalign(void **p, size_t align, size_t n) {
    return inject("posix_memalign") ? ENOMEM : __real_posix_memalign(p, align, n);
}
char *__wrap_strdup(const char *s) {
    FAIL_NULL("strdup");
    return __real_strdup(s);
}
FILE *__wrap_fopen(const char *path, const char *mode) {
    FAIL_NULL("fopen");
    return __real_fopen(path, mode);
}
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *),
                          void *arg) {
    return inject("pthread_create") ? EAGAIN : __real_pthread_create(t, attr, fn, arg);
}
int __wrap_pthread_key_create(pthread_key_t *key, void (*dtor)(void *)) {
    return inject("pthread_key_create") ? EAGAIN : __real_pthread_key_create(key, dtor);
}
int __wrap_pthread_setspecific(pthread_key_t key, const void *value) {
    return inject("pthread_setspecific") ? ENOMEM : __real_pthread_setspecific(key, value);
}
int __wrap_pthread_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void)) {
    return inject("pthread_atfork") ? ENOMEM : __real_pthread_atfork(prepare, parent, child);
}

/* Failures that must cost threads, never the call. */
static int must_degrade(const char *what) {
    return what && (!strcmp(what, "pthread_create") || !strcmp(what, "pthread_atfork"));
}

/* ---- the calls ------------------------------------------------------------------------------ */

enum { VIA_GK, VIA_CBLAS, VIA_F77 };

/* One call: name, entry point, threads, layout, transpositions, m, n, k, alpha, beta, and whether
 * it takes the small path (which allocates nothing once the pool is warm). */
typedef struct spec {
    const char *name;
    int via, threads;
    gk_layout layout;
    gk_trans ta, tb;
    int64_t m, n, k;
    float alpha, beta;
    int small;
} spec;

static const spec specs[] = {
    {"tiles", VIA_GK, 1, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 8, 8, 8, 1.0f, 0.0f, 1},
    {"tiles_transposed", VIA_GK, 1, GK_ROW_MAJOR, GK_TRANS, GK_TRANS, 20, 17, 24, 0.5f, -1.0f, 1},
    {"axpys_3threads", VIA_GK, 3, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 1000, 1, 500, 1.0f, 0.5f,
     1},
    {"dots_3threads", VIA_GK, 3, GK_COL_MAJOR, GK_TRANS, GK_NO_TRANS, 2, 1000, 500, -1.0f, 0.0f, 1},
    {"swapped_dots_3threads", VIA_GK, 3, GK_ROW_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 1000, 1, 500, 1.0f,
     1.0f, 1},
    {"packed_1thread", VIA_GK, 1, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 200, 200, 200, 1.0f, 0.0f,
     0},
    {"packed_3threads", VIA_GK, 3, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 300, 300, 300, 0.5f,
     2.0f, 0},
    {"packed_transposed_3threads", VIA_GK, 3, GK_ROW_MAJOR, GK_TRANS, GK_TRANS, 300, 250, 260, 1.0f,
     0.0f, 0},
    {"cblas_sgemm_3threads", VIA_CBLAS, 3, GK_ROW_MAJOR, GK_NO_TRANS, GK_TRANS, 320, 300, 280, 1.0f,
     -0.5f, 0},
    {"sgemm__3threads", VIA_F77, 3, GK_COL_MAJOR, GK_TRANS, GK_NO_TRANS, 330, 310, 290, 2.0f, 1.0f,
     0},
    /* more threads than the pool's crew array on the stack (parallel.c): the list is allocated */
    {"packed_66threads", VIA_GK, 66, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 256, 256, 256, 1.0f,
     0.0f, 0},
};

typedef struct scen {
    const spec *sp;
    t_gemm_data d;
    float *got; /* C after the armed call */
} scen;

enum {
    NSCEN = sizeof specs / sizeof specs[0],
    FIRST_USE_SCENS = NSCEN - 1, /* all but the 66-thread call */
};
static scen scens[NSCEN];

/* One call of s on C reset to its initial state; the status (for the BLAS entry points, which
 * return none: GK_ERR_OUT_OF_MEMORY when they left a message, else GK_SUCCESS). */
static gk_status call(scen *s) {
    const t_gemm_case *c = &s->d.cs;
    t_gemm_data_reset_c(&s->d);
    gk_set_num_threads(s->sp->threads);
    if (s->sp->via == VIA_GK)
        return gk_sgemm(c->layout, c->ta, c->tb, c->m, c->n, c->k, c->alpha, s->d.a, c->lda, s->d.b,
                        c->ldb, c->beta, s->d.c, c->ldc);
    if (s->sp->via == VIA_CBLAS) {
        cblas_sgemm(c->layout, c->ta, c->tb, (int)c->m, (int)c->n, (int)c->k, c->alpha, s->d.a,
                    (int)c->lda, s->d.b, (int)c->ldb, c->beta, s->d.c, (int)c->ldc);
    } else {
        const int m = (int)c->m, n = (int)c->n, k = (int)c->k;
        const int lda = (int)c->lda, ldb = (int)c->ldb, ldc = (int)c->ldc;
        sgemm_(c->ta == GK_TRANS ? "T" : "N", c->tb == GK_TRANS ? "T" : "N", &m, &n, &k, &c->alpha,
               s->d.a, &lda, s->d.b, &ldb, &c->beta, s->d.c, &ldc, 1, 1);
    }
    return gk_last_error()[0] ? GK_ERR_OUT_OF_MEMORY : GK_SUCCESS;
}

/* Judge an armed call of s that returned st after `what` was made to fail (NULL: nothing was);
 * keeps C in s->got. Returns 0 when the call followed the rule, else 1 with why. */
static int judge(scen *s, gk_status st, const char *what, char *why, size_t len) {
    const t_gemm_data *d = &s->d;
    memcpy(s->got, d->c_buf, (size_t)d->c_len * sizeof(float));
    if (st == GK_SUCCESS) return t_gemm_data_verify(d, 0.0, why, len);
    const char *msg = gk_last_error();
    if (st != GK_ERR_OUT_OF_MEMORY)
        snprintf(why, len, "status %s (%s)", gk_status_string(st), msg);
    else if (!what)
        snprintf(why, len, "out of memory with nothing made to fail: %s", msg);
    else if (must_degrade(what))
        snprintf(why, len, "a failed %s failed the call instead of costing threads: %s", what, msg);
    else if (!strstr(msg, "allocate"))
        snprintf(why, len, "message does not say what could not be allocated: \"%s\"", msg);
    else if (memcmp(d->c_buf, d->c0_buf, (size_t)d->c_len * sizeof(float)))
        snprintf(why, len, "C changed by a call that failed");
    else
        return 0;
    return 1;
}

/* The same call without injection: it must succeed, and when the armed call succeeded too (on
 * fewer threads, perhaps), match it bit for bit. Returns 0 when so, else 1 with why. */
static int rerun(scen *s, gk_status armed_st, char *why, size_t len) {
    const gk_status st = call(s);
    if (st != GK_SUCCESS) {
        snprintf(why, len, "the next call without injection failed: %s (%s)", gk_status_string(st),
                 gk_last_error());
        return 1;
    }
    char sub[256];
    if (t_gemm_data_verify(&s->d, 0.0, sub, sizeof sub)) {
        snprintf(why, len, "the next call without injection: %s", sub);
        return 1;
    }
    if (armed_st == GK_SUCCESS && memcmp(s->got, s->d.c_buf, (size_t)s->d.c_len * sizeof(float))) {
        snprintf(why, len,
                 "the call that succeeded despite the failure differs in bits from one "
                 "without it");
        return 1;
    }
    return 0;
}

/* ---- first use: the whole sequence in a fresh child per k ---------------------------------- */

enum { MAX_K = 2000 };
/* A child's verdict, or the calls it made when none failed, in memory shared with the parent. */
enum { CHILD_WHY = 1024 };
static char *child_why;

/* The sequence with the k-th wrapped call failing, in this (fresh) process: 0 when all held and
 * the k-th call came, 2 when all held and it did not (k is past the last call), 1 otherwise. */
static int first_use_child(long k) {
    char why[512] = "";
    gk_status st[NSCEN];
    arm(k);
    for (int i = 0; i < FIRST_USE_SCENS && !why[0]; i++) {
        char sub[400];
        atomic_store(&armed, 1);
        st[i] = call(&scens[i]);
        atomic_store(&armed, 0);
        const char *what = atomic_load(&failed);
        if (judge(&scens[i], st[i], what, sub, sizeof sub))
            snprintf(why, sizeof why, "%s (%s failed): %s", scens[i].sp->name,
                     what ? what : "nothing", sub);
    }
    const char *what = atomic_load(&failed);
    for (int i = 0; i < FIRST_USE_SCENS && !why[0]; i++) {
        char sub[400];
        if (rerun(&scens[i], st[i], sub, sizeof sub))
            snprintf(why, sizeof why, "%s after %s failed: %s", scens[i].sp->name,
                     what ? what : "nothing", sub);
    }
    /* Threads after fork(): a grandchild that hangs (a pool that forgot no worker) is killed. */
    if (!why[0]) {
        const pid_t pid = fork();
        if (pid == 0) {
            alarm(20);
            char sub[400];
            scen *s = &scens[0];
            while (strcmp(s->sp->name, "packed_3threads"))
                s++;
            _exit(rerun(s, GK_ERR_OUT_OF_MEMORY, sub, sizeof sub) ? 1 : 0);
        }
        int ws = 0;
        if (pid < 0 || waitpid(pid, &ws, 0) != pid || !WIFEXITED(ws) || WEXITSTATUS(ws))
            snprintf(why, sizeof why,
                     "after %s failed, a threaded call in a child of fork() failed or hung "
                     "(wait status %d)",
                     what ? what : "nothing", ws);
    }
    snprintf(child_why, CHILD_WHY, "%s", why[0] ? why : trace);
    return why[0] ? 1 : what ? 0 : 2;
}

static void first_use(void) {
    long k;
    for (k = 1; k <= MAX_K; k++) {
        child_why[0] = '\0';
        const pid_t pid = fork();
        T_REQUIRE(pid >= 0, "fork failed");
        if (pid == 0) {
            alarm(120);
            _exit(first_use_child(k));
        }
        int ws = 0;
        T_REQUIRE(waitpid(pid, &ws, 0) == pid, "waitpid failed");
        if (WIFEXITED(ws) && WEXITSTATUS(ws) == 2) break;
        if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
            const char *why = child_why[0] ? child_why : "the child crashed or hung";
            printf("# first_use k=%ld: %s\n", k, why);
            T_CHECK(0, "k=%ld: %s", k, why);
        }
    }
    T_CHECK(k <= MAX_K, "still failing calls after %d", MAX_K);
    printf("# first_use: %ld wrapped calls, each made to fail once:%s\n", k - 1, child_why);
}

/* ---- fresh thread: one path per k on a new thread, the pool warm --------------------------- */

typedef struct {
    scen *s;
    long k;
    int injected;
    char why[512];
} fresh_job;

static void *fresh_thread(void *v) {
    fresh_job *j = v;
    scen *s = j->s;
    char sub[400];
    arm(j->k);
    atomic_store(&armed, 1);
    const gk_status st = call(s);
    atomic_store(&armed, 0);
    const char *what = atomic_load(&failed);
    j->injected = what != NULL;
    if (judge(s, st, what, sub, sizeof sub) || rerun(s, st, sub, sizeof sub))
        snprintf(j->why, sizeof j->why, "k=%ld (%s failed): %s", j->k, what ? what : "nothing",
                 sub);
    return NULL;
}

static scen *g_scen;

static void fresh_thread_case(void) {
    scen *s = g_scen;
    long k;
    for (k = 1; k <= MAX_K; k++) {
        fresh_job j = {.s = s, .k = k};
        pthread_t t;
        T_REQUIRE(pthread_create(&t, NULL, fresh_thread, &j) == 0, "pthread_create failed");
        pthread_join(t, NULL);
        T_REQUIRE(!j.why[0], "%s", j.why);
        if (!j.injected) break;
    }
    T_CHECK(k <= MAX_K, "still failing calls after %d", MAX_K);
    T_CHECK(!s->sp->small || k == 1, "the small path made %ld allocations or thread creations",
            k - 1);
    printf("# %s: %ld wrapped calls, each made to fail once:%s\n", s->sp->name, k - 1, trace);
}

int main(void) {
    t_rng rng = {0x5eed};
    for (int i = 0; i < NSCEN; i++) {
        const spec *sp = &specs[i];
        const int col = sp->layout == GK_COL_MAJOR;
        const t_gemm_case c = {
            .layout = sp->layout,
            .ta = sp->ta,
            .tb = sp->tb,
            .m = sp->m,
            .n = sp->n,
            .k = sp->k,
            .alpha = sp->alpha,
            .beta = sp->beta,
            .lda = t_min_ld(sp->layout, sp->ta, sp->m, sp->k),
            .ldb = t_min_ld(sp->layout, sp->tb, sp->k, sp->n),
            .ldc = (col ? sp->m : sp->n) + 3,
            .nan_c = sp->beta == 0.0f,
        };
        scens[i].sp = sp;
        if (t_gemm_data_init(&scens[i].d, &c, &rng) ||
            !(scens[i].got = malloc((size_t)scens[i].d.c_len * sizeof(float)))) {
            printf("FAIL setup: out of memory\n");
            return 1;
        }
    }
    child_why = mmap(NULL, CHILD_WHY, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (child_why == MAP_FAILED) {
        printf("FAIL setup: mmap failed\n");
        return 1;
    }
    /* First: no gemmkit call may precede the children's, so that each starts fresh. */
    T_RUN(first_use);
    /* The fresh-thread cases meet a warm pool (its workers made): only the packing buffer and
     * the 66-thread call's crew list are new. */
    for (int i = 0; i < NSCEN; i++)
        if (call(&scens[i]) != GK_SUCCESS) {
            printf("FAIL setup: %s: %s\n", scens[i].sp->name, gk_last_error());
            return 1;
        }
    for (int i = 0; i < NSCEN; i++) {
        char name[96];
        snprintf(name, sizeof name, "fresh_thread_%s", scens[i].sp->name);
        g_scen = &scens[i];
        t_run(name, fresh_thread_case);
    }
    for (int i = 0; i < NSCEN; i++) {
        t_gemm_data_free(&scens[i].d);
        free(scens[i].got);
    }
    return t_finish();
}
