/*
 * select.cu — the FP32 plans of plan.h: which kernel family, tile configuration and K split runs
 * a problem (gk_sgemm_plan_pick, the heuristic), which plans `gemmkit tune` times
 * (gk_sgemm_plan_candidates), and running one (gk_sgemm_plan_launch). The heuristic is host
 * arithmetic on the problem's sizes and the SM count only (never on pointers: the dispatcher sizes
 * the scratch before it knows where a transposed operand will lie), so the same problem always
 * gets the same plan and the same scratch.
 *
 * The heuristic (docs/cuda.md, "Plan kinds"):
 *   1. m or n <= GK_PLAN_GEMV_MAX, with a big operand of at least GEMV_MIN_ELEMS elements: the
 *      GEMV-class kernel (gemv.cu), memory-bound.
 *   2. Otherwise configs.h's choice (gk_autotune_pick). If its tiles fill every SM's block slots
 *      at least once, or it runs one block per SM (then stream-K already spreads a short grid over
 *      every SM), that is the plan: TILED, stream-K where it pays (stream_k.cu).
 *   3. Otherwise the grid leaves SMs idle. Every configuration's data-parallel grid, split-K
 *      plans and (one block per SM) stream-K schedule are scored by a model of the busiest SM's
 *      time plus the cost of the partial sums, and the best wins: a smaller tile that fills the
 *      GPU competes with split-K and stream-K.
 */
#include "cuda/gemm/plan.h"

#include <math.h>
#include <stdio.h>

#include "cuda/gemm/configs.h"
#include "cuda/gemm/gemm.h"
#include "cuda/gemm/util.cuh"

