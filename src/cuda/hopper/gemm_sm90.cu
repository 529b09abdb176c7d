/*
 * gemm_sm90.cu — launcher of the sm_90a tensor-core kernel (gemm_sm90.cuh) behind the contract of
 * hopper.h: checks what the kernel can take, builds the TMA tensor maps (the driver's
 * cuTensorMapEncodeTiled, resolved through the runtime so the library does not link libcuda),
 * picks the configuration for the operand types and layouts and the tile width for the problem's
 * size (sm90_pick.h), and launches a persistent grid.
 */
#ifndef GK_SM90_CM
#define GK_SM90_CM 2
#endif

#include "cuda/gemm/util.cuh"
#include "cuda/hopper/gemm_sm90.cuh"
#include "cuda/hopper/hopper.h"
#include "cuda/hopper/sm90_pick.h"
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

/* Allows C's dynamic shared memory and counts the clusters that can be resident at once (a GPC's
 * SMs do not always pair up). Every configuration holds one CTA per SM (gemm_sm90.cuh), so the
 * count is the same for all of them. */
template <class C> cudaError_t slots_for(const gk_launch_env &env, int *slots) {
    cudaError_t err = cudaFuncSetAttribute(
        gemm_kernel<C>, cudaFuncAttributeMaxDynamicSharedMemorySize, C::SMEM_BYTES);
    if (err != cudaSuccess) return err;
    *slots = env.sm_count / C::CM;
    if (C::CM > 1) {
        cudaLaunchAttribute attr;
        const cudaLaunchConfig_t cfg =
            launch_config(env.sm_count / C::CM * C::CM, C::CM, C::SMEM_BYTES, env.stream, &attr);
        err = cudaOccupancyMaxActiveClusters(slots, gemm_kernel<C>, &cfg);
        if (err != cudaSuccess) return err;
    }
    return *slots < 1 ? cudaErrorInvalidConfiguration : cudaSuccess;
}

/* Runs p with configuration C on a persistent grid of `slots` clusters (fewer when there are
 * fewer tiles). */
template <class C> cudaError_t launch(const gk_tc_problem &p, const gk_launch_env &env, int slots) {
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
    params kp;
    kp.m = p.m, kp.n = p.n, kp.k = p.k;
    /* tiles_m counts groups of CM tile rows: a cluster takes CM tiles of one column at a time */
    kp.tiles_m = (int)gk_ceil_div(p.m, (int64_t)BM * C::CM),
    kp.tiles_n = (int)gk_ceil_div(p.n, C::BN);
    kp.tiles = kp.tiles_m * kp.tiles_n;
    kp.kblocks = (int)gk_ceil_div(p.k, C::BK);
    kp.split3 = p.k_lo > 0;
    kp.c = p.c, kp.ldc = p.ldc, kp.c_type = out_for(p.tc), kp.c_trans = p.c_trans;
    const int cb = p.tc == GK_F32 ? 4 : 2;
    kp.c_pair = !p.c_trans && (uintptr_t)p.c % (2 * cb) == 0 && p.ldc % 2 == 0;
    /* beta != 0 reads C: those calls keep the direct path (docs/cuda.md). C's lines are the
     * kernel's rows, or its columns when C is stored transposed. */
    const int64_t line = p.c_trans ? p.m : p.n, lines = p.c_trans ? p.n : p.m;
    kp.c_tma = p.beta == 0.0f && (uintptr_t)p.c % 16 == 0 && (p.ldc * cb) % 16 == 0 &&
               make_map(&mc, cb, p.c, line, lines, p.ldc * cb, ROW_BYTES / cb, 64);
    kp.c_tma_last = (line * cb) % 16 == 0;
    if (!kp.c_tma) mc = ma;
    kp.alpha = p.alpha, kp.beta = p.beta;
    kp.scale_a = p.scale_a, kp.scale_b = p.scale_b;
    msa = ma; /* unused unless the configuration is block-scaled */
    if (C::SC != SC_NONE && !scale_map(&msa, p.bs_a, p.k, BM)) return cudaErrorInvalidValue;
    kp.blk = p.bs_b.kind == GK_TCS_BLK128 ? p.bs_b.s : nullptr, kp.blk_ld = p.bs_b.ld;
    kp.blk_rows = (int)gk_ceil_div(p.n, (int64_t)128);

    cudaError_t err = cudaFuncSetAttribute(
        gemm_kernel<C>, cudaFuncAttributeMaxDynamicSharedMemorySize, C::SMEM_BYTES);
    if (err != cudaSuccess) return err;
    const int clusters = kp.tiles < slots ? kp.tiles : slots;
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg =
        launch_config(clusters * C::CM, C::CM, C::SMEM_BYTES, env.stream, &attr);
    err = cudaLaunchKernelEx(&cfg, gemm_kernel<C>, ma, mb, ma_lo, mb_lo, mc, msa, kp);
    return err != cudaSuccess ? err : cudaGetLastError();
}

