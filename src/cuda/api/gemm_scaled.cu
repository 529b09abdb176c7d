/*
 * gemm_scaled.cu — gk_cuda_gemm_scaled, the block-scaled GEMM on device memory (1x128 / 128x128
 * float32 scales, OCP MX E8M0 scales per 32 of K): argument checks, the mapping of the call onto
 * the tensor-core problem of src/cuda/hopper/hopper.h with its block scales, and the choice of
 * path (docs/cuda.md, "Block-scaled GEMM"; the scale layouts: include/gemmkit.h, docs/formats.md).
 *
 * The normalisation is gk_cuda_gemm_ex's (gemm_ex.cu's file comment): the kernel's A is the
 * caller's op(B)^T in a column-major call and op(A) in a row-major one, so its rows are the
 * caller's n (scales b_scale) or m (scales a_scale), and the kernel's B the other one. A caller's
 * A carries per-row scales (1x128 or MX); a caller's B carries 128x128 blocks (BLOCK128) or
 * per-column scales (MX), which are per-row scales of the kernel operand that stores it K-major.
 *
 * Paths, the first that takes the call (GEMMKIT_CUDA_TC_PATH holds a context to one of them):
 *   hopper  BLOCK128 on sm_90a: the block-scaled FP8 kernel on the operands as stored, the per-row
 *           scales transposed into the workspace (the form its producer loads with each stage);
 *   repack  the same after copying into the workspace (K-major) an operand the TMA cannot read
 *           as stored (MN-major, or off its 16-byte alignment);
 *   decoded both operands decoded with their scales into the workspace, K-major: to BF16 for MX
 *           (exact while every scaled element is a BF16 normal or subnormal: docs/formats.md),
 *           to float32 for BLOCK128 (one rounding of code * scale); then, for BF16, the sm_90a
 *           kernel (the hopper and repack paths of an MX call) or the mma.sync kernel (sm_80+)
 *           or the SIMT kernel; for float32, 3xTF32 on the mma.sync kernel or the SIMT kernel.
 * MX never takes the FP8 kernel: a scale per 32 of K is a scale per wgmma, and multiplying each
 * wgmma's result into float32 measured slower than decoding to BF16 (docs/cuda.md,
 * "Block-scaled GEMM"). Pairs with E5M2 have no block-scaled FP8 kernel either: they are decoded.
 */
#include <stdio.h>
#include <string.h>

#include <utility>

#include "cuda/core/core.h"
#include "cuda/hopper/hopper.h"
#include "cuda/mixed/mixed.h"
#include "formats/gemm_scaled.h"

