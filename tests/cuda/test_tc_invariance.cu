/*
 * test_tc_invariance.cu — determinism and batch invariance of the tensor-core path through the
 * public entry point gk_cuda_gemm_ex (docs/cuda.md, "Shapes: swap, narrow tiles, K chunks"):
 *   - run to run: the same call twice gives the same bits;
 *   - batch invariance: the rows of an M = 4096 product (C = A W^T, the layout of a linear layer,
 *     and a column-major C = A B) are bit for bit the rows of the products of M = 1, 3, 16, 100
 *     and 1000 rows of the same A, taken at the start and at the end of A (a row's bits depend
 *     neither on M nor on its position).
 * The launcher picks different plans for those M (swapped operands and narrow tiles for a few
 * rows, K chunks split over CTAs for few tiles, whole tiles for many), so this checks the design
 * of src/cuda/hopper/sm90_plan.h end to end. A few sampled elements of each M = 4096 product are
 * checked against a float64 reference (the rule of test_gemm_ex.cu, loosely: 1e-2 relative to
 * sum |a b|) so that equal bits are not equal garbage. Without an sm_90 device every case skips.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "check.h"
#include "gemmkit.h"

static int g_sm;
static gk_cuda_ctx *g_ctx;

/* Random values in [-1, 1) stored in format f (a hash of the index). */
__global__ void fill(void *dst, gk_format f, int64_t n, uint32_t seed) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        uint32_t h = (uint32_t)i * 2654435761u ^ seed;
        h ^= h >> 16, h *= 0x7feb352du, h ^= h >> 15, h *= 0x846ca68bu, h ^= h >> 16;
        const float x = (float)(h >> 8) * (1.0f / 8388608.0f) - 1.0f;
        if (f == GK_BF16)
            ((__nv_bfloat16 *)dst)[i] = __float2bfloat16_rn(x);
        else if (f == GK_F16)
            ((__half *)dst)[i] = __float2half_rn(x);
        else if (f == GK_F8_E4M3FN)
            ((__nv_fp8_e4m3 *)dst)[i] = __nv_fp8_e4m3(x * 8.0f);
        else
            ((float *)dst)[i] = x;
    }
}

static int esize(gk_format f) {
    return f == GK_F32 || f == GK_TF32 ? 4 : f == GK_BF16 || f == GK_F16 ? 2 : 1;
}

/* One element of format f as a double (host). */
static double value(gk_format f, const uint8_t *p) {
    if (f == GK_BF16) {
        uint32_t u = (uint32_t)(*(const uint16_t *)p) << 16;
        float x;
        memcpy(&x, &u, 4);
        return x;
    }
    if (f == GK_F16) return (double)__half2float(*(const __half *)p);
    if (f == GK_F8_E4M3FN) return (double)(float)*(const __nv_fp8_e4m3 *)p;
    float x;
    memcpy(&x, p, 4);
    if (f == GK_TF32) { /* the tensor core reads the top 19 bits */
        uint32_t u;
        memcpy(&u, &x, 4);
        u &= 0xffffe000u;
        memcpy(&x, &u, 4);
    }
    return x;
}

struct inv_case {
    gk_format t, tc;
    gk_layout layout; /* row: C = A W^T (W n x k); col: C = A B, A m x k and B k x n */
    int64_t n, k;
};
static inv_case g_c;

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        T_REQUIRE(e_ == cudaSuccess, "%s: %s", #call, cudaGetErrorString(e_));                     \
    } while (0)
