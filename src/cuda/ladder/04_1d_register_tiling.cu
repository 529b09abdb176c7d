/*
 * 04_1d_register_tiling.cu — ladder step 4: each thread computes a column of TM = 8 outputs.
 * Blocks cover 64x64 of C with 512 threads and step K by 8; the 64x8 A tile and the 8x64 B tile
 * each take exactly one (coalesced or 32-byte-sector) load per thread.
 *
 * What it adds over step 3: in the inner loop one B value is held in a register and reused for 8
 * FMAs, so shared-memory loads per FMA drop from 2 to 9/8. Fewer, larger tiles per block also
 * halve the barriers per FMA. A reads remain warp broadcasts (a warp shares one row group).
 */
#include "cuda/ladder/ladder.h"
#include "cuda/gemm/epilogue.cuh"
#include "cuda/gemm/util.cuh"

namespace {

constexpr int BM = 64, BN = 64, BK = 8, TM = 8;
constexpr int THREADS = BM * BN / TM; /* 512 */
static_assert(THREADS == BM * BK && THREADS == BK * BN, "one A and one B element per thread");

__global__ void __launch_bounds__(THREADS) reg_tiling_1d_kernel(gk_rm_problem p) {
    __shared__ float as[BM][BK]; /* [row of C][k] */
    __shared__ float bs[BK][BN]; /* [k][column of C] */

    const int tid = threadIdx.x;
    const int64_t row0 = (int64_t)blockIdx.y * BM, col0 = (int64_t)blockIdx.x * BN;
    /* Compute map: a warp is 32 consecutive columns of one 8-row group. */
    const int tc = tid % BN, tr = (tid / BN) * TM;
    /* Load map: A element (la_r, la_c) and B element (lb_r, lb_c) of the current tiles. */
    const int la_r = tid / BK, la_c = tid % BK;
    const int lb_r = tid / BN, lb_c = tid % BN;
    const bool la_ok = row0 + la_r < p.m, lb_ok = col0 + lb_c < p.n;
    const float *a = p.a + (la_ok ? (row0 + la_r) * p.lda : 0) + la_c;
    const float *b = p.b + col0 + lb_c;

    float acc[TM] = {};
    for (int64_t k0 = 0; k0 < p.k; k0 += BK) {
        as[la_r][la_c] = la_ok && k0 + la_c < p.k ? a[k0] : 0.0f;
        bs[lb_r][lb_c] = lb_ok && k0 + lb_r < p.k ? b[(k0 + lb_r) * p.ldb] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            const float bv = bs[kk][tc];
#pragma unroll
            for (int i = 0; i < TM; ++i)
                acc[i] += as[tr + i][kk] * bv;
        }
        __syncthreads();
    }

    const int64_t col = col0 + tc;
    if (col >= p.n) return;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int64_t row = row0 + tr + i;
        if (row < p.m) gk_store(p.c, row * p.ldc + col, acc[i], p.alpha, p.beta);
    }
}

} // namespace

cudaError_t gk_ladder_04_1d_register_tiling(const gk_rm_problem &p, const gk_launch_env &env) {
    return gk_for_row_chunks(p, BM, [&](const gk_rm_problem &q) {
        const dim3 grid((unsigned)gk_ceil_div(q.n, BN), (unsigned)gk_ceil_div(q.m, BM));
        reg_tiling_1d_kernel<<<grid, THREADS, 0, env.stream>>>(q);
        return cudaGetLastError();
    });
}