namespace {

struct Tile {
    int bm, bn, bk, per_sm;
};

#define GK_TILE(id, bm, bn, bk, wm, wn, wtr, st, mb, ld, ord, g) {bm, bn, bk, mb},
const Tile tiles[] = {GK_AUTOTUNE_CONFIGS(GK_TILE)};
#undef GK_TILE
constexpr int n_configs = (int)(sizeof tiles / sizeof tiles[0]);

/* Share of the SM's FFMA rate a configuration sustains with its block slots full: bigger warp
 * tiles do more FFMAs per shared-memory load (docs/ladder.md, steps 11 and 13). Only the ordering
 * and rough ratios matter: they rank configurations for under-filled grids. */
const double efficiency[n_configs] = {0.60, 0.60, 0.65, 0.72, 0.78, 0.75, 0.75, 0.75};
/* Share of the SM's rate r of per_sm resident blocks get is (r / per_sm)^LONE_EXP: a block alone
 * on an SM still overlaps its own copies and FFMAs well, so the share falls slowly. */
constexpr double LONE_EXP = 0.15;

/* Most K pieces of a split-K plan, and fewest k-tiles per piece: a shorter piece's partial tile
 * costs more to write and add than its FFMAs. */
constexpr int MAX_SPLIT = 16;
constexpr int64_t MIN_PIECE_KTILES = 32;
/* Scratch a split-K plan may use, bytes: beyond this the problem is large enough to fill the GPU
 * with tiles. */
constexpr double MAX_SPLIT_SCRATCH = 256.0 * 1024 * 1024;
/* The cost model's units are SM clock cycles: FFMAs per SM per cycle, DRAM bytes per SM per cycle
 * (H100-class ratios), and the fixed cost of one more launch (the reduction, the stream-K grid). */
constexpr double FFMA_PER_CYCLE = 128.0, BYTES_PER_CYCLE = 14.0, LAUNCH_CYCLES = 5000.0;

int64_t tile_count(const gk_rm_problem &p, int c) {
    return gk_ceil_div(p.m, tiles[c].bm) * gk_ceil_div(p.n, tiles[c].bn);
}

/* Cycles of one block of configuration c over `kpiece` of K with its SM to itself; filling the
 * pipeline and the epilogue cost about FILL_KTILES k-tiles more, which is what makes short K
 * pieces (and short K) slower per FFMA. */
constexpr int64_t FILL_KTILES = 16;
double block_cycles(int c, int64_t kpiece) {
    return (double)tiles[c].bm * tiles[c].bn * (kpiece + FILL_KTILES * tiles[c].bk) /
           FFMA_PER_CYCLE / efficiency[c];
}

/* Modelled cycles of configuration c with K cut into `split` pieces on sm_count SMs: the busiest
 * SM runs j = ceil(blocks / sm_count) blocks, per_sm at a time, r resident blocks sharing the SM
 * at the rate above. Plus, for split > 1, writing and reading the partial sums and the reduction's
 * launch. */
double busy_time(const gk_rm_problem &p, int c, int split, int sm_count) {
    const Tile &t = tiles[c];
    const int64_t blocks = tile_count(p, c) * split;
    const double w = block_cycles(c, gk_ceil_div(gk_ceil_div(p.k, t.bk), split) * t.bk);
    const int64_t j = gk_ceil_div(blocks, sm_count);
    const int64_t full = j / t.per_sm, rest = j % t.per_sm;
    double cycles = (double)full * t.per_sm * w;
    if (rest) cycles += (double)rest * w / pow((double)rest / t.per_sm, LONE_EXP);
    if (split > 1)
        cycles +=
            LAUNCH_CYCLES + (2.0 * split + 1.0) * p.m * p.n * 4.0 / sm_count / BYTES_PER_CYCLE;
    return cycles;
}

/* The same for the stream-K schedule of a one-block-per-SM configuration on a grid of fewer tiles
 * than SMs (make_plan in stream_k.cu): the k-tiles spread evenly over up to 8 blocks per tile,
 * each block filling its pipeline once per tile it touches and writing partial tiles that the
 * finishing blocks read back. */
double stream_k_time(const gk_rm_problem &p, int c, int sm_count) {
    const Tile &tc = tiles[c];
    const int64_t t = tile_count(p, c);
    const int64_t blocks = t * 8 < sm_count ? t * 8 : sm_count;
    const double iters = (double)t * gk_ceil_div(p.k, tc.bk) / (double)blocks;
    const double slots = 3.0 * blocks * tc.bm * tc.bn * 4.0;
    return block_cycles(c, (int64_t)(iters * tc.bk)) + LAUNCH_CYCLES +
           slots / sm_count / BYTES_PER_CYCLE;
}

bool split_ok(const gk_rm_problem &p, int c, int split) {
    const int64_t kt = gk_ceil_div(p.k, tiles[c].bk);
    return split >= 2 && split <= MAX_SPLIT && split <= kt &&
           tile_count(p, c) * split <= 0x7fffffff &&
           (double)split * p.m * gk_pieces_ld(p.n) * 4.0 <= MAX_SPLIT_SCRATCH;
}

/* The best plan by the model: per configuration its data-parallel grid (split 1), its split-K
 * plans and, with one block per SM, its stream-K schedule. */
gk_sgemm_plan best_by_model(const gk_rm_problem &p, int sm_count) {
    gk_sgemm_plan best{GK_PLAN_TILED, 0, 1};
    double best_t = -1.0;
    auto consider = [&](gk_sgemm_plan pl, double t) {
        if (best_t < 0.0 || t < best_t) best_t = t, best = pl;
    };
    for (int c = 0; c < n_configs; ++c) {
        consider({GK_PLAN_TILED, c, 1}, busy_time(p, c, 1, sm_count));
        if (tiles[c].per_sm == 1 && tile_count(p, c) < sm_count)
            consider({GK_PLAN_TILED, c, 0}, stream_k_time(p, c, sm_count));
        for (int s = 2; s <= MAX_SPLIT; ++s)
            if (split_ok(p, c, s) && gk_ceil_div(p.k, tiles[c].bk) / s >= MIN_PIECE_KTILES)
                consider({GK_PLAN_SPLIT_K, c, s}, busy_time(p, c, s, sm_count));
    }
    return best;
}

/* GEMV for a thin side <= GK_PLAN_GEMV_MAX once the big operand has GEMV_MIN_ELEMS elements:
 * below that both kinds take a few microseconds, and the tiled kernels sum every element in one
 * FFMA chain over k, the same bits whatever the tile (docs/cuda.md: the out-of-core call relies on
 * it for its edge tiles). */
constexpr double GEMV_MIN_ELEMS = 1 << 18;
bool gemv_pays(const gk_rm_problem &p) {
    if (p.n <= GK_PLAN_GEMV_MAX) return (double)p.m * p.k >= GEMV_MIN_ELEMS;
    return p.m <= GK_PLAN_GEMV_MAX && (double)p.n * p.k >= GEMV_MIN_ELEMS;
}

/* More than gk_sgemm_plan_candidates can produce: the pick, the GEMV splits, and per
 * configuration its tiled plan and the split-K plans. */
constexpr int MAX_CANDIDATES = 128;

bool same_plan(const gk_sgemm_plan &a, const gk_sgemm_plan &b) {
    return a.kind == b.kind && a.config == b.config && a.split == b.split;
}

} // namespace

