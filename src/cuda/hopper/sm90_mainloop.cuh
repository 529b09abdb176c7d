/*
 * sm90_mainloop.cuh — the mainloop of the sm_90a kernel, producer and consumers: the producer
 * thread's TMA loads into the mbarrier-guarded ring (multicast of B within a cluster, the 3xTF32
 * parts, block scales behind the tiles), the consumers' wgmmas over it (a stage's four K steps,
 * the stages of one K chunk, the promoted FP8 tile with its per-stage float32 sums and block
 * scales) and the release of each stage to every producer of the cluster.
 */
#ifndef GK_CUDA_HOPPER_SM90_MAINLOOP_CUH
#define GK_CUDA_HOPPER_SM90_MAINLOOP_CUH

#include <type_traits>

#include "cuda/hopper/sm90_schedule.cuh"

namespace gk_sm90 {

#ifdef GK_SM90A
/* One wgmma of C's operand types, m64 x BN x 32 bytes of K (sm90.cuh names them by width). */
#define GK_SM90_WGMMA(N)                                                                           \
    if constexpr (C::OP == OP_BF16)                                                                \
        wgmma_bf16_n##N<C::A_MN, C::B_MN>(d, da, db, scale_d);                                     \
    else if constexpr (C::OP == OP_F16)                                                            \
        wgmma_f16_n##N<C::A_MN, C::B_MN>(d, da, db, scale_d);                                      \
    else if constexpr (C::OP == OP_TF32)                                                           \
        wgmma_tf32_n##N(d, da, db, scale_d);                                                       \
    else if constexpr (C::OP == OP_E4M3_E4M3)                                                      \
        wgmma_e4m3_e4m3_n##N(d, da, db, scale_d);                                                  \
    else if constexpr (C::OP == OP_E4M3_E5M2)                                                      \
        wgmma_e4m3_e5m2_n##N(d, da, db, scale_d);                                                  \
    else                                                                                           \
        wgmma_e5m2_e4m3_n##N(d, da, db, scale_d);
template <class C, int N>
__device__ __forceinline__ void wgmma(float *d, uint64_t da, uint64_t db, int scale_d) {
    static_assert(N == 32 || N == 64 || N == 128 || N == 192 || N == 256, "a wgmma width");
    if constexpr (N == 32) {
        GK_SM90_WGMMA(32)
    } else if constexpr (N == 64) {
        GK_SM90_WGMMA(64)
    } else if constexpr (N == 128) {
        GK_SM90_WGMMA(128)
    } else if constexpr (N == 192) {
        GK_SM90_WGMMA(192)
    } else {
        GK_SM90_WGMMA(256)
    }
}
#undef GK_SM90_WGMMA

/* One stage's four wgmmas (K = 4 x 32 bytes) for a 64-row slice and N columns of B from b_base,
 * into d. */
template <class C, int N = C::BN>
__device__ __forceinline__ void mma_stage(float *d, uint32_t a_base, uint32_t b_base,
                                          int zero_first) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        /* K-major: step 32 bytes along the swizzled row (SBO: 8 rows = 1024 bytes). MN-major: step
         * 16 K rows = 2048 bytes (SBO: 8 K rows; LBO: the next 64-wide chunk, 8192 bytes). */
        const uint64_t da = C::A_MN ? desc_sw128(a_base + j * 2048, C::BK * ROW_BYTES, 1024)
                                    : desc_sw128(a_base + j * 32, 16, 1024);
        const uint64_t db = C::B_MN ? desc_sw128(b_base + j * 2048, C::BK * ROW_BYTES, 1024)
                                    : desc_sw128(b_base + j * 32, 16, 1024);
        wgmma<C, N>(d, da, db, !(zero_first && j == 0));
    }
}

/* Load (CM == 1) or multicast to the whole cluster (CM > 1) one box of B. */
template <class C>
__device__ __forceinline__ void load_b(void *dst, const CUtensorMap *map, uint64_t *bar, int32_t c0,
                                       int32_t c1) {
    if constexpr (C::CM > 1)
        tma_load_2d_multicast(dst, map, bar, c0, c1, (uint16_t)((1u << C::CM) - 1));
    else
        tma_load_2d(dst, map, bar, c0, c1);
}

/* One consumer warp is done reading a stage: tell every CTA of the cluster (each one's producer
 * multicasts into this CTA's copy of the stage). */
template <class C> __device__ __forceinline__ void release(uint64_t *bar) {
    if constexpr (C::CM > 1) {
#pragma unroll
        for (int r = 0; r < C::CM; ++r)
            mbar_arrive_cluster(bar, r);
    } else {
        mbar_arrive(bar);
    }
}

/* Compile-time loop: f(std::integral_constant<int, I>) for I in [B, E). */
template <int B, int E, class F> __device__ __forceinline__ void static_for(F &&f) {
    if constexpr (B < E) {
        f(std::integral_constant<int, B>{});
        static_for<B + 1, E>(f);
    }
}

