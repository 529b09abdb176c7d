/*
 * test_ukernels.c — every CPU micro-kernel in the registry against a float64 reference and the
 * generic oracle (gk_ukr_ref), on every edge shape m_valid x n_valid <= MR x NR, kc in
 * {1, 2, KC-1, KC, KC+1} (KC = the kernel's cache block on this machine), beta in {0, 1, -1, 0.5},
 * column- and row-strided C. C sits inside a sentinel-filled frame: nothing outside the valid
 * part may change, and with beta = 0 the valid part starts as NaN, which must not leak.
 * Each kernel also runs inside the packed loop nest with tiny blocks on 1-3 threads.
 * The in-place variants (B columns, A columns, both) get the same edge checks.
 * Kernels this CPU cannot run report "skip". Panels are allocated to their exact size so the
 * sanitizer build catches reads past them.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu/config/cpu.h"
#include "cpu/frame/frame.h"
#include "cpu/kernels/ukernel.h"
#include "ref.h"

static const gk_ukr_desc *cur; /* kernel under test for the per-kernel cases */

static const float SENTINEL = -7777.0f;

/* One kernel call on shape (mv, nv, kc); returns 0 or records a failure. */
static int check_one(const gk_ukr_desc *u, int64_t kc, int mv, int nv, float alpha, float beta,
                     int row_strided, t_rng *rng) {
    const int mr = u->mr, nr = u->nr;
    float *pa = malloc(sizeof(float) * (size_t)(mr * kc));
    float *pb = malloc(sizeof(float) * (size_t)(nr * kc));
    /* frame of (mr + 4) x (nr + 4) with the tile at (2, 2); stored column- or row-major */
    const int fr = mr + 4, fc = nr + 4;
    float *frame = malloc(sizeof(float) * (size_t)(fr * fc));
    float *oracle = malloc(sizeof(float) * (size_t)(fr * fc));
    float *c0 = malloc(sizeof(float) * (size_t)(mr * nr));
    int failed = 0;
    if (!pa || !pb || !frame || !oracle || !c0) {
        T_CHECK(0, "out of memory");
        failed = 1;
        goto done;
    }
    t_fill_random(pa, mr * kc, rng);
    t_fill_random(pb, nr * kc, rng);
    t_fill_random(c0, mr * nr, rng);
    const int64_t rs = row_strided ? fc : 1, cs = row_strided ? 1 : fr;
    for (int i = 0; i < fr * fc; i++)
        frame[i] = SENTINEL;
    float *c = frame + 2 * rs + 2 * cs;
    for (int j = 0; j < nv; j++)
        for (int i = 0; i < mv; i++)
            c[i * rs + j * cs] = beta == 0.0f ? NAN : c0[i + j * mr];
    memcpy(oracle, frame, sizeof(float) * (size_t)(fr * fc));

    u->fn(kc, pa, pb, c, rs, cs, alpha, beta, mv, nv);
    gk_ukr_ref(mr, nr, kc, pa, pb, oracle + 2 * rs + 2 * cs, rs, cs, alpha, beta, mv, nv);

    for (int j = 0; j < fc && !failed; j++)
        for (int i = 0; i < fr && !failed; i++) {
            const int64_t off = (int64_t)i * rs + (int64_t)j * cs;
            const int ti = i - 2, tj = j - 2;
            const float got = frame[off];
            if (ti < 0 || tj < 0 || ti >= mv || tj >= nv) {
                if (memcmp(&got, &SENTINEL, sizeof got) != 0) {
                    T_CHECK(0,
                            "%s kc=%lld %dx%d beta=%g %s: wrote outside the valid part at "
                            "tile (%d,%d): %g",
                            u->name, (long long)kc, mv, nv, beta, row_strided ? "rs" : "cs", ti, tj,
                            got);
                    failed = 1;
                }
                continue;
            }
            double exact = 0.0, mag = 0.0;
            for (int64_t p = 0; p < kc; p++) {
                double prod = (double)pa[p * mr + ti] * pb[p * nr + tj];
                exact += prod;
                mag += fabs(prod);
            }
            const double cv = beta == 0.0f ? 0.0 : c0[ti + tj * mr];
            const double want = (double)alpha * exact + (double)beta * cv;
            const double scale = fabs((double)alpha) * mag + fabs((double)beta * cv);
            const double bound = gkh_bound(kc, 0.0, scale);
            const double err = fabs(got - want), err_oracle = fabs(got - (double)oracle[off]);
            if (!(err <= bound) || !(err_oracle <= 2.0 * bound)) {
                T_CHECK(0,
                        "%s kc=%lld %dx%d beta=%g %s: C(%d,%d)=%.9g want %.9g oracle %.9g "
                        "(bound %.3g)",
                        u->name, (long long)kc, mv, nv, beta, row_strided ? "rs" : "cs", ti, tj,
                        got, want, oracle[off], bound);
                failed = 1;
            }
        }
done:
    free(pa), free(pb), free(frame), free(oracle), free(c0);
    return failed;
}

