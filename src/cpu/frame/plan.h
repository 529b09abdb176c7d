/*
 * plan.h — the CPU planner: which path a call takes, on how many threads, and for the packed path
 * its blocking, thread grid and in-place options, all decided here from one table of thresholds.
 * The code that runs a plan (sgemm.c, gemm.c, small.c, the kernels) only executes it.
 *
 * The choice of path is inline: for calls of a few hundred flops it is a sizeable part of the
 * call (docs/cpu.md, "Per-call overhead"). The packed options are worked out in plan.c, once per
 * call that has enough work to repay a function call.
 */
#ifndef GK_CPU_FRAME_PLAN_H
#define GK_CPU_FRAME_PLAN_H

#include "core/internal.h"
#include "cpu/config/cpu.h"
#include "cpu/kernels/ukernel.h"

/* The planner's table. Each entry says what it decides and why; docs/cpu.md ("The planner")
 * gives the measurements behind each value. */
enum {
    /* Threads: each thread of a call gets at least this many multiply-adds. Waking a team and
     * packing each thread's operands cost a few microseconds. */
    GK_PLAN_MNK_PER_THREAD = 131072,

    /* Register tiles instead of the packed path up to this m * n * k: below it the packed path's
     * fixed costs (edge panels and tiles, packing) outweigh the tiles' unpacked loads. */
    GK_PLAN_TILES_MNK = 32 * 32 * 32,
    /* ... and up to this one with transposed B, whose pack is a transpose the tiles avoid by
     * broadcasting B's elements in place. (A transposed A must also fit the tiles' stack copy,
     * GK_SMALL_ABUF floats in panels of GK_SMALL_ROW_ALIGN rows: ukernel.h.) */
    GK_PLAN_TILES_MNK_TRANSB = 64 * 64 * 64,

    /* GEMV-like calls (C with at most this many columns, or rows with transposed A) take the
     * unpacked path at any size: packing would pad the thin operand to a whole micro-panel and
     * copy the big one once more than it is read. */
    GK_PLAN_GEMV_WIDTH = 2,
    /* Among them, plain A stays on the register tiles when it has at most this many rows, or
     * when k >= GK_PLAN_GEMV_TILES_MIN_K and A has at most GK_PLAN_GEMV_TILES_A_FLOATS elements
     * (128 KiB, in L2): a tile loads each column of A once for both columns of C and keeps C in
     * registers. Taller or larger A runs faster as axpys sweeping down whole columns. */
    GK_PLAN_GEMV_TILES_ROWS = 32,
    GK_PLAN_GEMV_TILES_MIN_K = 32,
    GK_PLAN_GEMV_TILES_A_FLOATS = 32 * 1024,

    /* Packed path. The kc block is split evenly over k and rounded up to this multiple (the
     * kernels' k unroll). */
    GK_PLAN_KC_ROUND = 4,
    /* A short k widens the row and column blocks to keep the cache bytes, by at most this
     * factor. */
    GK_PLAN_SHORT_K_WIDEN = 4,
    /* Thread grid cost: one packed row or column of a thread's block weighs this many
     * multiply-adds of its tile area (streaming a float costs about 16 flops' time). */
    GK_PLAN_GRID_EDGE = 16,
    /* Plain B is read in place (the kernel's B-columns variant) when a thread's rows fit one row
     * block and are at most this many: then each B panel serves too few A panels to repay its
     * transposing pack. With more rows the panel's columns leave L1 between uses. */
    GK_PLAN_BCOLS_MAX_ROWS = 256,
    /* Plain A is read in place (A-columns variants) when a thread's rows fit one row block and
     * the memory its kc columns span (lda apart) is at most 1 / GK_PLAN_ACOLS_L1_DIV of L1d:
     * packing would copy what is cached already. Larger spans come back from L2 faster packed. */
    GK_PLAN_ACOLS_L1_DIV = 2,
    /* A thread with more rows than one block and at most a block's width of columns packs A one
     * micro-panel at a time while prefetching the next (stream_a), provided an A micro-panel
     * column fits this many bytes: the prefetch covers one cache line per column. */
    GK_PLAN_STREAM_A_MAX_COL_BYTES = 64,

