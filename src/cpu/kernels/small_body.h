/*
 * small_body.h — the unpacked small-matrix GEMM, written once and compiled per ISA
 * (small_generic.c, small_avx2.c, small_avx512.c) by defining GK_SMALL_NAME and GK_SMALL_PACK
 * before including it; simd.h supplies that ISA's vectors. It runs the form the planner chose
 * (gk_small_form, ukernel.h; frame/plan.h says when each is taken):
 *
 * Register tiles (tiny calls). C is cut into tiles of up to two vectors by GK_VNB columns, each
 * accumulated in registers over all of k and written once: one pass over C, no packing. A is
 * read in place (plain A; the bottom tile's loads are masked) or from a zero-padded packed copy
 * of op(A) on the stack (transposed A, whose columns are strided); B's elements are broadcast from
 * where they are, in either layout.
 *
 * Vectors (GEMV-like calls, where a register tile would be mostly empty). C is scaled by beta,
 * then alpha * op(B)(:,j) is copied in chunks to a contiguous buffer and applied, two columns of
 * C at a time, as axpys over the columns of A (plain A) or as dot products with the rows of op(A)
 * (transposed A), so every access in the inner loops is unit-stride. The swapped forms run the
 * same on C^T = op(B)^T op(A)^T. These calls can be large; frame/small.c splits their rows
 * (swapped: columns) over threads.
 */
#include <stdint.h>

/* The lane copies of a masked tile edge are a few floats long: no memcpy/memset calls for them. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-loop-distribute-patterns")
#endif

#include "core/internal.h"
#include "cpu/kernels/kernels.h"
#include "cpu/kernels/simd.h"

#define GK_SMALL_CHUNK 256
#define GK_SMALL_DOT_CHUNK 2048

_Static_assert(2 * GK_VW <= GK_SMALL_ROW_ALIGN,
               "op(A) copies are padded to GK_SMALL_ROW_ALIGN rows");

/* One tile of C at c, nb columns by `rows` rows, all of k. A(i, p) = a[i + p * lda];
 * B(p, j) = b[j + p * ldb] when tb, else b[p + j * ldb]. mv, nb and tb are constants in each
 * instance (see the table below), so the accumulators are registers.
 *   mv == 2 (GK_VW < rows <= 2 GK_VW): two vectors, rows 0.. and rows - GK_VW.., which overlap
 *     unless rows == 2 GK_VW. The rows they share get the same value twice: both vectors multiply
 *     the same elements in the same order, and C is read before either is stored. Unmasked, so
 *     no register holds a mask (AVX2 has none to spare beside 12 accumulators).
 *   mv == 1 (rows <= GK_VW): one vector, masked to `rows`. */
static inline __attribute__((always_inline)) void
small_tile(int mv, int nb, int tb, int64_t k, const float *a, int64_t lda, const float *b,
           int64_t ldb, float *c, int64_t ldc, float alpha, float beta, int rows) {
    const int64_t off1 = rows - GK_VW;
    const gk_vmask last = gk_vmask_first(mv == 1 ? rows : GK_VW);
    gk_v acc[2][GK_VNB];
#pragma GCC unroll 16
    for (int j = 0; j < nb; j++)
        acc[0][j] = acc[1][j] = gk_v_zero();
    for (int64_t p = 0; p < k; p++) {
        const float *ap = a + p * lda;
        const gk_v a0 = mv == 2 ? gk_v_load(ap) : gk_v_loadm(ap, last);
        const gk_v a1 = mv == 2 ? gk_v_load(ap + off1) : a0;
#pragma GCC unroll 16
        for (int j = 0; j < nb; j++) {
            const gk_v bj = gk_v_set1(tb ? b[j + p * ldb] : b[p + j * ldb]);
            acc[0][j] = gk_v_fma(a0, bj, acc[0][j]);
            if (mv == 2) acc[1][j] = gk_v_fma(a1, bj, acc[1][j]);
        }
    }
    /* All of the tile's C is read before any of it is written: in a short matrix the next
     * column's load would otherwise overlap the bytes of this column's (masked) store and wait
     * for it to retire instead of forwarding. */
    const gk_v va = gk_v_set1(alpha), vb = gk_v_set1(beta);
#pragma GCC unroll 16
    for (int j = 0; j < nb; j++) {
        const float *cj = c + j * ldc;
        acc[0][j] = gk_v_mul(va, acc[0][j]);
        if (mv == 2) acc[1][j] = gk_v_mul(va, acc[1][j]);
        if (beta == 0.0f) continue;
        acc[0][j] = gk_v_fma(vb, mv == 2 ? gk_v_load(cj) : gk_v_loadm(cj, last), acc[0][j]);
        if (mv == 2) acc[1][j] = gk_v_fma(vb, gk_v_load(cj + off1), acc[1][j]);
    }
#pragma GCC unroll 16
    for (int j = 0; j < nb; j++) {
        float *cj = c + j * ldc;
        if (mv == 2) {
            gk_v_store(cj, acc[0][j]);
            gk_v_store(cj + off1, acc[1][j]);
        } else {
            gk_v_storem(cj, acc[0][j], last);
        }
    }
}

