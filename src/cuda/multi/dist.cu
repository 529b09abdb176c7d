/*
 * dist.cu — the distributed SGEMM on device-resident operands over a P x Q grid of GPUs
 * (gk_cuda_dist_*): SUMMA over NCCL broadcasts, each panel multiplied by gk_cuda_sgemm's own path.
 *
 * How (docs/cuda.md, "Distributed SGEMM over NCCL"): a handle per rank holds its context (device,
 * compute stream), a communication stream, the row and column communicators (ncclCommSplit of the
 * world communicator for one process per GPU; ncclCommInitAll per grid row and column for one
 * process driving them all) and two panel buffers for each operand, kept between calls. A call is
 * normalised to column-major (dist.h), then for each K panel: on the communication stream, after
 * the GEMM that last read the buffer, the owner of the A panel packs it (unless it is contiguous
 * in its block) and broadcasts it along its communicator, the same for B, and an event marks the
 * panels ready; on the compute stream the panel GEMM waits for that event, adds into the C block
 * (beta only on the first panel) and marks the buffer free. So the broadcasts of panel t + 1 run
 * while panel t multiplies. An axis of the grid of size 1 sends nothing: that operand's panels are
 * read in place. A 1 x 1 grid is one gk_cuda_sgemm-equivalent call.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/core/core.h"
#include "cuda/multi/dist.h"
#include "cuda/multi/nccl.h"

struct gk_cuda_dist {
    const gk_nccl *nccl;
    gk_cuda_ctx *ctx;
    gk_dist_grid grid;
    int rank, device;
    /* rows: the ranks of this grid row, keyed by column; cols: of this grid column, keyed by row;
     * NULL on an axis of size 1. world: the communicator they were split from (one process per
     * GPU), else NULL. */
    gk_nccl_comm world, rows, cols;
    cudaStream_t own;  /* the context's stream as created (non-blocking, the handle's own) */
    cudaStream_t comm; /* the broadcasts' stream */
    /* start: the compute stream's work before a call; done: its end; ready[s]: panel buffer s
     * filled (communication stream); free_[s]: its last GEMM done (compute stream) */
    cudaEvent_t start, done, ready[2], free_[2];
    float *buf; /* 2 x (A panel + B panel) */
    size_t buf_floats;
    int64_t panel;
    int pack_all; /* gk_dist_set_pack_all (tests) */
};

namespace {

const char WHO[] = "gk_cuda_dist_sgemm";

/* gk_split's share as (first, count). */
void block_range(int64_t n, int parts, int index, int64_t *first, int64_t *count) {
    int64_t end;
    gk_split(n, parts, index, first, &end);
    *count = end - *first;
}

int64_t max1(int64_t x) {
    return x > 1 ? x : 1;
}

/* Make one operand's panel (rows x cols of the root's block, starting `off` elements in) present
 * on every rank of comm, on stream x: the root broadcasts it in place from its block when it is
 * contiguous there, else from a packed copy in `slot`; the others receive into `slot`. *out and
 * *ldo say where this rank reads it. */
gk_status share(const gk_cuda_dist *d, gk_nccl_comm comm, int root, int me, const float *blk,
                int64_t ld, int64_t off, int64_t rows, int64_t cols, float *slot, const float **out,
                int64_t *ldo) {
    const size_t count = (size_t)(rows * cols);
    float *from = slot;
    if (me == root) {
        const float *src = blk + off;
        if (cols == 1 || rows == ld) {
            from = const_cast<float *>(src); /* in place: NCCL's root does not write it */
            *out = src, *ldo = ld;
        } else {
            const cudaError_t err =
                cudaMemcpy2DAsync(slot, (size_t)rows * 4, src, (size_t)ld * 4, (size_t)rows * 4,
                                  (size_t)cols, cudaMemcpyDeviceToDevice, d->comm);
            if (err != cudaSuccess) return gk_cuda_status(WHO, "cudaMemcpy2DAsync (panel)", err);
            *out = slot, *ldo = max1(rows);
        }
    } else {
        *out = slot, *ldo = max1(rows);
    }
    /* count is the same on every rank of comm (they share the extent); no communicator: an axis
     * of size 1 under gk_dist_set_pack_all, nothing to send */
    if (count == 0 || comm == NULL) return GK_SUCCESS;
    const int r = d->nccl->broadcast(from, from, count, GK_NCCL_FLOAT32, root, comm, d->comm);
    return r == GK_NCCL_SUCCESS ? GK_SUCCESS : gk_nccl_fail(d->nccl, WHO, "ncclBroadcast", r, comm);
}

} // namespace

