/*
 * ukr_avx2.c — AVX2 + FMA micro-kernel, MR x NR = 16 x 6 (contract: ukernel.h). Compiled with
 * -mavx2 -mfma; only reached after the registry's cpuid predicate says the CPU has both.
 *
 * Why 16 x 6: there are 16 ymm registers. The tile takes 16/8 * 6 = 12 accumulators, one column
 * of A two more, and the broadcast B elements the last two. 12 independent FMA chains cover FMA
 * latency x throughput (4 cycles x 2 pipes = 8 in flight on Zen 3 / Haswell..), and each k step
 * is 12 FMAs for 2 vector loads + 6 broadcasts, within the 2-3 loads per cycle of these cores.
 * Columns of C are 16 floats (two vectors), so column-major C stores are contiguous.
 *
 * The whole kernel is one inline-assembly block: with intrinsics gcc 12 hoists broadcasts, runs
 * out of the 16 registers and spills inside the k loop, well below the FMA peak (docs/cpu.md,
 * "Micro-kernels"). A full tile
 * with unit row stride is finished in the registers: alpha and beta are applied and the columns
 * stored straight to C. Its 12 cache lines (each 16-float column may straddle two) are
 * prefetched for writing before the k loop, so the C traffic of the tile overlaps the FMAs
 * instead of following them. Edge tiles and strided C are finished into a 384-byte stack tile
 * and merged.
 *
 * The same assembly, with its B broadcasts addressed through a column stride, is the B-columns
 * variant (ukernel.h), which reads plain column-major B in place; with its A loads at a pointer
 * that moves by a register stride, the A-columns variants, which read plain A in place. Edge
 * tiles of at most 2 or 4 valid columns run a narrower copy of the loop that skips B's zero
 * padding.
 */
#include <immintrin.h>

#include "cpu/kernels/kernels.h"
#include "cpu/kernels/ukernel.h"

#define MR 16
#define NR 6

// clang-format off
/* One k step at offset s (in steps) from the current pointers: A column in ymm12/13, B elements
 * broadcast alternately into ymm14/15 so consecutive broadcasts do not wait on each other.
 * The A column is packed (pa[p*16 + i], displacement s*64) or a column of the caller's A
 * (a[i + p*lda], loaded at the pointer, which then moves by lda: `anext`). BQ(s, j) is the
 * address of B element (step s, column j): packed (pb[p*6 + j]) or a column of the caller's B
 * (b[p + j*ldb], columns 3-5 from b3 = b + 3*ldb). */
#define BP(s, j) #s "*24+" #j "*4(%[b])"
#define BC0(s) #s "*4(%[b])"
#define BC1(s) #s "*4(%[b],%[ldb])"
#define BC2(s) #s "*4(%[b],%[ldb],2)"
#define BC3(s) #s "*4(%[b3])"
#define BC4(s) #s "*4(%[b3],%[ldb])"
#define BC5(s) #s "*4(%[b3],%[ldb],2)"
#define FMA2(bq, j0, j1)                                                                           \
    "vfmadd231ps %%ymm12, %%" bq ", %%ymm" #j0 "\n\t"                                              \
    "vfmadd231ps %%ymm13, %%" bq ", %%ymm" #j1 "\n\t"
#define FMA2_H(bq, j0, j1) "vfmadd231ps %%ymm12, %%" bq ", %%ymm" #j0 "\n\t"
/* The k step of a tile of width W = 2, 4 or 6 columns: every form takes the same 9 operands (A
 * column address, its second half, the A pointer move, 6 B addresses) and uses the first W B
 * addresses. H is empty for the full height or _H for the half (rows 0-7, through HEAD_H and
 * FMA2_H: one A vector, one FMA per column). HEAD loads A and broadcasts the first B element,
 * BCAST_FMA broadcasts the next one while the FMAs of the previous one issue. */
#define HEAD(a0, a1, anext, b0)                                                                    \
    "vmovups " a0 ", %%ymm12\n\t"                                                                  \
    "vmovups " a1 ", %%ymm13\n\t" anext                                                            \
    "vbroadcastss " b0 ", %%ymm14\n\t"
#define HEAD_H(a0, a1, anext, b0)                                                                  \
    "vmovups " a0 ", %%ymm12\n\t" anext "vbroadcastss " b0 ", %%ymm14\n\t"
