/*
 * cpu_probe.c — `gk-cpu-probe`: where the time of a small GEMM goes on this CPU. A white-box
 * developer probe of the CPU module (built with the CLI and by `make probes`, bench/bench.mk; not
 * part of the library). It times the
 * pieces of the packed path one at a time, in a loop, through the library's internal registry
 * (linked statically): one micro-kernel call for a full tile and for each kind of edge tile, the
 * in-place variants (B columns, A columns, both), and the packing of one full and one edge panel
 * of A and of B. Then whole small GEMMs, with and without edge panels, interleaved over rounds so
 * a slow phase of a shared machine falls on all of them.
 *
 *   gk-cpu-probe [KC]       KC: the shared dimension of the tile and panel timings (default 64)
 *
 * A diagnostic, not a benchmark of record: `gemmkit bench` compares against the peers.
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness/harness.h"
#include "cpu/frame/frame.h"
#include "cpu/kernels/ukernel.h"
#include "gemmkit.h"

enum { CALLS = 100000, ROUNDS = 5, GEMM_CALLS = 1000, EDGE = 4 };

static float *filled(int64_t n, float scale) {
    float *p = aligned_alloc(64, (size_t)((n * 4 + 63) / 64 * 64));
    if (p)
        for (int64_t i = 0; i < n; i++)
            p[i] = scale * (float)(i % 7 - 3);
    return p;
}

/* The operand forms of a micro-kernel call the probe times: packed A and B, or the in-place
 * variants, whose operands in place are columns of the source matrix (ld apart). */
enum form { PACKED, B_COLS, A_COLS, AB_COLS };

static int has_form(const gk_ukr_desc *u, enum form f) {
    return f == PACKED || (f == B_COLS && u->bcols) || (f == A_COLS && u->acols) ||
           (f == AB_COLS && u->abcols);
}

/* ns per call of one micro-kernel tile of mv x nv valid in form f; C column stride mr. */
static double time_tile(const gk_ukr_desc *u, enum form f, int64_t kc, const float *pa,
                        const float *pb, const float *src, int64_t ld, float *c, int mv, int nv) {
    const int mr = u->mr;
    double t = gkh_now();
    for (int i = 0; i < CALLS; i++)
        switch (f) {
        case PACKED:
            u->fn(kc, pa, pb, c, 1, mr, 1.0f, 0.0f, mv, nv);
            break;
        case B_COLS:
            u->bcols(kc, pa, src, ld, c, mr, 1.0f, 0.0f, mv);
            break;
        case A_COLS:
            u->acols(kc, src, ld, pb, c, mr, 1.0f, 0.0f, nv);
            break;
        case AB_COLS:
            u->abcols(kc, src, ld, src, ld, c, mr, 1.0f, 0.0f);
            break;
        }
    return (gkh_now() - t) / CALLS * 1e9;
}

/* ns per call of packing one panel of `lanes` of `w` (src lanes at stride ls, steps at ps). */
static double time_pack(const gk_ukr_desc *u, float *dst, int w, int lanes, int64_t kc,
                        const float *src, int64_t ls, int64_t ps) {
    double t = gkh_now();
    for (int i = 0; i < CALLS; i++)
        u->pack(dst, w, lanes, kc, src, ls, ps, 1);
    return (gkh_now() - t) / CALLS * 1e9;
}

/* Median ns per call of the small path (small != 0) or the packed path on g, 1 thread. The
 * small path runs in the planner's form, or on the tiles where the planner would pack; the packed
 * path with the options the planner gives it. */
static double time_path(const gk_ukr_desc *u, const gk_gemm_args *g, int small) {
    const gk_blocking blk = gk_cpu_blocking(gk_cpu_features_get(), u->mr, u->nr);
    gk_small_form form = GK_SMALL_TILES;
    if (gk_plan_form(g, &form) != GK_PATH_SMALL) form = GK_SMALL_TILES;
    gk_packed_plan pk;
    gk_plan_packed(g, u, &blk, 1, &pk);
    enum { REPS = 2000 };
    double t[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        const double t0 = gkh_now();
        for (int i = 0; i < REPS; i++)
            if (small)
                u->small(g, form);
            else
                gk_frame_gemm(g, u, &pk, 1);
        t[r] = (gkh_now() - t0) / REPS * 1e9;
    }
    return gkh_median(t, ROUNDS);
}

