/*
 * mma.cu — the portable tensor-core kernel of the mixed-precision GEMM (mixed.h): mma.sync with
 * float32 accumulators, for GPUs without the sm_90a kernel (sm_80, sm_86, sm_89) and for what
 * that kernel does not take. Correct for any shape, and a sane speed rather than a record: the
 * Hopper kernel is the fast path (docs/cuda.md, "Mixed precision").
 *
 * Both operands are K-major, so one byte-level tile layout serves every type: a block computes a
 * 128x128 tile of C from shared-memory rows of 64 bytes of K (32 BF16/FP16 or 16 TF32 elements)
 * per stage, two stages filled by 16-byte cp.async copies (zero-filled past the edges). Rows are
 * padded to 80 bytes, so the eight 16-byte rows that one ldmatrix phase reads fall in distinct
 * banks. ldmatrix gives the mma fragments directly: for 16-bit types the m16n8k16 layout, and on
 * 32-bit data the m16n8k8 TF32 layout (ptx.cuh). 8 warps as 2 (m) x 4 (n), warp tile 64x32 =
 * 4x4 mma tiles.
 *
 * 3xTF32 (GK_F32 operands) splits each fragment register after ldmatrix, hi = rna_tf32(x),
 * lo = rna_tf32(x - hi), the same split as the repack kernel, and adds lo*hi + hi*lo before
 * hi*hi into the same accumulators; the dropped lo*lo term is below float32's rounding.
 */
#include "cuda/gemm/util.cuh"
#include "cuda/mixed/elem.cuh"
#include "cuda/mixed/mixed.h"
#include "cuda/ptx/ptx.cuh"

namespace {

constexpr int BM = 128, BN = 128, KB = 64 /* bytes of K per stage */, ROW = KB + 16;
constexpr int THREADS = 256, STAGE = (BM + BN) * ROW;
constexpr int WM = 64, WN = 32, MT = WM / 16, NT = WN / 8;
constexpr int MAX_GRID_Y = 65535, MAX_GRID_X = 1 << 20;
enum Op { OP_BF16, OP_F16, OP_TF32, OP_3XTF32 };

/* ROWS x 64 bytes of K starting at 16-byte piece `piece0` of rows row0.. into a stage: 4 pieces
 * per row, pieces past `pieces` (the row's end) or rows past `rows` zero-filled. */
template <int ROWS>
__device__ __forceinline__ void load_rows(uint32_t dst, const char *src, int64_t ld_bytes,
                                          int64_t row0, int64_t rows, int64_t piece0,
                                          int64_t pieces, int tid) {
#pragma unroll
    for (int i = 0; i < ROWS * 4 / THREADS; ++i) {
        const int id = tid + i * THREADS, r = id >> 2, c = id & 3;
        const int64_t row = row0 + r, piece = piece0 + c;
        const bool ok = row < rows && piece < pieces;
        const float *p = ok ? reinterpret_cast<const float *>(src + row * ld_bytes + piece * 16)
                            : gk_ptx::cp_async_dummy;
        gk_ptx::cp_async_16(dst + r * ROW + c * 16, p, ok ? 16 : 0);
    }
}

__device__ __forceinline__ uint32_t tf32(uint32_t x) {
    return gk_ptx::cvt_rna_tf32(__uint_as_float(x));
}

/* acc += A B for one 32-byte step of K (one mma per tile pair; three for 3xTF32). */
template <int OP>
__device__ __forceinline__ void mma_step(float (&acc)[MT][NT][4], uint32_t (&af)[MT][4],
                                         uint32_t (&bf)[NT][2]) {
    if (OP == OP_BF16 || OP == OP_F16) {
#pragma unroll
        for (int i = 0; i < MT; ++i)
#pragma unroll
            for (int j = 0; j < NT; ++j)
                gk_ptx::mma_m16n8k16<OP == OP_BF16>(acc[i][j], af[i], bf[j]);
    } else if (OP == OP_TF32) {
#pragma unroll
        for (int i = 0; i < MT; ++i)
#pragma unroll
            for (int r = 0; r < 4; ++r)
                af[i][r] = tf32(af[i][r]);
#pragma unroll
        for (int j = 0; j < NT; ++j)
            bf[j][0] = tf32(bf[j][0]), bf[j][1] = tf32(bf[j][1]);
#pragma unroll
        for (int i = 0; i < MT; ++i)
#pragma unroll
            for (int j = 0; j < NT; ++j)
                gk_ptx::mma_m16n8k8_tf32(acc[i][j], af[i], bf[j]);
    } else {
        uint32_t alo[MT][4], blo[NT][2];
#pragma unroll
        for (int i = 0; i < MT; ++i)
#pragma unroll
            for (int r = 0; r < 4; ++r) {
                const uint32_t hi = tf32(af[i][r]);
                alo[i][r] = tf32(__float_as_uint(__uint_as_float(af[i][r]) - __uint_as_float(hi)));
                af[i][r] = hi;
            }
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                const uint32_t hi = tf32(bf[j][r]);
                blo[j][r] = tf32(__float_as_uint(__uint_as_float(bf[j][r]) - __uint_as_float(hi)));
                bf[j][r] = hi;
            }
#pragma unroll
        for (int i = 0; i < MT; ++i)
#pragma unroll
            for (int j = 0; j < NT; ++j) {
                gk_ptx::mma_m16n8k8_tf32(acc[i][j], alo[i], bf[j]);
                gk_ptx::mma_m16n8k8_tf32(acc[i][j], af[i], blo[j]);
                gk_ptx::mma_m16n8k8_tf32(acc[i][j], af[i], bf[j]);
            }
    }
}

/* Two blocks per SM (at most 128 registers a thread) where the registers allow it: 3xTF32 keeps the
 * low parts of both operands' fragments too. */
