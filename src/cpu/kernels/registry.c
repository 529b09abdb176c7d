/*
 * registry.c — the single list of CPU micro-kernels, best first. The dispatcher, gk_cpu_get_info
 * and tests/cpu/test_ukernels.c all read this table; adding a kernel means one line here.
 */
#include "cpu/kernels/ukernel.h"

#include <string.h>

#include "cpu/config/cpu.h"
#include "cpu/kernels/kernels.h"

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
