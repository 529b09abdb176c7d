/*
 * 17_tma_ring.cu — ladder step 17: step 16's wgmmas, fed by the Tensor Memory Accelerator. One
 * thread issues a TMA load (cp.async.bulk.tensor) per tile and stage; the unit computes the
 * addresses, writes the 128-byte swizzle itself and fills zeros outside the matrix, so the 256
 * threads no longer spend instructions on copies. The stages form a ring of four buffers, each
 * guarded by two mbarriers:
 *   full[s]   completes when the stage's bytes have landed: the issuing thread arrives with
 *             expect_tx (the bytes to wait for) and the TMA unit's writes count them down;
 *   empty[s]  completes when every warp has finished the wgmmas that read the stage (one
 *             arrival per warp, after wgmma.wait_group shows them done).
 * A barrier's phase flips each time it completes; a stage's u-th use waits for phase u, i.e.
 * parity u & 1. There is no warp specialization: thread 0, which also computes, refills the stage
 * freed by the previous K step with the tile STAGES steps ahead, so three loads stay in flight
 * behind the one being multiplied. Each warpgroup keeps one group of wgmmas in flight while it
 * waits for the next stage (wgmma.wait_group 1), and releases a stage one step late.
 *
 * Operands as for step 16 (B transposed into the scratch, A copied only when TMA cannot read it:
 * 16-byte aligned base and lda); the tensor maps are built per call on the host.
 */

#include "cuda/gemm/tile.cuh"
#include "cuda/gemm/util.cuh"
#include "cuda/hopper/tensor_map.h"
#include "cuda/ladder/ladder.h"
#include "cuda/ladder/tc_steps.h"
#include "cuda/ladder/wgmma_tf32.cuh"

namespace gk_l17 {

using namespace gk_ladder_tc;
constexpr int THREADS = 256, STAGES = 4;
constexpr int STAGE_BYTES = 2 * TILE_BYTES; /* A tile, then B^T tile: the TMA bytes per stage */
/* alignment slack, the ring, then the full and empty barriers */
constexpr int SMEM_BYTES = 1024 + STAGES * STAGE_BYTES + 2 * STAGES * 8;

__global__ void __launch_bounds__(THREADS, 1)
    sgemm_tma_ring(const __grid_constant__ CUtensorMap map_a,
                   const __grid_constant__ CUtensorMap map_bt, const gk_rm_problem p) {
#ifdef GK_SM90A
    using namespace gk_sm90;
    extern __shared__ uint8_t smem_raw[];
    uint8_t *ring = (uint8_t *)(((uintptr_t)smem_raw + 1023) & ~(uintptr_t)1023);
    uint64_t *full = (uint64_t *)(ring + STAGES * STAGE_BYTES), *empty = full + STAGES;
    int64_t m0, n0;
    gk_gemm::tile_origin(p, BM, BN, 8, blockIdx.x, &m0, &n0);
    const int wg = threadIdx.x / 128, lane = threadIdx.x % 32;
    const bool issuer = threadIdx.x == 0;
    const int ktiles = (int)gk_ceil_div(p.k, BK);

    /* stage kt % STAGES <- K tile kt of A's rows m0.. and B^T's rows n0.. */
    auto issue = [&](int kt) {
        const int s = kt % STAGES;
        uint8_t *a = ring + s * STAGE_BYTES;
        mbar_arrive_expect_tx(&full[s], STAGE_BYTES);
        tma_load_2d(a, &map_a, &full[s], kt * BK, (int32_t)m0);
        tma_load_2d(a + TILE_BYTES, &map_bt, &full[s], kt * BK, (int32_t)n0);
    };
    if (issuer) {
        tma_prefetch_desc(&map_a);
        tma_prefetch_desc(&map_bt);
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(&full[s], 1);
            mbar_init(&empty[s], THREADS / 32);
        }
        fence_barrier_init(); /* visible to the TMA unit before its first complete_tx */
        for (int kt = 0; kt < STAGES && kt < ktiles; ++kt)
            issue(kt);
    }
    __syncthreads(); /* the barriers are initialised before anyone waits on them */

    float acc[NACC];
#pragma unroll
    for (int i = 0; i < NACC; ++i)
        acc[i] = 0.0f;
    for (int kt = 0; kt < ktiles; ++kt) {
        const int s = kt % STAGES;
        mbar_wait(&full[s], (kt / STAGES) & 1);
        const uint32_t a = smem_addr(ring + s * STAGE_BYTES);
        mma_stage(acc, a + wg * 64 * ROW_BYTES, a + TILE_BYTES);
        wgmma_wait<1>(); /* this warpgroup's wgmmas of step kt - 1 are done */
        if (kt > 0) {
            const int prev = kt - 1, ps = prev % STAGES;
            if (lane == 0) mbar_arrive(&empty[ps]);
            /* refill it once all eight warps are done with it */
            if (issuer && prev + STAGES < ktiles) {
                mbar_wait(&empty[ps], (prev / STAGES) & 1);
                issue(prev + STAGES);
            }
            __syncwarp();
        }
    }
    wgmma_wait<0>();
    store_acc(p, acc, m0 + wg * 64, n0);
#endif
}

/* Map of a K-major float32 matrix (rows x k, ld floats apart) read in boxes of BK x 128 rows with
 * the 128-byte swizzle; elements outside rows x k read as zeros. */
bool kmajor_map(CUtensorMap *map, const float *base, int64_t rows, int64_t k, int64_t ld) {
    const PFN_cuTensorMapEncodeTiled_v12000 encode = gk_tensor_map_encode();
    if (!encode) return false;
    const cuuint64_t dims[2] = {(cuuint64_t)k, (cuuint64_t)rows};
    const cuuint64_t strides[1] = {(cuuint64_t)ld * 4};
    const cuuint32_t box[2] = {BK, BM}, elem_strides[2] = {1, 1};
    return encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float *>(base), dims, strides,
                  box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                  CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

} // namespace gk_l17

cudaError_t gk_ladder_17_tma_ring(const gk_rm_problem &p, const gk_launch_env &env) {
    using namespace gk_l17;
    static const bool built = built_for_sm90a((const void *)sgemm_tma_ring);
    /* TMA coordinates are int32 */
    const int64_t lim = ((int64_t)1 << 31) - 256;
    const int64_t tiles = gk_ceil_div(p.m, BM) * gk_ceil_div(p.n, BN);
    if (env.sm != 90 || !built || !gk_tensor_map_encode() || p.m > lim || p.n > lim || p.k > lim ||
        tiles > 0x7fffffff)
        return cudaErrorNotSupported;
    gk_kmajor_operands op;
    cudaError_t err = gk_ladder_kmajor_operands(p, env, 0, &op);
    if (err != cudaSuccess) return err;
    CUtensorMap map_a, map_bt;
    if (!kmajor_map(&map_a, op.a, p.m, p.k, op.lda) ||
        !kmajor_map(&map_bt, op.bt, p.n, p.k, op.ldbt))
        return cudaErrorInvalidValue;
    err = cudaFuncSetAttribute(sgemm_tma_ring, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               SMEM_BYTES);
    if (err != cudaSuccess) return err;
    sgemm_tma_ring<<<(unsigned)tiles, THREADS, SMEM_BYTES, env.stream>>>(map_a, map_bt, p);
    return cudaGetLastError();
}
