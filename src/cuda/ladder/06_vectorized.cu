/*
 * 06_vectorized.cu — ladder step 6: 16-byte accesses everywhere. Same 128x128x8 block tile and
 * 8x8 outputs per thread as step 5, but each thread fetches its part of the A and B tiles with one
 * float4 load each, the A tile is stored transposed in shared memory (k-major), and the register
 * fragments are read with float4 shared loads; C is written with float4 stores.
 *
 * What it adds over step 5: 4x fewer global load and store instructions, and since the transposed
 * A tile makes a thread's 8 A values contiguous, 4 LDS.128 replace 16 LDS.32 per k. Vector paths
 * need proven alignment: the launcher picks VEC = true only when A, B and C start 16-byte aligned
 * and lda, ldb, ldc are multiples of 4; otherwise (and for partial vectors at the edges) the same
 * kernel uses scalar accesses. Known leftovers, fixed in step 7: the transposed stores of A
 * conflict 2-way, and so do the B fragment reads (a thread's 8 columns are 32 bytes apart from
 * its neighbour's, so a quarter-warp spans 256 bytes).
 */
#include "cuda/ladder/ladder.h"
#include "cuda/gemm/copy.cuh"
#include "cuda/gemm/epilogue.cuh"
#include "cuda/gemm/util.cuh"

namespace {

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr int THREADS = (BM / TM) * (BN / TN); /* 256 */
static_assert(BM * BK == 4 * THREADS && BK * BN == 4 * THREADS, "one float4 of A and B each");

template <bool VEC>
__global__ void __launch_bounds__(THREADS, 2) vectorized_kernel(gk_rm_problem p) {
    alignas(16) __shared__ float as[BK][BM]; /* A tile transposed: [k][row of C] */
    alignas(16) __shared__ float bs[BK][BN]; /* [k][column of C] */

    const int tid = threadIdx.x;
    const int64_t row0 = (int64_t)blockIdx.y * BM, col0 = (int64_t)blockIdx.x * BN;
    const int mr = (int)min(p.m - row0, (int64_t)BM), nr = (int)min(p.n - col0, (int64_t)BN);
    const int tr = (tid / (BN / TN)) * TM, tc = (tid % (BN / TN)) * TN;
    /* Staging map (gk_vec_tile_stage): each thread moves 4 K elements of one A row and 4 columns
     * of one B row per tile; a warp reads one 512-byte row segment of B. */
    gk_vec_tile_stage<BM, BN, BK, VEC> stage(p, row0, col0, mr, nr, tid);

    float acc[TM][TN] = {};
    for (int64_t k0 = 0; k0 < p.k; k0 += BK) {
        stage.fetch();
        stage.stash(as, bs);
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            alignas(16) float fa[TM];
            alignas(16) float fb[TN];
#pragma unroll
            for (int i = 0; i < TM; i += 4)
                *reinterpret_cast<float4 *>(&fa[i]) =
                    *reinterpret_cast<const float4 *>(&as[kk][tr + i]);
#pragma unroll
            for (int j = 0; j < TN; j += 4)
                *reinterpret_cast<float4 *>(&fb[j]) =
                    *reinterpret_cast<const float4 *>(&bs[kk][tc + j]);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] += fa[i] * fb[j];
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        if (tr + i >= mr) break;
        float *c = p.c + (row0 + tr + i) * p.ldc + col0;
#pragma unroll
        for (int j = 0; j < TN; j += 4)
            gk_store4<VEC>(c, tc + j, nr,
                           make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]),
                           p.alpha, p.beta);
    }
}

} // namespace

cudaError_t gk_ladder_06_vectorized(const gk_rm_problem &p, const gk_launch_env &env) {
    return gk_for_row_chunks(p, BM, [&](const gk_rm_problem &q) {
        const dim3 grid((unsigned)gk_ceil_div(q.n, BN), (unsigned)gk_ceil_div(q.m, BM));
        if (gk_vec_ok(q))
            vectorized_kernel<true><<<grid, THREADS, 0, env.stream>>>(q);
        else
            vectorized_kernel<false><<<grid, THREADS, 0, env.stream>>>(q);
        return cudaGetLastError();
    });
}
