/*
 * test_sgemm_batched.c — gk_sgemm_strided_batched and gk_sgemm_batched: random batches of small
 * and odd shapes (both layouts, all transpositions, padded leading dimensions, zero strides,
 * batch 0, 1 and many) checked item by item against the float64 reference (tests/common/
 * batched.h), on one thread and on several (items spread over threads, and items large enough to
 * use every thread each), then the argument errors.
 * GK_TEST_SEED=<n> picks the seed, GK_TEST_CASES=<n> the number of random batches.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "batched.h"
#include "check.h"

static uint64_t seed = 20261124;
static int64_t n_cases = 300;

/* Run d's batch through the strided or the pointer-array call. */
static gk_status run(const tb_data *d, int pointer_arrays) {
    const tb_case *c = &d->cs;
    if (!pointer_arrays)
        return gk_sgemm_strided_batched(c->layout, c->ta, c->tb, c->m, c->n, c->k, c->alpha, d->a,
                                        c->lda, c->sa, d->b, c->ldb, c->sb, c->beta, d->c, c->ldc,
                                        c->sc, c->batch);
    const int64_t nb = c->batch > 0 ? c->batch : 1;
    const float **pa = malloc(sizeof *pa * nb), **pb = malloc(sizeof *pb * nb);
    float **pc = malloc(sizeof *pc * nb);
    gk_status st = GK_ERR_OUT_OF_MEMORY;
    if (pa && pb && pc) {
        for (int64_t i = 0; i < c->batch; i++) {
            pa[i] = d->a + d->perm[i] * c->sa;
            pb[i] = d->b + d->perm[i] * c->sb;
            pc[i] = d->c + i * c->sc;
        }
        st = gk_sgemm_batched(c->layout, c->ta, c->tb, c->m, c->n, c->k, c->alpha, pa, c->lda, pb,
                              c->ldb, c->beta, pc, c->ldc, c->batch);
    }
    free(pa), free(pb), free(pc);
    return st;
}

/* n random batches with sizes up to max_dim on `threads` threads, both entry points. */
static void random_batches(int64_t n, int64_t max_dim, int64_t max_batch, int threads) {
    t_rng r = {seed ^ (uint64_t)(max_dim * 1000 + threads)};
    T_REQUIRE(gk_set_num_threads(threads) == GK_SUCCESS, "%s", gk_last_error());
    for (int64_t i = 0; i < n; i++) {
        const tb_case cs = tb_random(&r, max_dim, max_batch);
        for (int ptr = 0; ptr < 2; ptr++) {
            tb_data d;
            char desc[256], msg[512];
            tb_str(&cs, desc, sizeof desc);
            T_REQUIRE(tb_init(&d, &cs, &r) == 0, "out of memory");
            const gk_status st = run(&d, ptr);
            if (st != GK_SUCCESS)
                t_note(0, __FILE__, __LINE__, "%s %s: status %d: %s", ptr ? "ptr" : "strided", desc,
                       (int)st, gk_last_error());
            else if (tb_verify(&d, ptr, msg, sizeof msg))
                t_note(0, __FILE__, __LINE__, "%s %s (seed %" PRIu64 "): %s",
                       ptr ? "ptr" : "strided", desc, seed, msg);
            tb_free(&d);
        }
    }
    gk_set_num_threads(0);
}

static void small_one_thread(void) {
    random_batches(n_cases, 24, 12, 1);
}
static void small_two_threads(void) {
    random_batches(n_cases, 40, 40, 2); /* items spread over the threads */
}
static void large_items(void) {
    random_batches(6, 160, 3, 2); /* items of 160^3 use both threads each */
}

/* Many tiny items: the batch spread over threads must give the same result as one thread, and
 * every item its own product (items differ, C items adjacent). */
static void many_tiny_items(void) {
    const tb_case cs = {GK_COL_MAJOR, GK_NO_TRANS, GK_TRANS, 7,   5, 3, 1.0f, 0.0f, 7, 5, 7,
                        7 * 3,        5 * 3,       7 * 5,    1000};
    t_rng r = {seed};
    for (int threads = 1; threads <= 2; threads++) {
        tb_data d;
        char msg[512];
        T_REQUIRE(tb_init(&d, &cs, &r) == 0, "out of memory");
        gk_set_num_threads(threads);
        const gk_status st = run(&d, 0);
        T_CHECK(st == GK_SUCCESS, "threads=%d: %s", threads, gk_last_error());
        T_CHECK(st != GK_SUCCESS || !tb_verify(&d, 0, msg, sizeof msg), "threads=%d: %s", threads,
                msg);
        tb_free(&d);
    }
    gk_set_num_threads(0);
}

