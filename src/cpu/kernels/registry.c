/*
 * registry.c — the single list of CPU micro-kernels, best first. The dispatcher, gk_cpu_get_info
 * and tests/cpu/test_ukernels.c all read this table; adding a kernel means one line here. Below
 * it, the low-precision kernels of gk_gemm_ex (lp.h), best first, the same way. Last, which of
 * them is in use (registry.h): the one place that choice is made and kept.
 */
#include "cpu/kernels/ukernel.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/config/cpu.h"
#include "cpu/kernels/kernels.h"
#include "cpu/kernels/lp.h"
#include "cpu/kernels/registry.h"

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

/* ---- the family in use ------------------------------------------------------------------------
 *
 * Process-wide: GEMMKIT_ARCH is read once under pthread_once; gk_set_arch's overrides are atomics
 * that each call reads once at entry, so a call never sees a half-applied change and concurrent
 * calls need no lock. */

gk_arch_defaults gk_arch_chosen;
atomic_int gk_arch_ready;
atomic_int gk_arch_override = -1;   /* gk_ukr_table index from gk_set_arch, -1: none */
static atomic_int lp_override = -1; /* gk_lp_table index from gk_set_arch, -1: none */
static pthread_once_t arch_once = PTHREAD_ONCE_INIT;

/* Family names the API accepts; a build may lack some (off x86 only "generic" exists). */
static const char *const known_arch[] = {"generic", "avx2", "avx512"};

static int known_name(const char *name) {
    for (size_t i = 0; i < sizeof known_arch / sizeof known_arch[0]; i++)
        if (strcmp(name, known_arch[i]) == 0) return 1;
    return 0;
}

static void arch_choose(void) {
    const int verbose = getenv("GEMMKIT_VERBOSE") && strcmp(getenv("GEMMKIT_VERBOSE"), "0") != 0;
    gk_arch_chosen.kernel = gk_ukr_count - 1;
    for (int i = 0; i < gk_ukr_count; i++)
        if (gk_ukr_table[i].usable()) {
            gk_arch_chosen.kernel = i;
            break;
        }
    gk_arch_chosen.reason = "cpuid";
    const char *want = getenv("GEMMKIT_ARCH");
    if (want && *want && strcmp(want, "auto") != 0) {
        int idx = gk_ukr_find(want);
        if (idx >= 0 && gk_ukr_table[idx].usable()) {
            gk_arch_chosen.kernel = idx;
            gk_arch_chosen.reason = "GEMMKIT_ARCH";
        } else if (verbose && gk_lp_find(want) < 0) { /* "amx" etc.: gemm_ex.c names those */
            fprintf(stderr, "gemmkit: GEMMKIT_ARCH=%s is %s; using the cpuid choice\n", want,
                    idx >= 0 || known_name(want) ? "not supported by this CPU/build"
                                                 : "unknown (generic, avx2, avx512, avx512bf16, "
                                                   "amx, auto)");
        }
    }
    const int lp = want ? gk_lp_find(want) : -1;
    gk_arch_chosen.env_lp = lp >= 0 && gk_lp_table[lp].fn && gk_lp_table[lp].usable() ? lp : -1;
    atomic_store_explicit(&gk_arch_ready, 1, memory_order_release);
}

void gk_arch_init(void) {
    pthread_once(&arch_once, arch_choose);
}

int gk_lp_override_now(void) {
    return atomic_load_explicit(&lp_override, memory_order_relaxed);
}

int gk_lp_env_choice(void) {
    if (!atomic_load_explicit(&gk_arch_ready, memory_order_acquire)) gk_arch_init();
    return gk_arch_chosen.env_lp;
}

/* The low-precision part of gk_arch_set: a name of one ("amx", "avx512bf16") forces it for BF16
 * operands, *st telling whether this CPU can run it, and returns 1; any other name (an FP32
 * family, "auto", NULL) clears that choice when the FP32 part will accept it and returns 0. */
static int lp_set(const char *name, gk_status *st) {
    const int idx = name ? gk_lp_find(name) : -1;
    if (idx < 0 || !gk_lp_table[idx].fn) {
        /* "auto" or an FP32 family that gk_set_arch will accept: the FP32 choice rules again */
        const int f = name ? gk_ukr_find(name) : -1;
        if (!name || strcmp(name, "auto") == 0 || (f >= 0 && gk_ukr_table[f].usable()))
            atomic_store(&lp_override, -1);
        return 0;
    }
    if (!gk_lp_table[idx].usable()) {
        *st =
            gk_fail(GK_ERR_UNSUPPORTED, "gk_set_arch: name=\"%s\": this CPU or OS lacks it", name);
        return 1;
    }
    atomic_store(&lp_override, idx);
    *st = GK_SUCCESS;
    return 1;
}

gk_status gk_arch_set(const char *name) {
    gk_arch_init();
    gk_status lp_st;
    if (lp_set(name, &lp_st)) { /* a low-precision kernel: FP32 stays on cpuid's choice */
        if (lp_st == GK_SUCCESS) atomic_store(&gk_arch_override, -1);
        return lp_st;
    }
    if (!name || strcmp(name, "auto") == 0) {
        atomic_store(&gk_arch_override, -1);
        return GK_SUCCESS;
    }
    int idx = gk_ukr_find(name);
    if (idx < 0 && !known_name(name))
        return gk_fail(GK_ERR_INVALID_VALUE,
                       "gk_set_arch: name=\"%s\" is not generic, avx2, avx512, avx512bf16, amx or "
                       "auto",
                       name);
    if (idx < 0)
        return gk_fail(GK_ERR_UNSUPPORTED,
                       "gk_set_arch: name=\"%s\" is not built for this architecture", name);
    if (!gk_ukr_table[idx].usable())
        return gk_fail(GK_ERR_UNSUPPORTED, "gk_set_arch: name=\"%s\": this CPU or OS lacks it",
                       name);
    atomic_store(&gk_arch_override, idx);
    return GK_SUCCESS;
}
