/*
 * configs.h — the tile configurations of the SIMT pipeline that the production launcher
 * (stream_k.cu) and ladder step 11 choose from, and the table that maps a problem size to one of
 * them. The only place either list is written down: both launchers expand GK_AUTOTUNE_CONFIGS and
 * pick a row with gk_autotune_pick.
 *
 * GK_AUTOTUNE_CONFIGS(X) calls X(id, BM, BN, BK, WM, WN, WTR, STAGES, MIN_BLOCKS, LOAD_KK, ORDER,
 * GROUP_M): the parameters of gk_gemm::Config (tile.cuh) plus the block rasterisation group.
 * Config 4 is ladder step 13's kernel. Configs 6 and 7 (64x256, 256x64, config 3's warp tiles)
 * are for split-K plans of problems with few rows or columns (select.cu); the table below never
 * picks them.
 *
 * GK_AUTOTUNE_TABLE rows {max_mn, id}: a problem uses the first row with m * n <= max_mn. Each row
 * is the fastest configuration at that square size on the GPU named by GK_AUTOTUNE_TABLE_SM (an
 * H100; sizes with the same winner merged); between measured sizes a problem gets the choice of
 * the next larger one. How it was measured and how well it holds: docs/ladder.md, step 11. Other
 * GPUs get the heuristic of configs.cu.
 */
#ifndef GK_CUDA_GEMM_CONFIGS_H
#define GK_CUDA_GEMM_CONFIGS_H

#define GK_AUTOTUNE_CONFIGS(X)                                                                     \
    X(0, 64, 64, 8, 32, 32, 4, 3, 4, 0, 0, 8)                                                      \
    X(1, 128, 64, 8, 32, 32, 4, 3, 2, 0, 0, 8)                                                     \
    X(2, 64, 128, 8, 32, 32, 4, 3, 2, 0, 0, 8)                                                     \
    X(3, 128, 128, 8, 32, 64, 4, 3, 2, 0, 0, 8)                                                    \
    X(4, 128, 256, 8, 64, 64, 8, 4, 1, 1, 3, 8)                                                    \
    X(5, 256, 128, 8, 64, 64, 4, 4, 1, 0, 0, 8)                                                    \
    X(6, 64, 256, 8, 32, 64, 4, 3, 2, 0, 0, 8)                                                     \
    X(7, 256, 64, 8, 32, 64, 4, 3, 2, 0, 0, 8)

/* Device architecture (compute capability * 10) the table was measured on. */
#define GK_AUTOTUNE_TABLE_SM 90

/* 256, 512: config 0; 1024: 2; 2048: 4; 3072: 2 (128x256 tiles leave 2.2 waves on 132 SMs);
 * 4096 and up: 4. */
#define GK_AUTOTUNE_TABLE                                                                          \
    {512LL * 512, 0}, {1024LL * 1024, 2}, {2048LL * 2048, 4}, {3072LL * 3072, 2}, {                \
        0x7fffffffffffffffLL, 4                                                                    \
    }

/* The configuration (row of GK_AUTOTUNE_CONFIGS) for p on a device of compute capability `sm`
 * (x10) with sm_count SMs: the table's choice on GK_AUTOTUNE_TABLE_SM, the heuristic elsewhere. */
struct gk_rm_problem;
int gk_autotune_pick(const gk_rm_problem &p, int sm, int sm_count);

#endif