gk_status gk_cuda_dist_range(int64_t n, int parts, int index, int64_t *first, int64_t *count) {
    gk_clear_error();
    static const char who[] = "gk_cuda_dist_range";
    if (n < 0) return gk_fail(GK_ERR_INVALID_SIZE, "%s: n=%lld is negative", who, (long long)n);
    if (parts < 1) return gk_fail(GK_ERR_INVALID_VALUE, "%s: parts=%d is not >= 1", who, parts);
    if (index < 0 || index >= parts)
        return gk_fail(GK_ERR_INVALID_VALUE, "%s: index=%d is not in [0, %d)", who, index, parts);
    if (first == NULL || count == NULL)
        return gk_fail(GK_ERR_NULL_POINTER, "%s: %s is NULL", who,
                       first == NULL ? "first" : "count");
    block_range(n, parts, index, first, count);
    return GK_SUCCESS;
}

gk_status gk_dist_prepare(const char *who, const gk_dist_grid &grid, gk_layout layout,
                          gk_trans transa, gk_trans transb, int64_t m, int64_t n, int64_t k,
                          float alpha, const float *a, int64_t lda, const float *b, int64_t ldb,
                          float beta, float *c, int64_t ldc, gk_dist_call *out) {
    if (layout != GK_ROW_MAJOR && layout != GK_COL_MAJOR)
        return gk_fail(GK_ERR_INVALID_LAYOUT, "%s: layout=%d is not GK_ROW_MAJOR or GK_COL_MAJOR",
                       who, (int)layout);
    if (transa < GK_NO_TRANS || transa > GK_CONJ_TRANS)
        return gk_fail(GK_ERR_INVALID_TRANS, "%s: transa=%d is not a gk_trans value", who,
                       (int)transa);
    if (transb < GK_NO_TRANS || transb > GK_CONJ_TRANS)
        return gk_fail(GK_ERR_INVALID_TRANS, "%s: transb=%d is not a gk_trans value", who,
                       (int)transb);
    if (m < 0) return gk_fail(GK_ERR_INVALID_SIZE, "%s: m=%lld is negative", who, (long long)m);
    if (n < 0) return gk_fail(GK_ERR_INVALID_SIZE, "%s: n=%lld is negative", who, (long long)n);
    if (k < 0) return gk_fail(GK_ERR_INVALID_SIZE, "%s: k=%lld is negative", who, (long long)k);
    /* this rank's blocks in the caller's terms: op(A) ml x kal, op(B) kbl x nl, C ml x nl */
    int64_t r0, ml, c0, nl, ka0, kal, kb0, kbl;
    block_range(m, grid.p, grid.row, &r0, &ml);
    block_range(n, grid.q, grid.col, &c0, &nl);
    block_range(k, grid.q, grid.col, &ka0, &kal);
    block_range(k, grid.p, grid.row, &kb0, &kbl);
    const int row_major = layout == GK_ROW_MAJOR;
    const int ta = transa != GK_NO_TRANS, tb = transb != GK_NO_TRANS;
    /* stored blocks (rows x cols in the caller's layout) and the extent their ld must cover */
    const int64_t a_rows = ta ? kal : ml, a_cols = ta ? ml : kal;
    const int64_t b_rows = tb ? nl : kbl, b_cols = tb ? kbl : nl;
    const int64_t a_min = row_major ? a_cols : a_rows, b_min = row_major ? b_cols : b_rows;
    const int64_t c_min = row_major ? nl : ml;
    if (lda < max1(a_min))
        return gk_fail(
            GK_ERR_INVALID_LD,
            "%s: lda=%lld must be >= max(1, %lld) for this rank's %lld x %lld block of A", who,
            (long long)lda, (long long)a_min, (long long)a_rows, (long long)a_cols);
    if (ldb < max1(b_min))
        return gk_fail(
            GK_ERR_INVALID_LD,
            "%s: ldb=%lld must be >= max(1, %lld) for this rank's %lld x %lld block of B", who,
            (long long)ldb, (long long)b_min, (long long)b_rows, (long long)b_cols);
    if (ldc < max1(c_min))
        return gk_fail(
            GK_ERR_INVALID_LD,
            "%s: ldc=%lld must be >= max(1, %lld) for this rank's %lld x %lld block of C", who,
            (long long)ldc, (long long)c_min, (long long)ml, (long long)nl);
    const int reads = alpha != 0.0f && k > 0;
    if (ml > 0 && nl > 0 && c == NULL) return gk_fail(GK_ERR_NULL_POINTER, "%s: c is NULL", who);
    if (reads && ml > 0 && kal > 0 && a == NULL)
        return gk_fail(GK_ERR_NULL_POINTER, "%s: a is NULL", who);
    if (reads && kbl > 0 && nl > 0 && b == NULL)
        return gk_fail(GK_ERR_NULL_POINTER, "%s: b is NULL", who);
    const struct {
        const char *name;
        int64_t rows, cols, ld;
    } spans[3] = {{"a", a_rows, a_cols, lda}, {"b", b_rows, b_cols, ldb}, {"c", ml, nl, ldc}};
    for (const auto &s : spans)
        if ((row_major ? gk_span_bytes(s.cols, s.rows, s.ld)
                       : gk_span_bytes(s.rows, s.cols, s.ld)) < 0)
            return gk_fail(GK_ERR_OVERFLOW,
                           "%s: %s (%lld x %lld, ld=%lld) overflows the address space", who, s.name,
                           (long long)s.rows, (long long)s.cols, (long long)s.ld);
    gk_gemm_normalise(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
                      &out->g);
    if (!row_major) {
        out->nm = grid.p, out->im = grid.row, out->nn = grid.q, out->in_ = grid.col;
        out->a_on_rows = 1;
        out->m0 = r0, out->ml = ml, out->n0 = c0, out->nl = nl;
        out->ka0 = ka0, out->kal = kal, out->kb0 = kb0, out->kbl = kbl;
    } else { /* C^T = op(B)^T op(A)^T on the transposed grid */
        out->nm = grid.q, out->im = grid.col, out->nn = grid.p, out->in_ = grid.row;
        out->a_on_rows = 0;
        out->m0 = c0, out->ml = nl, out->n0 = r0, out->nl = ml;
        out->ka0 = kb0, out->kal = kbl, out->kb0 = ka0, out->kbl = kal;
    }
    return GK_SUCCESS;
}

