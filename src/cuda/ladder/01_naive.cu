/*
 * 01_naive.cu — ladder step 1: the textbook kernel, one thread per element of C, every operand
 * read straight from global memory. It is the correctness baseline and the floor of the ladder.
 *
 * Deliberate flaw (fixed by step 2): threadIdx.x walks down a *column* of C, so the 32 threads of
 * a warp read 32 different rows of A (32 separate memory transactions per k) and store to 32
 * different rows of C; only the B load is a warp-wide broadcast.
 */
#include "cuda/ladder/ladder.h"
#include "cuda/gemm/epilogue.cuh"
#include "cuda/gemm/util.cuh"

namespace {

constexpr int TILE = 32; /* block is TILE x TILE threads: TILE rows by TILE columns of C */

__global__ void __launch_bounds__(TILE *TILE) naive_kernel(gk_rm_problem p) {
    const int64_t row = (int64_t)blockIdx.y * TILE + threadIdx.x; /* x -> rows: uncoalesced */
    const int64_t col = (int64_t)blockIdx.x * TILE + threadIdx.y;
    if (row >= p.m || col >= p.n) return;

    const float *a = p.a + row * p.lda;
    const float *b = p.b + col;
    float acc = 0.0f;
    for (int64_t kk = 0; kk < p.k; ++kk, b += p.ldb)
        acc += a[kk] * *b;
    gk_store(p.c, row * p.ldc + col, acc, p.alpha, p.beta);
}

} // namespace

cudaError_t gk_ladder_01_naive(const gk_rm_problem &p, const gk_launch_env &env) {
    return gk_for_row_chunks(p, TILE, [&](const gk_rm_problem &q) {
        const dim3 grid((unsigned)gk_ceil_div(q.n, TILE), (unsigned)gk_ceil_div(q.m, TILE));
        naive_kernel<<<grid, dim3(TILE, TILE), 0, env.stream>>>(q);
        return cudaGetLastError();
    });
}
