/*
 * 11_autotuned_configs.h — the tile configurations ladder step 11 chooses from, and the table that
 * maps a problem size to one of them. The only place either list is written down: the launchers
 * of steps 11 and 15 both expand GK_AUTOTUNE_CONFIGS and pick a row with gk_autotune_pick.
 *
 * GK_AUTOTUNE_CONFIGS(X) calls X(id, BM, BN, BK, WM, WN, WTR, STAGES, MIN_BLOCKS, LOAD_KK, ORDER,
 * GROUP_M): the parameters of gk_pipe::Config (10_cp_async_pipeline.cuh) plus the block
 * rasterisation group. Config 4 is step 13's kernel.
 *
 * GK_AUTOTUNE_TABLE rows {max_mn, id}: a problem uses the first row with m * n <= max_mn.
 * How it was produced: every configuration was timed on an H100 80GB HBM3 (sm_90, 1980 MHz) on
 * 2026-11-22 at M=N=K in {256, 512, 1024, 2048, 3072, 4096, 6144, 8192} (L2 flushed, median of
 * 20-40 runs; log: bench/results/h100-fast-kernels-2026-11-22.txt, rows cfg0..cfg5, config 4 as
 * v13_t8x4_ld5_o2); each row is the fastest configuration at that size, sizes with the same
 * winner merged. Between measured sizes a problem gets the choice of the next larger one. The
 * table is only used on sm_90; other GPUs get the heuristic in 11_autotuned.cu.
 * Later the same day the template's refill lost its branch and config 4 followed step 13 to
 * LOAD_KK 1 / ORDER 3; every configuration got faster (bench/results/h100-step13-tuning-2026-11-22
 * .txt, rows s10/c0..c5 r0 vs r1 at 1024-8192) and the winners at 1024, 2048, 4096 and 8192 stayed
 * the same (3072 was not re-measured), so the table was kept.
 */
#ifndef GK_CUDA_LADDER_11_AUTOTUNED_CONFIGS_H
#define GK_CUDA_LADDER_11_AUTOTUNED_CONFIGS_H

#define GK_AUTOTUNE_CONFIGS(X)                                                                     \
    X(0, 64, 64, 8, 32, 32, 4, 3, 4, 0, 0, 8)                                                      \
    X(1, 128, 64, 8, 32, 32, 4, 3, 2, 0, 0, 8)                                                     \
    X(2, 64, 128, 8, 32, 32, 4, 3, 2, 0, 0, 8)                                                     \
    X(3, 128, 128, 8, 32, 64, 4, 3, 2, 0, 0, 8)                                                    \
    X(4, 128, 256, 8, 64, 64, 8, 4, 1, 1, 3, 8)                                                    \
    X(5, 256, 128, 8, 64, 64, 4, 4, 1, 0, 0, 8)

/* Device architecture (compute capability * 10) the table was measured on. */
#define GK_AUTOTUNE_TABLE_SM 90

/* 256, 512: config 0; 1024: 2; 2048: 4; 3072: 2 (128x256 tiles leave 2.2 waves on 132 SMs);
 * 4096 and up: 4. */
#define GK_AUTOTUNE_TABLE                                                                          \
    {512LL * 512, 0}, {1024LL * 1024, 2}, {2048LL * 2048, 4}, {3072LL * 3072, 2}, {                \
        0x7fffffffffffffffLL, 4                                                                    \
    }

/* The configuration (row of GK_AUTOTUNE_CONFIGS) step 11 runs for p on a device of compute
 * capability `sm` (x10) with sm_count SMs: the table's choice on GK_AUTOTUNE_TABLE_SM, the
 * heuristic of 11_autotuned.cu elsewhere. Step 15 schedules the same choice with stream-K. */
struct gk_rm_problem;
int gk_autotune_pick(const gk_rm_problem &p, int sm, int sm_count);

#endif
