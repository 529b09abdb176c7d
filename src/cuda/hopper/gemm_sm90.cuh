/*
 * gemm_sm90.cuh — the sm_90a tensor-core GEMM kernel: one template for BF16, FP16, TF32 and FP8
 * operands (contract: hopper.h; launcher: gemm_sm90.cu; design and measurements: docs/cuda.md,
 * "Tensor cores on Hopper").
 *
 * Shape of the kernel:
 *   - A CTA of three warpgroups (384 threads). Warpgroup 0 is the producer: it gives up registers
 *     (setmaxnreg) and one of its threads issues TMA loads of A and B tiles into a ring of STAGES
 *     shared-memory buffers, each guarded by a "full" mbarrier (TMA bytes landed) and an "empty"
 *     one (both consumers done reading). Warpgroups 1 and 2 are consumers: they take the freed
 *     registers and each computes 64 rows of the 128 x BN tile with wgmma, its accumulators in
 *     registers. The tile width BN (128, 192 or 256) is the launcher's choice per problem
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

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "cuda/ptx/sm90.cuh"

namespace gk_sm90 {

/* The multiply: operand types and the wgmma that consumes them. */
enum op_kind { OP_BF16, OP_F16, OP_TF32, OP_E4M3_E4M3, OP_E4M3_E5M2, OP_E5M2_E4M3 };

/* Block scales per 128 of K (hopper.h): none, or per-row scales on A and 128x128 blocks on B. */
enum scale_kind { SC_NONE, SC_K128 };

/* Output element types (runtime: the epilogue is a small part of the kernel). */
enum out_kind { OUT_F32 = 0, OUT_BF16 = 1, OUT_F16 = 2 };

constexpr int BM = 128;           /* tile rows: 64 per consumer warpgroup */
constexpr int ROW_BYTES = 128;    /* bytes of K per buffer row (one swizzle row) */
constexpr int CHUNK = 64;         /* MN-major chunk width in 16-bit elements (128 bytes) */
constexpr int GROUP_M = 8;        /* tile rows per group of the tile order */
constexpr int THREADS = 384;      /* producer + two consumer warpgroups */
constexpr int PRODUCER_REGS = 40; /* setmaxnreg targets: 40*128 + 232*256 <= 64K registers */
constexpr int CONSUMER_REGS = 232;
constexpr int EPI_BYTES = 16384; /* per consumer: two 64-row x 128-byte boxes of C */

struct params {
    int64_t m, n, k;
    int tiles_m, tiles_n, tiles;
    int kblocks;        /* ceil(k / BK) */
    int split3;         /* 3xTF32: three virtual K blocks per block */
    int split3_swapped; /* ... for swapped operands: the first two in the other order, so that
                         * every element sums lo*hi, hi*lo, hi*hi of the caller's A and B */
    /* K chunks (sm90_plan.h): kc K blocks each, the last one shorter. A unit of work is a whole
     * tile that adds its chunk sums in chunk order, or with split one chunk of one tile whose sum
     * goes to ws: chunk c's element (row, col) at ws[(c * m + row) * ws_ld + col] */
    int kc, chunks, split, units;
    float *ws;
    int64_t ws_ld;
    void *c;
    int64_t ldc;
    int c_type;     /* out_kind */
    int c_trans;    /* C stored transposed: element (row, col) at c[col * ldc + row] */
    int c_pair;     /* C may be accessed two elements at a time (alignment of c and ldc) */
    int c_tma;      /* store C through shared memory with TMA (beta == 0 and TMA-aligned C) */
    int c_tma_last; /* ... also in the last tile column (transposed: row): C's lines end on a
                     * multiple of 16 bytes */
    float alpha, beta;
    const float *scale_a, *scale_b;
    /* B's 128x128 block scales (SC_K128): blk[(col / 128) * blk_ld + kb] */
    const float *blk;
    int64_t blk_ld;
    int blk_rows; /* ceil(n / 128) */
};

