/*
 * batched.h — the batched SGEMM benchmark (`gemmkit batched`, batched.cu): gemmkit's
 * gk_cuda_sgemm_strided_batched against cuBLAS's cublasSgemmStridedBatched in the same run.
 */
#ifndef GK_BENCH_GPU_BATCHED_H
#define GK_BENCH_GPU_BATCHED_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { BENCH_BATCHED_MAX_SHAPES = 32 };

typedef struct bench_batched_opts {
    int64_t shapes[BENCH_BATCHED_MAX_SHAPES][4]; /* batch, m, n, k */
    int nshapes;
    int reps;   /* timed calls per variant and round */
    int rounds; /* the variants alternate over this many rounds */
    int device;
} bench_batched_opts;

/* The shapes of docs/cuda.md ("Batched"), 20 reps, 3 rounds, device 0. */
void bench_batched_defaults(bench_batched_opts *o);

/* Check each shape (two items of each against float64), time both and print one line per shape;
 * exit status: 0, or 1 when a check fails or a call errs. */
int bench_batched_run(const bench_batched_opts *o);

#ifdef __cplusplus
}
#endif

#endif
