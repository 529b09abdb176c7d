/*
 * test_verbose_plan.c — GEMMKIT_VERBOSE=1 names the path of every gk_sgemm call on stderr, one
 * line per call: shapes chosen to take each path of the planner (src/cpu/frame/plan.h) must log
 * that path, with the call's layout, transpositions and sizes, and the packed path its thread
 * count and options. Also checks the calls' results are still right (a cheap float64 check), so
 * that logging changes nothing else. Calls through the public API; the one case whose path
 * depends on the machine's blocking (A streamed: more rows than a row block) takes its size from
 * gk_cpu_get_info and plan.h's widening limit. stderr goes to a temporary file.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cpu/frame/plan.h"
#include "gemmkit.h"

typedef struct {
    gk_layout layout;
    char ta, tb; /* 'N' or 'T' */
    int64_t m, n, k;
    int64_t ldc_pad; /* added to C's minimal leading dimension */
    float alpha;
    int threads;
    const char *arch;   /* gk_set_arch for this call, NULL: auto */
    const char *path;   /* expected "path=..." */
    const char *option; /* another word the line must hold, or NULL */
} plan_case;

static plan_case cases[] = {
    {GK_COL_MAJOR, 'N', 'N', 0, 5, 5, 0, 1.0f, 1, NULL, "none", NULL},
    {GK_COL_MAJOR, 'N', 'N', 5, 5, 0, 0, 1.0f, 1, NULL, "scale", NULL},
    {GK_ROW_MAJOR, 'T', 'N', 7, 9, 4, 0, 0.0f, 1, NULL, "scale", NULL},
    {GK_COL_MAJOR, 'N', 'N', 8, 8, 8, 0, 1.0f, 1, NULL, "tiles", NULL},
    {GK_COL_MAJOR, 'T', 'T', 20, 20, 20, 0, 1.0f, 1, NULL, "tiles", NULL},
    {GK_COL_MAJOR, 'N', 'T', 64, 64, 64, 0, 1.0f, 1, NULL, "tiles", NULL},
    {GK_COL_MAJOR, 'N', 'N', 16, 2, 512, 0, 1.0f, 1, NULL, "tiles", NULL},
    {GK_COL_MAJOR, 'N', 'N', 1000, 1, 1000, 0, 1.0f, 1, NULL, "axpys", NULL},
    {GK_COL_MAJOR, 'T', 'N', 1000, 2, 500, 0, 1.0f, 1, NULL, "dots", NULL},
    {GK_COL_MAJOR, 'N', 'N', 1, 1000, 500, 0, 1.0f, 1, NULL, "swapped-dots", NULL},
    {GK_ROW_MAJOR, 'N', 'N', 1000, 1, 500, 0, 1.0f, 1, NULL, "swapped-dots", NULL},
    {GK_COL_MAJOR, 'N', 'T', 1, 1000, 500, 0, 1.0f, 1, NULL, "swapped-axpys", NULL},
    {GK_COL_MAJOR, 'N', 'T', 1, 1000, 500, 3, 1.0f, 1, NULL, "packed", NULL},
    {GK_COL_MAJOR, 'N', 'N', 64, 64, 64, 0, 1.0f, 1, NULL, "packed", "threads=1"},
    {GK_COL_MAJOR, 'T', 'N', 300, 200, 100, 0, 1.0f, 2, NULL, "packed", "threads=2"},
    {GK_ROW_MAJOR, 'N', 'T', 300, 200, 100, 0, 1.0f, 2, NULL, "packed", "grid="},
    /* m set in main: more rows than the generic family's row block, widened for the short k */
    {GK_COL_MAJOR, 'N', 'N', 0, 24, 300, 0, 1.0f, 1, "generic", "packed", "a-streamed"},
    {GK_COL_MAJOR, 'N', 'N', 2000, 2, 4000, 0, 1.0f, 2, NULL, "axpys", "threads=2"},
};
enum { NCASES = sizeof cases / sizeof cases[0] };