template <int OP> struct op_traits;
template <> struct op_traits<OP_BF16> { static constexpr int elem_bytes = 2; };
template <> struct op_traits<OP_F16> { static constexpr int elem_bytes = 2; };
template <> struct op_traits<OP_TF32> { static constexpr int elem_bytes = 4; };
template <> struct op_traits<OP_E4M3_E4M3> { static constexpr int elem_bytes = 1; };
template <> struct op_traits<OP_E4M3_E5M2> { static constexpr int elem_bytes = 1; };
template <> struct op_traits<OP_E5M2_E4M3> { static constexpr int elem_bytes = 1; };

template <int OP_, int BN_, bool A_MN_, bool B_MN_, bool PROMOTE_, int CM_, int SC_ = SC_NONE>
struct config {
    static constexpr int OP = OP_, BN = BN_, CM = CM_, SC = SC_;
    static constexpr bool A_MN = A_MN_, B_MN = B_MN_, PROMOTE = PROMOTE_;
    static constexpr int BK = ROW_BYTES / op_traits<OP>::elem_bytes; /* K elements per stage */
    static constexpr int A_BYTES = BM * ROW_BYTES, B_BYTES = BN * ROW_BYTES;
    /* per-row scales of a stage (one block of K) for the BM rows of A, float32, after the tiles;
     * the stage size stays a multiple of the swizzle's 1024 bytes */
    static constexpr int SA_BYTES = SC == SC_K128 ? BM * 4 : 0;
    static constexpr int TX_BYTES = A_BYTES + B_BYTES + SA_BYTES; /* TMA bytes per stage */
    static constexpr int STAGE_BYTES = A_BYTES + B_BYTES + (SA_BYTES + 1023) / 1024 * 1024;
    static constexpr int STAGES = (196608 / STAGE_BYTES) < 8 ? 196608 / STAGE_BYTES : 8;
    static constexpr int NACC = BN / 2; /* accumulator floats per thread (64 rows x BN / 128) */
    /* A tile of several K chunks sums each chunk into a temporary beside the accumulators: room
     * for it up to 128 columns. 192 (96 + 96 floats) fits too but is not offered: it measured
     * slower than 128 at 4096^2 and faster at 512 x 5120 x 27648, which the width rule of
     * sm90_plan.h cannot tell apart yet (bench/results/h200/README.md, "Plans tried"). The
     * promoted FP8 product has its own temporary, per stage. */
    static constexpr bool CHUNKS = !PROMOTE && BN <= 128;
    /* the epilogue through shared memory stores boxes of 64 columns (or 128 bytes) */
    static constexpr bool TMA_EPI = BN >= 64;
    /* promoted FP8: the tile's columns are multiplied in PARTS parts of PN columns, each into a
     * temporary of NACC / PARTS floats that must fit beside the accumulators (192 of the
     * consumers' 232 registers): one part up to 192 columns, two halves of a 256-wide tile */
    static constexpr int PARTS = PROMOTE && 2 * NACC > 192 ? 2 : 1, PN = BN / PARTS;
    static_assert(NACC + (PROMOTE ? NACC / PARTS : 0) <= 192, "accumulators within the budget");
    /* dynamic shared memory: 1024-byte alignment slack, the ring, the epilogue's staging buffers
     * (EPI_BYTES per consumer), then 2 * STAGES mbarriers */
    static constexpr int SMEM_BYTES = 1024 + STAGES * STAGE_BYTES + 2 * EPI_BYTES + 2 * STAGES * 8;
    static_assert(!(A_MN || B_MN) || op_traits<OP>::elem_bytes == 2, "MN-major needs 16-bit");
    static_assert(BN == 32 || BN == 64 || BN == 128 || BN == 192 || BN == 256,
                  "wgmma wrappers exist for N = 32, 64, 128, 192, 256");
    /* one CTA per SM whatever the width: the launcher counts resident clusters once per call, for
     * any configuration (gemm_sm90.cu) */
    static_assert(2 * SMEM_BYTES > 228 * 1024, "one CTA per SM");
    static_assert(SMEM_BYTES <= 227 * 1024, "the most dynamic shared memory a CTA may have");
    static_assert(CM == 1 || CM == 2, "clusters of one or two CTAs along M");
    static_assert(SC == SC_NONE || (PROMOTE && op_traits<OP>::elem_bytes == 1 && !A_MN && !B_MN &&
                                    BK == 128 && PN == 128),
                  "block scales: promoted FP8, K-major, one scale block per stage and part");
    /* MN-major B: the cluster's CTAs load whole 64-wide chunks each, or, when the chunks do not
     * split evenly between them (BN = 192), a part of every chunk's K rows each */
    static constexpr int B_KPARTS = B_MN && (BN / CHUNK) % CM != 0 ? CM : 1;
    static_assert(!B_MN || (BN / CHUNK) % (CM / B_KPARTS) == 0, "MN-major B chunks split evenly");
    static_assert(BK % (8 * B_KPARTS) == 0, "K parts of whole 8-row swizzle atoms");
};

