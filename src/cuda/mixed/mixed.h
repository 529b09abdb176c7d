/*
 * mixed.h — the portable pieces of the mixed-precision GEMM (gk_cuda_gemm_ex, dispatched in
 * src/cuda/api/gemm_ex.cu), beside the sm_90a kernel of src/cuda/hopper/: the repack kernel that
 * copies an operand into the K-major, padded form a tensor-core kernel reads (converting FP8 to
 * BF16, or splitting float32 into TF32 high and low parts, on the way; for the block-scaled GEMM,
 * src/cuda/api/gemm_scaled.cu, also decoding codes times their block scales), the transpose of
 * per-row block scales, the scaling of C for calls without a product, the portable tensor-core
 * kernel (mma.sync, sm_80+) and the SIMT kernel that takes everything. The kernels take the problem
 * of hopper.h; docs/cuda.md, "Mixed precision", says which runs when.
 */
#ifndef GK_CUDA_MIXED_MIXED_H
#define GK_CUDA_MIXED_MIXED_H

#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda/hopper/hopper.h"

/* Column where the low parts of a 3xTF32 row start (gk_tc_problem::k_lo) and that row's length:
 * each half a whole number of 128-byte lines, so both start where a TMA box or a 16-byte copy
 * can. */
static inline int64_t gk_split_k_lo(int64_t k) {
    return (k + 31) / 32 * 32;
}

/* One operand X (rows x k, element X(r, kk)) copied K-major into dst (dst[r * ld_dst + kk]):
 *   src_fmt == dst_fmt        the bits, unchanged (no scales);
 *   GK_F32 -> GK_TF32         split for 3xTF32 (k_lo > 0): hi = rna_tf32(x) at column kk,
 *                             lo = rna_tf32(x - hi) at column k_lo + kk;
 *   code -> GK_BF16, GK_F32   any FP8/FP6/FP4 code (GK_F6_E2M3FN, GK_F6_E3M2FN, GK_F4_E2M1FN: one
 *                             code per byte, as gk_encode writes them) decoded
 *                             (src/formats/scalar.h) and multiplied
 *                             by its block scale when scale_kind is not NONE: decode(code) * scale
 *                             in float32 (one rounding; exact for an MX element times its E8M0
 *                             scale), then for BF16 rounded to nearest even (exact for such MX
 *                             products unless below BF16's smallest subnormal, 2^-133).
 * The scales are in the caller's layout for this operand's rows (scale_ld elements per row):
 *   GK_REPACK_SCALE_ROW_F32     float32 s[r * scale_ld + kk / scale_group];
 *   GK_REPACK_SCALE_BLK128_F32  float32 s[(r / 128) * scale_ld + kk / 128] (128x128 blocks);
 *   GK_REPACK_SCALE_ROW_E8M0    E8M0 bytes s[r * scale_ld + kk / scale_group], 2^(e - 127)
 *                               (0: 2^-127, a float32 subnormal; 0xFF: NaN).
 * scale_group is 32 or 128 (K elements per scale). Every other column of a destination row up to
 * ld_dst is written with zeros (never a scale times zero), so a kernel may read whole 16-byte
 * pieces or TMA boxes past k. The source is K-major (src[r * ld_src + kk]) or MN-major
 * (src[kk * ld_src + r]); both are read and written coalesced (64 x 64 tiles staged in shared
 * memory). The trailing scale fields zero (brace-initialised without them) mean no scales.
 * Returns the launch error; cudaErrorInvalidValue, nothing launched, for a conversion not listed
 * (a conversion to a format other than BF16/F32, a scale kind or group not listed, ...). */
enum gk_repack_scale_kind {
    GK_REPACK_SCALE_NONE = 0,
    GK_REPACK_SCALE_ROW_F32 = 1,
    GK_REPACK_SCALE_BLK128_F32 = 2,
    GK_REPACK_SCALE_ROW_E8M0 = 3
};
struct gk_repack {
    const void *src;
    int64_t ld_src;
    int src_mn_major;
    gk_format src_fmt;
    int64_t rows, k;
    void *dst;
    int64_t ld_dst;
    gk_format dst_fmt;
    int64_t k_lo;
    const void *scale; /* device pointer; read only when scale_kind != GK_REPACK_SCALE_NONE */
    int scale_kind;    /* gk_repack_scale_kind */
    int scale_group;   /* 32 or 128 */
    int64_t scale_ld;
};
cudaError_t gk_repack_operand(const gk_repack &r, cudaStream_t stream);

/* Per-row block scales transposed into the form the sm_90a kernel loads (hopper.h, GK_TCS_ROW):
 * src is the caller's rows x kb array of float32 scales (row stride kb); dst[j * ld_dst + r] =
 * the scale of row r, block j, and 0 for r in [rows, ld_dst). ld_dst >= rows, a multiple of 4.
 * Returns the launch error (cudaErrorInvalidValue, nothing launched, for an ld_dst that breaks
 * those rules). */
cudaError_t gk_scales_transpose(const float *src, int64_t rows, int64_t kb, float *dst,
                                int64_t ld_dst, cudaStream_t stream);

/* C (row-major rows x cols, ldc, type tc) = beta * C; beta == 0 stores zeros without reading C. */
cudaError_t gk_scale_c(void *c, gk_format tc, int64_t rows, int64_t cols, int64_t ldc, float beta,
                       cudaStream_t stream);

/* The portable tensor-core kernel: mma.sync (m16n8k16 BF16/FP16, m16n8k8 TF32) with float32
 * accumulators, 128x128 tiles, 8 warps, a two-stage cp.async pipeline. It needs both operands
 * K-major and of one type: GK_BF16, GK_F16, GK_TF32 (rounded to nearest with cvt.rna), or
 * GK_F32, which it multiplies as 3xTF32 (each element split in registers exactly as the repack
 * kernel splits it, three products summed: lo*hi + hi*lo + hi*hi); base addresses 16-byte
 * aligned, lda/ldb times the element size a multiple of 16 bytes, and every 16-byte piece of a
 * row that begins before column k readable, with zeros past k: k times the element size a
 * multiple of 16, or rows padded with zeros (the repack kernel's output). Device sm_80 or newer.
 */
cudaError_t gk_mma_gemm(const gk_tc_problem &p, const gk_launch_env &env);

/* Whether the mma.sync kernel reads an operand as stored (K-major rows of k elements of type t,
 * leading dimension ld, at p); the dispatcher copies it into the workspace otherwise. */
static inline int gk_mma_operand_ok(const void *p, int64_t ld, int mn_major, gk_format t,
                                    int64_t k) {
    const int64_t size = gk_format_size(t);
    const int type_ok = t == GK_BF16 || t == GK_F16 || t == GK_TF32 || t == GK_F32;
    return type_ok && !mn_major && (uintptr_t)p % 16 == 0 && ld * size % 16 == 0 &&
           k * size % 16 == 0;
}

/* The SIMT kernel: any operand type of hopper.h, and GK_F32 (multiplied in float32; GK_TF32
 * operands are rounded to TF32 first, as the tensor cores would), either major order, any
 * alignment of the element type; float32 FMAs, 64x64 tiles. The fallback of every other path. */
cudaError_t gk_simt_gemm(const gk_tc_problem &p, const gk_launch_env &env);

#endif
