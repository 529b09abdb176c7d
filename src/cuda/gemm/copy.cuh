/*
 * copy.cuh — global -> shared tile loads staged through registers: bounds-checked scalar and
 * float4 loads, and the float4 staging of a BM x BK tile of A and a BK x BN tile of B that ladder
 * steps 6-9 share. The asynchronous (cp.async) copies of the pipelined kernels are in
 * copy_async.cuh. Plain CUDA C++ (no inline PTX), so the host emulation of the ladder tests
 * compiles it; the vector policy is util.cuh's.
 */
#ifndef GK_CUDA_GEMM_COPY_CUH
#define GK_CUDA_GEMM_COPY_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda/gemm/kernel.cuh"

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
