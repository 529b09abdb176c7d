/*
 * 13_cp_async_128x256x8.cu — ladder step 13, the fastest FP32-exact kernel: 128x256x8 block tiles,
 * 256 threads (8 warps of 64x64), 8x16 outputs per thread, a 4-stage cp.async pipeline, fragments
 * double-buffered in registers and read with 128-bit shared loads (6 LDS.128 per 128 FFMA), blocks
 * rasterised in groups of 8 tile rows. Over step 10 it doubles the work per thread (more FFMA per
 * shared load and per barrier), lays the lanes out 8x4 (a quarter-warp's A read is one 128-bit
 * broadcast to 4 lanes), issues the refill copies mid-tile (k step 5) and orders the FFMAs in
 * serpentine rows, the last three chosen by measurement. Kernel template: 10_cp_async_pipeline.cuh.
 * ptxas (sm_90a): 255 registers, 0 spills.
 * Measured on H100 80GB HBM3 (1980 MHz), 2026-11-22, M=N=K, L2 flushed, median of 20-40 runs,
 * against cuBLAS SGEMM (FP32, default math) in the same run: 48.6 TFLOPS = 0.985x at 4096,
 * 48.6 TFLOPS = 0.973x at 8192, 0.973x at 6144, 0.954x at 2048 (bench/results/
 * h100-fast-kernels-2026-11-22.txt, row v13_t8x4_ld5_o2). It does NOT reach cuBLAS: ncu shows the
 * same instruction count but more dispatch stalls (register-bank conflicts in the FFMA block).
 */
#include "cuda/ladder/10_cp_async_pipeline.cuh"

using Step13 = gk_pipe::Config<128, 256, 8, 64, 64, 8, 4, 1, 5, 2>;

cudaError_t gk_ladder_13_cp_async_128x256x8(const gk_rm_problem &p, cudaStream_t s) {
    return gk_pipe::launch<Step13>(p, 8, s);
}
