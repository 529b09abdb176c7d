/*
 * gemm.h — the production SGEMM launchers, the kernels gk_cuda_sgemm runs by default. They
 * implement the kernel contract (kernel.cuh). gk_gemm_stream_k is the registry's entry point
 * (src/cuda/registry.cu, listed under ladder step 15): it asks the heuristic for a plan (plan.h,
 * select.cu) and runs it. The launchers below it run one plan kind each; select.cu is their only
 * caller, after gk_sgemm_plan_valid has accepted the plan.
 */
#ifndef GK_CUDA_GEMM_GEMM_H
#define GK_CUDA_GEMM_GEMM_H

#include <stddef.h>

#include "cuda/gemm/kernel.cuh"

/* FP32 SGEMM: the heuristic's plan for p (gk_sgemm_plan_pick), its scratch and its launch. */
cudaError_t gk_gemm_stream_k(const gk_rm_problem &p, const gk_launch_env &env);
size_t gk_gemm_stream_k_scratch(const gk_rm_problem &p, int sm, int sm_count);

/* Tile configuration `config` of configs.h over the whole of p (stream_k.cu): with stream_k, the
 * data-parallel + stream-K schedule where it pays (needs the scratch gk_gemm_tiled_scratch reports;
 * without it, or when it does not pay, the data-parallel grid alone). */
cudaError_t gk_gemm_tiled(int config, bool stream_k, const gk_rm_problem &p,
                          const gk_launch_env &env);
size_t gk_gemm_tiled_scratch(int config, bool stream_k, const gk_rm_problem &p, int sm_count);

/* Split-K (stream_k.cu): configuration `config` with K cut into `split` pieces (2 <= split <=
 * ceil(k / BK)), each piece's tiles written to scratch, then gk_reduce_pieces. env.scratch must
 * hold gk_gemm_split_k_scratch bytes. */
cudaError_t gk_gemm_split_k(int config, int split, const gk_rm_problem &p,
                            const gk_launch_env &env);
size_t gk_gemm_split_k_scratch(int split, const gk_rm_problem &p);

/* The GEMV-class kernel for m or n <= GK_PLAN_GEMV_MAX (gemv.cu) with K cut into `split` pieces;
 * split 0: gk_gemv_split's choice. Pieces beyond one need gk_gemv_scratch bytes of env.scratch;
 * without scratch it runs one piece. */
cudaError_t gk_gemv(int split, const gk_rm_problem &p, const gk_launch_env &env);
size_t gk_gemv_scratch(int split, const gk_rm_problem &p, int sm_count);
int gk_gemv_split(const gk_rm_problem &p, int sm_count);
/* Most K pieces gk_gemv takes. */
#define GK_GEMV_MAX_SPLIT 64

/* Partial products in scratch: `pieces` row-major m x n blocks of leading dimension
 * gk_pieces_ld(n), one after the other from `ws` (which is 16-byte aligned). */
__host__ __device__ inline int64_t gk_pieces_ld(int64_t n) {
    return (n + 3) / 4 * 4;
}

/* C = alpha * (sum of the pieces, added in piece order) + beta * C (C not read when beta == 0):
 * the deterministic second pass of split-K and of the GEMV kernel (gemv.cu). */
cudaError_t gk_reduce_pieces(const gk_rm_problem &p, const float *ws, int pieces,
                             cudaStream_t stream);

#endif
