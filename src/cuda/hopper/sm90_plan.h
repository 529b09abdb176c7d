/*
 * sm90_plan.h — how the sm_90a kernel (gemm_sm90.cu) runs one problem: which operand goes on the
 * wgmma's M side (swap), the tile width, how K is cut into chunks and whether the chunks of a tile
 * run on separate CTAs (split-K). Pure functions of the problem's sizes and the number of resident
 * clusters, in plain C so that a host test (tests/cuda/test_sm90_plan.c) checks them without a
 * GPU. docs/cuda.md, "Tensor cores on Hopper" and "Shapes: swap, narrow tiles, K chunks", says why.
 *
 * Batch invariance by construction. A row of C must have the same bits whatever M (the number of
 * rows of the caller's C) is, so nothing that shapes a row's arithmetic may depend on M:
 *   - K chunks: the product of every element is summed chunk by chunk, each chunk from zero on the
 *     tensor core, the chunk sums added in float32 in chunk order (chunk 0 first). Every plan does
 *     exactly that: a whole-K tile adds its chunks in registers, a split-K plan writes each chunk's
 *     sum and a reduction adds them in the same order. The chunk length comes from K and the
 *     *other* dimension only (gk_sm90_chunk_blocks), never from M.
 *   - Swapping the operands, the tile width and split-K versus whole-K depend on M, but none of
 *     them changes any element's sequence of operations: every wgmma width sums the same K steps in
 *     the same order for each element, whichever operand sits on its M side (tested bitwise in
 *     tests/cuda/test_hopper_kernel.cu).
 *
 * Tile width (gk_sm90_pick_bn): the kernel is persistent: `slots` clusters of cm CTAs (one CTA
 * per SM) walk the tiles, a cluster's tile being cm x 128 rows by bn columns. Every CTA's tile
 * takes about the same time, proportional to bn, and the clusters take the tiles in rounds, so the
 * estimate of a width is
 *     rounds x bn,   rounds = ceil(ceil(m / (cm * 128)) * ceil(n / bn) / slots).
 * Narrower tiles fill the SMs of a small problem and cut the idle part of the last round (wave
 * quantization), but load more bytes per multiply-add and pay the per-tile prologue and epilogue
 * more often, so a narrower width replaces the current choice only when its estimate is more than
 * 1/8 lower. The widths offered are 64 to 256 (a tile that sums several K chunks: 64 and 128); a
 * problem whose N is at most 64 takes the narrow widths 32 or 64 instead (the wgmma's N need not
 * exceed the few columns there are).
 */
#ifndef GK_CUDA_HOPPER_SM90_PLAN_H
#define GK_CUDA_HOPPER_SM90_PLAN_H

#include <stdint.h>

/* The kernel's tile rows per CTA (gemm_sm90.cuh's BM). */
#define GK_SM90_TILE_ROWS 128
/* K chunks: at least this many K blocks (stages) each, and at most this many per problem. */
#define GK_SM90_MIN_CHUNK_BLOCKS 8
#define GK_SM90_MAX_CHUNKS 16
/* Swap the operands when M is at most this and N is larger. */
#define GK_SM90_SWAP_MAX_M 128

static inline int64_t gk_sm90_cdiv(int64_t a, int64_t b) {
    return (a + b - 1) / b;
}

/* The estimate above for width bn (slots below 1 count as 1). */
static inline int64_t gk_sm90_tile_cost(int64_t m, int64_t n, int cm, int slots, int bn) {
    const int64_t rows = (int64_t)cm * GK_SM90_TILE_ROWS;
    const int64_t tiles = gk_sm90_cdiv(m, rows) * gk_sm90_cdiv(n, bn);
    const int64_t s = slots < 1 ? 1 : slots;
    return gk_sm90_cdiv(tiles, s) * bn;
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

/* The narrow width for a problem of n columns: 32 or 64, or 0 when n > 64. */
static inline int gk_sm90_narrow_bn(int64_t n) {
    return n <= 32 ? 32 : n <= 64 ? 64 : 0;
}

/* 1 when the kernel should run C^T = B^T A^T instead (m and n exchanged): few rows would waste
 * most of a 128-row tile, while as columns they fit a narrow tile. */
static inline int gk_sm90_swap(int64_t m, int64_t n) {
    return m <= GK_SM90_SWAP_MAX_M && n > m;
}

/* K blocks per chunk for a product whose non-batch dimension (the caller's N, whichever side of
 * the kernel it lands on) is w, with kblocks K blocks, on `slots` resident clusters of cm CTAs.
 * Chosen so that a single row (M = 1) has enough chunks to fill the GPU when split: w's tiles of
 * cm x 128 rows times the chunks make about one round, each chunk at least
 * GK_SM90_MIN_CHUNK_BLOCKS long. Returns kblocks (one chunk) when splitting would not pay. */
static inline int64_t gk_sm90_chunk_blocks(int64_t w, int64_t kblocks, int cm, int slots) {
    const int64_t tiles = gk_sm90_cdiv(w, (int64_t)cm * GK_SM90_TILE_ROWS);
    int64_t s = (slots < 1 ? 1 : slots) / tiles;
    if (s > GK_SM90_MAX_CHUNKS) s = GK_SM90_MAX_CHUNKS;
    if (s > kblocks / GK_SM90_MIN_CHUNK_BLOCKS) s = kblocks / GK_SM90_MIN_CHUNK_BLOCKS;
    return s <= 1 ? kblocks : gk_sm90_cdiv(kblocks, s);
}

/* 1 when a problem of `tiles` cluster tiles and `chunks` K chunks should run each (tile, chunk)
 * on its own CTA and add the chunks in a second pass, 0 when every tile should add its chunks
 * itself: split when all the (tile, chunk) units fit in one round of the resident clusters. With
 * more units, whole tiles measured faster: the second pass, the partial sums' traffic and a second
 * round cost more than the idle clusters (bench/results/h200/tc_plans.txt). */
static inline int gk_sm90_split(int64_t tiles, int64_t chunks, int slots) {
    return chunks > 1 && tiles * chunks <= (slots < 1 ? 1 : slots);
}

#endif
