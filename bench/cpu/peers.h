/*
 * peers.h — the SGEMM implementations the CPU benchmark times: gemmkit itself and the peers
 * OpenBLAS and BLIS, each "as shipped" and "at its best". Peers are loaded with dlopen, so a
 * missing library is reported in the results instead of failing the build or the run.
 */
#ifndef GK_BENCH_PEERS_H
#define GK_BENCH_PEERS_H

#include <stdint.h>

enum { BENCH_NUM_IMPLS = 6 };

/* Column order of the results; index 0 is gemmkit, the reference the ratios divide by. The last,
 * "baseline", is gemmkit again but run by another gemmkit binary (bench --baseline PATH): an A/B
 * comparison of two builds measured in the same run as the peers. */
extern const char *const bench_impl_names[BENCH_NUM_IMPLS];

typedef struct bench_impl {
    int id;            /* index into bench_impl_names */
    char kernel[96];   /* the kernel/configuration it runs, as the library reports it */
    char missing[192]; /* why it could not be loaded; "" when loaded */
    void *handle;      /* dlopen handle (peers) */
    void *gemm_fn, *threads_fn;
} bench_impl;

/* Index of a name in bench_impl_names, or -1. */
int bench_impl_find(const char *name);

/* The id of the "baseline" column: never loaded in-process (its worker is another binary). */
int bench_impl_baseline(void);

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
