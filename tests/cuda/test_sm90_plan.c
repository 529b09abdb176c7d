/*
 * test_sm90_plan.c — the plan of the sm_90a kernel (src/cuda/hopper/sm90_plan.h), checked on the
 * host: the swap and narrow-width rules, the K chunks (from the non-batch dimension and K) and the
 * split-K rule, then the tile width: the choices for square problems on an H100 (132 SMs, 66
 * resident clusters of two CTAs) for each list of widths the launcher offers (gemm_sm90.cu), the
 * estimate behind them, and the rule that a narrower tile must save more than 1/8 of the estimate.
 * Needs no GPU.
 */
#include <stdio.h>

#include "check.h"
#include "cuda/hopper/sm90_plan.h"

/* The launcher's lists (gemm_sm90.cu), widest first. */
static const int wide3[] = {256, 192, 128}; /* 16-bit with A K-major, TF32, promoted FP8 */
static const int two[] = {256, 128};        /* block-scaled FP8 */

enum { CM = 2, SLOTS = 66 }; /* H100 SXM: 132 SMs in pairs */

static int pick(int64_t m, int64_t n, const int *bns, int count) {
    return gk_sm90_pick_bn(m, n, CM, SLOTS, bns, count);
}

/* Expected width per square size, one list at a time. */
typedef struct {
    int64_t size;
    int wide3, two;
} square;

static const square squares[] = {
    {1000, 128, 128}, /* 16 clusters' worth of 256-wide tiles: a quarter of the SMs */
    {1024, 128, 128},
    {2048, 256, 256}, /* 64 tiles of 128 x 2 x 256 fill one round; 88 of 192 need two */
    {3072, 192, 128}, /* 144 tiles = 2.2 rounds at 256; 192 columns: 192 tiles, 2.9; 128: 4.4 */
    {4096, 256, 256},
    {6144, 256, 256},
    {8192, 256, 256}, /* 192 would save 1.6%: not enough for the narrower tile */
    {16384, 256, 256},
};

static void squares_h100(void) {
    for (size_t i = 0; i < sizeof squares / sizeof squares[0]; i++) {
        const square *s = &squares[i];
        const int a = pick(s->size, s->size, wide3, 3), c = pick(s->size, s->size, two, 2);
        T_CHECK(a == s->wide3, "%lld: three widths %d, expected %d", (long long)s->size, a,
                s->wide3);
        T_CHECK(c == s->two, "%lld: two widths %d, expected %d", (long long)s->size, c, s->two);
    }
}

/* The estimate: rounds of `slots` clusters times the tile width. */
static void estimate(void) {
    /* 3072: 12 x 12 tiles of 256 on 66 clusters -> 3 rounds; 12 x 16 of 192 -> 3; 12 x 24 -> 5 */
    T_CHECK(gk_sm90_tile_cost(3072, 3072, CM, SLOTS, 256) == 3 * 256, "3072 at 256");
    T_CHECK(gk_sm90_tile_cost(3072, 3072, CM, SLOTS, 192) == 3 * 192, "3072 at 192");
    T_CHECK(gk_sm90_tile_cost(3072, 3072, CM, SLOTS, 128) == 5 * 128, "3072 at 128");
    /* partial tiles count whole: 1000 rows are 4 row pairs, 1000 columns 8 tiles of 128 */
    T_CHECK(gk_sm90_tile_cost(1000, 1000, CM, 1, 128) == 32 * 128, "1000 at 128, one slot");
    /* clusters of one CTA on all 132 SMs count the same tiles per round */
    T_CHECK(gk_sm90_tile_cost(3072, 3072, 1, 132, 256) == 3 * 256, "3072 at 256, CM 1");
    T_CHECK(gk_sm90_tile_cost(1, 1, CM, 0, 256) == 256, "no slots count as one");
    /* sizes past 32 bits */
    const int64_t big = (int64_t)1 << 33;
    T_CHECK(gk_sm90_tile_cost(big, 256, CM, SLOTS, 256) == ((big / 256 + 65) / 66) * 256,
            "m = 2^33");
}

/* A narrower width replaces the wider only when more than 1/8 cheaper; ties keep the wider. */
static void margin(void) {
    /* one round each: the estimate is the width */
    const int saves_8th[] = {256, 224}, saves_more[] = {256, 223};
    T_CHECK(gk_sm90_pick_bn(256, 200, CM, SLOTS, saves_8th, 2) == 256, "exactly 1/8 keeps 256");
    T_CHECK(gk_sm90_pick_bn(256, 200, CM, SLOTS, saves_more, 2) == 223, "more than 1/8 takes 223");
    /* 2048: 256 and 128 both estimate 256 (one round against two) */
    T_CHECK(gk_sm90_tile_cost(2048, 2048, CM, SLOTS, 256) ==
                gk_sm90_tile_cost(2048, 2048, CM, SLOTS, 128),
            "2048: a tie");
    const int two[] = {256, 128};
    T_CHECK(pick(2048, 2048, two, 2) == 256, "2048: the tie keeps 256");
    /* one width: taken whatever the size */
    const int only[] = {192};
    T_CHECK(gk_sm90_pick_bn(1, 1, CM, SLOTS, only, 1) == 192, "a single width");
}

