/*
 * gemm_sm90.cu — launcher of the sm_90a tensor-core kernel (gemm_sm90.cuh) behind the contract of
 * hopper.h: checks what the kernel can take, builds the TMA tensor maps (the driver's
 * cuTensorMapEncodeTiled, resolved through the runtime so the library does not link libcuda),
 * picks the configuration for the operand types and layouts and the tile width for the problem's
 * size (sm90_plan.h), and launches a persistent grid.
 */
#ifndef GK_SM90_CM
#define GK_SM90_CM 2
#endif

#include <stdio.h>

#include <atomic>

#include "cuda/gemm/util.cuh"
#include "cuda/hopper/gemm_sm90.cuh"
#include "cuda/hopper/hopper.h"
#include "cuda/hopper/sm90_plan.h"
#include "cuda/hopper/tensor_map.h"

namespace {

using namespace gk_sm90;

/* The wgmma that multiplies ta by tb, or -1 when there is none. */
int op_for(gk_format ta, gk_format tb) {
    if (ta == GK_BF16 && tb == GK_BF16) return OP_BF16;
    if (ta == GK_F16 && tb == GK_F16) return OP_F16;
    if (ta == GK_TF32 && tb == GK_TF32) return OP_TF32;
    if (ta == GK_F8_E4M3FN && tb == GK_F8_E4M3FN) return OP_E4M3_E4M3;
    if (ta == GK_F8_E4M3FN && tb == GK_F8_E5M2) return OP_E4M3_E5M2;
    if (ta == GK_F8_E5M2 && tb == GK_F8_E4M3FN) return OP_E5M2_E4M3;
    return -1;
}

/* CTAs per cluster (along M, sharing each B tile through TMA multicast). */
constexpr int CM = GK_SM90_CM;

int out_for(gk_format tc) {
    return tc == GK_F32 ? OUT_F32 : tc == GK_BF16 ? OUT_BF16 : tc == GK_F16 ? OUT_F16 : -1;
}

/* A 2-D tensor map: `inner` contiguous elements per line, `outer` lines `stride` bytes apart, read
 * in boxes of box_inner x box_outer elements with the 128-byte swizzle (box_inner * element size
 * is 128 bytes), or unswizzled (float32 scales). */
bool make_map(CUtensorMap *map, int ebytes, const void *base, int64_t inner, int64_t outer,
              int64_t stride, int box_inner, int box_outer, bool swizzle = true) {
    const PFN_cuTensorMapEncodeTiled_v12000 encode = gk_tensor_map_encode();
    if (!encode) return false;
    const CUtensorMapDataType type = ebytes == 4   ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                                     : ebytes == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16
                                                   : CU_TENSOR_MAP_DATA_TYPE_UINT8;
    const cuuint64_t dims[2] = {(cuuint64_t)inner, (cuuint64_t)outer};
    const cuuint64_t strides[1] = {(cuuint64_t)stride};
    const cuuint32_t box[2] = {(cuuint32_t)box_inner, (cuuint32_t)box_outer};
    const cuuint32_t elem_strides[2] = {1, 1};
    return encode(map, type, 2, const_cast<void *>(base), dims, strides, box, elem_strides,
                  CU_TENSOR_MAP_INTERLEAVE_NONE,
                  swizzle ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE,
                  CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

/* Tensor map of one operand as the kernel's producer reads it: K-major lines of K (box: one
 * stage's K by the tile's rows), or MN-major lines of M/N (box: a 64-wide chunk by the stage's K,
 * or by 1/k_parts of it: config::B_KPARTS).
 */
bool operand_map(CUtensorMap *map, int ebytes, const void *base, int mn_major, int64_t rows,
                 int64_t k, int64_t ld, int tile_rows, int k_parts = 1) {
    const int bk = ROW_BYTES / ebytes;
    return mn_major ? make_map(map, ebytes, base, rows, k, ld * ebytes, CHUNK, bk / k_parts)
                    : make_map(map, ebytes, base, k, rows, ld * ebytes, bk, tile_rows);
}

/* Tensor map of per-row scales in hopper.h's GK_TCS_ROW form: lines of ld floats (rows, then
 * zeros), one per 128 of K; a box is one stage's line segment for the tile's rows. */
bool scale_map(CUtensorMap *map, const gk_tc_scales &sc, int64_t k, int tile_rows) {
    return make_map(map, 4, sc.s, sc.ld, gk_ceil_div(k, (int64_t)128), sc.ld * 4, tile_rows, 1,
                    false);
}

/* A launch of `ctas` CTAs of `smem` dynamic shared memory bytes, in clusters of cm along x. */
cudaLaunchConfig_t launch_config(int ctas, int cm, int smem, cudaStream_t stream,
                                 cudaLaunchAttribute *attr) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(ctas), cfg.blockDim = dim3(THREADS);
    cfg.dynamicSmemBytes = smem, cfg.stream = stream;
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = cm, attr->val.clusterDim.y = 1, attr->val.clusterDim.z = 1;
    cfg.attrs = attr, cfg.numAttrs = 1;
    return cfg;
}

/* Allows C's dynamic shared memory on the current device, once per device and configuration: a
 * call of a few microseconds on the GPU must not spend as long on the host asking again. The
 * cache holds a device property computed the same way by every thread (a race only repeats the
 * query), so concurrent callers and a forked child (which cannot use CUDA) are unaffected. */
template <class C> cudaError_t allow_smem() {
    static std::atomic<uint64_t> done{0};
    int dev = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err != cudaSuccess) return err;
    const uint64_t bit = dev < 64 ? (uint64_t)1 << dev : 0;
    if (bit && (done.load(std::memory_order_relaxed) & bit)) return cudaSuccess;
    err = cudaFuncSetAttribute(gemm_kernel<C>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               C::SMEM_BYTES);
    if (err == cudaSuccess && bit) done.fetch_or(bit, std::memory_order_relaxed);
    return err;
}

/* Allows C's dynamic shared memory and counts the clusters that can be resident at once (a GPC's
 * SMs do not always pair up), once per device as allow_smem. Every configuration holds one CTA
 * per SM (gemm_sm90.cuh), so the count is the same for all of them. */
template <class C> cudaError_t slots_for(const gk_launch_env &env, int *slots) {
    static std::atomic<int> known[64];
    int dev = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err != cudaSuccess) return err;
    if (dev < 64 && (*slots = known[dev].load(std::memory_order_relaxed)) > 0) return cudaSuccess;
    if ((err = allow_smem<C>()) != cudaSuccess) return err;
    *slots = env.sm_count / C::CM;
    if (C::CM > 1) {
        cudaLaunchAttribute attr;
        const cudaLaunchConfig_t cfg =
            launch_config(env.sm_count / C::CM * C::CM, C::CM, C::SMEM_BYTES, env.stream, &attr);
        err = cudaOccupancyMaxActiveClusters(slots, gemm_kernel<C>, &cfg);
        if (err != cudaSuccess) return err;
    }
    if (*slots < 1) return cudaErrorInvalidConfiguration;
    if (dev < 64) known[dev].store(*slots, std::memory_order_relaxed);
    return cudaSuccess;
}