static void edges(void) {
    if (!cur->usable()) T_SKIP("%s: this CPU/OS cannot run %s", cur->name, cur->arch);
    const int64_t kcb = gk_cpu_blocking(gk_cpu_features_get(), cur->mr, cur->nr).kc;
    const int64_t kcs[] = {1, 2, kcb - 1, kcb, kcb + 1};
    const float betas[] = {0.0f, 1.0f, -1.0f, 0.5f};
    t_rng rng = {0x9e3779b97f4a7c15ull};
    for (size_t ki = 0; ki < sizeof kcs / sizeof kcs[0]; ki++)
        for (int mv = 1; mv <= cur->mr; mv++)
            for (int nv = 1; nv <= cur->nr; nv++)
                for (size_t bi = 0; bi < sizeof betas / sizeof betas[0]; bi++) {
                    const float alpha = (mv + nv) % 2 ? 1.0f : -1.5f;
                    if (check_one(cur, kcs[ki], mv, nv, alpha, betas[bi], 0, &rng)) return;
                }
}

/* Row-strided C (rs_c != 1) takes the buffered path even for full tiles. */
static void strided(void) {
    if (!cur->usable()) T_SKIP("%s: this CPU/OS cannot run %s", cur->name, cur->arch);
    const float betas[] = {0.0f, 1.0f, -1.0f, 0.5f};
    t_rng rng = {12345};
    const int shapes[][2] = {{cur->mr, cur->nr}, {1, 1}, {cur->mr - 1, cur->nr}, {cur->mr, 1}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (size_t bi = 0; bi < 4; bi++)
            if (check_one(cur, 37, shapes[s][0], shapes[s][1], 0.75f, betas[bi], 1, &rng)) return;
}

/* The in-place variants (when the kernel has them): `a_in`/`b_in` say which operand the kernel
 * reads in place. Each is checked on every valid size of the dimension it leaves free (m_valid
 * for bcols, n_valid for acols; abcols is a full tile), the kc set and betas of `edges`. An
 * operand in place is MR rows / NR columns of a column-major matrix with a padded leading
 * dimension, allocated to its exact extent (the sanitizer build catches reads past it); C is a
 * column-major tile in a sentinel frame. Compared with the oracle on the same data packed. */
static void inplace_edges(int a_in, int b_in) {
    const char *form = a_in ? (b_in ? "abcols" : "acols") : "bcols";
    if (a_in ? (b_in ? !cur->abcols : !cur->acols) : !cur->bcols)
        T_SKIP("%s has no %s variant", cur->name, form);
    if (!cur->usable()) T_SKIP("%s: this CPU/OS cannot run %s", cur->name, cur->arch);
    const int mr = cur->mr, nr = cur->nr;
    const int64_t kcb = gk_cpu_blocking(gk_cpu_features_get(), mr, nr).kc;
    const int64_t kcs[] = {1, 2, 5, kcb - 1, kcb, kcb + 1};
    const float betas[] = {0.0f, 1.0f, -1.0f, 0.5f};
    t_rng rng = {777};
    for (size_t ki = 0; ki < sizeof kcs / sizeof kcs[0]; ki++) {
        const int64_t kc = kcs[ki], lda = mr + 3, ldb = kc + 3;
        const int64_t a_len = a_in ? lda * (kc - 1) + mr : mr * kc;
        const int64_t b_len = b_in ? ldb * (nr - 1) + kc : nr * kc;
        const int fr = mr + 4, fc = nr + 4;
        float *a = malloc(sizeof(float) * (size_t)a_len);
        float *b = malloc(sizeof(float) * (size_t)b_len);
        float *pa = malloc(sizeof(float) * (size_t)(mr * kc));
        float *pb = malloc(sizeof(float) * (size_t)(nr * kc));
        float *frame = malloc(sizeof(float) * (size_t)(fr * fc));
        float *oracle = malloc(sizeof(float) * (size_t)(fr * fc));
        T_REQUIRE(a && b && pa && pb && frame && oracle, "out of memory");
        t_fill_random(a, a_len, &rng);
        t_fill_random(b, b_len, &rng);
        for (int64_t p = 0; p < kc; p++) {
            for (int i = 0; i < mr; i++)
                pa[p * mr + i] = a_in ? a[i + p * lda] : a[p * mr + i];
            for (int j = 0; j < nr; j++)
                pb[p * nr + j] = b_in ? b[p + j * ldb] : b[p * nr + j];
        }
        int failed = 0;
        const int vmax = a_in ? (b_in ? 1 : nr) : mr; /* the free dimension's sizes */
        for (int v = 1; v <= vmax && !failed; v++)
            for (size_t bi = 0; bi < sizeof betas / sizeof betas[0] && !failed; bi++) {
                const int mv = a_in ? mr : v, nv = a_in && !b_in ? v : nr;
                const float alpha = v % 2 ? 1.0f : -1.5f, beta = betas[bi];
                for (int i = 0; i < fr * fc; i++)
                    frame[i] = SENTINEL;
                for (int j = 0; j < nv; j++)
                    for (int i = 0; i < mv; i++)
                        frame[(2 + i) + (2 + j) * fr] = beta == 0.0f ? NAN : t_rng_float(&rng);
                memcpy(oracle, frame, sizeof(float) * (size_t)(fr * fc));
                float *c = frame + 2 + 2 * fr;
                if (a_in && b_in)
                    cur->abcols(kc, a, lda, b, ldb, c, fr, alpha, beta);
                else if (a_in)
                    cur->acols(kc, a, lda, b, c, fr, alpha, beta, nv);
                else
                    cur->bcols(kc, a, b, ldb, c, fr, alpha, beta, mv);
                gk_ukr_ref(mr, nr, kc, pa, pb, oracle + 2 + 2 * fr, 1, fr, alpha, beta, mv, nv);
                /* inputs in [-1, 1), |alpha| <= 1.5: |C| terms sum to at most 1.5 kc + 1; both
                 * results round, hence twice the K-scaled bound */
                const double bound = 2.0 * (double)(kc + 2) * FLT_EPSILON * (1.5 * kc + 1.0);
                for (int j = 0; j < fc && !failed; j++)
                    for (int i = 0; i < fr && !failed; i++) {
                        const float got = frame[i + j * fr], want = oracle[i + j * fr];
                        const int inside = i >= 2 && i < 2 + mv && j >= 2 && j < 2 + nv;
                        const int ok = inside ? fabs((double)got - (double)want) <= bound
                                              : memcmp(&got, &SENTINEL, sizeof got) == 0;
                        if (!ok) {
                            T_CHECK(0,
                                    "%s %s kc=%lld mv=%d nv=%d beta=%g: frame(%d,%d) = %.9g, "
                                    "want %.9g",
                                    cur->name, form, (long long)kc, mv, nv, beta, i, j, got,
                                    inside ? want : SENTINEL);
                            failed = 1;
                        }
                    }
            }
        free(a), free(b), free(pa), free(pb), free(frame), free(oracle);
        if (failed) return;
    }
}
static void bcols_edges(void) {
    inplace_edges(0, 1);
}
static void acols_edges(void) {
    inplace_edges(1, 0);
}
static void abcols_edges(void) {
    inplace_edges(1, 1);
}

/* The kernel inside the packed loop nest with tiny blocks (mc = 2 MR, kc = 16, nc = 4 NR), so
 * every loop runs many blocks with partial edges, on 1-3 threads and all transpositions: row
 * slices of packed A, shared packed B and the barriers between them must not race. */
static void frame_small_blocks(void) {
    if (!cur->usable()) T_SKIP("%s: this CPU/OS cannot run %s", cur->name, cur->arch);
    /* 29 x 50 fits one row block, so plain B takes the B-columns variant where there is one
     * (and plain A, whose columns span far less than L2 here, the A-columns variants);
     * 200 x 20 has many row blocks and fewer columns than one, so plain A streams by panel */
    const int64_t shapes[][3] = {{300, 200, 100}, {97, 700, 50}, {700, 37, 150},
                                 {33, 13, 5},     {29, 50, 40},  {200, 20, 70}};
    t_rng rng = {4242};
    const gk_blocking blk = {2 * cur->mr, 16, 4 * cur->nr};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int tr = 0; tr < 4; tr++)
            for (int threads = 1; threads <= 3; threads++) {
                const int64_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
                const int ta = tr & 1, tb = tr >> 1;
                const int64_t lda = ta ? k : m, ldb = tb ? n : k;
                float *a = malloc(sizeof(float) * (size_t)(m * k));
                float *b = malloc(sizeof(float) * (size_t)(k * n));
                float *c = malloc(sizeof(float) * (size_t)(m * n));
                float *c0 = malloc(sizeof(float) * (size_t)(m * n));
                double *r = malloc(sizeof(double) * (size_t)(m * n));
                double *sc = malloc(sizeof(double) * (size_t)(m * n));
                T_REQUIRE(a && b && c && c0 && r && sc, "out of memory");
                t_fill_random(a, m * k, &rng);
                t_fill_random(b, k * n, &rng);
                t_fill_random(c0, m * n, &rng);
                memcpy(c, c0, sizeof(float) * (size_t)(m * n));
                const gk_gemm_args g = {m, n, k, ta, tb, 1.5f, -0.5f, a, b, c, lda, ldb, m};
                gk_packed_plan pk;
                const int t = gk_plan_packed(&g, cur, &blk, threads, &pk);
                gk_status st = gk_frame_gemm(&g, cur, &pk, t);
                t_ref_sgemm(GK_COL_MAJOR, ta ? GK_TRANS : GK_NO_TRANS, tb ? GK_TRANS : GK_NO_TRANS,
                            m, n, k, 1.5f, a, lda, b, ldb, -0.5f, c0, m, r, sc);
                char msg[256];
                int64_t bad = t_compare(GK_COL_MAJOR, m, n, c, m, r, sc, k, 0.0, msg, sizeof msg);
                T_CHECK(st == GK_SUCCESS && bad == 0,
                        "%s %lldx%lldx%lld ta=%d tb=%d threads=%d: %s", cur->name, (long long)m,
                        (long long)n, (long long)k, ta, tb, threads,
                        st == GK_SUCCESS ? msg : "status not success");
                free(a), free(b), free(c), free(c0), free(r), free(sc);
                if (bad || st != GK_SUCCESS) return;
            }
}

