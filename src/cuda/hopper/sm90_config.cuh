/*
 * sm90_config.cuh — what every layer of the sm_90a tensor-core kernel shares (the kernel:
 * sm90_kernel.cuh): the operand, scale and output kinds, the fixed geometry (128-row tiles,
 * 128-byte swizzled rows, three warpgroups), the kernel's parameters and the compile-time
 * configuration of one instance (operand types and major orders, tile width, FP8 promotion,
 * cluster size, block scales) with the sizes it implies.
 */
#ifndef GK_CUDA_HOPPER_SM90_CONFIG_CUH
#define GK_CUDA_HOPPER_SM90_CONFIG_CUH

#include <stdint.h>

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

} // namespace gk_sm90

#endif
