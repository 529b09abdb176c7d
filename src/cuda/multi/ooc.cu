/*
 * ooc.cu — out-of-core GEMM: gk_cuda_sgemm_host(_multi) and gk_cuda_gemm_ex_host(_multi), C =
 * alpha op(A) op(B) + beta C with A, B and C in host memory of any size, streamed through one or
 * more GPUs in tiles and computed there by the in-memory call's own path (float32: gk_cuda_sgemm's,
 * gk_cuda_sgemm_fp32, where the float32 router decides; the other types: gk_cuda_gemm_ex_run), no
 * GEMM kernel of its own. One engine serves every type: panels, tiles, staging and copies are
 * counted in bytes of each operand's element size.
 *
 * How (docs/cuda.md, "Out-of-core and multi-GPU"): after gk_check_gemm the problem is column-major.
 * C is cut into mt x nt tiles sized to each device's memory budget (GEMMKIT_CUDA_MEM_LIMIT or a
 * share of cudaMemGetInfo's free memory); K into chunks of kc only when an mt x K panel would not
 * fit. Each context ("worker") owns a contiguous run of the row-major tile order, so consecutive
 * tiles share their A row panel, which is then copied once. Per worker three streams: copy-in (its
 * own), compute (the context's stream), copy-out (its own); device panels and C tiles are double
 * buffered and every reuse of a buffer waits on the event of the last work that read it. Pinned
 * (page-locked, registered, device or managed) operands are copied with cudaMemcpy2DAsync
 * directly; pageable ones go through two pinned staging slots per worker (the host packs one slot,
 * on up to 8 of the library's threads, while the other is on the bus). Workers are issued
 * round-robin from the calling thread, one tile each, so several devices run at once.
 * A 16-bit C whose K is chunked is accumulated in a float32 tile on the device (chunks added with
 * beta 1 in float32) and rounded to its type once, with the caller's beta, by finish_kernel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <new>

#include "cuda/core/core.h"
#include "cuda/hopper/hopper.h"
#include "cuda/mixed/elem.cuh"
#include "cuda/registry.h"
extern "C" {
#include "core/parallel.h"
}

namespace {

const char WHO_S[] = "gk_cuda_sgemm_host", WHO_EX[] = "gk_cuda_gemm_ex_host";
constexpr int64_t ROW_BYTES = 128;         /* device columns padded to 128-byte lines */
constexpr int64_t TILE_MAX = 8192;         /* largest tile side (docs/cuda.md says why) */
constexpr int64_t TILE_MIN_FULL_K = 256;   /* smallest tile side before K is chunked */
constexpr int64_t STAGE_BYTES = 32 << 20;  /* one pinned staging slot, unless a column is larger */
constexpr double DEFAULT_FREE_SHARE = 0.8; /* of cudaMemGetInfo's free memory, without the limit */

/* GEMMKIT_CUDA_MEM_LIMIT: bytes with an optional K, M or G suffix (powers of 1024). 0 when unset
 * or invalid; an invalid value is said under GEMMKIT_VERBOSE. */
int64_t env_limit(int verbose) {
    const char *v = getenv("GEMMKIT_CUDA_MEM_LIMIT");
    if (v == NULL || *v == '\0') return 0;
    char *end = NULL;
    const unsigned long long x = strtoull(v, &end, 10);
    int shift = 0;
    if (end != v && *end != '\0') {
        const char s = *end;
        shift = s == 'K' || s == 'k'   ? 10
                : s == 'M' || s == 'm' ? 20
                : s == 'G' || s == 'g' ? 30
                                       : -1;
        end++;
    }
    if (end == v || *end != '\0' || shift < 0 || v[0] == '-' || x == 0 ||
        x > ((unsigned long long)INT64_MAX >> shift)) {
        if (verbose)
            fprintf(stderr,
                    "gemmkit: GEMMKIT_CUDA_MEM_LIMIT=%s is not a positive byte count (digits and "
                    "an optional K, M or G); ignored\n",
                    v);
        return 0;
    }
    return (int64_t)(x << shift);
}

/* Leading dimension (elements of `size` bytes) of a device matrix with `rows` rows, and its bytes
 * for `cols` columns. */
int64_t dev_ld(int64_t rows, int size) {
    return gk_round_up(rows, ROW_BYTES / size);
}
int64_t dev_bytes(int64_t rows, int64_t cols, int size) {
    return dev_ld(rows, size) * cols * size;
}

struct Shape {
    int64_t a_rows, a_cols, b_rows, b_cols; /* stored panels: rows are the contiguous dimension */
};
Shape shape_of(const gk_gemm_args &g, int64_t mt, int64_t nt, int64_t kc) {
    Shape s;
    s.a_rows = g.transa ? kc : mt, s.a_cols = g.transa ? mt : kc;
    s.b_rows = g.transb ? nt : kc, s.b_cols = g.transb ? kc : nt;
    return s;
}

} // namespace

/* Device bytes one context needs for tiles mt x nt and K chunks of kc: two buffers each of the
 * A panel, the B panel and the C tile, the float32 accumulation tile of a 16-bit C whose K is
 * chunked, plus the workspace the tile call takes, counted with the quarter gk_cuda_workspace adds
 * when it grows: gk_cuda_sgemm's for float32 operands (transposed copies of the panels, the
 * default kernel's stream-K scratch; dispatch.cu's layout), and for gk_cuda_gemm_ex each operand
 * copied K-major (FP8 converted to bfloat16 at worst, float32 split into TF32 hi/lo; gemm_ex.cu).
 */
