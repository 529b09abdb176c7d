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
 * out of the 16 registers and spills inside the k loop (measured 76% of FMA peak). A full tile
 * with unit row stride is finished in the registers: alpha and beta are applied and the columns
 * stored straight to C. Its 12 cache lines (each 16-float column may straddle two) are
 * prefetched for writing before the k loop, so the C traffic of the tile overlaps the FMAs
 * instead of following them. Edge tiles and strided C are finished into a 384-byte stack tile
 * and merged.
 *
 * The same assembly, with its B broadcasts addressed through a column stride, is the B-columns
 * variant (ukernel.h), which reads plain column-major B in place.
 */
#include <immintrin.h>

#include "cpu/kernels/kernels.h"
#include "cpu/kernels/ukernel.h"

#define MR 16
#define NR 6

// clang-format off
/* One k step at offset s (in steps) from the current pointers: A column in ymm12/13, B elements
 * broadcast alternately into ymm14/15 so consecutive broadcasts do not wait on each other.
 * BQ(s, j) is the address of B element (step s, column j): packed (pb[p*6 + j]) or a column of
 * the caller's B (b[p + j*ldb], columns 3-5 from b3 = b + 3*ldb). */
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
#define STEP6(s, b0, b1, b2, b3, b4, b5)                                                           \
    "vmovups " #s "*64(%[a]), %%ymm12\n\t"                                                         \
    "vmovups " #s "*64+32(%[a]), %%ymm13\n\t"                                                      \
    "vbroadcastss " b0 ", %%ymm14\n\t"                                                             \
    "vbroadcastss " b1 ", %%ymm15\n\t" FMA2("ymm14", 0, 1)                                         \
    "vbroadcastss " b2 ", %%ymm14\n\t" FMA2("ymm15", 2, 3)                                         \
    "vbroadcastss " b3 ", %%ymm15\n\t" FMA2("ymm14", 4, 5)                                         \
    "vbroadcastss " b4 ", %%ymm14\n\t" FMA2("ymm15", 6, 7)                                         \
    "vbroadcastss " b5 ", %%ymm15\n\t" FMA2("ymm14", 8, 9)                                         \
    FMA2("ymm15", 10, 11)
#define STEP_PACKED(s) STEP6(s, BP(s, 0), BP(s, 1), BP(s, 2), BP(s, 3), BP(s, 4), BP(s, 5))
#define STEP_COLS(s) STEP6(s, BC0(s), BC1(s), BC2(s), BC3(s), BC4(s), BC5(s))
/* Column j of C at address `col` (an operand expression such as "(%[c],%[ldc],2)"): the first
 * and last float of its 16, so both lines are fetched when the column straddles two. */
#define PREFETCH_COL(col) "prefetchw " col "\n\t" "prefetchw 60" col "\n\t"
/* Finish column j (accumulators r0: rows 0-7, r1: rows 8-15), alpha in ymm14, beta in ymm15. */
#define STORE_COL_BETA0(r0, r1, col)                                                               \
    "vmulps %%ymm" #r0 ", %%ymm14, %%ymm" #r0 "\n\t"                                               \
    "vmulps %%ymm" #r1 ", %%ymm14, %%ymm" #r1 "\n\t"                                               \
    "vmovups %%ymm" #r0 ", " col "\n\t"                                                            \
    "vmovups %%ymm" #r1 ", 32" col "\n\t"
#define STORE_COL(r0, r1, col)                                                                     \
    "vmulps %%ymm" #r0 ", %%ymm14, %%ymm" #r0 "\n\t"                                               \
    "vmulps %%ymm" #r1 ", %%ymm14, %%ymm" #r1 "\n\t"                                               \
    "vfmadd231ps " col ", %%ymm15, %%ymm" #r0 "\n\t"                                               \
    "vfmadd231ps 32" col ", %%ymm15, %%ymm" #r1 "\n\t"                                             \
    "vmovups %%ymm" #r0 ", " col "\n\t"                                                            \
    "vmovups %%ymm" #r1 ", 32" col "\n\t"
#define COLS(M)                                                                                    \
    M(0, 1, "(%[c])") M(2, 3, "(%[c],%[ldc])") M(4, 5, "(%[c],%[ldc],2)")                          \
    M(6, 7, "(%[c3])") M(8, 9, "(%[c3],%[ldc])") M(10, 11, "(%[c3],%[ldc],2)")

/* The whole tile: C(i, j) = alpha * sum_p A(i, p) B(p, j) + beta * C(i, j) at c + i + j*ldc
 * (ldc in bytes), C read only when %[beta_used] is non-zero. STEP is one of the k steps above;
 * ADVANCE4/ADVANCE1 move the B pointers by 4 steps / 1 step. */