/* How one problem runs (sm90_plan.h): tile width, K chunks of kc blocks, split or whole tiles,
 * and the split plan's workspace (chunks x m x ws_ld floats). */
struct plan {
    int bn;
    int64_t kblocks, kc, chunks;
    bool split;
    int64_t ws_ld;
    size_t ws_bytes;
};

/* Runs p with configuration C and plan pl on a persistent grid of `slots` clusters (fewer when
 * there are fewer units), then the split plan's reduction. */
template <class C>
cudaError_t launch(const gk_tc_problem &p, const plan &pl, const gk_launch_env &env, int slots) {
    const int eb = op_traits<C::OP>::elem_bytes;
    CUtensorMap ma, mb, ma_lo, mb_lo, mc, msa;
    if (!operand_map(&ma, eb, p.a, p.a_mn_major, p.m, p.k, p.lda, BM) ||
        !operand_map(&mb, eb, p.b, p.b_mn_major, p.n, p.k, p.ldb, C::BN / C::CM, C::B_KPARTS))
        return cudaErrorInvalidValue;
    if (p.k_lo > 0) {
        if (!operand_map(&ma_lo, eb, (const char *)p.a + p.k_lo * eb, 0, p.m, p.k, p.lda, BM) ||
            !operand_map(&mb_lo, eb, (const char *)p.b + p.k_lo * eb, 0, p.n, p.k, p.ldb,
                         C::BN / C::CM))
            return cudaErrorInvalidValue;
    } else {
        ma_lo = ma, mb_lo = mb;
    }
    if (pl.chunks > 1 && !pl.split && !C::CHUNKS) return cudaErrorNotSupported;
    params kp;
    kp.m = p.m, kp.n = p.n, kp.k = p.k;
    /* tiles_m counts groups of CM tile rows: a cluster takes CM tiles of one column at a time */
    kp.tiles_m = (int)gk_ceil_div(p.m, (int64_t)BM * C::CM),
    kp.tiles_n = (int)gk_ceil_div(p.n, C::BN);
    kp.tiles = kp.tiles_m * kp.tiles_n;
    kp.kblocks = (int)pl.kblocks;
    kp.split3 = p.k_lo > 0;
    kp.split3_swapped = p.batch_n; /* swapped by the launcher, or a column-major caller's */
    kp.kc = (int)pl.kc, kp.chunks = (int)pl.chunks, kp.split = pl.split;
    kp.units = kp.tiles * (pl.split ? kp.chunks : 1);
    kp.ws = pl.split ? (float *)env.scratch : nullptr, kp.ws_ld = pl.ws_ld;
    kp.c = p.c, kp.ldc = p.ldc, kp.c_type = out_for(p.tc), kp.c_trans = p.c_trans;
    const int cb = p.tc == GK_F32 ? 4 : 2;
    kp.c_pair = !p.c_trans && (uintptr_t)p.c % (2 * cb) == 0 && p.ldc % 2 == 0;
    /* beta != 0 reads C: those calls keep the direct path (docs/cuda.md). C's lines are the
     * kernel's rows, or its columns when C is stored transposed. */
    const int64_t line = p.c_trans ? p.m : p.n, lines = p.c_trans ? p.n : p.m;
    kp.c_tma = C::TMA_EPI && !pl.split && p.beta == 0.0f && (uintptr_t)p.c % 16 == 0 &&
               (p.ldc * cb) % 16 == 0 &&
               make_map(&mc, cb, p.c, line, lines, p.ldc * cb, ROW_BYTES / cb, 64);
    kp.c_tma_last = (line * cb) % 16 == 0;
    if (!kp.c_tma) mc = ma;
    kp.alpha = p.alpha, kp.beta = p.beta;
    kp.scale_a = p.scale_a, kp.scale_b = p.scale_b;
    msa = ma; /* unused unless the configuration is block-scaled */
    if (C::SC != SC_NONE && !scale_map(&msa, p.bs_a, p.k, BM)) return cudaErrorInvalidValue;
    kp.blk = p.bs_b.kind == GK_TCS_BLK128 ? p.bs_b.s : nullptr, kp.blk_ld = p.bs_b.ld;
    kp.blk_rows = (int)gk_ceil_div(p.n, (int64_t)128);

    cudaError_t err = allow_smem<C>();
    if (err != cudaSuccess) return err;
    const int clusters = kp.units < slots ? kp.units : slots;
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg =
        launch_config(clusters * C::CM, C::CM, C::SMEM_BYTES, env.stream, &attr);
    err = cudaLaunchKernelEx(&cfg, gemm_kernel<C>, ma, mb, ma_lo, mb_lo, mc, msa, kp);
    if (err == cudaSuccess) err = cudaGetLastError();
    if (err != cudaSuccess || !pl.split) return err;
    const int64_t threads = p.m * ((p.n + 1) / 2);
    reduce_chunks<<<(unsigned)gk_ceil_div(threads, (int64_t)256), 256, 0, env.stream>>>(kp);
    return cudaGetLastError();
}

