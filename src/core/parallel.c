/*
 * parallel.c — gk_parallel on OpenMP (see parallel.h).
 */
#include "core/parallel.h"

#include <omp.h>

void gk_parallel(int nthreads, gk_task_fn fn, void *ctx) {
    if (nthreads <= 1) {
        fn(ctx, 0, 1);
        return;
    }
#pragma omp parallel num_threads(nthreads)
    fn(ctx, omp_get_thread_num(), omp_get_num_threads());
}

int gk_parallel_cpus(void) {
    int n = omp_get_num_procs();
    return n > 0 ? n : 1;
}
