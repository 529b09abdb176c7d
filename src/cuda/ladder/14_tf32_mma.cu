/*
 * 14_tf32_mma.cu — ladder step 14, the first tensor-core kernel: mma.sync.m16n8k8 with TF32
 * operands (each FP32 input rounded to nearest with cvt.rna.tf32.f32, 10 mantissa bits) and FP32
 * accumulation. The products are therefore not FP32-exact: the registry declares input_rounding
 * 2^-11 and the tests widen their bound accordingly.
 * Everything around the MMA reuses the production pieces of src/cuda/gemm/: a 3-stage cp.async
 * pipeline fed by gk_gemm::load_tile (16-byte copies when the operand allows, 4-byte copies
 * otherwise, zero fill outside the matrix), the tile order and the guarded alpha/beta stores.
 * Tiles: 128x128x16 per block, 8 warps as 2 (m) x 4 (n), warp tile 64x32 = 4x4 MMA tiles. Shared
 * rows are padded (A: 16+4 floats, B: 128+8 floats) so the fragment reads of a warp, 8 groups of 4
 * lanes, hit 32 distinct banks.
 * It runs well ahead of the FP32 steps but far behind cuBLAS's own TF32 path, which uses Hopper's
 * wgmma (docs/ladder.md, step 14): a first mma.sync kernel, the starting point for tensor cores.
 */
#include "cuda/ladder/ladder.h"
#include "cuda/gemm/copy_async.cuh"
#include "cuda/gemm/epilogue.cuh"
#include "cuda/gemm/tile.cuh"
#include "cuda/gemm/util.cuh"
#include "cuda/ptx/ptx.cuh"

namespace gk_l14 {

constexpr int BM = 128, BN = 128, BK = 16, STAGES = 3, THREADS = 256;
constexpr int A_LD = BK + 4, B_LD = BN + 8;
constexpr int A_STAGE = BM * A_LD, B_STAGE = BK * B_LD; /* floats */
constexpr int SMEM_BYTES = STAGES * (A_STAGE + B_STAGE) * 4;
constexpr int WM = 64, WN = 32, MT = WM / 16, NT = WN / 8;

template <bool VEC_A, bool VEC_B>
__global__ void __launch_bounds__(THREADS, 1) sgemm_tf32_mma(const gk_rm_problem p) {
    extern __shared__ __align__(16) float smem[];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    int64_t m0, n0;
    gk_gemm::tile_origin(p, BM, BN, 8, blockIdx.x, &m0, &n0);
    const uint32_t sa = gk_ptx::smem_addr(smem), sb = sa + STAGES * A_STAGE * 4;

    const int64_t ktiles = gk_ceil_div(p.k, BK);
    auto load_stage = [&](int64_t kt, int stage) {
        gk_gemm::load_tile<BM, BK, A_LD, THREADS, VEC_A>(sa + stage * A_STAGE * 4, p.a, p.lda, m0,
                                                         kt * BK, p.m, p.k, tid);
        gk_gemm::load_tile<BK, BN, B_LD, THREADS, VEC_B>(sb + stage * B_STAGE * 4, p.b, p.ldb,
                                                         kt * BK, n0, p.k, p.n, tid);
    };

    /* Fragment coordinates (PTX ISA, mma.m16n8k8 .tf32): g = lane / 4 picks the row of A / column
     * of B, t = lane % 4 the k index. */
    const int g = lane >> 2, t = lane & 3;
    const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;
    const float *a_frag = smem + (wm + g) * A_LD + t;
    const float *b_frag = smem + STAGES * A_STAGE + t * B_LD + wn + g;

    float acc[MT][NT][4];
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
            for (int r = 0; r < 4; ++r)
                acc[i][j][r] = 0.0f;

#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < ktiles) load_stage(s, s);
        gk_ptx::cp_async_commit();
    }
    int rd = 0, wr = STAGES - 1;
    for (int64_t kt = 0; kt < ktiles; ++kt) {
        gk_ptx::cp_async_wait<STAGES - 2>();
        __syncthreads(); /* tile kt landed for everyone; stage wr is no longer being read */
        if (kt + STAGES - 1 < ktiles) load_stage(kt + STAGES - 1, wr);
        gk_ptx::cp_async_commit();
        wr = wr + 1 == STAGES ? 0 : wr + 1;

        const float *as = a_frag + rd * A_STAGE, *bs = b_frag + rd * B_STAGE;
#pragma unroll
        for (int ks = 0; ks < BK; ks += 8) {
            uint32_t af[MT][4], bf[NT][2];
#pragma unroll
            for (int i = 0; i < MT; ++i) {
                const float *a = as + i * 16 * A_LD + ks;
                af[i][0] = gk_ptx::cvt_rna_tf32(a[0]);
                af[i][1] = gk_ptx::cvt_rna_tf32(a[8 * A_LD]);
                af[i][2] = gk_ptx::cvt_rna_tf32(a[4]);
                af[i][3] = gk_ptx::cvt_rna_tf32(a[8 * A_LD + 4]);
            }
#pragma unroll
            for (int j = 0; j < NT; ++j) {
                const float *b = bs + ks * B_LD + j * 8;
                bf[j][0] = gk_ptx::cvt_rna_tf32(b[0]);
                bf[j][1] = gk_ptx::cvt_rna_tf32(b[4 * B_LD]);
            }
#pragma unroll
            for (int i = 0; i < MT; ++i)
#pragma unroll
                for (int j = 0; j < NT; ++j)
                    gk_ptx::mma_m16n8k8_tf32(acc[i][j], af[i], bf[j]);
        }
        rd = rd + 1 == STAGES ? 0 : rd + 1;
    }
    gk_ptx::cp_async_wait<0>();

    /* Accumulator layout: acc[..][0..1] at (row g, columns 2t, 2t+1), [2..3] at row g + 8. */
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
            for (int r = 0; r < 4; ++r)
                gk_gemm::store_c1(p, m0 + wm + i * 16 + g + (r >> 1) * 8,
                                  n0 + wn + j * 8 + 2 * t + (r & 1), acc[i][j][r]);
}

template <bool VEC_A, bool VEC_B> cudaError_t launch(const gk_rm_problem &p, cudaStream_t s) {
    const int64_t tiles = gk_ceil_div(p.m, BM) * gk_ceil_div(p.n, BN);
    if (tiles > 0x7fffffff) return cudaErrorInvalidValue;
    const cudaError_t e = cudaFuncSetAttribute(
        sgemm_tf32_mma<VEC_A, VEC_B>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
    if (e != cudaSuccess) return e;
    sgemm_tf32_mma<VEC_A, VEC_B><<<(unsigned)tiles, THREADS, SMEM_BYTES, s>>>(p);
    return cudaGetLastError();
}

} // namespace gk_l14

cudaError_t gk_ladder_14_tf32_mma(const gk_rm_problem &p, const gk_launch_env &env) {
    using namespace gk_l14;
    /* 16-byte copies need whole vectors: the row length a multiple of 4 as well as alignment. */
    const bool va = gk_vec_ok(p.a, p.lda) && p.k % 4 == 0,
               vb = gk_vec_ok(p.b, p.ldb) && p.n % 4 == 0;
    if (va) return vb ? launch<true, true>(p, env.stream) : launch<true, false>(p, env.stream);
    return vb ? launch<false, true>(p, env.stream) : launch<false, false>(p, env.stream);
}
