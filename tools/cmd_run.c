/*
 * cmd_run.c — `gemmkit run`: one SGEMM of a chosen shape, layout and transposition on the CPU or
 * a CUDA device, with random data: one untimed warm-up call, then `reps` timed calls, each on a
 * fresh copy of C so beta != 0 runs do not compound. The final C is checked against float64
 * (tools/refcheck.h: every element for small problems, ~1000 sampled elements otherwise).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "gemmkit.h"
#include "refcheck.h"
#include "timing.h"

#ifdef GK_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

typedef struct run_opts {
    int gpu;
    int64_t m, n, k, lda, ldb, ldc;
    gk_layout layout;
    gk_trans ta, tb;
    float alpha, beta;
    int threads, reps;
    const char *kernel;
    uint64_t seed;
} run_opts;

static void usage(FILE *f) {
    fprintf(f,
            "usage: gemmkit run [--device cpu|gpu] -m M -n N -k K [options]\n\n"
            "Runs C = alpha*op(A)*op(B) + beta*C once on random data, checks it against a float64\n"
            "reference (all elements when M*N*K <= 2^27, else 1000 sampled elements incl. the\n"
            "corners; bound ((K+2)*FLT_EPSILON + 2*u_in) * sum|a*b| + FLT_MIN), then times it.\n\n"
            "  --device cpu|gpu   where to run (default cpu)\n"
            "  -m, -n, -k         sizes of op(A) (M x K), op(B) (K x N), C (M x N); required\n"
            "  --layout row|col   storage order of all three matrices (default col)\n"
            "  --ta n|t, --tb n|t transpose A / B (default n)\n"
            "  --lda/--ldb/--ldc  leading dimensions (default: the minimum for the layout)\n"
            "  --alpha a --beta b scalars (default 1 and 0)\n"
            "  --threads t        CPU threads (default: gemmkit's default)\n"
            "  --reps r           timed repetitions after the checked call (default 5)\n"
            "  --kernel ID|NAME   gpu: a registry kernel (gemmkit kernels); default gk_cuda_sgemm\n"
            "  --seed s           random seed (default 1)\n\n"
            "Exit status: 0 PASS, 1 FAIL or runtime error, 2 usage error.\n");
}

static int parse_i64(const char *s, int64_t *out) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end) return 0;
    *out = v;
    return 1;
}

static int parse_f(const char *s, float *out) {
    char *end;
    errno = 0;
    float v = strtof(s, &end);
    if (errno || end == s || *end) return 0;
    *out = v;
    return 1;
}

static int parse_trans(const char *s, gk_trans *t) {
    if (!strcmp(s, "n") || !strcmp(s, "N")) return *t = GK_NO_TRANS, 1;
    if (!strcmp(s, "t") || !strcmp(s, "T")) return *t = GK_TRANS, 1;
    return 0;
}

/* Returns 0 on success, 1 after printing --help, 2 on a usage error (message printed). */
static int parse(int argc, char **argv, run_opts *o) {
    *o = (run_opts){.m = -1,
                    .n = -1,
                    .k = -1,
                    .lda = -1,
                    .ldb = -1,
                    .ldc = -1,
                    .layout = GK_COL_MAJOR,
                    .ta = GK_NO_TRANS,
                    .tb = GK_NO_TRANS,
                    .alpha = 1.0f,
                    .reps = 5,
                    .seed = 1};
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
            usage(stdout);
            return 1;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "gemmkit run: '%s' needs a value (or is unknown)\n", opt);
            return 2;
        }
        const char *v = argv[++i];
        int64_t x = 0;
        int ok = 1;
        if (!strcmp(opt, "--device")) {
            ok = !strcmp(v, "cpu") || !strcmp(v, "gpu");
            o->gpu = !strcmp(v, "gpu");
        } else if (!strcmp(opt, "-m") || !strcmp(opt, "-n") || !strcmp(opt, "-k")) {
            ok = parse_i64(v, &x) && x >= 0;
            *(opt[1] == 'm' ? &o->m : opt[1] == 'n' ? &o->n : &o->k) = x;
        } else if (!strcmp(opt, "--lda") || !strcmp(opt, "--ldb") || !strcmp(opt, "--ldc")) {
            ok = parse_i64(v, &x) && x >= 1;
            *(opt[4] == 'a' ? &o->lda : opt[4] == 'b' ? &o->ldb : &o->ldc) = x;
        } else if (!strcmp(opt, "--layout")) {
            ok = !strcmp(v, "row") || !strcmp(v, "col");
            o->layout = !strcmp(v, "row") ? GK_ROW_MAJOR : GK_COL_MAJOR;
        } else if (!strcmp(opt, "--ta")) {
            ok = parse_trans(v, &o->ta);
        } else if (!strcmp(opt, "--tb")) {
            ok = parse_trans(v, &o->tb);
        } else if (!strcmp(opt, "--alpha")) {
            ok = parse_f(v, &o->alpha);
        } else if (!strcmp(opt, "--beta")) {
            ok = parse_f(v, &o->beta);
        } else if (!strcmp(opt, "--threads")) {
            ok = parse_i64(v, &x) && x >= 1 && x <= 4096;
            o->threads = (int)x;
        } else if (!strcmp(opt, "--reps")) {
            ok = parse_i64(v, &x) && x >= 1 && x <= 1000000;
            o->reps = (int)x;
        } else if (!strcmp(opt, "--kernel")) {
            o->kernel = v;
        } else if (!strcmp(opt, "--seed")) {
            ok = parse_i64(v, &x);
            o->seed = (uint64_t)x;
        } else {
            fprintf(stderr, "gemmkit run: unknown option '%s'\n", opt);
            return 2;
        }
        if (!ok) {
            fprintf(stderr, "gemmkit run: bad value '%s' for %s\n", v, opt);
            return 2;
        }
    }
    if (o->m < 0 || o->n < 0 || o->k < 0) {
        fprintf(stderr, "gemmkit run: -m, -n and -k are required\n");
        return 2;
    }
    if (o->kernel && !o->gpu) {
        fprintf(stderr, "gemmkit run: --kernel selects a CUDA kernel; add --device gpu\n");
        return 2;
    }
    return 0;
}

