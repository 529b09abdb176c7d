/*
 * sgemm.c — the CPU entry points: gk_sgemm, thread count, gk_set_arch, gk_cpu_get_info and the
 * kernel registry listing (gk_cpu_kernel_count / gk_cpu_kernel_info_get). Which kernel family is
 * in use is the registry's (kernels/registry.h); this file asks it.
 *
 * Process-wide settings: the environment (GEMMKIT_NUM_THREADS, OMP_NUM_THREADS,
 * GEMMKIT_MC/KC/NC, GEMMKIT_VERBOSE) is read once under pthread_once; gk_set_num_threads's
 * override is an atomic that each call reads once at entry, so a call never sees a half-applied
 * change and concurrent calls need no lock.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/parallel.h"
#include "cpu/config/cpu.h"
#include "cpu/frame/batched.h"
#include "cpu/frame/frame.h"
#include "cpu/kernels/registry.h"
#include "cpu/kernels/ukernel.h"

/* Settings fixed at first use. */
static struct {
    int threads; /* default thread count */
    int verbose; /* GEMMKIT_VERBOSE: log each call's plan on stderr */
    gk_blocking blk[GK_UKR_MAX_KERNELS];
} defaults;
static pthread_once_t defaults_once = PTHREAD_ONCE_INIT;
/* Set (release) when `defaults` is complete: each call tests this flag inline and enters
 * pthread_once only until then, which saves two library calls on every tiny GEMM. */
static atomic_int defaults_ready;

static atomic_int thread_override = 0; /* from gk_set_num_threads, 0: none */

static int env_threads(const char *name) {
    const char *s = getenv(name);
    if (!s || !*s) return 0;
    char *end;
    long v = strtol(s, &end, 10); /* OMP_NUM_THREADS may be a list "4,2": the first counts */
    return (end != s && (*end == '\0' || *end == ',') && v > 0 && v <= 4096) ? (int)v : 0;
}

static void init_defaults(void) {
    const gk_cpu_features *f = gk_cpu_features_get();
    const int verbose = getenv("GEMMKIT_VERBOSE") && strcmp(getenv("GEMMKIT_VERBOSE"), "0") != 0;
    gk_arch_init(); /* the family from cpuid or GEMMKIT_ARCH, before the line naming it */

    defaults.threads = env_threads("GEMMKIT_NUM_THREADS");
    if (!defaults.threads) defaults.threads = env_threads("OMP_NUM_THREADS");
    if (!defaults.threads) defaults.threads = gk_parallel_cpus();
    if (defaults.threads < 1) defaults.threads = 1;

    for (int i = 0; i < gk_ukr_count; i++)
        defaults.blk[i] = gk_cpu_blocking(f, gk_ukr_table[i].mr, gk_ukr_table[i].nr);

    if (verbose) {
        const gk_ukr_desc *u = &gk_ukr_table[gk_arch_chosen.kernel];
        const gk_blocking *b = &defaults.blk[gk_arch_chosen.kernel];
        fprintf(stderr,
                "gemmkit: cpu \"%s\" (%s) avx2=%d fma=%d avx512f=%d; L1d=%lld L2=%lld L3=%lld\n"
                "gemmkit: kernel %s (%s), mr=%d nr=%d mc=%lld kc=%lld nc=%lld, threads=%d\n",
                f->brand, f->vendor, f->has_avx2, f->has_fma, f->has_avx512f,
                (long long)f->l1d_bytes, (long long)f->l2_bytes, (long long)f->l3_bytes, u->name,
                gk_arch_chosen.reason, u->mr, u->nr, (long long)b->mc, (long long)b->kc,
                (long long)b->nc, defaults.threads);
    }
    defaults.verbose = verbose;
    atomic_store_explicit(&defaults_ready, 1, memory_order_release);
}

static inline void ensure_defaults(void) {
    if (!atomic_load_explicit(&defaults_ready, memory_order_acquire))
        pthread_once(&defaults_once, init_defaults);
}

/* The kernel a call made now uses, and why (the registry's choice, once the defaults here are
 * set). */
static inline int current_kernel(const char **reason) {
    ensure_defaults();
    return gk_ukr_now(reason);
}

gk_status gk_set_num_threads(int n) {
    gk_clear_error();
    if (n < 0) return gk_fail(GK_ERR_INVALID_VALUE, "gk_set_num_threads: n=%d is negative", n);
    atomic_store(&thread_override, n);
    return GK_SUCCESS;
}

int gk_get_num_threads(void) {
    ensure_defaults();
    int n = atomic_load_explicit(&thread_override, memory_order_relaxed);
    return n > 0 ? n : defaults.threads;
}