gk_sgemm_plan gk_sgemm_plan_pick(const gk_rm_problem &p, int sm, int sm_count) {
    if (gemv_pays(p)) return {GK_PLAN_GEMV, 0, 0};
    const int c = gk_autotune_pick(p, sm, sm_count);
    /* The size table was measured on the data-parallel grid (ladder step 11), where a big
     * one-block-per-SM tile loses its partial last wave and smaller tiles win some sizes (3072^2
     * on an H100). Under stream-K that wave is shared out, so once the big tile's grid covers
     * every SM it is the better plan (bench/results/h100/tune_run.txt: 3072^2 128x256 with
     * stream-K 1.14 ms, the table's 64x128 1.37 ms). The big tile is the table's choice for the
     * largest problems. */
    gk_rm_problem huge = p;
    huge.m = huge.n = (int64_t)1 << 20;
    const int big = gk_autotune_pick(huge, sm, sm_count);
    if (sm_count > 0 && tiles[c].per_sm > 1 && tiles[big].per_sm == 1 &&
        tile_count(p, big) >= sm_count)
        return {GK_PLAN_TILED, big, 0};
    if (sm_count <= 0 || tiles[c].per_sm == 1 ||
        tile_count(p, c) >= (int64_t)sm_count * tiles[c].per_sm)
        return {GK_PLAN_TILED, c, 0};
    const gk_sgemm_plan b = best_by_model(p, sm_count);
    return b;
}

int gk_sgemm_plan_candidates(const gk_rm_problem &p, int sm, int sm_count, gk_sgemm_plan *out,
                             int cap) {
    gk_sgemm_plan all[MAX_CANDIDATES];
    int n = 0;
    auto add = [&](gk_sgemm_plan pl) {
        for (int i = 0; i < n; ++i)
            if (same_plan(all[i], pl)) return;
        if (n < MAX_CANDIDATES && gk_sgemm_plan_valid(pl, p, sm, sm_count)) all[n++] = pl;
    };
    add(gk_sgemm_plan_pick(p, sm, sm_count));
    if (p.m <= GK_PLAN_GEMV_MAX || p.n <= GK_PLAN_GEMV_MAX)
        for (int s = 1; s <= GK_GEMV_MAX_SPLIT; s *= 2)
            add({GK_PLAN_GEMV, 0, s});
    static const int splits[] = {2, 3, 4, 6, 8, 12, 16};
    for (int c = 0; c < n_configs; ++c) {
        add({GK_PLAN_TILED, c, 0});
        /* split-K only where the tiles alone leave block slots empty */
        const int64_t slots = (int64_t)(sm_count > 0 ? sm_count : 1) * tiles[c].per_sm;
        for (int s : splits)
            if (tile_count(p, c) * s <= 4 * slots) add({GK_PLAN_SPLIT_K, c, s});
    }
    for (int i = 0; i < n && i < cap; ++i)
        out[i] = all[i];
    return n;
}

