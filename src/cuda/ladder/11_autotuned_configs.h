/*
 * 11_autotuned_configs.h — the tile configurations ladder step 11 chooses from, and the table that
 * maps a problem size to one of them. The only place either list is written down: the step-11
 * launcher and the tuning benchmark both expand GK_AUTOTUNE_CONFIGS.
 *
 * GK_AUTOTUNE_CONFIGS(X) calls X(id, BM, BN, BK, WM, WN, WTR, STAGES, MIN_BLOCKS, GROUP_M) with the
 * parameters of gk_pipe::Config (10_cp_async_pipeline.cuh) plus the block-rasterisation group.
 *
 * GK_AUTOTUNE_TABLE rows {max_mn, id}: a problem uses the first row with m * n <= max_mn.
 * How it was produced: TODO(lead) — not yet measured. Until a tuning run on an H100 fills it the
 * table is empty and the launcher uses the documented heuristic in 11_autotuned.cu (largest tile
 * that still gives every SM a block).
 */
#ifndef GK_CUDA_LADDER_11_AUTOTUNED_CONFIGS_H
#define GK_CUDA_LADDER_11_AUTOTUNED_CONFIGS_H

#define GK_AUTOTUNE_CONFIGS(X)                                                                     \
    X(0, 64, 64, 8, 32, 32, 4, 3, 4, 8)                                                            \
    X(1, 128, 64, 8, 32, 32, 4, 3, 2, 8)                                                           \
    X(2, 64, 128, 8, 32, 32, 4, 3, 2, 8)                                                           \
    X(3, 128, 128, 8, 32, 64, 4, 3, 2, 8)                                                          \
    X(4, 128, 128, 16, 32, 64, 4, 3, 2, 8)                                                         \
    X(5, 128, 256, 8, 64, 64, 4, 4, 1, 8)                                                          \
    X(6, 256, 128, 8, 64, 64, 4, 4, 1, 8)

/* Device architecture (compute capability * 10) the table was measured on. */
#define GK_AUTOTUNE_TABLE_SM 90

#define GK_AUTOTUNE_TABLE                                                                          \
    { 0, -1 } /* empty: no measurement yet */

#endif
