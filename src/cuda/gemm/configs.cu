/*
 * configs.cu — gk_autotune_pick: which tile configuration of configs.h a problem runs. On the GPU
 * the table was measured on (GK_AUTOTUNE_TABLE_SM) the table decides; elsewhere a heuristic does:
 * the configuration with the largest block tile whose block count still covers every SM once
 * (small problems get small tiles and keep the whole GPU busy, large ones get the tiles with the
 * most FFMA per shared load), ties to the lower id; if none covers the SMs, the smallest tile.
 */
#include "cuda/gemm/configs.h"

#include "cuda/gemm/kernel.cuh"
#include "cuda/gemm/util.cuh"

namespace {

struct Tile {
    int bm, bn;
};

#define GK_TILE(id, bm, bn, bk, wm, wn, wtr, st, mb, ld, ord, g) {bm, bn},
const Tile tiles[] = {GK_AUTOTUNE_CONFIGS(GK_TILE)};
#undef GK_TILE
constexpr int n_tiles = (int)(sizeof tiles / sizeof tiles[0]);

struct Row {
    long long max_mn;
    int id;
};
const Row table[] = {GK_AUTOTUNE_TABLE};

int heuristic(const gk_rm_problem &p, int sms) {
    int best = -1, smallest = 0;
    for (int i = 0; i < n_tiles; ++i) {
        const Tile &c = tiles[i];
        if (c.bm * c.bn < tiles[smallest].bm * tiles[smallest].bn) smallest = i;
        const int64_t blocks = gk_ceil_div(p.m, c.bm) * gk_ceil_div(p.n, c.bn);
        if (blocks >= sms && (best < 0 || c.bm * c.bn > tiles[best].bm * tiles[best].bn)) best = i;
    }
    return best >= 0 ? best : smallest;
}

} // namespace

int gk_autotune_pick(const gk_rm_problem &p, int sm, int sm_count) {
    if (sm == GK_AUTOTUNE_TABLE_SM)
        for (const Row &r : table)
            if (r.id >= 0 && r.id < n_tiles && p.m * p.n <= r.max_mn) return r.id;
    return heuristic(p, sm_count);
}
