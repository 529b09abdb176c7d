/*
 * tile.cuh — how a SIMT pipelined kernel cuts C into work: the tile configuration (block tile, warp
 * tile, lane grid, pipeline depth, occupancy, and two scheduling knobs ptxas is sensitive to) and
 * the order in which blocks visit the tiles. The configurations actually used are listed in
 * configs.h.
 */
#ifndef GK_CUDA_GEMM_TILE_CUH
#define GK_CUDA_GEMM_TILE_CUH

#include <stdint.h>

#include "cuda/gemm/kernel.cuh"
#include "cuda/gemm/util.cuh"

namespace gk_gemm {

/* Tile configuration. One block computes a BM x BN tile of C in BK-deep k-tiles, as (BM/WM) x
 * (BN/WN) warps of WM x WN; a warp's lanes form a WTR x (32/WTR) grid, each lane owning
 * (WM/WTR) x (WN/WTC) outputs. STAGES shared-memory stages are in flight (mainloop.cuh).
 * MIN_BLOCKS is the occupancy promised to ptxas via __launch_bounds__. */
template <int BM_, int BN_, int BK_, int WM_, int WN_, int WTR_, int STAGES_, int MIN_BLOCKS_,
          int LOAD_KK_ = 0, int ORDER_ = 0>
struct Config {
    /* ORDER: sequence of the TM x TN FFMAs of one k step (0: row by row, 1: column by column,
     * 2: rows in serpentine order, 3: columns in serpentine order). It steers ptxas's register
     * allocation and operand-reuse flags, i.e. register-bank conflicts, which ncu showed as the
     * main extra stall ("dispatch stall") against cuBLAS; the best order is found by measuring. */
    static constexpr int ORDER = ORDER_;
    /* LOAD_KK: the k step of a tile at which the copies of a later tile are issued. */
    static constexpr int LOAD_KK = LOAD_KK_;
    static_assert(LOAD_KK_ >= 0 && LOAD_KK_ < BK_ - 1, "copies must be issued before the wait");
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, STAGES = STAGES_;
    static constexpr int MIN_BLOCKS = MIN_BLOCKS_;
    static constexpr int WTR = WTR_, WTC = 32 / WTR_;  /* lane grid of a warp */
    static constexpr int TM = WM / WTR, TN = WN / WTC; /* outputs per lane */
    static constexpr int THREADS = (BM / WM) * (BN / WN) * 32;
    static constexpr int A_LD = BM + 4;
    static constexpr int A_STAGE = BK * A_LD, B_STAGE = BK * BN; /* floats */
    static constexpr int SMEM_BYTES = STAGES * (A_STAGE + B_STAGE) * 4;
    static_assert(BM % WM == 0 && BN % WN == 0 && WM % (4 * WTR) == 0 && WN % (4 * WTC) == 0,
                  "warp/lane tiling must divide the block tile");
    static_assert(STAGES >= 2, "a pipeline needs at least two stages");
};

/* Origin of tile `tile` (0 .. ceil(m/BM)*ceil(n/BN)-1) of C, tiles numbered in groups of group_m
 * tile rows (column by column inside a group), so the blocks running at the same time share a few
 * A row-panels and B column-panels in L2. group_m == 1: row-major order. */
__device__ __forceinline__ void tile_origin(const gk_rm_problem &p, int bm, int bn, int group_m,
                                            int64_t tile, int64_t *m0, int64_t *n0) {
    const int64_t tiles_m = gk_ceil_div(p.m, bm), tiles_n = gk_ceil_div(p.n, bn);
    const int64_t in_group = (int64_t)group_m * tiles_n;
    const int64_t first_m = tile / in_group * group_m;
    const int64_t gsize = tiles_m - first_m < group_m ? tiles_m - first_m : group_m;
    *m0 = (first_m + (tile % in_group) % gsize) * bm;
    *n0 = (tile % in_group) / gsize * bn;
}

} // namespace gk_gemm

#endif
