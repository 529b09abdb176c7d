/*
 * mainloop.cuh — the multi-stage SIMT main loop: the FP32 product of a block tile of A and B over
 * a range of k-tiles, accumulated in registers (FFMA). The data-parallel kernel (data_parallel.cuh)
 * runs it over all of K for one tile, a stream-K block (stream_k.cu) over pieces of K.
 *
 * Structure (one thread block, tile configuration C from tile.cuh):
 *   - STAGES shared-memory stages filled by cp.async (StageCopy, copy_async.cuh): STAGES-1
 *     k-tiles are in flight while one is consumed.
 *   - A is stored transposed (k-major, rows padded by 4 floats so the 4-byte transposing copies of
 *     one warp hit 32 distinct banks); B is stored as is. A thread's fragments are then contiguous
 *     and read with 128-bit shared loads.
 *   - Warp tile WM x WN; lanes form a WTR x (32/WTR) grid, each lane owns (WM/WTR) x (WN/WTC)
 *     outputs as 4x4 blocks strided across the warp tile, so each 128-bit fragment read by a
 *     quarter-warp is either one broadcast address or 8 consecutive vectors (conflict-free).
 *     epilogue<C> (epilogue.cuh) writes the accumulators back in the same layout.
 *   - Fragments are double-buffered in registers: the reads for k+1 are issued before the FFMAs of
 *     k; one barrier per k-tile. The refill copies are issued at k step LOAD_KK without a branch
 *     (past the end of K they copy zero bytes), so ptxas can interleave their address arithmetic
 *     with the FFMAs.
 * All index arithmetic that can exceed 2^31 (rows * ld) is 64-bit.
 */
#ifndef GK_CUDA_GEMM_MAINLOOP_CUH
#define GK_CUDA_GEMM_MAINLOOP_CUH

#include <stdint.h>

#include "cuda/gemm/copy_async.cuh"
#include "cuda/gemm/kernel.cuh"
#include "cuda/gemm/tile.cuh"
#include "cuda/ptx/ptx.cuh"

