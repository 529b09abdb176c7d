/*
 * gemm.c — the packed GEMM loop nest (Goto/BLIS): jc over nc columns of C, pc over kc of the
 * shared dimension, ic over row blocks, then jr over NR and ir over MR around the micro-kernel.
 *
 * Packing (pack_body.h, built per ISA and reached through the kernel's registry entry) copies
 * op(A) and op(B) into micro-panels in the exact order the kernel reads them, with zero padding
 * past the edges, so transpositions cost the same as the plain case (only the pack loops differ)
 * and the kernel needs no edge logic in its inner loop.
 *
 * Threading (one OpenMP team per call): C is split over a tm x tn grid of threads, chosen for
 * balanced tiles and square per-thread blocks, and each thread runs the whole loop nest on its
 * own block of C with its own packed A and B: no shared buffers and no barriers.
 * The packing buffer belongs to the calling thread (kept between its calls): concurrent calls
 * share nothing.
 */
#include "cpu/frame/frame.h"

#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct gemm_ctx {
    const gk_gemm_args *g;
    const gk_ukr_desc *u;
    int64_t mc, kc, nc; /* effective blocking for this call, per thread */
    int tm, tn;         /* thread grid for the team size `threads` */
    int bcols;          /* full B panels read in place by the kernel's bcols variant */
    int acols;          /* full A panels read in place by the kernel's acols variant */
    int stream_a;       /* A packed one panel at a time, a later one prefetched (narrow B) */
    int threads;
    float *pa, *pb;
} gemm_ctx;

static int64_t ceil_div(int64_t a, int64_t b) {
    return (a + b - 1) / b;
}
static int64_t min64(int64_t a, int64_t b) {
    return a < b ? a : b;
}

/* The packed A block whose top-left element is op(A)(ic, pc): mb x kb values,
 * panel q holds rows ic + q*mr .. + mr, stored pa[q*mr*kb + p*mr + i]. Plain A is stored m x k
 * (rows contiguous in a column), transposed A k x m. */
static void pack_a(const gk_gemm_args *g, const gk_ukr_desc *u, int64_t ic, int64_t pc, int64_t mb,
                   int64_t kb, float *pa) {
    const int64_t ls = g->transa ? g->lda : 1, ps = g->transa ? 1 : g->lda;
    u->pack(pa, u->mr, mb, kb, g->a + ic * ls + pc * ps, ls, ps, ceil_div(mb, u->mr));
}

/* The packed B block whose top-left element is op(B)(pc, jc): kb x nb values,
 * panel q holds columns jc + q*nr .. + nr, stored pb[q*nr*kb + p*nr + j]. Plain B is stored
 * k x n, transposed B n x k (columns of op(B) contiguous in a stored column). */
static void pack_b(const gk_gemm_args *g, const gk_ukr_desc *u, int64_t pc, int64_t jc, int64_t nb,
                   int64_t kb, float *pb) {
    const int64_t ls = g->transb ? 1 : g->ldb, ps = g->transb ? g->ldb : 1;
    u->pack(pb, u->nr, nb, kb, g->b + jc * ls + pc * ps, ls, ps, ceil_div(nb, u->nr));
}

/* Relative cost of one packed row or column of a thread's block against one multiply-add of its
 * tile area, per k step: a core does ~2 * 50..75 GFLOP/s while it streams ~10..20 GB/s of
 * packed operands from L3 or memory, so a float (4 bytes) of traffic costs ~16 flops' time. */
#define GK_GRID_EDGE 16

/* Most rows of a thread's block for which plain B is read in place (see gk_frame_gemm). */
#define GK_BCOLS_MAX_ROWS 256