namespace {

const char WHO[] = "gk_cuda_gemm_scaled";

/* One operand of the kernel's problem: where it comes from and how its scales are stored. */
struct Operand {
    const void *x; /* codes as stored */
    int64_t ld;
    int mn_major;
    gk_format fmt;
    int64_t rows;
    const void *scale; /* the caller's array */
    bool caller_a;     /* per-row scales (1x128 or MX); else 128x128 blocks or MX per column */
};

/* Bytes of the caller's scale array of an operand with `rows` rows. */
int64_t scale_bytes(const Operand &o, bool mx, int64_t kb) {
    if (mx) return o.rows * kb;
    return (o.caller_a ? o.rows : gk_scaled_blocks(o.rows, 128)) * kb * 4;
}

/* A workspace carve-out: offsets from the start of the workspace, 256-byte aligned. */
struct Carve {
    int64_t at = GK_SCRATCH_FLAG_BYTES;
    bool overflow = false;
    int64_t take(int64_t rows, int64_t cols, int64_t size) {
        int64_t b;
        if (__builtin_mul_overflow(rows, cols, &b) || __builtin_mul_overflow(b, size, &b) ||
            b > INT64_MAX / 8 || at > INT64_MAX / 4) {
            overflow = true;
            return 0;
        }
        const int64_t off = at;
        at += gk_round_up(b, 256);
        return off;
    }
    /* The carved workspace of ctx, allocated (grown) to hold everything taken: *ws its start. */
    gk_status allocate(gk_cuda_ctx *ctx, char **ws) const {
        if (overflow || (uint64_t)at > SIZE_MAX / 2)
            return gk_fail(GK_ERR_OVERFLOW, "%s: the workspace overflows size_t", WHO);
        const gk_status st = gk_cuda_workspace(ctx, (size_t)at, WHO);
        *ws = reinterpret_cast<char *>(ctx->work);
        return st;
    }
};

struct Call : gk_tc_call {
    bool mx;
};

/* The block-scaled FP8 kernel (hopper and repack paths). *declined: nothing queued, the kernel
 * does not take the problem (or `copy` is false and an operand would need a copy). */
gk_status run_fp8_kernel(const Call &cl, gk_tc_problem p, const Operand op[2], bool copy,
                         bool *declined) {
    gk_cuda_ctx *const ctx = cl.ctx;
    *declined = true;
    if (cl.mx || ctx->sm != 90) return GK_SUCCESS;
    /* The kernel takes the per-row scales on its A. When they belong to its B (a column-major
     * call), swap the operands and let it store C transposed: a per-column scale in the kernel's
     * promotion measured slower (docs/cuda.md, "Block-scaled GEMM"). */
    Operand swapped[2];
    if (!op[0].caller_a) {
        swapped[0] = op[1], swapped[1] = op[0];
        op = swapped;
        std::swap(p.m, p.n);
        std::swap(p.ta, p.tb);
        p.a = op[0].x, p.lda = op[0].ld, p.a_mn_major = op[0].mn_major;
        p.b = op[1].x, p.ldb = op[1].ld, p.b_mn_major = op[1].mn_major;
        p.c_trans = 1;
    }
    /* Which operands go through the workspace: those the TMA cannot read as stored. Only E4M3
     * pairs have a block-scaled instantiation. */
    bool need[2];
    for (int o = 0; o < 2; o++) {
        need[o] = (uintptr_t)op[o].x % 16 || op[o].ld % 16 || op[o].mn_major;
        if (op[o].fmt != GK_F8_E4M3FN || (need[o] && !copy)) return GK_SUCCESS;
    }
    const int64_t kb = gk_scaled_blocks(p.k, 128), x_ld = gk_round_up(p.k, 128);
    Carve cv;
    int64_t s_off[2] = {0, 0}, s_ld[2] = {0, 0}, x_off[2] = {0, 0};
    for (int o = 0; o < 2; o++) {
        if (op[o].caller_a) { /* per-row scales, transposed */
            s_ld[o] = gk_round_up(op[o].rows, 4);
            s_off[o] = cv.take(kb, s_ld[o], 4);
        }
        if (need[o]) x_off[o] = cv.take(op[o].rows, x_ld, 1);
    }
    char *ws;
    gk_status st = cv.allocate(ctx, &ws);
    if (st != GK_SUCCESS) return st;
    gk_tc_problem q = p;
    gk_tc_scales *bs[2] = {&q.bs_a, &q.bs_b};
    float *s_dst[2] = {nullptr, nullptr};
    for (int o = 0; o < 2; o++) {
        const bool row = s_ld[o] > 0;
        if (row) s_dst[o] = reinterpret_cast<float *>(ws + s_off[o]);
        *bs[o] = gk_tc_scales{row ? GK_TCS_ROW : GK_TCS_BLK128,
                              row ? s_dst[o] : static_cast<const float *>(op[o].scale),
                              row ? s_ld[o] : kb};
        if (need[o]) {
            (o ? q.b : q.a) = ws + x_off[o];
            (o ? q.ldb : q.lda) = x_ld;
            (o ? q.b_mn_major : q.a_mn_major) = 0;
        }
    }
    if (!gk_hopper_supports(q, ctx->sm)) return GK_SUCCESS;
    *declined = false;
    cudaError_t err = cudaSuccess;
    for (int o = 0; o < 2 && err == cudaSuccess; o++) {
        if (s_ld[o] > 0)
            err = gk_scales_transpose(static_cast<const float *>(op[o].scale), op[o].rows, kb,
                                      s_dst[o], s_ld[o], ctx->stream);
        if (err == cudaSuccess && need[o]) {
            gk_repack r = {};
            r.src = op[o].x, r.ld_src = op[o].ld, r.src_mn_major = op[o].mn_major;
            r.src_fmt = r.dst_fmt = GK_F8_E4M3FN, r.rows = op[o].rows, r.k = p.k;
            r.dst = ws + x_off[o], r.ld_dst = x_ld;
            err = gk_repack_operand(r, ctx->stream);
        }
    }
    if (err != cudaSuccess) return gk_cuda_status(WHO, "scale/repack kernel launch", err);
    gk_launch_env env;
    env.stream = ctx->stream, env.sm = ctx->sm, env.sm_count = ctx->sm_count;
    env.scratch = nullptr;
    err = gk_hopper_gemm(q, env);
    if (err == cudaSuccess) err = cudaGetLastError();
    if (err != cudaSuccess) return gk_cuda_status(WHO, "hopper", err);
    if (ctx->verbose) {
        char detail[96] = "";
        if (need[0] || need[1])
            snprintf(detail, sizeof detail, " (copied K-major: kernel %s%s%s)", need[0] ? "A" : "",
                     need[0] && need[1] ? ", " : "", need[1] ? "B" : "");
        gk_tc_log(cl, copy ? "repack+hopper" : "hopper", detail);
    }
    return GK_SUCCESS;
}

/* The decoding paths: both operands decoded with their scales into the workspace, then a kernel
 * of the mixed-precision GEMM on the plain product (file comment). */
gk_status run_decoded(const Call &cl, gk_tc_problem p, const Operand op[2], int path) {
    gk_cuda_ctx *const ctx = cl.ctx;
    const gk_format to = cl.mx ? GK_BF16 : GK_F32;
    const int64_t size = gk_format_size(to);
    const int64_t ld = gk_round_up(p.k, 128 / size), group = cl.mx ? 32 : 128;
    const int64_t kb = gk_scaled_blocks(p.k, group);
    Carve cv;
    int64_t off[2];
    for (int o = 0; o < 2; o++)
        off[o] = cv.take(op[o].rows, ld, size);
    char *ws;
    gk_status st = cv.allocate(ctx, &ws);
    if (st != GK_SUCCESS) return st;
    gk_tc_problem q = p;
    q.ta = q.tb = to;
    for (int o = 0; o < 2; o++) {
        gk_repack r = {};
        r.src = op[o].x, r.ld_src = op[o].ld, r.src_mn_major = op[o].mn_major;
        r.src_fmt = op[o].fmt, r.rows = op[o].rows, r.k = p.k;
        r.dst = ws + off[o], r.ld_dst = ld, r.dst_fmt = to;
        r.scale = op[o].scale, r.scale_group = (int)group, r.scale_ld = kb;
        r.scale_kind = cl.mx            ? GK_REPACK_SCALE_ROW_E8M0
                       : op[o].caller_a ? GK_REPACK_SCALE_ROW_F32
                                        : GK_REPACK_SCALE_BLK128_F32;
        const cudaError_t err = gk_repack_operand(r, ctx->stream);
        if (err != cudaSuccess) return gk_cuda_status(WHO, "repack kernel launch", err);
        (o ? q.b : q.a) = r.dst;
        (o ? q.ldb : q.lda) = ld;
        (o ? q.b_mn_major : q.a_mn_major) = 0;
    }
    gk_launch_env env;
    env.stream = ctx->stream, env.sm = ctx->sm, env.sm_count = ctx->sm_count;
    env.scratch = nullptr;
    const char *name;
    cudaError_t err;
    const bool any = path == GK_TC_AUTO;
    if ((any || path == GK_TC_HOPPER || path == GK_TC_REPACK) && gk_hopper_supports(q, ctx->sm)) {
        name = "decoded+hopper", err = gk_hopper_gemm(q, env);
    } else if ((any || path == GK_TC_MMA) && ctx->sm >= 80) {
        name = "decoded+mma", err = gk_mma_gemm(q, env);
    } else {
        name = "decoded+simt", err = gk_simt_gemm(q, env);
    }
    if (err == cudaSuccess) err = cudaGetLastError();
    if (err != cudaSuccess) return gk_cuda_status(WHO, name, err);
    if (ctx->verbose)
        gk_tc_log(cl, name, cl.mx ? " (decoded to bfloat16)" : " (decoded to float32)");
    return GK_SUCCESS;
}

} // namespace