    /* Work that survives a descheduled thread: each thread's block of C is cut into up to
     * GK_PLAN_STEAL_CHUNKS column chunks, which its owner runs in order and an idle thread takes
     * over once its own are done (gemm.c). Each chunk packs its rows of A again, which costs
     * about 15 / (its width) of its time (a float packed at ~30 GB/s against one multiply-add per
     * float per column at ~110 G/s), so chunks are few and at least GK_PLAN_STEAL_MIN_COLS wide;
     * two chunks already let a thread with a core of its own take over half of a slowed one's
     * block (docs/cpu.md, "The planner"). */
    GK_PLAN_STEAL_CHUNKS = 2,
    GK_PLAN_STEAL_MIN_COLS = 512,

    /* k split: when C has fewer MR x NR tiles than the call has threads, splitting C leaves
     * threads idle; the threads instead take ranges of k, each computing all of C into a private
     * buffer, summed afterwards in a fixed pairwise order (gemm.c). Each range is at least
     * GK_PLAN_KSPLIT_MIN_K long, so writing and summing a partial C (m n floats) is a few
     * hundredths of a percent of its m n k multiply-adds. With as many tiles as threads C is
     * split as usual: on 2 threads the k split of 64x64 (12 tiles) lost to the split C
     * (docs/cpu.md, "Threads"). Results then depend on the thread count (docs/cpu.md,
     * "Reproducibility"). */
    GK_PLAN_KSPLIT_MIN_K = 4096,
};

/* The paths of a call. */
typedef enum gk_path {
    GK_PATH_NONE,   /* m or n is 0: nothing to do */
    GK_PATH_SCALE,  /* k == 0 or alpha == 0: C = beta * C, A and B unread */
    GK_PATH_SMALL,  /* unpacked, in the form `form` (register tiles or vectors) */
    GK_PATH_PACKED, /* the packed loop nest (gemm.c) with the options gk_plan_packed chose */
} gk_path;

/* The packed path's options for one call. */
typedef struct gk_packed_plan {
    int64_t mc, kc, nc; /* blocking for this call, per thread */
    int tm, tn;         /* thread grid: tm row slices by tn column slices of C */
    int bcols;          /* full B panels read in place by the kernel's bcols variant */
    int acols;          /* full A panels read in place by the kernel's acols variants */
    int stream_a;       /* A packed one panel at a time, a later one prefetched (narrow B) */
    int chunks;         /* column chunks per thread block, taken dynamically (gemm.c) */
    int ksplit;         /* k ranges computed apart and summed (1: none); then tm = tn = 1 */
} gk_packed_plan;

/* A call's plan: its path and thread count (kept in registers on the tiny calls' way: the
 * packed options are a separate object, filled only for the packed path). */
typedef struct gk_plan {
    gk_path path;
    gk_small_form form; /* GK_PATH_SMALL */
    int threads;        /* threads to ask for (1 for NONE and SCALE) */
} gk_plan;

/* m * n * k in double (the product can pass 2^63). */
static inline double gk_plan_mnk(const gk_gemm_args *g) {
    return (double)g->m * (double)g->n * (double)g->k;
}

/* The path of a call with m, n, k >= 1 and alpha != 0: GK_PATH_SMALL with *form set, or
 * GK_PATH_PACKED. Also used on each thread's slice of a parallel small call (small.c), which is
 * planned again as the problem it is. */
