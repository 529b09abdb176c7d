/*
 * stream_k.cu — the tiled launchers of the production FP32 path (plan kinds GK_PLAN_TILED and
 * GK_PLAN_SPLIT_K, plan.h): one tile configuration of configs.h (chosen by select.cu) under a
 * data-parallel, stream-K or split-K schedule.
 *
 * Stream-K. With one block per SM (128x256 tiles), G SMs run T tiles in ceil(T / G) waves, and
 * when T is not a multiple of G the last wave leaves SMs idle: at 4096, 512 tiles on 132 SMs are
 * 3.88 waves of work in 4 waves of time; at 8192, 15.5 in 16. The schedule here is the
 * data-parallel + stream-K hybrid of Osama et al., "Stream-K", PPoPP 2023:
 *   - the first T - r tiles (r = T mod G) run one block per tile, the data-parallel kernel
 *     (data_parallel.cuh);
 *   - the k-tiles of the last r tiles, I = r * ceil(K / BK) iterations, are divided evenly among
 *     up to G more blocks, a second grid launched after the first.
 *     Block j takes the iterations [I*j/G, I*(j+1)/G), fewer than a tile's, so it touches at most
 *     two tiles. Where its range cuts a tile, the piece ("segment") writes its partial sums to a
 *     scratch slot, and the block whose segment completes the tile's counter (atomicAdd) adds the
 *     tile's slots in k order and applies alpha and beta. Adding in k order, its own slot
 *     included, makes the result bitwise independent of which block finishes last, and no block
 *     ever waits for another, so nothing assumes the blocks are resident together.
 * It is used only where it pays: configurations that fit one block per SM, an idle last wave worth
 * at least MIN_SAVED_KTILES k-tiles, at least MIN_SEGMENT k-tiles per stream-K block and at most
 * MAX_SPLIT blocks per tile; otherwise, or without scratch memory, the launch is the data-parallel
 * kernel alone (ladder step 11).
 * Scratch (gk_launch_env): GK_SCRATCH_FLAG_BYTES of tile counters, which the finishing block resets
 * to zero, then two BM x BN float slots per stream-K block (its first and its last segment).
 * Measurements and the choices behind the constants: docs/ladder.md, step 15.
 *
 * Split-K. When m x n has too few tiles to fill the SMs even once (64 x 8192: 128 tiles of 64x64)
 * and K is long, every tile's K is cut into `split` equal runs of k-tiles; block (piece, tile)
 * writes its partial tile to scratch piece `piece` (a plain m x n matrix, so the tile epilogue
 * writes it unchanged with alpha 1, beta 0), and gk_reduce_pieces (gemv.cu) adds the pieces in
 * piece order and applies alpha and beta: two launches, no counters, no dependence on which block
 * runs when.
 */
#include "cuda/gemm/gemm.h"

#include "cuda/gemm/configs.h"
#include "cuda/gemm/data_parallel.cuh"
#include "cuda/ptx/ptx.cuh"