int64_t gk_ooc_need(const gk_cuda_ctx *ctx, const gk_gemm_args &g, int64_t mt, int64_t nt,
                    int64_t kc, const gk_ooc_types &ty) {
    const Shape s = shape_of(g, mt, nt, kc);
    const int asz = gk_format_size(ty.a), bsz = gk_format_size(ty.b), csz = gk_format_size(ty.c);
    int64_t need = 2 * (dev_bytes(s.a_rows, s.a_cols, asz) + dev_bytes(s.b_rows, s.b_cols, bsz) +
                        dev_bytes(mt, nt, csz));
    if (ty.c != GK_F32 && kc < g.k) need += dev_bytes(mt, nt, 4);
    int64_t ws = 0;
    if (ty.a == GK_F32) { /* gk_cuda_sgemm's path, in floats */
        const int64_t fl = ROW_BYTES / 4;
        ws = 64;
        if (g.transb) ws += gk_round_up(nt * gk_round_up(kc, fl), fl);
        if (g.transa) ws += kc * gk_round_up(mt, fl);
        const int id = gk_cuda_pick_kernel(ctx->sm);
        size_t scratch = GK_SCRATCH_FLAG_BYTES;
        if (id >= 0) {
            int count;
            const gk_kernel_entry *e = &gk_cuda_registry(&count)[id];
            gk_rm_problem p{};
            p.m = nt, p.n = mt, p.k = kc;
            if (e->scratch) {
                const size_t sc = e->scratch(p, ctx->sm, ctx->sm_count);
                if (sc > scratch) scratch = sc;
            }
        }
        ws = (ws + (int64_t)(scratch / sizeof(float))) * 4;
    }
    if (ty.ex) {
        ws += GK_SCRATCH_FLAG_BYTES;
        for (int o = 0; o < 2; o++) {
            const gk_format t = o ? ty.b : ty.a;
            const int size = t == GK_F32 ? 4 : gk_format_size(t) < 2 ? 2 : gk_format_size(t);
            const int64_t ld = t == GK_F32 ? 2 * gk_round_up(kc, 32) : gk_round_up(kc, 128 / size);
            ws += gk_round_up((o ? mt : nt) * ld * size, 256);
        }
    }
    return need + ws + ws / 16 * 4; /* the quarter in whole floats */
}

/* The tiling for a budget of `bytes` device bytes per context: the largest tile side (powers of
 * two from TILE_MAX, capped at half the larger of m and n above 2048 so copies can overlap
 * compute) whose panels hold all of K, down to TILE_MIN_FULL_K; below that K is chunked, taking
 * the largest tile side whose chunk is at least min(K, side). 0 when nothing fits. */
static int gk_ooc_tiling(const gk_cuda_ctx *ctx, const gk_gemm_args &g, const gk_ooc_types &ty,
                         int64_t bytes, int64_t *mt, int64_t *nt, int64_t *kc) {
    int64_t cap = TILE_MAX;
    const int64_t big = g.m > g.n ? g.m : g.n;
    if (big > 2048) {
        const int64_t half = gk_round_up((big + 1) / 2, 256);
        if (half < cap) cap = half;
    }
    for (int64_t t = cap; t >= 8; t = t > 256 ? (t / 2 > 256 ? t / 2 : 256) : t / 2) {
        const int64_t m = t < g.m ? t : g.m, n = t < g.n ? t : g.n;
        if (gk_ooc_need(ctx, g, m, n, g.k, ty) <= bytes) {
            *mt = m, *nt = n, *kc = g.k;
            return 1;
        }
        if (t > TILE_MIN_FULL_K) continue;
        /* the largest chunk that fits, then the same number of chunks balanced */
        int64_t lo = 0, hi = g.k;
        while (lo < hi) {
            const int64_t mid = (lo + hi + 1) / 2;
            if (gk_ooc_need(ctx, g, m, n, mid, ty) <= bytes)
                lo = mid;
            else
                hi = mid - 1;
        }
        const int64_t want = g.k < t ? g.k : t;
        if (lo >= want || (t == 8 && lo >= 1)) {
            const int64_t chunks = (g.k + lo - 1) / lo;
            *mt = m, *nt = n, *kc = (g.k + chunks - 1) / chunks;
            return 1;
        }
    }
    return 0;
}