static void errors(void) {
    float a[64] = {0}, b[64] = {0}, c[64] = {0};
    const float *pa[2] = {a, a}, *pb[2] = {b, b}, *pnull[2] = {a, NULL};
    float *pc[2] = {c, c + 16};
    const gk_layout R = GK_ROW_MAJOR;
    const gk_trans N = GK_NO_TRANS;
    /* batch */
    TB_EXPECT(gk_sgemm_strided_batched(R, N, N, 2, 2, 2, 1, a, 2, 4, b, 2, 4, 0, c, 2, 4, -1),
              GK_ERR_INVALID_VALUE, "batch=-1");
    TB_EXPECT(gk_sgemm_batched(R, N, N, 2, 2, 2, 1, pa, 2, pb, 2, 0, pc, 2, -3),
              GK_ERR_INVALID_VALUE, "batch=-3");
    /* batch 0: nothing is read, not even NULL pointers */
    TB_EXPECT(
        gk_sgemm_strided_batched(R, N, N, 2, 2, 2, 1, NULL, 2, 4, NULL, 2, 4, 0, NULL, 2, 4, 0),
        GK_SUCCESS, "");
    TB_EXPECT(gk_sgemm_batched(R, N, N, 2, 2, 2, 1, NULL, 2, NULL, 2, 0, NULL, 2, 0), GK_SUCCESS,
              "");
    /* the item's own arguments, as gk_sgemm */
    TB_EXPECT(gk_sgemm_strided_batched(R, N, N, -1, 2, 2, 1, a, 2, 4, b, 2, 4, 0, c, 2, 4, 2),
              GK_ERR_INVALID_SIZE, "m=-1");
    TB_EXPECT(gk_sgemm_strided_batched(R, N, N, 2, 2, 2, 1, a, 1, 4, b, 2, 4, 0, c, 2, 4, 2),
              GK_ERR_INVALID_LD, "lda=1");
    TB_EXPECT(
        gk_sgemm_strided_batched((gk_layout)7, N, N, 2, 2, 2, 1, a, 2, 4, b, 2, 4, 0, c, 2, 4, 2),
        GK_ERR_INVALID_LAYOUT, "layout=7");
    TB_EXPECT(gk_sgemm_strided_batched(R, N, N, 2, 2, 2, 1, NULL, 2, 4, b, 2, 4, 0, c, 2, 4, 2),
              GK_ERR_NULL_POINTER, "a is NULL");
    TB_EXPECT(gk_sgemm_batched(R, N, N, 2, 2, 2, 1, pa, 2, pb, 1, 0, pc, 2, 2), GK_ERR_INVALID_LD,
              "ldb=1");
    /* strides */
    TB_EXPECT(gk_sgemm_strided_batched(R, N, N, 2, 2, 2, 1, a, 2, -4, b, 2, 4, 0, c, 2, 4, 2),
              GK_ERR_INVALID_VALUE, "stride_a=-4");
    TB_EXPECT(gk_sgemm_strided_batched(R, N, N, 2, 2, 2, 1, a, 2, 4, b, 2, -1, 0, c, 2, 4, 2),
              GK_ERR_INVALID_VALUE, "stride_b=-1");
    TB_EXPECT(gk_sgemm_strided_batched(R, N, N, 2, 2, 2, 1, a, 2, 4, b, 2, 4, 0, c, 2, 3, 2),
              GK_ERR_INVALID_VALUE, "stride_c=3");
    TB_EXPECT(gk_sgemm_strided_batched(R, N, N, 2, 2, 2, 1, a, 2, 4, b, 2, 4, 0, c, 2, 0, 2),
              GK_ERR_INVALID_VALUE, "overlap");
    /* one item, or nothing written: C's stride does not matter; A and B may be broadcast */
    TB_EXPECT(gk_sgemm_strided_batched(R, N, N, 2, 2, 2, 1, a, 2, 4, b, 2, 4, 0, c, 2, 0, 1),
              GK_SUCCESS, "");
    TB_EXPECT(gk_sgemm_strided_batched(R, N, N, 0, 2, 2, 1, a, 2, 4, b, 2, 4, 0, c, 2, 0, 5),
              GK_SUCCESS, "");
    TB_EXPECT(gk_sgemm_strided_batched(R, N, N, 2, 2, 2, 1, a, 2, 0, b, 2, 0, 0, c, 2, 4, 3),
              GK_SUCCESS, "");
    TB_EXPECT(
        gk_sgemm_strided_batched(R, N, N, 2, 2, 2, 1, a, 2, 4, b, 2, 4, 0, c, 2, 4, INT64_MAX / 2),
        GK_ERR_OVERFLOW, "address space");
    TB_EXPECT(
        gk_sgemm_strided_batched(R, N, N, 2, 2, 2, 1, a, 2, INT64_MAX / 4, b, 2, 4, 0, c, 2, 4, 3),
        GK_ERR_OVERFLOW, "stride_a");
    /* pointer arrays */
    TB_EXPECT(gk_sgemm_batched(R, N, N, 2, 2, 2, 1, NULL, 2, pb, 2, 0, pc, 2, 2),
              GK_ERR_NULL_POINTER, "a (the array");
    TB_EXPECT(gk_sgemm_batched(R, N, N, 2, 2, 2, 1, pa, 2, pb, 2, 0, NULL, 2, 2),
              GK_ERR_NULL_POINTER, "c (the array");
    TB_EXPECT(gk_sgemm_batched(R, N, N, 2, 2, 2, 1, pnull, 2, pb, 2, 0, pc, 2, 2),
              GK_ERR_NULL_POINTER, "a[1] is NULL");
    /* alpha == 0: A and B items are not read, so NULL items are fine */
    TB_EXPECT(gk_sgemm_batched(R, N, N, 2, 2, 2, 0, pnull, 2, pb, 2, 0, pc, 2, 2), GK_SUCCESS, "");
}

int main(void) {
    const char *env = getenv("GK_TEST_SEED");
    if (env && *env) seed = strtoull(env, NULL, 0);
    env = getenv("GK_TEST_CASES");
    if (env && *env) n_cases = strtoll(env, NULL, 0);
    printf("# seed=%" PRIu64 " cases=%lld (set GK_TEST_SEED / GK_TEST_CASES to change)\n", seed,
           (long long)n_cases);
    T_RUN(small_one_thread);
    T_RUN(small_two_threads);
    T_RUN(large_items);
    T_RUN(many_tiny_items);
    T_RUN(errors);
    return t_finish();
}
