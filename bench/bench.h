/*
 * bench.h — the benchmark library: what `gemmkit run`, `gemmkit bench` and `gemmkit ladder` do
 * once the CLI (tools/) has parsed their options. Built on the harness (harness/harness.h,
 * harness/gpu.h) and the public API; it knows nothing of the CLI except the worker protocol
 * below and the names of the mixed-precision types (--dtype). Entry points return a process exit
 * status: 0 success, 1 a failed check or runtime error, 2 a usage error found late (e.g. a kernel
 * name no registry entry matches).
 */
#ifndef GK_BENCH_H
#define GK_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "gemmkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The operand types of one mixed-precision GEMM (gk_cuda_gemm_ex) as --dtype names them, or of
 * one block-scaled GEMM (gk_cuda_gemm_scaled) when `scaling` is set. */
typedef struct bench_dtype {
    gk_format a, b;         /* formats of A and B (block-scaled: the element formats) */
    gk_fp32_mode fp32_mode; /* for GK_F32 operands: the context's FP32 mode */
    gk_scaling scaling;     /* 0: none; GK_SCALING_BLOCK128 or GK_SCALING_MX: block-scaled */
} bench_dtype;

/* ---- one checked, timed GEMM (gemmkit run) -------------------------------------------------- */

typedef struct bench_run_opts {
    int gpu;               /* run on CUDA device 0 instead of the CPU */
    int gpu_all;           /* with gpu: host operands over every visible device
                              (gk_cuda_sgemm_host_multi) */
    int64_t m, n, k;       /* sizes of op(A) (m x k), op(B) (k x n) and C */
    int64_t lda, ldb, ldc; /* < 0: the minimum for the layout */
    gk_layout layout;
    gk_trans ta, tb;
    float alpha, beta;
    int threads;        /* CPU threads; 0: the library's default */
    int reps;           /* timed calls after the checked one, >= 1 */
    const char *kernel; /* gpu: registry id or name; NULL: gk_cuda_sgemm */
    uint64_t seed;
    /* gpu, mixed precision (--dtype, --out-dtype): when `mixed`, bench_tc_run_one runs the call
     * with these types instead of bench_run_one's float32 path */
    int mixed;
    bench_dtype dtype;
    gk_format out; /* format of C */
    int fp8_fast_accum;
} bench_run_opts;

/* Random data from `seed`, one untimed warm-up call, `reps` timed calls each on a fresh copy of
 * C, then C checked against float64 (every element up to 2^27 multiply-adds, else 1000 sampled
 * ones including the corners). Prints the problem, the check and the timing; 0 PASS, 1 FAIL. */
int bench_run_one(const bench_run_opts *o);

/* ---- the CPU benchmark (gemmkit bench) ------------------------------------------------------ */

enum { BENCH_NUM_IMPLS = 6, BENCH_MAX_SHAPES = 64, BENCH_MAX_THREADS = 16, BENCH_MAX_ROUNDS = 32 };
/* the mixed-precision benchmark's shape list holds a whole model grid (bench_tc_llm_shapes) */
enum { BENCH_TC_MAX_SHAPES = 256 };

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

/* ---- low precision on the CPU (gemmkit bench --device cpu --dtype bf16|f16; bench/cpu/bench_ex.c)
 * gk_gemm_ex against gk_sgemm and OpenBLAS's cblas_sbgemm (when exported), row-major squares. */
typedef struct bench_cpu_ex_opts {
    gk_format fmt; /* GK_BF16 or GK_F16 */
    int nsizes;
    int64_t sizes[BENCH_MAX_SHAPES];
    int nthreads;
    int threads[BENCH_MAX_THREADS]; /* 0: gemmkit's default */
    double min_time;                /* seconds of timed calls per measurement */
    const char *csv;                /* CSV output file, or NULL */
} bench_cpu_ex_opts;
int bench_cpu_ex_run(const bench_cpu_ex_opts *o);

/* ---- mixed precision on the GPU (gemmkit run/bench --dtype) ---------------------------------
 * The helpers of bench_dtype and bench_tc_defaults exist in every build; bench_tc_run_one and
 * bench_tc_run in CUDA builds only. */

/* One --dtype item: a format by its short name (f32, tf32, bf16, f16, e4m3, e5m2) or by
 * gk_format_name (bfloat16, float8_e4m3fn, ...); "3xtf32" (float32 operands in the context's
 * GK_FP32_3XTF32 mode); "A:B", two formats for different A and B; or a block-scaled name
 * (bench_dtype_scaled). 1 on success. */
int bench_dtype_parse(const char *s, bench_dtype *out);
/* The block-scaled --dtype names, one list (bench/dtype.c): entry i (from 0) as its name, its
 * dtype in *d and a short description in *what; NULL past the last. */