namespace gk_gemm {

/* Position (row, column among the thread's TM x TN outputs) of the f-th FFMA of a k step in
 * traversal ORDER (see Config::ORDER). */
template <int ORDER, int TM, int TN> __device__ constexpr int ffma_row(int f) {
    return ORDER == 0 || ORDER == 2 ? f / TN
           : ORDER == 1             ? f % TM
                                    : ((f / TM) & 1 ? TM - 1 - f % TM : f % TM);
}
template <int ORDER, int TM, int TN> __device__ constexpr int ffma_col(int f) {
    return ORDER == 0 ? f % TN : ORDER == 2 ? ((f / TN) & 1 ? TN - 1 - f % TN : f % TN) : f / TM;
}

/* The main loop: acc = the product of the BM x BK*ktiles block of A at (m0, kt0 * BK) and the
 * matching block of B, for the tile at (m0, n0); k_stop (<= p.k) is where this range of K ends,
 * past which copies are zero-fill. A whole tile is kt0 = 0, ktiles = ceil(k / BK), k_stop = p.k;
 * a stream-K block passes a part of K. SAFE: see StageCopy and tile_mainloop.
 * Shared memory must be free on entry (a block running it twice passes a barrier in between). */
template <class C, bool VEC_B, bool SAFE>
__device__ __forceinline__ void mainloop(const gk_rm_problem &p, const int64_t m0, const int64_t n0,
                                         const int64_t kt0, const int64_t ktiles,
                                         const int64_t k_stop, float (&acc)[C::TM][C::TN]) {
    extern __shared__ __align__(16) float smem[];
    constexpr int BN = C::BN, BK = C::BK, S = C::STAGES;
    constexpr int TM = C::TM, TN = C::TN;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;

    /* Shared layout: stage s holds A^T (BK x A_LD) followed by B (BK x BN). */
    constexpr uint32_t STAGE_BYTES = (C::A_STAGE + C::B_STAGE) * 4, B_OFF = C::A_STAGE * 4;
    const uint32_t s0 = gk_ptx::smem_addr(smem);
    StageCopy<C, VEC_B, SAFE> copy(p, m0, n0, kt0, k_stop, s0, tid);

    /* Lane's fragment origins inside a stage. */
    const int wm = (warp / (BN / C::WN)) * C::WM, wn = (warp % (BN / C::WN)) * C::WN;
    const int tr = lane / C::WTC, tc = lane % C::WTC;
    const uint32_t a_frag = s0 + (uint32_t)(wm + tr * 4) * 4u;
    const uint32_t b_frag = s0 + B_OFF + (uint32_t)(wn + tc * 4) * 4u;

#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.0f;

#pragma unroll
    for (int s = 0; s < S - 1; ++s) {
        if (s < ktiles) copy.load(s * STAGE_BYTES);
        gk_ptx::cp_async_commit();
    }
    gk_ptx::cp_async_wait<S - 2>();
    __syncthreads();

    float fa[2][TM], fb[2][TN];
    auto load_frag = [&](int buf, uint32_t stage, int kk) {
        const uint32_t a = a_frag + stage + (uint32_t)(kk * C::A_LD) * 4u;
        const uint32_t b = b_frag + stage + (uint32_t)(kk * BN) * 4u;
#pragma unroll
        for (int i = 0; i < TM / 4; ++i) {
            const float4 v = gk_ptx::ld_shared_v4(a + i * C::WTR * 16);
            fa[buf][4 * i] = v.x, fa[buf][4 * i + 1] = v.y;
            fa[buf][4 * i + 2] = v.z, fa[buf][4 * i + 3] = v.w;
        }
#pragma unroll
        for (int j = 0; j < TN / 4; ++j) {
            const float4 v = gk_ptx::ld_shared_v4(b + j * C::WTC * 16);
            fb[buf][4 * j] = v.x, fb[buf][4 * j + 1] = v.y;
            fb[buf][4 * j + 2] = v.z, fb[buf][4 * j + 3] = v.w;
        }
    };

    /* Byte offsets of the stage read now and of the stage written next. */
    constexpr uint32_t RING = S * STAGE_BYTES;
    uint32_t rd = 0, wr = (S - 1) * STAGE_BYTES;
    load_frag(0, 0, 0);
    for (int64_t kt = 0; kt < ktiles; ++kt) {
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            if (kk == BK - 1) {
                /* Everyone has read stage rd (its last fragments are in registers); make tile
                 * kt+1 visible before the next fragment read crosses into it. */
                gk_ptx::cp_async_wait<S - 2>();
                __syncthreads();
                rd = rd + STAGE_BYTES == RING ? 0 : rd + STAGE_BYTES;
            }
            load_frag((kk + 1) & 1, rd, (kk + 1) % BK);
            if (kk == C::LOAD_KK) {
                /* Refill the stage everyone finished reading before the previous barrier. No
                 * "tile exists" branch: past the last k-tile kl <= 0 makes every copy a zero-byte
                 * one into a stage nobody reads. Without the branch the ~60 address/predicate
                 * instructions share the FFMAs' basic block and ptxas spreads them between FFMAs
                 * (with it, SASS showed them as one serial block per k-tile); measured faster for
                 * every configuration (docs/ladder.md, step 10). */
                copy.load(wr);
                gk_ptx::cp_async_commit();
                wr = wr + STAGE_BYTES == RING ? 0 : wr + STAGE_BYTES;
            }
#pragma unroll
            for (int f = 0; f < TM * TN; ++f) {
                const int i = ffma_row<C::ORDER, TM, TN>(f), j = ffma_col<C::ORDER, TM, TN>(f);
                acc[i][j] += fa[kk & 1][i] * fb[kk & 1][j];
            }
        }
    }
    gk_ptx::cp_async_wait<0>();
}

/* mainloop with SAFE chosen for the tile: a tile wholly inside C, of a problem whose K is a
 * multiple of BK, only names addresses inside A and B (its rows and columns exist, and past the
 * end of its k-range the refill re-addresses the last full k-tile with zero-byte copies), so it
 * skips the dummy-source select of edge tiles; one uniform branch per call. */
template <class C, bool VEC_B>
__device__ __forceinline__ void
tile_mainloop(const gk_rm_problem &p, const int64_t m0, const int64_t n0, const int64_t kt0,
              const int64_t ktiles, const int64_t k_stop, float (&acc)[C::TM][C::TN]) {
    if (m0 + C::BM <= p.m && n0 + C::BN <= p.n && p.k % C::BK == 0)
        mainloop<C, VEC_B, true>(p, m0, n0, kt0, ktiles, k_stop, acc);
    else
        mainloop<C, VEC_B, false>(p, m0, n0, kt0, ktiles, k_stop, acc);
}

} // namespace gk_gemm

#endif
