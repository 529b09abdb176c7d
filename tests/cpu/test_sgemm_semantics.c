/*
 * test_sgemm_semantics.c — the BLAS corner cases gemmkit.h promises for gk_sgemm, which random
 * shapes hit rarely or cannot observe: empty problems, the scale-only paths (alpha = 0, K = 0)
 * with NULL or NaN-filled operands, beta = 0 never reading C, A and B in read-only memory with
 * inaccessible pages around them, 64-bit leading dimensions (also INT64_MAX where a matrix has one
 * line), and the thread/arch settings.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "ref.h"

static const gk_layout layouts[2] = {GK_COL_MAJOR, GK_ROW_MAJOR};
static const gk_trans transes[2] = {GK_NO_TRANS, GK_TRANS};

/* A crash is the expected symptom of writing A/B or reading past them; say which case did it
 * instead of leaving only the runner's "exited with status". */
static const char *current_case = "";

static void on_fault(int sig) {
    static const char pre[] = "FAIL ";
    static const char post[] =
        ": fatal signal (an invalid memory access: writing A/B, or reading/writing outside them)\n";
    (void)sig;
    if (write(1, pre, sizeof pre - 1) < 0 || write(1, current_case, strlen(current_case)) < 0 ||
        write(1, post, sizeof post - 1) < 0)
        _exit(2);
    _exit(1);
}

#define RUN(fn) (current_case = #fn, T_RUN(fn))

static t_gemm_case make_case(gk_layout layout, gk_trans ta, gk_trans tb, int64_t m, int64_t n,
                             int64_t k, float alpha, float beta, int64_t pad) {
    t_gemm_case cs = {layout, ta, tb, m, n, k, alpha, beta, 0, 0, 0, 0};
    cs.lda = t_min_ld(layout, ta, m, k) + pad;
    cs.ldb = t_min_ld(layout, tb, k, n) + pad;
    cs.ldc = t_min_ld(layout, GK_NO_TRANS, m, n) + pad;
    return cs;
}

/* C's element (i, j) inside t_gemm_data's buffers (cur: after the call, else before it). */
static float *c_at(t_gemm_data *d, int cur, int64_t i, int64_t j) {
    float *c = cur ? d->c : d->c0_buf + (d->c - d->c_buf);
    return d->cs.layout == GK_COL_MAJOR ? &c[i + j * d->cs.ldc] : &c[i * d->cs.ldc + j];
}

/* Runs d's case with the given A and B pointers (NULL allowed) and checks it with the shared
 * verifier; when `exact`, also that each C element is bit-for-bit beta * C0 computed in float
 * (the scale-only paths involve no rounding for the betas used here). */
static void run_and_check(t_gemm_data *d, const float *a, const float *b, int exact) {
    const t_gemm_case *cs = &d->cs;
    char desc[256], why[512];
    t_case_str(cs, desc, sizeof desc);
    t_gemm_data_reset_c(d);
    gk_status st = gk_sgemm(cs->layout, cs->ta, cs->tb, cs->m, cs->n, cs->k, cs->alpha, a, cs->lda,
                            b, cs->ldb, cs->beta, d->c, cs->ldc);
    T_REQUIRE(st == GK_SUCCESS, "%s%s: returned %s: %s", desc, a ? "" : " A=B=NULL",
              gk_status_string(st), gk_last_error());
    T_REQUIRE(!t_gemm_data_verify(d, 0.0, why, sizeof why), "%s%s: %s", desc, a ? "" : " A=B=NULL",
              why);
    for (int64_t j = 0; exact && j < cs->n; j++)
        for (int64_t i = 0; i < cs->m; i++) {
            float want = cs->beta == 0.0f ? 0.0f : cs->beta * *c_at(d, 0, i, j),
                  got = *c_at(d, 1, i, j);
            T_REQUIRE(memcmp(&got, &want, sizeof got) == 0 || (want == 0.0f && got == 0.0f),
                      "%s: C(%lld,%lld)=%g, want exactly %g", desc, (long long)i, (long long)j, got,
                      want);
        }
}

