/*
 * test_args.c — argument errors of the public API: every bad gk_sgemm argument returns its own
 * status with a gk_last_error() message naming the argument and leaves C, A and B bit-identical;
 * the smallest legal leading dimensions are accepted, also across the argument check's shortcut
 * for plainly valid calls; status strings, gk_set_num_threads,
 * gk_set_arch and gk_cpu_get_info reject bad values; the error message is per thread.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "core/internal.h"
#include "ref.h"

#define BIG ((int64_t)1 << 40)

/* One call to gk_sgemm; NULL pointer flags replace the operand by NULL. */
typedef struct {
    gk_layout layout;
    gk_trans ta, tb;
    int64_t m, n, k, lda, ldb, ldc;
    float alpha;
    int null_a, null_b, null_c;
} call;

static const call good = {GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 4, 3, 2, 4, 2, 4, 1.0f, 0, 0, 0};

/* 1 if `arg` occurs in msg as a whole identifier (so "a" is not found inside "gk_sgemm"). */
static int names_arg(const char *msg, const char *arg) {
    const size_t len = strlen(arg);
    for (const char *p = strstr(msg, arg); p; p = strstr(p + 1, arg)) {
        int before = p > msg && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
        int after = isalnum((unsigned char)p[len]) || p[len] == '_';
        if (!before && !after) return 1;
    }
    return 0;
}

/* Buffers far larger than any valid use in this file, filled with a pattern checked after. */
enum { BUF = 256 };
static float a_buf[BUF], b_buf[BUF], c_buf[BUF];

static void fill_pattern(void) {
    for (int i = 0; i < BUF; i++) {
        a_buf[i] = (float)i + 0.25f;
        b_buf[i] = -(float)i - 0.5f;
        c_buf[i] = (float)(i * 3) + 0.125f;
    }
}

static int pattern_intact(void) {
    for (int i = 0; i < BUF; i++)
        if (a_buf[i] != (float)i + 0.25f || b_buf[i] != -(float)i - 0.5f ||
            c_buf[i] != (float)(i * 3) + 0.125f)
            return 0;
    return 1;
}

static gk_status do_call(const call *cl) {
    fill_pattern();
    return gk_sgemm(cl->layout, cl->ta, cl->tb, cl->m, cl->n, cl->k, cl->alpha,
                    cl->null_a ? NULL : a_buf, cl->lda, cl->null_b ? NULL : b_buf, cl->ldb, 0.5f,
                    cl->null_c ? NULL : c_buf, cl->ldc);
}

/* The call must fail with `want`, name `arg` in its message and leave every buffer alone. */
static void expect_error(const call *cl, gk_status want, const char *arg, const char *what) {
    gk_status st = do_call(cl);
    const char *msg = gk_last_error();
    T_CHECK(st == want, "%s: got %s (%d), want %s (%d); message \"%s\"", what, gk_status_string(st),
            (int)st, gk_status_string(want), (int)want, msg);
    T_CHECK(names_arg(msg, arg), "%s: message \"%s\" does not name %s", what, msg, arg);
    T_CHECK(pattern_intact(), "%s: A, B or C was modified by a rejected call", what);
}

/* Runs first, so its failing call is the process's first: a good call leaves the message empty,
 * a failure sets it, and the next good call empties it again (gk_clear_error skips the
 * thread-local clear until the first failure anywhere; that failure must switch it on). */
static void message_cleared_by_next_good_call(void) {
    call cl = good;
    T_REQUIRE(do_call(&cl) == GK_SUCCESS, "good call failed: %s", gk_last_error());
    T_CHECK(gk_last_error()[0] == '\0', "message after a good call: \"%s\"", gk_last_error());
    cl.m = -1;
    T_CHECK(do_call(&cl) == GK_ERR_INVALID_SIZE && gk_last_error()[0] != '\0',
            "m = -1 gave no message");
    cl = good;
    T_CHECK(do_call(&cl) == GK_SUCCESS && gk_last_error()[0] == '\0',
            "message after the next good call: \"%s\"", gk_last_error());
}

static void invalid_layout(void) {
    const int bad[] = {0, 100, 103, -101};
    for (int i = 0; i < 4; i++) {
        call cl = good;
        cl.layout = (gk_layout)bad[i];
        char what[64];
        snprintf(what, sizeof what, "layout=%d", bad[i]);
        expect_error(&cl, GK_ERR_INVALID_LAYOUT, "layout", what);
    }
}

