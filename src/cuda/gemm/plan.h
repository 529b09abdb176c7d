/*
 * plan.h — how one FP32 call of the production path runs: which kernel family, which tile
 * configuration of configs.h, how K is split. gk_cuda_sgemm asks gk_sgemm_plan_pick (the
 * heuristic, select.cu) or the context's tune cache (src/cuda/core/tune.cu, written by
 * `gemmkit tune`) for a plan, sizes the scratch with gk_sgemm_plan_scratch and runs it with
 * gk_sgemm_plan_launch. The problem is the kernel contract's (kernel.cuh): row-major,
 * non-transposed C (m x n) = alpha A (m x k) B (k x n) + beta C.
 *
 * The choice depends on the shape (m, n, k) and the device only, never on where the operands lie:
 * pick, candidates, valid and scratch may be given a problem whose pointers are NULL (the
 * dispatcher sizes the scratch before it knows whether an operand is a transposed copy); a kernel
 * that needs aligned pointers checks them in gk_sgemm_plan_launch and takes its slower path.
 *
 * A plan is three small integers so a cache file can hold it as text; gk_sgemm_plan_valid says
 * whether a plan read from such a file can run the problem on this build and device (a stale or
 * hand-edited file must never reach a launcher with a plan it cannot run).
 */
#ifndef GK_CUDA_GEMM_PLAN_H
#define GK_CUDA_GEMM_PLAN_H

#include <stddef.h>

#include "cuda/gemm/kernel.cuh"

enum gk_plan_kind {
    GK_PLAN_TILED = 0,   /* a configs.h tile configuration; split 0: stream-K where it pays,
                            split 1: data-parallel tiles only */
    GK_PLAN_SPLIT_K = 1, /* a configs.h configuration with K cut into `split` pieces */
    GK_PLAN_GEMV = 2,    /* the memory-bound kernel for m or n <= GK_PLAN_GEMV_MAX (gemv.cu); split:
                            K pieces (1..GK_GEMV_MAX_SPLIT), 0: chosen from the shape and SM count */
    GK_PLAN_KINDS
};

/* Widest thin side (m or n) the GEMV-class kernel takes. */
#define GK_PLAN_GEMV_MAX 8

struct gk_sgemm_plan {
    int kind;   /* gk_plan_kind */
    int config; /* configs.h id (TILED, SPLIT_K); 0 otherwise */
    int split;  /* as described for each kind; 0 where unused */
};

/* The heuristic's plan for p: right without tuning. */
gk_sgemm_plan gk_sgemm_plan_pick(const gk_rm_problem &p, int sm, int sm_count);

/* The plans worth timing for p (what `gemmkit tune` measures), best guess first. Writes at most
 * cap of them to out and returns how many there are. */
int gk_sgemm_plan_candidates(const gk_rm_problem &p, int sm, int sm_count, gk_sgemm_plan *out,
                             int cap);

/* 1 when plan can run p on this build and device, 0 otherwise. */
int gk_sgemm_plan_valid(const gk_sgemm_plan &plan, const gk_rm_problem &p, int sm, int sm_count);

/* Scratch bytes plan needs for p (the kernel.cuh scratch rules; 0: none). */
size_t gk_sgemm_plan_scratch(const gk_sgemm_plan &plan, const gk_rm_problem &p, int sm,
                             int sm_count);

/* Run a valid plan; correct without scratch too (env.scratch NULL: a schedule that needs none). */
cudaError_t gk_sgemm_plan_launch(const gk_sgemm_plan &plan, const gk_rm_problem &p,
                                 const gk_launch_env &env);

/* A short name for messages and the CLI ("tiled/3", "tiled-dp/3", "splitk/3x4", "gemv"); buf
 * holds at least 32 bytes. Returns buf. */
const char *gk_sgemm_plan_name(const gk_sgemm_plan &plan, char *buf, size_t n);

/* The functions above as one table: the dispatcher and the tune cache reach them through
 * gk_cuda_plan_ops() (src/cuda/registry.h), so a build whose registry has no planned kernel
 * (the CPU emulation of the CUDA core in tests/cuda/emu) links without them. */
struct gk_plan_ops {
    gk_sgemm_plan (*pick)(const gk_rm_problem &p, int sm, int sm_count);
    int (*candidates)(const gk_rm_problem &p, int sm, int sm_count, gk_sgemm_plan *out, int cap);
    int (*valid)(const gk_sgemm_plan &plan, const gk_rm_problem &p, int sm, int sm_count);
    size_t (*scratch)(const gk_sgemm_plan &plan, const gk_rm_problem &p, int sm, int sm_count);
    cudaError_t (*launch)(const gk_sgemm_plan &plan, const gk_rm_problem &p,
                          const gk_launch_env &env);
    const char *(*name)(const gk_sgemm_plan &plan, char *buf, size_t n);
};

#endif