/* The call of case x on fresh operands; 0 when its result is wrong. */
static int run(const plan_case *x) {
    const int row = x->layout == GK_ROW_MAJOR, ta = x->ta == 'T', tb = x->tb == 'T';
    const int64_t m = x->m, n = x->n, k = x->k;
    /* stored extents: rows x cols of the arrays as laid out */
    const int64_t a_lead = row == ta ? m : k, a_other = row == ta ? k : m;
    const int64_t b_lead = row == tb ? k : n, b_other = row == tb ? n : k;
    const int64_t lda = a_lead > 0 ? a_lead : 1, ldb = b_lead > 0 ? b_lead : 1;
    const int64_t c_lead = row ? n : m, c_other = row ? m : n;
    const int64_t ldc = (c_lead > 0 ? c_lead : 1) + x->ldc_pad;
    float *a = calloc((size_t)(lda * (a_other > 0 ? a_other : 1)), sizeof(float));
    float *b = calloc((size_t)(ldb * (b_other > 0 ? b_other : 1)), sizeof(float));
    float *c = calloc((size_t)(ldc * (c_other > 0 ? c_other : 1)), sizeof(float));
    int ok = a && b && c;
    if (ok) {
        /* op(A)(i, p) = (i + 2p) % 5 - 2, op(B)(p, j) = (3p + j) % 7 - 3, C(i, j) = 1 */
        for (int64_t i = 0; i < m; i++)
            for (int64_t p = 0; p < k; p++)
                a[row == ta ? i + p * lda : p + i * lda] = (float)((i + 2 * p) % 5 - 2);
        for (int64_t p = 0; p < k; p++)
            for (int64_t j = 0; j < n; j++)
                b[row == tb ? p + j * ldb : j + p * ldb] = (float)((3 * p + j) % 7 - 3);
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++)
                c[row ? j + i * ldc : i + j * ldc] = 1.0f;
        gk_set_num_threads(x->threads);
        ok = gk_set_arch(x->arch) == GK_SUCCESS &&
             gk_sgemm(x->layout, ta ? GK_TRANS : GK_NO_TRANS, tb ? GK_TRANS : GK_NO_TRANS, m, n, k,
                      x->alpha, a, lda, b, ldb, 0.5f, c, ldc) == GK_SUCCESS;
        gk_set_arch(NULL);
        /* small integers: every sum is exact in float */
        for (int64_t i = 0; ok && i < m; i++)
            for (int64_t j = 0; ok && j < n; j++) {
                double want = 0.5;
                for (int64_t p = 0; p < k; p++)
                    want += x->alpha * (double)((i + 2 * p) % 5 - 2) * ((3 * p + j) % 7 - 3);
                ok = c[row ? j + i * ldc : i + j * ldc] == (float)want;
            }
    }
    free(a), free(b), free(c);
    return ok;
}

static char log_text[1 << 16];

/* Run every case with stderr sent to a temporary file; the file's text in log_text. */
static void run_logged(int results[NCASES]) {
    char path[] = "/tmp/gk_verbose_plan_XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) return;
    unlink(path);
    fflush(stderr);
    const int saved = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    for (int i = 0; i < NCASES; i++)
        results[i] = run(&cases[i]);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    const ssize_t len = pread(fd, log_text, sizeof log_text - 1, 0);
    log_text[len > 0 ? len : 0] = '\0';
    close(fd);
}

static int results[NCASES];

static void each_call_logs_its_path(void) {
    /* the lines about calls, in order (the first call also logs the CPU and kernel) */
    const char *lines[NCASES + 1];
    int nl = 0;
    for (char *s = log_text, *e; *s && nl <= NCASES; s = e + 1) {
        if (!(e = strchr(s, '\n'))) break;
        *e = '\0';
        if (strncmp(s, "gemmkit: gk_sgemm ", 18) == 0) lines[nl++] = s;
    }
    T_REQUIRE(nl == NCASES, "%d call lines logged for %d calls", nl, NCASES);
    for (int i = 0; i < NCASES; i++) {
        const plan_case *x = &cases[i];
        char want[96], shape[96];
        snprintf(want, sizeof want, " path=%s ", x->path);
        snprintf(shape, sizeof shape, " %s %c%c m=%lld n=%lld k=%lld ",
                 x->layout == GK_ROW_MAJOR ? "row" : "col", x->ta, x->tb, (long long)x->m,
                 (long long)x->n, (long long)x->k);
        T_CHECK(strstr(lines[i], want) != NULL, "call %d: want%sin \"%s\"", i, want, lines[i]);
        T_CHECK(strstr(lines[i], shape) != NULL, "call %d: want%sin \"%s\"", i, shape, lines[i]);
        T_CHECK(!x->option || strstr(lines[i], x->option), "call %d: want %s in \"%s\"", i,
                x->option, lines[i]);
    }
}

static void results_unchanged(void) {
    for (int i = 0; i < NCASES; i++)
        T_CHECK(results[i], "call %d (%lldx%lldx%lld, path %s): wrong result", i,
                (long long)cases[i].m, (long long)cases[i].n, (long long)cases[i].k, cases[i].path);
}

int main(void) {
    /* read once, at the library's first use: set before any call */
    setenv("GEMMKIT_VERBOSE", "1", 1);
    gk_cpu_info info;
    if (gk_set_arch("generic") != GK_SUCCESS || gk_cpu_get_info(&info) != GK_SUCCESS) {
        printf("FAIL generic_blocking: %s\n", gk_last_error());
        return 1;
    }
    gk_set_arch(NULL);
    for (int i = 0; i < NCASES; i++)
        if (cases[i].option && strcmp(cases[i].option, "a-streamed") == 0)
            cases[i].m = GK_PLAN_SHORT_K_WIDEN * info.mc + 7;
    run_logged(results);
    T_RUN(each_call_logs_its_path);
    T_RUN(results_unchanged);
    return t_finish();
}
