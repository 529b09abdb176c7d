/*
 * 10_cp_async_pipeline.cuh — the templated SIMT SGEMM kernel shared by ladder steps 10, 11 and 13,
 * plus the guarded C epilogue and cp.async tile loaders that steps 12 and 14 reuse.
 *
 * Structure (one thread block computes a BM x BN tile of C):
 *   - STAGES shared-memory stages filled by cp.async: STAGES-1 k-tiles are in flight while one is
 *     consumed, and the copies never pass through registers. Out-of-range elements are copied with
 *     src-size 0 (zero fill), so edge tiles run the same code as interior tiles.
 *   - A is stored transposed (k-major, rows padded by 4 floats so the 4-byte transposing copies of
 *     one warp hit 32 distinct banks); B is stored as is. A thread's fragments are then contiguous
 *     and read with 128-bit shared loads.
 *   - Warp tile WM x WN; lanes form a WTR x (32/WTR) grid, each lane owns (WM/WTR) x (WN/WTC)
 *     outputs as 4x4 blocks strided across the warp tile, so each 128-bit fragment read by a
 *     quarter-warp is either one broadcast address or 8 consecutive vectors (conflict-free).
 *   - Fragments are double-buffered in registers: the reads for k+1 are issued before the FMAs of
 *     k; one barrier per k-tile. The refill copies are issued at k step LOAD_KK without a branch
 *     (past the end of K they copy zero bytes), so ptxas can interleave their address arithmetic
 *     with the FFMAs.
 *   - Blocks are rasterised in groups of `group_m` tile rows so concurrently running blocks share
 *     A and B panels in L2 (group_m == 1 is plain row-major order).
 * All index arithmetic that can exceed 2^31 (rows * ld) is 64-bit.
 */
#ifndef GK_CUDA_LADDER_10_CP_ASYNC_PIPELINE_CUH
#define GK_CUDA_LADDER_10_CP_ASYNC_PIPELINE_CUH

#include "cuda/ladder/ladder.cuh"
#include "cuda/ptx/common.cuh"
#include "cuda/ptx/ptx.cuh"

