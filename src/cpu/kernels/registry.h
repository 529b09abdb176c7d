/*
 * registry.h — which CPU kernel family is in use: the one owner of that choice (registry.c), which
 * every part of the library that depends on the ISA asks. The FP32 choice is cpuid's first usable
 * entry of gk_ukr_table, GEMMKIT_ARCH's family when usable, or gk_set_arch's; the low-precision
 * kernel of BF16 operands may be forced by name too ("amx", "avx512bf16", gk_lp_table). The GEMM
 * entry points (sgemm.c), the low-precision GEMM (frame/gemm_ex.c) and the format conversions
 * (formats/formats.c) read it here and call nothing of each other to learn it.
 */
#ifndef GK_CPU_KERNELS_REGISTRY_H
#define GK_CPU_KERNELS_REGISTRY_H

#include <stdatomic.h>

#include "core/internal.h"

/* The choice made once per process from cpuid and GEMMKIT_ARCH (gk_arch_init). */
typedef struct gk_arch_defaults {
    int kernel;         /* gk_ukr_table index */
    const char *reason; /* "cpuid" or "GEMMKIT_ARCH" */
    int env_lp;         /* gk_lp_table index GEMMKIT_ARCH names and this CPU can run, else -1 */
} gk_arch_defaults;

/* Written only by registry.c; exposed so that the check on every GEMM call stays inline. */
GK_HIDDEN extern gk_arch_defaults gk_arch_chosen;
GK_HIDDEN extern atomic_int gk_arch_ready;    /* set (release) once gk_arch_chosen is complete */
GK_HIDDEN extern atomic_int gk_arch_override; /* gk_ukr_table index from gk_set_arch, -1: none */

/* Make the once-per-process choice (thread-safe; later calls return at once). Under
 * GEMMKIT_VERBOSE it names a GEMMKIT_ARCH value that is neither usable here nor a low-precision
 * kernel's name. */
GK_HIDDEN void gk_arch_init(void);

/* The FP32 registry index a call made now uses, and why ("cpuid", "GEMMKIT_ARCH",
 * "gk_set_arch"; reason may be NULL). */
static inline int gk_ukr_now(const char **reason) {
    if (!atomic_load_explicit(&gk_arch_ready, memory_order_acquire)) gk_arch_init();
    const int idx = atomic_load_explicit(&gk_arch_override, memory_order_relaxed);
    if (idx >= 0) {
        if (reason) *reason = "gk_set_arch";
        return idx;
    }
    if (reason) *reason = gk_arch_chosen.reason;
    return gk_arch_chosen.kernel;
}

/* The gk_lp_table index gk_set_arch forced for BF16 operands, or -1. */
GK_HIDDEN int gk_lp_override_now(void);

/* The gk_lp_table index GEMMKIT_ARCH names and this CPU can run, or -1. */
GK_HIDDEN int gk_lp_env_choice(void);

/* gk_set_arch's work: a low-precision kernel's name forces it for BF16 operands and puts FP32
 * back on its default; an FP32 family forces that family (and clears a forced low-precision
 * kernel); "auto" or NULL clears both. Returns the status with gk_set_arch's messages. */
GK_HIDDEN gk_status gk_arch_set(const char *name);

#endif