void gk_dist_panels_begin(gk_dist_panels *it, const gk_dist_call *call, int64_t width) {
    memset(it, 0, sizeof *it);
    it->call = call;
    it->width = width > 0 ? width : 1;
}

int gk_dist_panels_next(gk_dist_panels *it, gk_dist_panel *out) {
    const gk_dist_call &cl = *it->call;
    const int64_t k = cl.g.k;
    int64_t a0, al, b0, bl;
    while (it->piece >= it->count) { /* the next segment between block boundaries */
        if (it->seg1 >= k) return 0;
        it->seg0 = it->seg1;
        for (;; it->ia++) {
            block_range(k, cl.nn, it->ia, &a0, &al);
            if (a0 + al > it->seg0) break;
        }
        for (;; it->ib++) {
            block_range(k, cl.nm, it->ib, &b0, &bl);
            if (b0 + bl > it->seg0) break;
        }
        it->seg1 = a0 + al < b0 + bl ? a0 + al : b0 + bl;
        it->count = (it->seg1 - it->seg0 + it->width - 1) / it->width;
        it->piece = 0;
    }
    const int64_t len = it->seg1 - it->seg0, base = len / it->count, rem = len % it->count;
    const int64_t i = it->piece++;
    out->k0 = it->seg0 + i * base + (i < rem ? i : rem);
    out->w = base + (i < rem ? 1 : 0);
    block_range(k, cl.nn, it->ia, &a0, &al);
    block_range(k, cl.nm, it->ib, &b0, &bl);
    out->a_root = it->ia, out->b_root = it->ib;
    out->a_off = out->k0 - a0, out->b_off = out->k0 - b0;
    return 1;
}