/* Builds the case, optionally poisons C's block with NaN/Inf and A/B with NaN, and runs it. */
static void check_case(t_gemm_case cs, int poison_c, int poison_ab, int null_ab, int exact) {
    static uint64_t seed = 12345;
    t_rng rng = {seed++};
    t_gemm_data d;
    T_REQUIRE(t_gemm_data_init(&d, &cs, &rng) == 0, "out of memory");
    for (int64_t j = 0; poison_c && j < cs.n; j++)
        for (int64_t i = 0; i < cs.m; i++) {
            static const float bad[3] = {NAN, INFINITY, -INFINITY};
            *c_at(&d, 0, i, j) = bad[(i + j) % 3];
        }
    for (int64_t i = 0; poison_ab && i < d.a_len; i++)
        d.a[i] = d.a_copy[i] = NAN;
    for (int64_t i = 0; poison_ab && i < d.b_len; i++)
        d.b[i] = d.b_copy[i] = NAN;
    run_and_check(&d, null_ab ? NULL : d.a, null_ab ? NULL : d.b, exact);
    t_gemm_data_free(&d);
}

/* M or N = 0: success and C untouched, even with NULL operands, a NULL C and beta = 0. */
static void empty_m_or_n_leaves_c_untouched(void) {
    for (int l = 0; l < 2; l++) {
        gk_layout lay = layouts[l];
        const int64_t shapes[4][3] = {{0, 5, 3}, {5, 0, 3}, {0, 0, 0}, {0, 7, 0}};
        for (int s = 0; s < 4; s++) {
            t_gemm_case cs = make_case(lay, GK_NO_TRANS, GK_TRANS, shapes[s][0], shapes[s][1],
                                       shapes[s][2], 1.0f, 0.0f, 2);
            check_case(cs, 0, 0, 1, 0);
            check_case(cs, 0, 0, 0, 0);
            if (t_state.case_failed) return;
            gk_status st = gk_sgemm(lay, GK_NO_TRANS, GK_NO_TRANS, shapes[s][0], shapes[s][1],
                                    shapes[s][2], 1.0f, NULL, 8, NULL, 8, 0.0f, NULL, 8);
            T_CHECK(st == GK_SUCCESS, "m=%lld n=%lld with C=NULL: %s: %s", (long long)shapes[s][0],
                    (long long)shapes[s][1], gk_status_string(st), gk_last_error());
        }
    }
}

/* K = 0 and alpha = 0 reduce to C = beta * C: exact, A and B unread (NULL, or NaN-filled). */
static void scale_only_paths(void) {
    static const float betas[] = {0.0f, 1.0f, -1.0f, 0.5f, 2.0f};
    static const int64_t shapes[][2] = {{1, 1}, {7, 5}, {33, 17}, {300, 260}};
    for (int l = 0; l < 2; l++)
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
            for (size_t bi = 0; bi < sizeof betas / sizeof *betas; bi++) {
                int64_t m = shapes[s][0], n = shapes[s][1];
                /* K = 0 with NULL operands, then alpha = 0 with NULL and with NaN operands. */
                check_case(
                    make_case(layouts[l], GK_NO_TRANS, GK_NO_TRANS, m, n, 0, 1.0f, betas[bi], 3), 0,
                    0, 1, 1);
                check_case(
                    make_case(layouts[l], GK_TRANS, GK_NO_TRANS, m, n, 19, 0.0f, betas[bi], 3), 0,
                    0, 1, 1);
                check_case(
                    make_case(layouts[l], GK_NO_TRANS, GK_TRANS, m, n, 19, 0.0f, betas[bi], 0), 0,
                    1, 0, 1);
                if (t_state.case_failed) return;
            }
}

/* beta = 0 must not read C: NaN and +-Inf there never reach the result, on every path the
 * engine may pick (tiny, edge-heavy, packed and threaded sizes), including alpha = 0. */
static void beta_zero_ignores_nan_inf_in_c(void) {
    static const int64_t shapes[][3] = {{1, 1, 1},    {5, 3, 2},      {17, 29, 13},
                                        {64, 64, 64}, {131, 97, 257}, {300, 320, 300}};
    for (int l = 0; l < 2; l++)
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
            const int64_t *sh = shapes[s];
            check_case(make_case(layouts[l], transes[s % 2], transes[(s / 2) % 2], sh[0], sh[1],
                                 sh[2], 1.0f, 0.0f, 1),
                       1, 0, 0, 0);
            check_case(
                make_case(layouts[l], GK_NO_TRANS, GK_NO_TRANS, sh[0], sh[1], sh[2], 0.0f, 0.0f, 1),
                1, 0, 0, 1);
            check_case(
                make_case(layouts[l], GK_NO_TRANS, GK_NO_TRANS, sh[0], sh[1], 0, 1.0f, 0.0f, 1), 1,
                0, 1, 1);
            if (t_state.case_failed) return;
        }
}