#define BCAST_FMA(H, b, yload, yfma, j0, j1)                                                       \
    "vbroadcastss " b ", %%" yload "\n\t" FMA2##H(yfma, j0, j1)
#define STEP_W2(H, a0, a1, anext, b0, b1, b2, b3, b4, b5)                                          \
    HEAD##H(a0, a1, anext, b0) BCAST_FMA(H, b1, "ymm15", "ymm14", 0, 1) FMA2##H("ymm15", 2, 3)
#define STEP_W4(H, a0, a1, anext, b0, b1, b2, b3, b4, b5)                                          \
    HEAD##H(a0, a1, anext, b0) BCAST_FMA(H, b1, "ymm15", "ymm14", 0, 1)                            \
    BCAST_FMA(H, b2, "ymm14", "ymm15", 2, 3) BCAST_FMA(H, b3, "ymm15", "ymm14", 4, 5)              \
    FMA2##H("ymm15", 6, 7)
#define STEP_W6(H, a0, a1, anext, b0, b1, b2, b3, b4, b5)                                          \
    HEAD##H(a0, a1, anext, b0) BCAST_FMA(H, b1, "ymm15", "ymm14", 0, 1)                            \
    BCAST_FMA(H, b2, "ymm14", "ymm15", 2, 3) BCAST_FMA(H, b3, "ymm15", "ymm14", 4, 5)              \
    BCAST_FMA(H, b4, "ymm14", "ymm15", 6, 7) BCAST_FMA(H, b5, "ymm15", "ymm14", 8, 9)              \
    FMA2##H("ymm15", 10, 11)
#define AP(s) #s "*64(%[a])", #s "*64+32(%[a])", ""
#define AC(s) "(%[a])", "32(%[a])", "add %[lda], %[a]\n\t"
#define BPS(s) BP(s, 0), BP(s, 1), BP(s, 2), BP(s, 3), BP(s, 4), BP(s, 5)
#define BCS(s) BC0(s), BC1(s), BC2(s), BC3(s), BC4(s), BC5(s)
#define STEP_X(F, H, A, B) F(H, A, B) /* expands A and B into their parts first */
/* The steps: A packed or in place (P/C) x B packed or in place, full width; and the narrow
 * widths (2, 4 columns) of the packed-B forms, for edge tiles. */
#define STEP_PP(s) STEP_X(STEP_W6, , AP(s), BPS(s))
#define STEP_PC(s) STEP_X(STEP_W6, , AP(s), BCS(s))
#define STEP_CP(s) STEP_X(STEP_W6, , AC(s), BPS(s))
#define STEP_CC(s) STEP_X(STEP_W6, , AC(s), BCS(s))
#define STEP_PP2(s) STEP_X(STEP_W2, , AP(s), BPS(s))
#define STEP_CP2(s) STEP_X(STEP_W2, , AC(s), BPS(s))
#define STEP_PP4(s) STEP_X(STEP_W4, , AP(s), BPS(s))
#define STEP_CP4(s) STEP_X(STEP_W4, , AC(s), BPS(s))
/* Half height (_H: rows 0-7 only, one FMA per column) for edge tiles of at most 8 valid rows,
 * which only a packed A panel has (a partial panel is never read in place). */
#define STEP_PP_H(s) STEP_X(STEP_W6, _H, AP(s), BPS(s))
#define STEP_PC_H(s) STEP_X(STEP_W6, _H, AP(s), BCS(s))
#define STEP_PP2_H(s) STEP_X(STEP_W2, _H, AP(s), BPS(s))
#define STEP_PP4_H(s) STEP_X(STEP_W4, _H, AP(s), BPS(s))
/* Pointer moves after 4 steps / 1 step: packed A by 64 bytes a step (an A in place has moved in
 * its steps), packed B by 24, a B in place by 4 in both of its column bases. */
#define ADV_AP(n) "add $" #n "*64, %[a]\n\t"
#define ADV_BP(n) "add $" #n "*24, %[b]\n\t"
#define ADV_BC(n) "add $" #n "*4, %[b]\n\tadd $" #n "*4, %[b3]\n\t"
/* Column j of C at address `col` (an operand expression such as "(%[c],%[ldc],2)"): the first
 * and last float of its 16, so both lines are fetched when the column straddles two. */