namespace {

/* Stream-K is used when the plain schedule's last wave leaves idle SM time worth at least this
 * many k-tiles per SM (idle share of the wave x k-tiles per tile): each shared tile costs its
 * blocks a slot write, a fence and the finishing block's slot reads, about this much time. */
constexpr int64_t MIN_SAVED_KTILES = 32;
/* Fewest k-tiles per stream-K block: shorter segments cost more in pipeline fill and slots than
 * they recover. */
constexpr int64_t MIN_SEGMENT = 4;
/* Most blocks sharing one tile: the finishing block reads every slot of its tile alone. */
constexpr int64_t MAX_SPLIT = 8;
constexpr int64_t MAX_SK_TILES = GK_SCRATCH_FLAG_BYTES / sizeof(int);

/* One call's schedule, computed on the host and passed to the kernel. */
struct Plan {
    int64_t dp_tiles;  /* tiles run whole: blocks 0 .. dp_tiles-1, tiles 0 .. dp_tiles-1 */
    int64_t ktiles;    /* k-tiles per tile */
    int64_t iters;     /* k-tiles of the remaining tiles, shared by the stream-K blocks */
    int64_t sk_blocks; /* 0: the plain schedule */
};

template <class C> Plan make_plan(const gk_rm_problem &p, int sm_count, int per_sm) {
    Plan pl{};
    const int64_t tiles = gk_ceil_div(p.m, C::BM) * gk_ceil_div(p.n, C::BN);
    pl.ktiles = gk_ceil_div(p.k, C::BK);
    pl.dp_tiles = tiles;
    /* Only for configurations that fit one block per SM. With several, a partial last wave is
     * still spread over every SM (a block alone on an SM runs faster), so there is little idle
     * time to recover, and the fixup costs more than it saves: on H100 with 64x128 tiles (2 per
     * SM) stream-K measured slower than the plain schedule. */
    if (per_sm != 1) return pl;
    const int64_t g = sm_count, r = g > 0 ? tiles % g : 0;
    if (r == 0 || r > MAX_SK_TILES) return pl;
    if ((g - r) * pl.ktiles < MIN_SAVED_KTILES * g) return pl;
    const int64_t iters = r * pl.ktiles;
    if (iters >= ((int64_t)1 << 30)) return pl; /* iterations are counted in 32 bits */
    int64_t blocks = iters / MIN_SEGMENT < g ? iters / MIN_SEGMENT : g;
    if (blocks > r * MAX_SPLIT) blocks = r * MAX_SPLIT;
    if (blocks <= r) return pl; /* no tile would be shared: nothing to gain */
    pl.dp_tiles = tiles - r;
    pl.iters = iters;
    pl.sk_blocks = blocks;
    return pl;
}

/* First iteration of stream-K block j (j == sk_blocks: the end). */
__device__ __forceinline__ int seg_begin(const Plan &pl, int j) {
    return (int)(pl.iters * j / pl.sk_blocks);
}

/* The stream-K block whose range holds iteration x: the largest j with seg_begin(j) <= x. */
__device__ __forceinline__ int block_of(const Plan &pl, int x) {
    return (int)(((int64_t)(x + 1) * pl.sk_blocks + pl.iters - 1) / pl.iters) - 1;
}

/* Where iteration `it` of stream-K block j lies: tile t (counted from the first stream-K tile) at
 * origin (m0, n0), k-tiles [k0, k0 + len) of it, the block's segment ending at the next tile
 * boundary or at the block's end. */
struct Segment {
    int t, k0, len, end;
    int64_t m0, n0;
};

__device__ __forceinline__ Segment segment_at(const gk_rm_problem &p, const Plan &pl, int group_m,
                                              int bm, int bn, int j, int it) {
    Segment s;
    const int kt = (int)pl.ktiles;
    s.end = seg_begin(pl, j + 1);
    s.t = it / kt, s.k0 = it % kt;
    s.len = s.end - it < kt - s.k0 ? s.end - it : kt - s.k0;
    gk_gemm::tile_origin(p, bm, bn, group_m, pl.dp_tiles + s.t, &s.m0, &s.n0);
    return s;
}

/* The stream-K blocks: block j computes the iterations [seg_begin(j), seg_begin(j + 1)) of the
 * tiles dp_tiles .. dp_tiles + r - 1, at most two segments since it has fewer than ceil(K/BK)
 * iterations. Launched after the data-parallel grid. Only `it` is live across the main loop
 * (what is derived from it is recomputed from an opaque copy, gk_ptx::opaque), so the loop keeps
 * the data-parallel kernel's register budget. */
template <class C, bool VEC_B>
__global__ void __launch_bounds__(C::THREADS, C::MIN_BLOCKS)
    sgemm_stream_k(const gk_rm_problem p, const int group_m, const bool vec_c, const Plan pl,
                   float *slots, int *counters) {
    constexpr int TM = C::TM, TN = C::TN, SLOT = C::BM * C::BN;
    __shared__ int finishing; /* this block completed the tile's segments */
    const int kt = (int)pl.ktiles;
    int it = seg_begin(pl, blockIdx.x);
    for (;;) {
        float acc[TM][TN];
        {
            const Segment s = segment_at(p, pl, group_m, C::BM, C::BN, blockIdx.x, it);
            const int64_t k_end = (int64_t)(s.k0 + s.len) * C::BK;
            const int64_t k_stop = k_end < p.k ? k_end : p.k;
            gk_gemm::tile_mainloop<C, VEC_B>(p, s.m0, s.n0, s.k0, s.len, k_stop, acc);
        }
        it = gk_ptx::opaque(it);
        const int j = gk_ptx::opaque((int)blockIdx.x);
        const Segment s = segment_at(p, pl, group_m, C::BM, C::BN, j, it);
        it += s.len;
        if (s.len == kt) { /* a whole tile */
            gk_gemm::epilogue<C>(p, s.m0, s.n0, acc, vec_c);
        } else {
            /* Slot of block b's segment of tile t: its first segment (2b) if its range starts in
             * this tile, else its last (2b + 1). Per thread, the slot holds the thread's TM x TN
             * accumulators strided by THREADS, so every access is coalesced. The accesses are
             * scalar on purpose: a 128-bit store or load names four aligned consecutive
             * registers, and ptxas then allocates the accumulators as aligned quads, which puts
             * acc[i][j] in the register bank of the B fragment value it is multiplied with; the
             * main loop's FFMAs then stall on bank conflicts (measured with Nsight Compute:
             * docs/ladder.md, step 15). */
            const int tile_it = s.t * kt;
            const int first = block_of(pl, tile_it), last = block_of(pl, tile_it + kt - 1);
            auto slot = [&](int b) {
                return slots + (int64_t)(2 * b + (seg_begin(pl, b) >= tile_it ? 0 : 1)) * SLOT +
                       threadIdx.x;
            };
            float *mine = slot(j);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int jj = 0; jj < TN; ++jj)
                    __stcg(mine + (i * TN + jj) * C::THREADS, acc[i][jj]);
            __threadfence(); /* the slot is visible GPU-wide before the counter says so */
            __syncthreads();
            if (threadIdx.x == 0) {
                const int seen = atomicAdd(counters + s.t, 1);
                finishing = seen == last - first;
                if (finishing) counters[s.t] = 0; /* every other segment has counted: reset */
            }
            __syncthreads();
            if (finishing) {
                __threadfence();
                /* Sum the tile's slots in k order (block order), own slot included. */
                auto add_slot = [&](int b, bool assign) {
                    const float *src = slot(b);
#pragma unroll
                    for (int i = 0; i < TM; ++i)
#pragma unroll
                        for (int jj = 0; jj < TN; ++jj) {
                            const float v = __ldcg(src + (i * TN + jj) * C::THREADS);
                            acc[i][jj] = assign ? v : acc[i][jj] + v;
                        }
                };
                add_slot(first, true);
                for (int b = first + 1; b <= last; ++b)
                    add_slot(b, false);
                gk_gemm::epilogue<C>(p, s.m0, s.n0, acc, vec_c);
            }
        }
        if (it >= s.end) break;
        __syncthreads(); /* the last fragment reads of this segment's stages are done */
    }
}

