/*
 * dispatch.cu — an SGEMM call on one registry kernel (gk_cuda_sgemm_run; gk_cuda_sgemm_kernel, and
 * gk_cuda_sgemm through the float32 router, src/cuda/api/sgemm.cu): argument checks shared with
 * the CPU path, then the mapping of any public call onto the kernel contract
 * (src/cuda/gemm/kernel.cuh: row-major, non-transposed C = alpha A B + beta C).
 *
 * The column-to-row-major swap, which the other entry points reuse (src/cuda/api/gemm_ex.cu points
 * here): after gk_check_gemm the problem is column-major: C (m x n, ldc) =
 * alpha op(A) op(B) + beta C. Column-major C is row-major C^T (n x m, same ldc), and C^T = op(B)^T
 * op(A)^T, so the kernel's A is op(B)^T (n x k) and its B is op(A)^T (k x m). A non-transposed
 * column-major operand read as row-major already is that transpose (no copy); a transposed one is
 * copied into the context's workspace by gk_cuda_transpose, with rows padded to 128 bytes so
 * kernels can use aligned vector loads on it. Kernels that declare scratch memory (the stream-K
 * slots of the production launcher, ladder step 15) get it from the front of the same workspace.
 *
 * The default kernel (the production launcher) runs a plan (src/cuda/gemm/plan.h): kernel family,
 * tile configuration and K split, from the context's tune cache when it holds the shape
 * (`gemmkit tune`, docs/tuning.md) and the plan can run it, else from the heuristic.
 *
 * Before anything is queued, checks.cu makes sure the context is usable and each operand is memory
 * the device can reach, in an allocation long enough (unless the context was created with
 * GEMMKIT_CUDA_CHECKS=0).
 *
 * In the GK_FP32_3XTF32 mode (gk_cuda_set_fp32_mode) the float32 router (gk_cuda_fp32_route,
 * kernels.cu) sends gk_cuda_sgemm to the float32 case of gk_cuda_gemm_ex instead: tensor cores with
 * split operands. This file calls no entry point.
 *
 * Everything is asynchronous on the context's stream: the call returns after queueing the work,
 * and errors raised while the kernel runs surface at the caller's next synchronisation.
 */
#include <stddef.h>

#include <stdio.h>

#include "cuda/core/core.h"
#include "cuda/gemm/plan.h"
#include "cuda/gemm/util.cuh"
#include "cuda/registry.h"

enum { WS_ROW_ALIGN = 32 }; /* floats: 128-byte rows */
/* Kernel rows from which a misaligned B is copied into padded rows: each element of B then serves
 * at least this many multiply-adds, so the copy (a read and a write of B) costs a few percent of
 * the product and the 16-byte copies it allows save about a tenth
 * (bench/results/h100/odd_shapes_probe.txt). */
enum { PAD_B_MIN_ROWS = 2048 };

const char *gk_cuda_plan_source_name(int source) {
    static const char *const names[] = {"heuristic", "tune cache", "forced"};
    return source >= 0 && source < 3 ? names[source] : "?";
}

int gk_cuda_sgemm_choose(const gk_cuda_ctx *ctx, const gk_plan_ops &ops, const gk_rm_problem &p,
                         const gk_sgemm_plan *force, gk_sgemm_plan *plan) {
    if (force) {
        *plan = *force;
        return GK_PLAN_FORCED;
    }
    if (const gk_tune_entry *e = gk_tune_find(&ctx->tune, p.m, p.n, p.k)) {
        const gk_sgemm_plan t = {e->kind, e->config, e->split};
        if (ops.valid(t, p, ctx->sm, ctx->sm_count)) {
            *plan = t;
            return GK_PLAN_FROM_CACHE;
        }
    }
    *plan = ops.pick(p, ctx->sm, ctx->sm_count);
    return GK_PLAN_FROM_HEURISTIC;
}