/* The configurations compiled for one kind of problem: operand types, major orders, FP8
 * promotion and block scales, with the tile widths BNS (widest first; 64 and 32, where present,
 * are the narrow widths). Only the widths listed are compiled: each is a kernel. */
template <int OP, bool A_MN, bool B_MN, bool PROMOTE, int SC, int... BNS> struct family {
    static constexpr int count = sizeof...(BNS);
    static constexpr int bns[count] = {BNS...};
    static constexpr bool promote = PROMOTE || SC != SC_NONE;
    template <int BN> using cfg = config<OP, BN, A_MN, B_MN, PROMOTE, CM, SC>;
    using first = cfg<bns[0]>;
    /* whether width bn can sum several K chunks in a tile */
    static bool chunks_ok(int bn) {
        bool ok = false;
        ((ok = ok || (bn == BNS && cfg<BNS>::CHUNKS)), ...);
        return ok;
    }
    /* the widths of 64 columns and more, into out; returns how many */
    static int wides(int *out) {
        int n = 0;
        for (int b : bns)
            if (b >= 64) out[n++] = b;
        return n;
    }
    static bool has(int bn) { return ((bn == BNS) || ...); }
    static cudaError_t run(const gk_tc_problem &p, const plan &pl, const gk_launch_env &env,
                           int slots) {
        cudaError_t err = cudaErrorNotSupported;
        ((pl.bn == BNS ? (err = launch<cfg<BNS>>(p, pl, env, slots)) : err), ...);
        return err;
    }
};

