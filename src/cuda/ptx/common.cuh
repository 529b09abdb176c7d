/*
 * common.cuh — small device helpers shared by the SGEMM ladder kernels: ceil-division, the
 * guarded alpha/beta epilogue (never reads C when beta == 0) and bounds-checked loads that use a
 * single 16-byte access only when the caller has proven alignment.
 *
 * Vector policy: a kernel instantiated with VEC = true promises that the matrix base pointer is
 * 16-byte aligned and its leading dimension is a multiple of 4, so every row starts 16-byte
 * aligned and any column index that is a multiple of 4 is a legal float4 address. The launcher
 * checks that with gk_vec_ok() on the host; the helpers below still fall back to scalar accesses
 * for the part of a vector that runs past the matrix edge.
 */
#ifndef GK_CUDA_PTX_COMMON_CUH
#define GK_CUDA_PTX_COMMON_CUH

#include <cuda_runtime.h>
#include <stdint.h>

/* Host and device: number of `b`-sized pieces covering `a` (a >= 0, b > 0). */
__host__ __device__ __forceinline__ int64_t gk_ceil_div(int64_t a, int64_t b) {
    return (a + b - 1) / b;
}

/* Host: may rows of this matrix be read or written as float4? */
static inline bool gk_vec_ok(const void *ptr, int64_t ld) {
    return ((uintptr_t)ptr % 16u) == 0 && ld % 4 == 0;
}

/* C[idx] = alpha * acc + beta * C[idx]; with beta == 0 C is not read, so NaN/Inf already in C
 * cannot leak into the result (BLAS semantics). */
__device__ __forceinline__ void gk_store(float *c, int64_t idx, float acc, float alpha,
                                         float beta) {
    if (beta == 0.0f)
        c[idx] = alpha * acc;
    else
        c[idx] = alpha * acc + beta * c[idx];
}

/* Element `col` of a row, 0 when col >= ncols (edge tiles contribute nothing to the sum). */
__device__ __forceinline__ float gk_load1(const float *row, int64_t col, int64_t ncols) {
    return col < ncols ? row[col] : 0.0f;
}

/* Elements col..col+3 of a row, zero-filled past ncols. With VEC, col must be a multiple of 4;
 * a fully in-range vector is then one 16-byte load. */
template <bool VEC>
__device__ __forceinline__ float4 gk_load4(const float *row, int64_t col, int64_t ncols) {
    if (VEC && col + 4 <= ncols) return *reinterpret_cast<const float4 *>(row + col);
    return make_float4(gk_load1(row, col, ncols), gk_load1(row, col + 1, ncols),
                       gk_load1(row, col + 2, ncols), gk_load1(row, col + 3, ncols));
}

/* Epilogue for four consecutive outputs row[col..col+3]; columns >= ncols are skipped. With VEC
 * (col a multiple of 4) an in-range group is one 16-byte store (plus one load when beta != 0). */
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

#endif