namespace {

enum { N_EV = 8 }; /* event arrays per worker */

/* A double-buffered operand panel (A's rows or B's columns of one K chunk) on the device: ready,
 * its copy-in is done (copy-in stream); free, the last GEMM reading it is done (compute stream);
 * key, which panel a buffer holds (-1: none or being replaced); cur, the buffer of the newest. */
struct Panel {
    char *d[2] = {};
    cudaEvent_t ready[2] = {}, free[2] = {};
    int64_t key[2] = {-1, -1};
    int cur = 1;
};

struct Worker {
    gk_cuda_ctx *ctx;
    cudaStream_t h2d = nullptr, d2h = nullptr;
    Panel pa, pb;
    char *dc[2] = {};
    float *acc = nullptr; /* the float32 accumulation tile of a chunked 16-bit C */
    char *stage[2] = {};
    /* c_ready: a C buffer's copy-in is done (copy-in stream); c_done: a tile's last GEMM is done
     * (compute stream); c_free: the tile's copy-out is done (copy-out stream); st: a staging
     * slot's last copy is done. */
    cudaEvent_t c_ready[2] = {}, c_done[2] = {}, c_free[2] = {}, st[2] = {};
    int st_next = 0;
    int64_t first = 0, end = 0, next = 0; /* tiles [first, end), the next to issue */
    int64_t pending = -1;                 /* tile whose pageable copy-out waits to be drained */
    /* every event array, for creation and release */
    void event_sets(cudaEvent_t *out[N_EV]) {
        cudaEvent_t *sets[N_EV] = {pa.ready, pb.ready, c_ready, pa.free,
                                   pb.free,  c_done,   c_free,  st};
        memcpy(out, sets, sizeof sets);
    }
};

struct Call {
    const char *who;
    gk_gemm_args g; /* pointers carried as float pointers: byte offsets use the sizes below */
    gk_ooc_types ty;
    int asz, bsz, csz;
    gk_gemm_ex_opts opts; /* scales in the normalised roles (gk_cuda_gemm_ex_host) */
    int64_t mt, nt, kc, tiles_m, tiles_n, chunks;
    int pin_a, pin_b, pin_c; /* the operand is reachable by the copy engines as it is */
    bool acc;                /* K chunked with a 16-bit C: accumulated in w.acc */
    gk_status st = GK_SUCCESS;
};

/* Pageable staging: `cols` columns of `rows` bytes between a strided host matrix (ld bytes) and
 * a packed staging slot, on up to PACK_THREADS of the library's threads: one thread's memcpy
 * reaches a fraction of the host's memory bandwidth, below the bus rate. */
constexpr int PACK_THREADS = 8;
constexpr int64_t PACK_MIN_BYTES = 1 << 20; /* smaller pieces are copied on the calling thread */
struct Pack {
    char *host;
    char *slot;
    int64_t rows, ld, cols;
    int to_host;
};
void pack_part(void *ctx, int id, int nthreads) {
    const Pack &p = *(const Pack *)ctx;
    for (int64_t j = p.cols * id / nthreads; j < p.cols * (id + 1) / nthreads; j++) {
        char *h = p.host + j * p.ld, *s = p.slot + j * p.rows;
        memcpy(p.to_host ? h : s, p.to_host ? s : h, (size_t)p.rows);
    }
}
void pack(char *host, char *slot, int64_t rows, int64_t ld, int64_t cols, int to_host) {
    Pack p = {host, slot, rows, ld, cols, to_host};
    const int64_t bytes = rows * cols;
    int t = bytes < PACK_MIN_BYTES ? 1 : gk_parallel_cpus();
    if (t > PACK_THREADS) t = PACK_THREADS;
    if (t > cols) t = (int)cols;
    if (t <= 1)
        pack_part(&p, 0, 1);
    else
        gk_parallel(t, pack_part, &p);
}

int fail_cuda(Call &cl, const char *what, cudaError_t err) {
    if (cl.st == GK_SUCCESS) cl.st = gk_cuda_status(cl.who, what, err);
    return 0;
}

/* Copy engines read page-locked, registered, device and managed memory directly; anything else
 * (pageable memory, or an answer CUDA does not give) is staged. */
int pinned(const void *p) {
    cudaPointerAttributes at;
    const cudaError_t err = cudaPointerGetAttributes(&at, p);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return at.type != cudaMemoryTypeUnregistered;
}

/* device (ldd bytes) <- host column-major: cols columns of `rows` bytes (ld bytes apart), on the
 * copy-in stream. */
int copy_in(Call &cl, Worker &w, char *dst, int64_t ldd, const char *src, int64_t ld, int64_t rows,
            int64_t cols, int pin) {
    cudaError_t err;
    if (pin) {
        err = cudaMemcpy2DAsync(dst, ldd, src, ld, rows, cols, cudaMemcpyDefault, w.h2d);
        return err == cudaSuccess || fail_cuda(cl, "cudaMemcpy2DAsync (copy-in)", err);
    }
    const int64_t per = STAGE_BYTES / rows > 0 ? STAGE_BYTES / rows : 1;
    for (int64_t c0 = 0; c0 < cols; c0 += per) {
        const int64_t nc = cols - c0 < per ? cols - c0 : per;
        const int s = w.st_next;
        w.st_next ^= 1;
        if ((err = cudaEventSynchronize(w.st[s])))
            return fail_cuda(cl, "cudaEventSynchronize (staging)", err);
        pack(const_cast<char *>(src + c0 * ld), w.stage[s], rows, ld, nc, 0);
        if ((err = cudaMemcpy2DAsync(dst + c0 * ldd, ldd, w.stage[s], rows, rows, nc,
                                     cudaMemcpyHostToDevice, w.h2d)))
            return fail_cuda(cl, "cudaMemcpy2DAsync (copy-in)", err);
        if ((err = cudaEventRecord(w.st[s], w.h2d))) return fail_cuda(cl, "cudaEventRecord", err);
    }
    return 1;
}

/* host (ld bytes) <- device (ldd bytes), cols columns of `rows` bytes, on the copy-out stream;
 * pageable C waits here. */
int copy_out(Call &cl, Worker &w, char *dst, int64_t ld, const char *src, int64_t ldd, int64_t rows,
             int64_t cols, int pin) {
    cudaError_t err;
    if (pin) {
        err = cudaMemcpy2DAsync(dst, ld, src, ldd, rows, cols, cudaMemcpyDefault, w.d2h);
        return err == cudaSuccess || fail_cuda(cl, "cudaMemcpy2DAsync (copy-out)", err);
    }
    const int64_t per = STAGE_BYTES / rows > 0 ? STAGE_BYTES / rows : 1;
    int64_t prev = -1;
    int prev_s = 0;
    /* unpack chunk `from` (slot s) once its copy is done */
    auto unpack = [&](int64_t from, int s) {
        if ((err = cudaEventSynchronize(w.st[s])))
            return fail_cuda(cl, "cudaEventSynchronize (copy-out)", err);
        const int64_t nc = cols - from < per ? cols - from : per;
        pack(dst + from * ld, w.stage[s], rows, ld, nc, 1);
        return 1;
    };
    for (int64_t c0 = 0; c0 < cols; c0 += per) {
        const int64_t nc = cols - c0 < per ? cols - c0 : per;
        const int s = w.st_next;
        w.st_next ^= 1;
        if ((err = cudaEventSynchronize(w.st[s])))
            return fail_cuda(cl, "cudaEventSynchronize (staging)", err);
        if ((err = cudaMemcpy2DAsync(w.stage[s], rows, src + c0 * ldd, ldd, rows, nc,
                                     cudaMemcpyDeviceToHost, w.d2h)))
            return fail_cuda(cl, "cudaMemcpy2DAsync (copy-out)", err);
        if ((err = cudaEventRecord(w.st[s], w.d2h))) return fail_cuda(cl, "cudaEventRecord", err);
        if (prev >= 0 && !unpack(prev, prev_s)) return 0;
        prev = c0, prev_s = s;
    }
    return prev < 0 || unpack(prev, prev_s);
}

/* One tile GEMM on the context's stream, by the in-memory call's own path: gk_cuda_sgemm's for
 * gk_cuda_sgemm_host, gk_cuda_gemm_ex's otherwise (C of type ct, leading dimensions in elements).
 */
gk_status tile_gemm(const Call &cl, gk_cuda_ctx *ctx, int64_t m, int64_t n, int64_t k, float beta,
                    const void *a, int64_t lda, const void *b, int64_t ldb, gk_format ct, void *c,
                    int64_t ldc) {
    const gk_gemm_args &g = cl.g;
    const gk_trans ta = g.transa ? GK_TRANS : GK_NO_TRANS, tb = g.transb ? GK_TRANS : GK_NO_TRANS;
    if (cl.ty.ex)
        return gk_cuda_gemm_ex_run(ctx, cl.who, GK_COL_MAJOR, ta, tb, m, n, k, g.alpha, cl.ty.a, a,
                                   lda, cl.ty.b, b, ldb, beta, ct, c, ldc, &cl.opts);
    /* float32 throughout (ct too): the float32 router decides, as for gk_cuda_sgemm */
    return gk_cuda_sgemm_fp32(ctx, cl.who, GK_COL_MAJOR, ta, tb, m, n, k, g.alpha, (const float *)a,
                              lda, (const float *)b, ldb, beta, (float *)c, ldc);
}

/* C (ct, m x n, ldc) = acc + beta * C, rounded to ct once (gemm_ex's epilogue store); C not read
 * when beta == 0. Threads run down C's contiguous columns. */
__global__ void finish_kernel(const float *acc, int64_t ld_acc, void *c, int64_t ldc, gk_format ct,
                              int64_t m, int64_t n, float beta) {
    for (int64_t j = blockIdx.y; j < n; j += gridDim.y)
        for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < m;
             i += (int64_t)gridDim.x * blockDim.x)
            gk_mixed::store_c(c, i + j * ldc, ct, acc[i + j * ld_acc], beta);
}

