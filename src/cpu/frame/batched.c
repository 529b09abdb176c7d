/*
 * batched.c — gk_sgemm_strided_batched and gk_sgemm_batched: each item is run by gk_sgemm's own
 * planner and paths (gk_sgemm_item), and this file only decides where the threads go.
 *
 * An item with enough work for every thread (the planner's GK_PLAN_MNK_PER_THREAD multiply-adds
 * per thread) runs its own parallel loop nest, items one after another: splitting a large item
 * over threads costs little and keeps each item's operands in cache. Smaller items would leave
 * threads idle (or, below two threads' worth, run on one), so instead the items are dealt out in
 * contiguous ranges, one range per thread, each item on one thread: the batch gets the same
 * per-thread minimum of work as a single call. Arguments: core/batched_args.c.
 */
#include <stdatomic.h>

#include "core/batched.h"
#include "core/parallel.h"
#include "cpu/frame/batched.h"
#include "cpu/frame/frame.h"
#include "cpu/frame/plan.h"

/* One batched call: item 0's normalised arguments and where every item's operands are. */
typedef struct batch {
    gk_gemm_args g;
    int row_major;
    int64_t count;
    /* strided */
    const float *a, *b;
    float *c;
    int64_t stride_a, stride_b, stride_c;
    /* pointer arrays (NULL for a strided call) */
    const float *const *pa, *const *pb;
    float *const *pc;
    atomic_int failed; /* the first failing item's status (0: none) */
} batch;

/* Item i's arguments. A strided operand that is NULL (never read: k == 0 or alpha == 0) stays
 * NULL rather than becoming a pointer computed from NULL. */
static gk_gemm_args item(const batch *bt, int64_t i) {
    gk_gemm_args g = bt->g;
    if (bt->pa != NULL)
        gk_batch_item(&g, bt->row_major, bt->pa[i], bt->pb[i], bt->pc[i]);
    else
        gk_batch_item(&g, bt->row_major, bt->a ? bt->a + i * bt->stride_a : NULL,
                      bt->b ? bt->b + i * bt->stride_b : NULL, bt->c + i * bt->stride_c);
    return g;
}

static void run_range(void *ctx, int id, int parts) {
    batch *bt = ctx;
    int64_t lo, hi;
    gk_split(bt->count, parts, id, &lo, &hi);
    for (int64_t i = lo; i < hi; i++) {
        const gk_gemm_args g = item(bt, i);
        const gk_status st = gk_sgemm_item(&g, 1);
        if (st != GK_SUCCESS) {
            int none = 0;
            atomic_compare_exchange_strong(&bt->failed, &none, (int)st);
            return;
        }
    }
}

static gk_status run(const char *who, batch *bt) {
    if (bt->count == 0 || bt->g.m == 0 || bt->g.n == 0) return GK_SUCCESS;
    const int threads = gk_get_num_threads();
    const double mnk =
        gk_gemm_is_scale_only(&bt->g) ? (double)bt->g.m * (double)bt->g.n : gk_plan_mnk(&bt->g);
    if (threads <= 1 || bt->count == 1 || mnk >= (double)threads * GK_PLAN_MNK_PER_THREAD) {
        for (int64_t i = 0; i < bt->count; i++) {
            const gk_gemm_args g = item(bt, i);
            const gk_status st = gk_sgemm_item(&g, threads);
            if (st != GK_SUCCESS)
                return gk_fail(st, "%s: item %lld: out of memory for the packing buffers", who,
                               (long long)i);
        }
        return GK_SUCCESS;
    }
    double parts = mnk * (double)bt->count / GK_PLAN_MNK_PER_THREAD;
    if (parts > (double)threads) parts = threads;
    if (parts > (double)bt->count) parts = (double)bt->count;
    atomic_init(&bt->failed, 0);
    gk_parallel(parts < 1.0 ? 1 : (int)parts, run_range, bt);
    const int failed = atomic_load(&bt->failed);
    if (failed != 0)
        return gk_fail((gk_status)failed, "%s: out of memory for an item's packing buffers", who);
    return GK_SUCCESS;
}

gk_status gk_sgemm_strided_batched(gk_layout layout, gk_trans transa, gk_trans transb, int64_t m,
                                   int64_t n, int64_t k, float alpha, const float *a, int64_t lda,
                                   int64_t stride_a, const float *b, int64_t ldb, int64_t stride_b,
                                   float beta, float *c, int64_t ldc, int64_t stride_c,
                                   int64_t batch_count) {
    static const char who[] = "gk_sgemm_strided_batched";
    gk_clear_error();
    batch bt = {.row_major = layout == GK_ROW_MAJOR,
                .count = batch_count,
                .a = a,
                .b = b,
                .c = c,
                .stride_a = stride_a,
                .stride_b = stride_b,
                .stride_c = stride_c};
    gk_batch_extent ext;
    gk_status st =
        gk_check_strided_batched(who, layout, transa, transb, m, n, k, alpha, a, lda, stride_a, b,
                                 ldb, stride_b, beta, c, ldc, stride_c, batch_count, &bt.g, &ext);
    return st != GK_SUCCESS ? st : run(who, &bt);
}

gk_status gk_sgemm_batched(gk_layout layout, gk_trans transa, gk_trans transb, int64_t m, int64_t n,
                           int64_t k, float alpha, const float *const *a, int64_t lda,
                           const float *const *b, int64_t ldb, float beta, float *const *c,
                           int64_t ldc, int64_t batch_count) {
    static const char who[] = "gk_sgemm_batched";
    gk_clear_error();
    batch bt = {
        .row_major = layout == GK_ROW_MAJOR, .count = batch_count, .pa = a, .pb = b, .pc = c};
    gk_status st = gk_check_ptr_batched(who, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb,
                                        beta, c, ldc, batch_count, &bt.g);
    if (st != GK_SUCCESS || batch_count == 0 || bt.g.m == 0 || bt.g.n == 0) return st;
    /* Each item's own pointers: the ones it touches must not be NULL. */
    const int reads = !gk_gemm_is_scale_only(&bt.g);
    for (int64_t i = 0; i < batch_count; i++) {
        const char *name = c[i] == NULL            ? "c"
                           : reads && a[i] == NULL ? "a"
                           : reads && b[i] == NULL ? "b"
                                                   : NULL;
        if (name != NULL)
            return gk_fail(GK_ERR_NULL_POINTER, "%s: %s[%lld] is NULL", who, name, (long long)i);
    }
    return run(who, &bt);
}
