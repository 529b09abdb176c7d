/*
 * 15_stream_k.cu — ladder step 15: step 11's tile configurations under a stream-K schedule, the
 * last step of the FP32 SIMT ladder. It adds nothing to the inner loop; it changes which block
 * computes what: the tiles of the last, partial wave are split along K over all SMs and their
 * pieces summed in a fixed order, so no SM idles while the last tiles finish.
 * This step is the production launcher gk_cuda_sgemm runs by default, which lives with the other
 * production code: src/cuda/gemm/select.cu picks a plan (the stream-K schedule of stream_k.cu, or
 * split-K or the GEMV-class kernel for thin shapes: docs/cuda.md, "Plan kinds") and runs it. The
 * ladder shows it as a step so its effect is measured against steps 11 and 13.
 */
#include "cuda/ladder/ladder.h"
#include "cuda/gemm/gemm.h"

cudaError_t gk_ladder_15_stream_k(const gk_rm_problem &p, const gk_launch_env &env) {
    return gk_gemm_stream_k(p, env);
}

size_t gk_ladder_15_stream_k_scratch(const gk_rm_problem &p, int sm, int sm_count) {
    return gk_gemm_stream_k_scratch(p, sm, sm_count);
}