gk_status gk_cuda_gemm_scaled(gk_cuda_ctx *ctx, gk_layout layout, gk_trans transa, gk_trans transb,
                              int64_t m, int64_t n, int64_t k, float alpha, gk_format atype,
                              const void *a, int64_t lda, const void *a_scale, gk_format btype,
                              const void *b, int64_t ldb, const void *b_scale, gk_scaling scaling,
                              float beta, gk_format ctype, void *c, int64_t ldc) {
    gk_clear_error();
    if (ctx == NULL) return gk_fail(GK_ERR_INVALID_VALUE, "%s: ctx is NULL", WHO);
    gk_status st = gk_check_scaled_formats(WHO, (int)scaling, (int)atype, (int)btype, (int)ctype);
    if (st != GK_SUCCESS) return st;
    const int csz = gk_format_size(ctype);
    gk_gemm_args g;
    st = gk_check_gemm_sized(WHO, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                             ldc, 1, 1, csz, &g);
    if (st != GK_SUCCESS) return st;
    if (g.m == 0 || g.n == 0) return GK_SUCCESS;
    const bool scale_only = gk_gemm_is_scale_only(&g);
    const bool mx = scaling == GK_SCALING_MX;
    if ((uintptr_t)c % (uintptr_t)csz)
        return gk_fail(GK_ERR_INVALID_POINTER,
                       "%s: c (%p) is not aligned to its element size (%d bytes)", WHO, c, csz);
    if (!scale_only) {
        if ((st = gk_check_scale_arrays(WHO, scaling, m, n, k, a_scale, b_scale))) return st;
        const void *sc[2] = {a_scale, b_scale};
        const char *names[2] = {"a_scale", "b_scale"};
        for (int i = 0; i < 2; i++) {
            if (!mx && (uintptr_t)sc[i] % 4)
                return gk_fail(GK_ERR_INVALID_POINTER,
                               "%s: %s (%p) is not aligned to its element size (4 bytes)", WHO,
                               names[i], sc[i]);
        }
    }
    const Call cl = {{ctx, WHO, layout, transa, transb, m, n, k, atype, btype, ctype,
                      mx ? " scaling=mx" : " scaling=block128"},
                     mx};

    gk_device_guard guard(ctx->device);
    if (guard.error() != cudaSuccess) return gk_cuda_status(WHO, "cudaSetDevice", guard.error());
    if (scale_only && g.beta == 1.0f) return GK_SUCCESS;
    const bool row = layout == GK_ROW_MAJOR;
    /* the normalised A is the caller's B in a row-major call */
    const gk_format ga_t = row ? btype : atype, gb_t = row ? atype : btype;
    const void *ga_s = row ? b_scale : a_scale, *gb_s = row ? a_scale : b_scale;
    /* kernel A = normalised op(B)^T (rows g.n), kernel B = normalised op(A)^T (rows g.m) */
    const Operand op[2] = {{g.b, g.ldb, g.transb, gb_t, g.n, gb_s, row},
                           {g.a, g.lda, !g.transa, ga_t, g.m, ga_s, !row}};
    const int64_t kb = gk_scaled_blocks(g.k, mx ? 32 : 128);
    if (ctx->checks) {
        st = gk_cuda_check_call_sized(ctx, WHO, row, &g, 1, 1, csz);
        for (int o = 0; o < 2 && st == GK_SUCCESS && !scale_only; o++)
            st = gk_cuda_check_buffer(ctx, WHO, op[o].caller_a ? "a_scale" : "b_scale", op[o].scale,
                                      scale_bytes(op[o], mx, kb));
        if (st != GK_SUCCESS) return st;
    }
    if (scale_only) {
        const cudaError_t err = gk_scale_c(g.c, ctype, g.n, g.m, g.ldc, g.beta, ctx->stream);
        if (err != cudaSuccess) return gk_cuda_status(WHO, "scale kernel launch", err);
        if (ctx->verbose) gk_tc_log(cl, "scale", "");
        return GK_SUCCESS;
    }

    gk_tc_problem p;
    p.m = g.n, p.n = g.m, p.k = g.k;
    p.ta = gb_t, p.tb = ga_t, p.tc = ctype;
    p.a = op[0].x, p.lda = op[0].ld, p.a_mn_major = op[0].mn_major;
    p.b = op[1].x, p.ldb = op[1].ld, p.b_mn_major = op[1].mn_major;
    p.c = g.c, p.ldc = g.ldc;
    p.alpha = g.alpha, p.beta = g.beta;
    p.scale_a = p.scale_b = nullptr;
    p.fp8_fast_accum = 0;
    p.k_lo = 0;

    const int path = ctx->tc_path;
    bool declined = true;
    if (path == GK_TC_AUTO || path == GK_TC_HOPPER || path == GK_TC_REPACK) {
        if (path != GK_TC_REPACK) {
            st = run_fp8_kernel(cl, p, op, false, &declined);
            if (st != GK_SUCCESS || !declined) return st;
        }
        st = run_fp8_kernel(cl, p, op, true, &declined);
        if (st != GK_SUCCESS || !declined) return st;
        /* MX on sm_90a: decoded to BF16 for the sm_90a kernel */
        if (mx && ctx->sm == 90 && path != GK_TC_AUTO) return run_decoded(cl, p, op, path);
        if (path != GK_TC_AUTO)
            return gk_fail(GK_ERR_UNSUPPORTED,
                           "%s: GEMMKIT_CUDA_TC_PATH=%s: the sm_90a block-scaled kernel does not "
                           "run this call on device %d (sm_%d)",
                           WHO, gk_tc_path_name(path), ctx->device, ctx->sm);
    }
    if (path == GK_TC_MMA && ctx->sm < 80)
        return gk_fail(GK_ERR_UNSUPPORTED,
                       "%s: GEMMKIT_CUDA_TC_PATH=mma: the mma.sync kernel needs sm_80, device %d "
                       "is sm_%d",
                       WHO, ctx->device, ctx->sm);
    return run_decoded(cl, p, op, path);
}