/* A copy of `src` (len floats) in read-only memory, flush against an inaccessible page on one
 * side (at_end: after the data, else before it), so writes and over-reads fault. */
typedef struct {
    void *map;
    size_t map_len;
    float *data;
} guarded;

static int guarded_make(guarded *g, const float *src, int64_t len, int at_end) {
    const size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes = (size_t)len * sizeof(float);
    const size_t data_pages = (bytes + page - 1) / page;
    g->map_len = (data_pages + 2) * page;
    g->map = mmap(NULL, g->map_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g->map == MAP_FAILED) return -1;
    char *first = (char *)g->map + page;
    if (mprotect(first, data_pages * page, PROT_READ | PROT_WRITE)) return -1;
    g->data = (float *)(at_end ? first + data_pages * page - bytes : first);
    memcpy(g->data, src, bytes);
    return mprotect(first, data_pages * page, PROT_READ);
}

static void a_b_read_only_and_not_overread(void) {
    /* Under QEMU's user mode (tests/cpu/test_avx2_emulated.sh sets GK_TEST_EMULATOR) a masked
     * vector load (VMASKMOVPS, the AVX2 edge loads) reads its masked-off lanes too, and faults
     * where they lie on the inaccessible page; hardware suppresses that fault. */
    const char *emu = getenv("GK_TEST_EMULATOR");
    gk_cpu_info info;
    if (emu && *emu && gk_cpu_get_info(&info) == GK_SUCCESS && strcmp(info.arch, "generic") != 0)
        T_SKIP("under %s, whose masked vector loads fault on masked-off lanes next to the "
               "inaccessible page (hardware suppresses the fault); the native run checks %s",
               emu, info.arch);
    static const int64_t shapes[][3] = {{1, 1, 1}, {7, 9, 5}, {33, 17, 65}, {160, 200, 190}};
    for (int l = 0; l < 2; l++)
        for (int t = 0; t < 4; t++)
            for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
                for (int at_end = 0; at_end < 2; at_end++) {
                    const int64_t *sh = shapes[s];
                    t_gemm_case cs = make_case(layouts[l], transes[t % 2], transes[t / 2], sh[0],
                                               sh[1], sh[2], 1.0f, 0.5f, (int64_t)s);
                    t_rng rng = {(uint64_t)(1000 + t + 10 * s)};
                    t_gemm_data d;
                    guarded ga = {0}, gb = {0};
                    T_REQUIRE(t_gemm_data_init(&d, &cs, &rng) == 0, "out of memory");
                    if (guarded_make(&ga, d.a, d.a_len, at_end) ||
                        guarded_make(&gb, d.b, d.b_len, at_end))
                        T_CHECK(0, "mmap/mprotect failed");
                    else
                        run_and_check(&d, ga.data, gb.data, 0);
                    if (ga.map && ga.map != MAP_FAILED) munmap(ga.map, ga.map_len);
                    if (gb.map && gb.map != MAP_FAILED) munmap(gb.map, gb.map_len);
                    t_gemm_data_free(&d);
                    if (t_state.case_failed) return;
                }
}

/* Offsets past 2^31 elements (1 GiB strides in reserved, barely touched memory): every matrix
 * has LINES strided lines (columns in column-major), and from line 8 on an offset formed with
 * 32-bit arithmetic wraps. LINES exceeds every micro-tile's NR, so the packed path also steps
 * between column panels. The contiguous extent of C is 100 (volume 28900, under the engine's
 * 32^3 small-matrix limit) or WIDE_MAX (packed path). */
enum { LINES = 17, PAD = 32, WIDE_MAX = 4000 };

