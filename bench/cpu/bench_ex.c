/*
 * bench_ex.c — `gemmkit bench --device cpu --dtype bf16|f16` (bench.h: bench_cpu_ex_run): the CPU
 * low-precision GEMM (gk_gemm_ex) against gemmkit's own FP32 (gk_sgemm) and OpenBLAS's
 * cblas_sbgemm where the linked OpenBLAS exports it (BF16 only; OpenBLAS has no FP16 GEMM), on
 * squares, row-major NN, C in float32, in one process and one run. Each result is checked on
 * sampled elements against float64 (operands exact in their type, so input_rounding 0).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "gemmkit.h"
#include "harness/harness.h"

/* OpenBLAS's cblas_sbgemm (LP64: int sizes), and its thread setter */
typedef void (*sbgemm_fn)(int order, int ta, int tb, int m, int n, int k, float alpha,
                          const uint16_t *a, int lda, const uint16_t *b, int ldb, float beta,
                          float *c, int ldc);

typedef struct call {
    int which; /* 0 gk_sgemm, 1 gk_gemm_ex, 2 cblas_sbgemm */
    gk_format fmt;
    int64_t n;
    const float *af, *bf;
    const uint16_t *ah, *bh;
    float *c;
    sbgemm_fn sb;
} call;

static int do_call(const call *x) {
    const int64_t n = x->n;
    switch (x->which) {
    case 0:
        return gk_sgemm(GK_ROW_MAJOR, GK_NO_TRANS, GK_NO_TRANS, n, n, n, 1.0f, x->af, n, x->bf, n,
                        0.0f, x->c, n);
    case 1:
        return gk_gemm_ex(GK_ROW_MAJOR, GK_NO_TRANS, GK_NO_TRANS, n, n, n, 1.0f, x->fmt, x->ah, n,
                          x->fmt, x->bh, n, 0.0f, GK_F32, x->c, n);
    default:
        x->sb(101, 111, 111, (int)n, (int)n, (int)n, 1.0f, x->ah, (int)n, x->bh, (int)n, 0.0f, x->c,
              (int)n);
        return 0;
    }
}

/* Median seconds per call over calls filling min_time (at least 3), after one warm-up; the result
 * checked against float64 (af, bf: the operands' exact values). -1 on a failed call or check. */
static double measure(const call *x, double min_time, const char **why) {
    if (do_call(x) != GK_SUCCESS) return *why = gk_last_error(), -1.0;
    enum { MAX_REPS = 1000 };
    static double t[MAX_REPS];
    int reps = 0;
    const double start = gkh_now();
    while (reps < MAX_REPS && (reps < 3 || gkh_now() - start < min_time)) {
        const double t0 = gkh_now();
        do_call(x);
        t[reps++] = gkh_now() - t0;
    }
    gkh_check_result r;
    gkh_check_sampled(GK_ROW_MAJOR, GK_NO_TRANS, GK_NO_TRANS, x->n, x->n, x->n, 1.0f, x->af, x->n,
                      x->bf, x->n, 0.0f, x->c, x->c, x->n, 0.0, 256, 1, &r);
    if (r.failed) return *why = "float64 check failed", -1.0;
    return gkh_median(t, reps);
}

