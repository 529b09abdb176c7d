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

/* Global -> shared staging of ladder steps 6-9. For each BK-deep tile every thread moves one
 * float4 of A (4 consecutive K elements of one row of C's block, stored transposed so the shared
 * tile is as[k][row]) and one float4 of B (4 consecutive columns of one K row). Parts outside the
 * matrices are zeros. fetch() reads the next tile into registers and advances; stash() writes
 * them to shared memory; step 9 separates the two to overlap the fetch with its math, steps 6-8
 * call them back to back. */
template <int BM, int BN, int BK, bool VEC> struct gk_vec_tile_stage {
    static_assert(BK % 4 == 0 && BN % 4 == 0, "float4 segments along K (A) and N (B)");
    int la_r, la_c, lb_r, lb_c, nr;
    bool la_ok;
    const float *a, *b;
    int64_t k_left, b_tile;
    float4 va, vb;

    /* Block origin (row0, col0) with mr x nr of C inside the matrix; tid in 0 .. BM*BK/4 - 1. */
    __device__ gk_vec_tile_stage(const gk_rm_problem &p, int64_t row0, int64_t col0, int mr,
                                 int nr_, int tid)
        : la_r(tid / (BK / 4)), la_c((tid % (BK / 4)) * 4), lb_r(tid / (BN / 4)),
          lb_c((tid % (BN / 4)) * 4), nr(nr_), la_ok(tid / (BK / 4) < mr),
          a(p.a + (tid / (BK / 4) < mr ? (row0 + tid / (BK / 4)) * p.lda : 0)),
          b(p.b + (int64_t)(tid / (BN / 4)) * p.ldb + col0), k_left(p.k), b_tile(BK * p.ldb) {}

    /* Only while K is left (k_left > 0): the next tile into va/vb. */
    __device__ __forceinline__ void fetch() {
        const int kr = (int)(k_left < BK ? k_left : BK); /* K elements in this tile */
        va = la_ok ? gk_load4<VEC>(a, la_c, kr) : make_float4(0, 0, 0, 0);
        vb = lb_r < kr ? gk_load4<VEC>(b, lb_c, nr) : make_float4(0, 0, 0, 0);
        a += BK, b += b_tile, k_left -= BK;
    }

    template <int A_LD>
    __device__ __forceinline__ void stash(float (*as)[A_LD], float (*bs)[BN]) const {
        as[la_c + 0][la_r] = va.x;
        as[la_c + 1][la_r] = va.y;
        as[la_c + 2][la_r] = va.z;
        as[la_c + 3][la_r] = va.w;
        *reinterpret_cast<float4 *>(&bs[lb_r][lb_c]) = vb;
    }
};

#endif
