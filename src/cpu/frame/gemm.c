/*
 * gemm.c — the packed GEMM loop nest (Goto/BLIS): jc over nc columns of C, pc over kc of the
 * shared dimension, ic over row blocks, then jr over NR and ir over MR around the micro-kernel.
 * It runs the blocking, thread grid and options that gk_plan_packed (plan.c) chose.
 *
 * Packing (kernels/pack_body.h, built per ISA and reached through the kernel's registry entry)
 * copies op(A) and op(B) into micro-panels in the exact order the kernel reads them, with zero
 * padding past the edges, so transpositions cost the same as the plain case (only the pack loops
 * differ) and the kernel needs no edge logic in its inner loop.
 *
 * Low-precision operands (gk_gemm_ex, frame/gemm_ex.c) run the same nest: a gk_frame_lp says how
 * their blocks are packed (element sizes, k padding, the pack functions) and the kernel is the
 * low-precision one (kernels/lp.h); everything else here is shared with gk_sgemm.
 *
 * Threading (gk_parallel, one step per call): C is split over the plan's tm x tn grid of blocks,
 * one per thread, and each block into the plan's column chunks. A chunk is run by one thread
 * through the whole loop nest with that thread's own packed A and B: no shared buffers and no
 * barriers. Each thread takes its own block's chunks in order, then any chunks other threads
 * have not started (gemm_thread). A C with fewer tiles than threads is split over k instead: the
 * threads take ranges of k, each computing all of C into its own buffer, summed in a fixed order
 * after the step (run_k_range, sum_k_ranges). The packing buffer belongs to the calling thread
 * (kept between its calls): concurrent calls share nothing.
 */
#include "cpu/frame/frame.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/parallel.h"

typedef struct gemm_ctx {
    const gk_gemm_args *g;
    const gk_ukr_desc *u;
    gk_packed_plan pk;                     /* blocking, grid and options (plan.h) */
    int threads;                           /* the team size the grid was planned for */
    const gk_frame_lp *lp;                 /* NULL: float32 operands packed by u->pack */
    int esize, psize;                      /* bytes of a stored and of a packed element */
    int64_t kgrain;                        /* packed k blocks are padded to a multiple of this */
    int64_t pa_bytes, pb_bytes, tmp_bytes; /* per thread */
    char *buf;
    /* Per block: how many of its chunks have been taken, one cache line each (buf's tail); with
     * a k split, block 0's counts the k ranges taken. */
    _Atomic int64_t *taken;
    float *partial; /* k split: range p's m x n product at partial + p m n (column-major, ld m) */
} gemm_ctx;

enum { TAKEN_STRIDE = 64 / sizeof(int64_t) }; /* one block's counter per cache line */

/* k of a packed block of kb steps, and the packed panel q of w lanes in a block at p. */
static inline int64_t kpad(const gemm_ctx *x, int64_t kb) {
    return gk_ceil_div64(kb, x->kgrain) * x->kgrain;
}
static inline void *panel(const gemm_ctx *x, void *p, int64_t q, int w, int64_t kb) {
    return (char *)p + q * w * kpad(x, kb) * x->psize;
}
/* The stored element `off` elements past base, for the call's element size. */
static inline const char *elem(const gemm_ctx *x, const void *base, int64_t off) {
    return (const char *)base + off * x->esize;
}

/* One block into panels of w lanes: the kernel family's float32 pack, or the low-precision one. */
static void pack_block(const gemm_ctx *x, int is_b, void *dst, int w, int64_t lanes, int64_t kb,
                       const void *src, int64_t ls, int64_t ps, void *tmp) {
    if (x->lp)
        x->lp->pack(x->lp, is_b, dst, w, lanes, kb, kpad(x, kb), src, ls, ps,
                    gk_ceil_div64(lanes, w), tmp);
    else
        x->u->pack(dst, w, lanes, kb, src, ls, ps, gk_ceil_div64(lanes, w));
}

/* The packed A block whose top-left element is op(A)(ic, pc): mb x kb values,
 * panel q holds rows ic + q*mr .. + mr, stored pa[q*mr*kb + p*mr + i] (float32; lp.h gives the
 * low-precision layouts). Plain A is stored m x k (rows contiguous in a column), transposed A
 * k x m. */
static void pack_a(const gemm_ctx *x, int64_t ic, int64_t pc, int64_t mb, int64_t kb, void *pa,
                   void *tmp) {
    const gk_gemm_args *g = x->g;
    const int64_t ls = g->transa ? g->lda : 1, ps = g->transa ? 1 : g->lda;
    pack_block(x, 0, pa, x->u->mr, mb, kb, elem(x, g->a, ic * ls + pc * ps), ls, ps, tmp);
}