/* Split-K: block b computes piece b / tiles (k-tiles [kt * piece / split, kt * (piece + 1) /
 * split)) of tile b % tiles and stores the raw sums into that piece's m x n block of ws. */
template <class C, bool VEC_B>
__global__ void __launch_bounds__(C::THREADS, C::MIN_BLOCKS)
    sgemm_split_k(const gk_rm_problem p, const int group_m, const int64_t tiles, const int split,
                  float *ws) {
    const int64_t piece = (int64_t)blockIdx.x / tiles, tile = (int64_t)blockIdx.x - piece * tiles;
    int64_t m0, n0;
    gk_gemm::tile_origin(p, C::BM, C::BN, group_m, tile, &m0, &n0);
    const int64_t kt = gk_ceil_div(p.k, C::BK);
    const int64_t kt0 = kt * piece / split, kt1 = kt * (piece + 1) / split;
    const int64_t k_stop = kt1 * C::BK < p.k ? kt1 * C::BK : p.k;
    float acc[C::TM][C::TN];
    gk_gemm::tile_mainloop<C, VEC_B>(p, m0, n0, kt0, kt1 - kt0, k_stop, acc);
    gk_rm_problem q = p;
    q.ldc = gk_pieces_ld(p.n);
    q.c = ws + piece * p.m * q.ldc;
    q.alpha = 1.0f, q.beta = 0.0f;
    gk_gemm::epilogue<C>(q, m0, n0, acc, true);
}