gk_status gk_set_arch(const char *name) {
    gk_clear_error();
    ensure_defaults();
    return gk_arch_set(name);
}

gk_status gk_cpu_get_info(gk_cpu_info *info) {
    gk_clear_error();
    if (!info) return gk_fail(GK_ERR_NULL_POINTER, "gk_cpu_get_info: info is NULL");
    const gk_cpu_features *f = gk_cpu_features_get();
    const char *reason;
    const int idx = current_kernel(&reason);
    const gk_ukr_desc *u = &gk_ukr_table[idx];
    memset(info, 0, sizeof *info);
    snprintf(info->vendor, sizeof info->vendor, "%s", f->vendor);
    snprintf(info->brand, sizeof info->brand, "%s", f->brand);
    info->has_avx2 = f->has_avx2;
    info->has_fma = f->has_fma;
    info->has_avx512f = f->has_avx512f;
    snprintf(info->arch, sizeof info->arch, "%s", u->arch);
    snprintf(info->arch_reason, sizeof info->arch_reason, "%s", reason);
    info->mr = u->mr;
    info->nr = u->nr;
    info->mc = defaults.blk[idx].mc;
    info->kc = defaults.blk[idx].kc;
    info->nc = defaults.blk[idx].nc;
    info->l1d_bytes = f->l1d_bytes;
    info->l2_bytes = f->l2_bytes;
    info->l3_bytes = f->l3_bytes;
    info->threads = gk_get_num_threads();
    return GK_SUCCESS;
}

int gk_cpu_kernel_count(void) {
    return gk_ukr_count;
}

gk_status gk_cpu_kernel_info_get(int kernel_id, gk_cpu_kernel_info *info) {
    gk_clear_error();
    if (kernel_id < 0 || kernel_id >= gk_ukr_count)
        return gk_fail(GK_ERR_INVALID_VALUE,
                       "gk_cpu_kernel_info_get: kernel_id=%d is outside [0, %d)", kernel_id,
                       gk_ukr_count);
    if (!info) return gk_fail(GK_ERR_NULL_POINTER, "gk_cpu_kernel_info_get: info is NULL");
    const gk_ukr_desc *u = &gk_ukr_table[kernel_id];
    memset(info, 0, sizeof *info);
    info->id = kernel_id;
    info->name = u->name;
    info->arch = u->arch;
    info->mr = u->mr;
    info->nr = u->nr;
    info->usable = u->usable();
    info->selected = kernel_id == current_kernel(NULL);
    return GK_SUCCESS;
}

/* Run a planned call: gk_sgemm's, and each item of a batched call (gk_sgemm_item). */
static inline gk_status run_plan(const gk_gemm_args *g, const gk_ukr_desc *u, gk_plan p,
                                 const gk_packed_plan *pk) {
    switch (p.path) {
    case GK_PATH_NONE:
        break;
    case GK_PATH_SCALE:
        gk_frame_scale(g);
        break;
    case GK_PATH_SMALL:
        gk_small_run(g, u->small, p.form, p.threads);
        break;
    case GK_PATH_PACKED:
        return gk_frame_gemm(g, u, pk, p.threads);
    }
    return GK_SUCCESS;
}

gk_status gk_sgemm(gk_layout layout, gk_trans transa, gk_trans transb, int64_t m, int64_t n,
                   int64_t k, float alpha, const float *a, int64_t lda, const float *b, int64_t ldb,
                   float beta, float *c, int64_t ldc) {
    gk_clear_error();
    gk_gemm_args g;
    gk_status s = gk_check_gemm("gk_sgemm", layout, transa, transb, m, n, k, alpha, a, lda, b, ldb,
                                beta, c, ldc, &g);
    if (s != GK_SUCCESS) return s;
    const int idx = current_kernel(NULL);
    const gk_ukr_desc *u = &gk_ukr_table[idx];
    gk_packed_plan pk;
    const gk_plan p = gk_plan_call(&g, u, &defaults.blk[idx], gk_get_num_threads(), &pk);
    if (__builtin_expect(defaults.verbose, 0))
        gk_plan_log("gk_sgemm", layout, transa, transb, m, n, k, p, &pk);
    return run_plan(&g, u, p, &pk);
}

gk_status gk_sgemm_item(const gk_gemm_args *g, int threads) {
    const int idx = current_kernel(NULL);
    const gk_ukr_desc *u = &gk_ukr_table[idx];
    gk_packed_plan pk;
    return run_plan(g, u, gk_plan_call(g, u, &defaults.blk[idx], threads, &pk), &pk);
}
