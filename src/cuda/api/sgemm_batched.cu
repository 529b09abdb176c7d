/*
 * sgemm_batched.cu — gk_cuda_sgemm_strided_batched and gk_cuda_sgemm_batched: a whole batch of
 * SGEMMs in one grid, so a batch of small products fills the GPU where one product alone would
 * not. This file checks the call and maps it onto the kernel contract; the GEMM grid is
 * src/cuda/gemm/batched.cu's.
 *
 * Each item is mapped onto the kernel contract exactly as dispatch.cu maps gk_cuda_sgemm (the
 * row-major problem of C^T; transposed operands first copied to the workspace, here by one batched
 * transpose for all items: transpose.cu's kernel, blockIdx.z walking the items). Each item's
 * pointers are its base plus index times stride, or read by the kernels from the device pointer
 * arrays.
 *
 * Float4 access: strided operands use the vector path when base, leading dimension and stride all
 * allow it. For pointer arrays each item's C alignment is tested on the device, but B is copied in
 * 4-byte pieces: a kernel holding both copy variants, chosen per item, spilled registers.
 */
#include <stdint.h>

#include "core/batched.h"
#include "cuda/core/core.h"
#include "cuda/gemm/batched.h"
#include "cuda/gemm/util.cuh"

namespace {

enum { WS_ROW_ALIGN = 32 };

/* One batched call after its argument checks: g is item 0 normalised (column-major), a/b/c the
 * caller's operands. */
gk_status run(gk_cuda_ctx *ctx, const char *who, int row_major, const gk_gemm_args &g,
              gk_batch_items<const float> a, gk_batch_items<const float> b, gk_batch_items<float> c,
              int64_t count) {
    /* Normalised operands: the row-major call swaps A and B. */
    const gk_batch_items<const float> na = row_major ? b : a, nb = row_major ? a : b;
    cudaError_t err;
    if (gk_gemm_is_scale_only(&g)) {
        if (g.beta == 1.0f) return GK_SUCCESS;
        err = gk_cuda_scale_batched(c, g.m, g.n, g.ldc, g.beta, count, ctx->stream);
        return err == cudaSuccess ? GK_SUCCESS : gk_cuda_status(who, "scale kernel launch", err);
    }
    gk_rm_problem p;
    p.m = g.n, p.n = g.m, p.k = g.k;
    p.alpha = g.alpha, p.beta = g.beta;
    p.c = nullptr, p.ldc = g.ldc;
    /* Workspace: past the scratch counters every kernel's scratch starts with (kept zero, see
     * dispatch.cu), the transposed items of each transposed operand. */
    const int64_t flags = gk_round_up(GK_SCRATCH_FLAG_BYTES / (int64_t)sizeof(float), 64);
    const int64_t lda_ws = gk_round_up(g.k, WS_ROW_ALIGN); /* kernel A = op(B)^T, n x k */
    const int64_t ldb_ws = gk_round_up(g.m, WS_ROW_ALIGN); /* kernel B = op(A)^T, k x m */
    const int64_t a_item = g.transb ? gk_round_up(g.n * lda_ws, WS_ROW_ALIGN) : 0;
    const int64_t b_item = g.transa ? gk_round_up(g.k * ldb_ws, WS_ROW_ALIGN) : 0;
    if (a_item + b_item > 0) {
        const double elems = (double)flags + (double)count * (double)(a_item + b_item);
        if (elems > (double)(SIZE_MAX / sizeof(float) / 2))
            return gk_fail(GK_ERR_OVERFLOW, "%s: the workspace overflows size_t", who);
        gk_status st = gk_cuda_workspace(
            ctx, (size_t)(flags + count * (a_item + b_item)) * sizeof(float), who);
        if (st != GK_SUCCESS) return st;
    }
    float *const ws_a = ctx->work + flags, *const ws_b = ws_a + count * a_item;
    gk_batch_items<const float> ka, kb;
    if (g.transb) { /* stored B is column-major n x k, i.e. row-major k x n */
        if ((err = gk_cuda_transpose_batched(nb, g.k, g.n, g.ldb, ws_a, a_item, lda_ws, count,
                                             ctx->stream)) != cudaSuccess)
            return gk_cuda_status(who, "transpose kernel launch", err);
        ka = {ws_a, a_item, nullptr}, p.lda = lda_ws;
    } else {
        ka = nb, p.lda = g.ldb;
    }
    if (g.transa) { /* stored A is column-major k x m, i.e. row-major m x k */
        if ((err = gk_cuda_transpose_batched(na, g.m, g.k, g.lda, ws_b, b_item, ldb_ws, count,
                                             ctx->stream)) != cudaSuccess)
            return gk_cuda_status(who, "transpose kernel launch", err);
        kb = {ws_b, b_item, nullptr}, p.ldb = ldb_ws;
    } else {
        kb = na, p.ldb = g.lda;
    }
    p.a = ka.base, p.b = kb.base;
    /* Pointer arrays: items' alignment is unknown on the host, so B is copied in 4-byte pieces. */
    const bool vec_b =
        p.n % 4 == 0 && kb.ptrs == nullptr && gk_vec_ok(kb.base, p.ldb) && kb.stride % 4 == 0;
    const bool vec_c_ld = p.ldc % 4 == 0 && (c.ptrs != nullptr || gk_vec_ok(c.base, c.stride));
    gk_launch_env env;
    env.stream = ctx->stream, env.sm = ctx->sm, env.sm_count = ctx->sm_count, env.scratch = nullptr;
    err = gk_gemm_batched(p, ka, kb, c, count, vec_b, vec_c_ld, env);
    return err == cudaSuccess ? GK_SUCCESS : gk_cuda_status(who, "batched SGEMM launch", err);
}

/* Context, device and pre-launch checks common to both entry points. */
gk_status enter(gk_cuda_ctx *ctx, const char *who) {
    if (ctx == NULL) return gk_fail(GK_ERR_INVALID_VALUE, "%s: ctx is NULL", who);
    if (ctx->sm < 80)
        return gk_fail(GK_ERR_UNSUPPORTED, "%s: the batched kernel needs sm_80, device %d is sm_%d",
                       who, ctx->device, ctx->sm);
    return GK_SUCCESS;
}

} // namespace

