/*
 * peers.c — loading and calling the benchmark's implementations. Prototypes of the peers are
 * declared here (not taken from their headers) because they are reached through dlsym; the ABI
 * assumptions (OpenBLAS's 32-bit blasint, BLIS's 64-bit dim_t and trans_t values) are checked at
 * run time by the worker, which verifies every result against float64 before timing it.
 */
#include "peers.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gemmkit.h"

const char *const bench_impl_names[BENCH_NUM_IMPLS] = {"gemmkit", "openblas",  "openblas-best",
                                                       "blis",    "blis-best", "baseline"};
enum { IMPL_GEMMKIT, IMPL_OPENBLAS, IMPL_OPENBLAS_BEST, IMPL_BLIS, IMPL_BLIS_BEST, IMPL_BASELINE };

typedef void (*cblas_sgemm_fn)(int order, int ta, int tb, int m, int n, int k, float alpha,
                               const float *a, int lda, const float *b, int ldb, float beta,
                               float *c, int ldc);
typedef void (*bli_sgemm_fn)(int ta, int tb, int64_t m, int64_t n, int64_t k, float *alpha,
                             float *a, int64_t rsa, int64_t csa, float *b, int64_t rsb, int64_t csb,
                             float *beta, float *c, int64_t rsc, int64_t csc);
typedef void (*shim_sgemm_fn)(int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                              int64_t lda, const float *b, int64_t ldb, float beta, float *c,
                              int64_t ldc);
typedef void (*threads_fn)(int n);

int bench_impl_find(const char *name) {
    for (int i = 0; i < BENCH_NUM_IMPLS; i++)
        if (!strcmp(name, bench_impl_names[i])) return i;
    return -1;
}

int bench_impl_baseline(void) {
    return IMPL_BASELINE;
}

const char *bench_openblas_best_coretype(void) {
    gk_cpu_info ci;
    if (gk_cpu_get_info(&ci) == GK_SUCCESS && ci.has_avx512f) return "SkylakeX";
    return "Haswell"; /* the AVX2+FMA kernels; OpenBLAS's Zen target reuses them */
}

static void *open_lib(bench_impl *impl, const char *path) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) snprintf(impl->missing, sizeof impl->missing, "dlopen failed: %s", dlerror());
    return h;
}

static void *sym(bench_impl *impl, const char *name) {
    void *p = dlsym(impl->handle, name);
    if (!p) snprintf(impl->missing, sizeof impl->missing, "symbol %s not found", name);
    return p;
}

/* The shim sits next to libgemmkit in the build tree: <build>/bin/gemmkit -> <build>/lib/. */
static void blis_best_path(char *out, size_t len) {
    const char *env = getenv("GK_BLIS_BEST");
    if (env && *env) {
        snprintf(out, len, "%s", env);
        return;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) *slash = '\0';
    snprintf(out, len, "%s/../lib/gk_blis_best.so", exe);
}

static int load_openblas(bench_impl *impl) {
    if (!(impl->handle = open_lib(impl, "libopenblas.so.0"))) return 0;
    const char *(*corename)(void) = (const char *(*)(void))sym(impl, "openblas_get_corename");
    if (!(impl->gemm_fn = sym(impl, "cblas_sgemm")) ||
        !(impl->threads_fn = sym(impl, "openblas_set_num_threads")) || !corename)
        return 0;
    const char *core = corename();
    const char *want = getenv("OPENBLAS_CORETYPE");
    if (impl->id == IMPL_OPENBLAS_BEST) {
        if (!want || strcasecmp(core, want)) {
            snprintf(impl->missing, sizeof impl->missing,
                     "OPENBLAS_CORETYPE=%s was not honoured (core %s)", want ? want : "(unset)",
                     core);
            return 0;
        }
        snprintf(impl->kernel, sizeof impl->kernel, "%s (OPENBLAS_CORETYPE)", core);
    } else {
        snprintf(impl->kernel, sizeof impl->kernel, "%s (cpuid)", core);
    }
    return 1;
}