static inline gk_path gk_plan_form(const gk_gemm_args *g, gk_small_form *form) {
    const int tiles_size = gk_plan_mnk(g) <= (g->transb ? (double)GK_PLAN_TILES_MNK_TRANSB
                                                        : (double)GK_PLAN_TILES_MNK);
    /* Swapped vector forms: C of at most two rows with plain A, too large for the tiles. After
     * normalisation this is a row-major GEMV (y = A x with A row-major is C^T = x^T A^T), which
     * packed would pad its 1- or 2-row operand to a micro-panel; run as C^T = op(B)^T op(A)^T it
     * is dot products of A's rows with op(B)'s columns, or, with op(B) transposed, axpys, which
     * need C's one row contiguous (m == 1, ldc == 1; otherwise the packed path stays). */
    if (g->m <= GK_PLAN_GEMV_WIDTH && g->n > GK_PLAN_GEMV_WIDTH && !g->transa && !tiles_size) {
        if (!g->transb) {
            *form = GK_SMALL_SWAPPED_DOTS;
            return GK_PATH_SMALL;
        }
        if (g->m == 1 && g->ldc == 1) {
            *form = GK_SMALL_SWAPPED_AXPYS;
            return GK_PATH_SMALL;
        }
    }
    /* GEMV-like: dot products with transposed A; plain A on the tiles while small or short,
     * else axpys */
    if (g->n <= GK_PLAN_GEMV_WIDTH || (g->m <= GK_PLAN_GEMV_WIDTH && g->transa)) {
        if (g->transa)
            *form = GK_SMALL_DOTS;
        else if (g->m <= GK_PLAN_GEMV_TILES_ROWS ||
                 (g->k >= GK_PLAN_GEMV_TILES_MIN_K &&
                  (double)g->m * (double)g->k <= (double)GK_PLAN_GEMV_TILES_A_FLOATS))
            *form = GK_SMALL_TILES;
        else
            *form = GK_SMALL_AXPYS;
        return GK_PATH_SMALL;
    }
    if (!tiles_size) return GK_PATH_PACKED;
    if (g->transa &&
        gk_ceil_div64(g->m, GK_SMALL_ROW_ALIGN) * GK_SMALL_ROW_ALIGN * g->k > GK_SMALL_ABUF)
        return GK_PATH_PACKED;
    *form = GK_SMALL_TILES;
    return GK_PATH_SMALL;
}

/* Threads for the small path: one per GK_PLAN_MNK_PER_THREAD multiply-adds, and none added
 * below two threads' worth. */
static inline int gk_plan_small_threads(const gk_gemm_args *g, int threads) {
    const double per_thread = gk_plan_mnk(g) / GK_PLAN_MNK_PER_THREAD;
    if (threads <= 1 || per_thread < 2.0) return 1;
    return (double)threads > per_thread ? (int)per_thread : threads;
}

/* The packed path's options (plan.c) for kernel u with the machine's blocking blk on up to
 * `threads` threads; returns the threads to ask for. */
int gk_plan_packed(const gk_gemm_args *g, const gk_ukr_desc *u, const gk_blocking *blk, int threads,
                   gk_packed_plan *pk);

/* The plan of a valid, normalised call (gk_check_gemm) with kernel u, blocking blk, up to
 * `threads` threads; *pk is filled for GK_PATH_PACKED only. */
static inline gk_plan gk_plan_call(const gk_gemm_args *g, const gk_ukr_desc *u,
                                   const gk_blocking *blk, int threads, gk_packed_plan *pk) {
    gk_plan p = {.path = GK_PATH_NONE, .form = GK_SMALL_TILES, .threads = 1};
    if (g->m == 0 || g->n == 0) return p;
    if (gk_gemm_is_scale_only(g)) {
        p.path = GK_PATH_SCALE;
        return p;
    }
    p.path = gk_plan_form(g, &p.form);
    if (p.path == GK_PATH_SMALL)
        p.threads = gk_plan_small_threads(g, threads);
    else
        p.threads = gk_plan_packed(g, u, blk, threads, pk);
    return p;
}

/* One line on stderr for GEMMKIT_VERBOSE: the call as made (`who`, layout, transpositions,
 * sizes), then its path, threads and, for the packed path, the options in pk. */
void gk_plan_log(const char *who, gk_layout layout, gk_trans transa, gk_trans transb, int64_t m,
                 int64_t n, int64_t k, gk_plan p, const gk_packed_plan *pk);

/* Short name of a plan's path ("tiles", "packed", ...), as gk_plan_log writes it. */
const char *gk_plan_path_name(gk_plan p);

#endif