int bench_cpu_ex_run(const bench_cpu_ex_opts *o) {
    const char *fname = o->fmt == GK_BF16 ? "bf16" : "f16";
    sbgemm_fn sb = NULL;
    void (*ob_threads)(int) = NULL;
    const char *peer_missing = o->fmt == GK_F16 ? "OpenBLAS has no FP16 GEMM" : NULL;
    void *h = NULL;
    if (!peer_missing && !(h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL)))
        peer_missing = "libopenblas.so.0 not found";
    if (h && !(sb = (sbgemm_fn)dlsym(h, "cblas_sbgemm")))
        peer_missing = "the linked OpenBLAS has no cblas_sbgemm (built without BUILD_BFLOAT16)";
    if (h) ob_threads = (void (*)(int))dlsym(h, "openblas_set_num_threads");
    FILE *csv = o->csv ? fopen(o->csv, "w") : NULL;
    if (o->csv && !csv) fprintf(stderr, "gemmkit bench: cannot write %s\n", o->csv);
    if (csv) fprintf(csv, "dtype,n,threads,impl,kernel,gflops\n");
    gk_cpu_info ci;
    gk_cpu_get_info(&ci);
    printf("cpu: %s; %s kernel %s, fp32 kernel %s\n", ci.brand, fname,
           gk_cpu_gemm_ex_kernel(o->fmt, NULL), gk_cpu_gemm_ex_kernel(GK_F32, NULL));
    if (peer_missing) printf("peer openblas-sbgemm: skipped: %s\n", peer_missing);
    printf("%6s %7s %12s %12s %12s %8s\n", "n", "threads", "gemmkit-f32", "gemmkit-ex",
           sb ? "openblas-sb" : "-", "ex/f32");
    int rc = 0;
    for (int s = 0; s < o->nsizes; s++) {
        const int64_t n = o->sizes[s], nn = n * n;
        float *af = malloc(sizeof(float) * (size_t)nn), *bf = malloc(sizeof(float) * (size_t)nn);
        float *c = malloc(sizeof(float) * (size_t)nn);
        uint16_t *ah = malloc(2 * (size_t)nn), *bh = malloc(2 * (size_t)nn);
        if (!af || !bf || !c || !ah || !bh) {
            fprintf(stderr, "gemmkit bench: out of memory at n=%lld\n", (long long)n);
            rc = 1;
        } else {
            gkh_rng rng = {0x9E3779B97F4A7C15ull ^ (uint64_t)n};
            gkh_fill(af, nn, &rng);
            gkh_fill(bf, nn, &rng);
            /* the operands' values as the type holds them: the float32 run multiplies the same */
            gk_encode(o->fmt, af, ah, nn, 0), gk_decode(o->fmt, ah, af, nn);
            gk_encode(o->fmt, bf, bh, nn, 0), gk_decode(o->fmt, bh, bf, nn);
            for (int t = 0; t < o->nthreads; t++) {
                gk_set_num_threads(o->threads[t]);
                if (ob_threads) ob_threads(o->threads[t] ? o->threads[t] : gk_get_num_threads());
                double g[3] = {0, 0, 0};
                for (int w = 0; w < 3; w++) {
                    if (w == 2 && !sb) continue;
                    const call x = {w, o->fmt, n, af, bf, ah, bh, c, sb};
                    const char *why = "";
                    const double sec = measure(&x, o->min_time, &why);
                    if (sec < 0) {
                        fprintf(stderr, "gemmkit bench: n=%lld impl %d: %s\n", (long long)n, w,
                                why);
                        rc = 1;
                        continue;
                    }
                    g[w] = 2.0 * (double)n * (double)n * (double)n / sec * 1e-9;
                    static const char *const impl[3] = {"gemmkit-f32", "gemmkit",
                                                        "openblas-sbgemm"};
                    const char *kname = w == 0   ? gk_cpu_gemm_ex_kernel(GK_F32, NULL)
                                        : w == 1 ? gk_cpu_gemm_ex_kernel(o->fmt, NULL)
                                                 : "cblas_sbgemm";
                    if (csv)
                        fprintf(csv, "%s,%lld,%d,%s,%s,%.2f\n", fname, (long long)n,
                                gk_get_num_threads(), impl[w], kname, g[w]);
                }
                printf("%6lld %7d %12.1f %12.1f %12.1f %8.2f\n", (long long)n, gk_get_num_threads(),
                       g[0], g[1], g[2], g[0] > 0 ? g[1] / g[0] : 0.0);
                fflush(stdout);
            }
        }
        free(af), free(bf), free(c), free(ah), free(bh);
    }
    gk_set_num_threads(0);
    if (csv) fclose(csv), printf("wrote %s\n", o->csv);
    if (h) dlclose(h);
    return rc;
}
