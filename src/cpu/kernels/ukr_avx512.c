/*
 * ukr_avx512.c — AVX-512F micro-kernel, MR x NR = 32 x 12 (contract: ukernel.h), and its
 * B-columns variant. Compiled with AVX-512 flags; only reached after the registry's cpuid
 * predicate (AVX-512F + OS ZMM state), so the assembly uses AVX-512F instructions only.
 *
 * Why 32 x 12: there are 32 zmm registers. The tile takes 32/16 * 12 = 24 accumulators
 * (zmm8-31; column j in zmm(8+2j) rows 0-15 and zmm(9+2j) rows 16-31), one column of A two
 * more (zmm0/1) and the broadcast B elements two (zmm2/3, alternating), 28 in all. 24 independent
 * FMA chains cover 4-cycle latency x 2 FMA ports (8 needed) three times over. BLIS uses the same
 * shape and register plan on Skylake-X. Columns of C are 32 floats, two cache lines.
 *
 * B elements are broadcast into a register (one vbroadcastss per column feeding its two FMAs)
 * rather than used as embedded-broadcast operands (vfmadd231ps mem{1to16}, two per column). Per
 * k step, on a Skylake-SP / Cascade Lake / Cooper Lake core (2 load ports, 2 512-bit FMA ports,
 * 4 fused-domain uops issued per cycle):
 *   register broadcast:  2 + 12 + 24 = 38 fused uops, 14 loads, 24 FMA uops
 *                        -> issue 9.5, loads 7, FMA 12 cycles: FMA-bound;
 *   embedded broadcast:  2 + 24 = 26 fused uops (one fewer per column), but 26 loads
 *                        -> loads 13 cycles, more than the 12 of the FMAs.
 * In the B-columns variant 8 of the 12 B addresses are indexed, (base, ldb, s), and a 3-operand
 * FMA with an indexed memory operand is un-laminated on Haswell..Skylake, which takes most of the
 * fused-domain saving back (16 more uops, 42); a broadcast is a pure load and is not affected.
 * With one 512-bit FMA unit (some Xeon Silver / Gold 5xxx) the FMAs take 24 cycles and either
 * form is FMA-bound; so is a core with a third load port (Golden Cove). What this relies on:
 * uops.info's Skylake-X rows (VBROADCASTSS zmm, m32: 1 uop, p23; VFMADD231PS zmm, zmm,
 * m32{1to16}: 1 fused / 2 unfused uops, p05 + p23; VFMADD231PS zmm, zmm, zmm: 1 uop, p05),
 * Intel's optimization manual (Skylake Server 512-bit FMA on p0+p1 fused and p5; Haswell
 * "Unlamination"), Peter Cordes's un-lamination measurements (Stack Overflow question 26046634),
 * and BLIS's skx 32x12 SGEMM kernel, which broadcasts to registers too. The embedded-broadcast
 * form itself was not timed.
 *
 * The whole kernel is one inline-assembly block, as in ukr_avx2.c. The intrinsics version it
 * replaces was allocated by gcc 12 with 12 zmm register moves and 22 vfmadd132ps operand
 * rotations in each 4-step iteration of the k loop; here the loop is exactly 4 x (2 loads, 12
 * broadcasts, 24 FMAs) plus pointer and counter updates, with no spill and no move. A full tile
 * with unit row stride is finished in the registers (alpha multiply, beta FMA from C only when
 * beta != 0, stores straight to C), and its C lines are prefetched for writing before the k loop
 * whatever beta is (3 prefetchw per column, at floats 0, 16 and 31, which covers the column's 2
 * lines, or 3 when it is not 64-byte aligned), so the C traffic overlaps the FMAs. Edge tiles
 * and strided C are finished into a 1536-byte stack tile and merged. On the Xeon it ran faster
 * than the intrinsics kernel (docs/cpu.md, "Micro-kernels").
 *
 * The same assembly, with its B broadcasts addressed through a column stride, is the B-columns
 * variant (ukernel.h), which reads plain column-major B in place; with its A loads at a pointer
 * that moves by a register stride, the A-columns variants, which read plain A in place. Edge
 * tiles of at most 4 or 8 valid columns run a narrower copy of the loop that skips B's zero
 * padding.
 */
#include "cpu/kernels/kernels.h"
#include "cpu/kernels/ukernel.h"

#define MR 32
#define NR 12