/* The unpacked small path against the packed path on tiny shapes, in all four transpositions,
 * called directly (not through the planner's size rule, which these timings are for). */
static void compare_paths(const gk_ukr_desc *u, const float *a, const float *b, float *c) {
    static const int shapes[][3] = {
        {2, 2, 2},     {3, 3, 3},    {4, 4, 4},    {5, 5, 5},    {6, 6, 6},     {8, 8, 8},
        {10, 10, 10},  {12, 12, 12}, {16, 16, 16}, {20, 20, 20}, {24, 24, 24},  {32, 32, 32},
        {40, 40, 40},  {48, 48, 48}, {64, 64, 64}, {8, 8, 2},    {16, 16, 2},   {12, 12, 4},
        {20, 20, 2},   {3, 30, 10},  {30, 3, 10},  {64, 64, 4},  {4, 64, 64},   {64, 4, 64},
        {16, 16, 128}, {32, 32, 64}, {100, 8, 8},  {8, 100, 8},  {128, 16, 16}, {16, 128, 16}};
    printf("small path against packed path, 1 thread, median of %d rounds: NN ns per call, then\n"
           "small / packed time for NN, NT, TN, TT (T = transposed A or B; - = not small)\n"
           "  %-11s %15s  %6s %6s %6s %6s\n",
           ROUNDS, "m x n x k", "small/packed", "NN", "NT", "TN", "TT");
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const int m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
        double ratio[4];
        for (int tr = 0; tr < 4; tr++) {
            const int ta = tr >> 1, tb = tr & 1;
            const gk_gemm_args g = {m, n, k, ta,         tb,         1.0f, 0.5f,
                                    a, b, c, ta ? k : m, tb ? n : k, m};
            if (ta && ((m + GK_SMALL_ROW_ALIGN - 1) / GK_SMALL_ROW_ALIGN * GK_SMALL_ROW_ALIGN * k) >
                          GK_SMALL_ABUF) {
                ratio[tr] = 0; /* the small path does not take it */
                continue;
            }
            double ts = 0, tp = 0;
            for (int r = 0; r < 2; r++) /* interleaved twice, the second pair counts */
                ts = time_path(u, &g, 1), tp = time_path(u, &g, 0);
            ratio[tr] = ts / tp;
            if (tr == 0) printf("  %3dx%3dx%3d  %7.0f/%-7.0f", m, n, k, ts, tp);
        }
        for (int tr = 0; tr < 4; tr++)
            if (ratio[tr] > 0)
                printf("  %5.2f", ratio[tr]);
            else
                printf("  %5s", "-");
        printf("\n");
    }
}

