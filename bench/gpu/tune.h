/*
 * tune.h — `gemmkit tune` (tune.cu): time every candidate plan of gk_cuda_sgemm's production path
 * for a list of shapes and store the fastest in the tune cache (docs/tuning.md).
 */
#ifndef GK_BENCH_GPU_TUNE_H
#define GK_BENCH_GPU_TUNE_H

#include "bench/bench.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bench_tune_opts {
    int nshapes; /* 0: the default shapes (docs/tuning.md) */
    bench_shape shapes[BENCH_MAX_SHAPES];
    int reps;          /* timed calls per candidate and round */
    int rounds;        /* the candidates alternate over this many rounds */
    int device;
    const char *cache; /* the file to update; NULL: the library's path (gk_tune_cache_path) */
    int dry_run;       /* measure and print, store nothing */
} bench_tune_opts;

void bench_tune_defaults(bench_tune_opts *o);

/* Check and time each shape's candidates, print one table, store the winners (unless dry_run).
 * Exit status: 0; 1 when a candidate fails its check, a call errs or the file cannot be written. */
int bench_tune_run(const bench_tune_opts *o);

#ifdef __cplusplus
}
#endif

#endif