/* The schedule of p on this device. The resident-block count is the 16-byte-copy variant's, for
 * both variants, so the plan (and the scratch size) do not depend on where B lies: the dispatcher
 * asks for the scratch before it knows whether B is a transposed copy. */
template <class C> cudaError_t plan(const gk_rm_problem &p, int sm_count, Plan *pl) {
    cudaError_t e = gk_gemm::allow_smem<C>(sgemm_stream_k<C, false>);
    if (e == cudaSuccess) e = gk_gemm::allow_smem<C>(sgemm_stream_k<C, true>);
    int per_sm = 0;
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sgemm_stream_k<C, true>,
                                                          C::THREADS, C::SMEM_BYTES);
    if (e != cudaSuccess) return e;
    *pl = make_plan<C>(p, sm_count, per_sm);
    return cudaSuccess;
}

template <class C> size_t scratch_bytes(const gk_rm_problem &p, int sm_count) {
    Plan pl;
    if (plan<C>(p, sm_count, &pl) != cudaSuccess || pl.sk_blocks == 0) return 0;
    return GK_SCRATCH_FLAG_BYTES + (size_t)(2 * pl.sk_blocks) * C::BM * C::BN * sizeof(float);
}

template <class C>
cudaError_t launch_stream_k(const gk_rm_problem &p, int group_m, const gk_launch_env &env) {
    Plan pl;
    cudaError_t e = plan<C>(p, env.sm_count, &pl);
    if (e != cudaSuccess) return e;
    if (pl.sk_blocks == 0 || env.scratch == nullptr)
        return gk_gemm::launch<C>(p, group_m, env.stream);
    if (pl.dp_tiles > 0) {
        e = gk_gemm::launch_tiles<C>(p, group_m, env.stream, pl.dp_tiles);
        if (e != cudaSuccess) return e;
    }
    /* The stream-K grid follows in stream order: it starts once the whole data-parallel grid has
     * finished. Letting it start earlier, as a programmatic dependent launch released by the
     * data-parallel blocks as they start, measured the same on H100 (docs/ladder.md, step 15), so
     * the simpler launch is kept. */
    const bool vec_c = gk_vec_ok(p.c, p.ldc);
    int *counters = static_cast<int *>(env.scratch);
    float *slots =
        reinterpret_cast<float *>(static_cast<char *>(env.scratch) + GK_SCRATCH_FLAG_BYTES);
    auto kern = gk_gemm::vec_b_ok(p) ? sgemm_stream_k<C, true> : sgemm_stream_k<C, false>;
    kern<<<(unsigned)pl.sk_blocks, C::THREADS, C::SMEM_BYTES, env.stream>>>(p, group_m, vec_c, pl,
                                                                            slots, counters);
    return cudaGetLastError();
}