static void invalid_trans(void) {
    /* INT32_MIN and INT32_MAX: the check's shortcut must not overflow on them (tests/fuzz) */
    const int bad[] = {0, 110, 114, 'N', INT32_MIN, INT32_MAX};
    for (int i = 0; i < (int)(sizeof bad / sizeof *bad); i++) {
        char what[64];
        call cl = good;
        cl.ta = (gk_trans)bad[i];
        snprintf(what, sizeof what, "transa=%d", bad[i]);
        expect_error(&cl, GK_ERR_INVALID_TRANS, "transa", what);
        cl = good;
        cl.tb = (gk_trans)bad[i];
        snprintf(what, sizeof what, "transb=%d", bad[i]);
        expect_error(&cl, GK_ERR_INVALID_TRANS, "transb", what);
    }
}

static void negative_sizes(void) {
    const int64_t bad[] = {-1, INT64_MIN};
    for (int i = 0; i < 2; i++) {
        call cl = good;
        cl.m = bad[i];
        expect_error(&cl, GK_ERR_INVALID_SIZE, "m", "negative m");
        cl = good;
        cl.n = bad[i];
        expect_error(&cl, GK_ERR_INVALID_SIZE, "n", "negative n");
        cl = good;
        cl.k = bad[i];
        expect_error(&cl, GK_ERR_INVALID_SIZE, "k", "negative k");
    }
}

/* For every layout and transposition pair, one less than the minimum leading dimension of each
 * operand is rejected and the minimum itself accepted (including max(1, 0) for empty extents). */
static void leading_dimensions(void) {
    const gk_layout lays[2] = {GK_COL_MAJOR, GK_ROW_MAJOR};
    const gk_trans trs[2] = {GK_NO_TRANS, GK_TRANS};
    const int64_t shapes[][3] = {{5, 3, 2}, {2, 7, 9}, {0, 4, 3}, {3, 0, 4}, {4, 3, 0}};
    for (int l = 0; l < 2; l++)
        for (int t = 0; t < 4; t++)
            for (int s = 0; s < 5; s++) {
                call cl = good;
                cl.layout = lays[l], cl.ta = trs[t % 2], cl.tb = trs[t / 2];
                cl.m = shapes[s][0], cl.n = shapes[s][1], cl.k = shapes[s][2];
                cl.lda = t_min_ld(cl.layout, cl.ta, cl.m, cl.k);
                cl.ldb = t_min_ld(cl.layout, cl.tb, cl.k, cl.n);
                cl.ldc = t_min_ld(cl.layout, GK_NO_TRANS, cl.m, cl.n);
                char what[128];
                snprintf(what, sizeof what, "%s ta=%d tb=%d m=%lld n=%lld k=%lld",
                         l ? "row-major" : "col-major", (int)cl.ta, (int)cl.tb, (long long)cl.m,
                         (long long)cl.n, (long long)cl.k);
                gk_status st = do_call(&cl);
                T_CHECK(st == GK_SUCCESS, "%s at minimal lda=%lld ldb=%lld ldc=%lld: %s: %s", what,
                        (long long)cl.lda, (long long)cl.ldb, (long long)cl.ldc,
                        gk_status_string(st), gk_last_error());
                call bad = cl;
                bad.lda--;
                expect_error(&bad, GK_ERR_INVALID_LD, "lda", what);
                bad = cl;
                bad.ldb--;
                expect_error(&bad, GK_ERR_INVALID_LD, "ldb", what);
                bad = cl;
                bad.ldc--;
                expect_error(&bad, GK_ERR_INVALID_LD, "ldc", what);
                if (t_state.case_failed) return;
            }
}

/* A, B and C may be NULL only when they are not accessed (see test_sgemm_semantics.c). */
static void null_pointers(void) {
    call cl = good;
    cl.null_a = 1;
    expect_error(&cl, GK_ERR_NULL_POINTER, "a", "a = NULL");
    cl = good;
    cl.null_b = 1;
    expect_error(&cl, GK_ERR_NULL_POINTER, "b", "b = NULL");
    cl = good;
    cl.null_c = 1;
    expect_error(&cl, GK_ERR_NULL_POINTER, "c", "c = NULL");
    cl.alpha = 0.0f; /* C = beta * C still writes C */
    expect_error(&cl, GK_ERR_NULL_POINTER, "c", "c = NULL with alpha = 0");
}