typedef void (*small_tile_fn)(int64_t k, const float *a, int64_t lda, const float *b, int64_t ldb,
                              float *c, int64_t ldc, float alpha, float beta, int rows);

#define GK_SMALL_TILE_DEF(MV, NB, TB)                                                              \
    static void small_tile_##MV##_##NB##_##TB(int64_t k, const float *a, int64_t lda,              \
                                              const float *b, int64_t ldb, float *c, int64_t ldc,  \
                                              float alpha, float beta, int rows) {                 \
        small_tile(MV, NB, TB, k, a, lda, b, ldb, c, ldc, alpha, beta, rows);                      \
    }
#define GK_SMALL_TILE_REF(MV, NB, TB) small_tile_##MV##_##NB##_##TB,

/* X(MV, nb, TB) for nb = 1 .. GK_VNB (4, 6 or 12) */
#define GK_NB_4(X, MV, TB) X(MV, 1, TB) X(MV, 2, TB) X(MV, 3, TB) X(MV, 4, TB)
#define GK_NB_6(X, MV, TB) GK_NB_4(X, MV, TB) X(MV, 5, TB) X(MV, 6, TB)
#define GK_NB_12(X, MV, TB)                                                                        \
    GK_NB_6(X, MV, TB)                                                                             \
    X(MV, 7, TB) X(MV, 8, TB) X(MV, 9, TB) X(MV, 10, TB) X(MV, 11, TB) X(MV, 12, TB)
#define GK_NB_CAT(n) GK_NB_##n
#define GK_NB_LIST(n) GK_NB_CAT(n)
#define GK_NB_ALL(X, MV, TB) GK_NB_LIST(GK_VNB)(X, MV, TB)

GK_NB_ALL(GK_SMALL_TILE_DEF, 1, 0)
GK_NB_ALL(GK_SMALL_TILE_DEF, 2, 0)
GK_NB_ALL(GK_SMALL_TILE_DEF, 1, 1)
GK_NB_ALL(GK_SMALL_TILE_DEF, 2, 1)

/* [tb][mv - 1][nb - 1] */
static const small_tile_fn small_tiles[2][2][GK_VNB] = {
    {{GK_NB_ALL(GK_SMALL_TILE_REF, 1, 0)}, {GK_NB_ALL(GK_SMALL_TILE_REF, 2, 0)}},
    {{GK_NB_ALL(GK_SMALL_TILE_REF, 1, 1)}, {GK_NB_ALL(GK_SMALL_TILE_REF, 2, 1)}},
};

static void small_by_tiles(const gk_gemm_args *g) {
    const int64_t m = g->m, n = g->n, k = g->k;
    /* Transposed A is packed into panels of 2 GK_VW rows, with the block packing of this ISA
     * (its in-register transposes): row tile q then reads abuf + q * 2 GK_VW * k. Copied element
     * by element instead, the tiles lost to the packed path on transposed A. */
    float abuf[GK_SMALL_ABUF];
    const int64_t npan = gk_ceil_div64(m, 2 * GK_VW); /* npan * 2 GK_VW * k <= GK_SMALL_ABUF */
    if (g->transa) GK_SMALL_PACK(abuf, 2 * GK_VW, m, k, g->a, g->lda, 1, npan);
    for (int64_t j0 = 0; j0 < n; j0 += GK_VNB) {
        const int nb = (int)(n - j0 < GK_VNB ? n - j0 : GK_VNB);
        const float *b = g->transb ? g->b + j0 : g->b + j0 * g->ldb;
        for (int64_t i0 = 0; i0 < m; i0 += 2 * GK_VW) {
            const int rows = (int)(m - i0 < 2 * GK_VW ? m - i0 : 2 * GK_VW);
            const int mv = rows > GK_VW ? 2 : 1;
            const float *a = g->transa ? abuf + i0 * k : g->a + i0;
            small_tiles[g->transb][mv - 1][nb - 1](k, a, g->transa ? 2 * GK_VW : g->lda, b, g->ldb,
                                                   g->c + i0 + j0 * g->ldc, g->ldc, g->alpha,
                                                   g->beta, rows);
        }
    }
}

/* C = beta * C for the vector forms, C(i, j) at c[i * rsc + j * ldc]; beta == 0 writes zeros
 * without reading C. */