/* Where tile t's C starts in the host matrix, and its size. */
struct TileC {
    char *host;
    int64_t m, n;
};
TileC tile_c(const Call &cl, int64_t t) {
    const gk_gemm_args &g = cl.g;
    const int64_t i0 = t / cl.tiles_n * cl.mt, j0 = t % cl.tiles_n * cl.nt;
    return {(char *)g.c + (i0 + j0 * g.ldc) * cl.csz, g.m - i0 < cl.mt ? g.m - i0 : cl.mt,
            g.n - j0 < cl.nt ? g.n - j0 : cl.nt};
}

/* Drain a pageable tile's copy-out (after the next tile's work is queued, so the GPU stays busy
 * while the host waits). */
int drain(Call &cl, Worker &w) {
    if (w.pending < 0) return 1;
    const int64_t t = w.pending;
    const TileC tc = tile_c(cl, t);
    const int cs = (int)((t - w.first) & 1);
    w.pending = -1;
    cudaError_t err;
    if ((err = cudaStreamWaitEvent(w.d2h, w.c_done[cs], 0)))
        return fail_cuda(cl, "cudaStreamWaitEvent", err);
    if (!copy_out(cl, w, tc.host, cl.g.ldc * cl.csz, w.dc[cs], dev_ld(cl.mt, cl.csz) * cl.csz,
                  tc.m * cl.csz, tc.n, 0))
        return 0;
    if ((err = cudaEventRecord(w.c_free[cs], w.d2h))) return fail_cuda(cl, "cudaEventRecord", err);
    return 1;
}

/* Make the panel `key` (rows x cols elements of `size` bytes of a host operand at src, ld) current
 * in p: unless it is already on the device, copy it into the other buffer once the GEMMs reading
 * that one are done (consecutive tiles of a row share their A panel, which is then copied once). */
