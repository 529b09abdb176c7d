/*
 * dist.h — the host-side plan of the distributed SGEMM (dist.cu), apart from any device or NCCL
 * call so that tests can check it without a GPU: the argument checks of one rank's call and its
 * normalisation to column-major, and the sequence of K panels with who owns each.
 */
#ifndef GK_CUDA_DIST_H
#define GK_CUDA_DIST_H

#include <stdint.h>

#include "core/internal.h"

/* A rank's place in a p x q grid. */
struct gk_dist_grid {
    int p, q, row, col;
};

/* One rank's call after the checks, column-major as gk_gemm_normalise makes it (a row-major call
 * is C^T = op(B)^T op(A)^T, which also transposes the grid: the normalised m is split over q, the
 * normalised A travels along grid columns). g holds the global m, n, k, alpha, beta and transposes
 * and this rank's block pointers and leading dimensions. The normalised m is split into nm parts
 * of which this rank holds part im, n into nn parts (part in_); A's K into nn parts (this rank:
 * part in_, [ka0, ka0 + kal)), B's K into nm parts (part im, [kb0, kb0 + kbl)). A's panels are
 * broadcast among the ranks of one part of m (keyed by their part of n), B's among the ranks of
 * one part of n (keyed by their part of m). */
struct gk_dist_call {
    gk_gemm_args g;
    int nm, im, nn, in_;
    int a_on_rows; /* A's panels travel along grid rows (column-major call), else along columns */
    int64_t m0, ml, n0, nl, ka0, kal, kb0, kbl;
};

/* Check one rank's call (gk_sgemm's statuses and order; leading dimensions against this rank's
 * blocks; a NULL block this rank reads or writes) and fill `out`. */
gk_status gk_dist_prepare(const char *who, const gk_dist_grid &grid, gk_layout layout,
                          gk_trans transa, gk_trans transb, int64_t m, int64_t n, int64_t k,
                          float alpha, const float *a, int64_t lda, const float *b, int64_t ldb,
                          float beta, float *c, int64_t ldc, gk_dist_call *out);

/* One K panel [k0, k0 + w): the owner of its A part (a_root, among the nn parts of A's K) and of
 * its B part (b_root, among B's nm parts), and where the panel starts in each owner's K range. It
 * never straddles a block boundary of either operand. */
struct gk_dist_panel {
    int64_t k0, w;
    int a_root, b_root;
    int64_t a_off, b_off;
};

/* The panels of a call, in order: every block segment (between consecutive boundaries of A's and
 * B's K blocks) cut into ceil(length / width) near-equal panels. */
struct gk_dist_panels {
    const gk_dist_call *call;
    int64_t width;
    int ia, ib;           /* current block of A's and B's K */
    int64_t seg0, seg1;   /* current segment */
    int64_t piece, count; /* next panel of the segment, panels in it */
};
void gk_dist_panels_begin(gk_dist_panels *it, const gk_dist_call *call, int64_t width);
/* The next panel into *out; 0 when there are no more. */
int gk_dist_panels_next(gk_dist_panels *it, gk_dist_panel *out);

/* Testing hook: with `on`, every panel goes through the panel buffers as if its axis had to send
 * it (the owner's pack copy or in-place source), also on an axis of size 1, where the broadcast
 * itself is skipped; so one GPU, or the CUDA emulation, runs the path a grid of several takes. */
struct gk_cuda_dist;
void gk_dist_set_pack_all(gk_cuda_dist *d, int on);

/* The default panel width of K (docs/cuda.md says why). */
enum { GK_DIST_DEFAULT_PANEL = 2048 };

#endif