/* Pick tm x tn = threads minimising a thread's time: its tile area plus the packed A rows and B
 * columns it streams (rows + cols, times GK_GRID_EDGE). The area term balances tiles, so a short
 * m spreads over n and a short n over m; the edge term prefers square blocks, which read each
 * packed operand fewer times (2048^3 on 16 threads: 4 x 4 streams half the bytes of 16 x 1).
 * A tie (a square on 2 threads: 2 x 1 or 1 x 2) goes to 1 x 2 when only B's pack is a transpose
 * (plain A and B), so that each thread transposes half of B and copies all of A rather than the
 * reverse; otherwise to the grid with more row slices, as before. Zen 3, 2 threads, three runs
 * of 5 rounds against 2 x 1: 1024^3 1.04x / 1.06x / 0.96x, 2048^3 1.15x / 0.97x / 1.08x,
 * 4096^3 1.05x / 1.02x / 1.00x: a small gain at most. */
static void choose_grid(int threads, int64_t mt, int64_t nt, int mr, int nr, int split_n_on_tie,
                        int *tm, int *tn) {
    int64_t best = -1;
    for (int a = 1; a <= threads; a++) {
        if (threads % a) continue;
        const int64_t rows = ceil_div(mt, a) * mr, cols = ceil_div(nt, threads / a) * nr;
        const int64_t cost = rows * cols + GK_GRID_EDGE * (rows + cols);
        /* a rises: on a tie keep the first (fewest row slices) to split n, else the last */
        if (best < 0 || cost < best || (cost == best && !split_n_on_tie))
            best = cost, *tm = a, *tn = threads / a;
    }
}

/* Rows m0..m1 of C against one packed B block (kb x nb at pb) when B is narrow and plain A
 * streams from memory once (e.g. 2000x100x2000): each A micro-panel is packed just before its
 * kernels and stays in L1 while the B panels stream from L2, and during those kernels the
 * source of the next A panel is prefetched, a few columns per kernel call, so its pack finds it
 * in cache. Packing whole A blocks instead waits on memory: their columns are short runs a
 * stride apart that the hardware prefetcher does not follow. One prefetch per column, at the
 * panel's last row: its first row shares a line with the previous panel's last row, or is that
 * line when the run is aligned. (Zen 3, 1 thread: 2000x100x2000 1.10x, 1000x200x1000 1.05x,
 * 4096x64x4096 level; without the prefetch this order is 0.84-0.96x.) */
static void stream_a_block(const gemm_ctx *x, int64_t m0, int64_t m1, int64_t pc, int64_t kb,
                           int64_t jc, int64_t nb, const float *pb, float *pa, float beta) {
    const gk_gemm_args *g = x->g;
    const int mr = x->u->mr, nr = x->u->nr;
    const int64_t npb = ceil_div(nb, nr), per_call = ceil_div(kb, npb);
    for (int64_t i0 = m0; i0 < m1; i0 += mr) {
        const int mv = (int)min64(mr, m1 - i0);
        pack_a(g, x->u, i0, pc, mv, kb, pa);
        const float *next = i0 + mr < m1 ? g->a + i0 + min64(2 * mr, m1 - i0) - 1 + pc * g->lda
                                         : NULL; /* last row of the next panel */
        int64_t p = 0;
        for (int64_t jr = 0; jr < npb; jr++) {
            for (int64_t q = 0; next && q < per_call && p < kb; q++, p++)
                __builtin_prefetch(next + p * g->lda, 0, 2);
            x->u->fn(kb, pa, pb + jr * nr * kb, g->c + i0 + (jc + jr * nr) * g->ldc, 1, g->ldc,
                     g->alpha, beta, mv, (int)min64(nr, nb - jr * nr));
        }
    }
}

/* One tile with a packed A panel; B is a packed panel (ldb == 0) or NR columns in place. */
static inline void run_tile(const gemm_ctx *x, int64_t kb, const float *pa, const float *b,
                            int64_t ldb, float *c, float beta, int mv, int nv) {
    const gk_gemm_args *g = x->g;
    if (ldb)
        x->u->bcols(kb, pa, b, ldb, c, g->ldc, g->alpha, beta, mv);
    else
        x->u->fn(kb, pa, b, c, 1, g->ldc, g->alpha, beta, mv, nv);
}

