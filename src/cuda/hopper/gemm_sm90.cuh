/*
 * gemm_sm90.cuh — the sm_90a tensor-core GEMM kernel: one template for BF16, FP16, TF32 and FP8
 * operands (contract: hopper.h; launcher: gemm_sm90.cu; design and measurements: docs/cuda.md,
 * "Tensor cores on Hopper"), composed of its layers, each in its own file:
 *   sm90_config.cuh    kinds, geometry, parameters, one instance's configuration;
 *   sm90_schedule.cuh  the tile scheduler (persistent, grouped order, split-K units);
 *   sm90_mainloop.cuh  the producer's TMA ring and the consumers' wgmmas;
 *   sm90_epilogue.cuh  alpha/beta, conversion, TMA or direct stores, the split-K reduction;
 * this file: the consumer warpgroups' loop over units and the kernel that sets up the ring and
 * gives each warpgroup its role. The plan of a call (swap, width, K chunks): sm90_plan.h.
 *
 * Shape of the kernel:
 *   - A CTA of three warpgroups (384 threads). Warpgroup 0 is the producer: it gives up registers
 *     (setmaxnreg) and one of its threads issues TMA loads of A and B tiles into a ring of STAGES
 *     shared-memory buffers, each guarded by a "full" mbarrier (TMA bytes landed) and an "empty"
 *     one (both consumers done reading). Warpgroups 1 and 2 are consumers: they take the freed
 *     registers and each computes 64 rows of the 128 x BN tile with wgmma, its accumulators in
 *     registers. The tile width BN (32 to 256) is the launcher's choice per problem
 *     (sm90_plan.h: fewer idle SMs in the last round of tiles against more bytes per product).
 *   - Every buffer row is 128 bytes of K (64 BF16/FP16, 32 TF32, 128 FP8 elements) with the
 *     128-byte swizzle, so the descriptors and K steps (32 bytes per wgmma) are the same for every
 *     type; MN-major operands (16-bit types only) are stored as 64-element-wide chunks of K rows.
 *   - Persistent: the grid has one CTA per SM and each walks the tiles t = blockIdx.x, +gridDim.x,
 *     ... in a grouped order (GROUP_M tile rows at a time) so that CTAs running together share A
 *     and B tiles in L2. The producer runs ahead into the next tile while consumers finish one.
 *   - FP8 without fast accumulation: each stage's four wgmmas accumulate into a temporary that is
 *     added to the float32 accumulator after every 128 of K (the tensor core's FP8 accumulator
 *     keeps fewer mantissa bits than float32). The temporary needs registers beside the
 *     accumulators, so a 256-wide tile is multiplied in two halves of 128 columns, one after the
 *     other, each into the same temporary (promoted_tile).
 *   - Block-scaled FP8 (hopper.h's block scales: 1x128 on A, 128x128 on B): the same promotion,
 *     each stage's temporary multiplied by its rows' scales and its columns' block scale as it is
 *     added. A's per-row scales travel with the stage (a TMA box of the transposed float32 scales
 *     behind the A and B tiles); B's 128x128 block scales are a value or two per stage, read from
 *     global memory (L2) by the consumers. Only this arrangement exists: a per-column scale
 *     would cost each thread a multiply per column pair and stage, and measured slower than
 *     swapping the operands and storing C transposed (docs/cuda.md, "Block-scaled GEMM").
 *   - 3xTF32 (split3): the producer walks three virtual K blocks per block of K, loading
 *     (A lo, B hi), (A hi, B lo), (A hi, B hi) from the four tensor maps.
 *   - Epilogue: alpha (times the FP8 scales) and beta applied in registers, stored through shared
 *     memory with TMA (beta == 0, aligned C) or straight to global memory as pairs of columns (or
 *     single elements of a transposed C), rows and columns past M and N masked.
 */
#ifndef GK_CUDA_HOPPER_GEMM_SM90_CUH
#define GK_CUDA_HOPPER_GEMM_SM90_CUH

#include "cuda/hopper/sm90_epilogue.cuh"
#include "cuda/hopper/sm90_mainloop.cuh"

