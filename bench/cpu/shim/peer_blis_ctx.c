/*
 * peer_blis_ctx.c — the benchmark's "BLIS at its best" peer, built as build/lib/gk_blis_best.so
 * from the static libblis.a (bench/bench.mk). A distribution's libblis picks its kernels by cpuid
 * at init and may fall back to generic C kernels on CPUs its table does not recognise; the static
 * library contains the context of every configuration it was built with, so this shim looks up
 * the context of the best one the CPU can execute and hands it to bli_sgemm_ex explicitly.
 * BLIS's symbols stay hidden inside this object (-Wl,--exclude-libs,ALL), so it cannot clash with
 * a libblis.so loaded elsewhere. Interface: column-major, non-transposed SGEMM only, which is
 * all the benchmark times.
 */
#include <blis.h>
#include <stdint.h>
#include <string.h>

#define SHIM_API __attribute__((visibility("default")))

static cntx_t *best_cntx;
static dim_t best_threads = 1;

/* Picks the context once; returns its configuration name ("skx", "zen3", "haswell") or NULL when
 * the CPU has no ISA this library was built for (the benchmark then reports the peer missing). */
SHIM_API const char *gk_blis_best_init(void) {
    static const char *name;
    if (best_cntx) return name;
    bli_init();
    __builtin_cpu_init();
    arch_t id;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
        id = BLIS_ARCH_SKX;
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
             __builtin_cpu_is("amd"))
        id = BLIS_ARCH_ZEN3; /* zen3 blocksizes suit Zen 2/3/4 caches better than haswell's */
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        id = BLIS_ARCH_HASWELL;
    else
        return NULL;
    cntx_t **ctxs = bli_gks_lookup_id(id);
    if (!ctxs || !ctxs[BLIS_NAT]) return NULL;
    best_cntx = ctxs[BLIS_NAT];
    name = bli_arch_string(id);
    return name;
}

SHIM_API void gk_blis_best_set_threads(int n) {
    best_threads = n > 0 ? n : 1;
}

SHIM_API void gk_blis_best_sgemm(int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                                 int64_t lda, const float *b, int64_t ldb, float beta, float *c,
                                 int64_t ldc) {
    rntm_t rntm = BLIS_RNTM_INITIALIZER;
    bli_rntm_set_num_threads(best_threads, &rntm);
    bli_sgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, m, n, k, &alpha, (float *)a, 1, lda,
                 (float *)b, 1, ldb, &beta, c, 1, ldc, best_cntx, &rntm);
}