/* The stored operands: shapes in the caller's layout and their element counts. */
typedef struct problem {
    int64_t a_rows, a_cols, b_rows, b_cols, a_len, b_len, c_len;
    float *a, *b, *c0, *c;
} problem;

static int64_t min_ld(gk_layout layout, int64_t rows, int64_t cols) {
    int64_t v = layout == GK_ROW_MAJOR ? cols : rows;
    return v > 1 ? v : 1;
}

static int alloc_problem(run_opts *o, problem *p) {
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
    p->a_len = rc_extent(o->layout, p->a_rows, p->a_cols, la);
    p->b_len = rc_extent(o->layout, p->b_rows, p->b_cols, lb);
    p->c_len = rc_extent(o->layout, o->m, o->n, lc);
    p->a = malloc(sizeof(float) * (size_t)(p->a_len + 1));
    p->b = malloc(sizeof(float) * (size_t)(p->b_len + 1));
    p->c0 = malloc(sizeof(float) * (size_t)(p->c_len + 1));
    p->c = malloc(sizeof(float) * (size_t)(p->c_len + 1));
    if (!p->a || !p->b || !p->c0 || !p->c) {
        fprintf(stderr, "gemmkit run: out of host memory for the operands\n");
        return 0;
    }
    uint64_t s = o->seed * 0x9E3779B97F4A7C15ull | 1;
    rc_fill(p->a, p->a_len, &s);
    rc_fill(p->b, p->b_len, &s);
    rc_fill(p->c0, p->c_len, &s);
    return 1;
}

static void free_problem(problem *p) {
    free(p->a), free(p->b), free(p->c0), free(p->c);
}