#define GK(call)                                                                                   \
    do {                                                                                           \
        gk_status s_ = (call);                                                                     \
        T_REQUIRE(s_ == GK_SUCCESS, "%s: %s", #call, gk_last_error());                             \
    } while (0)

static void run_invariance(void) {
    if (g_sm != 90 || !g_ctx) T_SKIP("needs an sm_90 device (found %d)", g_sm);
    const inv_case &c = g_c;
    const int64_t M0 = 4096, n = c.n, k = c.k;
    const int eb = esize(c.t), cb = esize(c.tc);
    const bool row = c.layout == GK_ROW_MAJOR;
    void *a, *b, *cf, *cf2, *cs;
    CK(cudaMalloc(&a, (size_t)(M0 * k * eb)));
    CK(cudaMalloc(&b, (size_t)(n * k * eb)));
    CK(cudaMalloc(&cf, (size_t)(M0 * n * cb)));
    CK(cudaMalloc(&cf2, (size_t)(M0 * n * cb)));
    CK(cudaMalloc(&cs, (size_t)(M0 * n * cb)));
    fill<<<1024, 256>>>(a, c.t, M0 * k, 11u);
    fill<<<1024, 256>>>(b, c.t, n * k, 23u);
    CK(cudaGetLastError());
    float *scales = nullptr;
    gk_gemm_ex_opts opts;
    memset(&opts, 0, sizeof opts);
    if (c.t == GK_F8_E4M3FN) {
        const float s[2] = {0.125f, 0.125f};
        CK(cudaMalloc(&scales, 8));
        CK(cudaMemcpy(scales, s, 8, cudaMemcpyHostToDevice));
        opts.scale_a = scales, opts.scale_b = scales + 1;
    }
    /* row: A (M x k, lda k), W (n x k, ldb k), C (M x n, ldc n), transb = T.
     * col: A (M x k, lda M0: a block of rows of the full A), B (k x n, ldb k), C (ldc M). */
    auto call = [&](int64_t off, int64_t m, void *cdst) -> gk_status {
        if (row)
            return gk_cuda_gemm_ex(g_ctx, GK_ROW_MAJOR, GK_NO_TRANS, GK_TRANS, m, n, k, 1.0f, c.t,
                                   (const uint8_t *)a + off * k * eb, k, c.t, b, k, 0.0f, c.tc,
                                   cdst, n, &opts);
        return gk_cuda_gemm_ex(g_ctx, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, m, n, k, 1.0f, c.t,
                               (const uint8_t *)a + off * eb, M0, c.t, b, k, 0.0f, c.tc, cdst, m,
                               &opts);
    };
    GK(call(0, M0, cf));
    GK(call(0, M0, cf2));
    CK(cudaDeviceSynchronize());
    std::vector<uint8_t> full((size_t)(M0 * n * cb)), again(full.size());
    CK(cudaMemcpy(full.data(), cf, full.size(), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(again.data(), cf2, again.size(), cudaMemcpyDeviceToHost));
    T_CHECK(full == again, "two identical calls gave different bits");

    /* sampled elements against float64 */
    std::vector<uint8_t> ha((size_t)(M0 * k * eb)), hb((size_t)(n * k * eb));
    CK(cudaMemcpy(ha.data(), a, ha.size(), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hb.data(), b, hb.size(), cudaMemcpyDeviceToHost));
    const double sab = c.t == GK_F8_E4M3FN ? 0.125 * 0.125 : 1.0;
    for (int s = 0; s < 16; ++s) {
        const int64_t i = (s * 997) % M0, j = (s * 131) % n;
        double ref = 0, mag = 0;
        for (int64_t kk = 0; kk < k; ++kk) {
            const double x = value(c.t, &ha[(size_t)((row ? i * k + kk : kk * M0 + i) * eb)]);
            const double y = value(c.t, &hb[(size_t)((row ? j * k + kk : j * k + kk) * eb)]);
            ref += x * y, mag += fabs(x * y);
        }
        ref *= sab, mag *= sab;
        const int64_t idx = row ? i * n + j : j * M0 + i;
        const double got = value(c.tc == GK_F32 ? GK_F32 : c.tc, &full[(size_t)(idx * cb)]);
        T_REQUIRE(fabs(got - ref) <= 1e-2 * mag + 1e-6, "C(%lld,%lld) = %g, reference %g",
                  (long long)i, (long long)j, got, ref);
    }

    /* every M, at both ends of A */
    std::vector<uint8_t> part;
    for (int64_t m : {1, 3, 16, 100, 1000})
        for (int64_t off : {(int64_t)0, M0 - m}) {
            CK(cudaMemset(cs, 0xff, (size_t)(m * n * cb)));
            GK(call(off, m, cs));
            part.resize((size_t)(m * n * cb));
            CK(cudaMemcpy(part.data(), cs, part.size(), cudaMemcpyDeviceToHost));
            int64_t bad = 0;
            for (int64_t i = 0; i < m; ++i)
                for (int64_t j = 0; j < n; ++j) {
                    const int64_t pi = row ? i * n + j : j * m + i;
                    const int64_t fi = row ? (off + i) * n + j : j * M0 + off + i;
                    bad += memcmp(&part[(size_t)(pi * cb)], &full[(size_t)(fi * cb)], cb) != 0;
                }
            T_CHECK(bad == 0, "M = %lld at row %lld: %lld elements differ from the M = 4096 rows",
                    (long long)m, (long long)off, (long long)bad);
        }
    cudaFree(a), cudaFree(b), cudaFree(cf), cudaFree(cf2), cudaFree(cs), cudaFree(scales);
}

static const char *tname(gk_format f) {
    return f == GK_BF16        ? "bf16"
           : f == GK_F16       ? "f16"
           : f == GK_TF32      ? "tf32"
           : f == GK_F8_E4M3FN ? "e4m3"
                               : "f32";
}

int main(void) {
    int dev = 0;
    cudaDeviceProp prop;
    if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess)
        g_sm = prop.major * 10 + prop.minor;
    cudaGetLastError();
    if (g_sm == 90 && gk_cuda_create(&g_ctx, dev, NULL) != GK_SUCCESS) g_ctx = NULL;
    const inv_case cases[] = {
        {GK_BF16, GK_F32, GK_ROW_MAJOR, 2112,
         7168}, /* few weight rows, long K: split-K at small M */
        {GK_BF16, GK_BF16, GK_ROW_MAJOR, 4096, 4096},
        {GK_F16, GK_F32, GK_ROW_MAJOR, 1000, 3000}, /* sizes off every tile */
        {GK_TF32, GK_F32, GK_ROW_MAJOR, 4096, 4096},
        {GK_F8_E4M3FN, GK_BF16, GK_ROW_MAJOR, 2112, 7168},
        {GK_BF16, GK_F32, GK_COL_MAJOR, 1536, 5120}, /* the batch on the kernel's N side */
    };
    for (const inv_case &c : cases) {
        char name[128];
        snprintf(name, sizeof name, "tc_invariance_%s_%s_%s_n%lld_k%lld", tname(c.t), tname(c.tc),
                 c.layout == GK_ROW_MAJOR ? "row_tn" : "col_nn", (long long)c.n, (long long)c.k);
        g_c = c;
        t_run(name, run_invariance);
    }
    if (g_ctx) gk_cuda_destroy(g_ctx);
    return t_finish();
}
