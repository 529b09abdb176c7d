/*
 * ladder.h — the launchers of the ladder steps, one per numbered file in this folder (the name is
 * the file stem). Each implements the kernel contract of src/cuda/gemm/kernel.cuh. Steps 1-9 are
 * complete kernels of their own; steps 10-15 instantiate the production templates of
 * src/cuda/gemm/ (step 15 is the production launcher itself). Steps 16 and 17 are again kernels of
 * their own, on Hopper's wgmma; steps 18-20 run the production sm_90a kernel of src/cuda/hopper/
 * in three configurations. docs/ladder.md walks through them.
 */
#ifndef GK_CUDA_LADDER_LADDER_H
#define GK_CUDA_LADDER_LADDER_H

#include <stddef.h>

#include "cuda/gemm/kernel.cuh"

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
cudaError_t gk_ladder_16_wgmma_tf32(const gk_rm_problem &p, const gk_launch_env &env);
cudaError_t gk_ladder_17_tma_ring(const gk_rm_problem &p, const gk_launch_env &env);
cudaError_t gk_ladder_18_warp_specialized(const gk_rm_problem &p, const gk_launch_env &env);
cudaError_t gk_ladder_19_persistent(const gk_rm_problem &p, const gk_launch_env &env);
cudaError_t gk_ladder_20_clusters(const gk_rm_problem &p, const gk_launch_env &env);

#endif
