/*
 * run_one.c — one SGEMM of a chosen shape, layout and transposition on the CPU or a CUDA device
 * (bench.h: bench_run_one, what `gemmkit run` does): random data, one untimed warm-up call, then
 * `reps` timed calls, each on a fresh copy of C so beta != 0 runs do not compound. The final C is
 * checked against float64 with the harness (every element for small problems, ~1000 sampled
 * elements otherwise).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "gemmkit.h"
#include "harness/harness.h"

#ifdef GK_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "harness/gpu.h"
#endif

/* The stored operands: shapes in the caller's layout and their element counts. */
typedef struct problem {
    int64_t a_rows, a_cols, b_rows, b_cols, a_len, b_len, c_len;
    float *a, *b, *c0, *c;
} problem;

static int64_t min_ld(gk_layout layout, int64_t rows, int64_t cols) {
    int64_t v = layout == GK_ROW_MAJOR ? cols : rows;
    return v > 1 ? v : 1;
}

static int alloc_problem(bench_run_opts *o, problem *p) {
    p->a_rows = o->ta == GK_NO_TRANS ? o->m : o->k, p->a_cols = o->ta == GK_NO_TRANS ? o->k : o->m;
    p->b_rows = o->tb == GK_NO_TRANS ? o->k : o->n, p->b_cols = o->tb == GK_NO_TRANS ? o->n : o->k;
    if (o->lda < 0) o->lda = min_ld(o->layout, p->a_rows, p->a_cols);
    if (o->ldb < 0) o->ldb = min_ld(o->layout, p->b_rows, p->b_cols);
    if (o->ldc < 0) o->ldc = min_ld(o->layout, o->m, o->n);
    /* Size the buffers for at least the minimal leading dimension, so a too-small --ld* value
     * reaches gk_sgemm and is reported by the library's own argument check. */
    int64_t la = o->lda, lb = o->ldb, lc = o->ldc;
    if (la < min_ld(o->layout, p->a_rows, p->a_cols)) la = min_ld(o->layout, p->a_rows, p->a_cols);
    if (lb < min_ld(o->layout, p->b_rows, p->b_cols)) lb = min_ld(o->layout, p->b_rows, p->b_cols);
    if (lc < min_ld(o->layout, o->m, o->n)) lc = min_ld(o->layout, o->m, o->n);
    p->a_len = gkh_extent(o->layout, p->a_rows, p->a_cols, la);
    p->b_len = gkh_extent(o->layout, p->b_rows, p->b_cols, lb);
    p->c_len = gkh_extent(o->layout, o->m, o->n, lc);
    p->a = malloc(sizeof(float) * (size_t)(p->a_len + 1));
    p->b = malloc(sizeof(float) * (size_t)(p->b_len + 1));
    p->c0 = malloc(sizeof(float) * (size_t)(p->c_len + 1));
    p->c = malloc(sizeof(float) * (size_t)(p->c_len + 1));
    if (!p->a || !p->b || !p->c0 || !p->c) {
        fprintf(stderr, "gemmkit run: out of host memory for the operands\n");
        return 0;
    }
    gkh_rng rng = {o->seed * 0x9E3779B97F4A7C15ull | 1};
    gkh_fill(p->a, p->a_len, &rng);
    gkh_fill(p->b, p->b_len, &rng);
    gkh_fill(p->c0, p->c_len, &rng);
    return 1;
}

static void free_problem(problem *p) {
    free(p->a), free(p->b), free(p->c0), free(p->c);
}

/* Print the check and timing lines; returns the exit status (0 PASS, 1 FAIL). */
static int report(const bench_run_opts *o, const problem *p, double u_in, double *times) {
    const int64_t full = o->m * o->n;
    gkh_check_result r;
    gkh_check_sampled(o->layout, o->ta, o->tb, o->m, o->n, o->k, o->alpha, p->a, o->lda, p->b,
                      o->ldb, o->beta, p->c0, p->c, o->ldc, u_in,
                      gkh_check_samples(o->m, o->n, o->k), o->seed, &r);
    printf("check: %lld of %lld elements vs float64, max error ratio %.3g (pass <= 1)",
           (long long)r.checked, (long long)full, r.max_ratio);
    if (r.failed)
        printf("; %lld failed, worst C(%lld,%lld) = %.9g, expected %.9g", (long long)r.failed,
               (long long)r.worst_i, (long long)r.worst_j, r.worst_got, r.worst_want);
    printf("\n");
    double med = gkh_median(times, o->reps); /* sorts: times[0] is then the best */
    double flops = 2.0 * (double)o->m * (double)o->n * (double)o->k;
    printf("time: median %.4f ms, best %.4f ms over %d reps; %.2f GFLOPS at the median, %.2f at "
           "best\n",
           med * 1e3, times[0] * 1e3, o->reps, med > 0 ? flops / med * 1e-9 : 0.0,
           times[0] > 0 ? flops / times[0] * 1e-9 : 0.0);
    printf("%s\n", r.failed ? "FAIL" : "PASS");
    return r.failed ? 1 : 0;
}