// clang-format off
/* General registers of the block: a and lda (A panel or column, its stride in bytes), b and ldb
 * (B panel, or column 0 of B and the column stride), k (steps left), c and ldc (tile and its
 * column stride in bytes), ab ({alpha, beta}), beta_used and r3, r6, r9: the addresses of
 * columns 3, 6 and 9 of C, which in the B-columns forms hold columns 3, 6 and 9 of B during the
 * k loop. 12 registers, whichever form.
 *
 * One k step at offset s (in steps) from the current pointers: A column in zmm0/1 (packed,
 * displacement s*128, or in place: loaded at the pointer, which then moves by lda), B elements
 * broadcast alternately into zmm2/3 so consecutive broadcasts do not wait on each other.
 * BP(s, j) is packed B element (step s, column j), pb[p*12 + j]; BC(s, col) is element s of a
 * column of the caller's B, b[p + j*ldb], with col one of "(%[b])", "(%[b],%[ldb])", ...
 * Displacements stay under 128 times the EVEX disp8 scale (A: s*128 + 64 <= 448 = 7*64; packed
 * B: s*48 + 44 <= 188 = 47*4), so every load of the unrolled body has a one-byte displacement. */
#define BP(s, j) #s "*48+" #j "*4(%[b])"
#define BC(s, col) #s "*4" col
#define FMA2(bq, j0, j1)                                                                           \
    "vfmadd231ps %%zmm0, %%" bq ", %%zmm" #j0 "\n\t"                                               \
    "vfmadd231ps %%zmm1, %%" bq ", %%zmm" #j1 "\n\t"
#define FMA2_H(bq, j0, j1) "vfmadd231ps %%zmm0, %%" bq ", %%zmm" #j0 "\n\t"
/* The k step of a tile of width W = 4, 8 or 12 columns: every form takes the same 15 operands
 * (A column address, its second half, the A pointer move, 12 B addresses) and uses the first W B
 * addresses. H is empty for the full height or _H for the half (rows 0-15, through HEAD_H and
 * FMA2_H: one A vector, one FMA per column). HEAD loads A and the first broadcast, BCAST_FMA
 * broadcasts the next B element while the FMAs of the previous one issue. */
#define HEAD(a0, a1, anext, b0)                                                                    \
    "vmovups " a0 ", %%zmm0\n\t"                                                                   \
    "vmovups " a1 ", %%zmm1\n\t" anext                                                             \
    "vbroadcastss " b0 ", %%zmm2\n\t"
#define HEAD_H(a0, a1, anext, b0)                                                                  \
    "vmovups " a0 ", %%zmm0\n\t" anext "vbroadcastss " b0 ", %%zmm2\n\t"
#define BCAST_FMA(H, b, zload, zfma, j0, j1)                                                       \
    "vbroadcastss " b ", %%" zload "\n\t" FMA2##H(zfma, j0, j1)
#define COLS_1_3(H, b1, b2, b3)                                                                    \
    BCAST_FMA(H, b1, "zmm3", "zmm2", 8, 9) BCAST_FMA(H, b2, "zmm2", "zmm3", 10, 11)                \
    BCAST_FMA(H, b3, "zmm3", "zmm2", 12, 13)
#define COLS_4_7(H, b4, b5, b6, b7)                                                                \
    BCAST_FMA(H, b4, "zmm2", "zmm3", 14, 15) BCAST_FMA(H, b5, "zmm3", "zmm2", 16, 17)              \
    BCAST_FMA(H, b6, "zmm2", "zmm3", 18, 19) BCAST_FMA(H, b7, "zmm3", "zmm2", 20, 21)
#define COLS_8_11(H, b8, b9, b10, b11)                                                             \
    BCAST_FMA(H, b8, "zmm2", "zmm3", 22, 23) BCAST_FMA(H, b9, "zmm3", "zmm2", 24, 25)              \
    BCAST_FMA(H, b10, "zmm2", "zmm3", 26, 27) BCAST_FMA(H, b11, "zmm3", "zmm2", 28, 29)
#define STEP_W4(H, a0, a1, anext, b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11)                \
    HEAD##H(a0, a1, anext, b0) COLS_1_3(H, b1, b2, b3) FMA2##H("zmm3", 14, 15)
#define STEP_W8(H, a0, a1, anext, b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11)                \
    HEAD##H(a0, a1, anext, b0) COLS_1_3(H, b1, b2, b3) COLS_4_7(H, b4, b5, b6, b7)                 \
    FMA2##H("zmm3", 22, 23)
#define STEP_W12(H, a0, a1, anext, b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11)               \
    HEAD##H(a0, a1, anext, b0) COLS_1_3(H, b1, b2, b3) COLS_4_7(H, b4, b5, b6, b7)                 \
    COLS_8_11(H, b8, b9, b10, b11) FMA2##H("zmm3", 30, 31)