/* Runs p with config<OP, BN, A_MN, B_MN, PROMOTE, CM, SC>, BN the width sm90_pick.h chooses
 * among BNS (widest first) or p.tile_n. Only the widths listed are compiled: each is a kernel. */
template <int OP, bool A_MN, bool B_MN, bool PROMOTE, int SC, int... BNS>
cudaError_t launch_best(const gk_tc_problem &p, const gk_launch_env &env) {
    static constexpr int bns[] = {BNS...};
    int slots;
    cudaError_t err = slots_for<config<OP, bns[0], A_MN, B_MN, PROMOTE, CM, SC>>(env, &slots);
    if (err != cudaSuccess) return err;
    const int bn =
        p.tile_n ? p.tile_n : gk_sm90_pick_bn(p.m, p.n, CM, slots, bns, (int)sizeof...(BNS));
    err = cudaErrorNotSupported;
    ((bn == BNS ? (err = launch<config<OP, BNS, A_MN, B_MN, PROMOTE, CM, SC>>(p, env, slots))
                : err),
     ...);
    return err;
}

/* 16-bit operands: three widths with A K-major; an MN-major A keeps the widest tile only, which
 * bounds the build's kernels (docs/cuda.md). */
template <int OP> cudaError_t launch_16bit(const gk_tc_problem &p, const gk_launch_env &env) {
    if (p.a_mn_major && p.b_mn_major)
        return launch_best<OP, true, true, false, SC_NONE, 256>(p, env);
    if (p.a_mn_major) return launch_best<OP, true, false, false, SC_NONE, 256>(p, env);
    if (p.b_mn_major) return launch_best<OP, false, true, false, SC_NONE, 256, 192, 128>(p, env);
    return launch_best<OP, false, false, false, SC_NONE, 256, 192, 128>(p, env);
}

bool block_scaled(const gk_tc_problem &p) {
    return p.bs_a.kind != GK_TCS_NONE || p.bs_b.kind != GK_TCS_NONE;
}

/* FP8: the promoted product (a 256-wide tile in two halves: config::PARTS) chooses among three
 * widths, the block-scaled one among two; fast accumulation keeps the widest tile. */
template <int OP> cudaError_t launch_fp8(const gk_tc_problem &p, const gk_launch_env &env) {
    if (block_scaled(p)) {
        if constexpr (OP == OP_E4M3_E4M3)
            return launch_best<OP, false, false, true, SC_K128, 256, 128>(p, env);
        return cudaErrorNotSupported;
    }
    if (p.fp8_fast_accum) return launch_best<OP, false, false, false, SC_NONE, 256>(p, env);
    return launch_best<OP, false, false, true, SC_NONE, 256, 192, 128>(p, env);
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

cudaError_t gk_hopper_gemm(const gk_tc_problem &p, const gk_launch_env &env) {
    switch (op_for(p.ta, p.tb)) {
    case OP_BF16:
        return launch_16bit<OP_BF16>(p, env);
    case OP_F16:
        return launch_16bit<OP_F16>(p, env);
    case OP_TF32:
        return launch_best<OP_TF32, false, false, false, SC_NONE, 256, 192, 128>(p, env);
    case OP_E4M3_E4M3:
        return launch_fp8<OP_E4M3_E4M3>(p, env);
    case OP_E4M3_E5M2:
        return launch_fp8<OP_E4M3_E5M2>(p, env);
    case OP_E5M2_E4M3:
        return launch_fp8<OP_E5M2_E4M3>(p, env);
    default:
        return cudaErrorNotSupported;
    }
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
    return launch<C>(p, env, slots);
}
