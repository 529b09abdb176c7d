/*
 * test_fork.c — the CPU entry points in a child of fork() after the parent ran threaded calls
 * (gk_sgemm, cblas_sgemm, sgemm_), the parent still working afterwards, and the thread rule:
 * calls made inside an OpenMP parallel region create no threads of gemmkit's own, while a call
 * made outside one does. A child that hangs is killed by alarm() and reported as a failure.
 */
#include <dirent.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "gemmkit.h"

/* The BLAS entry points libgemmkit exports (src/blas/). */
void sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc);
void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a,
                 int lda, const float *b, int ldb, float beta, float *c, int ldc);

enum { N = 400 }; /* packed and threaded on 2 threads */

static float a[N * N], b[N * N];

/* Column-major C = A B through entry point `via` (0 gk_sgemm, 1 cblas_sgemm, 2 sgemm_); returns
 * 1 when every element agrees with C[0..] computed in double within a K-scaled bound. */
static int product_ok(int via) {
    float *c = malloc(sizeof(float) * N * N); /* callers may run at once */
    if (!c) return 0;
    const int n = N;
    const float one = 1.0f, zero = 0.0f;
    if (via == 0)
        gk_sgemm(GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
    else if (via == 1)
        cblas_sgemm(102, 111, 111, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
    else
        sgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n);
    for (int j = 0; j < N; j += 37)
        for (int i = 0; i < N; i += 13) {
            double r = 0, s = 0;
            for (int p = 0; p < N; p++) {
                r += (double)a[i + p * N] * b[p + j * N];
                s += fabs((double)a[i + p * N] * b[p + j * N]);
            }
            if (!(fabs(c[i + j * N] - r) <= (N + 2) * 1.2e-7 * s + 1e-30)) {
                free(c);
                return 0;
            }
        }
    free(c);
    return 1;
}

static int tasks(void) {
    DIR *d = opendir("/proc/self/task");
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Status of a child that ran every entry point twice; 0 when all were right. */
static int child_status(void) {
    pid_t pid = fork();
    if (pid == 0) {
        alarm(20);
        int ok = 1;
        for (int r = 0; r < 2; r++)
            for (int via = 0; via < 3; via++)
                ok &= product_ok(via);
        _exit(ok ? 0 : 3);
    }
    int st = 0;
    if (waitpid(pid, &st, 0) != pid) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void fork_after_threaded_calls(void) {
    gk_set_num_threads(2);
    for (int via = 0; via < 3; via++)
        T_REQUIRE(product_ok(via), "parent, entry point %d, before the fork", via);
    const int st = child_status();
    T_CHECK(st == 0, "child: status %d (%s)", st,
            st == 128 + 14 ? "hung" : st == 3 ? "wrong result" : "crashed");
    for (int via = 0; via < 3; via++)
        T_CHECK(product_ok(via), "parent, entry point %d, after the fork", via);
}

/* In a fresh process (the pool keeps its workers once made): calls inside a 2-thread OpenMP
 * region leave the thread count as it was, then a plain 2-thread call adds its worker. */
static void threads_inside_openmp(void) {
    pid_t pid = fork();
    if (pid == 0) {
        alarm(20);
        gk_set_num_threads(2);
        int before = 0, after = 0, ok = 1;
#pragma omp parallel num_threads(2)
        {
#pragma omp barrier
#pragma omp single
            before = tasks();
            ok &= product_ok(0);
#pragma omp barrier
#pragma omp single
            after = tasks();
        }
        const int plain = (product_ok(0), tasks());
        printf("# threads: %d before nested calls, %d after, %d after a plain call\n", before,
               after, plain);
        _exit(!ok ? 3 : after != before ? 4 : plain <= after ? 5 : 0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    const int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    T_CHECK(code == 0, "%s",
            code == 3   ? "wrong result inside the region"
            : code == 4 ? "calls inside an OpenMP region created threads"
            : code == 5 ? "a plain 2-thread call created no worker (the count cannot see them)"
                        : "child crashed or hung");
}

int main(void) {
    srand(11);
    for (int i = 0; i < N * N; i++) {
        a[i] = (float)rand() / RAND_MAX - 0.5f;
        b[i] = (float)rand() / RAND_MAX - 0.5f;
    }
    if (omp_get_num_procs() < 2) printf("# one CPU: the threaded paths still run 2 threads\n");
    T_RUN(fork_after_threaded_calls);
    T_RUN(threads_inside_openmp);
    return t_finish();
}
