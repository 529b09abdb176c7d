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
gk_status gk_cuda_sgemm_strided_batched(gk_cuda_ctx *ctx, gk_layout layout, gk_trans transa,
                                        gk_trans transb, int64_t m, int64_t n, int64_t k,
                                        float alpha, const float *a, int64_t lda, int64_t stride_a,
                                        const float *b, int64_t ldb, int64_t stride_b, float beta,
                                        float *c, int64_t ldc, int64_t stride_c, int64_t batch) {
    (void)ctx, (void)layout, (void)transa, (void)transb, (void)m, (void)n, (void)k, (void)alpha;
    (void)a, (void)lda, (void)b, (void)ldb, (void)beta, (void)c, (void)ldc;
    (void)stride_a, (void)stride_b, (void)stride_c, (void)batch;
    return not_built("gk_cuda_sgemm_strided_batched");
}
gk_status gk_cuda_sgemm_batched(gk_cuda_ctx *ctx, gk_layout layout, gk_trans transa,
                                gk_trans transb, int64_t m, int64_t n, int64_t k, float alpha,
                                const float *const *a, int64_t lda, const float *const *b,
                                int64_t ldb, float beta, float *const *c, int64_t ldc,
                                int64_t batch) {
    (void)ctx, (void)layout, (void)transa, (void)transb, (void)m, (void)n, (void)k, (void)alpha;
    (void)a, (void)lda, (void)b, (void)ldb, (void)beta, (void)c, (void)ldc, (void)batch;
    return not_built("gk_cuda_sgemm_batched");
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
gk_status gk_cuda_sgemm_host(gk_cuda_ctx *ctx, gk_layout layout, gk_trans transa, gk_trans transb,
                             int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                             int64_t lda, const float *b, int64_t ldb, float beta, float *c,
                             int64_t ldc) {
    (void)ctx, (void)layout, (void)transa, (void)transb, (void)m, (void)n, (void)k, (void)alpha;
    (void)a, (void)lda, (void)b, (void)ldb, (void)beta, (void)c, (void)ldc;
    return not_built("gk_cuda_sgemm_host");
}
gk_status gk_cuda_sgemm_host_multi(gk_cuda_ctx *const *ctxs, int nctx, gk_layout layout,
                                   gk_trans transa, gk_trans transb, int64_t m, int64_t n,
                                   int64_t k, float alpha, const float *a, int64_t lda,
                                   const float *b, int64_t ldb, float beta, float *c, int64_t ldc) {
    (void)ctxs, (void)nctx;
    (void)layout, (void)transa, (void)transb, (void)m, (void)n, (void)k, (void)alpha;
    (void)a, (void)lda, (void)b, (void)ldb, (void)beta, (void)c, (void)ldc;
    return not_built("gk_cuda_sgemm_host_multi");
}
gk_status gk_cuda_gemm_ex_host(gk_cuda_ctx *ctx, gk_layout layout, gk_trans transa, gk_trans transb,
                               int64_t m, int64_t n, int64_t k, float alpha, gk_format atype,
                               const void *a, int64_t lda, gk_format btype, const void *b,
                               int64_t ldb, float beta, gk_format ctype, void *c, int64_t ldc,
                               const gk_gemm_ex_opts *opts) {
    (void)ctx, (void)layout, (void)transa, (void)transb, (void)m, (void)n, (void)k, (void)alpha;
    (void)atype, (void)a, (void)lda, (void)btype, (void)b, (void)ldb, (void)beta, (void)ctype;
    (void)c, (void)ldc, (void)opts;
    return not_built("gk_cuda_gemm_ex_host");
}
gk_status gk_cuda_gemm_ex_host_multi(gk_cuda_ctx *const *ctxs, int nctx, gk_layout layout,
                                     gk_trans transa, gk_trans transb, int64_t m, int64_t n,
                                     int64_t k, float alpha, gk_format atype, const void *a,
                                     int64_t lda, gk_format btype, const void *b, int64_t ldb,
                                     float beta, gk_format ctype, void *c, int64_t ldc,
                                     const gk_gemm_ex_opts *opts) {
    (void)ctxs, (void)nctx;
    (void)layout, (void)transa, (void)transb, (void)m, (void)n, (void)k, (void)alpha;
    (void)atype, (void)a, (void)lda, (void)btype, (void)b, (void)ldb, (void)beta, (void)ctype;
    (void)c, (void)ldc, (void)opts;
    return not_built("gk_cuda_gemm_ex_host_multi");
}
int gk_cuda_kernel_count(void) {
    return 0;
}
gk_status gk_cuda_kernel_info_get(int kernel_id, gk_cuda_kernel_info *info) {
    (void)kernel_id, (void)info;
    return not_built("gk_cuda_kernel_info_get");
}
gk_status gk_cuda_encode(gk_cuda_ctx *ctx, gk_format fmt, const float *x, void *codes, int64_t n,
                         int saturate) {
    (void)ctx, (void)fmt, (void)x, (void)codes, (void)n, (void)saturate;
    return not_built("gk_cuda_encode");
}
gk_status gk_cuda_decode(gk_cuda_ctx *ctx, gk_format fmt, const void *codes, float *y, int64_t n) {
    (void)ctx, (void)fmt, (void)codes, (void)y, (void)n;
    return not_built("gk_cuda_decode");
}
gk_status gk_cuda_mx_quantize(gk_cuda_ctx *ctx, gk_format elem, gk_mx_scale_rule rule, int64_t rows,
                              int64_t cols, int64_t block, const float *x, int64_t ldx,
                              uint8_t *codes, int64_t ldcodes, uint8_t *scales, int64_t ldscales) {
    (void)ctx, (void)elem, (void)rule, (void)rows, (void)cols, (void)block, (void)x, (void)ldx;
    (void)codes, (void)ldcodes, (void)scales, (void)ldscales;
    return not_built("gk_cuda_mx_quantize");
}
gk_status gk_cuda_mx_dequantize(gk_cuda_ctx *ctx, gk_format elem, int64_t rows, int64_t cols,
                                int64_t block, const uint8_t *codes, int64_t ldcodes,
                                const uint8_t *scales, int64_t ldscales, float *y, int64_t ldy) {
    (void)ctx, (void)elem, (void)rows, (void)cols, (void)block, (void)codes, (void)ldcodes;
    (void)scales, (void)ldscales, (void)y, (void)ldy;
    return not_built("gk_cuda_mx_dequantize");
}
gk_status gk_cuda_gemm_ex(gk_cuda_ctx *ctx, gk_layout layout, gk_trans transa, gk_trans transb,
                          int64_t m, int64_t n, int64_t k, float alpha, gk_format atype,
                          const void *a, int64_t lda, gk_format btype, const void *b, int64_t ldb,
                          float beta, gk_format ctype, void *c, int64_t ldc,
                          const gk_gemm_ex_opts *opts) {
    (void)ctx, (void)layout, (void)transa, (void)transb, (void)m, (void)n, (void)k, (void)alpha;
    (void)atype, (void)a, (void)lda, (void)btype, (void)b, (void)ldb, (void)beta, (void)ctype;
    (void)c, (void)ldc, (void)opts;
    return not_built("gk_cuda_gemm_ex");
}
gk_status gk_cuda_set_fp32_mode(gk_cuda_ctx *ctx, gk_fp32_mode mode) {
    (void)ctx, (void)mode;
    return not_built("gk_cuda_set_fp32_mode");
}
gk_status gk_cuda_gemm_scaled(gk_cuda_ctx *ctx, gk_layout layout, gk_trans transa, gk_trans transb,
                              int64_t m, int64_t n, int64_t k, float alpha, gk_format atype,
                              const void *a, int64_t lda, const void *a_scale, gk_format btype,
                              const void *b, int64_t ldb, const void *b_scale, gk_scaling scaling,
                              float beta, gk_format ctype, void *c, int64_t ldc) {
    (void)ctx, (void)layout, (void)transa, (void)transb, (void)m, (void)n, (void)k, (void)alpha;
    (void)atype, (void)a, (void)lda, (void)a_scale, (void)btype, (void)b, (void)ldb, (void)b_scale;
    (void)scaling, (void)beta, (void)ctype, (void)c, (void)ldc;
    return not_built("gk_cuda_gemm_scaled");
}
gk_status gk_cuda_nccl_version(int *version) {
    if (version) *version = 0;
    return not_built("gk_cuda_nccl_version");
}
gk_status gk_cuda_dist_range(int64_t n, int parts, int index, int64_t *first, int64_t *count) {
    (void)n, (void)parts, (void)index, (void)first, (void)count;
    return not_built("gk_cuda_dist_range");
}
gk_status gk_cuda_dist_unique_id(void *id) {
    (void)id;
    return not_built("gk_cuda_dist_unique_id");
}
gk_status gk_cuda_dist_create(gk_cuda_dist **dist, int p, int q, int rank, const void *id,
                              int device) {
    (void)p, (void)q, (void)rank, (void)id, (void)device;
    if (dist) *dist = NULL;
    return not_built("gk_cuda_dist_create");
}
gk_status gk_cuda_dist_create_all(gk_cuda_dist **dists, int p, int q, const int *devices) {
    (void)dists, (void)p, (void)q, (void)devices;
    return not_built("gk_cuda_dist_create_all");
}
gk_status gk_cuda_dist_destroy(gk_cuda_dist *dist) {
    (void)dist;
    return not_built("gk_cuda_dist_destroy");
}
gk_status gk_cuda_dist_info_get(const gk_cuda_dist *dist, gk_cuda_dist_info *info) {
    (void)dist, (void)info;
    return not_built("gk_cuda_dist_info_get");
}
gk_status gk_cuda_dist_set_panel(gk_cuda_dist *dist, int64_t width) {
    (void)dist, (void)width;
    return not_built("gk_cuda_dist_set_panel");
}
gk_status gk_cuda_dist_sgemm(gk_cuda_dist *dist, gk_layout layout, gk_trans transa, gk_trans transb,
                             int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                             int64_t lda, const float *b, int64_t ldb, float beta, float *c,
                             int64_t ldc) {
    (void)dist, (void)layout, (void)transa, (void)transb, (void)m, (void)n, (void)k, (void)alpha;
    (void)a, (void)lda, (void)b, (void)ldb, (void)beta, (void)c, (void)ldc;
    return not_built("gk_cuda_dist_sgemm");
}