#define PREFETCH_COL(r0, r1, col) "prefetchw " col "\n\t" "prefetchw 60" col "\n\t"
/* Zero the accumulators of column j: rows 0-7 (half height) or all 16. */
#define ZERO_H(r0, r1, col) "vxorps %%ymm" #r0 ", %%ymm" #r0 ", %%ymm" #r0 "\n\t"
#define ZERO(r0, r1, col) ZERO_H(r0, , col) ZERO_H(r1, , col)
/* The half-height tile's column (rows 0-7, one 32-byte run, at most 2 lines) for the prefetch. */
#define PREFETCH_COL_H(r0, r1, col) "prefetchw " col "\n\t" "prefetchw 28" col "\n\t"
/* Finish one 8-float vector of column j (accumulator r0; r1 unused) at `col`, alpha in ymm14,
 * beta in ymm15: the half-height tile's column, and each half of a full column (below). */
#define STORE_COL_BETA0_H(r0, r1, col)                                                             \
    "vmulps %%ymm" #r0 ", %%ymm14, %%ymm" #r0 "\n\t"                                               \
    "vmovups %%ymm" #r0 ", " col "\n\t"
#define STORE_COL_H(r0, r1, col)                                                                   \
    "vmulps %%ymm" #r0 ", %%ymm14, %%ymm" #r0 "\n\t"                                               \
    "vfmadd231ps " col ", %%ymm15, %%ymm" #r0 "\n\t"                                               \
    "vmovups %%ymm" #r0 ", " col "\n\t"
/* Finish column j (accumulators r0: rows 0-7, r1: rows 8-15). */
#define STORE_COL_BETA0(r0, r1, col) STORE_COL_BETA0_H(r0, , col) STORE_COL_BETA0_H(r1, , "32" col)
#define STORE_COL(r0, r1, col) STORE_COL_H(r0, , col) STORE_COL_H(r1, , "32" col)
/* M applied to the first 2, 4 or all 6 columns of the tile. */
#define COLS2(M) M(0, 1, "(%[c])") M(2, 3, "(%[c],%[ldc])")
#define COLS4(M) COLS2(M) M(4, 5, "(%[c],%[ldc],2)") M(6, 7, "(%[c3])")
#define COLS6(M) COLS4(M) M(8, 9, "(%[c3],%[ldc])") M(10, 11, "(%[c3],%[ldc],2)")

/* The whole tile: C(i, j) = alpha * sum_p A(i, p) B(p, j) + beta * C(i, j) at c + i + j*ldc
 * (ldc in bytes) for the W columns that COLS (COLS2/4/6) lists, C read only when %[beta_used] is
 * non-zero. STEP is one of the k steps above; ADVANCE4/ADVANCE1 move the A and B pointers by 4
 * steps / 1 step. */
