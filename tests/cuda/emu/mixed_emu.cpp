/*
 * mixed_emu.cpp — the tensor-core kernels of the mixed-precision GEMM in the emulated core test
 * (test_core_emulated.sh), which cannot run their inline PTX on the CPU: the sm_90a kernel
 * (src/cuda/hopper/) and the mma.sync kernel (src/cuda/mixed/mma.cu) are replaced by one float64
 * loop over the contract of src/cuda/hopper/hopper.h (block scales included), with each kernel's
 * acceptance rules checked first. So the dispatchers (src/cuda/api/gemm_ex.cu, gemm_scaled.cu)
 * run every path on the CPU: their mapping of layouts and transpositions, the repack, conversion,
 * split and scale-transpose kernels (real, emulated), the workspace, the SIMT kernel; what the
 * emulation cannot check is the tensor-core kernels themselves (the GPU run does). Also
 * gk_format_name, whose module (src/formats/) the emulated build does not compile.
 */
#include <cmath>
#include <cstdio>
#include <cstring>

#include "cuda/hopper/hopper.h"
#include "cuda/mixed/elem.cuh"
#include "cuda/mixed/mixed.h"

const char *gk_format_name(gk_format f) {
    static const char *const names[GK_FORMAT_COUNT] = {
        "float32",        "tfloat32",      "bfloat16",        "float16",
        "float8_e4m3fn",  "float8_e5m2",   "float8_e4m3fnuz", "float8_e5m2fnuz",
        "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn",   "float4_e2m1fn"};
    return (unsigned)f < (unsigned)GK_FORMAT_COUNT ? names[f] : nullptr;
}

/* Element (r, kk) of operand x (rows r, K index kk), as the kernel would multiply it. */
static double element(const void *x, int64_t ld, int mn_major, gk_format t, int64_t r, int64_t kk) {
    return gk_mixed::load(x, mn_major ? kk * ld + r : r * ld + kk, t);
}

/* The block scale of operand row r at K index kk (hopper.h: GK_TCS_ROW transposed, GK_TCS_BLK128
 * in the caller's order), 1 without scales. */
static double block_scale(const gk_tc_scales &s, int64_t r, int64_t kk) {
    if (s.kind == GK_TCS_ROW) return s.s[kk / 128 * s.ld + r];
    if (s.kind == GK_TCS_BLK128) return s.s[r / 128 * s.ld + kk / 128];
    return 1.0;
}

/* The contract of hopper.h, computed in float64, stored as the kernels store (elem.cuh). */
static cudaError_t reference(const gk_tc_problem &p) {
    const float alpha = gk_mixed::alpha_scaled(p.alpha, p.scale_a, p.scale_b);
    for (int64_t i = 0; i < p.m; i++)
        for (int64_t j = 0; j < p.n; j++) {
            double acc = 0.0;
            for (int64_t kk = 0; kk < p.k; kk++) {
                const double a = element(p.a, p.lda, p.a_mn_major, p.ta, i, kk);
                const double b = element(p.b, p.ldb, p.b_mn_major, p.tb, j, kk);
                acc += a * b * block_scale(p.bs_a, i, kk) * block_scale(p.bs_b, j, kk);
                if (p.k_lo > 0) /* 3xTF32: lo * hi + hi * lo */
                    acc += element(p.a, p.lda, 0, p.ta, i, p.k_lo + kk) * b +
                           a * element(p.b, p.ldb, 0, p.tb, j, p.k_lo + kk);
            }
            gk_mixed::store_c(p.c, p.c_trans ? j * p.ldc + i : i * p.ldc + j, p.tc,
                              alpha * (float)acc, p.beta);
        }
    return cudaSuccess;
}

static bool tma_operand(const void *x, int64_t ld, int mn_major, gk_format t) {
    const int size = gk_format_size(t);
    return (uintptr_t)x % 16 == 0 && ld * size % 16 == 0 && (!mn_major || size == 2);
}

/* The sm_90a kernel's block-scale rules (src/cuda/hopper/gemm_sm90.cu): E4M3 pairs; per-row
 * scales on A and 128x128 ones on B; per-row scales 16-byte aligned with ld a multiple of 4,
 * 128x128 ones float-aligned. */
