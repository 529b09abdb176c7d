/*
 * copy_async.cuh — global -> shared tile copies with cp.async (sm_80+): the data go from L2 to
 * shared memory without passing through registers, so several k-tiles can be in flight while one
 * is consumed. Two forms:
 *   - load_tile: a whole ROWS x COLS tile in one call, rows stored as they are (ladder step 14);
 *   - StageCopy: the per-thread copy state of the SIMT main loop (mainloop.cuh), which stores A
 *     transposed and keeps the bounds tests that do not change along K out of the k loop.
 * Out-of-range elements are copied with src-size 0 (zero fill), so edge tiles run the same code as
 * interior tiles. A zero-byte copy still names a source: gk_ptx::cp_src points it at a dummy
 * unless the caller knows the address lies inside the matrix (ptx.cuh says why).
 */
#ifndef GK_CUDA_GEMM_COPY_ASYNC_CUH
#define GK_CUDA_GEMM_COPY_ASYNC_CUH

#include <stdint.h>

#include "cuda/gemm/kernel.cuh"
#include "cuda/ptx/ptx.cuh"

namespace gk_gemm {

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

/* One thread's share of the copies that fill a stage of the SIMT main loop with configuration C
 * (tile.cuh): the BM x BK block of A at (m0, k) stored transposed (k-major, rows padded to A_LD),
 * then the BK x BN block of B at (k, n0), for consecutive k-tiles from kt0 on; k_stop (<= p.k) is
 * where this range of K ends, past which copies are zero-fill. s0 is the shared-window address of
 * stage 0.
 *   - A: column ak of each k-tile, rows ar + i * A_STEP: consecutive threads read consecutive
 *     floats of a row (whole 32-byte sectors) and write them transposed. Rows that do not exist
 *     are copied with src-size 0 (zeros; nothing is read).
 *   - B: columns bc..bc+BW-1, rows br + i * B_STEP of each k-tile; VEC_B copies 16 bytes (B
 *     gk_vec_ok and n % 4 == 0: no partial vector), else 4. The column test is made once
 *     (b_bytes), only the last k-tile needs a row test.
 * SAFE: every address a copy names lies inside the matrices (see tile_mainloop), so zero-byte
 * copies may use it instead of the dummy source. */
template <class C, bool VEC_B, bool SAFE> struct StageCopy {
    static constexpr int BM = C::BM, BN = C::BN, BK = C::BK;
    static constexpr int A_STEP = C::THREADS / BK, A_ITERS = BM * BK / C::THREADS;
    static_assert(C::THREADS % BK == 0 && (BM * BK) % C::THREADS == 0, "A copy mapping");
    static constexpr int BW = VEC_B ? 4 : 1, B_PER_ROW = BN / BW, B_STEP = C::THREADS / B_PER_ROW;
    static constexpr int B_ITERS = BK > B_STEP ? BK / B_STEP : 1; /* B_STEP > BK: some idle */
    static_assert(C::THREADS % B_PER_ROW == 0 && (BK % B_STEP == 0 || B_STEP % BK == 0),
                  "B copy mapping");
    static constexpr uint32_t B_OFF = C::A_STAGE * 4; /* B follows A^T inside a stage */

    const gk_rm_problem &p;
    const int64_t k_stop;
    int ak, ar, br;
    uint32_t a_rows_ok; /* bit i: row ar + i * A_STEP exists */
    int64_t k_done;     /* columns of A / rows of B already issued */
    const float *a_next, *b_next;
    int64_t a_rows_step, b_rows_step;
    uint32_t a_dst, b_dst, b_bytes;

    __device__ __forceinline__ StageCopy(const gk_rm_problem &p_, const int64_t m0,
                                         const int64_t n0, const int64_t kt0, const int64_t k_stop_,
                                         const uint32_t s0, const int tid)
        : p(p_), k_stop(k_stop_) {
        ak = tid % BK, ar = tid / BK;
        a_rows_ok = 0;
#pragma unroll
        for (int i = 0; i < A_ITERS; ++i)
            a_rows_ok |= (uint32_t)(m0 + ar + i * A_STEP < p.m) << i;
        k_done = kt0 * BK;
        a_next = a_rows_ok & 1u ? p.a + (m0 + ar) * p.lda + k_done + ak : p.a;
        a_rows_step = A_STEP * p.lda;
        a_dst = s0 + (uint32_t)(ak * C::A_LD + ar) * 4u;

        br = tid / B_PER_ROW;
        const int bc = (tid % B_PER_ROW) * BW;
        const int64_t b_left = p.n - (n0 + bc);
        b_bytes = 4u * (uint32_t)(b_left < 0 ? 0 : (b_left > BW ? BW : b_left));
        b_next = b_bytes && k_done + br < k_stop ? p.b + (k_done + br) * p.ldb + n0 + bc : p.b;
        b_rows_step = B_STEP * p.ldb;
        b_dst = s0 + B_OFF + (uint32_t)(br * BN + bc) * 4u;
    }

    /* Copy the next k-tile into the stage at byte offset `stage`. */
    __device__ __forceinline__ void load(uint32_t stage) {
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
    }
};

} // namespace gk_gemm

#endif
