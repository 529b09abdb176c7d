/*
 * 10_cp_async_pipeline.cu — ladder step 10: the shared-memory tiles are filled by cp.async
 * (sm_80+), which copies global memory straight into shared memory without a register round trip
 * and lets STAGES-1 k-tiles be in flight while one is consumed; step 09 needed registers to stage
 * its prefetch and had only one tile in flight. Edge tiles use the same code: out-of-range
 * elements are copied with src-size 0 and arrive as zeros. The kernel template (shared with steps
 * 11 and 13) is in 10_cp_async_pipeline.cuh; this step runs it as 128x128x8, 3 stages, 256
 * threads, 8x8 outputs per thread, plain row-major block order.
 * Measured on H100 80GB HBM3 (1980 MHz), 2026-11-22, M=N=K, L2 flushed, median, against cuBLAS
 * SGEMM (FP32) in the same run: 46.6 TFLOPS = 0.906x at 4096, 47.0 TFLOPS = 0.912x at 8192
 * (bench/results/h100-step13-tuning-2026-11-22.txt, run 4; 0.879x / 0.834x before the template's
 * refill lost its branch). ptxas: 128 registers, 0 spills.
 * Project harness on the final tree (`gemmkit ladder`, 2026-11-22 09:43 UTC,
 * bench/results/h100-2026-11-22/): 47.20 TFLOPS at 4096 (90.8 % of cuBLAS FP32), 47.13 at 8192
 * (90.0 %).
 */
#include "cuda/ladder/10_cp_async_pipeline.cuh"

using Step10 = gk_pipe::Config<128, 128, 8, 32, 64, 4, 3, 2>;

cudaError_t gk_ladder_10_cp_async_pipeline(const gk_rm_problem &p, const gk_launch_env &env) {
    return gk_pipe::launch<Step10>(p, 1, env.stream);
}
