/*
 * test_reproducible.c — the CPU reproducibility contract (docs/cpu.md, "Reproducibility"): on one
 * machine with one kernel family, gk_sgemm's result is bitwise the same for any thread count and
 * on every run. Each case is a shape that the planner sends down one path (the tiles, each vector
 * form, the packed path with each of its options: test_verbose_plan checks which) large enough to
 * be split over several threads; its result with 1 thread is the reference that 2, 3, 4 and 7
 * threads, and a second run of each, must match bit for bit. Every family this CPU runs is tried.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gemmkit.h"

typedef struct {
    gk_layout layout;
    char ta, tb;
    int64_t m, n, k;
    const char *path; /* what the planner does with it, for the failure message */
} repro_case;

static const repro_case cases[] = {
    {GK_COL_MAJOR, 'N', 'N', 32, 2, 60000, "tiles (GEMV-like, 32 rows)"},
    {GK_COL_MAJOR, 'N', 'N', 2000, 2, 1000, "axpys"},
    {GK_COL_MAJOR, 'N', 'N', 3001, 1, 700, "axpys, odd rows"},
    {GK_COL_MAJOR, 'T', 'N', 1000, 2, 2000, "dots"},
    {GK_COL_MAJOR, 'N', 'N', 1, 3000, 1000, "swapped-dots"},
    {GK_ROW_MAJOR, 'N', 'N', 3000, 1, 1000, "swapped-dots (row-major GEMV)"},
    {GK_COL_MAJOR, 'N', 'T', 1, 3000, 1000, "swapped-axpys"},
    {GK_COL_MAJOR, 'N', 'N', 300, 200, 100, "packed"},
    {GK_COL_MAJOR, 'T', 'T', 333, 257, 301, "packed, both transposed"},
    {GK_ROW_MAJOR, 'N', 'T', 250, 700, 260, "packed, row-major"},
    {GK_COL_MAJOR, 'N', 'N', 64, 1500, 600, "packed, B in place"},
    {GK_COL_MAJOR, 'N', 'N', 96, 96, 2000, "packed, A in place"},
    {GK_COL_MAJOR, 'N', 'N', 3000, 24, 300, "packed, A streamed"},
    {GK_COL_MAJOR, 'N', 'N', 700, 700, 700, "packed, several blocks"},
};

static float *random_floats(int64_t count, unsigned seed) {
    float *x = malloc((size_t)count * sizeof *x);
    if (!x) return NULL;
    for (int64_t i = 0; i < count; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)(seed >> 8) / 16777216.0f - 0.5f;
    }
    return x;
}

static int run(const repro_case *cs, const float *a, const float *b, float *c, int threads) {
    const gk_trans ta = cs->ta == 'T' ? GK_TRANS : GK_NO_TRANS;
    const gk_trans tb = cs->tb == 'T' ? GK_TRANS : GK_NO_TRANS;
    const int col = cs->layout == GK_COL_MAJOR;
    /* stored rows of A, B, C in the caller's layout: leading dimensions are the minimal ones */
    const int at = cs->ta == 'T', bt = cs->tb == 'T';
    const int64_t lda = col ? (at ? cs->k : cs->m) : (at ? cs->m : cs->k);
    const int64_t ldb = col ? (bt ? cs->n : cs->k) : (bt ? cs->k : cs->n);
    const int64_t ldc = col ? cs->m : cs->n;
    if (gk_set_num_threads(threads) != GK_SUCCESS) return 0;
    return gk_sgemm(cs->layout, ta, tb, cs->m, cs->n, cs->k, 1.0f, a, lda, b, ldb, 0.5f, c, ldc) ==
           GK_SUCCESS;
}

static void one_family(const char *arch) {
    static const int threads[] = {2, 3, 4, 7, 1, 2, 3, 4, 7};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const repro_case *cs = &cases[i];
        const int64_t mc = cs->m * cs->n;
        float *a = random_floats(cs->m * cs->k, 1u + (unsigned)i);
        float *b = random_floats(cs->k * cs->n, 101u + (unsigned)i);
        float *c0 = random_floats(mc, 7u);
        float *ref = malloc((size_t)mc * sizeof *ref), *c = malloc((size_t)mc * sizeof *c);
        T_REQUIRE(a && b && c0 && ref && c, "out of memory");
        memcpy(ref, c0, (size_t)mc * sizeof *ref);
        T_REQUIRE(run(cs, a, b, ref, 1), "%s %s: call failed: %s", arch, cs->path, gk_last_error());
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
            memcpy(c, c0, (size_t)mc * sizeof *c);
            T_REQUIRE(run(cs, a, b, c, threads[t]), "call failed: %s", gk_last_error());
            int64_t diff = 0;
            for (int64_t e = 0; e < mc; e++)
                diff += memcmp(&c[e], &ref[e], sizeof(float)) != 0;
            T_CHECK(diff == 0, "%s, %s %c%c %lldx%lldx%lld (%s): %lld elements differ on %d threads",
                    arch, cs->layout == GK_COL_MAJOR ? "col" : "row", cs->ta, cs->tb,
                    (long long)cs->m, (long long)cs->n, (long long)cs->k, cs->path,
                    (long long)diff, threads[t]);
        }
        free(a), free(b), free(c0), free(ref), free(c);
    }
}

static void every_family(void) {
    int tried = 0;
    for (int i = 0; i < gk_cpu_kernel_count(); i++) {
        gk_cpu_kernel_info k;
        if (gk_cpu_kernel_info_get(i, &k) != GK_SUCCESS || !k.usable) continue;
        T_REQUIRE(gk_set_arch(k.arch) == GK_SUCCESS, "gk_set_arch(%s): %s", k.arch,
                  gk_last_error());
        one_family(k.arch);
        tried++;
    }
    gk_set_arch(NULL);
    gk_set_num_threads(0);
    T_CHECK(tried > 0, "no usable kernel family");
}

int main(void) {
    T_RUN(every_family);
    return t_finish();
}