#define AP(s) #s "*128(%[a])", #s "*128+64(%[a])", ""
#define AC(s) "(%[a])", "64(%[a])", "add %[lda], %[a]\n\t"
#define BPS(s)                                                                                     \
    BP(s, 0), BP(s, 1), BP(s, 2), BP(s, 3), BP(s, 4), BP(s, 5), BP(s, 6), BP(s, 7), BP(s, 8),      \
        BP(s, 9), BP(s, 10), BP(s, 11)
#define BCS(s)                                                                                     \
    BC(s, "(%[b])"), BC(s, "(%[b],%[ldb])"), BC(s, "(%[b],%[ldb],2)"), BC(s, "(%[r3])"),           \
        BC(s, "(%[r3],%[ldb])"), BC(s, "(%[r3],%[ldb],2)"), BC(s, "(%[r6])"),                      \
        BC(s, "(%[r6],%[ldb])"), BC(s, "(%[r6],%[ldb],2)"), BC(s, "(%[r9])"),                      \
        BC(s, "(%[r9],%[ldb])"), BC(s, "(%[r9],%[ldb],2)")
#define STEP_X(F, H, A, B) F(H, A, B) /* expands A and B into their parts first */
/* The steps: A packed or in place (P/C) x B packed or in place, full width; and the narrow
 * widths (4, 8 columns) of the packed-B forms, for edge tiles. */
#define STEP_PP(s) STEP_X(STEP_W12, , AP(s), BPS(s))
#define STEP_PC(s) STEP_X(STEP_W12, , AP(s), BCS(s))
#define STEP_CP(s) STEP_X(STEP_W12, , AC(s), BPS(s))
#define STEP_CC(s) STEP_X(STEP_W12, , AC(s), BCS(s))
#define STEP_PP4(s) STEP_X(STEP_W4, , AP(s), BPS(s))
#define STEP_CP4(s) STEP_X(STEP_W4, , AC(s), BPS(s))
#define STEP_PP8(s) STEP_X(STEP_W8, , AP(s), BPS(s))
#define STEP_CP8(s) STEP_X(STEP_W8, , AC(s), BPS(s))
/* Half height (_H: rows 0-15 only, one FMA per column) for edge tiles of at most 16 valid rows,
 * which only a packed A panel has (a partial panel is never read in place). */
#define STEP_PP_H(s) STEP_X(STEP_W12, _H, AP(s), BPS(s))
#define STEP_PC_H(s) STEP_X(STEP_W12, _H, AP(s), BCS(s))
#define STEP_PP4_H(s) STEP_X(STEP_W4, _H, AP(s), BPS(s))
#define STEP_PP8_H(s) STEP_X(STEP_W8, _H, AP(s), BPS(s))
/* Pointer moves after 4 steps / 1 step: packed A by 128 bytes a step (an A in place has moved in
 * its steps), packed B by 48, a B in place by 4 in all four of its column bases. */
#define ADV_AP(n) "add $" #n "*128, %[a]\n\t"
#define ADV_BP(n) "add $" #n "*48, %[b]\n\t"
#define ADV_BC(n)                                                                                  \
    "add $" #n "*4, %[b]\n\tadd $" #n "*4, %[r3]\n\t"                                              \
    "add $" #n "*4, %[r6]\n\tadd $" #n "*4, %[r9]\n\t"
/* r3, r6, r9 = base + 3, 6, 9 columns of stride ld (scaled indices only go to 8, and 3 is not
 * one of them: lea + add) */
#define COL_PTRS(base, ld)                                                                         \
    "lea (%[" base "],%[" ld "],2), %[r3]\n\t"                                                     \
    "add %[" ld "], %[r3]\n\t"                                                                     \
    "lea (%[r3],%[" ld "],2), %[r6]\n\t"                                                           \
    "add %[" ld "], %[r6]\n\t"                                                                     \
    "lea (%[r6],%[" ld "],2), %[r9]\n\t"                                                           \
    "add %[" ld "], %[r9]\n\t"
/* Column j of C at address `col` (an operand expression such as "(%[c],%[ldc],2)"): floats 0,
 * 16 and 31 of its 32, so all its lines are fetched, 2 or (unaligned) 3. */
#define PREFETCH_COL(r0, r1, col)                                                                  \
    "prefetchw " col "\n\t"                                                                        \
    "prefetchw 64" col "\n\t"                                                                      \
    "prefetchw 124" col "\n\t"
/* The half-height tile's column: floats 0 and 15 of its 16 (one 64-byte run, at most 2 lines). */
#define PREFETCH_COL_H(r0, r1, col) "prefetchw " col "\n\t" "prefetchw 60" col "\n\t"
/* Finish one 16-float vector of column j (accumulator r0; r1 unused) at `col`, alpha in zmm0,
 * beta in zmm1: the half-height tile's column, and each half of a full column (below). */
