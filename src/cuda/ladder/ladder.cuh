/*
 * ladder.cuh — the contract every SGEMM kernel in the CUDA registry implements.
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
#ifndef GK_CUDA_LADDER_CUH
#define GK_CUDA_LADDER_CUH

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

/* One launcher per ladder step; names follow the file names in this folder. */
cudaError_t gk_ladder_01_naive(const gk_rm_problem &p, const gk_launch_env &env);
cudaError_t gk_ladder_02_coalesced(const gk_rm_problem &p, const gk_launch_env &env);
cudaError_t gk_ladder_03_smem_tiling(const gk_rm_problem &p, const gk_launch_env &env);
cudaError_t gk_ladder_04_1d_register_tiling(const gk_rm_problem &p, const gk_launch_env &env);
cudaError_t gk_ladder_05_2d_register_tiling(const gk_rm_problem &p, const gk_launch_env &env);
cudaError_t gk_ladder_06_vectorized(const gk_rm_problem &p, const gk_launch_env &env);
cudaError_t gk_ladder_07_bank_conflict_free(const gk_rm_problem &p, const gk_launch_env &env);
cudaError_t gk_ladder_08_warp_tiling(const gk_rm_problem &p, const gk_launch_env &env);
cudaError_t gk_ladder_09_double_buffering(const gk_rm_problem &p, const gk_launch_env &env);
cudaError_t gk_ladder_10_cp_async_pipeline(const gk_rm_problem &p, const gk_launch_env &env);
cudaError_t gk_ladder_11_autotuned(const gk_rm_problem &p, const gk_launch_env &env);
cudaError_t gk_ladder_12_ptx_128x128x8(const gk_rm_problem &p, const gk_launch_env &env);
cudaError_t gk_ladder_13_cp_async_128x256x8(const gk_rm_problem &p, const gk_launch_env &env);
cudaError_t gk_ladder_14_tf32_mma(const gk_rm_problem &p, const gk_launch_env &env);
cudaError_t gk_ladder_15_stream_k(const gk_rm_problem &p, const gk_launch_env &env);
size_t gk_ladder_15_stream_k_scratch(const gk_rm_problem &p, int sm, int sm_count);

#endif