template <class C>
cudaError_t launch_split_k(const gk_rm_problem &p, int group_m, int split,
                           const gk_launch_env &env) {
    const int64_t tiles = gk_ceil_div(p.m, C::BM) * gk_ceil_div(p.n, C::BN);
    if (tiles * split > 0x7fffffff) return cudaErrorInvalidValue;
    float *ws = reinterpret_cast<float *>(static_cast<char *>(env.scratch) + GK_SCRATCH_FLAG_BYTES);
    auto kern = gk_gemm::vec_b_ok(p) ? sgemm_split_k<C, true> : sgemm_split_k<C, false>;
    cudaError_t e = gk_gemm::allow_smem<C>(kern);
    if (e != cudaSuccess) return e;
    kern<<<(unsigned)(tiles * split), C::THREADS, C::SMEM_BYTES, env.stream>>>(p, group_m, tiles,
                                                                               split, ws);
    e = cudaGetLastError();
    return e == cudaSuccess ? gk_reduce_pieces(p, ws, split, env.stream) : e;
}

/* A configuration built for several blocks per SM never gets a stream-K plan (make_plan), so it
 * runs the data-parallel kernel alone and no stream-K kernel is instantiated for it. */
template <class C> constexpr bool can_stream_k() {
    return C::MIN_BLOCKS == 1;
}

template <class C> size_t scratch(const gk_rm_problem &p, int sm_count) {
    if constexpr (can_stream_k<C>())
        return scratch_bytes<C>(p, sm_count);
    else
        return 0;
}

template <class C>
cudaError_t launch(const gk_rm_problem &p, int group_m, bool stream_k, const gk_launch_env &env) {
    if constexpr (can_stream_k<C>())
        if (stream_k) return launch_stream_k<C>(p, group_m, env);
    return gk_gemm::launch<C>(p, group_m, env.stream);
}

struct Choice {
    int group_m;
    cudaError_t (*launch)(const gk_rm_problem &, int, bool, const gk_launch_env &);
    size_t (*scratch)(const gk_rm_problem &, int);
    cudaError_t (*split_k)(const gk_rm_problem &, int, int, const gk_launch_env &);
};

#define GK_CFG(bm, bn, bk, wm, wn, wtr, st, mb, ld, ord)                                           \
    gk_gemm::Config<bm, bn, bk, wm, wn, wtr, st, mb, ld, ord>
#define GK_CHOICE(id, bm, bn, bk, wm, wn, wtr, st, mb, ld, ord, g)                                 \
    {g, launch<GK_CFG(bm, bn, bk, wm, wn, wtr, st, mb, ld, ord)>,                                  \
     scratch<GK_CFG(bm, bn, bk, wm, wn, wtr, st, mb, ld, ord)>,                                    \
     launch_split_k<GK_CFG(bm, bn, bk, wm, wn, wtr, st, mb, ld, ord)>},
const Choice choices[] = {GK_AUTOTUNE_CONFIGS(GK_CHOICE)};
#undef GK_CHOICE
#undef GK_CFG

} // namespace

size_t gk_gemm_tiled_scratch(int config, bool stream_k, const gk_rm_problem &p, int sm_count) {
    return stream_k ? choices[config].scratch(p, sm_count) : 0;
}

cudaError_t gk_gemm_tiled(int config, bool stream_k, const gk_rm_problem &p,
                          const gk_launch_env &env) {
    const Choice &c = choices[config];
    return c.launch(p, c.group_m, stream_k, env);
}

size_t gk_gemm_split_k_scratch(int split, const gk_rm_problem &p) {
    return GK_SCRATCH_FLAG_BYTES + (size_t)split * p.m * gk_pieces_ld(p.n) * sizeof(float);
}

cudaError_t gk_gemm_split_k(int config, int split, const gk_rm_problem &p,
                            const gk_launch_env &env) {
    const Choice &c = choices[config];
    return c.split_k(p, c.group_m, split, env);
}
