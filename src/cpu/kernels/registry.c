/*
 * registry.c — the single list of CPU micro-kernels, best first. The dispatcher, gk_cpu_get_info
 * and tests/cpu/test_ukernels.c all read this table; adding a kernel means one line here. Below
 * it, the low-precision kernels of gk_gemm_ex (lp.h), best first, the same way.
 */
#include "cpu/kernels/ukernel.h"

#include <string.h>

#include "cpu/config/cpu.h"
#include "cpu/kernels/kernels.h"
#include "cpu/kernels/lp.h"

const gk_ukr_desc gk_ukr_table[] = {
#if defined(__x86_64__)
    {.name = "avx512_32x12",
     .arch = "avx512",
     .mr = 32,
     .nr = 12,
     .fn = gk_ukr_avx512_32x12,
     .bcols = gk_ukr_avx512_32x12_bcols,
     .acols = gk_ukr_avx512_32x12_acols,
     .abcols = gk_ukr_avx512_32x12_abcols,
     .usable = gk_cpu_usable_avx512,
     .small = gk_small_gemm_avx512,
     .pack = gk_pack_avx512},
    {.name = "avx2_16x6",
     .arch = "avx2",
     .mr = 16,
     .nr = 6,
     .fn = gk_ukr_avx2_16x6,
     .bcols = gk_ukr_avx2_16x6_bcols,
     .acols = gk_ukr_avx2_16x6_acols,
     .abcols = gk_ukr_avx2_16x6_abcols,
     .usable = gk_cpu_usable_avx2,
     .small = gk_small_gemm_avx2,
     .pack = gk_pack_avx2},
#endif
    {.name = "generic_8x4",
     .arch = "generic",
     .mr = 8,
     .nr = 4,
     .fn = gk_ukr_generic_8x4,
     .usable = gk_cpu_usable_generic,
     .small = gk_small_gemm_generic,
     .pack = gk_pack_generic},
};
const int gk_ukr_count = (int)(sizeof gk_ukr_table / sizeof gk_ukr_table[0]);
_Static_assert(sizeof gk_ukr_table / sizeof gk_ukr_table[0] <= GK_UKR_MAX_KERNELS,
               "raise GK_UKR_MAX_KERNELS");

int gk_ukr_find(const char *name) {
    for (int i = 0; i < gk_ukr_count; i++)
        if (strcmp(gk_ukr_table[i].arch, name) == 0) return i;
    return -1;
}

const gk_lp_desc gk_lp_table[] = {
#if defined(__x86_64__)
    {.name = "amx_bf16_32x32",
     .arch = "amx",
     .formats = 1u << GK_BF16,
     .mr = 32,
     .nr = 32,
     .kgrain = 32,
     .psize = 2,
     /* C is loaded into and stored from the tiles once per k block: a block longer than the
      * L1 rule's (which would keep the B sliver in L1) cuts that traffic, which paid on 16
      * threads (bench/results/xeon/amx_tiles_kc.txt). */
     .kc = 768,
     .fn = gk_ukr_amx_bf16_32x32,
     .pack_a = gk_lp_pack_pairs,
     .pack_b = gk_lp_pack_rows,
     .usable = gk_cpu_usable_amx_bf16,
     .thread_begin = gk_amx_thread_begin,
     .thread_end = gk_amx_thread_end},
    {.name = "avx512bf16_32x12",
     .arch = "avx512bf16",
     .formats = 1u << GK_BF16,
     .mr = 32,
     .nr = 12,
     .kgrain = 2,
     .psize = 2,
     .fn = gk_ukr_avx512bf16_32x12,
     .pack_a = gk_lp_pack_pairs,
     .pack_b = gk_lp_pack_pairs,
     .usable = gk_cpu_usable_avx512bf16},
#endif
    /* converted to float32 while packing, then the FP32 family's kernel (frame/gemm_ex.c) */
    {.name = "convert",
     .arch = "convert",
     .formats = 1u << GK_BF16 | 1u << GK_F16,
     .kgrain = 1,
     .psize = 4,
     .usable = gk_cpu_usable_generic},
};
const int gk_lp_count = (int)(sizeof gk_lp_table / sizeof gk_lp_table[0]);

int gk_lp_find(const char *name) {
    for (int i = 0; i < gk_lp_count; i++)
        if (strcmp(gk_lp_table[i].arch, name) == 0) return i;
    return -1;
}
