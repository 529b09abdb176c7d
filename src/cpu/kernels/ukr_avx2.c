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
 * instead of following them. Edge tiles and strided C leave through a 384-byte stack buffer
 * and the shared merge.
 */
#include <immintrin.h>

#include "cpu/kernels/kernels.h"
#include "cpu/kernels/ukernel.h"

#define MR 16
#define NR 6

/* What the assembly does with the finished tile. */
enum { TILE_TO_BUFFER = 0, TILE_TO_C_BETA0 = 1, TILE_TO_C = 2 };

// clang-format off
/* One k step at offset s (in steps) from the current pointers: A column in ymm12/13, B elements
 * broadcast alternately into ymm14/15 so consecutive broadcasts do not wait on each other. */
#define FMA2(bq, j0, j1)                                                                           \
    "vfmadd231ps %%ymm12, %%" bq ", %%ymm" #j0 "\n\t"                                              \
    "vfmadd231ps %%ymm13, %%" bq ", %%ymm" #j1 "\n\t"
#define BCAST(s, j, bq) "vbroadcastss " #s "*24+" #j "*4(%[b]), %%" bq "\n\t"
#define STEP(s)                                                                                    \
    "vmovups " #s "*64(%[a]), %%ymm12\n\t"                                                         \
    "vmovups " #s "*64+32(%[a]), %%ymm13\n\t"                                                      \
    BCAST(s, 0, "ymm14") BCAST(s, 1, "ymm15") FMA2("ymm14", 0, 1)                                  \
    BCAST(s, 2, "ymm14") FMA2("ymm15", 2, 3) BCAST(s, 3, "ymm15") FMA2("ymm14", 4, 5)              \
    BCAST(s, 4, "ymm14") FMA2("ymm15", 6, 7) BCAST(s, 5, "ymm15") FMA2("ymm14", 8, 9)              \
    FMA2("ymm15", 10, 11)
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
#define PREFETCH_ALL                                                                               \
    PREFETCH_COL("(%[c])") PREFETCH_COL("(%[c],%[ldc])") PREFETCH_COL("(%[c],%[ldc],2)")           \
    PREFETCH_COL("(%[c3])") PREFETCH_COL("(%[c3],%[ldc])") PREFETCH_COL("(%[c3],%[ldc],2)")

/* The tile sum_p pa[p*16 + i] * pb[p*6 + j], then by `mode`: into t[j*16 + i] (TILE_TO_BUFFER),
 * or C(i, j) = alpha * tile + beta * C(i, j) at c + i + j*ldc (ldc_bytes = 4*ldc), C read only
 * for TILE_TO_C. ab = {alpha, beta}. */
static void tile_16x6(int64_t kc, const float *pa, const float *pb, float *c, int64_t ldc_bytes,
                      float *t, const float *ab, int64_t mode) {
    int64_t k4 = kc / 4, kr = kc % 4;
    float *c3 = (float *)((char *)c + 3 * ldc_bytes);
    __asm__ volatile(
        "test %[mode], %[mode]\n\t"
        "jz 5f\n\t"
        PREFETCH_ALL
        "5:\n\t"
        "vxorps %%ymm0, %%ymm0, %%ymm0\n\t"
        "vxorps %%ymm1, %%ymm1, %%ymm1\n\t"
        "vxorps %%ymm2, %%ymm2, %%ymm2\n\t"
        "vxorps %%ymm3, %%ymm3, %%ymm3\n\t"
        "vxorps %%ymm4, %%ymm4, %%ymm4\n\t"
        "vxorps %%ymm5, %%ymm5, %%ymm5\n\t"
        "vxorps %%ymm6, %%ymm6, %%ymm6\n\t"
        "vxorps %%ymm7, %%ymm7, %%ymm7\n\t"
        "vxorps %%ymm8, %%ymm8, %%ymm8\n\t"
        "vxorps %%ymm9, %%ymm9, %%ymm9\n\t"
        "vxorps %%ymm10, %%ymm10, %%ymm10\n\t"
        "vxorps %%ymm11, %%ymm11, %%ymm11\n\t"
        "test %[k4], %[k4]\n\t"
        "jz 2f\n\t"
        ".p2align 5\n"
        "1:\n\t"
        STEP(0) STEP(1) STEP(2) STEP(3)
        "add $256, %[a]\n\t"
        "add $96, %[b]\n\t"
        "dec %[k4]\n\t"
        "jnz 1b\n"
        "2:\n\t"
        "test %[kr], %[kr]\n\t"
        "jz 4f\n"
        "3:\n\t"
        STEP(0)
        "add $64, %[a]\n\t"
        "add $24, %[b]\n\t"
        "dec %[kr]\n\t"
        "jnz 3b\n"
        "4:\n\t"
        "cmp $1, %[mode]\n\t"
        "je 6f\n\t"
        "jg 7f\n\t"
        "vmovups %%ymm0, 0(%[t])\n\t"
        "vmovups %%ymm1, 32(%[t])\n\t"
        "vmovups %%ymm2, 64(%[t])\n\t"
        "vmovups %%ymm3, 96(%[t])\n\t"
        "vmovups %%ymm4, 128(%[t])\n\t"
        "vmovups %%ymm5, 160(%[t])\n\t"
        "vmovups %%ymm6, 192(%[t])\n\t"
        "vmovups %%ymm7, 224(%[t])\n\t"
        "vmovups %%ymm8, 256(%[t])\n\t"
        "vmovups %%ymm9, 288(%[t])\n\t"
        "vmovups %%ymm10, 320(%[t])\n\t"
        "vmovups %%ymm11, 352(%[t])\n\t"
        "jmp 8f\n"
        "6:\n\t"
        "vbroadcastss (%[ab]), %%ymm14\n\t"
        COLS(STORE_COL_BETA0)
        "jmp 8f\n"
        "7:\n\t"
        "vbroadcastss (%[ab]), %%ymm14\n\t"
        "vbroadcastss 4(%[ab]), %%ymm15\n\t"
        COLS(STORE_COL)
        "8:\n\t"
        "vzeroupper\n\t"
        : [a] "+r"(pa), [b] "+r"(pb), [k4] "+r"(k4), [kr] "+r"(kr)
        : [t] "r"(t), [c] "r"(c), [c3] "r"(c3), [ldc] "r"(ldc_bytes), [ab] "r"(ab),
          [mode] "r"(mode)
        : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
          "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "memory", "cc");
}
// clang-format on

void gk_ukr_avx2_16x6(int64_t kc, const float *pa, const float *pb, float *c, int64_t rs_c,
                      int64_t cs_c, float alpha, float beta, int m_valid, int n_valid) {
    const float ab[2] = {alpha, beta};
    if (m_valid == MR && n_valid == NR && rs_c == 1) {
        tile_16x6(kc, pa, pb, c, cs_c * (int64_t)sizeof(float), NULL, ab,
                  beta == 0.0f ? TILE_TO_C_BETA0 : TILE_TO_C);
        return;
    }
    _Alignas(32) float t[MR * NR];
    tile_16x6(kc, pa, pb, c, 0, t, ab, TILE_TO_BUFFER);
    gk_ukr_merge(t, MR, c, rs_c, cs_c, alpha, beta, m_valid, n_valid);
}