/* One tile with a full A panel read in place (A(i, p) = a[i + p*lda]); B as in run_tile. */
static inline void run_tile_acols(const gemm_ctx *x, int64_t kb, const float *a, const float *b,
                                  int64_t ldb, float *c, float beta, int nv) {
    const gk_gemm_args *g = x->g;
    if (ldb)
        x->u->abcols(kb, a, g->lda, b, ldb, c, g->ldc, g->alpha, beta);
    else
        x->u->acols(kb, a, g->lda, b, c, g->ldc, g->alpha, beta, nv);
}

/* Thread tid's whole share: the C block of its row slice ti and column slice tj, computed by a
 * sequential five-loop nest with its own packed A and B buffers. A is packed tn times in all
 * and B tm times, the traffic choose_grid weighs, and in exchange no thread ever waits for
 * another: a thread that the OS deschedules delays only its own block (on the shared 2-core dev
 * VM, barrier-synchronised packing ran 3-4x slower than one thread when a core was busy). */
static void gemm_thread(const gemm_ctx *x, int tid, int nth) {
    const gk_gemm_args *g = x->g;
    const int mr = x->u->mr, nr = x->u->nr;
    int tm = x->tm, tn = x->tn;
    if (nth != x->threads) tm = 1, tn = nth; /* nested region gave a smaller team */
    int64_t a0, a1, b0, b1;                  /* this thread's MR and NR panels of all of C */
    gk_split(ceil_div(g->m, mr), tm, tid / tn, &a0, &a1);
    gk_split(ceil_div(g->n, nr), tn, tid % tn, &b0, &b1);
    const int64_t m0 = a0 * mr, m1 = min64(a1 * mr, g->m), n0 = b0 * nr, n1 = min64(b1 * nr, g->n);
    float *pa = x->pa + tid * x->mc * x->kc, *pb = x->pb + tid * x->nc * x->kc;

    for (int64_t jc = n0; jc < n1; jc += x->nc) {
        const int64_t nb = min64(x->nc, n1 - jc), npb = ceil_div(nb, nr);
        for (int64_t pc = 0; pc < g->k; pc += x->kc) {
            const int64_t kb = min64(x->kc, g->k - pc);
            const float beta = pc == 0 ? g->beta : 1.0f; /* later blocks accumulate */
            if (!x->bcols) pack_b(g, x->u, pc, jc, nb, kb, pb);
            if (x->stream_a) {
                stream_a_block(x, m0, m1, pc, kb, jc, nb, pb, pa, beta);
                continue;
            }
            for (int64_t ic = m0; ic < m1; ic += x->mc) {
                const int64_t mb = min64(x->mc, m1 - ic), npa = ceil_div(mb, mr);
                /* Panels read in place are not packed; a partial last one always is, at pa. */
                const int64_t afull = x->acols ? mb / mr : 0;
                if (afull < npa) pack_a(g, x->u, ic + afull * mr, pc, mb - afull * mr, kb, pa);
                for (int64_t jr = 0; jr < npb; jr++) {
                    const int nv = (int)min64(nr, nb - jr * nr);
                    const int64_t j0 = jc + jr * nr;
                    const float *bj = pb + jr * nr * kb;
                    int64_t ldb = 0; /* B panel packed */
                    if (x->bcols && nv == nr) {
                        bj = g->b + pc + j0 * g->ldb, ldb = g->ldb;
                    } else if (x->bcols) { /* the last, partial panel is packed, zero-padded */
                        pack_b(g, x->u, pc, j0, nv, kb, pb);
                        bj = pb;
                    }
                    for (int64_t ir = 0; ir < npa; ir++) {
                        const int64_t i0 = ic + ir * mr;
                        float *cc = g->c + i0 + j0 * g->ldc;
                        const int mv = (int)min64(mr, mb - ir * mr);
                        if (ir < afull)
                            run_tile_acols(x, kb, g->a + i0 + pc * g->lda, bj, ldb, cc, beta, nv);
                        else
                            run_tile(x, kb, pa + (ir - afull) * mr * kb, bj, ldb, cc, beta, mv, nv);
                    }
                }
            }
        }
    }
}