static bool block_scales_ok(const gk_tc_problem &p) {
    const int a = p.bs_a.kind, b = p.bs_b.kind;
    if (a == GK_TCS_NONE && b == GK_TCS_NONE) return true;
    if (p.ta != GK_F8_E4M3FN || p.tb != GK_F8_E4M3FN) return false;
    if (a != GK_TCS_ROW || b != GK_TCS_BLK128) return false;
    for (const gk_tc_scales *x : {&p.bs_a, &p.bs_b}) {
        if (!x->s || x->ld <= 0) return false;
        if (x->kind == GK_TCS_ROW && ((uintptr_t)x->s % 16 || x->ld % 4)) return false;
        if (x->kind == GK_TCS_BLK128 && (uintptr_t)x->s % 4) return false;
    }
    return true;
}

/* hopper.h's rules for the sm_90a kernel. */
int gk_hopper_supports(const gk_tc_problem &p, int sm) {
    const bool fp8a = p.ta == GK_F8_E4M3FN || p.ta == GK_F8_E5M2,
               fp8b = p.tb == GK_F8_E4M3FN || p.tb == GK_F8_E5M2;
    const bool types = (p.ta == p.tb && (p.ta == GK_BF16 || p.ta == GK_F16 || p.ta == GK_TF32)) ||
                       (fp8a && fp8b && !(p.ta == GK_F8_E5M2 && p.tb == GK_F8_E5M2));
    const bool split_ok =
        p.k_lo == 0 || (p.ta == GK_TF32 && !p.a_mn_major && !p.b_mn_major && p.k_lo % 4 == 0);
    return sm == 90 && types && split_ok && p.m > 0 && p.n > 0 && p.k > 0 &&
           (p.tc == GK_F32 || p.tc == GK_BF16 || p.tc == GK_F16) &&
           tma_operand(p.a, p.lda, p.a_mn_major, p.ta) &&
           tma_operand(p.b, p.ldb, p.b_mn_major, p.tb) && block_scales_ok(p);
}

/* A stand-in for the split-K plan's workspace (sm90_plan.h): two float32 copies of C for a long
 * K, none otherwise, so that the dispatcher's sizing and placement of it run here too. */
static size_t emu_workspace(const gk_tc_problem &p) {
    return p.k > 256 ? (size_t)(2 * p.m * p.n * 4) : 0;
}

cudaError_t gk_hopper_workspace(const gk_tc_problem &p, const gk_launch_env &, size_t *bytes) {
    *bytes = emu_workspace(p);
    return cudaSuccess;
}

cudaError_t gk_hopper_describe(const gk_tc_problem &p, const gk_launch_env &, char *buf,
                               size_t len) {
    snprintf(buf, len, "emulated%s", emu_workspace(p) ? " split" : "");
    return cudaSuccess;
}

cudaError_t gk_hopper_gemm(const gk_tc_problem &p, const gk_launch_env &env) {
    if (!gk_hopper_supports(p, env.sm)) return cudaErrorInvalidValue;
    /* the workspace the dispatcher placed must hold what was asked for (ASan checks the writes) */
    if (env.scratch) memset(env.scratch, 0xff, emu_workspace(p));
    return reference(p);
}

/* mixed.h's requirements of the mma.sync kernel: one type, K-major, 16-byte aligned rows (the
 * zero padding past k that a repacked operand has cannot be seen here). */
cudaError_t gk_mma_gemm(const gk_tc_problem &p, const gk_launch_env &env) {
    const bool type =
        p.ta == p.tb && (p.ta == GK_BF16 || p.ta == GK_F16 || p.ta == GK_TF32 || p.ta == GK_F32);
    const int size = gk_format_size(p.ta);
    const bool rows = !p.a_mn_major && !p.b_mn_major && (uintptr_t)p.a % 16 == 0 &&
                      (uintptr_t)p.b % 16 == 0 && p.lda * size % 16 == 0 &&
                      p.ldb * size % 16 == 0 && p.k_lo == 0;
    const bool unscaled = p.bs_a.kind == GK_TCS_NONE && p.bs_b.kind == GK_TCS_NONE;
    if (env.sm < 80 || !type || !rows || !unscaled || p.c_trans) return cudaErrorInvalidValue;
    return reference(p);
}