int gk_sgemm_plan_valid(const gk_sgemm_plan &plan, const gk_rm_problem &p, int sm, int sm_count) {
    (void)sm_count;
    if (sm < 80 || p.m < 1 || p.n < 1 || p.k < 1) return 0;
    switch (plan.kind) {
    case GK_PLAN_TILED:
        return plan.config >= 0 && plan.config < n_configs &&
               (plan.split == 0 || plan.split == 1) && tile_count(p, plan.config) <= 0x7fffffff;
    case GK_PLAN_SPLIT_K:
        return plan.config >= 0 && plan.config < n_configs && split_ok(p, plan.config, plan.split);
    case GK_PLAN_GEMV:
        return plan.config == 0 && plan.split >= 0 && plan.split <= GK_GEMV_MAX_SPLIT &&
               (p.m <= GK_PLAN_GEMV_MAX || p.n <= GK_PLAN_GEMV_MAX);
    default:
        return 0;
    }
}

size_t gk_sgemm_plan_scratch(const gk_sgemm_plan &plan, const gk_rm_problem &p, int sm,
                             int sm_count) {
    if (!gk_sgemm_plan_valid(plan, p, sm, sm_count)) return 0;
    switch (plan.kind) {
    case GK_PLAN_TILED:
        return gk_gemm_tiled_scratch(plan.config, plan.split == 0, p, sm_count);
    case GK_PLAN_SPLIT_K:
        return gk_gemm_split_k_scratch(plan.split, p);
    default:
        return gk_gemv_scratch(plan.split, p, sm_count);
    }
}

cudaError_t gk_sgemm_plan_launch(const gk_sgemm_plan &plan, const gk_rm_problem &p,
                                 const gk_launch_env &env) {
    if (!gk_sgemm_plan_valid(plan, p, env.sm, env.sm_count)) return cudaErrorInvalidValue;
    switch (plan.kind) {
    case GK_PLAN_TILED:
        return gk_gemm_tiled(plan.config, plan.split == 0, p, env);
    case GK_PLAN_SPLIT_K:
        if (env.scratch == nullptr) return gk_gemm_tiled(plan.config, false, p, env);
        return gk_gemm_split_k(plan.config, plan.split, p, env);
    default:
        return gk_gemv(plan.split, p, env);
    }
}

const char *gk_sgemm_plan_name(const gk_sgemm_plan &plan, char *buf, size_t n) {
    switch (plan.kind) {
    case GK_PLAN_TILED:
        snprintf(buf, n, "%s/%d", plan.split == 1 ? "tiled-dp" : "tiled", plan.config);
        break;
    case GK_PLAN_SPLIT_K:
        snprintf(buf, n, "splitk/%dx%d", plan.config, plan.split);
        break;
    case GK_PLAN_GEMV:
        if (plan.split == 0)
            snprintf(buf, n, "gemv");
        else
            snprintf(buf, n, "gemv/%d", plan.split);
        break;
    default:
        snprintf(buf, n, "invalid/%d", plan.kind);
        break;
    }
    return buf;
}

size_t gk_gemm_stream_k_scratch(const gk_rm_problem &p, int sm, int sm_count) {
    return gk_sgemm_plan_scratch(gk_sgemm_plan_pick(p, sm, sm_count), p, sm, sm_count);
}

cudaError_t gk_gemm_stream_k(const gk_rm_problem &p, const gk_launch_env &env) {
    return gk_sgemm_plan_launch(gk_sgemm_plan_pick(p, env.sm, env.sm_count), p, env);
}