/* The packing buffer of the calling thread, kept between calls and grown to the largest call it
 * made: allocating it per call gave a fresh mapping each time (glibc maps blocks this large),
 * so every call paid page faults in all its threads and an unmap with TLB shootdowns. Each
 * user thread has its own buffer (concurrent calls still share nothing), freed at its exit. */
typedef struct pack_buf {
    float *p;
    int64_t floats;
} pack_buf;
static pthread_key_t buf_key;
static int buf_key_ok; /* written once, under buf_once */
static pthread_once_t buf_once = PTHREAD_ONCE_INIT;

static void buf_free(void *v) {
    pack_buf *b = v;
    free(b->p);
    free(b);
}
static void buf_key_init(void) {
    buf_key_ok = pthread_key_create(&buf_key, buf_free) == 0;
}

/* At least `floats` floats, 64-byte aligned, owned by this thread; NULL when out of memory. */
static float *pack_buffer(int64_t floats) {
    pthread_once(&buf_once, buf_key_init);
    if (!buf_key_ok) return NULL;
    pack_buf *b = pthread_getspecific(buf_key);
    if (!b) {
        if (!(b = calloc(1, sizeof *b))) return NULL;
        if (pthread_setspecific(buf_key, b) != 0) {
            free(b);
            return NULL;
        }
    }
    if (b->floats < floats) {
        free(b->p);
        b->floats = 0;
        size_t bytes = ((size_t)floats * sizeof(float) + 63) & ~(size_t)63;
        if (!(b->p = aligned_alloc(64, bytes))) return NULL;
        b->floats = floats;
    }
    return b->p;
}