bool block_scaled(const gk_tc_problem &p) {
    return p.bs_a.kind != GK_TCS_NONE || p.bs_b.kind != GK_TCS_NONE;
}

/* f(family) for p's types and layouts; cudaErrorNotSupported when no family takes it. 16-bit
 * operands with A K-major take every width, narrow ones with B K-major only (the 64-wide chunks of
 * an MN-major B); an MN-major A keeps 256 and 128 (for K chunks) and the narrow widths (a swapped
 * problem's weights stored K x N). FP8: the promoted product (a 256-wide tile in two halves:
 * config::PARTS), fast accumulation and block scales each with their own widths. */
template <class F> cudaError_t with_family(const gk_tc_problem &p, F &&f) {
    switch (op_for(p.ta, p.tb)) {
#define GK_SM90_16BIT(OP)                                                                          \
    case OP:                                                                                       \
        if (p.a_mn_major && p.b_mn_major)                                                          \
            return f(family<OP, true, true, false, SC_NONE, 256, 128>{});                          \
        if (p.a_mn_major) return f(family<OP, true, false, false, SC_NONE, 256, 128, 64, 32>{});   \
        if (p.b_mn_major) return f(family<OP, false, true, false, SC_NONE, 256, 192, 128>{});      \
        return f(family<OP, false, false, false, SC_NONE, 256, 192, 128, 64, 32>{});
        GK_SM90_16BIT(OP_BF16)
        GK_SM90_16BIT(OP_F16)
#undef GK_SM90_16BIT
    case OP_TF32:
        return f(family<OP_TF32, false, false, false, SC_NONE, 256, 192, 128, 64, 32>{});
#define GK_SM90_FP8(OP)                                                                            \
    if (p.fp8_fast_accum) return f(family<OP, false, false, false, SC_NONE, 256, 64, 32>{});       \
    return f(family<OP, false, false, true, SC_NONE, 256, 192, 128, 64, 32>{});
    case OP_E4M3_E4M3:
        if (block_scaled(p))
            return f(family<OP_E4M3_E4M3, false, false, true, SC_K128, 256, 128>{});
        GK_SM90_FP8(OP_E4M3_E4M3)
    case OP_E4M3_E5M2:
        if (block_scaled(p)) return cudaErrorNotSupported;
        GK_SM90_FP8(OP_E4M3_E5M2)
    case OP_E5M2_E4M3:
        if (block_scaled(p)) return cudaErrorNotSupported;
        GK_SM90_FP8(OP_E5M2_E4M3)
#undef GK_SM90_FP8
    default:
        return cudaErrorNotSupported;
    }
}