int stage_panel(Call &cl, Worker &w, Panel &p, int64_t key, const char *src, int64_t ld,
                int64_t rows, int64_t cols, int size, int pinned) {
    if (p.key[p.cur] == key) return 1;
    const int slot = p.cur ^ 1;
    cudaError_t err;
    if ((err = cudaStreamWaitEvent(w.h2d, p.free[slot], 0)))
        return fail_cuda(cl, "cudaStreamWaitEvent", err);
    p.key[slot] = -1;
    if (!copy_in(cl, w, p.d[slot], dev_ld(rows, size) * size, src, ld * size, rows * size, cols,
                 pinned))
        return 0;
    if ((err = cudaEventRecord(p.ready[slot], w.h2d))) return fail_cuda(cl, "cudaEventRecord", err);
    p.key[slot] = key, p.cur = slot;
    return 1;
}

/* Queue the worker's next tile: its panels (unless already on the device), its GEMMs over the K
 * chunks (into w.acc, then rounded into C's tile, when cl.acc), its copy-out. */
int issue(Call &cl, Worker &w) {
    const gk_gemm_args &g = cl.g;
    const int64_t t = w.next++, ti = t / cl.tiles_n, tj = t % cl.tiles_n;
    const int64_t i0 = ti * cl.mt, j0 = tj * cl.nt;
    const TileC tc = tile_c(cl, t);
    const int64_t m = tc.m, n = tc.n;
    const int cs = (int)((t - w.first) & 1);
    const int64_t ldc_d = dev_ld(cl.mt, cl.csz), ld_acc = dev_ld(cl.mt, 4);
    cudaError_t err;
    const cudaStream_t cmp = w.ctx->stream;
#define GK_TRY(call, what)                                                                         \
    if ((err = (call)) != cudaSuccess) return fail_cuda(cl, what, err)
    if (g.beta != 0.0f) { /* C tile in: after the copy-out of the tile that last used the buffer */
        GK_TRY(cudaStreamWaitEvent(w.h2d, w.c_free[cs], 0), "cudaStreamWaitEvent");
        if (!copy_in(cl, w, w.dc[cs], ldc_d * cl.csz, tc.host, g.ldc * cl.csz, m * cl.csz, n,
                     cl.pin_c))
            return 0;
        GK_TRY(cudaEventRecord(w.c_ready[cs], w.h2d), "cudaEventRecord");
    }
    for (int64_t q = 0; q < cl.chunks; q++) {
        const int64_t k0 = q * cl.kc, k = g.k - k0 < cl.kc ? g.k - k0 : cl.kc;
        const Shape s = shape_of(g, m, n, k);
        const char *a_src =
            (const char *)g.a + (g.transa ? k0 + i0 * g.lda : i0 + k0 * g.lda) * cl.asz;
        const char *b_src =
            (const char *)g.b + (g.transb ? j0 + k0 * g.ldb : k0 + j0 * g.ldb) * cl.bsz;
        if (!stage_panel(cl, w, w.pa, ti * cl.chunks + q, a_src, g.lda, s.a_rows, s.a_cols, cl.asz,
                         cl.pin_a) ||
            !stage_panel(cl, w, w.pb, tj * cl.chunks + q, b_src, g.ldb, s.b_rows, s.b_cols, cl.bsz,
                         cl.pin_b))
            return 0;
        GK_TRY(cudaStreamWaitEvent(cmp, w.pa.ready[w.pa.cur], 0), "cudaStreamWaitEvent");
        GK_TRY(cudaStreamWaitEvent(cmp, w.pb.ready[w.pb.cur], 0), "cudaStreamWaitEvent");
        if (q == 0)
            GK_TRY(cudaStreamWaitEvent(cmp, g.beta != 0.0f ? w.c_ready[cs] : w.c_free[cs], 0),
                   "cudaStreamWaitEvent");
        /* later chunks add to the tile: beta 1 (in float32 when cl.acc; the caller's beta is
         * applied by finish_kernel) */
        const float beta = q > 0 ? 1.0f : cl.acc ? 0.0f : g.beta;
        const gk_status st =
            cl.acc
                ? tile_gemm(cl, w.ctx, m, n, k, beta, w.pa.d[w.pa.cur], dev_ld(s.a_rows, cl.asz),
                            w.pb.d[w.pb.cur], dev_ld(s.b_rows, cl.bsz), GK_F32, w.acc, ld_acc)
                : tile_gemm(cl, w.ctx, m, n, k, beta, w.pa.d[w.pa.cur], dev_ld(s.a_rows, cl.asz),
                            w.pb.d[w.pb.cur], dev_ld(s.b_rows, cl.bsz), cl.ty.c, w.dc[cs], ldc_d);
        if (st != GK_SUCCESS) {
            if (cl.st == GK_SUCCESS) cl.st = st;
            return 0;
        }
        GK_TRY(cudaEventRecord(w.pa.free[w.pa.cur], cmp), "cudaEventRecord");
        GK_TRY(cudaEventRecord(w.pb.free[w.pb.cur], cmp), "cudaEventRecord");
    }
    if (cl.acc) {
        const int64_t bx = (m + 255) / 256;
        const dim3 grid((unsigned)(bx < 64 ? bx : 64), (unsigned)(n < 65535 ? n : 65535));
        finish_kernel<<<grid, 256, 0, cmp>>>(w.acc, ld_acc, w.dc[cs], ldc_d, cl.ty.c, m, n, g.beta);
        GK_TRY(cudaGetLastError(), "finish kernel launch");
    }
    GK_TRY(cudaEventRecord(w.c_done[cs], cmp), "cudaEventRecord");
    if (!drain(cl, w)) return 0; /* the previous tile, pageable C */
    if (cl.pin_c) {
        GK_TRY(cudaStreamWaitEvent(w.d2h, w.c_done[cs], 0), "cudaStreamWaitEvent");
        if (!copy_out(cl, w, tc.host, g.ldc * cl.csz, w.dc[cs], ldc_d * cl.csz, m * cl.csz, n, 1))
            return 0;
        GK_TRY(cudaEventRecord(w.c_free[cs], w.d2h), "cudaEventRecord");
    } else {
        w.pending = t;
    }
#undef GK_TRY
    return 1;
}

