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

#include "cuda/ladder/ladder.cuh"

/* Host and device: number of `b`-sized pieces covering `a` (a >= 0, b > 0). */
__host__ __device__ __forceinline__ int64_t gk_ceil_div(int64_t a, int64_t b) {
    return (a + b - 1) / b;
}

/* Host: may rows of this matrix be read or written as float4? */
static inline bool gk_vec_ok(const void *ptr, int64_t ld) {
    return ((uintptr_t)ptr % 16u) == 0 && ld % 4 == 0;
}

/* Host: run `launch(sub)` on consecutive row slices of p small enough that the row-tile count
 * fits gridDim.y (65535) when each block covers `tile_rows` rows. Kernels put row tiles on y and
 * column tiles on x (2^31 - 1 blocks), so only rows ever need splitting. Returns the first error.
 */
template <class F>
static inline cudaError_t gk_for_row_chunks(const gk_rm_problem &p, int64_t tile_rows, F launch) {
    const int64_t max_rows = 65535 * tile_rows;
    gk_rm_problem q = p;
    for (int64_t r0 = 0; r0 < p.m; r0 += max_rows) {
        q.m = p.m - r0 < max_rows ? p.m - r0 : max_rows;
        q.a = p.a + r0 * p.lda;
        q.c = p.c + r0 * p.ldc;
        const cudaError_t e = launch(q);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

/* Host: may all three matrices of a (row slice of a) problem use 16-byte accesses? */
static inline bool gk_vec_ok(const gk_rm_problem &p) {
    return gk_vec_ok(p.a, p.lda) && gk_vec_ok(p.b, p.ldb) && gk_vec_ok(p.c, p.ldc);
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