static void small_scale_c(const gk_gemm_args *g, int64_t rsc) {
    for (int64_t j = 0; j < g->n; j++) {
        float *restrict cj = g->c + j * g->ldc;
        if (rsc == 1 && g->beta == 0.0f)
            for (int64_t i = 0; i < g->m; i++)
                cj[i] = 0.0f;
        else if (rsc == 1 && g->beta != 1.0f)
            for (int64_t i = 0; i < g->m; i++)
                cj[i] *= g->beta;
        else if (g->beta == 0.0f)
            for (int64_t i = 0; i < g->m; i++)
                cj[i * rsc] = 0.0f;
        else if (g->beta != 1.0f)
            for (int64_t i = 0; i < g->m; i++)
                cj[i * rsc] *= g->beta;
    }
}

/* alpha * op(B)(p0 .. p0 + pl, j) into a contiguous buffer */
static inline void small_copy_bcol(const gk_gemm_args *g, int64_t j, int64_t p0, int64_t pl,
                                   float *restrict bt) {
    if (g->transb)
        for (int64_t p = 0; p < pl; p++)
            bt[p] = g->alpha * g->b[j + (p0 + p) * g->ldb];
    else
        for (int64_t p = 0; p < pl; p++)
            bt[p] = g->alpha * g->b[p0 + p + j * g->ldb];
}

/* d[c] = sum over p < pl of ar[p] * b_c[p] for the nb (1 or 2, a constant in each use) columns
 * b0, b1: each element of ar is loaded once for both, into two vector accumulators per column
 * (two FMA chains in flight per column). */
static inline __attribute__((always_inline)) void
small_dot(int nb, const float *ar, const float *b0, const float *b1, int64_t pl, float d[2]) {
    gk_v x0 = gk_v_zero(), y0 = gk_v_zero(), x1 = gk_v_zero(), y1 = gk_v_zero();
    int64_t p = 0;
    for (; p + 2 * GK_VW <= pl; p += 2 * GK_VW) {
        const gk_v a = gk_v_load(ar + p), a2 = gk_v_load(ar + p + GK_VW);
        x0 = gk_v_fma(a, gk_v_load(b0 + p), x0);
        y0 = gk_v_fma(a2, gk_v_load(b0 + p + GK_VW), y0);
        if (nb == 2) {
            x1 = gk_v_fma(a, gk_v_load(b1 + p), x1);
            y1 = gk_v_fma(a2, gk_v_load(b1 + p + GK_VW), y1);
        }
    }
    if (p + GK_VW <= pl) {
        const gk_v a = gk_v_load(ar + p);
        x0 = gk_v_fma(a, gk_v_load(b0 + p), x0);
        if (nb == 2) x1 = gk_v_fma(a, gk_v_load(b1 + p), x1);
        p += GK_VW;
    }
    float t0 = 0.0f, t1 = 0.0f;
    for (; p < pl; p++) {
        t0 += ar[p] * b0[p];
        if (nb == 2) t1 += ar[p] * b1[p];
    }
    /* one horizontal sum per column, and none for a row too short for a vector */
    const int vec = pl >= GK_VW;
    d[0] = vec ? t0 + gk_v_hsum(gk_v_add(x0, y0)) : t0;
    if (nb == 2) d[1] = vec ? t1 + gk_v_hsum(gk_v_add(x1, y1)) : t1;
}

/* c_c[i] += sum over p < pl of a[i + p * lda] * b_c[p] for the nb (1 or 2, a constant in each
 * use) columns: four columns of A per pass over C, so C is loaded and stored once per four
 * multiply-adds instead of each, and for two columns each element of A is loaded once for both. */
static inline __attribute__((always_inline)) void
small_axpys(int nb, int64_t m, int64_t pl, const float *a, int64_t lda, const float *b0,
            const float *b1, float *restrict c0, float *restrict c1) {
    int64_t p = 0;
    for (; p + 4 <= pl; p += 4) {
        const float *restrict a0 = a + p * lda, *restrict a1 = a0 + lda, *restrict a2 = a1 + lda,
                              *restrict a3 = a2 + lda;
        const float u0 = b0[p], u1 = b0[p + 1], u2 = b0[p + 2], u3 = b0[p + 3];
        const float v0 = nb == 2 ? b1[p] : 0.0f, v1 = nb == 2 ? b1[p + 1] : 0.0f,
                    v2 = nb == 2 ? b1[p + 2] : 0.0f, v3 = nb == 2 ? b1[p + 3] : 0.0f;
        for (int64_t i = 0; i < m; i++) {
            c0[i] = (((c0[i] + a0[i] * u0) + a1[i] * u1) + a2[i] * u2) + a3[i] * u3;
            if (nb == 2) c1[i] = (((c1[i] + a0[i] * v0) + a1[i] * v1) + a2[i] * v2) + a3[i] * v3;
        }
    }
    for (; p < pl; p++) {
        const float *restrict ap = a + p * lda;
        for (int64_t i = 0; i < m; i++) {
            c0[i] += ap[i] * b0[p];
            if (nb == 2) c1[i] += ap[i] * b1[p];
        }
    }
}

