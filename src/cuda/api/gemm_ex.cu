/*
 * gemm_ex.cu — gk_cuda_gemm_ex, the mixed-precision GEMM on device memory, and the float32 GEMM on
 * tensor cores (3xTF32) that gk_cuda_sgemm runs in the GK_FP32_3XTF32 mode: the argument checks,
 * the mapping of a call onto the tensor-core problem of src/cuda/hopper/hopper.h, the choice of
 * path and the workspace copies a path needs (docs/cuda.md, "Mixed precision" and "FP32 accuracy
 * modes").
 *
 * After the checks the call is column-major and is swapped onto a row-major problem as the
 * dispatcher's opening comment explains (src/cuda/core/dispatch.cu): M = n, N = m, A = op(B)^T,
 * B = op(A)^T. Here the operands are read in place, each in its major order:
 *   kernel A(i, kk) = op(B)(kk, i): B stored non-transposed, b[kk + i * ldb], is K-major;
 *                                   transposed, b[i + kk * ldb], MN-major;
 *   kernel B(kk, j) = op(A)(j, kk): A stored transposed, a[kk + j * lda], is K-major;
 *                                   non-transposed, a[j + kk * lda], MN-major.
 *
 * Paths, the first that takes the call (GEMMKIT_CUDA_TC_PATH, read at gk_cuda_create, holds a
 * context to one of them, so that each can be tested on one GPU):
 *   hopper  the sm_90a kernel on the operands as stored (gk_hopper_supports);
 *   repack  on sm_90: each operand the sm_90a kernel cannot read as stored (MN-major FP8 or TF32,
 *           a base address or leading dimension off TMA's 16 bytes) copied K-major into the
 *           workspace, rows padded to 128 bytes, then the sm_90a kernel; 3xTF32 always comes this
 *           way, both operands split into [hi | lo] rows;
 *   mma     sm_80+: the portable mma.sync kernel (src/cuda/mixed/mma.cu); FP8 operands converted
 *           to BF16 and operands it cannot read copied K-major into the workspace first; 3xTF32
 *           split in registers;
 *   simt    float32 FMAs on any type and major order in place (src/cuda/mixed/simt.cu).
 * Float32 operands outside the 3xTF32 mode never use tensor cores: they take the SGEMM production
 * kernel when C is float32 and no scale is given (the float32 router, gk_cuda_fp32_route, with
 * tensor cores closed; then dispatch.cu), else the SIMT kernel.
 *
 * Like gk_cuda_sgemm, everything is queued on the context's stream; copies go to the context's
 * workspace, after its first GK_SCRATCH_FLAG_BYTES (the SGEMM kernels' counters).
 */
#include <stdio.h>
#include <string.h>

#include "cuda/core/core.h"
#include "cuda/hopper/hopper.h"
#include "cuda/mixed/mixed.h"
#include "cuda/registry.h"