static int status_exit(const char *what, gk_status st) {
    fprintf(stderr, "gemmkit run: %s failed: %s: %s\n", what, gk_status_string(st),
            gk_last_error());
    /* Argument errors come from the command line (sizes, leading dimensions). */
    return st == GK_ERR_INVALID_LD || st == GK_ERR_INVALID_SIZE || st == GK_ERR_OVERFLOW ? 2 : 1;
}

/* An operand or C of a --dtype call on the CPU (gk_gemm_ex) as codes of type t; the float copy
 * is rounded to the type, so the float64 check sees exactly what was multiplied. F32: x itself. */
static void *to_codes(gk_format t, float *x, int64_t n) {
    if (t == GK_F32) return x;
    uint16_t *codes = malloc(sizeof(uint16_t) * (size_t)(n + 1));
    if (codes && n > 0) {
        gk_encode(t, x, codes, n, 0);
        gk_decode(t, codes, x, n);
    }
    return codes;
}

static int run_cpu(bench_run_opts *o, problem *p) {
    if (o->threads) gk_set_num_threads(o->threads);
    /* float32 runs gk_sgemm; --dtype bf16/f16 (or a 16-bit --out-dtype) gk_gemm_ex */
    const gk_format at = o->mixed ? o->dtype.a : GK_F32, ct = o->mixed ? o->out : GK_F32;
    const size_t csize = ct == GK_F32 ? sizeof(float) : sizeof(uint16_t);
    gk_cpu_info ci;
    if (gk_cpu_get_info(&ci) == GK_SUCCESS && !o->mixed)
        printf("cpu: %s kernels (%s), %d threads\n", ci.arch, ci.arch_reason, ci.threads);
    const char *why = NULL, *kname = gk_cpu_gemm_ex_kernel(at, &why);
    if (o->mixed)
        printf("cpu: gk_gemm_ex %s -> %s, kernel %s (%s), %d threads\n", bench_format_short(at),
               bench_format_short(ct), kname ? kname : "none", why ? why : "-",
               gk_get_num_threads());
    void *a = to_codes(at, p->a, p->a_len), *b = to_codes(at, p->b, p->b_len);
    void *c0 = to_codes(ct, p->c0, p->c_len);
    void *c = ct == GK_F32 ? (void *)p->c : malloc(csize * (size_t)(p->c_len + 1));
    double *times = malloc(sizeof(double) * (size_t)o->reps);
    int rc = !a || !b || !c0 || !c || !times;
    if (rc) fprintf(stderr, "gemmkit run: out of host memory\n");
    for (int r = -1; r < o->reps && !rc; r++) {
        memcpy(c, c0, csize * (size_t)p->c_len);
        double t0 = gkh_now();
        gk_status st = o->mixed ? gk_gemm_ex(o->layout, o->ta, o->tb, o->m, o->n, o->k, o->alpha,
                                             at, a, o->lda, at, b, o->ldb, o->beta, ct, c, o->ldc)
                                : gk_sgemm(o->layout, o->ta, o->tb, o->m, o->n, o->k, o->alpha,
                                           p->a, o->lda, p->b, o->ldb, o->beta, p->c, o->ldc);
        double t1 = gkh_now();
        if (st != GK_SUCCESS) rc = status_exit(o->mixed ? "gk_gemm_ex" : "gk_sgemm", st);
        if (r >= 0) times[r] = t1 - t0;
    }
    if (!rc && ct != GK_F32) gk_decode(ct, c, p->c, p->c_len);
    /* The last timed call's C is as good as the first for checking: inputs are identical. The
     * products of BF16/F16 operands are exact in float32 (u_in 0); a 16-bit C's one rounding,
     * at most its unit roundoff u times |C| <= S, is covered by passing u as u_in (2u S). */
    const double u_c = ct == GK_BF16 ? 1.0 / 512 : ct == GK_F16 ? 1.0 / 4096 : 0.0;
    if (!rc) rc = report(o, p, u_c, times);
    if (a != p->a) free(a);
    if (b != p->b) free(b);
    if (c0 != p->c0) free(c0);
    if (c != p->c) free(c);
    free(times);
    return rc;
}