/* Part Q of the tile (n8 blocks [Q * PB, (Q + 1) * PB) of acc) += part, times the scales of a
 * block-scaled product: element 4j + 2h + e (row 8h + ...) takes sc[2Q + h], its row's scale of A
 * times the part's block scale of B (a block-scaled part is 128 columns of one 128x128 block). */
template <class C, int Q>
__device__ __forceinline__ void promote(float *acc, const float *part, const float *sc) {
    constexpr int PB = C::PN / 8, j0 = Q * PB;
#pragma unroll
    for (int jj = 0; jj < PB; ++jj)
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            if constexpr (C::SC == SC_NONE)
                acc[4 * (j0 + jj) + i] += part[4 * jj + i];
            else
                acc[4 * (j0 + jj) + i] =
                    fmaf(part[4 * jj + i], sc[2 * Q + i / 2], acc[4 * (j0 + jj) + i]);
        }
}

/* B's 128x128 block scales of tile column tn's parts in K block kb: part q covers columns
 * [tn * BN + 128q, + 128), block tn * BN / 128 + q (the second one only in a 256-wide tile, and
 * 0 when it lies past n: its columns are unused). */
template <class C> __device__ __forceinline__ float2 blk_scales(const params &p, int tn, int kb) {
    const int64_t b0 = (int64_t)tn * C::BN / 128;
    return make_float2(__ldg(p.blk + b0 * p.blk_ld + kb),
                       C::PARTS > 1 && b0 + 1 < p.blk_rows ? __ldg(p.blk + (b0 + 1) * p.blk_ld + kb)
                                                           : 0.0f);
}

/* The main loop of one promoted FP8 tile (docs/cuda.md, "Tensor cores on Hopper"). Each stage's
 * four wgmmas (one 128-K block) are issued part by part (config::PARTS column ranges of the tile)
 * into a temporary, and each finished temporary is added to the float32 accumulator, times
 * sa(row) * sb(col block) when the product is block-scaled. While one consumer warpgroup waits
 * and adds, the other one's wgmmas keep the tensor core busy. (Issuing the next part before
 * adding the previous one, in two temporaries, measured slower: the narrower wgmmas read A from
 * shared memory once per part.)
 * Block scales: the stage's per-row scales of A are in shared memory behind its tiles (BM
 * floats), read before its wgmmas are issued; B's block scales (blk_scales) are loaded a stage
 * ahead from L2, since waiting for them inside the stage cost about a tenth of the kernel's time.
 * Fragment of element 4j + 2h + e: row warp*16 + lane/4 + 8h, column 8j + 2*(lane%4) + e of the
 * consumer's 64 x BN slice. */
template <class C>
__device__ __forceinline__ void promoted_tile(const params &p, float *acc, uint32_t ring,
                                              uint32_t a_off, uint64_t *full, uint64_t *empty,
                                              int &stage, uint32_t &phase, int cw, int warp,
                                              int lane, int tn, int steps) {
    float part[C::NACC / C::PARTS];
    float sc[4] = {1.0f, 1.0f, 1.0f, 1.0f};
    float2 vb = make_float2(0.0f, 0.0f);
    if constexpr (C::SC != SC_NONE) vb = blk_scales<C>(p, tn, 0);
    const int r0 = cw * 64 + warp * 16 + lane / 4;
    for (int s = 0; s < steps; ++s) {
        mbar_wait(&full[stage], phase);
        const uint32_t a_base = ring + stage * C::STAGE_BYTES + a_off;
        const uint32_t b_base = ring + stage * C::STAGE_BYTES + C::A_BYTES;
        float sa0 = 1.0f, sa1 = 1.0f;
        if constexpr (C::SC != SC_NONE)
            sa0 = lds_f32(b_base + C::B_BYTES + r0 * 4),
            sa1 = lds_f32(b_base + C::B_BYTES + (r0 + 8) * 4);
        static_for<0, C::PARTS>([&](auto qc) {
            constexpr int q = decltype(qc)::value;
            wgmma_fence();
            mma_stage<C, C::PN>(part, a_base, b_base + q * C::PN * ROW_BYTES, 1);
            wgmma_commit();
            if constexpr (q == 0 && C::SC != SC_NONE) {
                const float2 v = vb;
                if (s + 1 < steps) vb = blk_scales<C>(p, tn, s + 1);
                sc[0] = sa0 * v.x, sc[1] = sa1 * v.x, sc[2] = sa0 * v.y, sc[3] = sa1 * v.y;
            }
            wgmma_wait<0>();
            if (q == C::PARTS - 1 && lane == 0) release<C>(&empty[stage]);
            promote<C, q>(acc, part, sc);
        });
        if (++stage == C::STAGES) stage = 0, phase ^= 1;
    }
}

