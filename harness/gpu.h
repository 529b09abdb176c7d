/*
 * gpu.h — the GPU part of the harness (harness.h): random fill on the device, a float64 reference
 * and the accuracy rule's comparison computed on the device (checking an 8192^3 result on the
 * host would take minutes), the L2 flush that makes every timed call start cold, and CUDA-event
 * timing. Everything runs on the legacy default stream. Callable from C and C++; CUDA builds only.
 */
#ifndef GK_HARNESS_GPU_H
#define GK_HARNESS_GPU_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* x[0..n) uniform in [-1, 1) from a hash of (seed + index): the same data for any launch shape. */
void gkh_gpu_fill(float *x, int64_t n, uint64_t seed, int blocks);

/* R = A B and S = |A| |B| (the rule's scale) in float64, all column-major n x n. */
cudaError_t gkh_gpu_reference(int64_t n, const float *a, const float *b, double *r, double *s);

/* Compare C (count elements) with R and S for inner dimension k under the rule (rule.h):
 * *bad receives the number of elements outside the bound, *worst the largest err / bound (+inf
 * for NaN). Synchronous. */
cudaError_t gkh_gpu_compare(int64_t count, int64_t k, double u_in, const float *c, const double *r,
                            const double *s, int blocks, unsigned long long *bad, float *worst);

/* A buffer larger than the L2 (twice its size, at least 64 MiB) overwritten before each timed
 * call, outside the timed interval, so no call finds its operands left in L2 by the previous. */
typedef struct gkh_l2_flush {
    void *buf;
    size_t bytes;
} gkh_l2_flush;
cudaError_t gkh_l2_flush_init(gkh_l2_flush *f, int l2_bytes);
void gkh_l2_flush_run(const gkh_l2_flush *f, int round); /* asynchronous */
void gkh_l2_flush_free(gkh_l2_flush *f);

/* `reps` calls of launch(arg), each bracketed by CUDA events and preceded by an L2 flush when
 * flush != NULL. Record all of them first and read the times after one synchronisation, so the
 * host never waits between calls: create (synchronises the device), run, read, destroy. */
typedef struct gkh_gpu_timer {
    int reps;
    cudaEvent_t *start, *stop;
} gkh_gpu_timer;
cudaError_t gkh_gpu_timer_create(gkh_gpu_timer *t, int reps);
/* Returns the error of the last call's completion (a fault in a kernel shows here). */
cudaError_t gkh_gpu_timer_run(gkh_gpu_timer *t, const gkh_l2_flush *flush,
                              void (*launch)(void *arg), void *arg);
/* Milliseconds of call i. */
float gkh_gpu_timer_ms(const gkh_gpu_timer *t, int i);
void gkh_gpu_timer_destroy(gkh_gpu_timer *t);

#ifdef __cplusplus
}
#endif

#endif
