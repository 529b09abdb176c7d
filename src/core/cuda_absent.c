/*
 * cuda_absent.c — the gk_cuda_* entry points of a build without the CUDA backend (no nvcc at
 * build time). Every call reports GK_ERR_NOT_BUILT so programs written for both paths still link.
 */
#include "internal.h"

static gk_status not_built(const char *who) {
    return gk_fail(GK_ERR_NOT_BUILT, "%s: gemmkit was built without the CUDA backend (no nvcc)",
                   who);
}

int gk_cuda_available(void) {
    return 0;
}
gk_status gk_cuda_create(gk_cuda_ctx **ctx, int device, void *stream) {
    (void)device, (void)stream;
    if (ctx) *ctx = NULL;
    return not_built("gk_cuda_create");
}
gk_status gk_cuda_destroy(gk_cuda_ctx *ctx) {
    (void)ctx;
    return not_built("gk_cuda_destroy");
}
gk_status gk_cuda_set_stream(gk_cuda_ctx *ctx, void *stream) {
    (void)ctx, (void)stream;
    return not_built("gk_cuda_set_stream");
}
gk_status gk_cuda_sgemm(gk_cuda_ctx *ctx, gk_layout layout, gk_trans transa, gk_trans transb,
                        int64_t m, int64_t n, int64_t k, float alpha, const float *a, int64_t lda,
                        const float *b, int64_t ldb, float beta, float *c, int64_t ldc) {
    (void)ctx, (void)layout, (void)transa, (void)transb, (void)m, (void)n, (void)k, (void)alpha;
    (void)a, (void)lda, (void)b, (void)ldb, (void)beta, (void)c, (void)ldc;
    return not_built("gk_cuda_sgemm");
}
gk_status gk_cuda_sgemm_kernel(gk_cuda_ctx *ctx, int kernel_id, gk_layout layout, gk_trans transa,
                               gk_trans transb, int64_t m, int64_t n, int64_t k, float alpha,
                               const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                               float *c, int64_t ldc) {
    (void)kernel_id;
    (void)ctx, (void)layout, (void)transa, (void)transb, (void)m, (void)n, (void)k, (void)alpha;
    (void)a, (void)lda, (void)b, (void)ldb, (void)beta, (void)c, (void)ldc;
    return not_built("gk_cuda_sgemm_kernel");
}
int gk_cuda_kernel_count(void) {
    return 0;
}
gk_status gk_cuda_kernel_info_get(int kernel_id, gk_cuda_kernel_info *info) {
    (void)kernel_id, (void)info;
    return not_built("gk_cuda_kernel_info_get");
}