const char *bench_dtype_scaled(int i, bench_dtype *d, const char **what);
/* A result format (--out-dtype), by short name or gk_format_name. 1 on success. */
int bench_format_parse(const char *s, gk_format *out);
/* The short name of a format, else its gk_format_name ("?" outside the enum). */
const char *bench_format_short(gk_format fmt);
/* The name tables print: "bf16", "3xtf32", "e4m3:e5m2", "mxfp8". */
void bench_dtype_name(const bench_dtype *d, char *out, size_t len);
/* The result format when none is given: float32 for float32 and TF32 operands, the operand format
 * for BF16 and F16, BF16 for FP8 and block-scaled operands (the pairing FP8 training and cuBLASLt
 * users choose). */
gk_format bench_dtype_default_out(const bench_dtype *d);
/* An operand of an FP8 format: cuBLASLt multiplies FP8 only as column-major op(A) = A^T,
 * op(B) = B ("TN"), which the benchmark then uses by default (as for block-scaled types). */
int bench_dtype_is_fp8(const bench_dtype *d);

/* gemmkit run --device gpu --dtype D: like bench_run_one (random data, one checked call, `reps`
 * timed calls, every element or 1000 sampled ones checked against float64 on the device), for
 * the types in o->dtype and o->out; FP8 operands get per-tensor scales; block-scaled types
 * quantize random normal data with their block scales and are checked on the host with the
 * scales applied. 0 PASS, 1 FAIL or an error, 2 a request the library refuses as invalid. */
int bench_tc_run_one(const bench_run_opts *o);

enum { BENCH_TC_MAX_DTYPES = 16 };

/* gemmkit bench --dtype LIST. Zero fields take the defaults of bench_tc_defaults. */
typedef struct bench_tc_opts {
    int ndtypes;
    bench_dtype dtypes[BENCH_TC_MAX_DTYPES];
    int out_type_set; /* 0: each dtype's bench_dtype_default_out */
    gk_format out_type;
    gk_layout layout;
    int trans_set; /* 0: NN, or TN for FP8 and block-scaled operands (bench_dtype_is_fp8) */
    gk_trans ta, tb;
    int nshapes;
    bench_shape shapes[BENCH_TC_MAX_SHAPES];
    int reps;   /* timed runs per implementation and shape, >= 1 */
    int rounds; /* rounds the timed runs are spread over, gemmkit and the peer alternating */
    int warmup; /* untimed calls after the check */
    int peer;   /* time cuBLASLt too (block-scaled rows: per-tensor FP8, and for e4m3-b128 also
                 * cuBLASLt's own 1x128 / 128x128 block scaling, one row per peer) */
    int fp8_fast_accum; /* gemmkit's and cuBLASLt's FP8 fast accumulation (block-scaled rows:
                         * the per-tensor peer's only; gemmkit's block-scaled GEMM promotes) */
    int64_t samples;    /* elements checked against float64 per result */
    int device;
    int plot;        /* run bench/plot_tc.py */
    const char *out; /* where gpu_tc.csv/.json and the plots go; created */
    uint64_t seed;
} bench_tc_opts;

/* The shape grid of `gemmkit bench --dtype ... --shapes llm` (docs/benchmarks.md, "Shapes of
 * models"): M in {1, 16, 32, ..., 16384} times the (N, K) of public models' linear layers, then
 * squares 1024-16384. Writes up to max shapes; returns how many there are. */
int bench_tc_llm_shapes(bench_shape *out, int max);
/* Shapes from a file, one "M N K" or "MxNxK" a line ('#' starts a comment); -1 on a bad line or
 * an unreadable file (message on stderr), else the count (at most max). */
int bench_tc_shapes_file(const char *path, bench_shape *out, int max);

/* Defaults: squares 1024, 2048, 3072, 4096, 6144, 8192, 12288, 16384; column-major; 20 reps in 2
 * rounds after 3 warm-up calls; cuBLASLt on; 2048 sampled elements; device 0; plots on. */
void bench_tc_defaults(bench_tc_opts *o, const char *out);

/* For every shape and dtype: random operands, gemmkit and cuBLASLt checked against float64 on
 * sampled elements, then timed (CUDA events, L2 flushed before each run, the median reported)
 * with NVML's clock and power; writes the table, CSV, JSON and plots. 1 if a result failed its
 * check or a call failed, 2 if the device cannot be used. */
int bench_tc_run(const bench_tc_opts *o);

/* ---- the GPU ladder (gemmkit ladder; CUDA builds only) -------------------------------------- */

enum { BENCH_LADDER_MAX_SIZES = 64 };

typedef struct bench_ladder_opts {
    int nsizes;
    int64_t sizes[BENCH_LADDER_MAX_SIZES]; /* square problems n x n x n */
    /* m, n, k of problem i when not all zero (then sizes[i] is unused): `--sizes MxNxK` */
    int64_t shapes[BENCH_LADDER_MAX_SIZES][3];
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
