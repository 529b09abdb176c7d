/*
 * 16_wgmma_tf32.cu — ladder step 16, Hopper's warpgroup MMA: wgmma.mma_async m64n128k8 with TF32
 * operands read from shared memory through matrix descriptors and float32 accumulators in
 * registers. Where step 14's mma.sync is one warp multiplying fragments it loaded into its own
 * registers, a wgmma is issued by a warpgroup (4 warps, 128 threads) and reads both operands
 * straight from shared memory, asynchronously: the threads issue it, may do other work, and wait
 * for its commit group. Shared memory must then hold the tiles in a layout the descriptor
 * describes, here the 128-byte swizzle (wgmma_tf32.cuh).
 *
 * wgmma takes TF32 operands K-major only, so the launcher first copies B transposed into the
 * scratch (gk_ladder_kmajor_operands below, shared with steps 17-20). The operands are handed to
 * the tensor core as float32 bits: it ignores their low 13 mantissa bits (truncation, relative
 * error below 2^-10; the registry's input_rounding).
 *
 * The kernel: 128 x 128 tiles, two warpgroups of 64 rows each, K in stages of 32 floats (one
 * 128-byte row). All 256 threads load both tiles of the next stage with 16-byte cp.async copies
 * into the second of two buffers, each chunk written at its swizzled place, while the wgmmas of
 * this stage run; one barrier per stage. The copies are generic-proxy writes and wgmma reads
 * through the async proxy, hence the proxy fence before the barrier.
 */
#include "cuda/gemm/tile.cuh"
#include "cuda/gemm/util.cuh"
#include "cuda/ladder/ladder.h"
#include "cuda/ladder/tc_steps.h"
#include "cuda/ladder/wgmma_tf32.cuh"
#include "cuda/mixed/mixed.h"
#include "cuda/ptx/ptx.cuh"

namespace gk_l16 {

using namespace gk_ladder_tc;
constexpr int THREADS = 256;
constexpr int STAGE_BYTES = 2 * TILE_BYTES;        /* A tile, then B^T tile */
constexpr int SMEM_BYTES = 1024 + 2 * STAGE_BYTES; /* alignment slack, two stages */

/* One stage's tile of rows [r0, r0 + 128) x K [k0, k0 + 32) of a K-major matrix (rows x k, ld)
 * into the swizzled tile at dst: 1024 chunks of 16 bytes, four per thread, eight threads per row
 * so a warp reads four whole 128-byte row segments. Chunks past the rows or past k are zeros;
 * rows are readable in whole 16-byte pieces up to k (gk_ladder_kmajor_operands). */
__device__ __forceinline__ void load_tile(uint32_t dst, const float *src, int64_t ld, int64_t r0,
                                          int64_t rows, int64_t k0, int64_t k) {
#pragma unroll
    for (int i = 0; i < TILE_BYTES / 16 / THREADS; ++i) {
        const int idx = threadIdx.x + i * THREADS, r = idx / 8, c = idx % 8;
        const int64_t row = r0 + r, kk = k0 + 4 * c;
        const uint32_t bytes = row < rows && kk < k ? 16 : 0;
        gk_ptx::cp_async_16(dst + swizzle_128b(r, c), gk_ptx::cp_src(src + row * ld + kk, bytes),
                            bytes);
    }
}

__global__ void __launch_bounds__(THREADS)
    sgemm_wgmma_tf32(const gk_rm_problem p, const gk_kmajor_operands op) {
#ifdef GK_SM90A
    extern __shared__ uint8_t smem_raw[];
    const uint32_t smem = (gk_ptx::smem_addr(smem_raw) + 1023) & ~1023u; /* swizzle atoms */
    int64_t m0, n0;
    gk_gemm::tile_origin(p, BM, BN, 8, blockIdx.x, &m0, &n0);
    const int wg = threadIdx.x / 128;
    auto load_stage = [&](int64_t kt, int buf) {
        const uint32_t a = smem + buf * STAGE_BYTES;
        load_tile(a, op.a, op.lda, m0, p.m, kt * BK, p.k);
        load_tile(a + TILE_BYTES, op.bt, op.ldbt, n0, p.n, kt * BK, p.k);
        gk_ptx::cp_async_commit();
    };

    float acc[NACC];
#pragma unroll
    for (int i = 0; i < NACC; ++i)
        acc[i] = 0.0f;
    const int64_t ktiles = gk_ceil_div(p.k, BK);
    load_stage(0, 0);
    for (int64_t kt = 0; kt < ktiles; ++kt) {
        const int buf = (int)(kt & 1);
        gk_ptx::cp_async_wait<0>(); /* this thread's copies of stage kt landed */
        gk_sm90::fence_proxy_async_smem();
        /* everyone's copies landed, and every warpgroup has waited for its wgmmas of stage kt - 1:
         * their buffer may be refilled */
        __syncthreads();
        if (kt + 1 < ktiles) load_stage(kt + 1, buf ^ 1);
        const uint32_t a = smem + buf * STAGE_BYTES;
        mma_stage(acc, a + wg * 64 * ROW_BYTES, a + TILE_BYTES);
        gk_sm90::wgmma_wait<0>();
    }
    store_acc(p, acc, m0 + wg * 64, n0);
#endif
}

/* Row length of the K-major copies: whole 128-byte rows (a stage's K). */
inline int64_t kmajor_ld(int64_t k) {
    return (k + BK - 1) / BK * BK;
}

} // namespace gk_l16