/* p with its operands exchanged: C^T (n x m) = B^T A^T, C stored the other way round. */
gk_tc_problem swapped(const gk_tc_problem &p) {
    gk_tc_problem q = p;
    q.m = p.n, q.n = p.m;
    q.ta = p.tb, q.tb = p.ta;
    q.a = p.b, q.lda = p.ldb, q.a_mn_major = p.b_mn_major;
    q.b = p.a, q.ldb = p.lda, q.b_mn_major = p.a_mn_major;
    q.c_trans = !p.c_trans;
    q.scale_a = p.scale_b, q.scale_b = p.scale_a;
    q.batch_n = !p.batch_n;
    return q;
}

/* Whether the kernel takes p swapped: no block scales (their layouts are per operand), the new B
 * (the old A) K-major, which the narrow widths need, and an MN-major new A only in a 16-bit type.
 * The pointers and leading dimensions meet the TMA rules either way (gk_hopper_supports), so the
 * plan depends on no pointer: a caller sizes the workspace before it has its operands' copies. */
bool swappable(const gk_tc_problem &p) {
    return !block_scaled(p) && !p.a_mn_major && (!p.b_mn_major || gk_format_size(p.tb) == 2);
}

/* The problem as the kernel runs it (swapped or not) and its plan, for a family Fam, on `slots`
 * resident clusters; with_ws: a split plan may use the workspace. */
template <class Fam>
cudaError_t make_plan(const gk_tc_problem &q, int slots, bool with_ws, plan *pl) {
    const int eb = gk_format_size(q.ta);
    pl->kblocks = gk_ceil_div(q.k, (int64_t)(ROW_BYTES / eb));
    /* the non-batch dimension sets the chunks (sm90_plan.h); the promoted FP8 product adds its
     * stages in registers already and keeps K whole */
    const int64_t w = q.batch_n ? q.m : q.n;
    pl->kc = Fam::promote ? pl->kblocks : gk_sm90_chunk_blocks(w, pl->kblocks, CM, slots);
    pl->chunks = gk_ceil_div(pl->kblocks, pl->kc);
    const bool chunked = pl->chunks > 1;
    int bn = q.tile_n;
    if (!bn) {
        const int narrow = gk_sm90_narrow_bn(q.n);
        if (narrow && Fam::has(narrow)) {
            bn = narrow;
        } else {
            /* 64 columns and more; a tile that sums several chunks needs a temporary beside its
             * accumulators, which the wider ones have no room for */
            int wide[Fam::count], nw = 0;
            for (int i = 0; i < Fam::count; ++i)
                if (Fam::bns[i] >= 64 && (!chunked || Fam::chunks_ok(Fam::bns[i])))
                    wide[nw++] = Fam::bns[i];
            if (nw == 0) return cudaErrorNotSupported;
            bn = gk_sm90_pick_bn(q.m, q.n, CM, slots, wide, nw);
        }
    }
    if (!Fam::has(bn)) return cudaErrorNotSupported;
    const int64_t tiles = gk_ceil_div(q.m, (int64_t)BM * CM) * gk_ceil_div(q.n, (int64_t)bn);
    bool split = chunked && with_ws &&
                 (q.split >= 0 ? q.split == 1
                               : gk_sm90_split(tiles, pl->chunks, slots) || !Fam::chunks_ok(bn));
    if (chunked && !split && !Fam::chunks_ok(bn)) return cudaErrorNotSupported;
    if (chunked && !split && q.batch_variant && !q.tile_n) {
        /* whole tiles without the invariance: K in one chunk, every width (the widest too) */
        pl->kc = pl->kblocks, pl->chunks = 1;
        int wide[Fam::count];
        bn = gk_sm90_narrow_bn(q.n) && Fam::has(gk_sm90_narrow_bn(q.n))
                 ? gk_sm90_narrow_bn(q.n)
                 : gk_sm90_pick_bn(q.m, q.n, CM, slots, wide, Fam::wides(wide));
    }
    pl->bn = bn, pl->split = split;
    pl->ws_ld = 2 * gk_ceil_div(q.n, 2);
    pl->ws_bytes = split ? (size_t)(256 * gk_ceil_div(pl->chunks * q.m * pl->ws_ld * 4, 256)) : 0;
    return cudaSuccess;
}

