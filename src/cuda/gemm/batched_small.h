/*
 * batched_small.h — the batched kernel for small items (batched_small.cu): items whose m and n
 * (kernel contract of kernel.cuh) are both at most GK_BATCHED_SMALL_MAX, any k. gk_gemm_batched
 * (batched.cu) hands such batches to it instead of the tiled grid, whose smallest tile (64x64,
 * a multi-stage pipeline built for long K) would pad a 32x32 item to four times its area and spend
 * most of its time filling and draining the pipeline. Plain CUDA C++ (no inline PTX), so the host
 * emulation of the batched test (tests/cuda/test_batched_emulated.sh) runs it too.
 */
#ifndef GK_CUDA_GEMM_BATCHED_SMALL_H
#define GK_CUDA_GEMM_BATCHED_SMALL_H

#include "cuda/gemm/batched.h"

/* Widest m or n the small-item kernel takes. */
#define GK_BATCHED_SMALL_MAX 64

/* Does the small-item kernel take the items of p? */
static inline bool gk_batched_small_fits(const gk_rm_problem &p) {
    return p.m <= GK_BATCHED_SMALL_MAX && p.n <= GK_BATCHED_SMALL_MAX;
}

/* `count` items of p (gk_batched_small_fits), as gk_gemm_batched (batched.h): C_i = alpha A_i B_i +
 * beta C_i, asynchronous on `stream`. Alignment of every operand is tested per item on the device,
 * so strided and pointer-array batches take the same kernel. Returns the launch error. */
cudaError_t gk_gemm_batched_small(const gk_rm_problem &p, gk_batch_items<const float> a,
                                  gk_batch_items<const float> b, gk_batch_items<float> c,
                                  int64_t count, cudaStream_t stream);

#endif