template <int OP>
__global__ void __launch_bounds__(THREADS, OP == OP_3XTF32 ? 1 : 2)
    mma_kernel(const gk_tc_problem p) {
    constexpr int SIZE = OP == OP_BF16 || OP == OP_F16 ? 2 : 4;
    __shared__ __align__(128) unsigned char smem[2 * STAGE];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;
    const char *const a = static_cast<const char *>(p.a), *const b = static_cast<const char *>(p.b);
    const int64_t lda = p.lda * SIZE, ldb = p.ldb * SIZE;
    const int64_t pieces = (p.k * SIZE + 15) / 16, ktiles = (pieces + KB / 16 - 1) / (KB / 16);
    const int64_t tiles_m = (p.m + BM - 1) / BM, tiles_n = (p.n + BN - 1) / BN;
    const float alpha = gk_mixed::alpha_scaled(p.alpha, p.scale_a, p.scale_b);
    const uint32_t s0 = gk_ptx::smem_addr(smem);
    /* ldmatrix row addresses: lanes 0-15 give rows 0-15 of A's first 16 bytes, lanes 16-31 the
     * same rows' next 16 bytes (the fragment's k + 8 half); for B lanes 0-7 / 8-15 give rows 0-7
     * at bytes 0 / 16 (tile j), lanes 16-31 the same for rows 8-15 (tile j + 1). */
    const uint32_t a_off = (wm + (lane & 15)) * ROW + (lane >> 4) * 16;
    const uint32_t b_off =
        BM * ROW + (wn + (lane & 7) + ((lane >> 4) << 3)) * ROW + ((lane >> 3) & 1) * 16;
    const int g = lane >> 2, t = lane & 3;

    for (int64_t tm = blockIdx.y; tm < tiles_m; tm += gridDim.y)
        for (int64_t tn = blockIdx.x; tn < tiles_n; tn += gridDim.x) {
            const int64_t m0 = tm * BM, n0 = tn * BN;
            auto load_stage = [&](int64_t kt, int stage) {
                const uint32_t d = s0 + stage * STAGE;
                load_rows<BM>(d, a, lda, m0, p.m, kt * (KB / 16), pieces, tid);
                load_rows<BN>(d + BM * ROW, b, ldb, n0, p.n, kt * (KB / 16), pieces, tid);
            };
            float acc[MT][NT][4];
#pragma unroll
            for (int i = 0; i < MT; ++i)
#pragma unroll
                for (int j = 0; j < NT; ++j)
#pragma unroll
                    for (int r = 0; r < 4; ++r)
                        acc[i][j][r] = 0.0f;

            load_stage(0, 0);
            gk_ptx::cp_async_commit();
            for (int64_t kt = 0; kt < ktiles; ++kt) {
                if (kt + 1 < ktiles) load_stage(kt + 1, (int)((kt + 1) & 1));
                gk_ptx::cp_async_commit();
                gk_ptx::cp_async_wait<1>();
                __syncthreads(); /* stage kt landed for every thread */
                const uint32_t st = s0 + (uint32_t)(kt & 1) * STAGE;
#pragma unroll
                for (int ks = 0; ks < KB / 32; ++ks) {
                    uint32_t af[MT][4], bf[NT][2];
#pragma unroll
                    for (int i = 0; i < MT; ++i)
                        gk_ptx::ldmatrix_x4(af[i], st + a_off + i * 16 * ROW + ks * 32);
#pragma unroll
                    for (int j = 0; j < NT; j += 2) {
                        uint32_t r[4];
                        gk_ptx::ldmatrix_x4(r, st + b_off + j * 8 * ROW + ks * 32);
                        bf[j][0] = r[0], bf[j][1] = r[1], bf[j + 1][0] = r[2], bf[j + 1][1] = r[3];
                    }
                    mma_step<OP>(acc, af, bf);
                }
                __syncthreads(); /* everyone is done with stage kt before it is refilled */
            }

            /* Accumulator layout: [0..1] at (row g, columns 2t, 2t + 1), [2..3] at row g + 8. */
#pragma unroll
            for (int i = 0; i < MT; ++i)
#pragma unroll
                for (int j = 0; j < NT; ++j)
#pragma unroll
                    for (int r = 0; r < 4; ++r) {
                        const int64_t row = m0 + wm + i * 16 + g + (r >> 1) * 8;
                        const int64_t col = n0 + wn + j * 8 + 2 * t + (r & 1);
                        if (row < p.m && col < p.n)
                            gk_mixed::store_c(p.c, row * p.ldc + col, p.tc, alpha * acc[i][j][r],
                                              p.beta);
                    }
        }
}

} // namespace

cudaError_t gk_mma_gemm(const gk_tc_problem &p, const gk_launch_env &env) {
    const int64_t tiles_m = gk_ceil_div(p.m, BM), tiles_n = gk_ceil_div(p.n, BN);
    const dim3 grid((unsigned)(tiles_n < MAX_GRID_X ? tiles_n : MAX_GRID_X),
                    (unsigned)(tiles_m < MAX_GRID_Y ? tiles_m : MAX_GRID_Y));
    switch (p.ta) {
    case GK_BF16:
        mma_kernel<OP_BF16><<<grid, THREADS, 0, env.stream>>>(p);
        break;
    case GK_F16:
        mma_kernel<OP_F16><<<grid, THREADS, 0, env.stream>>>(p);
        break;
    case GK_TF32:
        mma_kernel<OP_TF32><<<grid, THREADS, 0, env.stream>>>(p);
        break;
    case GK_F32:
        mma_kernel<OP_3XTF32><<<grid, THREADS, 0, env.stream>>>(p);
        break;
    default:
        return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}