gk_status gk_frame_gemm(const gk_gemm_args *g, const gk_ukr_desc *u, gk_blocking blk, int threads) {
    const int mr = u->mr, nr = u->nr;
    gemm_ctx x = {.g = g, .u = u};

    /* Even kc blocks (k = 300 with kc = 256 runs 2 x 152, not 256 + 44), rounded to the unroll. */
    const int64_t kblocks = ceil_div(g->k, blk.kc);
    x.kc = min64(g->k, ceil_div(ceil_div(g->k, kblocks), 4) * 4);
    /* A short k leaves cache unused: widen the row and column blocks to keep the same bytes. */
    x.mc = blk.mc, x.nc = blk.nc;
    if (x.kc < blk.kc) {
        x.mc = min64(x.mc * blk.kc / x.kc / mr * mr, 4 * blk.mc);
        x.nc = min64(x.nc * blk.kc / x.kc / nr * nr, 4 * blk.nc);
    }

    const int64_t mt = ceil_div(g->m, mr), nt = ceil_div(g->n, nr);
    if (threads > mt * nt) threads = (int)(mt * nt);
    const double per_thread = (double)g->m * (double)g->n * (double)g->k / GK_MIN_MNK_PER_THREAD;
    if ((double)threads > per_thread) threads = per_thread < 1.0 ? 1 : (int)per_thread;
    if (threads < 1) threads = 1;
    x.threads = threads;
    /* A's pack is a transpose when A is transposed, B's when B is not (pack_body.h) */
    choose_grid(threads, mt, nt, mr, nr, !g->transb && !g->transa, &x.tm, &x.tn);
    /* Blocks need not be larger than a thread's share. (A nested team smaller than `threads`
     * runs a 1 x nth grid with these blocks: only more of them.) */
    const int64_t rows = ceil_div(mt, x.tm) * mr;
    /* A thread whose rows take at most half of an L2-sized A block has L2 to spare: a B block of
     * about the same bytes then stays in L2 from its packing to its last use, instead of making
     * a round trip through L3 (64x4096x4096, 1 thread on Zen 3: ~50 -> ~58 GFLOPS). */
    if (2 * rows <= x.mc) x.nc = min64(x.nc, x.mc / nr * nr);
    /* Plain B is read in place when a thread's rows fit one row block and are few: each B panel
     * then serves only a few A panels, too few to repay its transposing pack (Zen 3, 1 thread:
     * 32x4096x4096 1.27x, 64x4096x4096 1.08x, 64^3 1.07x, 128^3 1.04x). With more A panels the
     * packed panels win: the columns of a panel in place (up to 12, ldb apart) stay in L1 no
     * longer than the A slivers streaming past them leave room (1024^3 0.93x in place with
     * several row blocks on Zen 3; on the Xeon host, whose AVX-512 mc is 1280 rows, 16 threads
     * with 1024 rows each: 4096^3 0.82x, 2048^3 0.95x against packing; Zen 3's mc of 240 rows
     * stays under the cap, and 160-240 rows measured level there either way). */
    x.bcols = u->bcols && !g->transb && rows <= x.mc && rows <= GK_BCOLS_MAX_ROWS;
    /* Plain A is read in place when a thread's rows fit one row block and the whole stretch of
     * memory its kc columns span (lda apart) takes at most half of L1, the rest being left to B
     * and C: packing would only copy what is cached already. Larger spans are read back from L2
     * once per B panel, and there the packed panel is faster: its lines are contiguous, where a
     * panel in place takes a piece of each of kc columns (Zen 3, 1 thread: 32^3 1.30x, 48^3
     * 1.16x, 64^3 1.11x in place; 32x4096x4096, a span of all of L1, 0.89x; 128^3-192^3 and
     * 64x4096x4096 0.8-0.96x when L2 spans were let in). */
    x.acols = u->acols && (!x.bcols || u->abcols) && !g->transa && rows <= x.mc &&
              (double)x.kc * (double)g->lda * sizeof(float) <=
                  0.5 * (double)gk_cpu_features_get()->l1d_bytes;
    /* A thread with more rows than one block and at most a block's width of columns streams A
     * panel by panel (stream_a_block); wider B is reused enough to amortise whole A blocks. Only
     * for kernels whose A micro-panel column fits one cache line (mr <= 16 floats), which is what
     * the one-line-per-column prefetch covers: with the AVX-512 32x12 kernel on the Xeon host
     * the path ran 0.78x at 4096x64x4096 and 0.92x at 2000x100x2000 (1 thread, three paired
     * runs each, bench/results/xeon-2026-11-22/ab-stream-a.txt). */
    x.stream_a = !g->transa && mr * (int)sizeof(float) <= 64 && rows > x.mc &&
                 ceil_div(nt, x.tn) * nr <= x.mc;
    x.mc = min64(x.mc, rows);
    x.nc = min64(x.nc, ceil_div(nt, x.tn) * nr);

    x.pa = pack_buffer(threads * (x.mc + x.nc) * x.kc);
    if (!x.pa)
        return gk_fail(GK_ERR_OUT_OF_MEMORY,
                       "gk_sgemm: cannot allocate %lld bytes of packing buffers",
                       (long long)(threads * (x.mc + x.nc) * x.kc * (int64_t)sizeof(float)));
    x.pb = x.pa + threads * x.mc * x.kc;
    if (threads == 1) {
        gemm_thread(&x, 0, 1);
    } else {
#pragma omp parallel num_threads(threads)
        gemm_thread(&x, omp_get_thread_num(), omp_get_num_threads());
    }
    return GK_SUCCESS;
}

void gk_frame_scale(const gk_gemm_args *g) {
    const float beta = g->beta;
    if (beta == 1.0f) return;
    for (int64_t j = 0; j < g->n; j++) {
        float *cj = g->c + j * g->ldc;
        if (beta == 0.0f)
            memset(cj, 0, (size_t)g->m * sizeof(float));
        else
            for (int64_t i = 0; i < g->m; i++)
                cj[i] *= beta;
    }
}
