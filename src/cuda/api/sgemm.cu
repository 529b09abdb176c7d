/*
 * sgemm.cu — gk_cuda_sgemm, the float32 GEMM on device memory, and gk_cuda_sgemm_fp32, the same
 * after its context check, which the engines of src/cuda/multi/ run their float32 tiles and
 * panels through: the float32 router's choice (gk_cuda_fp32_route, src/cuda/core/kernels.cu), run.
 * Tensor cores in the GK_FP32_3XTF32 mode (gemm_ex.cu, "FP32 accuracy modes" in docs/cuda.md),
 * else the registry's kernel through the dispatcher (src/cuda/core/dispatch.cu: the checks, the
 * mapping onto the kernel contract, the workspace, the plan).
 *
 * This is the one caller that reaches both paths, and it sits above them: the dispatcher calls no
 * entry point, and gemm_ex.cu, which hands plain float32 calls to the dispatcher, is never called
 * back by it.
 */
#include "cuda/core/core.h"

gk_status gk_cuda_sgemm_fp32(gk_cuda_ctx *ctx, const char *who, gk_layout layout, gk_trans transa,
                             gk_trans transb, int64_t m, int64_t n, int64_t k, float alpha,
                             const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                             float *c, int64_t ldc) {
    int id;
    const gk_status st = gk_cuda_fp32_route(ctx, who, true, &id);
    if (st != GK_SUCCESS) return st;
    if (id == GK_FP32_TENSOR_CORES)
        return gk_cuda_gemm_ex_run(ctx, who, layout, transa, transb, m, n, k, alpha, GK_F32, a, lda,
                                   GK_F32, b, ldb, beta, GK_F32, c, ldc, NULL);
    return gk_cuda_sgemm_run(ctx, id, who, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb,
                             beta, c, ldc);
}

gk_status gk_cuda_sgemm(gk_cuda_ctx *ctx, gk_layout layout, gk_trans transa, gk_trans transb,
                        int64_t m, int64_t n, int64_t k, float alpha, const float *a, int64_t lda,
                        const float *b, int64_t ldb, float beta, float *c, int64_t ldc) {
    static const char who[] = "gk_cuda_sgemm";
    gk_clear_error();
    if (ctx == NULL) return gk_fail(GK_ERR_INVALID_VALUE, "%s: ctx is NULL", who);
    return gk_cuda_sgemm_fp32(ctx, who, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb,
                              beta, c, ldc);
}
