/*
 * 05_2d_register_tiling.cu — ladder step 5: each of 256 threads computes an 8x8 block of C as a
 * sum of outer products. Blocks cover 128x128 of C and step K by 8; each thread loads 4 elements
 * of the 128x8 A tile and 4 of the 8x128 B tile per step (scalar loads).
 *
 * What it adds over step 4: per k the thread reads 8 A and 8 B values from shared memory into
 * registers and issues 64 FMAs (1/4 load per FMA instead of 9/8), and the 128x128 block tile
 * halves global traffic per FMA again. Known leftovers, fixed in steps 6-7: scalar global and
 * shared accesses, and bank conflicts (the B fragment of a warp is strided by 8 floats).
 */
#include "cuda/ladder/ladder.h"
#include "cuda/gemm/epilogue.cuh"
#include "cuda/gemm/util.cuh"

namespace {

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr int THREADS = (BM / TM) * (BN / TN);                          /* 256 */
constexpr int A_LOADS = BM * BK / THREADS, B_LOADS = BK * BN / THREADS; /* 4 and 4 */

__global__ void __launch_bounds__(THREADS, 2) reg_tiling_2d_kernel(gk_rm_problem p) {
    __shared__ float as[BM][BK]; /* [row of C][k] */
    __shared__ float bs[BK][BN]; /* [k][column of C] */

    const int tid = threadIdx.x;
    const int64_t row0 = (int64_t)blockIdx.y * BM, col0 = (int64_t)blockIdx.x * BN;
    const int tr = (tid / (BN / TN)) * TM, tc = (tid % (BN / TN)) * TN;
    /* Rows and columns of C this block really has (edge blocks have fewer). */
    const int mr = (int)min(p.m - row0, (int64_t)BM), nr = (int)min(p.n - col0, (int64_t)BN);
    /* Load map: consecutive threads take consecutive elements of the row-major tiles, so this
     * thread owns A rows la_r + 32i (column la_c) and B rows lb_r + 2i (column lb_c). Row and
     * column validity is fixed per block; only the K bound changes per tile. */
    const int la_r = tid / BK, la_c = tid % BK, lb_r = tid / BN, lb_c = tid % BN;
    constexpr int A_STEP = THREADS / BK, B_STEP = THREADS / BN;
    const float *a = p.a + (row0 + la_r) * p.lda + la_c;
    const float *b = p.b + (int64_t)lb_r * p.ldb + col0 + lb_c;
    const int64_t a_step = A_STEP * p.lda, b_step = B_STEP * p.ldb, b_tile = BK * p.ldb;
    unsigned a_rows = 0; /* bit i: A row la_r + A_STEP * i exists */
#pragma unroll
    for (int i = 0; i < A_LOADS; ++i)
        a_rows |= (unsigned)(la_r + A_STEP * i < mr) << i;
    const bool b_col = lb_c < nr;

    float acc[TM][TN] = {};
    float fa[TM], fb[TN];
    for (int64_t k0 = 0; k0 < p.k; k0 += BK, a += BK, b += b_tile) {
        const int kr = (int)min(p.k - k0, (int64_t)BK); /* K columns left in this tile */
        const bool ka = la_c < kr;
#pragma unroll
        for (int i = 0; i < A_LOADS; ++i)
            as[la_r + A_STEP * i][la_c] = ka && (a_rows >> i & 1) ? a[i * a_step] : 0.0f;
#pragma unroll
        for (int i = 0; i < B_LOADS; ++i)
            bs[lb_r + B_STEP * i][lb_c] = b_col && lb_r + B_STEP * i < kr ? b[i * b_step] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
#pragma unroll
            for (int i = 0; i < TM; ++i)
                fa[i] = as[tr + i][kk];
#pragma unroll
            for (int j = 0; j < TN; ++j)
                fb[j] = bs[kk][tc + j];
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
        for (int j = 0; j < TN; ++j)
            if (tc + j < nr) gk_store(c, tc + j, acc[i][j], p.alpha, p.beta);
    }
}

} // namespace

cudaError_t gk_ladder_05_2d_register_tiling(const gk_rm_problem &p, const gk_launch_env &env) {
    return gk_for_row_chunks(p, BM, [&](const gk_rm_problem &q) {
        const dim3 grid((unsigned)gk_ceil_div(q.n, BN), (unsigned)gk_ceil_div(q.m, BM));
        reg_tiling_2d_kernel<<<grid, THREADS, 0, env.stream>>>(q);
        return cudaGetLastError();
    });
}