/* Streams, events and buffers of one worker; on failure what was made stays recorded in w for
 * release(). */
int acquire(Call &cl, Worker &w, int staged) {
    cudaError_t err;
    if ((err = cudaStreamCreateWithFlags(&w.h2d, cudaStreamNonBlocking)) ||
        (err = cudaStreamCreateWithFlags(&w.d2h, cudaStreamNonBlocking)))
        return fail_cuda(cl, "cudaStreamCreateWithFlags", err);
    cudaEvent_t *evs[N_EV];
    w.event_sets(evs);
    for (cudaEvent_t *e : evs)
        for (int i = 0; i < 2; i++)
            if ((err = cudaEventCreateWithFlags(&e[i], cudaEventDisableTiming)))
                return fail_cuda(cl, "cudaEventCreateWithFlags", err);
    const Shape s = shape_of(cl.g, cl.mt, cl.nt, cl.kc);
    const size_t a = (size_t)dev_bytes(s.a_rows, s.a_cols, cl.asz),
                 b = (size_t)dev_bytes(s.b_rows, s.b_cols, cl.bsz),
                 c = (size_t)dev_bytes(cl.mt, cl.nt, cl.csz);
    for (int i = 0; i < 2; i++)
        if ((err = cudaMalloc(&w.pa.d[i], a)) || (err = cudaMalloc(&w.pb.d[i], b)) ||
            (err = cudaMalloc(&w.dc[i], c)))
            return fail_cuda(cl, "cudaMalloc (tile buffers)", err);
    if (cl.acc && (err = cudaMalloc(&w.acc, (size_t)dev_bytes(cl.mt, cl.nt, 4))))
        return fail_cuda(cl, "cudaMalloc (tile buffers)", err);
    if (staged) {
        int64_t col = cl.mt * cl.csz;
        if (cl.nt * cl.bsz > col) col = cl.nt * cl.bsz;
        if (cl.kc * cl.asz > col) col = cl.kc * cl.asz;
        if (cl.kc * cl.bsz > col) col = cl.kc * cl.bsz;
        if (cl.mt * cl.asz > col) col = cl.mt * cl.asz;
        const size_t bytes = (size_t)(col > STAGE_BYTES ? col : STAGE_BYTES);
        for (int i = 0; i < 2; i++)
            if ((err = cudaMallocHost(&w.stage[i], bytes)))
                return fail_cuda(cl, "cudaMallocHost (staging)", err);
    }
    return 1;
}

/* Wait for everything the worker queued, then free it all; errors here are only recorded when
 * the call had none. */
void release(Call &cl, Worker &w) {
    gk_device_guard guard(w.ctx->device);
    cudaError_t err = cudaSuccess, e;
    const cudaStream_t ss[3] = {w.h2d, w.ctx->stream, w.d2h};
    for (int i = 0; i < 3; i++)
        if ((i == 1 || ss[i] != nullptr) && (e = cudaStreamSynchronize(ss[i])) && !err) err = e;
    if (err && cl.st == GK_SUCCESS) fail_cuda(cl, "cudaStreamSynchronize", err);
    for (int i = 0; i < 2; i++) {
        cudaFree(w.pa.d[i]), cudaFree(w.pb.d[i]), cudaFree(w.dc[i]);
        if (w.stage[i]) cudaFreeHost(w.stage[i]);
    }
    if (w.acc) cudaFree(w.acc);
    cudaEvent_t *evs[N_EV];
    w.event_sets(evs);
    for (cudaEvent_t *ev : evs)
        for (int i = 0; i < 2; i++)
            if (ev[i]) cudaEventDestroy(ev[i]);
    if (w.h2d) cudaStreamDestroy(w.h2d);
    if (w.d2h) cudaStreamDestroy(w.d2h);
    (void)cudaGetLastError();
}

/* C = beta * C on the host (alpha == 0 or K == 0): nothing for the GPU to do. A 16-bit C is
 * rounded as the in-memory call's scale kernel rounds it (elem.cuh's store_c); beta == 1 leaves
 * C as it is, as there. */
void scale_host(const gk_gemm_args &g, gk_format ct) {
    if (g.beta == 1.0f) return;
    for (int64_t j = 0; j < g.n; j++) {
        if (ct == GK_F32) {
            float *c = g.c + j * g.ldc;
            for (int64_t i = 0; i < g.m; i++)
                c[i] = g.beta == 0.0f ? 0.0f : g.beta * c[i];
            continue;
        }
        uint16_t *c = (uint16_t *)g.c + j * g.ldc;
        for (int64_t i = 0; i < g.m; i++) {
            const float v = g.beta == 0.0f ? 0.0f : 0.0f + g.beta * gk_decode_scalar(ct, c[i]);
            c[i] = (uint16_t)gk_encode_scalar(ct, v, 0);
        }
    }
}