/* Resident clusters for Fam (every configuration holds one CTA per SM: the same for all). */
template <class Fam> cudaError_t fam_slots(const gk_launch_env &env, int *slots) {
    return slots_for<typename Fam::first>(env, slots);
}

/* The problem the kernel runs for p (swapped or not). */
gk_tc_problem oriented(const gk_tc_problem &p) {
    const bool swap = p.swap >= 0 ? p.swap == 1 : gk_sm90_swap(p.m, p.n);
    return swap && swappable(p) ? swapped(p) : p;
}

/* 1 when this library holds sm_90a code for the kernel (it may be built for other targets only). */
bool built_for_sm90a() {
    static const bool built = [] {
        cudaFuncAttributes attr;
        return cudaFuncGetAttributes(&attr,
                                     gemm_kernel<config<OP_BF16, 256, false, false, false, CM>>) ==
                   cudaSuccess &&
               attr.binaryVersion == 90;
    }();
    return built;
}

} // namespace

/* Looked up once per process (a function-local static: thread-safe, and valid in a forked child
 * since the driver's code stays mapped). */
PFN_cuTensorMapEncodeTiled_v12000 gk_tensor_map_encode(void) {
    static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
        void *p = nullptr;
        cudaDriverEntryPointQueryResult q;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault,
                                             &q) != cudaSuccess ||
            q != cudaDriverEntryPointSuccess)
            p = nullptr;
        return (PFN_cuTensorMapEncodeTiled_v12000)p;
    }();
    return fn;
}

int gk_hopper_supports(const gk_tc_problem &p, int sm) {
    if (sm != 90) return 0;
    const int op = op_for(p.ta, p.tb);
    if (op < 0 || out_for(p.tc) < 0) return 0;
    const int eb = gk_format_size(p.ta);
    if (eb != 2 && (p.a_mn_major || p.b_mn_major)) return 0;
    if (p.k_lo > 0 && (op != OP_TF32 || p.a_mn_major || p.b_mn_major)) return 0;
    /* TMA: 16-byte aligned bases and line strides, coordinates in int32 */
    const int64_t lim = ((int64_t)1 << 31) - 256;
    if (p.m <= 0 || p.n <= 0 || p.k <= 0 || p.m > lim || p.n > lim || p.k > lim) return 0;
    if (gk_ceil_div(p.m, BM) * gk_ceil_div(p.n, BM) > lim) return 0; /* tile indices are int */
    if ((uintptr_t)p.a % 16 || (uintptr_t)p.b % 16 || (p.lda * eb) % 16 || (p.ldb * eb) % 16)
        return 0;
    if (p.k_lo > 0 && (p.k_lo * eb) % 16) return 0;
    /* block scales: E4M3 pairs, per-row scales on A (TMA lines: 16-byte aligned, ld a multiple
     * of 4 floats), 128x128 blocks on B (float-aligned) */
    if (block_scaled(p)) {
        if (op != OP_E4M3_E4M3 || p.bs_a.kind != GK_TCS_ROW || p.bs_b.kind != GK_TCS_BLK128)
            return 0;
        const gk_tc_scales *sc[2] = {&p.bs_a, &p.bs_b};
        for (const gk_tc_scales *x : sc) {
            if (!x->s || x->ld <= 0) return 0;
            if (x->kind == GK_TCS_ROW && ((uintptr_t)x->s % 16 || x->ld % 4)) return 0;
            if (x->kind == GK_TCS_BLK128 && (uintptr_t)x->s % 4) return 0;
        }
    }
    if (!gk_tensor_map_encode() || !built_for_sm90a()) return 0;
    return 1;
}

