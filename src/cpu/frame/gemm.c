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
 * Threading (gk_parallel, one step per call): C is split over the plan's tm x tn grid of threads
 * and each thread runs the whole loop nest on its own block of C with its own packed A and B: no
 * shared buffers and no barriers. The packing buffer belongs to the calling thread (kept between
 * its calls): concurrent calls share nothing.
 */
#include "cpu/frame/frame.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/parallel.h"

typedef struct gemm_ctx {
    const gk_gemm_args *g;
    const gk_ukr_desc *u;
    gk_packed_plan pk; /* blocking, grid and options (plan.h) */
    int threads;       /* the team size the grid was planned for */
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
 * another: a thread that the OS deschedules delays only its own block (with shared,
 * barrier-synchronised packing a busy core held every thread back: docs/cpu.md, "Threads"). */
static void gemm_thread(void *ctx, int tid, int nth) {
    const gemm_ctx *x = ctx;
    const gk_gemm_args *g = x->g;
    const gk_packed_plan *pk = &x->pk;
    const int mr = x->u->mr, nr = x->u->nr;
    int tm = pk->tm, tn = pk->tn;
    /* fewer threads granted than planned (gk_parallel): a 1 x nth grid, same blocks */
    if (nth != x->threads) tm = 1, tn = nth;
    int64_t a0, a1, b0, b1; /* this thread's MR and NR panels of all of C */
    gk_split(ceil_div(g->m, mr), tm, tid / tn, &a0, &a1);
    gk_split(ceil_div(g->n, nr), tn, tid % tn, &b0, &b1);
    const int64_t m0 = a0 * mr, m1 = min64(a1 * mr, g->m), n0 = b0 * nr, n1 = min64(b1 * nr, g->n);
    float *pa = x->pa + tid * pk->mc * pk->kc, *pb = x->pb + tid * pk->nc * pk->kc;

    for (int64_t jc = n0; jc < n1; jc += pk->nc) {
        const int64_t nb = min64(pk->nc, n1 - jc), npb = ceil_div(nb, nr);
        for (int64_t pc = 0; pc < g->k; pc += pk->kc) {
            const int64_t kb = min64(pk->kc, g->k - pc);
            const float beta = pc == 0 ? g->beta : 1.0f; /* later blocks accumulate */
            if (!pk->bcols) pack_b(g, x->u, pc, jc, nb, kb, pb);
            if (pk->stream_a) {
                stream_a_block(x, m0, m1, pc, kb, jc, nb, pb, pa, beta);
                continue;
            }
            for (int64_t ic = m0; ic < m1; ic += pk->mc) {
                const int64_t mb = min64(pk->mc, m1 - ic), npa = ceil_div(mb, mr);
                /* Panels read in place are not packed; a partial last one always is, at pa. */
                const int64_t afull = pk->acols ? mb / mr : 0;
                if (afull < npa) pack_a(g, x->u, ic + afull * mr, pc, mb - afull * mr, kb, pa);
                for (int64_t jr = 0; jr < npb; jr++) {
                    const int nv = (int)min64(nr, nb - jr * nr);
                    const int64_t j0 = jc + jr * nr;
                    const float *bj = pb + jr * nr * kb;
                    int64_t ldb = 0; /* B panel packed */
                    if (pk->bcols && nv == nr) {
                        bj = g->b + pc + j0 * g->ldb, ldb = g->ldb;
                    } else if (pk->bcols) { /* the last, partial panel is packed, zero-padded */
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

gk_status gk_frame_gemm(const gk_gemm_args *g, const gk_ukr_desc *u, const gk_packed_plan *pk,
                        int threads) {
    gemm_ctx x = {.g = g, .u = u, .pk = *pk, .threads = threads};
    const int64_t floats = threads * (pk->mc + pk->nc) * pk->kc;
    float *own = NULL;
    x.pa = pack_buffer(floats, &own);
    if (!x.pa)
        return gk_fail(GK_ERR_OUT_OF_MEMORY,
                       "gk_sgemm: cannot allocate %lld bytes of packing buffers",
                       (long long)(floats * (int64_t)sizeof(float)));
    x.pb = x.pa + threads * pk->mc * pk->kc;
    gk_parallel(threads, gemm_thread, &x);
    free(own);
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
