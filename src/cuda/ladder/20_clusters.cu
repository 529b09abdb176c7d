/*
 * 20_clusters.cu — ladder step 20: step 19 in clusters of two CTAs along M, with TMA multicast.
 * The two CTAs of a cluster take vertically adjacent tiles, which need the same B tile: each loads
 * half of it and the multicast writes the half into both CTAs' shared memory, so a cluster reads
 * each B tile from L2 once. A stage is then refilled only when the consumers of both CTAs are done
 * with it: they arrive on the empty barriers of both (through the cluster's shared-memory window).
 * This is the production launcher itself: exactly what gk_cuda_gemm_ex runs for a TF32 product,
 * including its choice of tile width per problem (src/cuda/hopper/sm90_plan.h).
 */
#include "cuda/ladder/ladder.h"
#include "cuda/ladder/tc_steps.h"

cudaError_t gk_ladder_20_clusters(const gk_rm_problem &p, const gk_launch_env &env) {
    return gk_ladder_hopper_step(p, env, 20);
}