#define TILE_ASM(STEP, ADVANCE4, ADVANCE1)                                                         \
        PREFETCH_COL("(%[c])") PREFETCH_COL("(%[c],%[ldc])") PREFETCH_COL("(%[c],%[ldc],2)")       \
        PREFETCH_COL("(%[c3])") PREFETCH_COL("(%[c3],%[ldc])") PREFETCH_COL("(%[c3],%[ldc],2)")    \
        "vxorps %%ymm0, %%ymm0, %%ymm0\n\t"                                                        \
        "vxorps %%ymm1, %%ymm1, %%ymm1\n\t"                                                        \
        "vxorps %%ymm2, %%ymm2, %%ymm2\n\t"                                                        \
        "vxorps %%ymm3, %%ymm3, %%ymm3\n\t"                                                        \
        "vxorps %%ymm4, %%ymm4, %%ymm4\n\t"                                                        \
        "vxorps %%ymm5, %%ymm5, %%ymm5\n\t"                                                        \
        "vxorps %%ymm6, %%ymm6, %%ymm6\n\t"                                                        \
        "vxorps %%ymm7, %%ymm7, %%ymm7\n\t"                                                        \
        "vxorps %%ymm8, %%ymm8, %%ymm8\n\t"                                                        \
        "vxorps %%ymm9, %%ymm9, %%ymm9\n\t"                                                        \
        "vxorps %%ymm10, %%ymm10, %%ymm10\n\t"                                                     \
        "vxorps %%ymm11, %%ymm11, %%ymm11\n\t"                                                     \
        "test %[k4], %[k4]\n\t"                                                                    \
        "jz 2f\n\t"                                                                                \
        ".p2align 5\n"                                                                             \
        "1:\n\t"                                                                                   \
        STEP(0) STEP(1) STEP(2) STEP(3)                                                            \
        "add $256, %[a]\n\t"                                                                       \
        ADVANCE4                                                                                   \
        "dec %[k4]\n\t"                                                                            \
        "jnz 1b\n"                                                                                 \
        "2:\n\t"                                                                                   \
        "test %[kr], %[kr]\n\t"                                                                    \
        "jz 4f\n"                                                                                  \
        "3:\n\t"                                                                                   \
        STEP(0)                                                                                    \
        "add $64, %[a]\n\t"                                                                        \
        ADVANCE1                                                                                   \
        "dec %[kr]\n\t"                                                                            \
        "jnz 3b\n"                                                                                 \
        "4:\n\t"                                                                                   \
        "vbroadcastss (%[ab]), %%ymm14\n\t"                                                        \
        "test %[beta_used], %[beta_used]\n\t"                                                      \
        "jnz 6f\n\t"                                                                               \
        COLS(STORE_COL_BETA0)                                                                      \
        "jmp 7f\n"                                                                                 \
        "6:\n\t"                                                                                   \
        "vbroadcastss 4(%[ab]), %%ymm15\n\t"                                                       \
        COLS(STORE_COL)                                                                            \
        "7:\n\t"                                                                                   \
        "vzeroupper\n\t"
#define TILE_CLOBBERS                                                                              \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",       \
    "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "memory", "cc"

/* B packed: element (p, j) at pb[p*6 + j]. ab = {alpha, beta}. */
static void tile_packed(int64_t kc, const float *pa, const float *pb, float *c, int64_t ldc_bytes,
                        const float *ab, int64_t beta_used) {
    int64_t k4 = kc / 4, kr = kc % 4;
    float *c3 = (float *)((char *)c + 3 * ldc_bytes);
    __asm__ volatile(TILE_ASM(STEP_PACKED, "add $96, %[b]\n\t", "add $24, %[b]\n\t")
                     : [a] "+r"(pa), [b] "+r"(pb), [k4] "+r"(k4), [kr] "+r"(kr)
                     : [c] "r"(c), [c3] "r"(c3), [ldc] "r"(ldc_bytes), [ab] "r"(ab),
                       [beta_used] "r"(beta_used)
                     : TILE_CLOBBERS);
}

/* B as 6 columns of the caller's column-major matrix: element (p, j) at b[p + j*ldb]. */
static void tile_cols(int64_t kc, const float *pa, const float *b, int64_t ldb_bytes, float *c,
                      int64_t ldc_bytes, const float *ab, int64_t beta_used) {
    int64_t k4 = kc / 4, kr = kc % 4;
    float *c3 = (float *)((char *)c + 3 * ldc_bytes);
    const float *b3 = (const float *)((const char *)b + 3 * ldb_bytes);
    __asm__ volatile(TILE_ASM(STEP_COLS, "add $16, %[b]\n\tadd $16, %[b3]\n\t",
                              "add $4, %[b]\n\tadd $4, %[b3]\n\t")
                     : [a] "+r"(pa), [b] "+r"(b), [b3] "+r"(b3), [k4] "+r"(k4), [kr] "+r"(kr)
                     : [ldb] "r"(ldb_bytes), [c] "r"(c), [c3] "r"(c3), [ldc] "r"(ldc_bytes),
                       [ab] "r"(ab), [beta_used] "r"(beta_used)
                     : TILE_CLOBBERS);
}
// clang-format on

#define GK_UKR_NAME gk_ukr_avx2_16x6
#define GK_UKR_BCOLS_NAME gk_ukr_avx2_16x6_bcols
#include "cpu/kernels/ukr_finish_body.h"
