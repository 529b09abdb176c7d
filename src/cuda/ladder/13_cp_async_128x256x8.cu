/*
 * 13_cp_async_128x256x8.cu — ladder step 13, the fastest FP32-exact kernel: 128x256x8 block tiles,
 * 256 threads (8 warps of 64x64), 8x16 outputs per thread, a 4-stage cp.async pipeline, fragments
 * double-buffered in registers and read with 128-bit shared loads (6 LDS.128 per 128 FFMA), blocks
 * rasterised in groups of 8 tile rows. Over step 10 it doubles the work per thread (more FFMA per
 * shared load and per barrier), lays the lanes out 8x4 (a quarter-warp's A read is one 128-bit
 * broadcast to 4 lanes), issues the refill copies at k step 1 of 8 and orders the FFMAs column by
 * column in serpentine order (ORDER 3), the last two chosen by measurement together with the
 * template's branch-free refill. Kernel template: 10_cp_async_pipeline.cuh.
 * ptxas (sm_90a): 226 registers, 0 spills.
 * Measured on H100 80GB HBM3 (1980 MHz), 2026-11-22, M=N=K, L2 flushed, random data, against
 * cuBLAS SGEMM (FP32, default math) in the same run (bench/results/h100-step13-tuning-2026-11-22
 * .txt). Tuning harness, medians of 30 round-robin runs: 1.031x / 1.017x at 4096 / 8192 (52.0 /
 * 52.4 TFLOPS) where the previous configuration (refill copies at k step 5 behind a branch,
 * ORDER 2) measured 0.971x / 0.957x; the committed code again: 1.010x / 1.016x, 1.009x at 2048.
 * `gemmkit ladder --rounds 5` (public API), same call: 100.8 % at 4096, 101.6 % at 2048, but
 * 98.5 % at 8192, where cuBLAS itself ran 3 % faster than in the tuning harness (not explained).
 * After the memory-safety fix of the template's copies (docs/ladder.md), on the final tree:
 * 51.39 / 51.60 TFLOPS at 4096 / 8192 = 98.8 % / 98.5 % of cuBLAS in the same
 * `gemmkit ladder` run (bench/results/h100-2026-11-22/).
 */
#include "cuda/ladder/10_cp_async_pipeline.cuh"

using Step13 = gk_pipe::Config<128, 256, 8, 64, 64, 8, 4, 1, 1, 3>;

cudaError_t gk_ladder_13_cp_async_128x256x8(const gk_rm_problem &p, const gk_launch_env &env) {
    return gk_pipe::launch<Step13>(p, 8, env.stream);
}