int main(int argc, char **argv) {
    const int64_t kc = argc > 1 ? atoll(argv[1]) : 64;
    if (kc < 1 || kc > 4096) {
        fprintf(stderr, "usage: gk-cpu-probe [KC], 1 <= KC <= 4096\n");
        return 2;
    }
    gk_cpu_info ci;
    gk_cpu_get_info(&ci);
    const int ki = gk_ukr_find(ci.arch);
    if (ki < 0) return 1;
    const gk_ukr_desc *u = &gk_ukr_table[ki];
    const int mr = u->mr, nr = u->nr;
    const int64_t ld = 64 + kc; /* source matrices: columns of ld floats, kc + 64 of them */
    float *pa = filled(mr * kc, 0.25f), *pb = filled(nr * kc, 0.5f), *c = filled(mr * nr, 0);
    float *src = filled(ld * (kc + 64), 0.125f);
    if (!pa || !pb || !c || !src) return 1;

    printf("kernel %s (%d x %d, %s), kc = %lld, ns per call (median of %d rounds of %d)\n", u->name,
           mr, nr, ci.brand, (long long)kc, ROUNDS, CALLS);
    struct {
        const char *what;
        int pack;                 /* 0: a kernel call in `form`, 1: packing one panel */
        enum form form;           /* tiles */
        int mv, nv;               /* tiles */
        int w, lanes, contiguous; /* packing */
    } probes[] = {
        {"tile, full", 0, PACKED, mr, nr, 0, 0, 0},
        {"tile, m edge (mr-4 rows)", 0, PACKED, mr - EDGE, nr, 0, 0, 0},
        {"tile, n edge (4 columns)", 0, PACKED, mr, EDGE, 0, 0, 0},
        {"tile, B columns in place", 0, B_COLS, mr, nr, 0, 0, 0},
        {"tile, A columns in place", 0, A_COLS, mr, nr, 0, 0, 0},
        {"tile, A and B columns in place", 0, AB_COLS, mr, nr, 0, 0, 0},
        {"pack A panel, full (contiguous lanes)", 1, PACKED, 0, 0, mr, mr, 1},
        {"pack A panel, edge (mr-4 lanes)", 1, PACKED, 0, 0, mr, mr - EDGE, 1},
        {"pack B panel, full (transposing)", 1, PACKED, 0, 0, nr, nr, 0},
        {"pack B panel, edge (4 lanes)", 1, PACKED, 0, 0, nr, EDGE, 0},
    };
    const int np = (int)(sizeof probes / sizeof probes[0]);
    for (int p = 0; p < np; p++) {
        if (!has_form(u, probes[p].form)) continue;
        double r[ROUNDS];
        for (int k = 0; k < ROUNDS; k++) {
            if (!probes[p].pack) {
                r[k] = time_tile(u, probes[p].form, kc, pa, pb, src, ld, c, probes[p].mv,
                                 probes[p].nv);
            } else {
                float *dst = probes[p].w == mr ? pa : pb;
                r[k] = probes[p].contiguous
                           ? time_pack(u, dst, probes[p].w, probes[p].lanes, kc, src, 1, ld)
                           : time_pack(u, dst, probes[p].w, probes[p].lanes, kc, src, ld, 1);
            }
        }
        printf("  %-40s %9.1f\n", probes[p].what, gkh_median(r, ROUNDS));
    }

    /* Whole GEMMs: n = 60 and 72 are whole 6- and 12-column panels, 64 leaves an edge panel. */
    static const int shapes[][3] = {{64, 60, 64}, {64, 64, 64},    {64, 72, 64},   {60, 64, 64},
                                    {96, 96, 96}, {100, 100, 100}, {128, 128, 128}};
    enum { NS = sizeof shapes / sizeof shapes[0] };
    float *a = filled(128 * 128, 0.1f), *b = filled(128 * 128, 0.2f), *cc = filled(128 * 128, 0);
    double *t = malloc(sizeof(double) * GEMM_CALLS), med[NS][ROUNDS];
    if (!a || !b || !cc || !t) return 1;
    gk_set_num_threads(1);
    for (int k = 0; k < ROUNDS; k++)
        for (int s = 0; s < NS; s++) {
            const int m = shapes[s][0], n = shapes[s][1], kk = shapes[s][2];
            for (int i = 0; i < GEMM_CALLS / 4; i++) /* warm-up */
                gk_sgemm(GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, m, n, kk, 1, a, m, b, kk, 0, cc,
                         m);
            for (int i = 0; i < GEMM_CALLS; i++) {
                double t0 = gkh_now();
                gk_sgemm(GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, m, n, kk, 1, a, m, b, kk, 0, cc,
                         m);
                t[i] = gkh_now() - t0;
            }
            med[s][k] = gkh_median(t, GEMM_CALLS);
        }
    printf("gk_sgemm, 1 thread, median of %d interleaved round medians of %d calls\n", ROUNDS,
           GEMM_CALLS);
    for (int s = 0; s < NS; s++) {
        const double flops = 2.0 * shapes[s][0] * shapes[s][1] * shapes[s][2];
        const double m = gkh_median(med[s], ROUNDS);
        printf("  %3dx%3dx%3d %8.2f us %7.1f GFLOPS (rounds %.1f..%.1f)\n", shapes[s][0],
               shapes[s][1], shapes[s][2], m * 1e6, flops / m * 1e-9,
               flops / med[s][ROUNDS - 1] * 1e-9, flops / med[s][0] * 1e-9);
    }
    compare_paths(u, a, b, cc);
    free(pa), free(pb), free(c), free(src), free(a), free(b), free(cc), free(t);
    return 0;
}
