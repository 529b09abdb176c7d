/*
 * plan.c — the packed path's part of the planner (plan.h): blocking for this call, the thread
 * count and grid, and which operands are read in place or streamed; and the GEMMKIT_VERBOSE line
 * that names the plan of each call.
 */
#include "cpu/frame/plan.h"

#include <stdio.h>

/* Pick tm x tn = threads minimising a thread's time: its tile area plus the packed A rows and B
 * columns it streams (rows + cols, times GK_PLAN_GRID_EDGE). The area term balances tiles, so a
 * short m spreads over n and a short n over m; the edge term prefers square blocks, which read
 * each packed operand fewer times. A tie (a square on 2 threads: 2 x 1 or 1 x 2) goes to 1 x 2
 * when only B's pack is a transpose (plain A and B), so that each thread transposes half of B and
 * copies all of A rather than the reverse; otherwise to the grid with more row slices. */
static void choose_grid(int threads, int64_t mt, int64_t nt, int mr, int nr, int split_n_on_tie,
                        int *tm, int *tn) {
    int64_t best = -1;
    for (int a = 1; a <= threads; a++) {
        if (threads % a) continue;
        const int64_t rows = gk_ceil_div64(mt, a) * mr, cols = gk_ceil_div64(nt, threads / a) * nr;
        const int64_t cost = rows * cols + GK_PLAN_GRID_EDGE * (rows + cols);
        /* a rises: on a tie keep the first (fewest row slices) to split n, else the last */
        if (best < 0 || cost < best || (cost == best && !split_n_on_tie))
            best = cost, *tm = a, *tn = threads / a;
    }
}

int gk_plan_packed(const gk_gemm_args *g, const gk_ukr_desc *u, const gk_blocking *blk, int threads,
                   gk_packed_plan *x) {
    const int mr = u->mr, nr = u->nr;

    /* Even kc blocks (k = 300 with kc = 256 runs 2 x 152, not 256 + 44), rounded to the unroll. */
    const int64_t kblocks = gk_ceil_div64(g->k, blk->kc);
    x->kc = gk_min64(g->k, gk_ceil_div64(gk_ceil_div64(g->k, kblocks), GK_PLAN_KC_ROUND) *
                               GK_PLAN_KC_ROUND);
    /* A short k leaves cache unused: widen the row and column blocks to keep the same bytes. */
    x->mc = blk->mc, x->nc = blk->nc;
    if (x->kc < blk->kc) {
        x->mc = gk_min64(x->mc * blk->kc / x->kc / mr * mr, GK_PLAN_SHORT_K_WIDEN * blk->mc);
        x->nc = gk_min64(x->nc * blk->kc / x->kc / nr * nr, GK_PLAN_SHORT_K_WIDEN * blk->nc);
    }

    const int64_t mt = gk_ceil_div64(g->m, mr), nt = gk_ceil_div64(g->n, nr);
    const double per_thread = gk_plan_mnk(g) / GK_PLAN_MNK_PER_THREAD;
    if ((double)threads > per_thread) threads = per_thread < 1.0 ? 1 : (int)per_thread;
    if (threads < 1) threads = 1;
    /* Small C, long k: ranges of k instead of blocks of C (plan.h). */
    const int64_t kparts = gk_min64(threads, g->k / GK_PLAN_KSPLIT_MIN_K);
    x->ksplit = 1;
    if (kparts >= 2 && mt * nt < threads) {
        x->ksplit = (int)kparts, threads = (int)kparts;
        x->tm = x->tn = 1;
    } else {
        if (threads > mt * nt) threads = (int)(mt * nt);
        /* A's pack is a transpose when A is transposed, B's when B is not (pack_body.h) */
        choose_grid(threads, mt, nt, mr, nr, !g->transb && !g->transa, &x->tm, &x->tn);
    }
    /* Blocks need not be larger than a thread's share. (A team smaller than `threads` runs a
     * 1 x t grid with these blocks: only more of them; gemm.c.) */
    const int64_t rows = gk_ceil_div64(mt, x->tm) * mr;
    /* A thread whose rows take at most half of an L2-sized A block has L2 to spare: a B block of
     * about the same bytes then stays in L2 from its packing to its last use, instead of making
     * a round trip through L3. */
    if (2 * rows <= x->mc) x->nc = gk_min64(x->nc, x->mc / nr * nr);
    x->bcols = u->bcols && !g->transb && rows <= x->mc && rows <= GK_PLAN_BCOLS_MAX_ROWS;
    x->acols = u->acols && (!x->bcols || u->abcols) && !g->transa && rows <= x->mc &&
               (double)x->kc * (double)g->lda * sizeof(float) <=
                   (double)gk_cpu_features_get()->l1d_bytes / GK_PLAN_ACOLS_L1_DIV;
    x->stream_a = !g->transa && mr * (int)sizeof(float) <= GK_PLAN_STREAM_A_MAX_COL_BYTES &&
                  rows > x->mc && gk_ceil_div64(nt, x->tn) * nr <= x->mc;
    x->mc = gk_min64(x->mc, rows);
    x->nc = gk_min64(x->nc, gk_ceil_div64(nt, x->tn) * nr);
    /* One thread has no one to take its chunks: it keeps one block. */
    const int64_t chunks = gk_ceil_div64(nt, x->tn) * nr / GK_PLAN_STEAL_MIN_COLS;
    x->chunks = threads == 1 || x->ksplit > 1 || chunks < 1
                    ? 1
                    : (int)gk_min64(chunks, GK_PLAN_STEAL_CHUNKS);
    return threads;
}

const char *gk_plan_path_name(gk_plan p) {
    static const char *const small[] = {
        [GK_SMALL_TILES] = "tiles",
        [GK_SMALL_AXPYS] = "axpys",
        [GK_SMALL_DOTS] = "dots",
        [GK_SMALL_SWAPPED_DOTS] = "swapped-dots",
        [GK_SMALL_SWAPPED_AXPYS] = "swapped-axpys",
    };
    switch (p.path) {
    case GK_PATH_NONE:
        return "none";
    case GK_PATH_SCALE:
        return "scale";
    case GK_PATH_SMALL:
        return small[p.form];
    case GK_PATH_PACKED:
        return "packed";
    }
    return "?";
}

void gk_plan_log(const char *who, gk_layout layout, gk_trans transa, gk_trans transb, int64_t m,
                 int64_t n, int64_t k, gk_plan p, const gk_packed_plan *x) {
    char opts[160] = "";
    if (p.path == GK_PATH_PACKED) {
        snprintf(opts, sizeof opts, " grid=%dx%d chunks=%d ksplit=%d mc=%lld kc=%lld nc=%lld%s%s%s",
                 x->tm, x->tn, x->chunks, x->ksplit, (long long)x->mc, (long long)x->kc,
                 (long long)x->nc, x->bcols ? " b-in-place" : "", x->acols ? " a-in-place" : "",
                 x->stream_a ? " a-streamed" : "");
    }
    fprintf(stderr, "gemmkit: %s %s %c%c m=%lld n=%lld k=%lld path=%s threads=%d%s\n", who,
            layout == GK_ROW_MAJOR ? "row" : "col", transa == GK_NO_TRANS ? 'N' : 'T',
            transb == GK_NO_TRANS ? 'N' : 'T', (long long)m, (long long)n, (long long)k,
            gk_plan_path_name(p), p.threads, opts);
}
