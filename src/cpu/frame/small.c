/*
 * small.c — the unpacked small path on several threads: C cut into slices that share nothing,
 * one per thread, each run by the ISA build of the small path (kernels/small_body.h).
 */
#include "cpu/frame/frame.h"

#include "core/parallel.h"

typedef struct small_task {
    const gk_gemm_args *g;
    gk_small_fn fn;
    int by_cols; /* the swapped forms: slice C's columns (the rows of the swapped problem) */
} small_task;

/* Part id of t: whole GK_SMALL_ROW_ALIGN-element groups of C's rows (or columns), so that each
 * thread's part of a C column stays vector-aligned. A slice is planned again as the problem it
 * is (gk_plan_form): a narrow one may suit another form. It is never too large for the small
 * path, being a part of a call that was not; a call made here directly that is (the tests) runs
 * on the tiles. */
static void small_part(void *v, int id, int t) {
    const small_task *x = v;
    const gk_gemm_args *g = x->g;
    const int64_t extent = x->by_cols ? g->n : g->m, group = GK_SMALL_ROW_ALIGN;
    int64_t lo, hi;
    gk_split(gk_ceil_div64(extent, group), t, id, &lo, &hi);
    lo *= group;
    hi = gk_min64(hi * group, extent);
    if (hi <= lo) return;
    gk_gemm_args s = *g;
    if (x->by_cols) {
        s.n = hi - lo;
        s.b = g->transb ? g->b + lo : g->b + lo * g->ldb;
        s.c = g->c + lo * g->ldc;
    } else {
        s.m = hi - lo;
        s.a = g->transa ? g->a + lo * g->lda : g->a + lo;
        s.c = g->c + lo;
    }
    gk_small_form form = GK_SMALL_TILES;
    if (gk_plan_form(&s, &form) != GK_PATH_SMALL) form = GK_SMALL_TILES;
    x->fn(&s, form);
}

void gk_small_run_parallel(const gk_gemm_args *g, gk_small_fn fn, gk_small_form form, int threads) {
    small_task x = {
        .g = g,
        .fn = fn,
        .by_cols = form == GK_SMALL_SWAPPED_DOTS || form == GK_SMALL_SWAPPED_AXPYS,
    };
    gk_parallel(threads, small_part, &x);
}