/* Print the check and timing lines; returns the exit status (0 PASS, 1 FAIL). */
static int report(const run_opts *o, const problem *p, double u_in, double *times) {
    const int64_t full = o->m * o->n;
    const int exhaustive = (double)o->m * (double)o->n * (double)o->k <= (double)(1 << 27);
    rc_result r;
    rc_check(o->layout, o->ta, o->tb, o->m, o->n, o->k, o->alpha, p->a, o->lda, p->b, o->ldb,
             o->beta, p->c0, p->c, o->ldc, u_in, exhaustive ? full : 1000, o->seed, &r);
    printf("check: %lld of %lld elements vs float64, max error ratio %.3g (pass <= 1)",
           (long long)r.checked, (long long)full, r.max_ratio);
    if (r.failed)
        printf("; %lld failed, worst C(%lld,%lld) = %.9g, expected %.9g", (long long)r.failed,
               (long long)r.worst_i, (long long)r.worst_j, r.worst_got, r.worst_want);
    printf("\n");
    qsort(times, (size_t)o->reps, sizeof *times, gk_cmp_double);
    double med =
        o->reps % 2 ? times[o->reps / 2] : 0.5 * (times[o->reps / 2 - 1] + times[o->reps / 2]);
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

static int run_cpu(run_opts *o, problem *p) {
    if (o->threads) gk_set_num_threads(o->threads);
    gk_cpu_info ci;
    if (gk_cpu_get_info(&ci) == GK_SUCCESS)
        printf("cpu: %s kernels (%s), %d threads\n", ci.arch, ci.arch_reason, ci.threads);
    double *times = malloc(sizeof(double) * (size_t)o->reps);
    if (!times) return 1;
    int rc = 0;
    for (int r = -1; r < o->reps && !rc; r++) {
        memcpy(p->c, p->c0, sizeof(float) * (size_t)p->c_len);
        double t0 = gk_now_s();
        gk_status st = gk_sgemm(o->layout, o->ta, o->tb, o->m, o->n, o->k, o->alpha, p->a, o->lda,
                                p->b, o->ldb, o->beta, p->c, o->ldc);
        double t1 = gk_now_s();
        if (st != GK_SUCCESS) rc = status_exit("gk_sgemm", st);
        if (r >= 0) times[r] = t1 - t0;
    }
    /* The last timed call's C is as good as the first for checking: inputs are identical. */
    if (!rc) rc = report(o, p, 0.0, times);
    free(times);
    return rc;
}

#ifdef GK_HAVE_CUDA
static int cuda_fail(const char *what, cudaError_t e) {
    fprintf(stderr, "gemmkit run: %s failed: %s\n", what, cudaGetErrorString(e));
    return 1;
}

/* Resolve --kernel as a registry id or name; -1 when absent (use gk_cuda_sgemm). */
static int find_kernel(const char *spec, gk_cuda_kernel_info *ki) {
    int64_t id;
    int count = gk_cuda_kernel_count();
    for (int i = 0; i < count; i++) {
        if (gk_cuda_kernel_info_get(i, ki) != GK_SUCCESS) continue;
        if ((parse_i64(spec, &id) && id == i) || !strcmp(spec, ki->name)) return i;
    }
    return -1;
}

static int run_gpu(run_opts *o, problem *p) {
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
    cudaEvent_t e0 = NULL, e1 = NULL;
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
        (ce = cudaMemcpy(dc0, p->c0, fc, cudaMemcpyHostToDevice)) || (ce = cudaEventCreate(&e0)) ||
        (ce = cudaEventCreate(&e1))) {
        rc = cuda_fail("device setup", ce);
        goto out;
    }
    rc = 0;
    for (int r = -1; r < o->reps && !rc; r++) {
        if ((ce = cudaMemcpy(dc, dc0, fc, cudaMemcpyDeviceToDevice))) {
            rc = cuda_fail("cudaMemcpy", ce);
            break;
        }
        cudaEventRecord(e0, NULL);
        st = kid < 0 ? gk_cuda_sgemm(ctx, o->layout, o->ta, o->tb, o->m, o->n, o->k, o->alpha, da,
                                     o->lda, db, o->ldb, o->beta, dc, o->ldc)
                     : gk_cuda_sgemm_kernel(ctx, kid, o->layout, o->ta, o->tb, o->m, o->n, o->k,
                                            o->alpha, da, o->lda, db, o->ldb, o->beta, dc, o->ldc);
        cudaEventRecord(e1, NULL);
        if (st != GK_SUCCESS) {
            rc = status_exit(kid < 0 ? "gk_cuda_sgemm" : "gk_cuda_sgemm_kernel", st);
            break;
        }
        if ((ce = cudaEventSynchronize(e1))) {
            rc = cuda_fail("kernel", ce);
            break;
        }
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        if (r >= 0) times[r] = ms * 1e-3;
    }
    if (!rc && (ce = cudaMemcpy(p->c, dc, fc, cudaMemcpyDeviceToHost)))
        rc = cuda_fail("copy back", ce);
    if (!rc) rc = report(o, p, ki.input_rounding, times);
out:
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    cudaFree(da), cudaFree(db), cudaFree(dc0), cudaFree(dc);
    free(times);
    gk_cuda_destroy(ctx);
    return rc;
}
#endif

int gk_cmd_run(int argc, char **argv) {
    run_opts o;
    int prc = parse(argc, argv, &o);
    if (prc == 1) return 0;
    if (prc == 2) {
        usage(stderr);
        return 2;
    }
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
               o.gpu ? "gpu" : "cpu", o.layout == GK_ROW_MAJOR ? "row" : "col",
               o.ta == GK_NO_TRANS ? "A" : "A^T", o.tb == GK_NO_TRANS ? "B" : "B^T", (long long)o.m,
               (long long)o.n, (long long)o.k, (long long)o.lda, (long long)o.ldb, (long long)o.ldc,
               o.alpha, o.beta);
#ifdef GK_HAVE_CUDA
        rc = o.gpu ? run_gpu(&o, &p) : run_cpu(&o, &p);
#else
        rc = run_cpu(&o, &p);
#endif
    }
    free_problem(&p);
    return rc;
}