/* The registry's own promises: unique families, generic last and always usable, tiles within
 * the buffers sized by GK_UKR_MAX_TILE, and blocking that respects each kernel's shape. */
static void registry(void) {
    T_REQUIRE(gk_ukr_count >= 1 && gk_ukr_count <= GK_UKR_MAX_KERNELS, "count %d", gk_ukr_count);
    const gk_ukr_desc *last = &gk_ukr_table[gk_ukr_count - 1];
    T_CHECK(strcmp(last->arch, "generic") == 0 && last->usable(), "last entry %s", last->name);
    for (int i = 0; i < gk_ukr_count; i++) {
        const gk_ukr_desc *u = &gk_ukr_table[i];
        T_CHECK(u->mr >= 1 && u->nr >= 1 && u->mr * u->nr <= GK_UKR_MAX_TILE, "%s tile", u->name);
        T_CHECK(gk_ukr_find(u->arch) == i, "%s: arch %s not unique", u->name, u->arch);
        T_CHECK(u->fn && u->usable && u->small, "%s: missing function", u->name);
        T_CHECK(!u->abcols || (u->acols && u->bcols), "%s: abcols without acols and bcols",
                u->name);
        gk_blocking b = gk_cpu_blocking(gk_cpu_features_get(), u->mr, u->nr);
        T_CHECK(b.kc >= 1 && b.mc >= u->mr && b.mc % u->mr == 0 && b.nc >= u->nr &&
                    b.nc % u->nr == 0,
                "%s: blocking mc=%lld kc=%lld nc=%lld", u->name, (long long)b.mc, (long long)b.kc,
                (long long)b.nc);
    }
    T_CHECK(gk_ukr_find("no-such-arch") == -1, "found a bogus arch");
}

int main(void) {
    T_RUN(registry);
    for (int i = 0; i < gk_ukr_count; i++) {
        char name[96];
        cur = &gk_ukr_table[i];
        snprintf(name, sizeof name, "ukr_%s_edges", cur->name);
        t_run(name, edges);
        snprintf(name, sizeof name, "ukr_%s_row_strided_c", cur->name);
        t_run(name, strided);
        snprintf(name, sizeof name, "ukr_%s_bcols_edges", cur->name);
        t_run(name, bcols_edges);
        snprintf(name, sizeof name, "ukr_%s_acols_edges", cur->name);
        t_run(name, acols_edges);
        snprintf(name, sizeof name, "ukr_%s_abcols_edges", cur->name);
        t_run(name, abcols_edges);
        snprintf(name, sizeof name, "frame_%s_small_blocks", cur->name);
        t_run(name, frame_small_blocks);
    }
    return t_finish();
}
