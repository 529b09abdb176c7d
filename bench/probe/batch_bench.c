/*
 * batch_bench.c — `gk-batch-bench`: batched SGEMM on the CPU, as issue 19's target states it: B
 * items of N^3 (column-major, NN, alpha 1, beta 0, items back to back) through a loop of gk_sgemm
 * calls, gk_sgemm_batched, gemmkit's cblas_sgemm_batch (one group), and any peer library's
 * cblas_sgemm_batch loaded with dlopen. Each variant is timed as the median of 9 rounds, a round
 * being as many back-to-back batches as fill 0.15 s; item 0 and B-1 of each variant's C are
 * compared with the gemmkit loop's (relative difference printed). Thread count: gemmkit's
 * default (GEMMKIT_NUM_THREADS); set the peer's own (OPENBLAS_NUM_THREADS, BLIS_NUM_THREADS,
 * MKL_NUM_THREADS) to match. A diagnostic, not a benchmark of record.
 *
 *   gk-batch-bench BxN[,BxN...] [PEER ...]
 *
 * PEER is PATH (its cblas_sgemm_batch, 32-bit int arguments) or PATH:SYMBOL:64 for an ILP64
 * build with another symbol name (numpy's scipy-openblas: scipy_cblas_sgemm_batch64_).
 */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gemmkit.h"
#include "src/blas/cblas_abi.h"

typedef void (*batch32_fn)(int, const int *, const int *, const int *, const int *, const int *,
                           const float *, const float **, const int *, const float **, const int *,
                           const float *, float **, const int *, int, const int *);
typedef void (*batch64_fn)(int, const int *, const int *, const int64_t *, const int64_t *,
                           const int64_t *, const float *, const float **, const int64_t *,
                           const float **, const int64_t *, const float *, float **,
                           const int64_t *, int64_t, const int64_t *);

typedef struct {
    const char *name;
    void *fn;
    int ilp64;
} peer;

typedef struct {
    int b, n;
    const float **pa, **pb;
    float **pc;
} batch;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *x, const void *y) {
    const double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* One batch through variant v: 0 loop, 1 gk_sgemm_batched, 2 gemmkit's cblas_sgemm_batch, 3+ a
 * peer. */
static void run(int v, const batch *t, const peer *peers) {
    const int n = t->n, nt = CblasNoTrans;
    const float one = 1.0f, zero = 0.0f;
    if (v == 0) {
        for (int i = 0; i < t->b; i++)
            gk_sgemm(GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, n, n, n, 1.0f, t->pa[i], n, t->pb[i],
                     n, 0.0f, t->pc[i], n);
    } else if (v == 1) {
        gk_sgemm_batched(GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, n, n, n, 1.0f, t->pa, n, t->pb, n,
                         0.0f, t->pc, n, t->b);
    } else if (v == 2) {
        const enum CBLAS_TRANSPOSE tr = CblasNoTrans;
        cblas_sgemm_batch(CblasColMajor, &tr, &tr, &n, &n, &n, &one, t->pa, &n, t->pb, &n, &zero,
                          t->pc, &n, 1, &t->b);
    } else if (peers[v - 3].ilp64) {
        const int64_t n64 = n, b64 = t->b;
        ((batch64_fn)peers[v - 3].fn)(CblasColMajor, &nt, &nt, &n64, &n64, &n64, &one, t->pa, &n64,
                                      t->pb, &n64, &zero, t->pc, &n64, 1, &b64);
    } else {
        ((batch32_fn)peers[v - 3].fn)(CblasColMajor, &nt, &nt, &n, &n, &n, &one, t->pa, &n, t->pb,
                                      &n, &zero, t->pc, &n, 1, &t->b);
    }
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: gk-batch-bench BxN[,BxN...] [PATH | PATH:SYMBOL:64 ...]\n");
        return 2;
    }
    peer peers[8];
    int npeers = 0;
    for (int i = 2; i < argc && npeers < 8; i++) {
        char path[512], sym[128] = "cblas_sgemm_batch";
        int bits = 32;
        if (sscanf(argv[i], "%511[^:]:%127[^:]:%d", path, sym, &bits) < 1) continue;
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        void *fn = h ? dlsym(h, sym) : NULL;
        if (!fn) {
            printf("peer %s: %s missing (%s)\n", argv[i], sym, h ? "no such symbol" : dlerror());
            continue;
        }
        peers[npeers++] = (peer){argv[i], fn, bits == 64};
    }
    static const char *const names[] = {"gemmkit loop of gk_sgemm", "gk_sgemm_batched",
                                        "gemmkit cblas_sgemm_batch"};
    for (const char *s = argv[1]; *s;) {
        batch t;
        int used = 0;
        if (sscanf(s, "%dx%d%n", &t.b, &t.n, &used) != 2 || t.b < 1 || t.n < 1) {
            fprintf(stderr, "gk-batch-bench: bad shape at '%s'\n", s);
            return 2;
        }
        s += used + (s[used] == ',');
        const size_t e = (size_t)t.n * (size_t)t.n;
        float *a = malloc(e * t.b * sizeof *a), *b = malloc(e * t.b * sizeof *b);
        float *c = calloc(e * t.b, sizeof *c), *ref = malloc(2 * e * sizeof *ref);
        t.pa = malloc(t.b * sizeof *t.pa), t.pb = malloc(t.b * sizeof *t.pb);
        t.pc = malloc(t.b * sizeof *t.pc);
        if (!a || !b || !c || !ref || !t.pa || !t.pb || !t.pc) return 1;
        for (size_t i = 0; i < e * t.b; i++)
            a[i] = (float)(i % 13) / 13.0f - 0.5f, b[i] = (float)(i % 7) / 7.0f - 0.5f;
        for (int i = 0; i < t.b; i++)
            t.pa[i] = a + i * e, t.pb[i] = b + i * e, t.pc[i] = c + i * e;
        double loop_s = 0;
        for (int v = 0; v < 3 + npeers; v++) {
            double ts[9];
            memset(c, 0, e * t.b * sizeof *c);
            for (int r = 0; r < 9; r++) {
                int reps = 0;
                const double t0 = now();
                double t1;
                do
                    run(v, &t, peers), reps++;
                while ((t1 = now()) - t0 < 0.15);
                ts[r] = (t1 - t0) / reps;
            }
            qsort(ts, 9, sizeof ts[0], cmp_double);
            double diff = 0;
            if (v == 0) {
                loop_s = ts[4];
                memcpy(ref, c, e * sizeof *c);
                memcpy(ref + e, c + (t.b - 1) * e, e * sizeof *c);
            } else {
                for (size_t i = 0; i < e; i++) {
                    diff = fmax(diff, fabs(c[i] - ref[i]) / (fabs(ref[i]) + 1e-3));
                    diff = fmax(diff, fabs(c[(t.b - 1) * e + i] - ref[e + i]) /
                                          (fabs(ref[e + i]) + 1e-3));
                }
            }
            printf("%dx%d^3 %-40s %10.1f us %8.1f GFLOPS  %.2fx the loop  (max rel diff %.1e)\n",
                   t.b, t.n, v < 3 ? names[v] : peers[v - 3].name, ts[4] * 1e6,
                   2.0 * t.n * t.n * t.n * t.b / ts[4] * 1e-9, loop_s / ts[4], diff);
        }
        free(a), free(b), free(c), free(ref), free(t.pa), free(t.pb), free(t.pc);
    }
    return 0;
}