static void offsets_beyond_2_31(void) {
    const int64_t ld = ((int64_t)1 << 28) + 64, widths[2] = {100, WIDE_MAX};
    const size_t bytes = (size_t)((LINES - 1) * ld + WIDE_MAX + PAD) * sizeof(float);
    float *buf[3];
    for (int i = 0; i < 3; i++) {
        buf[i] = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (buf[i] == MAP_FAILED) {
            for (int j = 0; j < i; j++)
                munmap(buf[j], bytes);
            T_SKIP("cannot reserve 3 x %.0f GiB of address space", bytes / 1073741824.0);
        }
    }
    float *a = buf[0], *b = buf[1], *c = buf[2];
    static double r[LINES * WIDE_MAX], s[LINES * WIDE_MAX];
    t_rng rng = {77};
    for (int v = 0; v < 4 && !t_state.case_failed; v++) {
        /* Non-transposed operands: in column-major A, B, C have k, n, n columns; in row-major
         * m, k, m rows. The wide dimension is the contiguous one of C. */
        const gk_layout lay = layouts[v % 2];
        const int64_t wide = widths[v / 2];
        const int64_t m = lay == GK_COL_MAJOR ? wide : LINES,
                      n = lay == GK_COL_MAJOR ? LINES : wide;
        const int64_t k = LINES, c_inner = wide;
        const int64_t a_inner = lay == GK_COL_MAJOR ? m : k, b_inner = lay == GK_COL_MAJOR ? k : n;
        for (int64_t line = 0; line < LINES; line++) {
            for (int64_t i = 0; i < a_inner; i++)
                a[line * ld + i] = t_rng_float(&rng);
            for (int64_t i = 0; i < b_inner; i++)
                b[line * ld + i] = t_rng_float(&rng);
            for (int64_t i = 0; i < c_inner; i++)
                c[line * ld + i] = t_rng_float(&rng);
            for (int64_t i = c_inner; i < c_inner + PAD; i++)
                c[line * ld + i] = -7.0f;
        }
        t_ref_sgemm(lay, GK_NO_TRANS, GK_NO_TRANS, m, n, k, 1.0f, a, ld, b, ld, -1.0f, c, ld, r, s);
        gk_status st =
            gk_sgemm(lay, GK_NO_TRANS, GK_NO_TRANS, m, n, k, 1.0f, a, ld, b, ld, -1.0f, c, ld);
        T_CHECK(st == GK_SUCCESS, "%s: %s: %s", lay == GK_COL_MAJOR ? "col-major" : "row-major",
                gk_status_string(st), gk_last_error());
        char why[512];
        T_CHECK(st != GK_SUCCESS || !t_compare(lay, m, n, c, ld, r, s, k, 0.0, why, sizeof why),
                "%s m=%lld n=%lld k=%lld ld=%lld: %s",
                lay == GK_COL_MAJOR ? "col-major" : "row-major", (long long)m, (long long)n,
                (long long)k, (long long)ld, why);
        for (int64_t line = 0; line < LINES; line++)
            for (int64_t i = c_inner; i < c_inner + PAD; i++)
                T_CHECK(c[line * ld + i] == -7.0f, "C written past line %lld", (long long)line);
    }
    for (int i = 0; i < 3; i++)
        munmap(buf[i], bytes);
}

/* Lines (columns in column-major, rows in row-major) of a stored op-operand. */
static int64_t stored_lines(gk_layout layout, gk_trans t, int64_t op_rows, int64_t op_cols) {
    const int tr = t != GK_NO_TRANS;
    return layout == GK_COL_MAJOR ? (tr ? op_rows : op_cols) : (tr ? op_cols : op_rows);
}

/* A matrix of one line never steps by its leading dimension, so any ld from its minimum up to
 * INT64_MAX is valid, and no address may be formed from it: pointer arithmetic past the address
 * space is undefined behaviour even unused, which SANITIZE=1 reports (tests/fuzz found a second
 * column's pointer formed for one column). Every path: tiles, vector forms, swapped, packed. */
