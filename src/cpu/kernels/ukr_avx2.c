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
 * The k loop is inline assembly: with intrinsics gcc 12 hoists broadcasts, runs out of the 16
 * registers and spills inside the loop (measured 76% of FMA peak; the assembly loop reaches
 * the figure in docs/cpu.md). The tile leaves the loop through a 384-byte stack buffer, which
 * costs 24 memory operations per kc * 12 FMAs.
 */
#include <immintrin.h>

#include "cpu/kernels/kernels.h"
#include "cpu/kernels/ukernel.h"

#define MR 16
#define NR 6

#define GK_STR2(x) #x
#define GK_STR(x) GK_STR2(x)
/* One k step at offset s (in steps) from the current pointers: A column in ymm12/13, B elements
 * broadcast alternately into ymm14/15 so consecutive broadcasts do not wait on each other. */
#define FMA_PAIR(bq, j0, j1)                                                                       \
    "vfmadd231ps %%ymm12, %%" bq ", %%ymm" GK_STR(j0) "\n\t"                                       \
                                                      "vfmadd231ps %%ymm13, %%" bq                 \
                                                      ", %%ymm" GK_STR(j1) "\n\t"
#define BCAST(s, j, bq) "vbroadcastss " GK_STR(s * 24 + j * 4) "(%[b]), %%" bq "\n\t"
#define STEP(s)                                                                                    \
    "vmovups " GK_STR(                                                                             \
        s * 64) "(%[a]), %%ymm12\n\t"                                                              \
                "vmovups " GK_STR(s * 64 + 32) "(%[a]), %%ymm13\n\t" BCAST(s, 0, "ymm14")          \
                    BCAST(s, 1, "ymm15") FMA_PAIR("ymm14", 0, 1) BCAST(s, 2, "ymm14")              \
                        FMA_PAIR("ymm15", 2, 3) BCAST(s, 3, "ymm15") FMA_PAIR("ymm14", 4, 5)       \
                            BCAST(s, 4, "ymm14") FMA_PAIR("ymm15", 6, 7) BCAST(s, 5, "ymm15")      \
                                FMA_PAIR("ymm14", 8, 9) FMA_PAIR("ymm15", 10, 11)

/* t[j * 16 + i] = sum_p pa[p * 16 + i] * pb[p * 6 + j]. */
static void tile_16x6(int64_t kc, const float *pa, const float *pb, float *t) {
    int64_t k4 = kc / 4, kr = kc % 4;
    __asm__ volatile(
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
        ".p2align 4\n"
        "1:\n\t" STEP(0) STEP(1) STEP(2) STEP(3) "add $256, %[a]\n\t"
                                                 "add $96, %[b]\n\t"
                                                 "dec %[k4]\n\t"
                                                 "jnz 1b\n"
                                                 "2:\n\t"
                                                 "test %[kr], %[kr]\n\t"
                                                 "jz 4f\n"
                                                 "3:\n\t" STEP(0) "add $64, %[a]\n\t"
                                                                  "add $24, %[b]\n\t"
                                                                  "dec %[kr]\n\t"
                                                                  "jnz 3b\n"
                                                                  "4:\n\t"
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
                                                                  "vzeroupper\n\t"
        : [a] "+r"(pa), [b] "+r"(pb), [k4] "+r"(k4), [kr] "+r"(kr)
        : [t] "r"(t)
        : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
          "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "memory", "cc");
}

void gk_ukr_avx2_16x6(int64_t kc, const float *pa, const float *pb, float *c, int64_t rs_c,
                      int64_t cs_c, float alpha, float beta, int m_valid, int n_valid) {
    const int direct = m_valid == MR && n_valid == NR && rs_c == 1;
    /* The C tile is needed only after the k loop; touching it now hides its miss behind it. */
    if (direct && beta != 0.0f)
        for (int j = 0; j < NR; j++)
            _mm_prefetch((const char *)(c + j * cs_c), _MM_HINT_T0);
    _Alignas(32) float t[MR * NR];
    tile_16x6(kc, pa, pb, t);
    if (!direct) {
        gk_ukr_merge(t, MR, c, rs_c, cs_c, alpha, beta, m_valid, n_valid);
        return;
    }
    const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
    for (int j = 0; j < NR; j++)
        for (int h = 0; h < MR; h += 8) {
            float *cp = c + j * cs_c + h;
            __m256 r = _mm256_mul_ps(va, _mm256_load_ps(t + j * MR + h));
            if (beta != 0.0f) r = _mm256_fmadd_ps(vb, _mm256_loadu_ps(cp), r);
            _mm256_storeu_ps(cp, r);
        }
}
