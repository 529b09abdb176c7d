/*
 * gemm.h — the production SGEMM launchers, the kernels gk_cuda_sgemm runs by default. They
 * implement the kernel contract (kernel.cuh) and are listed in the registry (src/cuda/registry.cu)
 * under the ladder step that introduced them.
 */
#ifndef GK_CUDA_GEMM_GEMM_H
#define GK_CUDA_GEMM_GEMM_H

#include <stddef.h>

#include "cuda/gemm/kernel.cuh"

/* FP32 SIMT SGEMM: the tile configuration of configs.h chosen for the problem, under a stream-K
 * schedule where the last wave of tiles would leave SMs idle (stream_k.cu). */
cudaError_t gk_gemm_stream_k(const gk_rm_problem &p, const gk_launch_env &env);
size_t gk_gemm_stream_k_scratch(const gk_rm_problem &p, int sm, int sm_count);

#endif
