/*
 * 07_bank_conflict_free.cu — ladder step 7: step 6 with its two shared-memory bank conflicts
 * removed. Same 128x128x8 block tile, float4 traffic and 8x8 outputs per thread.
 *
 * What it adds over step 6:
 *   - The transposed A tile is padded from 128 to 132 floats per k row. A warp stores one k row
 *     for 16 rows of A from two k groups 4 apart; unpadded, those land 4*128 floats apart, the
 *     same bank (2-way conflict); with the pad the second group is shifted by 16 banks.
 *   - A thread's 8x8 outputs are split into four 4x4 quadrants 64 rows / 64 columns apart, so
 *     the 16 threads along a row read 16 consecutive float4 of the B tile (each quarter-warp one
 *     contiguous 128-byte line) instead of float4s 32 bytes apart (2-way conflict). The same split
 *     makes a warp's C stores 256-byte contiguous runs.
 * The pad keeps every row 16-byte aligned (132 * 4 bytes = 33 * 16), so LDS.128 still applies.
 */
#include "cuda/ladder/ladder.h"
#include "cuda/gemm/copy.cuh"
#include "cuda/gemm/epilogue.cuh"
#include "cuda/gemm/util.cuh"

namespace {

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr int THREADS = (BM / TM) * (BN / TN); /* 256 */
constexpr int A_PAD = 4;                       /* floats added to each k row of the A tile */
static_assert(BM * BK == 4 * THREADS && BK * BN == 4 * THREADS, "one float4 of A and B each");

/* Row (column) of the block tile holding fragment element i of thread t (0..15 along M or N):
 * element i lives in quadrant i / 4, which starts half a tile further. */
__device__ __forceinline__ int frag_pos(int t, int i, int half) {
    return (i / 4) * half + t * 4 + i % 4;
}

template <bool VEC>
__global__ void __launch_bounds__(THREADS, 2) bank_conflict_free_kernel(gk_rm_problem p) {
    alignas(16) __shared__ float as[BK][BM + A_PAD]; /* A tile transposed: [k][row of C] */
    alignas(16) __shared__ float bs[BK][BN];         /* [k][column of C] */

    const int tid = threadIdx.x;
    const int64_t row0 = (int64_t)blockIdx.y * BM, col0 = (int64_t)blockIdx.x * BN;
    const int mr = (int)min(p.m - row0, (int64_t)BM), nr = (int)min(p.n - col0, (int64_t)BN);
    const int ty = tid / (BN / TN), tx = tid % (BN / TN);
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
                    *reinterpret_cast<const float4 *>(&as[kk][frag_pos(ty, i, BM / 2)]);
#pragma unroll
            for (int j = 0; j < TN; j += 4)
                *reinterpret_cast<float4 *>(&fb[j]) =
                    *reinterpret_cast<const float4 *>(&bs[kk][frag_pos(tx, j, BN / 2)]);
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
        const int r = frag_pos(ty, i, BM / 2);
        if (r >= mr) continue;
        float *c = p.c + (row0 + r) * p.ldc + col0;
#pragma unroll
        for (int j = 0; j < TN; j += 4)
            gk_store4<VEC>(c, frag_pos(tx, j, BN / 2), nr,
                           make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]),
                           p.alpha, p.beta);
    }
}

} // namespace

cudaError_t gk_ladder_07_bank_conflict_free(const gk_rm_problem &p, const gk_launch_env &env) {
    return gk_for_row_chunks(p, BM, [&](const gk_rm_problem &q) {
        const dim3 grid((unsigned)gk_ceil_div(q.n, BN), (unsigned)gk_ceil_div(q.m, BM));
        if (gk_vec_ok(q))
            bank_conflict_free_kernel<true><<<grid, THREADS, 0, env.stream>>>(q);
        else
            bank_conflict_free_kernel<false><<<grid, THREADS, 0, env.stream>>>(q);
        return cudaGetLastError();
    });
}
