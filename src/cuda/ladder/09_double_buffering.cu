/*
 * 09_double_buffering.cu — ladder step 9: the step 8 kernel (128x128x8 block tile, 32x64 warp
 * tiles, 8x8 outputs per lane, padded transposed A tile, float4 traffic) with the tile pipeline
 * restructured so loads overlap math.
 *
 * What it adds over step 8: two shared-memory buffers per operand. While the warps compute on
 * tile t from one buffer, each thread already has the global loads of tile t+1 in flight into
 * registers; after its math it writes them to the other buffer. A buffer is rewritten only after
 * the barrier that ends the math reading it, so one __syncthreads per K step suffices (step 8
 * needs two, and its global-load latency is exposed before every tile's math).
 */
#include "cuda/ladder/ladder.h"
#include "cuda/gemm/copy.cuh"
#include "cuda/gemm/epilogue.cuh"
#include "cuda/gemm/util.cuh"

namespace {

constexpr int BM = 128, BN = 128, BK = 8;
constexpr int WM = 32, WN = 64;                           /* warp tile */
constexpr int LANES_M = 4, LANES_N = 8;                   /* lane grid inside a warp */
constexpr int TS = 4;                                     /* a lane's sub-tile is TS x TS */
constexpr int SUB_M = LANES_M * TS, SUB_N = LANES_N * TS; /* warp sub-tile: 16 x 32 */
constexpr int ITER_M = WM / SUB_M, ITER_N = WN / SUB_N;   /* 2 x 2 sub-tiles per lane */
constexpr int TM = ITER_M * TS, TN = ITER_N * TS;         /* 8 x 8 outputs per lane */
constexpr int WARPS_N = BN / WN;
constexpr int THREADS = 32 * (BM / WM) * WARPS_N; /* 256 */
constexpr int A_PAD = 4;
static_assert(LANES_M * LANES_N == 32, "a lane grid is one warp");
static_assert(BM * BK == 4 * THREADS && BK * BN == 4 * THREADS, "one float4 of A and B each");

template <bool VEC>
__global__ void __launch_bounds__(THREADS, 2) double_buffering_kernel(gk_rm_problem p) {
    alignas(16) __shared__ float as[2][BK][BM + A_PAD]; /* A tiles transposed: [k][row of C] */
    alignas(16) __shared__ float bs[2][BK][BN];         /* [k][column of C] */

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int64_t row0 = (int64_t)blockIdx.y * BM, col0 = (int64_t)blockIdx.x * BN;
    const int mr = (int)min(p.m - row0, (int64_t)BM), nr = (int)min(p.n - col0, (int64_t)BN);
    const int tr = (warp / WARPS_N) * WM + (lane / LANES_N) * TS;
    const int tc = (warp % WARPS_N) * WN + (lane % LANES_N) * TS;
    /* The next tile is fetched into registers (stage.va/vb) and later stashed into a buffer. */
    gk_vec_tile_stage<BM, BN, BK, VEC> stage(p, row0, col0, mr, nr, tid);

    float acc[TM][TN] = {};
    stage.fetch();
    stage.stash(as[0], bs[0]);
    __syncthreads();
    int buf = 0;
    for (int64_t k0 = 0; k0 < p.k; k0 += BK, buf ^= 1) {
        const bool more = k0 + BK < p.k;
        if (more) stage.fetch(); /* in flight during the math below */
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            alignas(16) float fa[TM];
            alignas(16) float fb[TN];
#pragma unroll
            for (int mi = 0; mi < ITER_M; ++mi)
                *reinterpret_cast<float4 *>(&fa[mi * TS]) =
                    *reinterpret_cast<const float4 *>(&as[buf][kk][tr + mi * SUB_M]);
#pragma unroll
            for (int ni = 0; ni < ITER_N; ++ni)
                *reinterpret_cast<float4 *>(&fb[ni * TS]) =
                    *reinterpret_cast<const float4 *>(&bs[buf][kk][tc + ni * SUB_N]);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] += fa[i] * fb[j];
        }
        /* buf ^ 1 was last read before the previous barrier, so it is free to overwrite. */
        if (more) stage.stash(as[buf ^ 1], bs[buf ^ 1]);
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int r = tr + (i / TS) * SUB_M + i % TS;
        if (r >= mr) continue;
        float *c = p.c + (row0 + r) * p.ldc + col0;
#pragma unroll
        for (int ni = 0; ni < ITER_N; ++ni) {
            const float *v = &acc[i][ni * TS];
            gk_store4<VEC>(c, tc + ni * SUB_N, nr, make_float4(v[0], v[1], v[2], v[3]), p.alpha,
                           p.beta);
        }
    }
}

} // namespace

cudaError_t gk_ladder_09_double_buffering(const gk_rm_problem &p, const gk_launch_env &env) {
    return gk_for_row_chunks(p, BM, [&](const gk_rm_problem &q) {
        const dim3 grid((unsigned)gk_ceil_div(q.n, BN), (unsigned)gk_ceil_div(q.m, BM));
        if (gk_vec_ok(q))
            double_buffering_kernel<true><<<grid, THREADS, 0, env.stream>>>(q);
        else
            double_buffering_kernel<false><<<grid, THREADS, 0, env.stream>>>(q);
        return cudaGetLastError();
    });
}
