/*
 * epilogue.cuh — writing results to C: C = alpha * acc + beta * C, with C never read when
 * beta == 0 (so NaN or Inf already in C cannot leak into the result, BLAS semantics) and nothing
 * written outside the m x n block of C. Three levels:
 *   - gk_store / gk_store4: one element / four consecutive elements of a row (every kernel);
 *   - gk_gemm::store_c1 / store_c4: the same at (row, col) of the problem, guarded;
 *   - gk_gemm::epilogue<C>: a whole block tile in the lane layout of the SIMT main loop
 *     (mainloop.cuh).
 * Plain CUDA C++ (no inline PTX), so the host emulation of the ladder tests compiles it.
 */
#ifndef GK_CUDA_GEMM_EPILOGUE_CUH
#define GK_CUDA_GEMM_EPILOGUE_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda/gemm/kernel.cuh"

/* C[idx] = alpha * acc + beta * C[idx]; with beta == 0 C is not read. */
__device__ __forceinline__ void gk_store(float *c, int64_t idx, float acc, float alpha,
                                         float beta) {
    if (beta == 0.0f)
        c[idx] = alpha * acc;
    else
        c[idx] = alpha * acc + beta * c[idx];
}

/* Epilogue for four consecutive outputs row[col..col+3]; columns >= ncols are skipped. With VEC
 * (col a multiple of 4, row 16-byte aligned: util.cuh's vector policy) an in-range group is one
 * 16-byte store (plus one load when beta != 0). */
template <bool VEC>
__device__ __forceinline__ void gk_store4(float *row, int64_t col, int64_t ncols, float4 acc,
                                          float alpha, float beta) {
    if (VEC && col + 4 <= ncols) {
        float4 *p = reinterpret_cast<float4 *>(row + col);
        float4 r = make_float4(alpha * acc.x, alpha * acc.y, alpha * acc.z, alpha * acc.w);
        if (beta != 0.0f) {
            const float4 old = *p;
            r.x += beta * old.x;
            r.y += beta * old.y;
            r.z += beta * old.z;
            r.w += beta * old.w;
        }
        *p = r;
        return;
    }
    const float v[4] = {acc.x, acc.y, acc.z, acc.w};
#pragma unroll
    for (int i = 0; i < 4; ++i)
        if (col + i < ncols) gk_store(row, col + i, v[i], alpha, beta);
}

namespace gk_gemm {

/* C(row, col..col+3) = alpha * v + beta * C for an in-range row and col; 128-bit when vec_c (C
 * allows float4 rows, gk_vec_ok) and the four columns are inside C, guarded scalars otherwise. */
__device__ __forceinline__ void store_c4(const gk_rm_problem &p, int64_t row, int64_t col, float4 v,
                                         bool vec_c) {
    float *c = p.c + row * p.ldc;
    if (vec_c)
        gk_store4<true>(c, col, p.n, v, p.alpha, p.beta);
    else
        gk_store4<false>(c, col, p.n, v, p.alpha, p.beta);
}

/* Guarded scalar form: out-of-range (row, col) are skipped. */
__device__ __forceinline__ void store_c1(const gk_rm_problem &p, int64_t row, int64_t col,
                                         float v) {
    if (row < p.m && col < p.n) gk_store(p.c, row * p.ldc + col, v, p.alpha, p.beta);
}

/* C tile at (m0, n0) = alpha * acc + beta * C, guarded at the edges, for a tile configuration C
 * (tile.cuh). Each lane's TM x TN outputs are the 4x4 blocks of the main loop's fragment layout:
 * lanes form a WTR x WTC grid inside a WM x WN warp tile, 4x4 blocks strided across it. */
template <class C>
__device__ __forceinline__ void epilogue(const gk_rm_problem &p, const int64_t m0, const int64_t n0,
                                         const float (&acc)[C::TM][C::TN], const bool vec_c) {
    constexpr int TM = C::TM, TN = C::TN;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int wm = (warp / (C::BN / C::WN)) * C::WM, wn = (warp % (C::BN / C::WN)) * C::WN;
    const int tr = lane / C::WTC, tc = lane % C::WTC;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int64_t row = m0 + wm + (i / 4) * C::WTR * 4 + tr * 4 + i % 4;
        if (row >= p.m) continue;
#pragma unroll
        for (int j = 0; j < TN / 4; ++j) {
            const int64_t col = n0 + wn + j * C::WTC * 4 + tc * 4;
            if (col < p.n)
                store_c4(p, row, col,
                         make_float4(acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2],
                                     acc[i][4 * j + 3]),
                         vec_c);
        }
    }
}

} // namespace gk_gemm

#endif
