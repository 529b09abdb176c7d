/*
 * 13_cp_async_128x256x8.cu — ladder step 13, the fastest single FP32 configuration: 128x256x8 block
 * tiles, 256 threads (8 warps of 64x64), 8x16 outputs per thread, a 4-stage cp.async pipeline,
 * fragments double-buffered in registers and read with 128-bit shared loads (6 LDS.128 per 128
 * FFMA), blocks rasterised in groups of 8 tile rows. Over step 10 it doubles the work per thread
 * (more FFMA per shared load and per barrier), lays the lanes out 8x4 (a quarter-warp's A read is
 * one 128-bit broadcast to 4 lanes), issues the refill copies at k step 1 of 8 and orders the
 * FFMAs column by column in serpentine order (ORDER 3), the last two chosen by measurement
 * (docs/ladder.md, step 13). Kernel: src/cuda/gemm/data_parallel.cuh; the same configuration is
 * row 4 of src/cuda/gemm/configs.h.
 */
#include "cuda/ladder/ladder.h"
#include "cuda/gemm/data_parallel.cuh"

using Step13 = gk_gemm::Config<128, 256, 8, 64, 64, 8, 4, 1, 1, 3>;

cudaError_t gk_ladder_13_cp_async_128x256x8(const gk_rm_problem &p, const gk_launch_env &env) {
    return gk_gemm::launch<Step13>(p, 8, env.stream);
}