/* Extents whose byte size cannot be addressed are refused before anything is touched. */
static void byte_overflow(void) {
    call cl = {GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, BIG, BIG, BIG, BIG, BIG, BIG, 1.0f, 0, 0, 0};
    gk_status st = do_call(&cl);
    T_CHECK(st == GK_ERR_OVERFLOW, "m=n=k=ld=2^40: got %s: %s", gk_status_string(st),
            gk_last_error());
    T_CHECK(pattern_intact(), "m=n=k=ld=2^40 modified a buffer");

    /* One operand at a time: the other two span at most 2^40 elements, which is addressable. */
    cl = (call){GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 2, 1, BIG, BIG, BIG, 2, 1.0f, 0, 0, 0};
    expect_error(&cl, GK_ERR_OVERFLOW, "a", "A with 2^40 columns, lda=2^40");
    cl = (call){GK_ROW_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 1, 2, BIG, BIG, BIG, 2, 1.0f, 0, 0, 0};
    expect_error(&cl, GK_ERR_OVERFLOW, "b", "B with 2^40 rows, ldb=2^40 (row-major)");
    cl =
        (call){GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 2, 4, 1, 2, 1, INT64_MAX / 2, 1.0f, 0, 0, 0};
    expect_error(&cl, GK_ERR_OVERFLOW, "c", "C with ldc=2^62");
}

/* gk_check_gemm takes a shortcut for plainly valid calls (every size and leading dimension
 * below 2^30, no NULL pointer) and the full ordered checks otherwise. Across that boundary, in
 * every layout and transposition, a valid call must succeed with the same column-major
 * normalisation either way, and a leading dimension one short must still be refused. Only the
 * check runs: these sizes are never multiplied. */
static void check_agrees_across_shortcut(void) {
    const int64_t edge = (int64_t)1 << 30;
    const int64_t dims[] = {0, 1, 7, edge - 1, edge, edge + 1};
    const gk_layout lays[2] = {GK_COL_MAJOR, GK_ROW_MAJOR};
    const gk_trans trs[2] = {GK_NO_TRANS, GK_TRANS};
    float dummy[1];
    for (int l = 0; l < 2; l++)
        for (int t = 0; t < 4; t++)
            for (int i = 0; i < 6 * 6 * 6; i++) {
                const gk_layout lay = lays[l];
                const gk_trans ta = trs[t % 2], tb = trs[t / 2];
                const int64_t m = dims[i % 6], n = dims[i / 6 % 6], k = dims[i / 36];
                const int64_t lda = t_min_ld(lay, ta, m, k), ldb = t_min_ld(lay, tb, k, n),
                              ldc = t_min_ld(lay, GK_NO_TRANS, m, n);
                gk_gemm_args g;
                gk_status st = gk_check_gemm("test", lay, ta, tb, m, n, k, 2.0f, dummy, lda, dummy,
                                             ldb, 0.5f, dummy, ldc, &g);
                T_CHECK(st == GK_SUCCESS, "layout=%d ta=%d tb=%d m=%lld n=%lld k=%lld: %s",
                        (int)lay, (int)ta, (int)tb, (long long)m, (long long)n, (long long)k,
                        gk_last_error());
                const int row = lay == GK_ROW_MAJOR;
                T_CHECK(g.m == (row ? n : m) && g.n == (row ? m : n) && g.k == k &&
                            g.lda == (row ? ldb : lda) && g.ldb == (row ? lda : ldb) &&
                            g.ldc == ldc && g.transa == (row ? t / 2 : t % 2) &&
                            g.transb == (row ? t % 2 : t / 2) && g.alpha == 2.0f && g.beta == 0.5f,
                        "layout=%d ta=%d tb=%d m=%lld n=%lld k=%lld: wrong normalisation", (int)lay,
                        (int)ta, (int)tb, (long long)m, (long long)n, (long long)k);
                /* each leading dimension one short of its minimum (when that is above 1) */
                const int64_t lds[3] = {lda, ldb, ldc};
                const char *names[3] = {"lda", "ldb", "ldc"};
                for (int o = 0; o < 3; o++) {
                    if (lds[o] <= 1) continue;
                    int64_t ld[3] = {lda, ldb, ldc};
                    ld[o]--;
                    gk_clear_error();
                    st = gk_check_gemm("test", lay, ta, tb, m, n, k, 2.0f, dummy, ld[0], dummy,
                                       ld[1], 0.5f, dummy, ld[2], &g);
                    T_CHECK(st == GK_ERR_INVALID_LD && names_arg(gk_last_error(), names[o]),
                            "%s one short, layout=%d ta=%d tb=%d m=%lld n=%lld k=%lld: got %s: %s",
                            names[o], (int)lay, (int)ta, (int)tb, (long long)m, (long long)n,
                            (long long)k, gk_status_string(st), gk_last_error());
                }
                if (t_state.case_failed) return;
            }
}

