/*
 * 10_cp_async_pipeline.cu — ladder step 10: the shared-memory tiles are filled by cp.async
 * (sm_80+), which copies global memory straight into shared memory without a register round trip
 * and lets STAGES-1 k-tiles be in flight while one is consumed; step 09 needed registers to stage
 * its prefetch and had only one tile in flight. Edge tiles use the same code: out-of-range
 * elements are copied with src-size 0 and arrive as zeros.
 * This step is the production data-parallel kernel (src/cuda/gemm/data_parallel.cuh: main loop in
 * mainloop.cuh, copies in copy_async.cuh, epilogue in epilogue.cuh) in one configuration:
 * 128x128x8 tiles, 3 stages, 256 threads, 8x8 outputs per thread, plain row-major block order.
 */
#include "cuda/ladder/ladder.h"
#include "cuda/gemm/data_parallel.cuh"

using Step10 = gk_gemm::Config<128, 128, 8, 32, 64, 4, 3, 2>;

cudaError_t gk_ladder_10_cp_async_pipeline(const gk_rm_problem &p, const gk_launch_env &env) {
    return gk_gemm::launch<Step10>(p, 1, env.stream);
}
