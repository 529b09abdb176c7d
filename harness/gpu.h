/*
 * gpu.h — the GPU part of the harness (harness.h): random fill on the device, a float64 reference
 * and the accuracy rule's comparison computed on the device (checking an 8192^3 result on the
 * host would take minutes), the L2 flush that makes every timed call start cold, and CUDA-event
 * timing. For the mixed-precision GEMM (gk_cuda_gemm_ex): fill in any operand format and a
 * sampled float64 check of a result in any layout and format. Everything runs on the legacy
 * default stream. Callable from C and C++; CUDA builds only.
 */
#ifndef GK_HARNESS_GPU_H
#define GK_HARNESS_GPU_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "gemmkit.h"

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

/* ---- mixed precision ----------------------------------------------------------------------
 * Operands of gk_cuda_gemm_ex stored in a gk_format: GK_F32 and GK_TF32 as float, GK_BF16 and
 * GK_F16 in two bytes, GK_F8_E4M3FN and GK_F8_E5M2 in one. Every value of these formats is a
 * float, so the reference multiplies the decoded values exactly in float64. */

/* x[0..n) = mul * u_i rounded to fmt (nearest even; FP8 saturates to its largest finite value),
 * u_i uniform in [-1, 1) from the same hash as gkh_gpu_fill. For FP8 pass mul = the format's
 * largest value and 1 / mul as the tensor's scale: the per-tensor scaling FP8 callers use. */
void gkh_gpu_fill_format(void *x, gk_format fmt, int64_t n, uint64_t seed, float mul, int blocks);

/* One call of gk_cuda_gemm_ex as the check sees it (the arguments of the call, and C before it).
 * scale_a/scale_b are the call's device pointers (NULL: 1). */
typedef struct gkh_gemm_desc {
    gk_layout layout;
    gk_trans ta, tb;
    int64_t m, n, k;
    float alpha, beta;
    gk_format atype, btype, ctype;
    const void *a, *b;
    int64_t lda, ldb, ldc;
    const float *scale_a, *scale_b;
    const void *c0; /* C before the call, read only when beta != 0 */
} gkh_gemm_desc;

/* The accuracy rule for a mixed-precision result: element (i, j) passes when
 *   |C_ij - R_ij| <= gkh_bound(k, u_in, S_ij) + u_out * |R_ij|,
 * R and S from the decoded operands in float64 (S with |alpha sa sb| and |beta c0|), u_out the
 * unit roundoff of C's format (the one rounding to ctype), u_in from gkh_gemm_ex_u_in. */
typedef struct gkh_gpu_check {
    int64_t checked, failed; /* elements compared; outside the bound (NaN counts) */
    double max_ratio;        /* worst |C - R| / bound; +inf for NaN */
    double max_err;          /* worst |C - R| / S, the error in units of the element's scale */
    int64_t worst_i, worst_j;
    double worst_got, worst_want;
} gkh_gpu_check;

/* Unit roundoff of a result format: 0 for GK_F32, 2^-8 for GK_BF16, 2^-11 for GK_F16. */
double gkh_format_u_out(gk_format fmt);

/* The u_in of the rule for operands atype x btype (fp32_mode: the gk_fp32_mode of GK_F32 operands):
 *   0      GK_F32 (both modes: 3xTF32 is held to the float32 bound), BF16, F16: their products
 *          are exact in float32 and the sum is float32;
 *   2^-11  GK_TF32: the operands are rounded to 10-bit mantissas;
 *   FP8    products are exact but the tensor core adds them in an accumulator that keeps about
 *          14 bits (DeepSeek-V3 technical report, section 3.3.2): each addition may lose up to
 *          2^-13 of the partial sum (truncation, 13 fraction bits), so a chunk of the 128 values
 *          of K between promotions to float32 adds at most 128 * 2^-13 = 2^-6 of its scale:
 *          u_in = 2^-7. With fp8_fast_accum nothing is promoted and the bound grows with K:
 *          u_in = k * 2^-14. Errors of random data stay far below these worst cases; the
 *          benchmark reports the measured error of gemmkit and of cuBLASLt beside each other. */
double gkh_gemm_ex_u_in(gk_format atype, gk_format btype, int fp32_mode, int fp8_fast_accum,
                        int64_t k);

/* Compare C (after the call described by d) with float64 at `samples` elements (the four corners
 * first, then positions drawn from `seed`), or at every element when m * n <= samples. */
cudaError_t gkh_gpu_check_sampled(const gkh_gemm_desc *d, const void *c, double u_in,
                                  int64_t samples, uint64_t seed, int blocks, gkh_gpu_check *out);

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
