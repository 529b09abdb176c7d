/*
 * test_small.c — the unpacked small-matrix path of every registered kernel family, called
 * directly (not through the size rule), against the float64 reference: every row count around
 * one and two vectors of each family (the masked one-vector tiles and the overlapping two-vector
 * ones), column counts around each family's register-tile width, short and odd k, both layouts,
 * all four transpositions, padded leading dimensions whose gaps hold NaN, alpha and beta mixed
 * with NaN-filled C for beta = 0, and GEMV-like shapes (the vector form). C sits between
 * sentinels that must survive, A and B span exactly their allocations (t_gemm_data).
 * Also the planner's promise to the tiles: a transposed A it sends there fits their stack copy.
 */
#include <stdio.h>

#include "check.h"
#include "core/internal.h"
#include "cpu/frame/frame.h"
#include "cpu/kernels/ukernel.h"
#include "ref.h"

static const gk_ukr_desc *cur;

/* One case through the current family's small path (called directly in the planner's form, not
 * through its size rule; on `threads` threads through gk_small_run when above 1, sliced as the
 * planner would, with at most `threads`), against float64 with sentinels
 * around C. The leading dimensions get a random pad of 0-3 (C's none when pad_c is 0), alpha and
 * beta are drawn (NaN-filled C when beta = 0). Returns 0 on a failure (reported); *form (if
 * given) says which form ran: FORM_TILE, FORM_VECTOR or FORM_SWAPPED. */
enum { FORM_TILE, FORM_VECTOR, FORM_SWAPPED };
static int run_case(t_gemm_case *cs, t_rng *rng, int *form, int threads, int pad_c) {
    static const float alphas[] = {1.0f, -1.0f, 0.5f}, betas[] = {0.0f, 1.0f, -1.0f, 0.5f};
    const int64_t m = cs->m, n = cs->n, k = cs->k;
    const int64_t pad = (int64_t)t_rng_range(rng, 0, 3);
    cs->alpha = alphas[t_rng_range(rng, 0, 2)];
    cs->beta = betas[t_rng_range(rng, 0, 3)];
    cs->nan_c = cs->beta == 0.0f;
    cs->lda = t_min_ld(cs->layout, cs->ta, m, k) + pad;
    cs->ldb = t_min_ld(cs->layout, cs->tb, k, n) + pad;
    cs->ldc = t_min_ld(cs->layout, GK_NO_TRANS, m, n) + (pad_c ? pad : 0);
    t_gemm_data d;
    if (t_gemm_data_init(&d, cs, rng) != 0) {
        T_CHECK(0, "out of memory");
        return 0;
    }
    gk_gemm_args g;
    gk_status st = gk_check_gemm("test", cs->layout, cs->ta, cs->tb, m, n, k, cs->alpha, d.a,
                                 cs->lda, d.b, cs->ldb, cs->beta, d.c, cs->ldc, &g);
    char desc[256], why[512];
    t_case_str(cs, desc, sizeof desc);
    int bad = st != GK_SUCCESS;
    /* the planner's form; a shape it would send to the packed path runs on the tiles */
    gk_small_form sf = GK_SMALL_TILES;
    if (!bad && gk_plan_form(&g, &sf) != GK_PATH_SMALL) sf = GK_SMALL_TILES;
    if (!bad) {
        gk_small_run(&g, cur->small, sf, threads > 1 ? gk_plan_small_threads(&g, threads) : 1);
        bad = t_gemm_data_verify(&d, 0.0, why, sizeof why);
    }
    static const char *const form_names[] = {"tile", "vector", "swapped"};
    const int f = sf == GK_SMALL_SWAPPED_DOTS || sf == GK_SMALL_SWAPPED_AXPYS ? FORM_SWAPPED
                  : sf == GK_SMALL_TILES                                      ? FORM_TILE
                                                                              : FORM_VECTOR;
    if (form) *form = f;
    T_CHECK(!bad, "%s %s (%s form): %s", cur->name, desc, form_names[f],
            st != GK_SUCCESS ? gk_last_error() : why);
    t_gemm_data_free(&d);
    return !bad;
}

static void shapes(void) {
    if (!cur->usable()) T_SKIP("%s: this CPU/OS cannot run %s", cur->name, cur->arch);
    static const int64_t ms[] = {1,  2,  3,  4,  5,  7,  8,  9,  12, 15,
                                 16, 17, 20, 23, 24, 31, 32, 33, 40};
    static const int64_t ns[] = {1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 25};
    static const int64_t ks[] = {1, 2, 3, 8, 17};
    t_rng rng = {777};
    int64_t runs = 0;
    for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++)
        for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
            for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
                for (int v = 0; v < 8; v++) {
                    const int64_t m = ms[mi], n = ns[ni], k = ks[ki];
                    t_gemm_case cs = {.layout = v & 4 ? GK_ROW_MAJOR : GK_COL_MAJOR,
                                      .ta = v & 1 ? GK_TRANS : GK_NO_TRANS,
                                      .tb = v & 2 ? GK_TRANS : GK_NO_TRANS,
                                      .m = m,
                                      .n = n,
                                      .k = k};
                    if (!run_case(&cs, &rng, NULL, 1, 1)) return;
                    runs++;
                }
    T_CHECK(runs > 6000, "only %lld cases ran", (long long)runs);
}