static void status_strings(void) {
    const char *seen[GK_ERR_INVALID_POINTER + 1];
    for (int s = GK_SUCCESS; s <= GK_ERR_INVALID_POINTER; s++) {
        const char *str = gk_status_string((gk_status)s);
        T_REQUIRE(str && str[0], "gk_status_string(%d) is empty", s);
        for (int o = 0; o < s; o++)
            T_CHECK(strcmp(seen[o], str) != 0, "statuses %d and %d share the name \"%s\"", o, s,
                    str);
        seen[s] = str;
    }
    T_CHECK(gk_status_string((gk_status)99) != NULL, "gk_status_string(99) is NULL");
    T_CHECK(gk_status_string((gk_status)-1) != NULL, "gk_status_string(-1) is NULL");
}

static void set_num_threads_rejects_negative(void) {
    T_REQUIRE(gk_set_num_threads(2) == GK_SUCCESS, "gk_set_num_threads(2): %s", gk_last_error());
    gk_status st = gk_set_num_threads(-1);
    T_CHECK(st == GK_ERR_INVALID_VALUE, "gk_set_num_threads(-1) returned %s", gk_status_string(st));
    T_CHECK(gk_last_error()[0] != '\0', "no message for gk_set_num_threads(-1)");
    T_CHECK(gk_get_num_threads() == 2, "the rejected call changed the count to %d",
            gk_get_num_threads());
    gk_set_num_threads(0);
}

static void set_arch_rejects_unknown(void) {
    gk_cpu_info before, after;
    T_REQUIRE(gk_cpu_get_info(&before) == GK_SUCCESS, "gk_cpu_get_info: %s", gk_last_error());
    const char *bad[] = {"bogus", "avx3", "sse9000"};
    for (int i = 0; i < 3; i++) {
        gk_status st = gk_set_arch(bad[i]);
        T_CHECK(st == GK_ERR_INVALID_VALUE, "gk_set_arch(\"%s\") returned %s", bad[i],
                gk_status_string(st));
        T_CHECK(gk_last_error()[0] != '\0', "no message for gk_set_arch(\"%s\")", bad[i]);
    }
    T_REQUIRE(gk_cpu_get_info(&after) == GK_SUCCESS, "gk_cpu_get_info: %s", gk_last_error());
    T_CHECK(strcmp(before.arch, after.arch) == 0, "rejected names changed the arch %s -> %s",
            before.arch, after.arch);
}

static void cpu_get_info_rejects_null(void) {
    gk_status st = gk_cpu_get_info(NULL);
    T_CHECK(st != GK_SUCCESS, "gk_cpu_get_info(NULL) returned success");
}

/* A thread sees only its own calls' errors. */
static char thread_initial[512], thread_own[512];

static void *other_thread(void *arg) {
    (void)arg;
    snprintf(thread_initial, sizeof thread_initial, "%s", gk_last_error());
    call cl = good;
    cl.k = -3;
    float c[16];
    gk_sgemm(cl.layout, cl.ta, cl.tb, cl.m, cl.n, cl.k, 1.0f, a_buf, cl.lda, b_buf, cl.ldb, 0.0f, c,
             cl.ldc);
    snprintf(thread_own, sizeof thread_own, "%s", gk_last_error());
    return NULL;
}

static void last_error_is_per_thread(void) {
    call cl = good;
    cl.layout = (gk_layout)7;
    T_REQUIRE(do_call(&cl) == GK_ERR_INVALID_LAYOUT, "setup call did not fail");
    char mine[512];
    snprintf(mine, sizeof mine, "%s", gk_last_error());
    pthread_t th;
    T_REQUIRE(pthread_create(&th, NULL, other_thread, NULL) == 0, "pthread_create failed");
    pthread_join(th, NULL);
    T_CHECK(thread_initial[0] == '\0', "a new thread sees \"%s\"", thread_initial);
    T_CHECK(names_arg(thread_own, "k"), "the thread's own error reads \"%s\"", thread_own);
    T_CHECK(strcmp(gk_last_error(), mine) == 0,
            "this thread's message changed from \"%s\" to \"%s\"", mine, gk_last_error());
}

int main(void) {
    T_RUN(message_cleared_by_next_good_call);
    T_RUN(invalid_layout);
    T_RUN(invalid_trans);
    T_RUN(negative_sizes);
    T_RUN(leading_dimensions);
    T_RUN(null_pointers);
    T_RUN(byte_overflow);
    T_RUN(check_agrees_across_shortcut);
    T_RUN(status_strings);
    T_RUN(set_num_threads_rejects_negative);
    T_RUN(set_arch_rejects_unknown);
    T_RUN(cpu_get_info_rejects_null);
    T_RUN(last_error_is_per_thread);
    return t_finish();
}