static void single_line_any_ld(void) {
    static const int64_t shapes[][3] = {{1, 16, 16},   {16, 1, 16},   {16, 16, 1},   {1, 1, 40},
                                        {1, 300, 300}, {300, 1, 300}, {200, 200, 1}, {2, 300, 300}};
    static const char *const families[] = {"generic", "avx2", "avx512"};
    for (int f = 0; f < 3; f++) {
        if (gk_set_arch(families[f]) != GK_SUCCESS) continue;
        for (int v = 0; v < 8 * (int)(sizeof shapes / sizeof *shapes); v++) {
            const gk_layout lay = layouts[v % 2];
            const gk_trans ta = transes[v / 2 % 2], tb = transes[v / 4 % 2];
            const int64_t *sh = shapes[v / 8];
            t_gemm_case cs = make_case(lay, ta, tb, sh[0], sh[1], sh[2], 1.0f, 0.5f, 0);
            if (stored_lines(lay, ta, sh[0], sh[2]) == 1) cs.lda = INT64_MAX;
            if (stored_lines(lay, tb, sh[2], sh[1]) == 1) cs.ldb = INT64_MAX;
            if (stored_lines(lay, GK_NO_TRANS, sh[0], sh[1]) == 1) cs.ldc = INT64_MAX;
            check_case(cs, 0, 0, 0, 0);
            if (t_state.case_failed) break;
        }
        if (t_state.case_failed) break;
    }
    gk_set_arch(NULL);
}

/* gk_set_num_threads round-trips through gk_get_num_threads and gk_cpu_get_info. */
static void num_threads_setting(void) {
    gk_cpu_info info;
    for (int t = 1; t <= 3; t++) {
        T_REQUIRE(gk_set_num_threads(t) == GK_SUCCESS, "set %d: %s", t, gk_last_error());
        T_CHECK(gk_get_num_threads() == t, "set %d, get returned %d", t, gk_get_num_threads());
        T_REQUIRE(gk_cpu_get_info(&info) == GK_SUCCESS, "gk_cpu_get_info: %s", gk_last_error());
        T_CHECK(info.threads == t, "set %d, gk_cpu_get_info says %d", t, info.threads);
    }
    T_REQUIRE(gk_set_num_threads(0) == GK_SUCCESS, "set 0: %s", gk_last_error());
    T_CHECK(gk_get_num_threads() >= 1, "default thread count %d", gk_get_num_threads());
}

/* gk_set_arch picks the family gk_cpu_get_info reports, with sane blocking; "auto" goes back. */
static void arch_selection(void) {
    static const char *const names[] = {"generic", "avx2", "avx512"};
    gk_cpu_info info;
    for (int i = 0; i < 3; i++) {
        gk_status st = gk_set_arch(names[i]);
        if (st == GK_ERR_UNSUPPORTED) continue;
        T_REQUIRE(st == GK_SUCCESS, "gk_set_arch(%s): %s: %s", names[i], gk_status_string(st),
                  gk_last_error());
        T_REQUIRE(gk_cpu_get_info(&info) == GK_SUCCESS, "gk_cpu_get_info: %s", gk_last_error());
        T_CHECK(strcmp(info.arch, names[i]) == 0, "set %s, info.arch=%s", names[i], info.arch);
        T_CHECK(strcmp(info.arch_reason, "gk_set_arch") == 0, "arch_reason=%s", info.arch_reason);
        T_CHECK(info.mr > 0 && info.nr > 0 && info.mc > 0 && info.kc > 0 && info.nc > 0,
                "%s: mr=%d nr=%d mc=%lld kc=%lld nc=%lld", names[i], info.mr, info.nr,
                (long long)info.mc, (long long)info.kc, (long long)info.nc);
        if (i == 1) T_CHECK(info.has_avx2 && info.has_fma, "avx2 accepted without AVX2+FMA");
        if (i == 2) T_CHECK(info.has_avx512f, "avx512 accepted without AVX-512F");
    }
    T_REQUIRE(gk_set_arch("generic") == GK_SUCCESS, "generic refused: %s", gk_last_error());
    T_REQUIRE(gk_set_arch("auto") == GK_SUCCESS, "auto refused: %s", gk_last_error());
    T_REQUIRE(gk_cpu_get_info(&info) == GK_SUCCESS, "gk_cpu_get_info: %s", gk_last_error());
    T_CHECK(strcmp(info.arch_reason, "gk_set_arch") != 0, "after auto, arch_reason=%s",
            info.arch_reason);
    T_CHECK(gk_set_arch(NULL) == GK_SUCCESS, "NULL refused: %s", gk_last_error());
}

int main(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fault;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    RUN(empty_m_or_n_leaves_c_untouched);
    RUN(scale_only_paths);
    RUN(beta_zero_ignores_nan_inf_in_c);
    RUN(a_b_read_only_and_not_overread);
    RUN(offsets_beyond_2_31);
    RUN(single_line_any_ld);
    RUN(num_threads_setting);
    RUN(arch_selection);
    return t_finish();
}
