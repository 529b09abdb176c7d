/*
 * hopper.h — the contract of gemmkit's tensor-core GEMM kernels for the mixed-precision entry
 * point (gk_cuda_gemm_ex, src/cuda/api/gemm_ex.cu): the sm_90a kernel (TMA loads into an
 * mbarrier-guarded shared-memory ring, wgmma, a producer warp and consumer warpgroups, a
 * persistent grid) and the portable fallbacks take the same problem description.
 *
 * The problem is row-major and non-transposed, like the SGEMM contract (src/cuda/gemm/kernel.cuh):
 *     C (m x n, ldc, type tc) = alpha * sa * sb * A (m x k) * B (k x n) + beta * C
 * where sa = *scale_a and sb = *scale_b (1 when NULL), accumulated in float32 and rounded to tc
 * once. Each operand is stored either K-major (K contiguous) or MN-major:
 *     A K-major:  A(i, kk) = a[i * lda + kk]      A MN-major: A(i, kk) = a[kk * lda + i]
 *     B K-major:  B(kk, j) = b[j * ldb + kk]      B MN-major: B(kk, j) = b[kk * ldb + j]
 * The element types: GK_TF32 (float32 bits), GK_BF16, GK_F16, GK_F8_E4M3FN, GK_F8_E5M2; tc is
 * GK_F32, GK_BF16 or GK_F16. 3xTF32 (k_lo > 0): A and B are K-major TF32 and each row holds the
 * high parts in columns [0, k) and the low parts in columns [k_lo, k_lo + k); the kernel sums
 * lo*hi + hi*lo + hi*hi (docs/cuda.md, "FP32 accuracy modes").
 *
 * C is row-major (C(i, j) at c[i * ldc + j]) or, with c_trans, column-major (c[j * ldc + i]);
 * only the sm_90a kernel takes c_trans (it lets the dispatcher choose which operand is A).
 *
 * Block scales (gk_cuda_gemm_scaled's 1x128 / 128x128 scaling; the sm_90a kernel, E4M3 pairs):
 * float32 scales per 128 of K, applied to the partial products of each 128-K block before they
 * are added in float32, per row on A and per 128x128 block on B (bs_a GK_TCS_ROW, bs_b
 * GK_TCS_BLK128; the other paths decode the operands first):
 *   GK_TCS_ROW    one per row, transposed for TMA: X(r, kk) scaled by s[(kk / 128) * ld + r]
 *                 (ld a multiple of 4; the rows from m up to ld read as 0);
 *   GK_TCS_BLK128 one per 128 rows, the caller's order: s[(r / 128) * ld + kk / 128].
 *
 * Every launcher: correct for any m, n, k >= 1 it accepts; never reads C when beta == 0; writes
 * nothing outside the m x n block of C; returns the launch's cudaError_t, never exits or prints.
 */
#ifndef GK_CUDA_HOPPER_HOPPER_H
#define GK_CUDA_HOPPER_HOPPER_H

#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda/gemm/kernel.cuh"
#include "gemmkit.h"

enum gk_tc_scale_kind { GK_TCS_NONE = 0, GK_TCS_ROW = 1, GK_TCS_BLK128 = 2 };
struct gk_tc_scales {
    int kind; /* gk_tc_scale_kind */
    const float *s;
    int64_t ld;
};