namespace {

bool is_fp8(gk_format f) {
    return f == GK_F8_E4M3FN || f == GK_F8_E5M2;
}

bool is_operand(gk_format f) {
    return f == GK_F32 || f == GK_TF32 || f == GK_BF16 || f == GK_F16 || is_fp8(f);
}

/* Formats first: the element sizes of the other checks follow from them. The values are taken as
 * ints: a caller's out-of-range value must not be held in the enum type (C++). */
gk_status check_formats(const char *who, int at_value, int bt_value, int ct_value) {
    const struct {
        const char *name;
        int f;
    } v[3] = {{"atype", at_value}, {"btype", bt_value}, {"ctype", ct_value}};
    for (int i = 0; i < 3; i++)
        if ((unsigned)v[i].f >= (unsigned)GK_FORMAT_COUNT)
            return gk_fail(GK_ERR_INVALID_VALUE, "%s: %s=%d is not a gk_format value", who,
                           v[i].name, v[i].f);
    for (int i = 0; i < 2; i++)
        if (!is_operand((gk_format)v[i].f))
            return gk_fail(GK_ERR_UNSUPPORTED,
                           "%s: %s=%s is not supported as an operand (float32, tfloat32, bfloat16, "
                           "float16, float8_e4m3fn, float8_e5m2)",
                           who, v[i].name, gk_format_label((gk_format)v[i].f));
    const gk_format at = (gk_format)at_value, bt = (gk_format)bt_value, ct = (gk_format)ct_value;
    if (is_fp8(at) && is_fp8(bt)) {
        if (at == GK_F8_E5M2 && bt == GK_F8_E5M2)
            return gk_fail(GK_ERR_UNSUPPORTED,
                           "%s: atype=btype=float8_e5m2 is not supported (an FP8 product takes at "
                           "least one float8_e4m3fn operand)",
                           who);
    } else if (at != bt) {
        return gk_fail(GK_ERR_UNSUPPORTED,
                       "%s: atype=%s with btype=%s is not supported (both the same format, or "
                       "float8_e4m3fn with float8_e5m2)",
                       who, gk_format_label(at), gk_format_label(bt));
    }
    if (ct != GK_F32 && ct != GK_BF16 && ct != GK_F16)
        return gk_fail(GK_ERR_UNSUPPORTED,
                       "%s: ctype=%s is not supported (float32, bfloat16 or float16)", who,
                       gk_format_label(ct));
    return GK_SUCCESS;
}

/* A misaligned element faults the kernel (a sticky error): refuse it before queueing. */
gk_status check_aligned(const char *who, const char *name, const void *p, int size) {
    if ((uintptr_t)p % (uintptr_t)size == 0) return GK_SUCCESS;
    return gk_fail(GK_ERR_INVALID_POINTER,
                   "%s: %s (%p) is not aligned to its element size (%d bytes)", who, name, p, size);
}

/* hopper.h's TMA rules for one operand as stored. */
bool tma_ok(const void *p, int64_t ld, int mn_major, gk_format t) {
    const int64_t size = gk_format_size(t);
    return (uintptr_t)p % 16 == 0 && ld * size % 16 == 0 && (!mn_major || size == 2);
}

struct Call : gk_tc_call {
    bool split; /* 3xTF32 */
};

enum Kernel { K_HOPPER, K_MMA, K_SIMT };

/* A path: the kernel, and which of its operands go through the workspace in which format
 * (K-major; split into [hi | lo] rows when k_lo > 0). */
struct Plan {
    Kernel kernel;
    const char *name;
    bool copy[2]; /* the kernel's A, B */
    gk_format to[2];
    int64_t k_lo;
};

/* Run plan `pl` on p. *declined is set (and nothing queued) when the sm_90a kernel does not take
 * the problem the plan makes. */
gk_status execute(const Call &cl, const gk_tc_problem &p, const Plan &pl, bool *declined) {
    gk_cuda_ctx *const ctx = cl.ctx;
    *declined = false;
    gk_tc_problem q = p;
    q.k_lo = pl.k_lo;
    gk_repack rp[2];
    int64_t bytes[2] = {0, 0};
    const gk_format from[2] = {p.ta, p.tb};
    for (int o = 0; o < 2; o++) {
        if (!pl.copy[o]) continue;
        const int64_t size = gk_format_size(pl.to[o]);
        const int64_t ld = pl.k_lo ? 2 * pl.k_lo : gk_round_up(p.k, 128 / size);
        int64_t b;
        if (__builtin_mul_overflow(o ? p.n : p.m, ld, &b) || __builtin_mul_overflow(b, size, &b) ||
            b > INT64_MAX / 4)
            return gk_fail(GK_ERR_OVERFLOW, "%s: the workspace overflows size_t", cl.who);
        bytes[o] = gk_round_up(b, 256);
        rp[o] = gk_repack{o ? p.b : p.a,
                          o ? p.ldb : p.lda,
                          o ? p.b_mn_major : p.a_mn_major,
                          from[o],
                          o ? p.n : p.m,
                          p.k,
                          nullptr,
                          ld,
                          pl.to[o],
                          pl.k_lo};
    }
    /* the copies' formats and order first: the sm_90a kernel's plan (its split-K workspace)
     * depends on them, not on where they go */
    if (pl.copy[0]) q.a_mn_major = 0, q.ta = pl.to[0];
    if (pl.copy[1]) q.b_mn_major = 0, q.tb = pl.to[1];
    gk_launch_env env;
    env.stream = ctx->stream, env.sm = ctx->sm, env.sm_count = ctx->sm_count;
    env.scratch = nullptr;
    size_t split_bytes = 0;
    cudaError_t err;
    if (pl.kernel == K_HOPPER && (err = gk_hopper_workspace(q, env, &split_bytes)) != cudaSuccess)
        split_bytes = 0; /* gk_hopper_supports below declines what the kernel cannot run */
    if (pl.copy[0] || pl.copy[1] || split_bytes) {
        const int64_t total = GK_SCRATCH_FLAG_BYTES + bytes[0] + bytes[1] + (int64_t)split_bytes;
        if ((uint64_t)total > SIZE_MAX / 2)
            return gk_fail(GK_ERR_OVERFLOW, "%s: the workspace overflows size_t", cl.who);
        const gk_status st = gk_cuda_workspace(ctx, (size_t)total, cl.who);
        if (st != GK_SUCCESS) return st;
        char *ws = reinterpret_cast<char *>(ctx->work) + GK_SCRATCH_FLAG_BYTES;
        if (pl.copy[0]) {
            rp[0].dst = ws;
            q.a = ws, q.lda = rp[0].ld_dst;
        }
        if (pl.copy[1]) {
            rp[1].dst = ws + bytes[0];
            q.b = rp[1].dst, q.ldb = rp[1].ld_dst;
        }
        if (split_bytes) env.scratch = ws + bytes[0] + bytes[1];
    }
    if (pl.kernel == K_HOPPER && !gk_hopper_supports(q, ctx->sm)) {
        *declined = true;
        return GK_SUCCESS;
    }
    for (int o = 0; o < 2; o++)
        if (pl.copy[o] && (err = gk_repack_operand(rp[o], ctx->stream)) != cudaSuccess)
            return gk_cuda_status(cl.who, "repack kernel launch", err);
    err = pl.kernel == K_HOPPER ? gk_hopper_gemm(q, env)
          : pl.kernel == K_MMA  ? gk_mma_gemm(q, env)
                                : gk_simt_gemm(q, env);
    if (err == cudaSuccess) err = cudaGetLastError();
    if (err != cudaSuccess) return gk_cuda_status(cl.who, pl.name, err);
    if (ctx->verbose) {
        /* the kernel's A is the caller's b in a column-major call (and a in a row-major one) */
        const char *caller[2] = {cl.layout == GK_ROW_MAJOR ? "a" : "b",
                                 cl.layout == GK_ROW_MAJOR ? "b" : "a"};
        char detail[160] = "", kplan[64] = "";
        if (pl.copy[0] || pl.copy[1])
            snprintf(detail, sizeof detail, " (%s: %s%s%s)",
                     pl.k_lo                                      ? "split into tf32 hi/lo"
                     : from[0] != pl.to[0] || from[1] != pl.to[1] ? "converted to bfloat16"
                                                                  : "copied K-major",
                     pl.copy[0] ? caller[0] : "", pl.copy[0] && pl.copy[1] ? ", " : "",
                     pl.copy[1] ? caller[1] : "");
        /* the sm_90a kernel's plan (sm90_plan.h) */
        if (pl.kernel == K_HOPPER &&
            gk_hopper_describe(q, env, kplan, sizeof kplan) == cudaSuccess) {
            const size_t used = strlen(detail);
            snprintf(detail + used, sizeof detail - used, " [%s]", kplan);
        }
        gk_tc_log(cl, pl.name, detail);
    }
    return GK_SUCCESS;
}

/* The tensor-core paths in order, then SIMT (file comment). */
gk_status run_tensor(const Call &cl, const gk_tc_problem &p) {
    const gk_cuda_ctx *ctx = cl.ctx;
    const int path = ctx->tc_path;
    bool declined;
    gk_status st;
    if (path == GK_TC_AUTO || path == GK_TC_HOPPER || path == GK_TC_REPACK) {
        if (path != GK_TC_REPACK && !cl.split) {
            const Plan as_stored = {K_HOPPER, "hopper", {false, false}, {p.ta, p.tb}, 0};
            st = execute(cl, p, as_stored, &declined);
            if (st != GK_SUCCESS || !declined) return st;
        }
        if (ctx->sm == 90) {
            Plan pl = {K_HOPPER, "repack+hopper", {true, true}, {p.ta, p.tb}, 0};
            if (cl.split) {
                pl.to[0] = pl.to[1] = GK_TF32, pl.k_lo = gk_split_k_lo(p.k);
            } else if (path != GK_TC_REPACK) {
                pl.copy[0] = !tma_ok(p.a, p.lda, p.a_mn_major, p.ta);
                pl.copy[1] = !tma_ok(p.b, p.ldb, p.b_mn_major, p.tb);
            }
            if (pl.copy[0] || pl.copy[1]) {
                st = execute(cl, p, pl, &declined);
                if (st != GK_SUCCESS || !declined) return st;
            }
        }
        if (path != GK_TC_AUTO)
            return gk_fail(GK_ERR_UNSUPPORTED,
                           "%s: GEMMKIT_CUDA_TC_PATH=%s: the sm_90a kernel does not run this call "
                           "on device %d (sm_%d)",
                           cl.who, gk_tc_path_name(path), ctx->device, ctx->sm);
    }
    if ((path == GK_TC_AUTO || path == GK_TC_MMA) && ctx->sm >= 80) {
        Plan pl = {K_MMA, "mma", {false, false}, {p.ta, p.tb}, 0};
        if (is_fp8(p.ta)) { /* then both are: FP8 pairs only */
            pl.copy[0] = pl.copy[1] = true;
            pl.to[0] = pl.to[1] = GK_BF16;
        } else {
            pl.copy[0] = !gk_mma_operand_ok(p.a, p.lda, p.a_mn_major, p.ta, p.k);
            pl.copy[1] = !gk_mma_operand_ok(p.b, p.ldb, p.b_mn_major, p.tb, p.k);
        }
        return execute(cl, p, pl, &declined);
    }
    if (path == GK_TC_MMA)
        return gk_fail(
            GK_ERR_UNSUPPORTED,
            "%s: GEMMKIT_CUDA_TC_PATH=mma: the mma.sync kernel needs sm_80, device %d is "
            "sm_%d",
            cl.who, ctx->device, ctx->sm);
    const Plan simt = {K_SIMT, "simt", {false, false}, {p.ta, p.tb}, 0};
    return execute(cl, p, simt, &declined);
}

} // namespace