/* The checks of gk_cuda_sgemm_host_multi and gk_cuda_gemm_ex_host_multi on the context list. */
gk_status check_ctxs(const char *who, gk_cuda_ctx *const *ctxs, int nctx) {
    if (ctxs == NULL) return gk_fail(GK_ERR_INVALID_VALUE, "%s: ctxs is NULL", who);
    if (nctx < 1) return gk_fail(GK_ERR_INVALID_VALUE, "%s: nctx=%d is not >= 1", who, nctx);
    for (int i = 0; i < nctx; i++)
        if (ctxs[i] == NULL) return gk_fail(GK_ERR_INVALID_VALUE, "%s: ctxs[%d] is NULL", who, i);
    for (int i = 0; i < nctx; i++)
        for (int j = 0; j < i; j++)
            if (ctxs[i] == ctxs[j])
                return gk_fail(GK_ERR_INVALID_VALUE,
                               "%s: ctxs[%d] and ctxs[%d] are the same context", who, j, i);
    return GK_SUCCESS;
}

} // namespace

/* The plan of a call (for the _multi entry points and the tests): per-context budget in bytes,
 * the tiling. */
gk_status gk_ooc_plan(gk_cuda_ctx *const *ctxs, int nctx, const gk_gemm_args &g, int64_t *mt,
                      int64_t *nt, int64_t *kc, int64_t *budget_bytes, const gk_ooc_types &ty) {
    const char *who = ty.ex ? WHO_EX : WHO_S;
    const int verbose = ctxs[0]->verbose;
    const int64_t limit = env_limit(verbose);
    int64_t budget = INT64_MAX;
    for (int i = 0; i < nctx; i++) {
        int64_t b = limit;
        if (b == 0) {
            gk_device_guard guard(ctxs[i]->device);
            size_t free_b = 0, total = 0;
            cudaError_t err = guard.error();
            if (err == cudaSuccess) err = cudaMemGetInfo(&free_b, &total);
            if (err != cudaSuccess) return gk_cuda_status(who, "cudaMemGetInfo", err);
            int sharing = 0; /* contexts of this call on the same device split its free memory */
            for (int j = 0; j < nctx; j++)
                sharing += ctxs[j]->device == ctxs[i]->device;
            b = (int64_t)(DEFAULT_FREE_SHARE * (double)free_b) / sharing;
        }
        if (b < budget) budget = b;
    }
    *budget_bytes = budget;
    /* the tiling is common to all contexts; the smallest budget decides */
    if (!gk_ooc_tiling(ctxs[0], g, ty, budget, mt, nt, kc))
        return gk_fail(GK_ERR_OUT_OF_MEMORY,
                       "%s: a device memory budget of %lld bytes%s holds not even 8 x 8 tiles", who,
                       (long long)budget, limit ? " (GEMMKIT_CUDA_MEM_LIMIT)" : "");
    return GK_SUCCESS;
}

