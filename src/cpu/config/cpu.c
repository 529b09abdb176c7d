/*
 * cpu.c — cpuid feature and cache detection, and the cache blocking derived from it.
 *
 * ISA flags count only when the OS also saves the wider registers (XGETBV), otherwise the first
 * AVX instruction would fault. Caches come from cpuid's deterministic cache leaves (4 on Intel,
 * 0x8000001D on AMD), then sysconf, then sysfs, so a VM that hides one source still gets sizes.
 */
#include "cpu/config/cpu.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif
#define GK_X86 1
#else
#define GK_X86 0
#endif

/* Fractions of L1 and L2 given to the packed operands (tuned by measurement, docs/cpu.md). */
#define GK_L1_NUM 3
#define GK_L1_DEN 4
#define GK_L2_NUM 1
#define GK_L2_DEN 2

static gk_cpu_features features;
static pthread_once_t features_once = PTHREAD_ONCE_INIT;

#if GK_X86
static void cpuid(unsigned leaf, unsigned sub, unsigned r[4]) {
    __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}

static uint64_t xgetbv0(void) {
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

/* Walk a deterministic cache parameter leaf (same register layout in Intel's leaf 4 and AMD's
 * 0x8000001D): size = ways * partitions * line * sets. */
static void cache_leaf(unsigned leaf, gk_cpu_features *f) {
    for (unsigned sub = 0; sub < 16; sub++) {
        unsigned r[4];
        cpuid(leaf, sub, r);
        unsigned type = r[0] & 0x1f, level = (r[0] >> 5) & 7;
        if (type == 0) break;
        if (type == 2) continue; /* instruction cache */
        int64_t size = (int64_t)((r[1] >> 22) + 1) * (((r[1] >> 12) & 0x3ff) + 1) *
                       ((r[1] & 0xfff) + 1) * ((int64_t)r[2] + 1);
        int sharing = (int)((r[0] >> 14) & 0xfff) + 1;
        if (level == 1) f->l1d_bytes = size;
        if (level == 2) f->l2_bytes = size;
        if (level == 3) f->l3_bytes = size, f->l3_sharing = sharing;
    }
}

static void detect_x86(gk_cpu_features *f) {
    unsigned r[4];
    cpuid(0, 0, r);
    unsigned max_leaf = r[0];
    memcpy(f->vendor, &r[1], 4);
    memcpy(f->vendor + 4, &r[3], 4);
    memcpy(f->vendor + 8, &r[2], 4);
    f->vendor[12] = '\0';

    cpuid(0x80000000u, 0, r);
    unsigned max_ext = r[0];
    if (max_ext >= 0x80000004u) {
        for (unsigned i = 0; i < 3; i++) {
            cpuid(0x80000002u + i, 0, r);
            memcpy(f->brand + 16 * i, r, 16);
        }
        f->brand[48] = '\0';
        /* brand strings are often space-padded on the left */
        char *p = f->brand;
        while (*p == ' ')
            p++;
        memmove(f->brand, p, strlen(p) + 1);
    }

    cpuid(1, 0, r);
    const int fma = (r[2] >> 12) & 1, osxsave = (r[2] >> 27) & 1, avx = (r[2] >> 28) & 1;
    uint64_t xcr0 = osxsave ? xgetbv0() : 0;
    const int ymm_ok = avx && (xcr0 & 0x6) == 0x6;      /* XMM + YMM state */
    const int zmm_ok = ymm_ok && (xcr0 & 0xe0) == 0xe0; /* opmask + ZMM_Hi256 + Hi16_ZMM */
    unsigned ebx7 = 0, edx7 = 0, eax7_1 = 0;
    if (max_leaf >= 7) {
        cpuid(7, 0, r);
        ebx7 = r[1], edx7 = r[3];
        if (r[0] >= 1) {
            cpuid(7, 1, r);
            eax7_1 = r[0];
        }
    }
    f->has_avx2 = ymm_ok && ((ebx7 >> 5) & 1);
    f->has_fma = ymm_ok && fma;
    f->has_avx512f = zmm_ok && ((ebx7 >> 16) & 1);
    f->has_avx512bf16 = f->has_avx512f && ((eax7_1 >> 5) & 1);
    /* AMX-TILE (edx bit 24) and AMX-BF16 (bit 22), with XTILECFG and XTILEDATA (XCR0 bits 17,
     * 18) enabled by the OS; Linux also wants a per-process permission (gk_cpu_usable_amx_bf16) */
    f->has_amx_bf16 = ((edx7 >> 24) & 1) && ((edx7 >> 22) & 1) && (xcr0 & 0x60000) == 0x60000;

    if (strcmp(f->vendor, "AuthenticAMD") == 0 || strcmp(f->vendor, "HygonGenuine") == 0) {
        cpuid(0x80000001u, 0, r);
        const int topoext = (r[2] >> 22) & 1;
        if (max_ext >= 0x8000001du && topoext) cache_leaf(0x8000001du, f);
    } else if (max_leaf >= 4) {
        cache_leaf(4, f);
    }
}
#endif

/* sysfs size strings look like "32K" or "32768K". */
static int64_t sysfs_cache(int want_level) {
    for (int idx = 0; idx < 8; idx++) {
        char path[96], buf[32];
        int level = 0;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", idx);
        FILE *fp = fopen(path, "r");
        if (!fp) break;
        if (fscanf(fp, "%d", &level) != 1) level = 0;
        fclose(fp);
        if (level != want_level) continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", idx);
        fp = fopen(path, "r");
        if (!fp) continue;
        int is_instr = fgets(buf, sizeof buf, fp) && strncmp(buf, "Instruction", 11) == 0;
        fclose(fp);
        if (is_instr) continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", idx);
        fp = fopen(path, "r");
        if (!fp) continue;
        long long v = 0;
        char unit = 0;
        int got = fscanf(fp, "%lld%c", &v, &unit);
        fclose(fp);
        if (got < 1) continue;
        if (unit == 'K') v *= 1024;
        if (unit == 'M') v *= 1024 * 1024;
        return v;
    }
    return 0;
}

static void detect(void) {
    gk_cpu_features *f = &features;
    f->l3_sharing = 1;
#if GK_X86
    detect_x86(f);
#endif
#ifdef _SC_LEVEL1_DCACHE_SIZE
    if (f->l1d_bytes <= 0) f->l1d_bytes = sysconf(_SC_LEVEL1_DCACHE_SIZE);
    if (f->l2_bytes <= 0) f->l2_bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (f->l3_bytes <= 0) f->l3_bytes = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
    if (f->l1d_bytes <= 0) f->l1d_bytes = sysfs_cache(1);
    if (f->l2_bytes <= 0) f->l2_bytes = sysfs_cache(2);
    if (f->l3_bytes <= 0) f->l3_bytes = sysfs_cache(3);
    if (f->l1d_bytes < 0) f->l1d_bytes = 0;
    if (f->l2_bytes < 0) f->l2_bytes = 0;
    if (f->l3_bytes < 0) f->l3_bytes = 0;
    if (f->l3_sharing < 1) f->l3_sharing = 1;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    f->online_cpus = cpus > 0 ? (int)cpus : 1;
}

const gk_cpu_features *gk_cpu_features_get(void) {
    pthread_once(&features_once, detect);
    return &features;
}

static int64_t env_positive(const char *name) {
    const char *s = getenv(name);
    if (!s || !*s) return 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    return (*end == '\0' && v > 0 && v <= (1 << 24)) ? (int64_t)v : 0;
}

static int64_t round_down(int64_t x, int64_t q) {
    return x / q * q;
}
static int64_t clamp(int64_t x, int64_t lo, int64_t hi) {
    return x < lo ? lo : x > hi ? hi : x;
}

gk_blocking gk_cpu_blocking(const gk_cpu_features *f, int mr, int nr) {
    return gk_cpu_blocking_kc(f, mr, nr, 4, 0);
}

gk_blocking gk_cpu_blocking_kc(const gk_cpu_features *f, int mr, int nr, int bytes, int64_t kc) {
    /* Unknown caches: assume a small modern core (32 KiB L1d, 512 KiB L2, 2 MiB L3 per core). */
    const int64_t l1 = f->l1d_bytes > 0 ? f->l1d_bytes : 32 * 1024;
    const int64_t l2 = f->l2_bytes > 0 ? f->l2_bytes : 512 * 1024;
    const int64_t l3 = f->l3_bytes > 0 ? f->l3_bytes : 2 * 1024 * 1024;
    gk_blocking b;
    /* kc: the B sliver (kc x nr) stays in L1 while A slivers (mr x kc) stream past it; the
     * sliver pair may use GK_L1_NUM/GK_L1_DEN of L1 so the C tile and the next A sliver fit. */
    b.kc = kc > 0 ? kc
                  : clamp(round_down(l1 * GK_L1_NUM / GK_L1_DEN / (bytes * (int64_t)(mr + nr)), 8),
                          64, 1024 * 4 / bytes);
    int64_t v;
    if ((v = env_positive("GEMMKIT_KC"))) b.kc = v; /* mc and nc below follow it */
    /* mc: the packed A block (mc x kc) lives in L2 next to the streaming B panels. */
    b.mc = clamp(round_down(l2 * GK_L2_NUM / GK_L2_DEN / (bytes * b.kc), mr), mr, 4096);
    /* nc: the packed B block (kc x nc) lives in L3 and takes half of this process's share of
     * it: the L3 is split among the CPUs that share it, counting only those online (a VM that
     * sees 2 CPUs of a 16-way shared L3 still gets its cache). */
    const int sharing = f->l3_sharing < f->online_cpus ? f->l3_sharing : f->online_cpus;
    const int64_t l3_share = l3 / (sharing > 0 ? sharing : 1);
    b.nc = clamp(round_down(l3_share / 2 / (bytes * b.kc), nr), nr, 8192 / nr * nr);

    if ((v = env_positive("GEMMKIT_MC"))) b.mc = gk_ceil_div64(v, mr) * mr;
    if ((v = env_positive("GEMMKIT_NC"))) b.nc = gk_ceil_div64(v, nr) * nr;
    return b;
}

int gk_cpu_usable_generic(void) {
    return 1;
}
int gk_cpu_usable_avx2(void) {
    const gk_cpu_features *f = gk_cpu_features_get();
    return f->has_avx2 && f->has_fma;
}
int gk_cpu_usable_avx512(void) {
    return gk_cpu_features_get()->has_avx512f;
}
int gk_cpu_usable_avx512bf16(void) {
    return gk_cpu_features_get()->has_avx512bf16;
}

/* Linux enables AMX tile data per process on request (arch/x86 "dynamic features"): without it
 * the first tile instruction raises SIGILL. The request is made once, under pthread_once; the
 * permission covers every thread of the process and is inherited by fork()'s children, so it
 * never needs repeating. Other systems: AMX stays unused. */
static int amx_permitted;
static pthread_once_t amx_once = PTHREAD_ONCE_INIT;
static void amx_request(void) {
#if GK_X86 && defined(__linux__) && defined(SYS_arch_prctl)
    enum { ARCH_GET_XCOMP_PERM = 0x1022, ARCH_REQ_XCOMP_PERM = 0x1023, XFEATURE_XTILEDATA = 18 };
    unsigned long bits = 0;
    if (syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0 &&
        syscall(SYS_arch_prctl, ARCH_GET_XCOMP_PERM, &bits) == 0)
        amx_permitted = (bits >> XFEATURE_XTILEDATA) & 1;
#endif
}

int gk_cpu_usable_amx_bf16(void) {
    if (!gk_cpu_features_get()->has_amx_bf16) return 0;
    pthread_once(&amx_once, amx_request);
    return amx_permitted;
}