/* GEMV-like shapes (n <= 2) on both sides of the rule that sends small plain A to the tiles:
 * up to GK_SMALL_ROW_ALIGN rows at any k (up to 5000 here), up to 128 KiB of A with k >= 32, and
 * past either bound, in both layouts and all transpositions; both forms must run. */
static void gemv_like_shapes(void) {
    if (!cur->usable()) T_SKIP("%s: this CPU/OS cannot run %s", cur->name, cur->arch);
    static const int64_t ms[] = {1, 2, 7, 16, 31, 32, 33, 100, 300};
    static const int64_t ks[] = {5, 31, 32, 100, 327, 1000, 5000};
    t_rng rng = {4242};
    int forms[2] = {0, 0};
    for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++)
        for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
            for (int64_t n = 1; n <= 2; n++)
                for (int v = 0; v < 8; v++) {
                    const int row = v & 4;
                    /* n is C's column count in the caller's layout; a row-major call is the
                     * column-major one with m and n swapped, so give it m = n here */
                    t_gemm_case cs = {.layout = row ? GK_ROW_MAJOR : GK_COL_MAJOR,
                                      .ta = v & 1 ? GK_TRANS : GK_NO_TRANS,
                                      .tb = v & 2 ? GK_TRANS : GK_NO_TRANS,
                                      .m = row ? n : ms[mi],
                                      .n = row ? ms[mi] : n,
                                      .k = ks[ki]};
                    int form = FORM_TILE;
                    if (!run_case(&cs, &rng, &form, 1, 1)) return;
                    forms[form != FORM_TILE]++;
                }
    T_CHECK(forms[0] > 50 && forms[1] > 50, "tile form %d cases, vector form %d", forms[0],
            forms[1]);
}

/* The swapped vector form: C with m <= 2 rows (n <= 2 columns for a row-major caller) and plain A
 * after normalisation, large enough to pass the tiles' size rule, in both layouts and all
 * transpositions, C's leading dimension minimal or padded (the axpy side needs m == 1 with
 * ldc == 1, the rest stays off the form), on 1 thread and on 3 through gk_small_run, which
 * slices its columns. Every such shape must take the form at least once. */
static void swapped_form_shapes(void) {
    if (!cur->usable()) T_SKIP("%s: this CPU/OS cannot run %s", cur->name, cur->arch);
    static const int64_t ns[] = {33, 100, 700, 3001};
    static const int64_t ks[] = {40, 257, 1000};
    t_rng rng = {9191};
    int swapped = 0;
    for (int64_t m = 1; m <= 2; m++)
        for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
            for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
                for (int v = 0; v < 32; v++) {
                    const int row = v & 4, threads = v & 8 ? 3 : 1, pad_c = v & 16;
                    t_gemm_case cs = {.layout = row ? GK_ROW_MAJOR : GK_COL_MAJOR,
                                      .ta = v & 1 ? GK_TRANS : GK_NO_TRANS,
                                      .tb = v & 2 ? GK_TRANS : GK_NO_TRANS,
                                      .m = row ? ns[ni] : m,
                                      .n = row ? m : ns[ni],
                                      .k = ks[ki]};
                    int form = FORM_TILE;
                    if (!run_case(&cs, &rng, &form, threads, pad_c)) return;
                    swapped += form == FORM_SWAPPED;
                }
    T_CHECK(swapped >= 100, "only %d cases took the swapped form", swapped);
}

/* Every call the planner sends to the tiles with transposed A fits the stack copy of op(A); and
 * it does send tiny calls of every transposition there. */
static void rule_fits_tile_buffer(void) {
    for (int64_t m = 1; m <= 200; m += 7)
        for (int64_t k = 1; k <= 3000; k = k * 3 + 1)
            for (int64_t n = 3; n <= 100; n += 16)
                for (int tr = 0; tr < 4; tr++) {
                    const gk_gemm_args g = {
                        .m = m, .n = n, .k = k, .transa = tr & 1, .transb = tr >> 1};
                    gk_small_form form;
                    if (gk_plan_form(&g, &form) != GK_PATH_SMALL || form != GK_SMALL_TILES ||
                        !g.transa)
                        continue;
                    const int64_t rows =
                        (m + GK_SMALL_ROW_ALIGN - 1) / GK_SMALL_ROW_ALIGN * GK_SMALL_ROW_ALIGN;
                    T_REQUIRE(rows * k <= GK_SMALL_ABUF, "m=%lld k=%lld: %lld floats of copy",
                              (long long)m, (long long)k, (long long)(rows * k));
                }
    for (int tr = 0; tr < 4; tr++) {
        const gk_gemm_args g = {.m = 8, .n = 8, .k = 8, .transa = tr & 1, .transb = tr >> 1};
        gk_small_form form = GK_SMALL_AXPYS;
        T_CHECK(gk_plan_form(&g, &form) == GK_PATH_SMALL && form == GK_SMALL_TILES,
                "8x8x8 trans %d not tiled", tr);
    }
}

int main(void) {
    T_RUN(rule_fits_tile_buffer);
    for (int i = 0; i < gk_ukr_count; i++) {
        char name[96];
        cur = &gk_ukr_table[i];
        snprintf(name, sizeof name, "small_%s_shapes", cur->name);
        t_run(name, shapes);
        snprintf(name, sizeof name, "small_%s_gemv_like", cur->name);
        t_run(name, gemv_like_shapes);
        snprintf(name, sizeof name, "small_%s_swapped", cur->name);
        t_run(name, swapped_form_shapes);
    }
    return t_finish();
}