#ifdef GK_HAVE_CUDA
static int cuda_fail(const char *what, cudaError_t e) {
    fprintf(stderr, "gemmkit run: %s failed: %s\n", what, cudaGetErrorString(e));
    return 1;
}

/* Resolve a kernel as a registry id or name; -1 when there is none. */
static int find_kernel(const char *spec, gk_cuda_kernel_info *ki) {
    char *end;
    errno = 0;
    long long id = strtoll(spec, &end, 10);
    const int numeric = !errno && end != spec && !*end;
    int count = gk_cuda_kernel_count();
    for (int i = 0; i < count; i++) {
        if (gk_cuda_kernel_info_get(i, ki) != GK_SUCCESS) continue;
        if ((numeric && id == i) || !strcmp(spec, ki->name)) return i;
    }
    return -1;
}

/* One call as the event timer launches it. */
typedef struct gpu_call {
    const bench_run_opts *o;
    gk_cuda_ctx *ctx;
    int kid;
    const float *a, *b;
    float *c;
    gk_status st;
} gpu_call;

static void launch(void *arg) {
    gpu_call *g = arg;
    const bench_run_opts *o = g->o;
    g->st = g->kid < 0
                ? gk_cuda_sgemm(g->ctx, o->layout, o->ta, o->tb, o->m, o->n, o->k, o->alpha, g->a,
                                o->lda, g->b, o->ldb, o->beta, g->c, o->ldc)
                : gk_cuda_sgemm_kernel(g->ctx, g->kid, o->layout, o->ta, o->tb, o->m, o->n, o->k,
                                       o->alpha, g->a, o->lda, g->b, o->ldb, o->beta, g->c, o->ldc);
}

static int run_gpu(bench_run_opts *o, problem *p) {
    if (!gk_cuda_available()) {
        fprintf(stderr, "gemmkit run: no usable CUDA device on this machine\n");
        return 1;
    }
    gk_cuda_kernel_info ki = {.name = "gk_cuda_sgemm (default)", .input_rounding = 0.0};
    int kid = -1;
    if (o->kernel && (kid = find_kernel(o->kernel, &ki)) < 0) {
        fprintf(stderr, "gemmkit run: no CUDA kernel '%s' (see gemmkit kernels)\n", o->kernel);
        return 2;
    }
    gk_cuda_ctx *ctx = NULL;
    gk_status st = gk_cuda_create(&ctx, 0, NULL);
    if (st != GK_SUCCESS) return status_exit("gk_cuda_create", st);
    printf("gpu: device 0, kernel %s\n", ki.name);
    float *da = NULL, *db = NULL, *dc0 = NULL, *dc = NULL;
    double *times = malloc(sizeof(double) * (size_t)o->reps);
    gkh_gpu_timer timer = {0};
    cudaError_t ce = cudaSuccess;
    int rc = 1;
    const size_t fa = sizeof(float) * (size_t)(p->a_len + 1),
                 fb = sizeof(float) * (size_t)(p->b_len + 1),
                 fc = sizeof(float) * (size_t)(p->c_len + 1);
    if (!times) goto out;
    if ((ce = cudaMalloc((void **)&da, fa)) || (ce = cudaMalloc((void **)&db, fb)) ||
        (ce = cudaMalloc((void **)&dc0, fc)) || (ce = cudaMalloc((void **)&dc, fc)) ||
        (ce = cudaMemcpy(da, p->a, fa, cudaMemcpyHostToDevice)) ||
        (ce = cudaMemcpy(db, p->b, fb, cudaMemcpyHostToDevice)) ||
        (ce = cudaMemcpy(dc0, p->c0, fc, cudaMemcpyHostToDevice)) ||
        (ce = gkh_gpu_timer_create(&timer, 1))) {
        rc = cuda_fail("device setup", ce);
        goto out;
    }
    gpu_call call = {o, ctx, kid, da, db, dc, GK_SUCCESS};
    rc = 0;
    for (int r = -1; r < o->reps && !rc; r++) {
        if ((ce = cudaMemcpy(dc, dc0, fc, cudaMemcpyDeviceToDevice))) {
            rc = cuda_fail("cudaMemcpy", ce);
            break;
        }
        ce = gkh_gpu_timer_run(&timer, NULL, launch, &call);
        if (call.st != GK_SUCCESS) {
            rc = status_exit(kid < 0 ? "gk_cuda_sgemm" : "gk_cuda_sgemm_kernel", call.st);
            break;
        }
        if (ce) {
            rc = cuda_fail("kernel", ce);
            break;
        }
        if (r >= 0) times[r] = gkh_gpu_timer_ms(&timer, 0) * 1e-3;
    }
    if (!rc && (ce = cudaMemcpy(p->c, dc, fc, cudaMemcpyDeviceToHost)))
        rc = cuda_fail("copy back", ce);
    if (!rc) rc = report(o, p, ki.input_rounding, times);
out:
    gkh_gpu_timer_destroy(&timer);
    cudaFree(da), cudaFree(db), cudaFree(dc0), cudaFree(dc);
    free(times);
    gk_cuda_destroy(ctx);
    return rc;
}
/* --device gpu:all: A, B and C stay in host memory (page-locked for the run, so that copies are
 * asynchronous) and gk_cuda_sgemm_host_multi spreads C's tiles over a context per visible device;
 * each call is synchronous, timed by the wall clock. */
