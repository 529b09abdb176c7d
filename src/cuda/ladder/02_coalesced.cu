/*
 * 02_coalesced.cu — ladder step 2: the same one-thread-per-element kernel as step 1, with the
 * thread-to-element map turned around so threadIdx.x runs along a *row* of C.
 *
 * What it adds over step 1: a warp now covers 32 consecutive columns, so its B loads and C stores
 * are single 128-byte coalesced transactions and its A load is one address broadcast to the warp.
 * Nothing else changes, which isolates the cost of uncoalesced access.
 */
#include "cuda/ladder/ladder.h"
#include "cuda/gemm/epilogue.cuh"
#include "cuda/gemm/util.cuh"

namespace {

constexpr int TILE = 32; /* block is TILE x TILE threads: TILE rows by TILE columns of C */

__global__ void __launch_bounds__(TILE *TILE) coalesced_kernel(gk_rm_problem p) {
    const int64_t row = (int64_t)blockIdx.y * TILE + threadIdx.y;
    const int64_t col = (int64_t)blockIdx.x * TILE + threadIdx.x; /* x -> columns: coalesced */
    if (row >= p.m || col >= p.n) return;

    const float *a = p.a + row * p.lda;
    const float *b = p.b + col;
    float acc = 0.0f;
    for (int64_t kk = 0; kk < p.k; ++kk, b += p.ldb)
        acc += a[kk] * *b;
    gk_store(p.c, row * p.ldc + col, acc, p.alpha, p.beta);
}

} // namespace

cudaError_t gk_ladder_02_coalesced(const gk_rm_problem &p, const gk_launch_env &env) {
    return gk_for_row_chunks(p, TILE, [&](const gk_rm_problem &q) {
        const dim3 grid((unsigned)gk_ceil_div(q.n, TILE), (unsigned)gk_ceil_div(q.m, TILE));
        coalesced_kernel<<<grid, dim3(TILE, TILE), 0, env.stream>>>(q);
        return cudaGetLastError();
    });
}
