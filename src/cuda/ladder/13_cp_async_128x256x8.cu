/*
 * 13_cp_async_128x256x8.cu — ladder step 13, the fastest FP32-exact kernel: 128x256x8 block tiles,
 * 256 threads, 16x8 outputs per thread (warp tile 64x64), a 4-stage cp.async pipeline, fragments
 * double-buffered in registers and read with 128-bit shared loads (6 LDS.128 per 128 FFMA), and
 * blocks rasterised in groups of 8 tile rows so the A/B panels in use stay in L2. Over step 10 it
 * doubles the work per thread (more FFMA per shared load, fewer blocks re-reading each panel) and
 * adds the grouped block order; the kernel template is in 10_cp_async_pipeline.cuh.
 * Measured on H100: TODO(lead) — see bench/results/ for the run that measured this step, if any.
 */
#include "cuda/ladder/10_cp_async_pipeline.cuh"

using Step13 = gk_pipe::Config<128, 256, 8, 64, 64, 4, 4, 1>;

cudaError_t gk_ladder_13_cp_async_128x256x8(const gk_rm_problem &p, cudaStream_t s) {
    return gk_pipe::launch<Step13>(p, 8, s);
}
