/*
 * batched.cu (gemm) — gk_gemm_batched: a batch of same-shape problems in one grid, each block
 * computing tile blockIdx.x of item blockIdx.y with the production data-parallel kernel's body
 * (data_parallel.cuh: whole_tile, the multi-stage SIMT main loop and epilogue), so a batch of
 * small products fills the GPU where one alone would not. Items past gridDim.y's limit go to
 * further launches of the same kernel. Items with m and n both at most 64 go to the small-item
 * kernel instead (batched_small.cu: one block sized to the item, no padding to a 64x64 tile).
 *
 * Tile configuration (configs.h, pick below): the largest tile whose blocks over the whole batch
 * fill nearly one wave of every SM's resident blocks, without padding an item's area by more than
 * a quarter; otherwise the smallest tile. Small items thus get small tiles, and large batches of
 * large items the large ones. Stream-K is not used: a batch's many tiles leave no idle last wave
 * worth splitting.
 */
#include "cuda/gemm/batched.h"

#include "cuda/gemm/batched_small.h"
#include "cuda/gemm/configs.h"
#include "cuda/gemm/data_parallel.cuh"

namespace {

enum { MAX_GRID_Y = 65535 };

/* Block (x, y) computes tile x of item y. VEC_B: 16-byte B copies (checked on the host).
 * vec_c_ld: C's leading dimension allows float4 rows; each item's C pointer is tested here. */
template <class C, bool VEC_B>
__global__ void __launch_bounds__(C::THREADS, C::MIN_BLOCKS)
    sgemm_batched(const gk_rm_problem p, const gk_batch_items<const float> a,
                  const gk_batch_items<const float> b, const gk_batch_items<float> c,
                  const int group_m, const bool vec_c_ld) {
    int64_t m0, n0;
    gk_gemm::tile_origin(p, C::BM, C::BN, group_m, blockIdx.x, &m0, &n0);
    gk_rm_problem q = p;
    q.a = a.at(blockIdx.y), q.b = b.at(blockIdx.y), q.c = c.at(blockIdx.y);
    gk_gemm::whole_tile<C, VEC_B>(q, m0, n0, vec_c_ld && (uintptr_t)q.c % 16u == 0);
}

struct Launch {
    const gk_rm_problem &p;
    gk_batch_items<const float> a, b;
    gk_batch_items<float> c;
    int64_t count;
    bool vec_b;
    bool vec_c_ld;
    cudaStream_t stream;
};

template <class C> cudaError_t launch_config(const Launch &l, int group_m) {
    const int64_t tiles = gk_ceil_div(l.p.m, C::BM) * gk_ceil_div(l.p.n, C::BN);
    if (tiles > 0x7fffffff) return cudaErrorInvalidValue;
    auto kern = l.vec_b ? sgemm_batched<C, true> : sgemm_batched<C, false>;
    cudaError_t e = gk_gemm::allow_smem<C>(kern);
    /* gridDim.y holds at most MAX_GRID_Y items: larger batches are several launches */
    for (int64_t first = 0; e == cudaSuccess && first < l.count; first += MAX_GRID_Y) {
        const int64_t n = l.count - first < MAX_GRID_Y ? l.count - first : MAX_GRID_Y;
        kern<<<dim3((unsigned)tiles, (unsigned)n), C::THREADS, C::SMEM_BYTES, l.stream>>>(
            l.p, l.a.from(first), l.b.from(first), l.c.from(first), group_m, l.vec_c_ld);
        e = cudaGetLastError();
    }
    return e;
}

struct Config {
    int bm, bn, min_blocks, group_m;
    cudaError_t (*launch)(const Launch &, int);
};

#define GK_BATCH_CONFIG(id, bm, bn, bk, wm, wn, wtr, st, mb, ld, ord, g)                           \
    {bm, bn, mb, g, launch_config<gk_gemm::Config<bm, bn, bk, wm, wn, wtr, st, mb, ld, ord>>},
const Config configs[] = {GK_AUTOTUNE_CONFIGS(GK_BATCH_CONFIG)};
#undef GK_BATCH_CONFIG

/* May configuration c run `count` items of p? Its tiles must pad an item's area by at most a
 * quarter, and its blocks over the batch must fill at least 9/10 of one wave (sm_count * MIN_BLOCKS
 * resident blocks): a wave a few blocks short still ends in one round, where the next smaller tile
 * would take two (256 tiles of 128x128 on 132 SMs holding two each; 128 tiles of 128x256 on 132
 * SMs holding one). The forced-configuration sweep behind the rule: bench/results/h100/README.md,
 * "Batched SGEMM: small items and the tile rule". */
bool admits(const Config &c, const gk_rm_problem &p, int64_t count, int sm_count) {
    const int64_t tm = gk_ceil_div(p.m, c.bm), tn = gk_ceil_div(p.n, c.bn);
    const double blocks = (double)(tm * tn) * (double)count;
    const double wave = (double)sm_count * c.min_blocks;
    const bool tight = 4.0 * (double)(tm * c.bm) * (double)(tn * c.bn) <= 5.0 * p.m * p.n;
    return tight && 10.0 * blocks >= 9.0 * wave;
}

/* The configuration for `count` items of p: the largest tile admits() allows (the first listed of
 * equal area), else the smallest. */
const Config &pick(const gk_rm_problem &p, int64_t count, int sm_count) {
    const Config *best = nullptr, *smallest = &configs[0];
    for (const Config &c : configs) {
        if (c.bm * c.bn < smallest->bm * smallest->bn) smallest = &c;
        if (admits(c, p, count, sm_count) && (best == nullptr || c.bm * c.bn > best->bm * best->bn))
            best = &c;
    }
    return best != nullptr ? *best : *smallest;
}

} // namespace

cudaError_t gk_gemm_batched(const gk_rm_problem &p, gk_batch_items<const float> a,
                            gk_batch_items<const float> b, gk_batch_items<float> c, int64_t count,
                            bool vec_b, bool vec_c_ld, const gk_launch_env &env) {
    if (gk_batched_small_fits(p)) return gk_gemm_batched_small(p, a, b, c, count, env.stream);
    const Config &cfg = pick(p, count, env.sm_count);
    return cfg.launch(Launch{p, a, b, c, count, vec_b, vec_c_ld, env.stream}, cfg.group_m);
}