/* The engine, after the checks: cl.who, cl.g, cl.ty, the sizes and cl.opts are set. */
static gk_status ooc_run(gk_cuda_ctx *const *ctxs, int nctx, Call &cl) {
    const gk_gemm_args &g = cl.g;
    if (g.m == 0 || g.n == 0) return GK_SUCCESS;
    if (gk_gemm_is_scale_only(&g)) {
        scale_host(g, cl.ty.c);
        return GK_SUCCESS;
    }
    int64_t budget;
    gk_status st = gk_ooc_plan(ctxs, nctx, g, &cl.mt, &cl.nt, &cl.kc, &budget, cl.ty);
    if (st != GK_SUCCESS) return st;
    cl.tiles_m = (g.m + cl.mt - 1) / cl.mt, cl.tiles_n = (g.n + cl.nt - 1) / cl.nt;
    cl.chunks = (g.k + cl.kc - 1) / cl.kc;
    cl.acc = cl.chunks > 1 && cl.ty.c != GK_F32;
    cl.pin_a = pinned(g.a), cl.pin_b = pinned(g.b), cl.pin_c = pinned(g.c);
    const int64_t tiles = cl.tiles_m * cl.tiles_n;
    const int used = tiles < nctx ? (int)tiles : nctx;
    if (ctxs[0]->verbose)
        fprintf(stderr,
                "gemmkit: %s m=%lld n=%lld k=%lld a=%s b=%s c=%s tiles=%lldx%lld (%lld) kc=%lld "
                "(%lld chunks) contexts=%d budget=%lld pinned a=%d b=%d c=%d\n",
                cl.who, (long long)g.m, (long long)g.n, (long long)g.k, gk_format_label(cl.ty.a),
                gk_format_label(cl.ty.b), gk_format_label(cl.ty.c), (long long)cl.mt,
                (long long)cl.nt, (long long)tiles, (long long)cl.kc, (long long)cl.chunks, used,
                (long long)budget, cl.pin_a, cl.pin_b, cl.pin_c);

    Worker *ws = new (std::nothrow) Worker[used];
    if (ws == NULL) return gk_fail(GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", cl.who);
    const int staged = !cl.pin_a || !cl.pin_b || !cl.pin_c;
    int ok = 1, made = 0;
    for (int i = 0; i < used && ok; i++, made++) {
        Worker &w = ws[i];
        w.ctx = ctxs[i];
        w.first = w.next = tiles * i / used, w.end = tiles * (i + 1) / used;
        gk_device_guard guard(w.ctx->device);
        if (guard.error() != cudaSuccess)
            ok = fail_cuda(cl, "cudaSetDevice", guard.error());
        else
            ok = acquire(cl, w, staged);
    }
    /* round-robin, one tile per worker per round, so every device has work queued */
    for (int more = ok; ok && more;) {
        more = 0;
        for (int i = 0; i < used && ok; i++) {
            Worker &w = ws[i];
            if (w.next >= w.end) continue;
            gk_device_guard guard(w.ctx->device);
            ok = guard.error() == cudaSuccess ? issue(cl, w)
                                              : fail_cuda(cl, "cudaSetDevice", guard.error());
            more |= w.next < w.end;
        }
    }
    for (int i = 0; i < used && ok; i++) {
        gk_device_guard guard(ws[i].ctx->device);
        ok = drain(cl, ws[i]);
    }
    for (int i = 0; i < made; i++)
        release(cl, ws[i]);
    delete[] ws;
    return cl.st;
}

gk_status gk_cuda_sgemm_host_multi(gk_cuda_ctx *const *ctxs, int nctx, gk_layout layout,
                                   gk_trans transa, gk_trans transb, int64_t m, int64_t n,
                                   int64_t k, float alpha, const float *a, int64_t lda,
                                   const float *b, int64_t ldb, float beta, float *c, int64_t ldc) {
    gk_clear_error();
    gk_status st = check_ctxs(WHO_S, ctxs, nctx);
    if (st != GK_SUCCESS) return st;
    Call cl;
    cl.who = WHO_S;
    st = gk_check_gemm(WHO_S, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
                       &cl.g);
    if (st != GK_SUCCESS) return st;
    cl.asz = cl.bsz = cl.csz = 4;
    memset(&cl.opts, 0, sizeof cl.opts);
    return ooc_run(ctxs, nctx, cl);
}

gk_status gk_cuda_sgemm_host(gk_cuda_ctx *ctx, gk_layout layout, gk_trans transa, gk_trans transb,
                             int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                             int64_t lda, const float *b, int64_t ldb, float beta, float *c,
                             int64_t ldc) {
    gk_clear_error();
    if (ctx == NULL) return gk_fail(GK_ERR_INVALID_VALUE, "%s: ctx is NULL", WHO_S);
    return gk_cuda_sgemm_host_multi(&ctx, 1, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb,
                                    beta, c, ldc);
}

gk_status gk_cuda_gemm_ex_host_multi(gk_cuda_ctx *const *ctxs, int nctx, gk_layout layout,
                                     gk_trans transa, gk_trans transb, int64_t m, int64_t n,
                                     int64_t k, float alpha, gk_format atype, const void *a,
                                     int64_t lda, gk_format btype, const void *b, int64_t ldb,
                                     float beta, gk_format ctype, void *c, int64_t ldc,
                                     const gk_gemm_ex_opts *opts) {
    gk_clear_error();
    gk_status st = check_ctxs(WHO_EX, ctxs, nctx);
    if (st != GK_SUCCESS) return st;
    /* gk_cuda_gemm_ex's checks, in its order (gemm_ex.cu) */
    if ((st = gk_gemm_ex_check_formats(WHO_EX, (int)atype, (int)btype, (int)ctype))) return st;
    Call cl;
    cl.who = WHO_EX;
    cl.asz = gk_format_size(atype), cl.bsz = gk_format_size(btype), cl.csz = gk_format_size(ctype);
    st = gk_check_gemm_sized(WHO_EX, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta,
                             c, ldc, cl.asz, cl.bsz, cl.csz, &cl.g);
    if (st != GK_SUCCESS) return st;
    if (cl.g.m == 0 || cl.g.n == 0) return GK_SUCCESS;
    gk_gemm_ex_opts o;
    memset(&o, 0, sizeof o);
    if (opts != NULL) o = *opts;
    const bool scale_only = gk_gemm_is_scale_only(&cl.g);
    if ((!scale_only && ((st = gk_gemm_ex_check_aligned(WHO_EX, "a", a, cl.asz)) ||
                         (st = gk_gemm_ex_check_aligned(WHO_EX, "b", b, cl.bsz)))) ||
        (st = gk_gemm_ex_check_aligned(WHO_EX, "c", c, cl.csz)))
        return st;
    if (!scale_only &&
        ((o.scale_a && (st = gk_gemm_ex_check_aligned(WHO_EX, "opts->scale_a", o.scale_a, 4))) ||
         (o.scale_b && (st = gk_gemm_ex_check_aligned(WHO_EX, "opts->scale_b", o.scale_b, 4)))))
        return st;
    /* the normalised A is the caller's B in a row-major call: its type and scale follow it */
    const bool row = layout == GK_ROW_MAJOR;
    cl.ty.a = row ? btype : atype, cl.ty.b = row ? atype : btype, cl.ty.c = ctype, cl.ty.ex = true;
    if (row) {
        const int t = cl.asz;
        cl.asz = cl.bsz, cl.bsz = t;
    }
    cl.opts = o;
    cl.opts.scale_a = row ? o.scale_b : o.scale_a, cl.opts.scale_b = row ? o.scale_a : o.scale_b;
    return ooc_run(ctxs, nctx, cl);
}

gk_status gk_cuda_gemm_ex_host(gk_cuda_ctx *ctx, gk_layout layout, gk_trans transa, gk_trans transb,
                               int64_t m, int64_t n, int64_t k, float alpha, gk_format atype,
                               const void *a, int64_t lda, gk_format btype, const void *b,
                               int64_t ldb, float beta, gk_format ctype, void *c, int64_t ldc,
                               const gk_gemm_ex_opts *opts) {
    gk_clear_error();
    if (ctx == NULL) return gk_fail(GK_ERR_INVALID_VALUE, "%s: ctx is NULL", WHO_EX);
    return gk_cuda_gemm_ex_host_multi(&ctx, 1, layout, transa, transb, m, n, k, alpha, atype, a,
                                      lda, btype, b, ldb, beta, ctype, c, ldc, opts);
}