#ifdef GK_SM90A
/* Tile t of the grouped order -> (tile row, tile column). */
__device__ __forceinline__ void tile_coords(const params &p, int t, int &tm, int &tn) {
    const int per_group = GROUP_M * p.tiles_n;
    const int group = t / per_group, first = group * GROUP_M;
    const int rows = min(GROUP_M, p.tiles_m - first);
    const int r = t - group * per_group;
    tm = first + r % rows;
    tn = r / rows;
}

/* Unit u of the schedule (params::units) -> its tile and its K blocks [kb0, kb1). */
__device__ __forceinline__ void unit_coords(const params &p, int u, int &tm, int &tn, int &c0,
                                            int &c1) {
    int t = u;
    c0 = 0, c1 = p.chunks;
    if (p.split) t = u / p.chunks, c0 = u - t * p.chunks, c1 = c0 + 1;
    tile_coords(p, t, tm, tn);
}

/* The K blocks of chunk c. */
__device__ __forceinline__ void chunk_blocks(const params &p, int c, int &kb0, int &kb1) {
    kb0 = c * p.kc;
    kb1 = min(kb0 + p.kc, p.kblocks);
}

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

/* Elements (row, col) and (row, col + 1) of the product: alpha, beta and C's type applied. */
__device__ __forceinline__ void store_pair(const params &p, int64_t row, int64_t col, float v0,
                                           float v1, float alpha, float beta) {
    if (row >= p.m || col >= p.n) return;
    /* the second element: the next one in memory, or a column of C (ldc) further when transposed */
    const int64_t off = p.c_trans ? col * p.ldc + row : row * p.ldc + col;
    const int64_t next = p.c_trans ? p.ldc : 1;
    const bool both = col + 1 < p.n;
    if (p.c_type == OUT_F32) {
        float *c = (float *)p.c + off;
        if (both && p.c_pair) {
            float2 r = make_float2(alpha * v0, alpha * v1);
            if (beta != 0.0f) {
                const float2 o = *(const float2 *)c;
                r.x = fmaf(beta, o.x, r.x), r.y = fmaf(beta, o.y, r.y);
            }
            *(float2 *)c = r;
        } else {
            c[0] = beta != 0.0f ? fmaf(beta, c[0], alpha * v0) : alpha * v0;
            if (both) c[next] = beta != 0.0f ? fmaf(beta, c[next], alpha * v1) : alpha * v1;
        }
    } else if (p.c_type == OUT_BF16) {
        __nv_bfloat16 *c = (__nv_bfloat16 *)p.c + off;
        float r0 = alpha * v0, r1 = alpha * v1;
        if (both && p.c_pair) {
            if (beta != 0.0f) {
                const float2 o = __bfloat1622float2(*(const __nv_bfloat162 *)c);
                r0 = fmaf(beta, o.x, r0), r1 = fmaf(beta, o.y, r1);
            }
            *(__nv_bfloat162 *)c = __floats2bfloat162_rn(r0, r1);
        } else {
            if (beta != 0.0f) r0 = fmaf(beta, __bfloat162float(c[0]), r0);
            c[0] = __float2bfloat16_rn(r0);
            if (both) {
                if (beta != 0.0f) r1 = fmaf(beta, __bfloat162float(c[next]), r1);
                c[next] = __float2bfloat16_rn(r1);
            }
        }
    } else {
        __half *c = (__half *)p.c + off;
        float r0 = alpha * v0, r1 = alpha * v1;
        if (both && p.c_pair) {
            if (beta != 0.0f) {
                const float2 o = __half22float2(*(const __half2 *)c);
                r0 = fmaf(beta, o.x, r0), r1 = fmaf(beta, o.y, r1);
            }
            *(__half2 *)c = __floats2half2_rn(r0, r1);
        } else {
            if (beta != 0.0f) r0 = fmaf(beta, __half2float(c[0]), r0);
            c[0] = __float2half_rn(r0);
            if (both) {
                if (beta != 0.0f) r1 = fmaf(beta, __half2float(c[next]), r1);
                c[next] = __float2half_rn(r1);
            }
        }
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

/* One converted element into a staging box line, at byte `byte` of the line before the TMA
 * 128-byte swizzle (16-byte chunk index XOR line % 8). */
__device__ __forceinline__ uint8_t *swizzled(uint8_t *box, int line, int byte) {
    return box + line * ROW_BYTES + (((byte >> 4) ^ (line & 7)) << 4) + (byte & 15);
}

/* Epilogue through shared memory: one consumer's 64 x BN slice of the tile, scaled by alpha,
 * converted to OUT and written into its staging buffer as boxes of 64 lines x 128 bytes in the
 * TMA 128-byte swizzle, two boxes per round, each round stored by one thread with TMA. A bulk
 * store reads the buffer asynchronously, so the next round first waits for the previous one's
 * reads. A line is a row of the slice (128 bytes of its columns), or with TRANS (C stored
 * transposed) a column of it (128 bytes of its rows); either way the fragment's writes fall in
 * distinct 16-byte chunks of the swizzle, free of bank conflicts. */
template <class C, int OUT, bool TRANS>
__device__ __forceinline__ void store_tile_tma(const CUtensorMap *map_c, const float *acc,
                                               uint8_t *buf, int barrier_id, int warp, int lane,
                                               int32_t row0, int32_t col0, float alpha) {
    constexpr int CB = OUT == OUT_F32 ? 4 : 2;
    constexpr int E = ROW_BYTES / CB; /* output elements per box line */
    /* TRANS: boxes of E rows x 64 columns, RBOX of them down the slice's 64 rows */
    constexpr int RBOX = 64 / E;
    constexpr int BOXES = TRANS ? RBOX * (C::BN / 64) : C::BN / E;
    constexpr int PER_ROUND = EPI_BYTES / (64 * ROW_BYTES);
    const bool leader = threadIdx.x % 128 == 0;
#pragma unroll
    for (int r0 = 0; r0 < BOXES; r0 += PER_ROUND) {
        if (leader) bulk_wait_read<0>();
        named_barrier(barrier_id, 128);
#pragma unroll
        for (int b = r0; b < r0 + PER_ROUND && b < BOXES; ++b) {
            uint8_t *box = buf + (b - r0) * 64 * ROW_BYTES;
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int row = warp * 16 + lane / 4 + 8 * h;
                if constexpr (TRANS) {
                    if (row / E != b % RBOX) continue; /* a box of other rows */
                }
#pragma unroll
                for (int jj = 0; jj < (TRANS ? 8 : E / 8); ++jj) {
                    /* n8 block of the fragment */
                    const int j = TRANS ? (b / RBOX) * 8 + jj : b * (E / 8) + jj;
                    const float v0 = alpha * acc[4 * j + 2 * h],
                                v1 = alpha * acc[4 * j + 2 * h + 1];
                    if constexpr (TRANS) {
                        const int line = jj * 8 + 2 * (lane % 4), byte = (row % E) * CB;
                        uint8_t *d0 = swizzled(box, line, byte),
                                *d1 = swizzled(box, line + 1, byte);
                        if constexpr (OUT == OUT_F32)
                            *(float *)d0 = v0, *(float *)d1 = v1;
                        else if constexpr (OUT == OUT_BF16)
                            *(__nv_bfloat16 *)d0 = __float2bfloat16_rn(v0),
                                            *(__nv_bfloat16 *)d1 = __float2bfloat16_rn(v1);
                        else
                            *(__half *)d0 = __float2half_rn(v0),
                                     *(__half *)d1 = __float2half_rn(v1);
                    } else {
                        uint8_t *dst = swizzled(box, row, (jj * 8 + 2 * (lane % 4)) * CB);
                        if constexpr (OUT == OUT_F32)
                            *(float2 *)dst = make_float2(v0, v1);
                        else if constexpr (OUT == OUT_BF16)
                            *(__nv_bfloat162 *)dst = __floats2bfloat162_rn(v0, v1);
                        else
                            *(__half2 *)dst = __floats2half2_rn(v0, v1);
                    }
                }
            }
        }
        fence_proxy_async_smem();
        named_barrier(barrier_id, 128);
        if (leader) {
#pragma unroll
            for (int b = r0; b < r0 + PER_ROUND && b < BOXES; ++b) {
                uint8_t *box = buf + (b - r0) * 64 * ROW_BYTES;
                if constexpr (TRANS) /* C's lines run along the kernel's rows */
                    tma_store_2d(map_c, box, row0 + (b % RBOX) * E, col0 + (b / RBOX) * 64);
                else
                    tma_store_2d(map_c, box, col0 + b * E, row0);
            }
            bulk_commit();
        }
    }
}
#endif /* GK_SM90A */

#ifdef GK_SM90A
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

/* store_tile_tma for C's type (a runtime value: the epilogue is a small part of the kernel). */
template <class C, bool TRANS>
__device__ __forceinline__ void store_tile(const params &p, const CUtensorMap *map_c,
                                           const float *acc, uint8_t *buf, int cw, int warp,
                                           int lane, int32_t r0, int32_t c0, float alpha) {
    if (p.c_type == OUT_F32)
        store_tile_tma<C, OUT_F32, TRANS>(map_c, acc, buf, 1 + cw, warp, lane, r0, c0, alpha);
    else if (p.c_type == OUT_BF16)
        store_tile_tma<C, OUT_BF16, TRANS>(map_c, acc, buf, 1 + cw, warp, lane, r0, c0, alpha);
    else
        store_tile_tma<C, OUT_F16, TRANS>(map_c, acc, buf, 1 + cw, warp, lane, r0, c0, alpha);
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

/* A split unit's chunk sum, unscaled float32, into the workspace (params::ws), pairs of columns. */
template <class C>
__device__ __forceinline__ void store_chunk(const params &p, const float *acc, int c, int64_t row0,
                                            int64_t col0) {
#pragma unroll
    for (int j = 0; j < C::BN / 8; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int64_t row = row0 + 8 * h, col = col0 + 8 * j;
            if (row >= p.m || col >= p.n) continue;
            float *w = p.ws + ((int64_t)c * p.m + row) * p.ws_ld + col;
            *(float2 *)w = make_float2(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
        }
}

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

/* The split plan's second pass (sm90_plan.h): the chunk sums of each element added in chunk order,
 * the first one copied, exactly as a whole tile adds them in registers, then store_pair's
 * epilogue, so both plans give the same bits. One thread per pair of columns; consecutive threads
 * take consecutive lines of C in memory (rows, or columns when C is stored transposed). */
__global__ void __launch_bounds__(256) reduce_chunks(const params p) {
#ifdef GK_SM90A
    const int64_t pairs = (p.n + 1) / 2;
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.m * pairs) return;
    int64_t row, col;
    if (p.c_trans)
        col = 2 * (i / p.m), row = i - (i / p.m) * p.m;
    else
        row = i / pairs, col = 2 * (i - row * pairs);
    const float *w = p.ws + row * p.ws_ld + col;
    float2 v = *(const float2 *)w;
    for (int c = 1; c < p.chunks; ++c) {
        const float2 x = *(const float2 *)(w + (int64_t)c * p.m * p.ws_ld);
        v.x += x.x, v.y += x.y;
    }
    float alpha = p.alpha;
    if (p.scale_a) alpha *= *p.scale_a;
    if (p.scale_b) alpha *= *p.scale_b;
    store_pair(p, row, col, v.x, v.y, alpha, p.beta);
#endif
}

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