gk_status gk_cuda_sgemm_strided_batched(gk_cuda_ctx *ctx, gk_layout layout, gk_trans transa,
                                        gk_trans transb, int64_t m, int64_t n, int64_t k,
                                        float alpha, const float *a, int64_t lda, int64_t stride_a,
                                        const float *b, int64_t ldb, int64_t stride_b, float beta,
                                        float *c, int64_t ldc, int64_t stride_c, int64_t batch) {
    static const char who[] = "gk_cuda_sgemm_strided_batched";
    gk_clear_error();
    gk_status st = enter(ctx, who);
    if (st != GK_SUCCESS) return st;
    gk_gemm_args g;
    gk_batch_extent ext;
    st = gk_check_strided_batched(who, layout, transa, transb, m, n, k, alpha, a, lda, stride_a, b,
                                  ldb, stride_b, beta, c, ldc, stride_c, batch, &g, &ext);
    if (st != GK_SUCCESS || batch == 0 || g.m == 0 || g.n == 0) return st;
    gk_device_guard guard(ctx->device);
    if (guard.error() != cudaSuccess) return gk_cuda_status(who, "cudaSetDevice", guard.error());
    if (gk_gemm_is_scale_only(&g) && g.beta == 1.0f) return GK_SUCCESS;
    if (ctx->checks) {
        /* item 0 (and the context's state), then each operand's whole batch */
        st = gk_cuda_check_call(ctx, who, layout == GK_ROW_MAJOR, &g);
        if (st == GK_SUCCESS && ext.a > 0) st = gk_cuda_check_buffer(ctx, who, "a", a, ext.a);
        if (st == GK_SUCCESS && ext.b > 0) st = gk_cuda_check_buffer(ctx, who, "b", b, ext.b);
        if (st == GK_SUCCESS) st = gk_cuda_check_buffer(ctx, who, "c", c, ext.c);
        if (st != GK_SUCCESS) return st;
    }
    /* NULL operands are never read (scale-only calls); keep them NULL rather than offset them. */
    return run(ctx, who, layout == GK_ROW_MAJOR, g, {a, stride_a, nullptr}, {b, stride_b, nullptr},
               {c, stride_c, nullptr}, batch);
}

gk_status gk_cuda_sgemm_batched(gk_cuda_ctx *ctx, gk_layout layout, gk_trans transa,
                                gk_trans transb, int64_t m, int64_t n, int64_t k, float alpha,
                                const float *const *a, int64_t lda, const float *const *b,
                                int64_t ldb, float beta, float *const *c, int64_t ldc,
                                int64_t batch) {
    static const char who[] = "gk_cuda_sgemm_batched";
    gk_clear_error();
    gk_status st = enter(ctx, who);
    if (st != GK_SUCCESS) return st;
    gk_gemm_args g;
    st = gk_check_ptr_batched(who, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                              ldc, batch, &g);
    if (st != GK_SUCCESS || batch == 0 || g.m == 0 || g.n == 0) return st;
    gk_device_guard guard(ctx->device);
    if (guard.error() != cudaSuccess) return gk_cuda_status(who, "cudaSetDevice", guard.error());
    if (gk_gemm_is_scale_only(&g) && g.beta == 1.0f) return GK_SUCCESS;
    if (ctx->checks) {
        /* The arrays themselves; the items' pointers are read only by the kernels. */
        const int64_t bytes = batch * (int64_t)sizeof(void *);
        if (!gk_gemm_is_scale_only(&g)) {
            st = gk_cuda_check_buffer(ctx, who, "a", a, bytes);
            if (st == GK_SUCCESS) st = gk_cuda_check_buffer(ctx, who, "b", b, bytes);
        }
        if (st == GK_SUCCESS) st = gk_cuda_check_buffer(ctx, who, "c", c, bytes);
        if (st != GK_SUCCESS) return st;
    }
    return run(ctx, who, layout == GK_ROW_MAJOR, g, {nullptr, 0, a}, {nullptr, 0, b},
               {nullptr, 0, c}, batch);
}