#define STORE_COL_BETA0_H(r0, r1, col)                                                             \
    "vmulps %%zmm" #r0 ", %%zmm0, %%zmm" #r0 "\n\t"                                                \
    "vmovups %%zmm" #r0 ", " col "\n\t"
#define STORE_COL_H(r0, r1, col)                                                                   \
    "vmulps %%zmm" #r0 ", %%zmm0, %%zmm" #r0 "\n\t"                                                \
    "vfmadd231ps " col ", %%zmm1, %%zmm" #r0 "\n\t"                                                \
    "vmovups %%zmm" #r0 ", " col "\n\t"
/* Finish column j (accumulators r0: rows 0-15, r1: rows 16-31). */
#define STORE_COL_BETA0(r0, r1, col) STORE_COL_BETA0_H(r0, , col) STORE_COL_BETA0_H(r1, , "64" col)
#define STORE_COL(r0, r1, col) STORE_COL_H(r0, , col) STORE_COL_H(r1, , "64" col)
/* M applied to the first 4, 8 or all 12 columns of the tile. */
#define COLS4(M)                                                                                   \
    M(8, 9, "(%[c])") M(10, 11, "(%[c],%[ldc])") M(12, 13, "(%[c],%[ldc],2)") M(14, 15, "(%[r3])")
#define COLS8(M)                                                                                   \
    COLS4(M) M(16, 17, "(%[r3],%[ldc])") M(18, 19, "(%[r3],%[ldc],2)") M(20, 21, "(%[r6])")        \
    M(22, 23, "(%[r6],%[ldc])")
#define COLS12(M)                                                                                  \
    COLS8(M) M(24, 25, "(%[r6],%[ldc],2)") M(26, 27, "(%[r9])") M(28, 29, "(%[r9],%[ldc])")        \
    M(30, 31, "(%[r9],%[ldc],2)")
/* Zero the accumulators of column j: rows 0-15 (half height) or all 32. */
#define ZERO_H(r0, r1, col) "vpxord %%zmm" #r0 ", %%zmm" #r0 ", %%zmm" #r0 "\n\t"
#define ZERO(r0, r1, col) ZERO_H(r0, , col) ZERO_H(r1, , col)

/* The whole tile: C(i, j) = alpha * sum_p A(i, p) B(p, j) + beta * C(i, j) at c + i + j*ldc
 * (ldc in bytes) for the columns that COLS (COLS4/8/12) lists, C read only when %[beta_used] is
 * non-zero. STEP is one of the k steps above; SETUP_B points r3/r6/r9 at the B columns after
 * they served the C prefetch, ADVANCE4/ADVANCE1 move the A and B pointers by 4 steps / 1 step,
 * and RESTORE_C points r3/r6/r9 back at C. The k loop
 * counts k down from kc - 4 by 4 while it stays >= 0; k + 4 is then kc % 4, the remainder. */