size_t gk_ladder_kmajor_scratch(const gk_rm_problem &p, int sm, int sm_count) {
    (void)sm_count;
    if (sm != 90) return 0;
    const int64_t ld = gk_l16::kmajor_ld(p.k);
    int64_t a, b;
    if (__builtin_mul_overflow(p.m, ld, &a) || __builtin_mul_overflow(p.n, ld, &b) ||
        a > INT64_MAX / 16 || b > INT64_MAX / 16)
        return SIZE_MAX / 2; /* the dispatcher reports the workspace overflow */
    /* each copy a whole number of 64 floats (256 bytes) */
    return GK_SCRATCH_FLAG_BYTES + (size_t)(gk_ceil_div(b, 64) + gk_ceil_div(a, 64)) * 256;
}

cudaError_t gk_ladder_kmajor_operands(const gk_rm_problem &p, const gk_launch_env &env,
                                      int whole_vectors, gk_kmajor_operands *out) {
    if (!env.scratch) return cudaErrorNotSupported;
    const int64_t ld = gk_l16::kmajor_ld(p.k);
    float *bt = (float *)((char *)env.scratch + GK_SCRATCH_FLAG_BYTES);
    float *a_copy = bt + gk_ceil_div(p.n * ld, 64) * 64;
    /* B (k x n, row-major) is the MN-major form of the K-major n x k matrix B^T */
    gk_repack r = {p.b, p.ldb, 1, GK_TF32, p.n, p.k, bt, ld, GK_TF32, 0};
    cudaError_t err = gk_repack_operand(r, env.stream);
    if (err != cudaSuccess) return err;
    out->bt = bt, out->ldbt = ld;
    if (gk_vec_ok(p.a, p.lda) && (!whole_vectors || p.k % 4 == 0)) {
        out->a = p.a, out->lda = p.lda;
        return cudaSuccess;
    }
    r = gk_repack{p.a, p.lda, 0, GK_TF32, p.m, p.k, a_copy, ld, GK_TF32, 0};
    out->a = a_copy, out->lda = ld;
    return gk_repack_operand(r, env.stream);
}

cudaError_t gk_ladder_16_wgmma_tf32(const gk_rm_problem &p, const gk_launch_env &env) {
    using namespace gk_l16;
    static const bool built = built_for_sm90a((const void *)sgemm_wgmma_tf32);
    const int64_t tiles = gk_ceil_div(p.m, BM) * gk_ceil_div(p.n, BN);
    if (env.sm != 90 || !built || tiles > 0x7fffffff) return cudaErrorNotSupported;
    gk_kmajor_operands op;
    cudaError_t err = gk_ladder_kmajor_operands(p, env, 1, &op);
    if (err != cudaSuccess) return err;
    err = cudaFuncSetAttribute(sgemm_wgmma_tf32, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               SMEM_BYTES);
    if (err != cudaSuccess) return err;
    sgemm_wgmma_tf32<<<(unsigned)tiles, THREADS, SMEM_BYTES, env.stream>>>(p, op);
    return cudaGetLastError();
}