gk_status gk_cuda_sgemm_run(gk_cuda_ctx *ctx, int kernel_id, const char *who, gk_layout layout,
                            gk_trans transa, gk_trans transb, int64_t m, int64_t n, int64_t k,
                            float alpha, const float *a, int64_t lda, const float *b, int64_t ldb,
                            float beta, float *c, int64_t ldc, const gk_sgemm_plan *force) {
    gk_gemm_args g;
    gk_status st = gk_check_gemm(who, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta,
                                 c, ldc, &g);
    if (st != GK_SUCCESS) return st;
    int count;
    const gk_kernel_entry *entry = &gk_cuda_registry(&count)[kernel_id];
    if (entry->min_sm > ctx->sm)
        return gk_fail(GK_ERR_UNSUPPORTED, "%s: kernel %d (%s) needs sm_%d, device %d is sm_%d",
                       who, kernel_id, entry->name, entry->min_sm, ctx->device, ctx->sm);
    if (g.m == 0 || g.n == 0) return GK_SUCCESS;

    gk_device_guard guard(ctx->device);
    if (guard.error() != cudaSuccess) return gk_cuda_status(who, "cudaSetDevice", guard.error());
    if (gk_gemm_is_scale_only(&g) && g.beta == 1.0f) return GK_SUCCESS; /* nothing to touch */
    if (ctx->checks) {
        st = gk_cuda_check_call(ctx, who, layout == GK_ROW_MAJOR, &g);
        if (st != GK_SUCCESS) return st;
    }
    cudaError_t err;
    if (gk_gemm_is_scale_only(&g)) {
        err = gk_cuda_scale(g.c, g.m, g.n, g.ldc, g.beta, ctx->stream);
        return err == cudaSuccess ? GK_SUCCESS : gk_cuda_status(who, "scale kernel launch", err);
    }

    gk_rm_problem p;
    p.m = g.n, p.n = g.m, p.k = g.k;
    p.alpha = g.alpha, p.beta = g.beta;
    p.c = g.c, p.ldc = g.ldc;
    p.a = p.b = nullptr, p.lda = p.ldb = 0;
    const gk_plan_ops *ops = kernel_id == gk_cuda_default_kernel() ? gk_cuda_plan_ops() : nullptr;
    gk_sgemm_plan plan = {};
    if (ops) {
        const int source = gk_cuda_sgemm_choose(ctx, *ops, p, force, &plan);
        char name[48];
        if (source == GK_PLAN_FORCED && !ops->valid(plan, p, ctx->sm, ctx->sm_count))
            return gk_fail(GK_ERR_INVALID_VALUE, "%s: plan %s cannot run m=%lld n=%lld k=%lld here",
                           who, ops->name(plan, name, sizeof name), (long long)p.m,
                           (long long)p.n, (long long)p.k);
        if (ctx->verbose)
            fprintf(stderr, "gemmkit: %s m=%lld n=%lld k=%lld plan=%s (%s)\n", who,
                    (long long)p.m, (long long)p.n, (long long)p.k,
                    ops->name(plan, name, sizeof name), gk_cuda_plan_source_name(source));
    } else if (force) {
        return gk_fail(GK_ERR_INVALID_VALUE, "%s: kernel %d (%s) runs no plans", who, kernel_id,
                       entry->name);
    }
    /* Workspace layout: the kernel's scratch (gemm/kernel.cuh) first, then the transposed operands.
     * The scratch's leading counters must stay zero between calls, so the transposes start past
     * them even when this kernel needs no scratch. */
    const size_t scratch = ops              ? ops->scratch(plan, p, ctx->sm, ctx->sm_count)
                           : entry->scratch ? entry->scratch(p, ctx->sm, ctx->sm_count)
                                            : 0;
    const size_t reserved = scratch > GK_SCRATCH_FLAG_BYTES ? scratch : GK_SCRATCH_FLAG_BYTES;
    const int64_t scratch_elems = gk_round_up((int64_t)(reserved / sizeof(float)), 64);
    const int64_t lda_ws = gk_round_up(g.k, WS_ROW_ALIGN); /* kernel A = op(B)^T, n x k */
    const int64_t ldb_ws = gk_round_up(g.m, WS_ROW_ALIGN); /* kernel B = op(A)^T, k x m */
    const int64_t a_elems = g.transb ? gk_round_up(g.n * lda_ws, WS_ROW_ALIGN) : 0;
    /* A kernel B whose rows the tiled kernels cannot read with 16-byte copies (misaligned, or a
     * length not a multiple of 4: an odd m, column-major) is copied into padded rows when the
     * kernel has enough rows to repay the copy (docs/cuda.md, "The workspace"). */
    const bool pad_b = ops && !g.transa && plan.kind != GK_PLAN_GEMV && p.m >= PAD_B_MIN_ROWS &&
                       !(gk_vec_ok(g.a, g.lda) && g.m % 4 == 0);
    const int64_t b_elems = g.transa || pad_b ? g.k * ldb_ws : 0;
    const int64_t ws_elems = scratch_elems + a_elems + b_elems;
    if (scratch > 0 || a_elems + b_elems > 0) {
        if ((uint64_t)ws_elems > SIZE_MAX / sizeof(float) / 2)
            return gk_fail(GK_ERR_OVERFLOW, "%s: the workspace overflows size_t", who);
        st = gk_cuda_workspace(ctx, (size_t)ws_elems * sizeof(float), who);
        if (st != GK_SUCCESS) return st;
    }
    float *const ws_a = ctx->work + scratch_elems, *const ws_b = ws_a + a_elems;
    if (g.transb) {
        /* stored B is column-major n x k, i.e. row-major k x n in memory */
        err = gk_cuda_transpose(g.b, g.k, g.n, g.ldb, ws_a, lda_ws, ctx->stream);
        if (err != cudaSuccess) return gk_cuda_status(who, "transpose kernel launch", err);
        p.a = ws_a, p.lda = lda_ws;
    } else {
        p.a = g.b, p.lda = g.ldb;
    }
    if (g.transa) {
        /* stored A is column-major k x m, i.e. row-major m x k in memory */
        err = gk_cuda_transpose(g.a, g.m, g.k, g.lda, ws_b, ldb_ws, ctx->stream);
        if (err != cudaSuccess) return gk_cuda_status(who, "transpose kernel launch", err);
        p.b = ws_b, p.ldb = ldb_ws, p.b_padded = 1;
    } else if (pad_b) {
        err = cudaMemcpy2DAsync(ws_b, (size_t)ldb_ws * sizeof(float), g.a,
                                (size_t)g.lda * sizeof(float), (size_t)g.m * sizeof(float),
                                (size_t)g.k, cudaMemcpyDeviceToDevice, ctx->stream);
        if (err != cudaSuccess) return gk_cuda_status(who, "copying B into padded rows", err);
        p.b = ws_b, p.ldb = ldb_ws, p.b_padded = 1;
    } else {
        p.b = g.a, p.ldb = g.lda;
    }
    gk_launch_env env;
    env.stream = ctx->stream, env.sm = ctx->sm, env.sm_count = ctx->sm_count;
    env.scratch = scratch > 0 ? ctx->work : nullptr;
    err = ops ? ops->launch(plan, p, env) : entry->launch(p, env);
    if (err == cudaSuccess) err = cudaGetLastError();
    if (err != cudaSuccess) return gk_cuda_status(who, entry->name, err);
    return GK_SUCCESS;
}

gk_status gk_cuda_sgemm_kernel(gk_cuda_ctx *ctx, int kernel_id, gk_layout layout, gk_trans transa,
                               gk_trans transb, int64_t m, int64_t n, int64_t k, float alpha,
                               const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                               float *c, int64_t ldc) {
    static const char who[] = "gk_cuda_sgemm_kernel";
    gk_clear_error();
    if (ctx == NULL) return gk_fail(GK_ERR_INVALID_VALUE, "%s: ctx is NULL", who);
    const int count = gk_cuda_kernel_count();
    if (kernel_id < 0 || kernel_id >= count)
        return gk_fail(GK_ERR_INVALID_VALUE, "%s: kernel_id=%d is not in [0, %d)", who, kernel_id,
                       count);
    return gk_cuda_sgemm_run(ctx, kernel_id, who, layout, transa, transb, m, n, k, alpha, a, lda, b,
                             ldb, beta, c, ldc);
}