gk_status gk_gemm_ex_check_formats(const char *who, int atype, int btype, int ctype) {
    return check_formats(who, atype, btype, ctype);
}

gk_status gk_gemm_ex_check_aligned(const char *who, const char *name, const void *p, int size) {
    return check_aligned(who, name, p, size);
}

const char *gk_format_label(gk_format f) {
    const char *s = gk_format_name(f);
    return s ? s : "?";
}

void gk_tc_log(const gk_tc_call &cl, const char *path, const char *detail) {
    fprintf(stderr, "gemmkit: %s %s %c%c m=%lld n=%lld k=%lld a=%s b=%s c=%s%s path=%s%s\n", cl.who,
            cl.layout == GK_ROW_MAJOR ? "row" : "col", cl.transa == GK_NO_TRANS ? 'N' : 'T',
            cl.transb == GK_NO_TRANS ? 'N' : 'T', (long long)cl.m, (long long)cl.n, (long long)cl.k,
            gk_format_label(cl.at), gk_format_label(cl.bt), gk_format_label(cl.ct), cl.mode, path,
            detail);
}

gk_status gk_cuda_gemm_ex_run(gk_cuda_ctx *ctx, const char *who, gk_layout layout, gk_trans transa,
                              gk_trans transb, int64_t m, int64_t n, int64_t k, float alpha,
                              gk_format atype, const void *a, int64_t lda, gk_format btype,
                              const void *b, int64_t ldb, float beta, gk_format ctype, void *c,
                              int64_t ldc, const gk_gemm_ex_opts *opts) {
    gk_status st = check_formats(who, (int)atype, (int)btype, (int)ctype);
    if (st != GK_SUCCESS) return st;
    const int asz = gk_format_size(atype), bsz = gk_format_size(btype), csz = gk_format_size(ctype);
    gk_gemm_args g;
    st = gk_check_gemm_sized(who, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                             ldc, asz, bsz, csz, &g);
    if (st != GK_SUCCESS) return st;
    if (g.m == 0 || g.n == 0) return GK_SUCCESS;
    gk_gemm_ex_opts o;
    memset(&o, 0, sizeof o);
    if (opts != NULL) o = *opts;
    const bool scale_only = gk_gemm_is_scale_only(&g);
    if (!scale_only) {
        if ((st = check_aligned(who, "a", a, asz)) || (st = check_aligned(who, "b", b, bsz)))
            return st;
    }
    if ((st = check_aligned(who, "c", c, csz))) return st;
    if (!scale_only) {
        if ((o.scale_a && (st = check_aligned(who, "opts->scale_a", o.scale_a, 4))) ||
            (o.scale_b && (st = check_aligned(who, "opts->scale_b", o.scale_b, 4))))
            return st;
    }

    const bool f32 = atype == GK_F32;
    const bool split =
        f32 && ctx->fp32_mode == GK_FP32_3XTF32 && ctx->sm >= 80 && ctx->tc_path != GK_TC_SIMT;
    const Call cl = {{ctx, who, layout, transa, transb, m, n, k, atype, btype, ctype,
                      split ? " fp32=3xtf32" : ""},
                     split};
    if (f32 && !split && ctype == GK_F32 && !o.scale_a && !o.scale_b &&
        ctx->tc_path != GK_TC_SIMT) {
        /* plain SGEMM: the production kernel (or, on an old device, the best it runs); tensor cores
         * are closed to the router, this path having declined them */
        int id;
        if ((st = gk_cuda_fp32_route(ctx, who, false, &id)) != GK_SUCCESS) return st;
        st = gk_cuda_sgemm_run(ctx, id, who, layout, transa, transb, m, n, k, alpha,
                               (const float *)a, lda, (const float *)b, ldb, beta, (float *)c, ldc);
        if (st == GK_SUCCESS && ctx->verbose) {
            int count;
            char detail[64];
            snprintf(detail, sizeof detail, " (%s)", gk_cuda_registry(&count)[id].name);
            gk_tc_log(cl, "sgemm", detail);
        }
        return st;
    }

    gk_device_guard guard(ctx->device);
    if (guard.error() != cudaSuccess) return gk_cuda_status(who, "cudaSetDevice", guard.error());
    if (scale_only && g.beta == 1.0f) return GK_SUCCESS; /* nothing to touch */
    const bool row = layout == GK_ROW_MAJOR;
    /* the normalised A is the caller's B in a row-major call */
    const gk_format ga_t = row ? btype : atype, gb_t = row ? atype : btype;
    const float *ga_scale = row ? o.scale_b : o.scale_a, *gb_scale = row ? o.scale_a : o.scale_b;
    if (ctx->checks) {
        st = gk_cuda_check_call_sized(ctx, who, row, &g, gk_format_size(ga_t), gk_format_size(gb_t),
                                      csz);
        if (st == GK_SUCCESS && !scale_only && o.scale_a)
            st = gk_cuda_check_buffer(ctx, who, "opts->scale_a", o.scale_a, sizeof(float));
        if (st == GK_SUCCESS && !scale_only && o.scale_b)
            st = gk_cuda_check_buffer(ctx, who, "opts->scale_b", o.scale_b, sizeof(float));
        if (st != GK_SUCCESS) return st;
    }
    if (scale_only) {
        const cudaError_t err = gk_scale_c(g.c, ctype, g.n, g.m, g.ldc, g.beta, ctx->stream);
        if (err != cudaSuccess) return gk_cuda_status(who, "scale kernel launch", err);
        if (ctx->verbose) gk_tc_log(cl, "scale", "");
        return GK_SUCCESS;
    }

    gk_tc_problem p;
    p.m = g.n, p.n = g.m, p.k = g.k;
    p.ta = split ? GK_F32 : gb_t, p.tb = split ? GK_F32 : ga_t, p.tc = ctype;
    p.a = g.b, p.lda = g.ldb, p.a_mn_major = g.transb;
    p.b = g.a, p.ldb = g.lda, p.b_mn_major = !g.transa;
    p.c = g.c, p.ldc = g.ldc;
    /* the caller's M, the rows of its C: the kernel's M in a row-major call, its N otherwise */
    p.batch_n = !row;
    p.batch_variant = !ctx->batch_invariant;
    p.alpha = g.alpha, p.beta = g.beta;
    p.scale_a = gb_scale, p.scale_b = ga_scale;
    p.fp8_fast_accum = o.fp8_fast_accum != 0;
    p.k_lo = 0;
    if (f32 && !split) {
        const Plan simt = {K_SIMT, "simt", {false, false}, {p.ta, p.tb}, 0};
        bool declined;
        return execute(cl, p, simt, &declined);
    }
    return run_tensor(cl, p);
}

gk_status gk_cuda_gemm_ex(gk_cuda_ctx *ctx, gk_layout layout, gk_trans transa, gk_trans transb,
                          int64_t m, int64_t n, int64_t k, float alpha, gk_format atype,
                          const void *a, int64_t lda, gk_format btype, const void *b, int64_t ldb,
                          float beta, gk_format ctype, void *c, int64_t ldc,
                          const gk_gemm_ex_opts *opts) {
    static const char who[] = "gk_cuda_gemm_ex";
    gk_clear_error();
    if (ctx == NULL) return gk_fail(GK_ERR_INVALID_VALUE, "%s: ctx is NULL", who);
    return gk_cuda_gemm_ex_run(ctx, who, layout, transa, transb, m, n, k, alpha, atype, a, lda,
                               btype, b, ldb, beta, ctype, c, ldc, opts);
}