/* Plain A: per pair of columns of C, axpys of alpha * op(B)(p, j) times column p of A, in chunks
 * of k. C's columns must be contiguous. */
static void small_by_axpys(const gk_gemm_args *g) {
    float bt[2][GK_SMALL_CHUNK];
    for (int64_t j0 = 0; j0 < g->n; j0 += 2) {
        const int two = j0 + 1 < g->n;
        for (int64_t p0 = 0; p0 < g->k; p0 += GK_SMALL_CHUNK) {
            const int64_t pl = g->k - p0 < GK_SMALL_CHUNK ? g->k - p0 : GK_SMALL_CHUNK;
            const float *a = g->a + p0 * g->lda;
            float *c0 = g->c + j0 * g->ldc;
            small_copy_bcol(g, j0, p0, pl, bt[0]);
            if (two) {
                small_copy_bcol(g, j0 + 1, p0, pl, bt[1]);
                small_axpys(2, g->m, pl, a, g->lda, bt[0], bt[1], c0, c0 + g->ldc);
            } else {
                small_axpys(1, g->m, pl, a, g->lda, bt[0], bt[1], c0, NULL);
            }
        }
    }
}

/* Transposed A: dot products of the rows of op(A) (stored columns, contiguous) with columns of
 * op(B), two columns of C at a time so that each row of op(A) is read once for both, in chunks
 * of k long enough that a large op(A) is read down whole stored columns (short chunks read a
 * piece of each long column per pass and lost to the packed path). C(i, j) is at
 * c[i * rsc + j * ldc]. Not inlined into small_by_vectors: with the axpys beside it, tiny
 * transposed calls ran slower. */
static __attribute__((noinline)) void small_by_dots(const gk_gemm_args *g, int64_t rsc) {
    float bt[2][GK_SMALL_DOT_CHUNK];
    for (int64_t j0 = 0; j0 < g->n; j0 += 2) {
        const int two = j0 + 1 < g->n;
        /* c1 only when there is a second column: with one column ldc may be any size, and
         * c0 + ldc past the address space is undefined behaviour even if never dereferenced. */
        float *restrict c0 = g->c + j0 * g->ldc, *restrict c1 = two ? c0 + g->ldc : NULL;
        for (int64_t p0 = 0; p0 < g->k; p0 += GK_SMALL_DOT_CHUNK) {
            const int64_t pl = g->k - p0 < GK_SMALL_DOT_CHUNK ? g->k - p0 : GK_SMALL_DOT_CHUNK;
            small_copy_bcol(g, j0, p0, pl, bt[0]);
            if (two) small_copy_bcol(g, j0 + 1, p0, pl, bt[1]);
            for (int64_t i = 0; i < g->m; i++) {
                const float *ar = g->a + p0 + i * g->lda;
                float d[2];
                if (two) {
                    small_dot(2, ar, bt[0], bt[1], pl, d);
                    c1[i * rsc] += d[1];
                } else {
                    small_dot(1, ar, bt[0], bt[1], pl, d);
                }
                c0[i * rsc] += d[0];
            }
        }
    }
}

/* The vector forms: C scaled by beta, then the dot products (transposed A) or the axpys (plain
 * A). C(i, j) is at c[i * rsc + j * ldc]: rsc is 1 but in the swapped forms, whose axpys the
 * planner takes only with rsc == 1. */
static void small_by_vectors(const gk_gemm_args *g, int64_t rsc, int dots) {
    small_scale_c(g, rsc);
    if (dots)
        small_by_dots(g, rsc);
    else
        small_by_axpys(g);
}

void GK_SMALL_NAME(const gk_gemm_args *g, gk_small_form form) {
    if (form == GK_SMALL_TILES) {
        small_by_tiles(g);
    } else if (form == GK_SMALL_AXPYS || form == GK_SMALL_DOTS) {
        small_by_vectors(g, 1, form == GK_SMALL_DOTS);
    } else {
        /* C^T = op(B)^T op(A)^T: C^T has m <= 2 columns, each a row of C (ldc apart), and
         * op(A)^T's columns, the rows of plain A, are what the dot products read */
        const gk_gemm_args t = {.m = g->n,
                                .n = g->m,
                                .k = g->k,
                                .transa = !g->transb,
                                .transb = 1,
                                .alpha = g->alpha,
                                .beta = g->beta,
                                .a = g->b,
                                .lda = g->ldb,
                                .b = g->a,
                                .ldb = g->lda,
                                .c = g->c,
                                .ldc = 1};
        small_by_vectors(&t, g->ldc, form == GK_SMALL_SWAPPED_DOTS);
    }
}