static int load_blis(bench_impl *impl) {
    if (!(impl->handle = open_lib(impl, "libblis.so.4"))) return 0;
    int (*arch_id)(void) = (int (*)(void))sym(impl, "bli_arch_query_id");
    const char *(*arch_str)(int) = (const char *(*)(int))sym(impl, "bli_arch_string");
    if (!(impl->gemm_fn = sym(impl, "bli_sgemm")) ||
        !(impl->threads_fn = sym(impl, "bli_thread_set_num_threads")) || !arch_id || !arch_str)
        return 0;
    snprintf(impl->kernel, sizeof impl->kernel, "%s (cpuid)", arch_str(arch_id()));
    return 1;
}

static int load_blis_best(bench_impl *impl) {
    char path[PATH_MAX + 32];
    blis_best_path(path, sizeof path);
    if (!(impl->handle = open_lib(impl, path))) return 0;
    const char *(*init)(void) = (const char *(*)(void))sym(impl, "gk_blis_best_init");
    if (!(impl->gemm_fn = sym(impl, "gk_blis_best_sgemm")) ||
        !(impl->threads_fn = sym(impl, "gk_blis_best_set_threads")) || !init)
        return 0;
    const char *arch = init();
    if (!arch) {
        snprintf(impl->missing, sizeof impl->missing,
                 "no optimised BLIS configuration for this CPU in libblis.a");
        return 0;
    }
    snprintf(impl->kernel, sizeof impl->kernel, "%s (context lookup)", arch);
    return 1;
}

int bench_impl_load(int id, bench_impl *impl) {
    *impl = (bench_impl){.id = id};
    switch (id) {
    case IMPL_GEMMKIT: {
        gk_cpu_info ci;
        gk_cpu_get_info(&ci);
        snprintf(impl->kernel, sizeof impl->kernel, "%s %dx%d (%s)", ci.arch, ci.mr, ci.nr,
                 ci.arch_reason);
        return 1;
    }
    case IMPL_OPENBLAS:
    case IMPL_OPENBLAS_BEST:
        return load_openblas(impl);
    case IMPL_BLIS:
        return load_blis(impl);
    case IMPL_BLIS_BEST:
        return load_blis_best(impl);
    }
    snprintf(impl->missing, sizeof impl->missing, "unknown implementation %d", id);
    return 0;
}

void bench_impl_set_threads(const bench_impl *impl, int threads) {
    if (impl->id == IMPL_GEMMKIT)
        gk_set_num_threads(threads);
    else
        ((threads_fn)impl->threads_fn)(threads);
}

void bench_impl_sgemm(const bench_impl *impl, int64_t m, int64_t n, int64_t k, const float *a,
                      int64_t lda, const float *b, int64_t ldb, float *c, int64_t ldc) {
    float one = 1.0f, zero = 0.0f;
    switch (impl->id) {
    case IMPL_GEMMKIT:
        gk_sgemm(GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, m, n, k, one, a, lda, b, ldb, zero, c,
                 ldc);
        break;
    case IMPL_OPENBLAS:
    case IMPL_OPENBLAS_BEST: /* CBLAS enums: ColMajor = 102, NoTrans = 111 (as gemmkit's) */
        ((cblas_sgemm_fn)impl->gemm_fn)(102, 111, 111, (int)m, (int)n, (int)k, one, a, (int)lda, b,
                                        (int)ldb, zero, c, (int)ldc);
        break;
    case IMPL_BLIS: /* BLIS_NO_TRANSPOSE = 0; strides: row stride 1, column stride ld */
        ((bli_sgemm_fn)impl->gemm_fn)(0, 0, m, n, k, &one, (float *)a, 1, lda, (float *)b, 1, ldb,
                                      &zero, c, 1, ldc);
        break;
    case IMPL_BLIS_BEST:
        ((shim_sgemm_fn)impl->gemm_fn)(m, n, k, one, a, lda, b, ldb, zero, c, ldc);
        break;
    }
}
