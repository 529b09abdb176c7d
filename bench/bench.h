/*
 * bench.h — the benchmark library: what `gemmkit run`, `gemmkit bench` and `gemmkit ladder` do
 * once the CLI (tools/) has parsed their options. Built on the harness (harness/harness.h,
 * harness/gpu.h) and the public API; it knows nothing of the CLI except the worker protocol
 * below. Entry points return a process exit status: 0 success, 1 a failed check or runtime
 * error, 2 a usage error found late (e.g. a kernel name no registry entry matches).
 */
#ifndef GK_BENCH_H
#define GK_BENCH_H

#include <stdint.h>

#include "gemmkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- one checked, timed GEMM (gemmkit run) -------------------------------------------------- */

typedef struct bench_run_opts {
    int gpu;               /* run on CUDA device 0 instead of the CPU */
    int64_t m, n, k;       /* sizes of op(A) (m x k), op(B) (k x n) and C */
    int64_t lda, ldb, ldc; /* < 0: the minimum for the layout */
    gk_layout layout;
    gk_trans ta, tb;
    float alpha, beta;
    int threads;        /* CPU threads; 0: the library's default */
    int reps;           /* timed calls after the checked one, >= 1 */
    const char *kernel; /* gpu: registry id or name; NULL: gk_cuda_sgemm */
    uint64_t seed;
} bench_run_opts;

/* Random data from `seed`, one untimed warm-up call, `reps` timed calls each on a fresh copy of
 * C, then C checked against float64 (every element up to 2^27 multiply-adds, else 1000 sampled
 * ones including the corners). Prints the problem, the check and the timing; 0 PASS, 1 FAIL. */
int bench_run_one(const bench_run_opts *o);

/* ---- the CPU benchmark (gemmkit bench) ------------------------------------------------------ */

enum { BENCH_NUM_IMPLS = 6, BENCH_MAX_SHAPES = 64, BENCH_MAX_THREADS = 16, BENCH_MAX_ROUNDS = 32 };

/* Column order of the results; index 0 is gemmkit, the reference the ratios divide by. The last,
 * "baseline", is gemmkit again but run by another gemmkit binary (bench_cpu_opts.baseline): an
 * A/B comparison of two builds measured in the same run as the peers. */
extern const char *const bench_impl_names[BENCH_NUM_IMPLS];
/* Index of a name in bench_impl_names, or -1. */
int bench_impl_find(const char *name);
/* The id of the "baseline" column. */
int bench_impl_baseline(void);

typedef struct bench_shape {
    int64_t m, n, k;
} bench_shape;

/* Zero / negative fields take the defaults listed. */
typedef struct bench_cpu_opts {
    int quick;    /* smaller default shape set and time box */
    int plot;     /* write the PNG (bench/plot.py, needs matplotlib) */
    int nthreads; /* 0: 1 and all online cores */
    int threads[BENCH_MAX_THREADS];
    int nshapes; /* 0: squares 64..4096 (quick: ..2048) plus skinny shapes */
    bench_shape shapes[BENCH_MAX_SHAPES];
    int use_impl[BENCH_NUM_IMPLS]; /* all 0: every peer; "baseline" follows `baseline` */
    double min_time;      /* seconds of timed calls per measurement; < 0: 0.3 (quick 0.1) */
    int rounds;           /* interleaved rounds, median of their medians; 0: 1 */
    const char *baseline; /* another gemmkit binary for the baseline column, or NULL */
    const char *out_dir;  /* where cpu-<machine>-<date>.csv/.json/.png go; created */
} bench_cpu_opts;

/* Times every selected implementation on every shape and thread count, each measurement in a
 * fresh worker process, writes CSV, JSON and the plot, prints the table. 1 if any result failed
 * its float64 check. */
int bench_cpu_run(const bench_cpu_opts *o);

/* Worker protocol: bench_cpu_run (and another build's, for the baseline column) starts
 *   <gemmkit binary> bench --worker IMPL --sizes MxNxK --threads T1,T2.. --min-time S
 * and the CLI answers it with bench_cpu_worker(o, IMPL), o holding that one shape, the thread
 * counts and the time box. It prints tab-separated "kernel", "missing" and "result" lines. */
int bench_cpu_worker(const bench_cpu_opts *o, const char *impl);

/* ---- the GPU ladder (gemmkit ladder; CUDA builds only) -------------------------------------- */

enum { BENCH_LADDER_MAX_SIZES = 64 };

typedef struct bench_ladder_opts {
    int nsizes;
    int64_t sizes[BENCH_LADDER_MAX_SIZES]; /* square problems n x n x n */
    const char *kernels;    /* comma-separated names or name prefixes (13, 13_cp); NULL: all */
    int reps;               /* at most this many timed runs per variant, >= 3 */
    int rounds;             /* rounds the timed runs are spread over, >= 1 */
    double budget;          /* seconds of timed runs per variant, > 0 */
    int device;             /* CUDA device */
    const char *out;        /* where gpu_ladder.csv/.json and the plots go; created */
    const char *triton_csv; /* merge rows bench/triton_peer.py wrote earlier, or NULL */
    int cublas;             /* time cuBLAS FP32 and TF32 too */
    int triton;             /* run bench/triton_peer.py and merge its rows */
    int plot;               /* run bench/plot_gpu.py */
} bench_ladder_opts;

/* The defaults: sizes 4096 and 8192, 30 reps, 3 rounds, 1.5 s, device 0, cuBLAS and plots on. */
void bench_ladder_defaults(bench_ladder_opts *o, const char *out);

/* Checks every selected registry kernel (and cuBLAS) against a float64 GPU reference, times the
 * ones that pass with the L2 flushed between runs, writes the table, CSV, JSON and plots. 1 if a
 * variant failed its check, 2 if none matched o->kernels or the device cannot be used. */
int bench_ladder_run(const bench_ladder_opts *o);

#ifdef __cplusplus
}
#endif

#endif