namespace gk_sm90 {

#ifdef GK_SM90A
/* The consumer warpgroups: wgmma over the ring, then the epilogue of each unit (sm90_plan.h: a
 * whole tile adds its chunk sums in chunk order, the first one copied; a split unit writes its
 * one chunk's sum). */
template <class C>
__device__ __forceinline__ void consume(const params &p, uint8_t *smem, uint64_t *full,
                                        uint64_t *empty, uint8_t *epi, const CUtensorMap *map_c,
                                        int cw, uint32_t rank, int first, int stride) {
    setmaxnreg_inc<CONSUMER_REGS>();
    const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    float alpha = p.alpha;
    if (p.scale_a) alpha *= *p.scale_a;
    if (p.scale_b) alpha *= *p.scale_b;
    /* A slice of this consumer inside a stage: K-major rows cw*64.., or MN-major chunk cw. */
    const uint32_t a_off = C::A_MN ? cw * C::BK * ROW_BYTES : cw * 64 * ROW_BYTES;
    const uint32_t ring = smem_addr(smem);
    const int vf = p.split3 ? 3 : 1; /* steps per K block */

    int stage = 0;
    uint32_t phase = 0;
    for (int u = first; u < p.units; u += stride) {
        int tm, tn, c0, c1;
        unit_coords(p, u, tm, tn, c0, c1);
        tm = tm * C::CM + rank;
        float acc[C::NACC];
        if constexpr (C::PROMOTE) {
#pragma unroll
            for (int i = 0; i < C::NACC; ++i)
                acc[i] = 0.0f;
            promoted_tile<C>(p, acc, ring, a_off, full, empty, stage, phase, cw, warp, lane, tn,
                             p.kblocks);
        } else if constexpr (C::CHUNKS) {
            for (int c = c0; c < c1; ++c) {
                int kb0, kb1;
                chunk_blocks(p, c, kb0, kb1);
                float part[C::NACC];
                mma_blocks<C>(part, ring, a_off, full, empty, stage, phase, lane, (kb1 - kb0) * vf);
#pragma unroll
                for (int i = 0; i < C::NACC; ++i)
                    acc[i] = c == c0 ? part[i] : acc[i] + part[i];
            }
        } else { /* one chunk per unit (the plan's rule for widths without room for a temporary) */
            int kb0, kb1;
            chunk_blocks(p, c0, kb0, kb1);
            mma_blocks<C>(acc, ring, a_off, full, empty, stage, phase, lane, (kb1 - kb0) * vf);
        }

        /* wgmma D fragment: n8 block j, row lane/4 (+8), columns 2*(lane%4) + {0, 1} */
        const int64_t row0 = (int64_t)tm * BM + cw * 64 + warp * 16 + lane / 4;
        const int64_t col0 = (int64_t)tn * C::BN + 2 * (lane % 4);
        if (p.split) {
            store_chunk<C>(p, acc, c0, row0, col0);
            continue;
        }
        /* a row (transposed: column) end that is not a multiple of 16 bytes: the last tile column
         * (row) takes the direct path, since TMA stores whole 16-byte pieces */
        const bool edge = p.c_trans ? (int64_t)(tm + 1) * BM >= p.m : tn + 1 >= p.tiles_n;
        if (C::TMA_EPI && p.c_tma && (p.c_tma_last || !edge)) {
            const int32_t r0 = tm * BM + cw * 64, c0 = tn * C::BN;
            uint8_t *buf = epi + cw * EPI_BYTES;
            if (p.c_trans)
                store_tile<C, true>(p, map_c, acc, buf, cw, warp, lane, r0, c0, alpha);
            else
                store_tile<C, false>(p, map_c, acc, buf, cw, warp, lane, r0, c0, alpha);
            continue;
        }
#pragma unroll
        for (int j = 0; j < C::BN / 8; ++j) {
            store_pair(p, row0, col0 + 8 * j, acc[4 * j], acc[4 * j + 1], alpha, p.beta);
            store_pair(p, row0 + 8, col0 + 8 * j, acc[4 * j + 2], acc[4 * j + 3], alpha, p.beta);
        }
    }
    /* the last bulk stores must have read the staging buffer before the CTA's memory goes */
    if (p.c_tma && threadIdx.x % 128 == 0) bulk_wait<0>();
}
#endif /* GK_SM90A */

template <class C>
__global__ void __launch_bounds__(THREADS, 1)
    gemm_kernel(const __grid_constant__ CUtensorMap map_a,
                const __grid_constant__ CUtensorMap map_b,
                const __grid_constant__ CUtensorMap map_a_lo,
                const __grid_constant__ CUtensorMap map_b_lo,
                const __grid_constant__ CUtensorMap map_c,
                const __grid_constant__ CUtensorMap map_sa, const params p) {
#ifdef GK_SM90A
    extern __shared__ uint8_t smem_raw[];
    uint8_t *smem = (uint8_t *)(((uintptr_t)smem_raw + 1023) & ~(uintptr_t)1023);
    uint8_t *epi = smem + C::STAGES * C::STAGE_BYTES;
    uint64_t *full = (uint64_t *)(epi + 2 * EPI_BYTES);
    uint64_t *empty = full + C::STAGES;
    const int wg = threadIdx.x / 128;
    /* Clusters of CM CTAs take CM vertically adjacent tiles (same B tile): each CTA loads 1/CM of
     * the B tile and multicasts it to all, so a stage may be refilled only when the consumers of
     * every CTA of the cluster have released it. p.tiles counts these groups of CM tiles. */
    const uint32_t rank = C::CM > 1 ? cluster_ctarank() : 0;
    const int first = blockIdx.x / C::CM, stride = gridDim.x / C::CM;

    if (threadIdx.x == 0) {
        tma_prefetch_desc(&map_a);
        tma_prefetch_desc(&map_b);
        for (int s = 0; s < C::STAGES; ++s) {
            mbar_init(&full[s], 1);
            mbar_init(&empty[s], 8 * C::CM); /* one arrival per consumer warp of the cluster */
        }
        fence_barrier_init();
    }
    if constexpr (C::CM > 1)
        cluster_sync();
    else
        __syncthreads();

    if (wg == 0) {
        setmaxnreg_dec<PRODUCER_REGS>();
        if (threadIdx.x == 0)
            produce<C>(p, smem, full, empty, &map_a, &map_b, &map_a_lo, &map_b_lo, &map_sa, rank,
                       first, stride);
    } else {
        consume<C>(p, smem, full, empty, epi, &map_c, wg - 1, rank, first, stride);
    }
    /* no CTA may leave while another one of its cluster can still write into its shared memory */
    if constexpr (C::CM > 1) cluster_sync();
#endif /* GK_SM90A */
}

} // namespace gk_sm90

#endif
