/*
 * 11_autotuned.cu — ladder step 11: step 10's kernel in several tile configurations
 * (src/cuda/gemm/configs.h), one chosen per problem by gk_autotune_pick: a table measured on an
 * H100 on that GPU, elsewhere a heuristic (the largest block tile whose block count still covers
 * every SM). One size does not fit all: large tiles feed the FFMAs best, but leave SMs idle on
 * small problems. The production launcher (step 15) schedules the same choice with stream-K.
 */
#include "cuda/ladder/ladder.h"
#include "cuda/gemm/configs.h"
#include "cuda/gemm/data_parallel.cuh"

namespace {

struct Choice {
    int group_m;
    cudaError_t (*launch)(const gk_rm_problem &, int, cudaStream_t);
};

#define GK_CHOICE(id, bm, bn, bk, wm, wn, wtr, st, mb, ld, ord, g)                                 \
    {g, gk_gemm::launch<gk_gemm::Config<bm, bn, bk, wm, wn, wtr, st, mb, ld, ord>>},
const Choice choices[] = {GK_AUTOTUNE_CONFIGS(GK_CHOICE)};
#undef GK_CHOICE

} // namespace

cudaError_t gk_ladder_11_autotuned(const gk_rm_problem &p, const gk_launch_env &env) {
    const Choice &c = choices[gk_autotune_pick(p, env.sm, env.sm_count)];
    return c.launch(p, c.group_m, env.stream);
}
