/*
 * cpu.h — what the CPU path knows about the machine (cpuid features, cache sizes) and the cache
 * blocking derived from it. Detection runs once per process; everything here is read-only after.
 */
#ifndef GK_CPU_CONFIG_CPU_H
#define GK_CPU_CONFIG_CPU_H

#include <stdint.h>

typedef struct gk_cpu_features {
    char vendor[16]; /* "GenuineIntel", "AuthenticAMD"; "" off x86 */
    char brand[64];
    int has_avx2, has_fma, has_avx512f; /* the CPU has it AND the OS saves its registers */
    int has_avx512bf16;                 /* AVX512-BF16 (vdpbf16ps), with has_avx512f */
    int has_amx_bf16;                   /* AMX-TILE and AMX-BF16, and the OS enables tile state */
    int64_t l1d_bytes, l2_bytes, l3_bytes;
    int l3_sharing;  /* logical CPUs sharing one L3 (>= 1) */
    int online_cpus; /* logical CPUs online (>= 1) */
} gk_cpu_features;

/* The machine's features, detected on first use (thread-safe). Never NULL. */
const gk_cpu_features *gk_cpu_features_get(void);

/* Whether a kernel family's instructions can run here: the one test that the GEMM micro-kernels
 * (src/cpu/kernels/registry.c) and the bulk format conversions (src/formats/) both use. */
int gk_cpu_usable_generic(void);
int gk_cpu_usable_avx2(void); /* AVX2 and FMA */
int gk_cpu_usable_avx512(void);
int gk_cpu_usable_avx512bf16(void);
/* AMX-BF16: the CPU and OS have it and this process holds the Linux permission to use tile data
 * (arch_prctl ARCH_REQ_XCOMP_PERM, requested once per process on first call; a refusal makes AMX
 * unusable, never an error). */
int gk_cpu_usable_amx_bf16(void);

/* Cache blocking for one micro-kernel shape: kc columns of A/B per packed block, mc rows of A
 * per packed A block (per thread), nc columns of B per packed B block. mc is a multiple of mr and
 * nc a multiple of nr. */
typedef struct gk_blocking {
    int64_t mc, kc, nc;
} gk_blocking;

/* Block sizes for an mr x nr micro-kernel on this machine: derived from the caches (see
 * docs/cpu.md), then overridden by GEMMKIT_MC / GEMMKIT_KC / GEMMKIT_NC when set and valid; a
 * GEMMKIT_KC alone re-derives mc and nc for that k block. */
gk_blocking gk_cpu_blocking(const gk_cpu_features *f, int mr, int nr);

/* The same for packed elements of `bytes` bytes (gk_cpu_blocking is bytes = 4: the low-precision
 * kernels' packed BF16 panels, bytes = 2, take twice the k in the same cache) and the k block
 * fixed at kc when kc > 0 (0: derived): mc and nc follow from it. A fixed kc serves kernels whose
 * best k block is not the L1 rule's (lp.h, the AMX kernel). */
gk_blocking gk_cpu_blocking_kc(const gk_cpu_features *f, int mr, int nr, int bytes, int64_t kc);

#endif
