/*
 * peers.h — the SGEMM implementations the CPU benchmark times: gemmkit itself and the peers
 * OpenBLAS and BLIS, each "as shipped" and "at its best". Peers are loaded with dlopen, so a
 * missing library is reported in the results instead of failing the build or the run.
 */
#ifndef GK_BENCH_PEERS_H
#define GK_BENCH_PEERS_H

#include <stdint.h>

#include "bench/bench.h" /* the implementation names and ids */

typedef struct bench_impl {
    int id;            /* index into bench_impl_names */
    char kernel[96];   /* the kernel/configuration it runs, as the library reports it */
    char missing[192]; /* why it could not be loaded; "" when loaded */
    void *handle;      /* dlopen handle (peers) */
    void *gemm_fn, *threads_fn;
} bench_impl;

/* OPENBLAS_CORETYPE value that the "openblas-best" worker process is started with: the widest
 * ISA's kernel set this CPU can run. OpenBLAS reads it only while loading, hence a process. */
const char *bench_openblas_best_coretype(void);

/* Load implementation `id` in this process; returns 1, or 0 with impl->missing set. */
int bench_impl_load(int id, bench_impl *impl);

void bench_impl_set_threads(const bench_impl *impl, int threads);

/* C (m x n, ldc) = A (m x k, lda) * B (k x n, ldb): column-major, no transposition, alpha = 1,
 * beta = 0 — the case every library optimises first, so the comparison is like for like. */
void bench_impl_sgemm(const bench_impl *impl, int64_t m, int64_t n, int64_t k, const float *a,
                      int64_t lda, const float *b, int64_t ldb, float *c, int64_t ldc);

#endif