/* The producer thread: walks the same tiles as the consumers and fills the ring. */
template <class C>
__device__ __forceinline__ void
produce(const params &p, uint8_t *smem, uint64_t *full, uint64_t *empty, const CUtensorMap *map_a,
        const CUtensorMap *map_b, const CUtensorMap *map_a_lo, const CUtensorMap *map_b_lo,
        const CUtensorMap *map_sa, uint32_t rank, int first, int stride) {
    int stage = 0;
    uint32_t phase = 0;
    const int vf = p.split3 ? 3 : 1; /* steps per K block */
    for (int u = first; u < p.units; u += stride) {
        int tm, tn, c0, c1, kb0, kb1, last;
        unit_coords(p, u, tm, tn, c0, c1);
        chunk_blocks(p, c0, kb0, last);
        chunk_blocks(p, c1 - 1, last, kb1);
        const int m0 = (tm * C::CM + rank) * BM, n0 = tn * C::BN;
        for (int s = kb0 * vf; s < kb1 * vf; ++s) {
            const CUtensorMap *ma = map_a, *mb = map_b;
            int kb = s;
            if (p.split3) {
                kb = s / 3;
                int part = s - 3 * kb; /* 0: lo*hi, 1: hi*lo, 2: hi*hi */
                if (p.split3_swapped && part < 2) part = 1 - part;
                if (part == 0) ma = map_a_lo;
                if (part == 1) mb = map_b_lo;
            }
            const int k0 = kb * C::BK;
            mbar_wait(&empty[stage], phase ^ 1);
            uint8_t *a_dst = smem + stage * C::STAGE_BYTES, *b_dst = a_dst + C::A_BYTES;
            mbar_arrive_expect_tx(&full[stage], C::TX_BYTES);
            if constexpr (C::A_MN) {
#pragma unroll
                for (int c = 0; c < BM / CHUNK; ++c)
                    tma_load_2d(a_dst + c * C::BK * ROW_BYTES, ma, &full[stage], m0 + c * CHUNK,
                                k0);
            } else {
                tma_load_2d(a_dst, ma, &full[stage], k0, m0);
            }
            /* this CTA's share of the B tile: chunks (or K rows of every chunk, config::B_KPARTS)
             * or rows [rank, rank + 1) / CM */
            if constexpr (C::B_MN) {
                constexpr int KP = C::B_KPARTS, PER = C::BN / CHUNK / (C::CM / KP);
                constexpr int ROWS_K = C::BK / KP;
                const int first_c = KP > 1 ? 0 : rank * PER, kpart = KP > 1 ? rank : 0;
#pragma unroll
                for (int c = first_c; c < first_c + PER; ++c)
                    load_b<C>(b_dst + (c * C::BK + kpart * ROWS_K) * ROW_BYTES, mb, &full[stage],
                              n0 + c * CHUNK, k0 + kpart * ROWS_K);
            } else {
                constexpr int ROWS = C::BN / C::CM;
                load_b<C>(b_dst + rank * ROWS * ROW_BYTES, mb, &full[stage], k0, n0 + rank * ROWS);
            }
            /* per-row scales of this CTA's rows of A */
            if constexpr (C::SC != SC_NONE)
                tma_load_2d(b_dst + C::B_BYTES, map_sa, &full[stage], m0, kb);
            if (++stage == C::STAGES) stage = 0, phase ^= 1;
        }
    }
}

/* The wgmmas of K blocks [kb0, kb1) of one tile into d (zeroed first), stage by stage: each
 * stage's wgmmas stay in flight while the previous stage is released, and all are done on return.
 */
template <class C>
__device__ __forceinline__ void mma_blocks(float *d, uint32_t ring, uint32_t a_off, uint64_t *full,
                                           uint64_t *empty, int &stage, uint32_t &phase, int lane,
                                           int steps) {
#pragma unroll
    for (int i = 0; i < C::NACC; ++i)
        d[i] = 0.0f;
    int prev = -1;
    for (int s = 0; s < steps; ++s) {
        mbar_wait(&full[stage], phase);
        const uint32_t a_base = ring + stage * C::STAGE_BYTES + a_off;
        const uint32_t b_base = ring + stage * C::STAGE_BYTES + C::A_BYTES;
        wgmma_fence();
        mma_stage<C>(d, a_base, b_base, 0);
        wgmma_commit();
        wgmma_wait<1>();
        if (prev >= 0 && lane == 0) release<C>(&empty[prev]);
        prev = stage;
        if (++stage == C::STAGES) stage = 0, phase ^= 1;
    }
    wgmma_wait<0>();
    if (prev >= 0 && lane == 0) release<C>(&empty[prev]);
}
#endif /* GK_SM90A */

} // namespace gk_sm90

#endif