/* The plan for p as gk_hopper_gemm runs it: the oriented problem into *q, the plan into *pl. */
static cudaError_t plan_for(const gk_tc_problem &p, const gk_launch_env &env, bool with_ws,
                            gk_tc_problem *q, plan *pl) {
    *q = oriented(p);
    return with_family(*q, [&](auto fam) -> cudaError_t {
        using Fam = decltype(fam);
        int slots;
        const cudaError_t err = fam_slots<Fam>(env, &slots);
        return err != cudaSuccess ? err : make_plan<Fam>(*q, slots, with_ws, pl);
    });
}

cudaError_t gk_hopper_gemm(const gk_tc_problem &p, const gk_launch_env &env) {
    const gk_tc_problem q = oriented(p);
    return with_family(q, [&](auto fam) -> cudaError_t {
        using Fam = decltype(fam);
        int slots;
        plan pl;
        cudaError_t err = fam_slots<Fam>(env, &slots);
        if (err == cudaSuccess) err = make_plan<Fam>(q, slots, env.scratch != nullptr, &pl);
        return err != cudaSuccess ? err : Fam::run(q, pl, env, slots);
    });
}

cudaError_t gk_hopper_workspace(const gk_tc_problem &p, const gk_launch_env &env, size_t *bytes) {
    gk_tc_problem q;
    plan pl;
    const cudaError_t err = plan_for(p, env, true, &q, &pl);
    *bytes = err == cudaSuccess ? pl.ws_bytes : 0;
    return err;
}

cudaError_t gk_hopper_describe(const gk_tc_problem &p, const gk_launch_env &env, char *buf,
                               size_t len) {
    gk_tc_problem q;
    plan pl;
    const cudaError_t err = plan_for(p, env, true, &q, &pl);
    if (err != cudaSuccess) return err;
    snprintf(buf, len, "%sn=%d kc=%lldx%lld%s", q.c_trans != p.c_trans ? "swap " : "", pl.bn,
             (long long)pl.kc, (long long)pl.chunks, pl.split ? " split" : "");
    return cudaSuccess;
}

cudaError_t gk_hopper_gemm_ladder(const gk_tc_problem &p, const gk_launch_env &env,
                                  int persistent) {
    using C = config<OP_TF32, 256, false, false, false, 1>;
    if (op_for(p.ta, p.tb) != OP_TF32 || p.a_mn_major || p.b_mn_major || p.k_lo > 0 ||
        block_scaled(p))
        return cudaErrorNotSupported;
    int slots = 0x7fffffff; /* one CTA per tile */
    if (persistent) {
        const cudaError_t err = slots_for<C>(env, &slots);
        if (err != cudaSuccess) return err;
    }
    /* the ladder's steps keep K whole */
    plan pl;
    pl.bn = C::BN, pl.kblocks = pl.kc = gk_ceil_div(p.k, (int64_t)C::BK), pl.chunks = 1;
    pl.split = false, pl.ws_ld = 0, pl.ws_bytes = 0;
    return launch<C>(p, pl, env, slots);
}