/* The packed B block whose top-left element is op(B)(pc, jc): kb x nb values,
 * panel q holds columns jc + q*nr .. + nr, stored pb[q*nr*kb + p*nr + j]. Plain B is stored
 * k x n, transposed B n x k (columns of op(B) contiguous in a stored column). */
static void pack_b(const gemm_ctx *x, int64_t pc, int64_t jc, int64_t nb, int64_t kb, void *pb,
                   void *tmp) {
    const gk_gemm_args *g = x->g;
    const int64_t ls = g->transb ? 1 : g->ldb, ps = g->transb ? g->ldb : 1;
    pack_block(x, 1, pb, x->u->nr, nb, kb, elem(x, g->b, jc * ls + pc * ps), ls, ps, tmp);
}

/* Rows m0..m1 of C against one packed B block (kb x nb at pb) when B is narrow and plain A
 * streams from memory once (e.g. 2000x100x2000): each A micro-panel is packed just before its
 * kernels and stays in L1 while the B panels stream from L2, and during those kernels the
 * source of the next A panel is prefetched, a few columns per kernel call, so its pack finds it
 * in cache. Packing whole A blocks instead waits on memory: their columns are short runs a
 * stride apart that the hardware prefetcher does not follow. One prefetch per column, at the
 * panel's last row: its first row shares a line with the previous panel's last row, or is that
 * line when the run is aligned. Without the prefetch this order loses to whole blocks
 * (docs/cpu.md, "Loop nest and packing"). */