static int run_gpu_all(bench_run_opts *o, problem *p) {
    int ndev = 0;
    if (!gk_cuda_available() || cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
        fprintf(stderr, "gemmkit run: no usable CUDA device on this machine\n");
        return 1;
    }
    gk_cuda_ctx **ctx = calloc((size_t)ndev, sizeof *ctx);
    double *times = malloc(sizeof(double) * (size_t)o->reps);
    int rc = !ctx || !times;
    if (rc) fprintf(stderr, "gemmkit run: out of host memory\n");
    for (int d = 0; d < ndev && !rc; d++) {
        gk_status st = gk_cuda_create(&ctx[d], d, NULL);
        if (st != GK_SUCCESS) rc = status_exit("gk_cuda_create", st);
    }
    float *pinned[3] = {p->a, p->b, p->c};
    const int64_t lens[3] = {p->a_len, p->b_len, p->c_len};
    int registered[3] = {0, 0, 0};
    for (int i = 0; i < 3 && !rc; i++) /* pageable works too, only slower: ignore a refusal */
        registered[i] = cudaHostRegister(pinned[i], sizeof(float) * (size_t)(lens[i] + 1),
                                         cudaHostRegisterDefault) == cudaSuccess;
    cudaGetLastError();
    if (!rc) printf("gpu: %d device(s), gk_cuda_sgemm_host_multi, host operands\n", ndev);
    for (int r = -1; r < o->reps && !rc; r++) {
        memcpy(p->c, p->c0, sizeof(float) * (size_t)p->c_len);
        double t0 = gkh_now();
        gk_status st =
            gk_cuda_sgemm_host_multi(ctx, ndev, o->layout, o->ta, o->tb, o->m, o->n, o->k, o->alpha,
                                     p->a, o->lda, p->b, o->ldb, o->beta, p->c, o->ldc);
        double t1 = gkh_now();
        if (st != GK_SUCCESS) rc = status_exit("gk_cuda_sgemm_host_multi", st);
        if (r >= 0) times[r] = t1 - t0;
    }
    if (!rc) rc = report(o, p, 0.0, times);
    for (int i = 0; i < 3; i++)
        if (registered[i]) cudaHostUnregister(pinned[i]);
    for (int d = 0; ctx && d < ndev; d++)
        if (ctx[d]) gk_cuda_destroy(ctx[d]);
    free(ctx);
    free(times);
    return rc;
}
#endif

int bench_run_one(const bench_run_opts *opts) {
    bench_run_opts o = *opts;
#ifndef GK_HAVE_CUDA
    if (o.gpu) {
        fprintf(stderr, "gemmkit run: --device gpu: this build has no CUDA backend (no nvcc at "
                        "build time)\n");
        return 1;
    }
#endif
    problem p = {0};
    int rc = 1;
    if (alloc_problem(&o, &p)) {
        printf("run: %s %s-major op(A)=%s op(B)=%s m=%lld n=%lld k=%lld lda=%lld ldb=%lld "
               "ldc=%lld alpha=%g beta=%g\n",
               o.gpu_all ? "gpu:all"
               : o.gpu   ? "gpu"
                         : "cpu",
               o.layout == GK_ROW_MAJOR ? "row" : "col", o.ta == GK_NO_TRANS ? "A" : "A^T",
               o.tb == GK_NO_TRANS ? "B" : "B^T", (long long)o.m, (long long)o.n, (long long)o.k,
               (long long)o.lda, (long long)o.ldb, (long long)o.ldc, o.alpha, o.beta);
#ifdef GK_HAVE_CUDA
        rc = o.gpu_all ? run_gpu_all(&o, &p) : o.gpu ? run_gpu(&o, &p) : run_cpu(&o, &p);
#else
        rc = run_cpu(&o, &p);
#endif
    }
    free_problem(&p);
    return rc;
}
