/*
 * 19_persistent.cu — ladder step 19: step 18's kernel on a persistent grid. Instead of one CTA per
 * tile (several waves of CTAs, each paying its barrier set-up, its pipeline fill and its epilogue
 * with the tensor cores idle), one CTA per SM walks the tiles t = blockIdx.x, + gridDim.x, ... in
 * a grouped order (8 tile rows at a time, so the CTAs running together share A and B tiles in L2).
 * The producer runs ahead into the next tile while the consumers finish the current one and store
 * it, so loads overlap the epilogue. Same kernel template as step 18, another grid
 * (gk_hopper_gemm_ladder's `persistent`).
 */
#include "cuda/ladder/ladder.h"
#include "cuda/ladder/tc_steps.h"

cudaError_t gk_ladder_19_persistent(const gk_rm_problem &p, const gk_launch_env &env) {
    return gk_ladder_hopper_step(p, env, 19);
}
