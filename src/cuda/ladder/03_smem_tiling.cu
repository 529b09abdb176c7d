/*
 * 03_smem_tiling.cu — ladder step 3: shared-memory blocking. Each 32x32 block of threads walks
 * the K dimension in 32-wide steps, first copying a 32x32 tile of A and of B into shared memory
 * (one element per thread, coalesced), then computing from the tiles.
 *
 * What it adds over step 2: every value fetched from global memory is reused by 32 threads out of
 * shared memory, so global traffic drops by the tile width. Reads of the A tile are broadcasts
 * (one row per warp) and reads of the B tile hit 32 distinct banks. Still one output per thread,
 * so each FMA costs two shared-memory loads: that is what step 4 attacks.
 */
#include "cuda/ladder/ladder.h"
#include "cuda/gemm/epilogue.cuh"
#include "cuda/gemm/util.cuh"

namespace {

constexpr int TILE = 32; /* block tile TILE x TILE of C, K step TILE, TILE x TILE threads */

__global__ void __launch_bounds__(TILE *TILE) smem_tiling_kernel(gk_rm_problem p) {
    __shared__ float as[TILE][TILE]; /* [row of C][k] */
    __shared__ float bs[TILE][TILE]; /* [k][column of C] */

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t row0 = (int64_t)blockIdx.y * TILE, col0 = (int64_t)blockIdx.x * TILE;
    const bool row_ok = row0 + ty < p.m, col_ok = col0 + tx < p.n;
    /* This thread loads A[row0+ty][k0+tx] and B[k0+ty][col0+tx]; the pointers advance with k0. */
    const float *a = p.a + (row_ok ? (row0 + ty) * p.lda : 0);
    const float *b = p.b + col0 + tx;

    float acc = 0.0f;
    for (int64_t k0 = 0; k0 < p.k; k0 += TILE) {
        const bool ka = k0 + tx < p.k, kb = k0 + ty < p.k;
        as[ty][tx] = row_ok && ka ? a[k0 + tx] : 0.0f;
        bs[ty][tx] = col_ok && kb ? b[(k0 + ty) * p.ldb] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < TILE; ++kk)
            acc += as[ty][kk] * bs[kk][tx];
        __syncthreads(); /* the next iteration overwrites the tiles */
    }
    if (row_ok && col_ok) gk_store(p.c, (row0 + ty) * p.ldc + col0 + tx, acc, p.alpha, p.beta);
}

} // namespace

cudaError_t gk_ladder_03_smem_tiling(const gk_rm_problem &p, const gk_launch_env &env) {
    return gk_for_row_chunks(p, TILE, [&](const gk_rm_problem &q) {
        const dim3 grid((unsigned)gk_ceil_div(q.n, TILE), (unsigned)gk_ceil_div(q.m, TILE));
        const dim3 block(TILE, TILE);
        smem_tiling_kernel<<<grid, block, 0, env.stream>>>(q);
        return cudaGetLastError();
    });
}