/* Non-square and other GPUs: fewer resident clusters, tall and wide problems. */
static void other_shapes(void) {
    /* a tall, narrow product: 1024 columns are 4 tiles of 256 or 8 of 128; 16384 rows 64 row
     * pairs: 256 -> 256 tiles, 4 rounds (1024); 128 -> 512 tiles, 8 rounds (1024): keeps 256 */
    T_CHECK(pick(16384, 1024, wide3, 3) == 256, "16384 x 1024");
    /* one row pair, 12288 columns: 48 tiles of 256 or 64 of 192 take one round, 96 of 128 two */
    T_CHECK(pick(256, 12288, wide3, 3) == 192, "256 x 12288");
    /* a GPU with 64 resident pairs (SMs that do not pair up): 2048 at 256 fills 64 exactly */
    T_CHECK(gk_sm90_pick_bn(2048, 2048, CM, 64, wide3, 3) == 256, "2048 on 64 clusters");
    /* 3072 on 57 pairs (114 SMs, H100 PCIe): 144 tiles -> 3 rounds; 192: 192 tiles -> 4 */
    T_CHECK(gk_sm90_pick_bn(3072, 3072, CM, 57, wide3, 3) == 256, "3072 on 57 clusters");
    /* with 64 offered (A K-major families): 1024^2 fills 64 clusters with it; 2048^2 ties */
    const int wide4[] = {256, 192, 128, 64};
    T_CHECK(pick(1024, 1024, wide4, 4) == 64, "1024 with 64 offered");
    T_CHECK(pick(2048, 2048, wide4, 4) == 256, "2048 with 64 offered");
    /* a tile summing K chunks: 128 or 64 (256 x 4096: 32 tiles of 128, 64 of 64) */
    const int chunked[] = {128, 64};
    T_CHECK(pick(256, 4096, chunked, 2) == 64, "256 x 4096 in chunks");
    T_CHECK(pick(4096, 4096, chunked, 2) == 128, "4096 x 4096 in chunks");
}

/* Swap and narrow widths: few rows go to the wgmma's N side, as 32 or 64 columns. */
static void swap_narrow(void) {
    T_CHECK(gk_sm90_swap(1, 4096) && gk_sm90_swap(64, 2112) && gk_sm90_swap(128, 129),
            "few rows, more columns: swap");
    T_CHECK(!gk_sm90_swap(129, 4096) && !gk_sm90_swap(64, 64) && !gk_sm90_swap(100, 50),
            "more rows than the limit, or not fewer rows than columns: keep");
    T_CHECK(gk_sm90_narrow_bn(1) == 32 && gk_sm90_narrow_bn(32) == 32, "up to 32 columns: 32");
    T_CHECK(gk_sm90_narrow_bn(33) == 64 && gk_sm90_narrow_bn(64) == 64, "33-64 columns: 64");
    T_CHECK(gk_sm90_narrow_bn(65) == 0, "more than 64 columns: a wide tile");
}

/* K chunks: from the non-batch dimension and K only; about one round at M = 1. */
static void chunks(void) {
    /* 4096 columns: 16 tile pairs, 66 / 16 = 4 chunks of 64 K blocks (K = 4096 in BF16) */
    T_CHECK(gk_sm90_chunk_blocks(4096, 64, CM, SLOTS) == 16, "4096 x 4096: 4 chunks of 16");
    /* 2112 columns: 9 pairs -> 7 chunks of 112 blocks -> 16 each */
    T_CHECK(gk_sm90_chunk_blocks(2112, 112, CM, SLOTS) == 16, "2112 x 7168: chunks of 16");
    /* at least GK_SM90_MIN_CHUNK_BLOCKS per chunk: 20 blocks make 2 chunks of 10 at most */
    T_CHECK(gk_sm90_chunk_blocks(256, 20, CM, SLOTS) == 10, "short K: chunks of 10");
    T_CHECK(gk_sm90_chunk_blocks(256, 15, CM, SLOTS) == 15, "K under two chunks: one");
    /* at most GK_SM90_MAX_CHUNKS */
    T_CHECK(gk_sm90_chunk_blocks(1, 1600, CM, SLOTS) == 100, "one tile: 16 chunks");
    /* enough tiles to fill the GPU at M = 1: K whole */
    T_CHECK(gk_sm90_chunk_blocks(28672, 64, CM, SLOTS) == 64, "28672 columns: one chunk");
    T_CHECK(gk_sm90_chunk_blocks(16384, 256, CM, SLOTS) == 256, "16384 columns: one chunk");
}

/* Split-K only when every (tile, chunk) fits in one round. */
static void split(void) {
    T_CHECK(gk_sm90_split(9, 7, SLOTS), "9 tiles, 7 chunks: 63 units in one round");
    T_CHECK(!gk_sm90_split(9, 1, SLOTS), "one chunk: nothing to split");
    T_CHECK(!gk_sm90_split(34, 2, SLOTS), "34 tiles of 2 chunks: two rounds");
    T_CHECK(gk_sm90_split(33, 2, SLOTS), "33 tiles of 2 chunks: one round");
    T_CHECK(!gk_sm90_split(32, 4, SLOTS), "32 tiles of 4 chunks: whole tiles");
}

int main(void) {
    T_RUN(swap_narrow);
    T_RUN(chunks);
    T_RUN(split);
    T_RUN(squares_h100);
    T_RUN(estimate);
    T_RUN(margin);
    T_RUN(other_shapes);
    return t_finish();
}
