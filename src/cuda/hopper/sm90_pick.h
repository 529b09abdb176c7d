/*
 * sm90_pick.h — the tile width of the sm_90a kernel (gemm_sm90.cu) for one problem: a pure
 * function of the problem's size and the number of resident clusters, in plain C so that a host
 * test (tests/cuda/test_sm90_pick.c) checks it without a GPU. docs/cuda.md, "Tensor cores on
 * Hopper", says why.
 *
 * The kernel is persistent: `slots` clusters of cm CTAs (one CTA per SM) walk the tiles, a
 * cluster's tile being cm x 128 rows by bn columns. Every CTA's tile takes the same time, about
 * proportional to bn (128 x bn x k multiply-adds), and the clusters take the tiles in rounds, so
 * the estimate of a width is
 *     rounds x bn,   rounds = ceil(ceil(m / (cm * 128)) * ceil(n / bn) / slots).
 * Narrower tiles fill the SMs of a small problem and cut the idle part of the last round (wave
 * quantization), but load more bytes per multiply-add (A's 128 rows serve fewer columns) and pay
 * the per-tile prologue and epilogue more often. So a narrower width replaces the current choice
 * only when its estimate is more than 1/8 lower; on a smaller saving the wider tile stays.
 */
#ifndef GK_CUDA_HOPPER_SM90_PICK_H
#define GK_CUDA_HOPPER_SM90_PICK_H

#include <stdint.h>

/* The kernel's tile rows per CTA (gemm_sm90.cuh's BM). */
#define GK_SM90_TILE_ROWS 128

/* The estimate above for width bn (slots below 1 count as 1). */
static inline int64_t gk_sm90_tile_cost(int64_t m, int64_t n, int cm, int slots, int bn) {
    const int64_t rows = (int64_t)cm * GK_SM90_TILE_ROWS;
    const int64_t tiles = ((m + rows - 1) / rows) * ((n + bn - 1) / bn);
    const int64_t s = slots < 1 ? 1 : slots;
    return (tiles + s - 1) / s * bn;
}

/* Of the widths bns[0 .. count) (count >= 1, widest first), the one the kernel runs an m x n
 * problem with, on `slots` resident clusters of cm CTAs. */
static inline int gk_sm90_pick_bn(int64_t m, int64_t n, int cm, int slots, const int *bns,
                                  int count) {
    int best = bns[0];
    int64_t best_cost = gk_sm90_tile_cost(m, n, cm, slots, best);
    for (int i = 1; i < count; ++i) {
        const int64_t cost = gk_sm90_tile_cost(m, n, cm, slots, bns[i]);
        if (8 * cost < 7 * best_cost) best = bns[i], best_cost = cost;
    }
    return best;
}

#endif
