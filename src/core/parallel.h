/*
 * parallel.h — the library's one way to run work on several threads. The CPU frame describes a
 * parallel step as a task fn(ctx, id, nthreads) and hands it here; how threads are provided (and
 * kept safe across fork() and inside callers' own parallel regions) is parallel.c's business.
 */
#ifndef GK_CORE_PARALLEL_H
#define GK_CORE_PARALLEL_H

/* One part of a parallel step: part `id` of `nthreads` (0 <= id < nthreads). */
typedef void (*gk_task_fn)(void *ctx, int id, int nthreads);

/* Run fn(ctx, id, t) for every id in [0, t) and return when all have finished; the caller's
 * thread runs one part. t <= nthreads is the number of threads actually granted (1 when more
 * cannot be had), and fn must be correct for any t >= 1. */
void gk_parallel(int nthreads, gk_task_fn fn, void *ctx);

/* Logical CPUs this process may run on (at least 1). */
int gk_parallel_cpus(void);

#endif