namespace gk_pipe {

/* C(row, col..col+3) = alpha * v + beta * C for an in-range row and col; 128-bit when vec_c (C
 * allows float4 rows, gk_vec_ok) and the four columns are inside C, guarded scalars otherwise. */
__device__ __forceinline__ void store_c4(const gk_rm_problem &p, int64_t row, int64_t col, float4 v,
                                         bool vec_c) {
    float *c = p.c + row * p.ldc;
    if (vec_c)
        gk_store4<true>(c, col, p.n, v, p.alpha, p.beta);
    else
        gk_store4<false>(c, col, p.n, v, p.alpha, p.beta);
}

/* Guarded scalar form: out-of-range (row, col) are skipped. */
__device__ __forceinline__ void store_c1(const gk_rm_problem &p, int64_t row, int64_t col,
                                         float v) {
    if (row < p.m && col < p.n) gk_store(p.c, row * p.ldc + col, v, p.alpha, p.beta);
}

/* Origin of tile `tile` (0 .. ceil(m/BM)*ceil(n/BN)-1) of C, tiles numbered in groups of group_m
 * tile rows (column by column inside a group), so the blocks running at the same time share a few
 * A row-panels and B column-panels in L2. group_m == 1: row-major order. */
__device__ __forceinline__ void tile_origin(const gk_rm_problem &p, int bm, int bn, int group_m,
                                            int64_t tile, int64_t *m0, int64_t *n0) {
    const int64_t tiles_m = gk_ceil_div(p.m, bm), tiles_n = gk_ceil_div(p.n, bn);
    const int64_t in_group = (int64_t)group_m * tiles_n;
    const int64_t first_m = tile / in_group * group_m;
    const int64_t gsize = tiles_m - first_m < group_m ? tiles_m - first_m : group_m;
    *m0 = (first_m + (tile % in_group) % gsize) * bm;
    *n0 = (tile % in_group) / gsize * bn;
}

/* Copy a ROWS x COLS tile of a row-major matrix (rows0/cols0: its origin; nrows/ncols: the
 * matrix's extent; ld) into shared memory at `dst` with row stride DST_LD floats, zero-filling
 * whatever lies outside the matrix. VEC: 16-byte copies (matrix gk_vec_ok and ncols % 4 == 0, so
 * no vector is partial), else 4-byte copies. */
template <int ROWS, int COLS, int DST_LD, int THREADS, bool VEC>
__device__ __forceinline__ void load_tile(uint32_t dst, const float *g, int64_t ld, int64_t row0,
                                          int64_t col0, int64_t nrows, int64_t ncols, int tid) {
    constexpr int W = VEC ? 4 : 1;
    constexpr int PER_ROW = COLS / W;
    static_assert(COLS % W == 0 && (ROWS * PER_ROW) % THREADS == 0, "tile not evenly divided");
#pragma unroll
    for (int i = 0; i < ROWS * PER_ROW / THREADS; ++i) {
        const int e = tid + i * THREADS;
        const int r = e / PER_ROW, c = (e % PER_ROW) * W;
        const int64_t gr = row0 + r, gc = col0 + c;
        int64_t left = ncols - gc; /* elements of this row still inside the matrix */
        left = gr < nrows ? (left < 0 ? 0 : (left > W ? W : left)) : 0;
        const uint32_t bytes = (uint32_t)left * 4u; /* VEC: 0 or 16 (ncols % 4 == 0) */
        const float *src = gk_ptx::cp_src(g + gr * ld + gc, bytes);
        const uint32_t d = dst + (uint32_t)(r * DST_LD + c) * 4u;
        if (VEC)
            gk_ptx::cp_async_16(d, src, bytes);
        else
            gk_ptx::cp_async_4(d, src, bytes);
    }
}

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

/* Tile configuration. MIN_BLOCKS is the occupancy promised to ptxas via __launch_bounds__. */
template <int BM_, int BN_, int BK_, int WM_, int WN_, int WTR_, int STAGES_, int MIN_BLOCKS_,
          int LOAD_KK_ = 0, int ORDER_ = 0>
struct Config {
    /* ORDER: sequence of the TM x TN FFMAs of one k step (0: row by row, 1: column by column,
     * 2: rows in serpentine order, 3: columns in serpentine order). It steers ptxas's register
     * allocation and operand-reuse flags, i.e. register-bank conflicts, which ncu showed as the
     * main extra stall ("dispatch stall") against cuBLAS; the best order is found by measuring. */
    static constexpr int ORDER = ORDER_;
    /* LOAD_KK: the k step of a tile at which the copies of a later tile are issued. */
    static constexpr int LOAD_KK = LOAD_KK_;
    static_assert(LOAD_KK_ >= 0 && LOAD_KK_ < BK_ - 1, "copies must be issued before the wait");
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, STAGES = STAGES_;
    static constexpr int MIN_BLOCKS = MIN_BLOCKS_;
    static constexpr int WTR = WTR_, WTC = 32 / WTR_;  /* lane grid of a warp */
    static constexpr int TM = WM / WTR, TN = WN / WTC; /* outputs per lane */
    static constexpr int THREADS = (BM / WM) * (BN / WN) * 32;
    static constexpr int A_LD = BM + 4;
    static constexpr int A_STAGE = BK * A_LD, B_STAGE = BK * BN; /* floats */
    static constexpr int SMEM_BYTES = STAGES * (A_STAGE + B_STAGE) * 4;
    static_assert(BM % WM == 0 && BN % WN == 0 && WM % (4 * WTR) == 0 && WN % (4 * WTC) == 0,
                  "warp/lane tiling must divide the block tile");
    static_assert(STAGES >= 2, "a pipeline needs at least two stages");
};

/* The main loop: acc = the product of the BM x BK*ktiles block of A at (m0, kt0 * BK) and the
 * matching block of B, for the tile at (m0, n0); k_stop (<= p.k) is where this range of K ends,
 * past which copies are zero-fill. A whole tile is kt0 = 0, ktiles = ceil(k / BK), k_stop = p.k;
 * a stream-K block (step 15) passes a part of K. SAFE: every address the copies name lies inside
 * the matrices (see tile_mainloop), so zero-byte copies may use it instead of the dummy source.
 * Shared memory must be free on entry (a block running it twice passes a barrier in between). */
template <class C, bool VEC_B, bool SAFE>
__device__ __forceinline__ void mainloop(const gk_rm_problem &p, const int64_t m0, const int64_t n0,
                                         const int64_t kt0, const int64_t ktiles,
                                         const int64_t k_stop, float (&acc)[C::TM][C::TN]) {
    extern __shared__ __align__(16) float smem[];
    constexpr int BM = C::BM, BN = C::BN, BK = C::BK, S = C::STAGES;
    constexpr int TM = C::TM, TN = C::TN;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;

    /* Shared layout: stage s holds A^T (BK x A_LD) followed by B (BK x BN). */
    constexpr uint32_t STAGE_BYTES = (C::A_STAGE + C::B_STAGE) * 4, B_OFF = C::A_STAGE * 4;
    const uint32_t s0 = gk_ptx::smem_addr(smem);

    /* A copies: column ak of each k-tile, rows ar + i * A_STEP: consecutive threads read
     * consecutive floats of a row (whole 32-byte sectors) and write them transposed. Rows that
     * do not exist are copied with src-size 0 (zeros; nothing is read). */
    constexpr int A_STEP = C::THREADS / BK, A_ITERS = BM * BK / C::THREADS;
    static_assert(C::THREADS % BK == 0 && (BM * BK) % C::THREADS == 0, "A copy mapping");
    const int ak = tid % BK, ar = tid / BK;
    uint32_t a_rows_ok = 0; /* bit i: row ar + i * A_STEP exists */
#pragma unroll
    for (int i = 0; i < A_ITERS; ++i)
        a_rows_ok |= (uint32_t)(m0 + ar + i * A_STEP < p.m) << i;
    int64_t k_done = kt0 * BK; /* columns of A / rows of B already issued */
    const float *a_next = a_rows_ok & 1u ? p.a + (m0 + ar) * p.lda + k_done + ak : p.a;
    const int64_t a_rows_step = A_STEP * p.lda;
    const uint32_t a_dst = s0 + (uint32_t)(ak * C::A_LD + ar) * 4u;

    /* B copies: columns bc..bc+BW-1, rows br + i * B_STEP of each k-tile; the column test is
     * made once (b_bytes), only the last k-tile needs a row test. */
    constexpr int BW = VEC_B ? 4 : 1, B_PER_ROW = BN / BW, B_STEP = C::THREADS / B_PER_ROW;
    constexpr int B_ITERS = BK > B_STEP ? BK / B_STEP : 1; /* B_STEP > BK: some threads idle */
    static_assert(C::THREADS % B_PER_ROW == 0 && (BK % B_STEP == 0 || B_STEP % BK == 0),
                  "B copy mapping");
    const int br = tid / B_PER_ROW, bc = (tid % B_PER_ROW) * BW;
    const int64_t b_left = p.n - (n0 + bc);
    const uint32_t b_bytes = 4u * (uint32_t)(b_left < 0 ? 0 : (b_left > BW ? BW : b_left));
    const float *b_next =
        b_bytes && k_done + br < k_stop ? p.b + (k_done + br) * p.ldb + n0 + bc : p.b;
    const int64_t b_rows_step = B_STEP * p.ldb;
    const uint32_t b_dst = s0 + B_OFF + (uint32_t)(br * BN + bc) * 4u;

    /* Copy the next k-tile into the stage at byte offset `stage`. */
    auto load_stage = [&](uint32_t stage) {
        const int64_t k_left = k_stop - k_done;
        const int kl = k_left > BK ? BK : (int)k_left; /* < BK only past the last full k-tile */
        const float *a = a_next;
#pragma unroll
        for (int i = 0; i < A_ITERS; ++i, a += a_rows_step) {
            const uint32_t n = ak < kl && (a_rows_ok >> i) & 1u ? 4u : 0u;
            gk_ptx::cp_async_4(a_dst + stage + (uint32_t)(i * A_STEP) * 4u,
                               SAFE ? a : gk_ptx::cp_src(a, n), n);
        }
        const float *b = b_next;
#pragma unroll
        for (int i = 0; i < B_ITERS; ++i, b += b_rows_step) {
            if (B_STEP > BK && br >= BK) break;
            const uint32_t d = b_dst + stage + (uint32_t)(i * B_STEP * BN) * 4u;
            const uint32_t n = br + i * B_STEP < kl ? b_bytes : 0u;
            if (VEC_B)
                gk_ptx::cp_async_16(d, SAFE ? b : gk_ptx::cp_src(b, n), n);
            else
                gk_ptx::cp_async_4(d, SAFE ? b : gk_ptx::cp_src(b, n), n);
        }
        k_done += BK;
        if (k_done < k_stop) a_next += BK, b_next += BK * p.ldb; /* stay inside the matrices */
    };

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
        if (s < ktiles) load_stage(s * STAGE_BYTES);
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
                 * one (from an address inside the matrices) into a stage nobody reads. Without
                 * the branch the ~60 address/predicate instructions share the FFMAs' basic block
                 * and ptxas spreads them between FFMAs (with it, SASS showed them as one serial
                 * block per k-tile); measured faster for every configuration of steps 10/11, and
                 * for step 13 together with LOAD_KK 1 (not with 5, the best value with the
                 * branch): bench/results/h100-step13-tuning-2026-11-22.txt. */
                load_stage(wr);
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

/* C tile at (m0, n0) = alpha * acc + beta * C (C not read when beta == 0), guarded at the edges.
 * Each lane's TM x TN outputs are the 4x4 blocks of mainloop's fragment layout. */
template <class C>
__device__ __forceinline__ void epilogue(const gk_rm_problem &p, const int64_t m0, const int64_t n0,
                                         const float (&acc)[C::TM][C::TN], const bool vec_c) {
    constexpr int TM = C::TM, TN = C::TN;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int wm = (warp / (C::BN / C::WN)) * C::WM, wn = (warp % (C::BN / C::WN)) * C::WN;
    const int tr = lane / C::WTC, tc = lane % C::WTC;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int64_t row = m0 + wm + (i / 4) * C::WTR * 4 + tr * 4 + i % 4;
        if (row >= p.m) continue;
#pragma unroll
        for (int j = 0; j < TN / 4; ++j) {
            const int64_t col = n0 + wn + j * C::WTC * 4 + tc * 4;
            if (col < p.n)
                store_c4(p, row, col,
                         make_float4(acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2],
                                     acc[i][4 * j + 3]),
                         vec_c);
        }
    }
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

/* One whole tile: the main loop over all of K, then the epilogue. */
template <class C, bool VEC_B>
__device__ __forceinline__ void whole_tile(const gk_rm_problem &p, const int64_t m0,
                                           const int64_t n0, const bool vec_c) {
    float acc[C::TM][C::TN];
    const int64_t ktiles = gk_ceil_div(p.k, C::BK);
    tile_mainloop<C, VEC_B>(p, m0, n0, 0, ktiles, p.k, acc);
    epilogue<C>(p, m0, n0, acc, vec_c);
}

template <class C, bool VEC_B>
__global__ void __launch_bounds__(C::THREADS, C::MIN_BLOCKS)
    sgemm_pipeline(const gk_rm_problem p, const int group_m, const bool vec_c) {
    int64_t m0, n0;
    tile_origin(p, C::BM, C::BN, group_m, blockIdx.x, &m0, &n0);
    whole_tile<C, VEC_B>(p, m0, n0, vec_c);
}

/* 16-byte B copies need whole vectors: n % 4 == 0 as well as alignment (see cp_async_16). */
inline bool vec_b_ok(const gk_rm_problem &p) {
    return gk_vec_ok(p.b, p.ldb) && p.n % 4 == 0;
}

/* Allow kernel `kern` the dynamic shared memory of configuration C. */
template <class C, class K> cudaError_t allow_smem(K kern) {
    if (C::SMEM_BYTES <= 48 * 1024) return cudaSuccess;
    return cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, C::SMEM_BYTES);
}

/* Launch configuration C on the first `tiles` tiles of p (in tile_origin order), one block per
 * tile, with 16-byte B copies when B allows them. */
template <class C>
cudaError_t launch_tiles(const gk_rm_problem &p, int group_m, cudaStream_t s, int64_t tiles) {
    if (tiles > 0x7fffffff) return cudaErrorInvalidValue;
    const bool vec_c = gk_vec_ok(p.c, p.ldc);
    auto kern = vec_b_ok(p) ? sgemm_pipeline<C, true> : sgemm_pipeline<C, false>;
    const cudaError_t e = allow_smem<C>(kern);
    if (e != cudaSuccess) return e;
    kern<<<(unsigned)tiles, C::THREADS, C::SMEM_BYTES, s>>>(p, group_m, vec_c);
    return cudaGetLastError();
}

/* Launch configuration C on the whole of p. */
template <class C> cudaError_t launch(const gk_rm_problem &p, int group_m, cudaStream_t s) {
    return launch_tiles<C>(p, group_m, s, gk_ceil_div(p.m, C::BM) * gk_ceil_div(p.n, C::BN));
}

} // namespace gk_pipe

#endif
