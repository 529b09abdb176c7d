/*
 * 11_autotuned.cu — ladder step 11: step 10's kernel template instantiated for several tile
 * configurations (11_autotuned_configs.h), one chosen per problem. On the GPU the table was
 * measured on (GK_AUTOTUNE_TABLE_SM, an H100) the table decides; elsewhere a heuristic does: the
 * configuration with the largest block tile whose block count still covers every SM once (small
 * problems get small tiles and keep the whole GPU busy, large ones get the tiles with the most
 * FFMA per shared load), ties to the lower id; if none covers the SMs, the smallest tile.
 * Measured on H100 80GB HBM3, 2026-11-22 (bench/results/h100-fast-kernels-2026-11-22.txt), vs
 * cuBLAS FP32 in the same run, M=N=K: the table picks the fastest cfg row at each size, e.g.
 * config 0 at 256 (0.758x), config 2 at 1024 (1.014x) and 3072 (0.939x), config 4 at 4096
 * (0.985x) and 8192 (0.973x). The 11_autotuned rows of that log are an earlier state of this
 * step (heuristic only, config 4 before its final tuning), not this code. After the template's
 * branch-free refill and config 4's retuning (bench/results/h100-step13-tuning-2026-11-22.txt):
 * config 4 = step 13, 1.010x at 4096 and 1.016x at 8192.
 * Project harness on the final tree (`gemmkit ladder`, 2026-11-22 09:43 UTC,
 * bench/results/h100-2026-11-22/): 51.51 TFLOPS at 4096 (99.1 % of cuBLAS FP32), 51.59 at 8192
 * (98.5 %).
 */
#include "cuda/ladder/10_cp_async_pipeline.cuh"
#include "cuda/ladder/11_autotuned_configs.h"

namespace {

struct Choice {
    int bm, bn, group_m;
    cudaError_t (*launch)(const gk_rm_problem &, int, cudaStream_t);
};

#define GK_CHOICE(id, bm, bn, bk, wm, wn, wtr, st, mb, ld, ord, g)                                 \
    {bm, bn, g, gk_pipe::launch<gk_pipe::Config<bm, bn, bk, wm, wn, wtr, st, mb, ld, ord>>},
const Choice choices[] = {GK_AUTOTUNE_CONFIGS(GK_CHOICE)};
#undef GK_CHOICE
constexpr int n_choices = (int)(sizeof choices / sizeof choices[0]);

struct Row {
    long long max_mn;
    int id;
};
const Row table[] = {GK_AUTOTUNE_TABLE};

int heuristic(const gk_rm_problem &p, int sms) {
    int best = -1, smallest = 0;
    for (int i = 0; i < n_choices; ++i) {
        const Choice &c = choices[i];
        if (c.bm * c.bn < choices[smallest].bm * choices[smallest].bn) smallest = i;
        const int64_t blocks = gk_ceil_div(p.m, c.bm) * gk_ceil_div(p.n, c.bn);
        if (blocks >= sms && (best < 0 || c.bm * c.bn > choices[best].bm * choices[best].bn))
            best = i;
    }
    return best >= 0 ? best : smallest;
}

} // namespace

int gk_autotune_pick(const gk_rm_problem &p, int sm, int sm_count) {
    if (sm == GK_AUTOTUNE_TABLE_SM)
        for (const Row &r : table)
            if (r.id >= 0 && r.id < n_choices && p.m * p.n <= r.max_mn) return r.id;
    return heuristic(p, sm_count);
}

cudaError_t gk_ladder_11_autotuned(const gk_rm_problem &p, const gk_launch_env &env) {
    const Choice &c = choices[gk_autotune_pick(p, env.sm, env.sm_count)];
    return c.launch(p, c.group_m, env.stream);
}
