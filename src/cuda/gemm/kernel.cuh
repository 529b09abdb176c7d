/*
 * kernel.cuh — the contract every SGEMM kernel in the CUDA registry implements, production kernels
 * (src/cuda/gemm/) and ladder steps (src/cuda/ladder/) alike.
 *
 * A kernel receives a row-major, non-transposed problem
 *     C (m x n, ldc) = alpha * A (m x k, lda) * B (k x n, ldb) + beta * C
 * with 64-bit sizes and leading dimensions. The dispatcher (src/cuda/core/dispatch.cu) maps every
 * public call (either layout, any transposition) onto this form: a column-major problem is the
 * row-major problem of C^T with A and B swapped; transposed operands are first copied to a
 * non-transposed workspace. Every launcher must:
 *   - be correct for any m, n, k >= 1 and any leading dimension >= the row length (edge tiles
 *     guarded; vector loads only where alignment and bounds allow, scalar otherwise);
 *   - never read C when beta == 0 (store alpha*acc), so NaN in C cannot leak;
 *   - write nothing outside the m x n block of C;
 *   - return the launch's cudaError_t (cudaGetLastError after the launch), never exit or print.
 * m, n, k == 0 and alpha == 0 never reach a launcher: the dispatcher handles them.
 *
 * Besides the problem a launcher gets a gk_launch_env: the stream, the device's SM count and, for
 * kernels whose registry entry declares a scratch size (gk_scratch_fn), device scratch memory of
 * that size. The first GK_SCRATCH_FLAG_BYTES of the scratch are zero when the kernel starts and
 * the kernel must leave them zero when it ends (counters that reset themselves), so the dispatcher
 * clears them only when it allocates the buffer. A launcher given no scratch (NULL) must still be
 * correct, e.g. by falling back to a schedule that needs none.
 */
#ifndef GK_CUDA_GEMM_KERNEL_CUH
#define GK_CUDA_GEMM_KERNEL_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

struct gk_rm_problem {
    int64_t m, n, k;
    float alpha, beta;
    const float *a;
    int64_t lda;
    const float *b;
    int64_t ldb;
    float *c;
    int64_t ldc;
    /* 1: each row of B may be read up to the next multiple of 4 columns (B is the dispatcher's
     * padded copy), so 16-byte copies may cover its right edge whatever n is */
    int b_padded = 0;
};

struct gk_launch_env {
    cudaStream_t stream;
    int sm;        /* compute capability * 10 of the current device */
    int sm_count;  /* its multiprocessors */
    void *scratch; /* the bytes the entry's gk_scratch_fn asked for, 256-byte aligned, or NULL */
};

/* Bytes of zero-initialised counters at the start of every scratch buffer. */
#define GK_SCRATCH_FLAG_BYTES 4096

typedef cudaError_t (*gk_launch_fn)(const gk_rm_problem &p, const gk_launch_env &env);
/* Scratch a kernel needs for problem p on a device of compute capability sm (x10) with sm_count
 * SMs (0: none). */
typedef size_t (*gk_scratch_fn)(const gk_rm_problem &p, int sm, int sm_count);

#endif