#define TILE_ASM(STEP, COLS, H, ADVANCE4, ADVANCE1)                                                \
        COLS(PREFETCH_COL##H)                                                                      \
        COLS(ZERO##H)                                                                              \
        "test %[k4], %[k4]\n\t"                                                                    \
        "jz 2f\n\t"                                                                                \
        ".p2align 5\n"                                                                             \
        "1:\n\t"                                                                                   \
        STEP(0) STEP(1) STEP(2) STEP(3)                                                            \
        ADVANCE4                                                                                   \
        "dec %[k4]\n\t"                                                                            \
        "jnz 1b\n"                                                                                 \
        "2:\n\t"                                                                                   \
        "test %[kr], %[kr]\n\t"                                                                    \
        "jz 4f\n"                                                                                  \
        "3:\n\t"                                                                                   \
        STEP(0)                                                                                    \
        ADVANCE1                                                                                   \
        "dec %[kr]\n\t"                                                                            \
        "jnz 3b\n"                                                                                 \
        "4:\n\t"                                                                                   \
        "vbroadcastss (%[ab]), %%ymm14\n\t"                                                        \
        "test %[beta_used], %[beta_used]\n\t"                                                      \
        "jnz 6f\n\t"                                                                               \
        COLS(STORE_COL_BETA0##H)                                                                   \
        "jmp 7f\n"                                                                                 \
        "6:\n\t"                                                                                   \
        "vbroadcastss 4(%[ab]), %%ymm15\n\t"                                                       \
        COLS(STORE_COL##H)                                                                         \
        "7:\n\t"                                                                                   \
        "vzeroupper\n\t"

/* One tile routine per operand form and width (the contracts are in ukr_finish_body.h): A at a
 * with column stride lda_bytes (packed: 64), B packed at b or columns of stride ldb_bytes. Each
 * passes all operands, so the routines differ only in their assembly text. The base registers
 * of the k loop are pinned (a, b, b3 to rsi, rdi, rbx): with all operands in play gcc put A in
 * rbp, and rbp or r13 as a base costs a displacement byte in every load, which slowed full
 * tiles measurably. */
#define TILE_FN(name, STEP, COLS, H, ADVANCE4, ADVANCE1)                                           \
    static void name(int64_t kc, const float *a, int64_t lda_bytes, const float *b,                \
                     int64_t ldb_bytes, float *c, int64_t ldc_bytes, const float *ab,              \
                     int64_t beta_used) {                                                          \
        int64_t k4 = kc / 4, kr = kc % 4;                                                          \
        float *c3 = (float *)((char *)c + 3 * ldc_bytes);                                          \
        const float *b3 = (const float *)((const char *)b + 3 * ldb_bytes);                        \
        __asm__ volatile(TILE_ASM(STEP, COLS, H, ADVANCE4, ADVANCE1)                               \
                         : [a] "+S"(a), [b] "+D"(b), [b3] "+b"(b3), [k4] "+r"(k4), [kr] "+r"(kr)   \
                         : [lda] "r"(lda_bytes), [ldb] "r"(ldb_bytes), [c] "r"(c), [c3] "r"(c3),   \
                           [ldc] "r"(ldc_bytes), [ab] "r"(ab), [beta_used] "r"(beta_used)          \
                         : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", \
                           "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15",           \
                           "memory", "cc");                                                        \
    }
TILE_FN(tile_pp, STEP_PP, COLS6, , ADV_AP(4) ADV_BP(4), ADV_AP(1) ADV_BP(1))
TILE_FN(tile_pc, STEP_PC, COLS6, , ADV_AP(4) ADV_BC(4), ADV_AP(1) ADV_BC(1))
TILE_FN(tile_cp, STEP_CP, COLS6, , ADV_BP(4), ADV_BP(1))
TILE_FN(tile_cc, STEP_CC, COLS6, , ADV_BC(4), ADV_BC(1))
/* Edge tiles of at most 2 or 4 valid columns (packed B is zero-padded to 6, but the padding need
 * not be multiplied): a third or two thirds of the FMAs. */
#define NARROW1 2
#define NARROW2 4
TILE_FN(tile_pp_n1, STEP_PP2, COLS2, , ADV_AP(4) ADV_BP(4), ADV_AP(1) ADV_BP(1))
TILE_FN(tile_cp_n1, STEP_CP2, COLS2, , ADV_BP(4), ADV_BP(1))
TILE_FN(tile_pp_n2, STEP_PP4, COLS4, , ADV_AP(4) ADV_BP(4), ADV_AP(1) ADV_BP(1))
TILE_FN(tile_cp_n2, STEP_CP4, COLS4, , ADV_BP(4), ADV_BP(1))
/* Edge tiles of at most 8 valid rows: half the FMAs. */
TILE_FN(tile_pp_h, STEP_PP_H, COLS6, _H, ADV_AP(4) ADV_BP(4), ADV_AP(1) ADV_BP(1))
TILE_FN(tile_pc_h, STEP_PC_H, COLS6, _H, ADV_AP(4) ADV_BC(4), ADV_AP(1) ADV_BC(1))
TILE_FN(tile_pp_h_n1, STEP_PP2_H, COLS2, _H, ADV_AP(4) ADV_BP(4), ADV_AP(1) ADV_BP(1))
TILE_FN(tile_pp_h_n2, STEP_PP4_H, COLS4, _H, ADV_AP(4) ADV_BP(4), ADV_AP(1) ADV_BP(1))
// clang-format on

#define GK_UKR_NAME gk_ukr_avx2_16x6
#include "cpu/kernels/ukr_finish_body.h"
