/*
 * 08_warp_tiling.cu — ladder step 8: an explicit warp level between the block tile and the
 * thread tile. The 128x128 block tile (K step 8, 256 threads) is split into eight 32x64 warp
 * tiles (4 down, 2 across); inside a warp the 32 lanes form a 4x8 grid, and each lane computes
 * 2x2 sub-tiles of 4x4 outputs spaced 16 rows / 32 columns apart — still 8x8 outputs per thread.
 *
 * What it adds over step 7: a warp's fragments now come from a compact 32x64 footprint, so per k
 * one warp reads 32 A floats and 64 B floats from shared memory (step 7: 16 + 128). Each fragment
 * load is a single conflict-free wavefront: the 8 lanes along N read one contiguous 128-byte line
 * of the B tile, and the 4 lanes along M read 4 float4 of the A tile that the other lanes share by
 * broadcast. A warp's C stores become full 128-byte lines. Tile loads, the padded transposed A
 * tile and the VEC/scalar paths are unchanged from step 7.
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
__global__ void __launch_bounds__(THREADS, 2) warp_tiling_kernel(gk_rm_problem p) {
    alignas(16) __shared__ float as[BK][BM + A_PAD]; /* A tile transposed: [k][row of C] */
    alignas(16) __shared__ float bs[BK][BN];         /* [k][column of C] */

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int64_t row0 = (int64_t)blockIdx.y * BM, col0 = (int64_t)blockIdx.x * BN;
    const int mr = (int)min(p.m - row0, (int64_t)BM), nr = (int)min(p.n - col0, (int64_t)BN);
    /* First row / column of this lane's first sub-tile; sub-tile (mi, ni) is SUB_M*mi rows and
     * SUB_N*ni columns further. */
    const int tr = (warp / WARPS_N) * WM + (lane / LANES_N) * TS;
    const int tc = (warp % WARPS_N) * WN + (lane % LANES_N) * TS;
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
            for (int mi = 0; mi < ITER_M; ++mi)
                *reinterpret_cast<float4 *>(&fa[mi * TS]) =
                    *reinterpret_cast<const float4 *>(&as[kk][tr + mi * SUB_M]);
#pragma unroll
            for (int ni = 0; ni < ITER_N; ++ni)
                *reinterpret_cast<float4 *>(&fb[ni * TS]) =
                    *reinterpret_cast<const float4 *>(&bs[kk][tc + ni * SUB_N]);
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

cudaError_t gk_ladder_08_warp_tiling(const gk_rm_problem &p, const gk_launch_env &env) {
    return gk_for_row_chunks(p, BM, [&](const gk_rm_problem &q) {
        const dim3 grid((unsigned)gk_ceil_div(q.n, BN), (unsigned)gk_ceil_div(q.m, BM));
        if (gk_vec_ok(q))
            warp_tiling_kernel<true><<<grid, THREADS, 0, env.stream>>>(q);
        else
            warp_tiling_kernel<false><<<grid, THREADS, 0, env.stream>>>(q);
        return cudaGetLastError();
    });
}
