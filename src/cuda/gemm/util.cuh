/*
 * util.cuh — small helpers every kernel's launcher uses: ceil-division, the test that decides
 * whether a matrix may be accessed as float4, and the row slicing that keeps a 2-D grid within
 * gridDim.y. Plain CUDA C++ (no inline PTX), so the host emulation of the ladder tests compiles it.
 *
 * Vector policy: a kernel instantiated for 16-byte accesses (VEC = true) relies on the matrix base
 * pointer being 16-byte aligned and its leading dimension a multiple of 4, so every row starts
 * 16-byte aligned and any column index that is a multiple of 4 is a legal float4 address. The
 * launcher checks that with gk_vec_ok() on the host; device helpers (copy.cuh, epilogue.cuh) still
 * fall back to scalar accesses for the part of a vector that runs past the matrix edge.
 */
#ifndef GK_CUDA_GEMM_UTIL_CUH
#define GK_CUDA_GEMM_UTIL_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda/gemm/kernel.cuh"

/* Host and device: number of `b`-sized pieces covering `a` (a >= 0, b > 0). */
__host__ __device__ __forceinline__ int64_t gk_ceil_div(int64_t a, int64_t b) {
    return (a + b - 1) / b;
}

/* Host: may rows of this matrix be read or written as float4? */
static inline bool gk_vec_ok(const void *ptr, int64_t ld) {
    return ((uintptr_t)ptr % 16u) == 0 && ld % 4 == 0;
}

/* Host: may all three matrices of a (row slice of a) problem use 16-byte accesses? */
static inline bool gk_vec_ok(const gk_rm_problem &p) {
    return gk_vec_ok(p.a, p.lda) && gk_vec_ok(p.b, p.ldb) && gk_vec_ok(p.c, p.ldc);
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

#endif