static void stream_a_block(const gemm_ctx *x, int64_t m0, int64_t m1, int64_t pc, int64_t kb,
                           int64_t jc, int64_t nb, void *pb, void *pa, void *tmp, float beta) {
    const gk_gemm_args *g = x->g;
    const int mr = x->u->mr, nr = x->u->nr;
    const int64_t npb = gk_ceil_div64(nb, nr), per_call = gk_ceil_div64(kb, npb);
    for (int64_t i0 = m0; i0 < m1; i0 += mr) {
        const int mv = (int)gk_min64(mr, m1 - i0);
        pack_a(x, i0, pc, mv, kb, pa, tmp);
        const char *next = i0 + mr < m1
                               ? elem(x, g->a, i0 + gk_min64(2 * mr, m1 - i0) - 1 + pc * g->lda)
                               : NULL; /* last row of the next panel */
        int64_t p = 0;
        for (int64_t jr = 0; jr < npb; jr++) {
            for (int64_t q = 0; next && q < per_call && p < kb; q++, p++)
                __builtin_prefetch(next + p * g->lda * x->esize, 0, 2);
            x->u->fn(kpad(x, kb), pa, panel(x, pb, jr, nr, kb), g->c + i0 + (jc + jr * nr) * g->ldc,
                     1, g->ldc, g->alpha, beta, mv, (int)gk_min64(nr, nb - jr * nr));
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
        x->u->fn(kpad(x, kb), pa, b, c, 1, g->ldc, g->alpha, beta, mv, nv);
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

/* Rows m0..m1 and columns n0..n1 of C, by a sequential five-loop nest with the packed A and B
 * buffers pa and pb. A is packed once per column chunk and B once per block row, the traffic
 * choose_grid and the chunk width weigh; every element of C gets its k blocks in the same order
 * whoever runs it, so splitting C changes no result, whatever the thread count or timing. */
static void run_block(const gemm_ctx *x, int64_t m0, int64_t m1, int64_t n0, int64_t n1, char *pa,
                      char *pb, void *tmp) {
    const gk_gemm_args *g = x->g;
    const gk_packed_plan *pk = &x->pk;
    const int mr = x->u->mr, nr = x->u->nr;
    for (int64_t jc = n0; jc < n1; jc += pk->nc) {
        const int64_t nb = gk_min64(pk->nc, n1 - jc), npb = gk_ceil_div64(nb, nr);
        for (int64_t pc = 0; pc < g->k; pc += pk->kc) {
            const int64_t kb = gk_min64(pk->kc, g->k - pc);
            const float beta = pc == 0 ? g->beta : 1.0f; /* later blocks accumulate */
            if (!pk->bcols) pack_b(x, pc, jc, nb, kb, pb, tmp);
            if (pk->stream_a) {
                stream_a_block(x, m0, m1, pc, kb, jc, nb, pb, pa, tmp, beta);
                continue;
            }
            for (int64_t ic = m0; ic < m1; ic += pk->mc) {
                const int64_t mb = gk_min64(pk->mc, m1 - ic), npa = gk_ceil_div64(mb, mr);
                /* Panels read in place are not packed; a partial last one always is, at pa. */
                const int64_t afull = pk->acols ? mb / mr : 0;
                if (afull < npa) pack_a(x, ic + afull * mr, pc, mb - afull * mr, kb, pa, tmp);
                for (int64_t jr = 0; jr < npb; jr++) {
                    const int nv = (int)gk_min64(nr, nb - jr * nr);
                    const int64_t j0 = jc + jr * nr;
                    const float *bj = panel(x, pb, jr, nr, kb);
                    int64_t ldb = 0; /* B panel packed */
                    if (pk->bcols && nv == nr) {
                        bj = g->b + pc + j0 * g->ldb, ldb = g->ldb;
                    } else if (pk->bcols) { /* the last, partial panel is packed, zero-padded */
                        pack_b(x, pc, j0, nv, kb, pb, tmp);
                        bj = (const float *)pb;
                    }
                    for (int64_t ir = 0; ir < npa; ir++) {
                        const int64_t i0 = ic + ir * mr;
                        float *cc = g->c + i0 + j0 * g->ldc;
                        const int mv = (int)gk_min64(mr, mb - ir * mr);
                        if (ir < afull)
                            run_tile_acols(x, kb, g->a + i0 + pc * g->lda, bj, ldb, cc, beta, nv);
                        else
                            run_tile(x, kb, panel(x, pa, ir - afull, mr, kb), bj, ldb, cc, beta, mv,
                                     nv);
                    }
                }
            }
        }
    }
}

/* k range p of x->pk.ksplit (whole kc blocks, split evenly): alpha op(A) op(B) over it into
 * partial buffer p, with beta 0 (the buffer is not read). */
static void run_k_range(const gemm_ctx *x, int p, char *pa, char *pb, void *tmp) {
    const gk_gemm_args *g = x->g;
    int64_t q0, q1;
    gk_split(gk_ceil_div64(g->k, x->pk.kc), x->pk.ksplit, p, &q0, &q1);
    const int64_t k0 = q0 * x->pk.kc, k1 = gk_min64(q1 * x->pk.kc, g->k);
    gk_gemm_args r = *g;
    r.k = k1 - k0;
    r.a = g->a + (g->transa ? k0 : k0 * g->lda); /* plain A is m x k, transposed k x m */
    r.b = g->b + (g->transb ? k0 * g->ldb : k0);
    r.c = x->partial + (int64_t)p * g->m * g->n, r.ldc = g->m, r.beta = 0.0f;
    gemm_ctx y = *x;
    y.g = &r;
    if (r.k > 0) run_block(&y, 0, g->m, 0, g->n, pa, pb, tmp);
}

/* C = beta C + the sum of the k ranges' products, in a fixed pairwise order (range p + s into p
 * for s = 1, 2, 4, ...), so the bits depend on the number of ranges and never on timing. beta 0
 * does not read C. */
static void sum_k_ranges(const gemm_ctx *x) {
    const gk_gemm_args *g = x->g;
    const int64_t mn = g->m * g->n;
    for (int s = 1; s < x->pk.ksplit; s *= 2)
        for (int p = 0; p + s < x->pk.ksplit; p += 2 * s) {
            float *dst = x->partial + p * mn;
            const float *src = x->partial + (p + s) * mn;
            for (int64_t i = 0; i < mn; i++)
                dst[i] += src[i];
        }
    for (int64_t j = 0; j < g->n; j++) {
        float *c = g->c + j * g->ldc;
        const float *sum = x->partial + j * g->m;
        if (g->beta == 0.0f)
            memcpy(c, sum, (size_t)g->m * sizeof *c);
        else
            for (int64_t i = 0; i < g->m; i++)
                c[i] = sum[i] + g->beta * c[i];
    }
}

/* Thread tid's share: the chunks of its own block (row slice ti, column slice tj of the grid),
 * then, when those are done, chunks of the other blocks that no thread has taken yet. A thread
 * the OS deschedules so delays only the chunk it is in (with shared, barrier-synchronised
 * packing a busy core held every thread back: docs/cpu.md, "Threads"). */
static void gemm_thread(void *ctx, int tid, int nth) {
    const gemm_ctx *x = ctx;
    const gk_gemm_args *g = x->g;
    const int mr = x->u->mr, nr = x->u->nr, chunks = x->pk.chunks;
    int tm = x->pk.tm, tn = x->pk.tn;
    /* fewer threads granted than planned (gk_parallel): a 1 x nth grid, same blocks */
    if (nth != x->threads) tm = 1, tn = nth;
    char *pa = x->buf + tid * (x->pa_bytes + x->pb_bytes + x->tmp_bytes), *pb = pa + x->pa_bytes;
    void *tmp = pb + x->pb_bytes;
    if (x->lp && x->lp->thread_begin) x->lp->thread_begin();
    /* k split: the ranges, taken in turn by whichever thread is free */
    for (int64_t p;
         x->pk.ksplit > 1 &&
         (p = atomic_fetch_add_explicit(&x->taken[0], 1, memory_order_relaxed)) < x->pk.ksplit;)
        run_k_range(x, (int)p, pa, pb, tmp);
    for (int v = 0; v < nth && x->pk.ksplit == 1; v++) {
        const int blk = (tid + v) % nth;
        int64_t a0, a1, b0, b1; /* the block's MR and NR panels of all of C */
        gk_split(gk_ceil_div64(g->m, mr), tm, blk / tn, &a0, &a1);
        gk_split(gk_ceil_div64(g->n, nr), tn, blk % tn, &b0, &b1);
        for (;;) {
            const int64_t s =
                atomic_fetch_add_explicit(&x->taken[blk * TAKEN_STRIDE], 1, memory_order_relaxed);
            if (s >= chunks) break;
            int64_t c0, c1; /* the chunk's NR panels */
            gk_split(b1 - b0, chunks, (int)s, &c0, &c1);
            run_block(x, a0 * mr, gk_min64(a1 * mr, g->m), (b0 + c0) * nr,
                      gk_min64((b0 + c1) * nr, g->n), pa, pb, tmp);
        }
    }
    if (x->lp && x->lp->thread_end) x->lp->thread_end();
}

/* The packing buffer of the calling thread, kept between calls and grown to the largest call it
 * made: allocating it per call gave a fresh mapping each time (glibc maps blocks this large),
 * so every call paid page faults in all its threads and an unmap with TLB shootdowns. Each
 * user thread has its own buffer (concurrent calls still share nothing), freed at its exit.
 * A process that had no thread key left for it when the first packed call came gets a buffer
 * per call instead: slower, but no call fails for it. */
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

/* At least `floats` floats, 64-byte aligned, owned by this thread, or without a thread key a
 * buffer of this call's own, also stored in *own for the caller to free; NULL when out of
 * memory. */
static float *pack_buffer(int64_t floats, float **own) {
    pthread_once(&buf_once, buf_key_init);
    const size_t bytes = ((size_t)floats * sizeof(float) + 63) & ~(size_t)63;
    if (!buf_key_ok) return *own = aligned_alloc(64, bytes);
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
        if (!(b->p = aligned_alloc(64, bytes))) return NULL;
        b->floats = floats;
    }
    return b->p;
}

static int64_t round64(int64_t bytes) {
    return (bytes + 63) & ~(int64_t)63;
}

gk_status gk_frame_gemm_lp(const gk_gemm_args *g, const gk_ukr_desc *u, const gk_frame_lp *lp,
                           const gk_packed_plan *pk, int threads) {
    gemm_ctx x = {.g = g, .u = u, .pk = *pk, .threads = threads, .lp = lp};
    /* A low-precision C has no float32 partial sums to add: its threads take columns of C. */
    if (lp && x.pk.ksplit > 1) x.pk.ksplit = 1, x.pk.tm = 1, x.pk.tn = threads;
    x.esize = lp ? lp->esize : 4, x.psize = lp ? lp->psize : 4, x.kgrain = lp ? lp->kgrain : 1;
    /* each thread's A block, B block and pack scratch, each 64-byte aligned */
    x.pa_bytes = round64(pk->mc * kpad(&x, pk->kc) * x.psize);
    x.pb_bytes = round64(pk->nc * kpad(&x, pk->kc) * x.psize);
    x.tmp_bytes = lp ? round64(lp->tmp_floats * 4) : 0;
    const int64_t pack_bytes = threads * (x.pa_bytes + x.pb_bytes + x.tmp_bytes);
    const int64_t partial_floats = x.pk.ksplit > 1 ? x.pk.ksplit * g->m * g->n : 0;
    const int64_t floats = (pack_bytes + threads * 64) / 4 + partial_floats;
    float *own = NULL;
    x.buf = (char *)pack_buffer(floats, &own);
    if (!x.buf)
        return gk_fail(GK_ERR_OUT_OF_MEMORY, "%s: cannot allocate %lld bytes of packing buffers",
                       lp ? "gk_gemm_ex" : "gk_sgemm",
                       (long long)(floats * (int64_t)sizeof(float)));
    x.taken = (_Atomic int64_t *)(x.buf + pack_bytes);
    for (int t = 0; t < threads; t++)
        atomic_init(&x.taken[t * TAKEN_STRIDE], 0);
    x.partial = (float *)(x.buf + pack_bytes + threads * 64);
    gk_parallel(threads, gemm_thread, &x);
    if (x.pk.ksplit > 1) sum_k_ranges(&x);
    free(own);
    return GK_SUCCESS;
}

gk_status gk_frame_gemm(const gk_gemm_args *g, const gk_ukr_desc *u, const gk_packed_plan *pk,
                        int threads) {
    return gk_frame_gemm_lp(g, u, NULL, pk, threads);
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