#define TILE_ASM(STEP, COLS, H, SETUP_B, ADVANCE4, ADVANCE1, RESTORE_C)                            \
        COL_PTRS("c", "ldc")                                                                       \
        COLS(PREFETCH_COL##H)                                                                      \
        SETUP_B                                                                                    \
        COLS(ZERO##H)                                                                              \
        "sub $4, %[k]\n\t"                                                                         \
        "jl 2f\n\t"                                                                                \
        ".p2align 5\n"                                                                             \
        "1:\n\t"                                                                                   \
        STEP(0) STEP(1) STEP(2) STEP(3)                                                            \
        ADVANCE4                                                                                   \
        "sub $4, %[k]\n\t"                                                                         \
        "jge 1b\n"                                                                                 \
        "2:\n\t"                                                                                   \
        "add $4, %[k]\n\t"                                                                         \
        "jz 4f\n"                                                                                  \
        "3:\n\t"                                                                                   \
        STEP(0)                                                                                    \
        ADVANCE1                                                                                   \
        "dec %[k]\n\t"                                                                             \
        "jnz 3b\n"                                                                                 \
        "4:\n\t"                                                                                   \
        RESTORE_C                                                                                  \
        "vbroadcastss (%[ab]), %%zmm0\n\t"                                                         \
        "test %[beta_used], %[beta_used]\n\t"                                                      \
        "jnz 6f\n\t"                                                                               \
        COLS(STORE_COL_BETA0##H)                                                                   \
        "jmp 7f\n"                                                                                 \
        "6:\n\t"                                                                                   \
        "vbroadcastss 4(%[ab]), %%zmm1\n\t"                                                        \
        COLS(STORE_COL##H)                                                                         \
        "7:\n\t"                                                                                   \
        "vzeroupper\n\t"

/* One tile routine per operand form (the contract of all four is in ukr_finish_body.h): A at a
 * with column stride lda_bytes (packed: 128), B packed at b or columns of stride ldb_bytes; each
 * form passes all operands, so the routines differ only in their assembly text. SETUP_B points
 * r3/r6/r9 at B columns 3/6/9 after they served the C prefetch and RESTORE_C points them back.
 * The base registers of the k loop are pinned (a, b, r3, r6, r9 to rsi, rdi, rax, rbx, rcx): as
 * a base, rbp or r13 costs a displacement byte in every load (see ukr_avx2.c). */
#define TILE_FN(name, STEP, COLS, H, SETUP_B, ADVANCE4, ADVANCE1, RESTORE_C)                       \
    static void name(int64_t kc, const float *a, int64_t lda_bytes, const float *b,                \
                     int64_t ldb_bytes, float *c, int64_t ldc_bytes, const float *ab,              \
                     int64_t beta_used) {                                                          \
        int64_t k = kc;                                                                            \
        char *r3, *r6, *r9;                                                                        \
        __asm__ volatile(TILE_ASM(STEP, COLS, H, SETUP_B, ADVANCE4, ADVANCE1, RESTORE_C)           \
                         : [a] "+S"(a), [b] "+D"(b), [k] "+r"(k), [r3] "=&a"(r3), [r6] "=&b"(r6),  \
                           [r9] "=&c"(r9)                                                          \
                         : [lda] "r"(lda_bytes), [ldb] "r"(ldb_bytes), [c] "r"(c),                 \
                           [ldc] "r"(ldc_bytes), [ab] "r"(ab), [beta_used] "r"(beta_used)          \
                         : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", \
                           "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16",  \
                           "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", \
                           "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31",          \
                           "memory", "cc");                                                        \
    }
#define B_COLS COL_PTRS("b", "ldb")
#define C_COLS COL_PTRS("c", "ldc")
TILE_FN(tile_pp, STEP_PP, COLS12, , "", ADV_AP(4) ADV_BP(4), ADV_AP(1) ADV_BP(1), "")
TILE_FN(tile_pc, STEP_PC, COLS12, , B_COLS, ADV_AP(4) ADV_BC(4), ADV_AP(1) ADV_BC(1), C_COLS)
TILE_FN(tile_cp, STEP_CP, COLS12, , "", ADV_BP(4), ADV_BP(1), "")
TILE_FN(tile_cc, STEP_CC, COLS12, , B_COLS, ADV_BC(4), ADV_BC(1), C_COLS)
/* Edge tiles of at most 4 or 8 valid columns (packed B is zero-padded to 12, but its padding
 * need not be multiplied): a third or two thirds of the FMAs. */
#define NARROW1 4
#define NARROW2 8
TILE_FN(tile_pp_n1, STEP_PP4, COLS4, , "", ADV_AP(4) ADV_BP(4), ADV_AP(1) ADV_BP(1), "")
TILE_FN(tile_cp_n1, STEP_CP4, COLS4, , "", ADV_BP(4), ADV_BP(1), "")
TILE_FN(tile_pp_n2, STEP_PP8, COLS8, , "", ADV_AP(4) ADV_BP(4), ADV_AP(1) ADV_BP(1), "")
TILE_FN(tile_cp_n2, STEP_CP8, COLS8, , "", ADV_BP(4), ADV_BP(1), "")
/* Edge tiles of at most 16 valid rows: half the FMAs. */
TILE_FN(tile_pp_h, STEP_PP_H, COLS12, _H, "", ADV_AP(4) ADV_BP(4), ADV_AP(1) ADV_BP(1), "")
TILE_FN(tile_pc_h, STEP_PC_H, COLS12, _H, B_COLS, ADV_AP(4) ADV_BC(4), ADV_AP(1) ADV_BC(1), C_COLS)
TILE_FN(tile_pp_h_n1, STEP_PP4_H, COLS4, _H, "", ADV_AP(4) ADV_BP(4), ADV_AP(1) ADV_BP(1), "")
TILE_FN(tile_pp_h_n2, STEP_PP8_H, COLS8, _H, "", ADV_AP(4) ADV_BP(4), ADV_AP(1) ADV_BP(1), "")
// clang-format on

#define GK_UKR_NAME gk_ukr_avx512_32x12
#include "cpu/kernels/ukr_finish_body.h"