struct gk_tc_problem {
    int64_t m, n, k;
    gk_format ta, tb, tc;
    const void *a;
    int64_t lda;
    int a_mn_major;
    const void *b;
    int64_t ldb;
    int b_mn_major;
    void *c;
    int64_t ldc;
    int c_trans = 0; /* C column-major (the file comment) */
    float alpha, beta;
    const float *scale_a, *scale_b;    /* device pointers or NULL */
    int fp8_fast_accum;                /* FP8: skip the float32 promotion every 128 of K */
    int64_t k_lo;                      /* 3xTF32: column of the low parts; 0 otherwise */
    gk_tc_scales bs_a = {}, bs_b = {}; /* block scales (kind GK_TCS_NONE: none) */
    /* Which dimension holds the caller's M, the rows of its C (the batch of an inference
     * server): p.m (0) or p.n (1). The sm_90a kernel's K chunks depend only on the other one
     * (sm90_plan.h, batch invariance). */
    int batch_n = 0;
    /* The sm_90a kernel's plan (sm90_plan.h), chosen by the launcher; a test or benchmark may force
     * parts of it. tile_n: a tile width the launcher offers for the (possibly swapped) problem's
     * types and layouts (gemm_sm90.cu), 0 to choose; another one fails with cudaErrorNotSupported.
     * swap: 1 runs C^T = B^T A^T, 0 does not, -1 chooses. split: 1 runs each K chunk of a tile on
     * its own CTA (needs the workspace of gk_hopper_workspace), 0 sums a tile's chunks in place,
     * -1 chooses. */
    int tile_n = 0;
    int swap = -1, split = -1;
    /* 0 (the default, also after a memset): the K chunks follow sm90_plan.h's rule whatever the
     * plan (batch invariance); 1: a plan of whole tiles keeps K in one chunk
     * (GEMMKIT_BATCH_INVARIANT=0) */
    int batch_variant = 0;
};

/* Bytes per element of a format the GEMM reads or writes (GK_F32/GK_TF32 4, GK_BF16/GK_F16 2,
 * FP8 1); 0 for the others. */
static inline int gk_format_size(gk_format f) {
    switch (f) {
    case GK_F32:
    case GK_TF32:
        return 4;
    case GK_BF16:
    case GK_F16:
        return 2;
    case GK_F8_E4M3FN:
    case GK_F8_E5M2:
        return 1;
    default:
        return 0;
    }
}

/* 1 when the sm_90a kernel takes p as stored on a device of compute capability sm (x10): built for
 * sm_90a and sm == 90; a supported type combination; MN-major operands only for 16-bit types;
 * the TMA rules (operand base addresses 16-byte aligned, lda/ldb times the element size a
 * multiple of 16 bytes). When it returns 0 the dispatcher copies the operands into a layout it
 * takes (K-major, padded), or uses a portable kernel. */
int gk_hopper_supports(const gk_tc_problem &p, int sm);

/* Run p (gk_hopper_supports(p, env.sm) must hold) on env.stream; env.sm_count sizes the
 * persistent grid. env.scratch: NULL, or gk_hopper_workspace(p, env) bytes (256-byte aligned) that
 * a split-K plan may use; without it the plan sums every tile's K chunks in place (the same bits,
 * slower on problems of few tiles). */
cudaError_t gk_hopper_gemm(const gk_tc_problem &p, const gk_launch_env &env);

/* Bytes of workspace gk_hopper_gemm's plan for p uses when given it (0: none). */
cudaError_t gk_hopper_workspace(const gk_tc_problem &p, const gk_launch_env &env, size_t *bytes);

/* The plan gk_hopper_gemm runs p with when given its workspace, as text ("swap n=32 kc=16x7 split",
 * for verbose logs and benchmarks), into buf. */
cudaError_t gk_hopper_describe(const gk_tc_problem &p, const gk_launch_env &env, char *buf,
                               size_t len);

/* The ladder's steps 18 and 19 (src/cuda/ladder/): p, TF32 with both operands K-major, on the
 * kernel's 128 x 256 tile in clusters of one CTA (no multicast), on a grid of one CTA per tile
 * (persistent == 0) or the persistent grid. gk_hopper_supports(p, env.sm) must hold;
 * cudaErrorNotSupported for other types or layouts. gk_hopper_gemm is step 20. */
cudaError_t gk_hopper_gemm_ladder(const gk_tc_problem &p, const gk_launch_env &env, int persistent);

#endif
