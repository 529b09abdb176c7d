/*
 * sm90_schedule.cuh — the tile scheduler of the sm_90a kernel: which tile and which K blocks a
 * unit of work is. The grid is persistent (one CTA per SM, clusters of config::CM CTAs along M);
 * the units are whole tiles, or with split-K (sm90_plan.h) one K chunk of one tile, walked in a
 * grouped order (GROUP_M tile rows at a time) so that CTAs running together share A and B tiles
 * in L2. The producer and the consumers call the same functions, so they agree on every unit.
 */
#ifndef GK_CUDA_HOPPER_SM90_SCHEDULE_CUH
#define GK_CUDA_HOPPER_SM90_SCHEDULE_CUH

#include "cuda/hopper/sm90_config.cuh"

namespace gk_sm90 {

#ifdef GK_SM90A
/* Tile t of the grouped order -> (tile row, tile column). */
__device__ __forceinline__ void tile_coords(const params &p, int t, int &tm, int &tn) {
    const int per_group = GROUP_M * p.tiles_n;
    const int group = t / per_group, first = group * GROUP_M;
    const int rows = min(GROUP_M, p.tiles_m - first);
    const int r = t - group * per_group;
    tm = first + r % rows;
    tn = r / rows;
}

/* Unit u of the schedule (params::units) -> its tile and its K blocks [kb0, kb1). */
__device__ __forceinline__ void unit_coords(const params &p, int u, int &tm, int &tn, int &c0,
                                            int &c1) {
    int t = u;
    c0 = 0, c1 = p.chunks;
    if (p.split) t = u / p.chunks, c0 = u - t * p.chunks, c1 = c0 + 1;
    tile_coords(p, t, tm, tn);
}

/* The K blocks of chunk c. */
__device__ __forceinline__ void chunk_blocks(const params &p, int c, int &kb0, int &kb1) {
    kb0 = c * p.kc;
    kb1 = min(kb0 + p.kc, p.kblocks);
}
#endif /* GK_SM90A */

} // namespace gk_sm90

#endif
