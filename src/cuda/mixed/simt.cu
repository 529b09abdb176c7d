/*
 * simt.cu — the SIMT kernel of the mixed-precision GEMM (mixed.h): float32 FMAs on the CUDA cores
 * for every operand type and major order, any alignment of the element type, on any GPU. The
 * fallback of the tensor-core paths (docs/cuda.md, "Mixed precision"), and the float32 path for
 * calls the SGEMM kernels cannot take (a C of another type, device scales); simple rather than
 * fast.
 *
 * A block computes a 64x64 tile of C, 256 threads with 4x4 outputs each, over K in steps of 16.
 * Each operand tile is read with consecutive threads on consecutive addresses of its contiguous
 * dimension, decoded to float32 (elem.cuh) and stored to shared memory K-outer, so the inner loop
 * reads four consecutive floats of A and of B per k.
 */
#include "cuda/mixed/elem.cuh"
#include "cuda/mixed/mixed.h"

namespace {

constexpr int BM = 64, BN = 64, BK = 16, THREADS = 256, PAD = 4;
constexpr int MAX_GRID_Y = 65535, MAX_GRID_X = 1 << 20;

/* A ROWS x BK tile of operand X (X(r, kk): K-major x[r * ld + kk], MN-major x[kk * ld + r]) into
 * s[kk][r], zero outside rows x k. */
template <int ROWS>
__device__ __forceinline__ void load_tile(float (&s)[BK][ROWS + PAD], const void *x, int64_t ld,
                                          int mn_major, gk_format f, int64_t r0, int64_t rows,
                                          int64_t k0, int64_t k) {
#pragma unroll
    for (int i = 0; i < ROWS * BK / THREADS; ++i) {
        const int e = threadIdx.x + i * THREADS;
        const int r = mn_major ? e % ROWS : e / BK, kk = mn_major ? e / ROWS : e % BK;
        const int64_t row = r0 + r, col = k0 + kk;
        float v = 0.0f;
        if (row < rows && col < k)
            v = gk_mixed::load(x, mn_major ? col * ld + row : row * ld + col, f);
        s[kk][r] = v;
    }
}

__global__ void __launch_bounds__(THREADS) simt_kernel(const gk_tc_problem p) {
    __shared__ float as[BK][BM + PAD], bs[BK][BN + PAD];
    const int tx = threadIdx.x % (BN / 4), ty = threadIdx.x / (BN / 4);
    const int64_t tiles_m = (p.m + BM - 1) / BM, tiles_n = (p.n + BN - 1) / BN;
    const float alpha = gk_mixed::alpha_scaled(p.alpha, p.scale_a, p.scale_b);
    for (int64_t tm = blockIdx.y; tm < tiles_m; tm += gridDim.y)
        for (int64_t tn = blockIdx.x; tn < tiles_n; tn += gridDim.x) {
            const int64_t m0 = tm * BM, n0 = tn * BN;
            float acc[4][4] = {};
            for (int64_t k0 = 0; k0 < p.k; k0 += BK) {
                load_tile<BM>(as, p.a, p.lda, p.a_mn_major, p.ta, m0, p.m, k0, p.k);
                load_tile<BN>(bs, p.b, p.ldb, p.b_mn_major, p.tb, n0, p.n, k0, p.k);
                __syncthreads();
#pragma unroll
                for (int kk = 0; kk < BK; ++kk) {
                    float a[4], b[4];
#pragma unroll
                    for (int i = 0; i < 4; ++i)
                        a[i] = as[kk][ty * 4 + i], b[i] = bs[kk][tx * 4 + i];
#pragma unroll
                    for (int i = 0; i < 4; ++i)
#pragma unroll
                        for (int j = 0; j < 4; ++j)
                            acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
                }
                __syncthreads();
            }
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) {
                    const int64_t row = m0 + ty * 4 + i, col = n0 + tx * 4 + j;
                    if (row < p.m && col < p.n)
                        gk_mixed::store_c(p.c, row * p.ldc + col, p.tc, alpha * acc[i][j], p.beta);
                }
        }
}

} // namespace

cudaError_t gk_simt_gemm(const gk_tc_problem &p, const gk_launch_env &env) {
    const int64_t tiles_m = (p.m + BM - 1) / BM, tiles_n = (p.n + BN - 1) / BN;
    const dim3 grid((unsigned)(tiles_n < MAX_GRID_X ? tiles_n : MAX_GRID_X),
                    (unsigned)(tiles_m < MAX_GRID_Y ? tiles_m : MAX_GRID_Y));
    simt_kernel<<<grid, THREADS, 0, env.stream>>>(p);
    return cudaGetLastError();
}