/* ---- handles --------------------------------------------------------------------------------- */

namespace {

/* The communicator-independent part of a handle: context, stream, events. */
gk_status make_handle(const char *who, const gk_nccl *nc, int p, int q, int rank, int device,
                      gk_cuda_dist **out) {
    gk_cuda_dist *d = (gk_cuda_dist *)calloc(1, sizeof *d);
    if (d == NULL) return gk_fail(GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", who);
    d->nccl = nc;
    d->grid = gk_dist_grid{p, q, rank / q, rank % q};
    d->rank = rank, d->device = device;
    *out = d;
    /* Non-blocking streams only: the legacy default stream would also wait for, and be waited
     * for by, every blocking stream of the device, NCCL's included. */
    cudaError_t err;
    {
        gk_device_guard guard(device);
        err = guard.error();
        if (err == cudaSuccess) err = cudaStreamCreateWithFlags(&d->own, cudaStreamNonBlocking);
        /* The broadcasts' stream has the device's highest priority: the block scheduler then
         * starts NCCL's blocks as soon as any SM frees up instead of after every queued block of
         * the GEMM that runs beside them, which would leave nothing to overlap. */
        int least = 0, greatest = 0;
        if (err == cudaSuccess) err = cudaDeviceGetStreamPriorityRange(&least, &greatest);
        if (err == cudaSuccess)
            err = cudaStreamCreateWithPriority(&d->comm, cudaStreamNonBlocking, greatest);
    }
    if (err != cudaSuccess) return gk_cuda_status(who, "cudaStreamCreateWithFlags", err);
    gk_status st = gk_cuda_create(&d->ctx, device, d->own);
    if (st != GK_SUCCESS) return st;
    gk_device_guard guard(device);
    err = guard.error();
    cudaEvent_t *evs[6] = {&d->start,    &d->done,     &d->ready[0],
                           &d->ready[1], &d->free_[0], &d->free_[1]};
    for (int i = 0; i < 6 && err == cudaSuccess; i++)
        err = cudaEventCreateWithFlags(evs[i], cudaEventDisableTiming);
    return err == cudaSuccess ? GK_SUCCESS
                              : gk_cuda_status(who, "creating streams and events", err);
}

gk_status check_grid(const char *who, const void *out, const char *out_name, int p, int q) {
    if (out == NULL) return gk_fail(GK_ERR_INVALID_VALUE, "%s: %s is NULL", who, out_name);
    if (p < 1) return gk_fail(GK_ERR_INVALID_VALUE, "%s: p=%d is not >= 1", who, p);
    if (q < 1) return gk_fail(GK_ERR_INVALID_VALUE, "%s: q=%d is not >= 1", who, q);
    if ((int64_t)p * q > INT_MAX)
        return gk_fail(GK_ERR_INVALID_VALUE, "%s: p * q = %lld ranks is more than NCCL counts", who,
                       (long long)p * q);
    return GK_SUCCESS;
}

gk_status device_count(const char *who, int *count) {
    const cudaError_t err = cudaGetDeviceCount(count);
    if (err != cudaSuccess || *count == 0) {
        (void)cudaGetLastError();
        return gk_fail(GK_ERR_NO_DEVICE, "%s: no CUDA device: %s", who,
                       err != cudaSuccess ? cudaGetErrorString(err) : "device count is 0");
    }
    return GK_SUCCESS;
}

} // namespace

gk_status gk_cuda_dist_unique_id(void *id) {
    gk_clear_error();
    static const char who[] = "gk_cuda_dist_unique_id";
    if (id == NULL) return gk_fail(GK_ERR_INVALID_VALUE, "%s: id is NULL", who);
    const gk_nccl *nc;
    gk_status st = gk_nccl_load(who, &nc);
    if (st != GK_SUCCESS) return st;
    const int r = nc->get_unique_id((gk_nccl_id *)id);
    return r == GK_NCCL_SUCCESS ? GK_SUCCESS : gk_nccl_fail(nc, who, "ncclGetUniqueId", r, NULL);
}

gk_status gk_cuda_dist_create(gk_cuda_dist **dist, int p, int q, int rank, const void *id,
                              int device) {
    gk_clear_error();
    static const char who[] = "gk_cuda_dist_create";
    gk_status st = check_grid(who, dist, "dist", p, q);
    if (st != GK_SUCCESS) return st;
    *dist = NULL;
    if (rank < 0 || rank >= p * q)
        return gk_fail(GK_ERR_INVALID_VALUE, "%s: rank=%d is not in [0, p * q = %d)", who, rank,
                       p * q);
    if (id == NULL) return gk_fail(GK_ERR_INVALID_VALUE, "%s: id is NULL", who);
    const gk_nccl *nc;
    if ((st = gk_nccl_load(who, &nc)) != GK_SUCCESS) return st;
    int count;
    if ((st = device_count(who, &count)) != GK_SUCCESS) return st;
    if (device < 0 || device >= count)
        return gk_fail(GK_ERR_INVALID_VALUE, "%s: device=%d is not in [0, %d)", who, device, count);
    gk_cuda_dist *d = NULL;
    st = make_handle(who, nc, p, q, rank, device, &d);
    if (st == GK_SUCCESS) {
        gk_device_guard guard(device);
        gk_nccl_id uid;
        memcpy(&uid, id, sizeof uid);
        int r = nc->comm_init_rank(&d->world, p * q, uid, rank);
        const char *call = "ncclCommInitRank";
        /* both splits are collective over the world: every rank makes them in this order */
        if (r == GK_NCCL_SUCCESS && q > 1)
            r = nc->comm_split(d->world, d->grid.row, d->grid.col, &d->rows, NULL),
            call = "ncclCommSplit (grid row)";
        if (r == GK_NCCL_SUCCESS && p > 1)
            r = nc->comm_split(d->world, d->grid.col, d->grid.row, &d->cols, NULL),
            call = "ncclCommSplit (grid column)";
        if (r != GK_NCCL_SUCCESS) st = gk_nccl_fail(nc, who, call, r, d->world);
    }
    if (st != GK_SUCCESS) {
        const gk_status keep = st;
        char msg[512];
        snprintf(msg, sizeof msg, "%s", gk_last_error());
        gk_cuda_dist_destroy(d);
        return gk_fail(keep, "%s", msg);
    }
    *dist = d;
    return GK_SUCCESS;
}

gk_status gk_cuda_dist_create_all(gk_cuda_dist **dists, int p, int q, const int *devices) {
    gk_clear_error();
    static const char who[] = "gk_cuda_dist_create_all";
    gk_status st = check_grid(who, dists, "dists", p, q);
    if (st != GK_SUCCESS) return st;
    const int n = p * q;
    for (int i = 0; i < n; i++)
        dists[i] = NULL;
    if (devices != NULL)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < i; j++)
                if (devices[i] == devices[j])
                    return gk_fail(GK_ERR_INVALID_VALUE,
                                   "%s: devices[%d] and devices[%d] are both device %d (NCCL "
                                   "takes each device once)",
                                   who, j, i, devices[i]);
    const gk_nccl *nc;
    if ((st = gk_nccl_load(who, &nc)) != GK_SUCCESS) return st;
    int count;
    if ((st = device_count(who, &count)) != GK_SUCCESS) return st;
    if (devices == NULL && n > count)
        return gk_fail(GK_ERR_INVALID_VALUE,
                       "%s: p * q = %d ranks need %d devices (devices is NULL), %d visible", who, n,
                       n, count);
    for (int i = 0; devices != NULL && i < n; i++)
        if (devices[i] < 0 || devices[i] >= count)
            return gk_fail(GK_ERR_INVALID_VALUE, "%s: devices[%d]=%d is not in [0, %d)", who, i,
                           devices[i], count);
    int *list = (int *)malloc(sizeof(int) * (size_t)(p > q ? p : q));
    gk_nccl_comm *comms = (gk_nccl_comm *)malloc(sizeof(gk_nccl_comm) * (size_t)(p > q ? p : q));
    if (list == NULL || comms == NULL)
        st = gk_fail(GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", who);
    for (int i = 0; i < n && st == GK_SUCCESS; i++)
        st = make_handle(who, nc, p, q, i, devices != NULL ? devices[i] : i, &dists[i]);
    /* each grid row, then each grid column, is a clique of its own: no world communicator */
    for (int axis = 0; axis < 2 && st == GK_SUCCESS; axis++) {
        const int groups = axis == 0 ? p : q, size = axis == 0 ? q : p;
        if (size == 1) continue;
        for (int g = 0; g < groups && st == GK_SUCCESS; g++) {
            for (int i = 0; i < size; i++)
                list[i] = dists[axis == 0 ? g * q + i : i * q + g]->device;
            const int r = nc->comm_init_all(comms, size, list);
            if (r != GK_NCCL_SUCCESS) {
                st = gk_nccl_fail(nc, who, "ncclCommInitAll", r, NULL);
                break;
            }
            for (int i = 0; i < size; i++) {
                gk_cuda_dist *d = dists[axis == 0 ? g * q + i : i * q + g];
                (axis == 0 ? d->rows : d->cols) = comms[i];
            }
        }
    }
    free(list);
    free(comms);
    if (st != GK_SUCCESS) {
        const gk_status keep = st;
        char msg[512];
        snprintf(msg, sizeof msg, "%s", gk_last_error());
        for (int i = 0; i < n; i++) {
            gk_cuda_dist_destroy(dists[i]);
            dists[i] = NULL;
        }
        return gk_fail(keep, "%s", msg);
    }
    return GK_SUCCESS;
}

gk_status gk_cuda_dist_destroy(gk_cuda_dist *d) {
    gk_clear_error();
    if (d == NULL) return GK_SUCCESS;
    static const char who[] = "gk_cuda_dist_destroy";
    gk_status st = GK_SUCCESS;
    char msg[512] = "";
    auto keep = [&](gk_status s) { /* the first failure, kept past gk_cuda_destroy's clearing */
                                   if (st == GK_SUCCESS && s != GK_SUCCESS)
                                       st = s, snprintf(msg, sizeof msg, "%s", gk_last_error());
    };
    gk_device_guard guard(d->device);
    cudaError_t err = guard.error();
    if (err == cudaSuccess && d->comm != NULL) err = cudaStreamSynchronize(d->comm);
    if (err == cudaSuccess && d->ctx != NULL) err = cudaStreamSynchronize(d->ctx->stream);
    if (err == cudaSuccess && d->buf != NULL) err = cudaFree(d->buf);
    if (err != cudaSuccess) keep(gk_cuda_status(who, "waiting for the streams, freeing", err));
    cudaEvent_t evs[6] = {d->start, d->done, d->ready[0], d->ready[1], d->free_[0], d->free_[1]};
    for (cudaEvent_t ev : evs)
        if (ev != NULL) cudaEventDestroy(ev);
    const gk_nccl_comm comms[3] = {d->rows, d->cols, d->world};
    for (gk_nccl_comm c : comms)
        if (c != NULL) {
            const int r = d->nccl->comm_destroy(c);
            if (r != GK_NCCL_SUCCESS) keep(gk_nccl_fail(d->nccl, who, "ncclCommDestroy", r, NULL));
        }
    if (d->ctx != NULL)
        keep(gk_cuda_destroy(d->ctx)); /* its workspace goes in its stream's order */
    if (d->own != NULL) {
        cudaStreamSynchronize(d->own);
        cudaStreamDestroy(d->own);
    }
    if (d->comm != NULL) cudaStreamDestroy(d->comm);
    (void)cudaGetLastError();
    free(d);
    return st == GK_SUCCESS ? GK_SUCCESS : gk_fail(st, "%s", msg);
}

gk_status gk_cuda_dist_info_get(const gk_cuda_dist *d, gk_cuda_dist_info *info) {
    gk_clear_error();
    if (d == NULL) return gk_fail(GK_ERR_INVALID_VALUE, "gk_cuda_dist_info_get: dist is NULL");
    if (info == NULL) return gk_fail(GK_ERR_INVALID_VALUE, "gk_cuda_dist_info_get: info is NULL");
    info->p = d->grid.p, info->q = d->grid.q, info->rank = d->rank;
    info->row = d->grid.row, info->col = d->grid.col, info->device = d->device;
    info->nccl_version = d->nccl->version;
    info->ctx = d->ctx;
    info->stream = (void *)d->ctx->stream;
    info->panel = d->panel;
    return GK_SUCCESS;
}

void gk_dist_set_pack_all(gk_cuda_dist *d, int on) {
    d->pack_all = on;
}

gk_status gk_cuda_dist_set_panel(gk_cuda_dist *d, int64_t width) {
    gk_clear_error();
    if (d == NULL) return gk_fail(GK_ERR_INVALID_VALUE, "gk_cuda_dist_set_panel: dist is NULL");
    if (width < 0)
        return gk_fail(GK_ERR_INVALID_VALUE, "gk_cuda_dist_set_panel: width=%lld is negative",
                       (long long)width);
    d->panel = width;
    return GK_SUCCESS;
}

/* ---- the call -------------------------------------------------------------------------------- */

gk_status gk_cuda_dist_sgemm(gk_cuda_dist *d, gk_layout layout, gk_trans transa, gk_trans transb,
                             int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                             int64_t lda, const float *b, int64_t ldb, float beta, float *c,
                             int64_t ldc) {
    gk_clear_error();
    if (d == NULL) return gk_fail(GK_ERR_INVALID_VALUE, "%s: dist is NULL", WHO);
    gk_dist_call cl;
    gk_status st = gk_dist_prepare(WHO, d->grid, layout, transa, transb, m, n, k, alpha, a, lda, b,
                                   ldb, beta, c, ldc, &cl);
    if (st != GK_SUCCESS) return st;
    const gk_gemm_args &g = cl.g;
    if (g.m == 0 || g.n == 0) return GK_SUCCESS;
    gk_cuda_ctx *ctx = d->ctx;
    gk_device_guard guard(ctx->device);
    if (guard.error() != cudaSuccess) return gk_cuda_status(WHO, "cudaSetDevice", guard.error());
    const int one = d->grid.p == 1 && d->grid.q == 1;
    /* A 1 x 1 grid sends nothing: its blocks are the matrices, one call unless panels were asked */
    if (one && (d->panel == 0 || d->panel >= g.k || gk_gemm_is_scale_only(&g)))
        return gk_cuda_sgemm_fp32(ctx, WHO, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb,
                                  beta, c, ldc);
    const gk_trans ta = g.transa ? GK_TRANS : GK_NO_TRANS, tb = g.transb ? GK_TRANS : GK_NO_TRANS;
    if (gk_gemm_is_scale_only(&g)) /* C = beta C on each block: nothing to send */
        return cl.ml == 0 || cl.nl == 0
                   ? GK_SUCCESS
                   : gk_cuda_sgemm_fp32(ctx, WHO, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, cl.ml,
                                        cl.nl, 0, g.alpha, NULL, max1(cl.ml), NULL, 1, g.beta, g.c,
                                        g.ldc);
    /* stored blocks of the normalised operands, for the pointer checks and the panels */
    const int64_t a_rows = g.transa ? cl.kal : cl.ml, a_cols = g.transa ? cl.ml : cl.kal;
    const int64_t b_rows = g.transb ? cl.nl : cl.kbl, b_cols = g.transb ? cl.kbl : cl.nl;
    const int row_major = layout == GK_ROW_MAJOR;
    if (ctx->checks) {
        const struct {
            const char *name;
            const void *p;
            int64_t bytes;
        } ops[3] = {{row_major ? "b" : "a", g.a, gk_span_bytes(a_rows, a_cols, g.lda)},
                    {row_major ? "a" : "b", g.b, gk_span_bytes(b_rows, b_cols, g.ldb)},
                    {"c", g.c, gk_span_bytes(cl.ml, cl.nl, g.ldc)}};
        for (const auto &op : ops)
            if (op.bytes > 0 &&
                (st = gk_cuda_check_buffer(ctx, WHO, op.name, op.p, op.bytes)) != GK_SUCCESS)
                return st;
    }
    const int send_a = cl.nn > 1 || d->pack_all, send_b = cl.nm > 1 || d->pack_all;
    const gk_nccl_comm comm_a = cl.a_on_rows ? d->rows : d->cols;
    const gk_nccl_comm comm_b = cl.a_on_rows ? d->cols : d->rows;
    int64_t width = d->panel > 0 ? d->panel : one ? g.k : GK_DIST_DEFAULT_PANEL;
    if (width > g.k) width = g.k;
    const size_t fa = send_a ? (size_t)gk_round_up(cl.ml * width, 32) : 0;
    const size_t fb = send_b ? (size_t)gk_round_up(cl.nl * width, 32) : 0;
    const cudaStream_t s_cmp = ctx->stream, s_com = d->comm;
    cudaError_t err;
#define GK_TRY(call, what)                                                                         \
    if ((err = (call)) != cudaSuccess) return gk_cuda_status(WHO, what, err)
    if (2 * (fa + fb) > d->buf_floats) { /* grow: only once every earlier call is done with it */
        GK_TRY(cudaStreamSynchronize(s_com), "cudaStreamSynchronize");
        GK_TRY(cudaEventSynchronize(d->done), "cudaEventSynchronize");
        if (d->buf != NULL) GK_TRY(cudaFree(d->buf), "cudaFree (panel buffers)");
        d->buf = NULL, d->buf_floats = 0;
        const size_t want = 2 * (fa + fb);
        GK_TRY(cudaMalloc(&d->buf, want * sizeof(float)), "cudaMalloc (panel buffers)");
        d->buf_floats = want;
    }
    /* broadcasts read the blocks after the compute stream's earlier work, and reuse the buffers
     * only after the previous call's GEMMs (which may have run on another stream) */
    GK_TRY(cudaEventRecord(d->start, s_cmp), "cudaEventRecord");
    GK_TRY(cudaStreamWaitEvent(s_com, d->start, 0), "cudaStreamWaitEvent");
    GK_TRY(cudaStreamWaitEvent(s_com, d->done, 0), "cudaStreamWaitEvent");
    gk_dist_panels it;
    gk_dist_panels_begin(&it, &cl, width);
    gk_dist_panel pn;
    for (int64_t t = 0; gk_dist_panels_next(&it, &pn); t++) {
        const int s = (int)(t & 1);
        float *slot_a = d->buf + s * (fa + fb), *slot_b = slot_a + fa;
        /* the GEMM two panels back read this buffer */
        if (t >= 2) GK_TRY(cudaStreamWaitEvent(s_com, d->free_[s], 0), "cudaStreamWaitEvent");
        const float *pa, *pb;
        int64_t lpa, lpb;
        const int64_t ar = g.transa ? pn.w : cl.ml, ac = g.transa ? cl.ml : pn.w;
        const int64_t br = g.transb ? cl.nl : pn.w, bc = g.transb ? pn.w : cl.nl;
        const int64_t a_off = g.transa ? pn.a_off : pn.a_off * g.lda;
        const int64_t b_off = g.transb ? pn.b_off * g.ldb : pn.b_off;
        if (!send_a) /* this rank holds all of A's K */
            pa = g.a + a_off, lpa = g.lda;
        else if ((st = share(d, comm_a, pn.a_root, cl.in_, g.a, g.lda, a_off, ar, ac, slot_a, &pa,
                             &lpa)) != GK_SUCCESS)
            return st;
        if (!send_b)
            pb = g.b + b_off, lpb = g.ldb;
        else if ((st = share(d, comm_b, pn.b_root, cl.im, g.b, g.ldb, b_off, br, bc, slot_b, &pb,
                             &lpb)) != GK_SUCCESS)
            return st;
        GK_TRY(cudaEventRecord(d->ready[s], s_com), "cudaEventRecord");
        GK_TRY(cudaStreamWaitEvent(s_cmp, d->ready[s], 0), "cudaStreamWaitEvent");
        if (cl.ml > 0 && cl.nl > 0 &&
            (st = gk_cuda_sgemm_fp32(ctx, WHO, GK_COL_MAJOR, ta, tb, cl.ml, cl.nl, pn.w, g.alpha,
                                     pa, lpa, pb, lpb, t == 0 ? g.beta : 1.0f, g.c, g.ldc)) !=
                GK_SUCCESS)
            return st;
        GK_TRY(cudaEventRecord(d->free_[s], s_cmp), "cudaEventRecord");
    }
    GK_TRY(cudaEventRecord(d->done, s_cmp), "cudaEventRecord");
#undef GK_TRY
    return GK_SUCCESS;
}
