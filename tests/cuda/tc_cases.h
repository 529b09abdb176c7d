/*
 * tc_cases.h — what the GPU test programs of the mixed-precision and block-scaled entry points
 * (test_gemm_ex.cu, test_gemm_scaled.cu) share: one context per dispatcher path (forced with
 * GEMMKIT_CUDA_TC_PATH, a path the device cannot take marked unavailable), element codes in byte
 * buffers, stored operands with filled gaps, C's buffer with guard bytes around the m x n block,
 * the float64 reference R and its scale S per element, and the check of the block read back
 * against them (the bound itself is each program's: their file comments state it). Included by
 * one translation unit each: everything here is static.
 */
#ifndef GK_TESTS_CUDA_TC_CASES_H
#define GK_TESTS_CUDA_TC_CASES_H

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "check.h"
#include "formats/scalar.h"
#include "gemmkit.h"
extern "C" {
#include "ref.h"
}

static int g_have_device, g_sm;
static int g_small; /* --small: smaller sizes (compute-sanitizer, the CPU emulation) */

#define NEED_DEVICE()                                                                              \
    do {                                                                                           \
        if (!g_have_device) T_SKIP("no CUDA device");                                              \
    } while (0)

/* A failed CUDA call in a function with `msg`, `len` and an `out:` label. */
#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            snprintf(msg, len, "%s: %s", #x, cudaGetErrorString(e_));                              \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* 2^-22: the relative error 3xTF32 adds per product (test_gemm_ex.cu's file comment). */
static const double U_3XTF32 = 2.384185791015625e-07;
enum { GUARD = 16 }; /* elements of C's buffer before and after the block */

/* ---- paths --------------------------------------------------------------------------------- */

enum { P_AUTO, P_HOPPER, P_REPACK, P_MMA, P_SIMT, NPATH };
static const char *const PATHS[NPATH] = {"auto", "hopper", "repack", "mma", "simt"};
static gk_cuda_ctx *g_ctx[NPATH];
static char g_unavailable[NPATH][300]; /* why a path cannot run on this device, "" if it can */

/* Whether the calls of a context may run on the sm_90a kernel (for the TF32 and FP8 bounds). */
static bool on_hopper(int path) {
    return path == P_HOPPER || path == P_REPACK || (path == P_AUTO && !g_unavailable[P_HOPPER][0]);
}

static gk_cuda_ctx *make_ctx(const char *path, int verbose) {
    setenv("GEMMKIT_CUDA_TC_PATH", path, 1);
    if (verbose) setenv("GEMMKIT_VERBOSE", "1", 1);
    gk_cuda_ctx *ctx = NULL;
    const gk_status st = gk_cuda_create(&ctx, 0, NULL);
    unsetenv("GEMMKIT_CUDA_TC_PATH");
    if (verbose) unsetenv("GEMMKIT_VERBOSE");
    return st == GK_SUCCESS ? ctx : NULL;
}

/* Sets g_have_device and g_sm; with a device, one context per path in g_ctx, and g_unavailable
 * for each path on which `probe` (a small call on a zeroed device buffer of PROBE_BYTES) returns
 * GK_ERR_UNSUPPORTED. 0, or 1 after printing "FAIL setup". */
enum { PROBE_BYTES = 3 * 64 * 64 * 4 };
static int setup_paths(gk_status (*probe)(gk_cuda_ctx *ctx, uint8_t *buf)) {
    g_have_device = gk_cuda_available();
    if (!g_have_device) return 0;
    int major = 0, minor = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
    g_sm = major * 10 + minor;
    for (int p = 0; p < NPATH; p++) {
        g_ctx[p] = make_ctx(PATHS[p], 0);
        if (!g_ctx[p]) {
            printf("FAIL setup: gk_cuda_create: %s\n", gk_last_error());
            return 1;
        }
    }
    uint8_t *buf = NULL;
    if (cudaMalloc(&buf, PROBE_BYTES) != cudaSuccess) {
        printf("FAIL setup: cudaMalloc\n");
        return 1;
    }
    cudaMemset(buf, 0, PROBE_BYTES);
    for (int p = 0; p < NPATH; p++) {
        const gk_status st = probe(g_ctx[p], buf);
        if (st == GK_ERR_UNSUPPORTED) {
            snprintf(g_unavailable[p], sizeof g_unavailable[p], "not on this device (sm_%d): %s",
                     g_sm, gk_last_error());
        } else if (st != GK_SUCCESS) {
            printf("FAIL setup: path %s: %s\n", PATHS[p], gk_last_error());
            cudaFree(buf);
            return 1;
        }
    }
    cudaDeviceSynchronize();
    cudaFree(buf);
    return 0;
}

/* ---- codes ---------------------------------------------------------------------------------- */

static int size_of(gk_format f) {
    return f == GK_F32 || f == GK_TF32 ? 4 : f == GK_BF16 || f == GK_F16 ? 2 : 1;
}

static uint32_t get_code(const std::vector<uint8_t> &buf, int64_t idx, int size) {
    uint32_t v = 0;
    memcpy(&v, &buf[(size_t)(idx * size)], (size_t)size); /* little-endian host */
    return v;
}

static void put_code(std::vector<uint8_t> &buf, int64_t idx, int size, uint32_t code) {
    memcpy(&buf[(size_t)(idx * size)], &code, (size_t)size);
}

static int64_t round_to(int64_t x, int64_t to) {
    return (x + to - 1) / to * to;
}

/* ---- the case grid ------------------------------------------------------------------------- */

/* The fields both programs' cases have, drawn the same way: alpha and beta from small lists (NaN
 * in C where beta is 0), leading dimensions 0-3 past the minimum (odd and even), operands 0 or 1
 * element off their buffers' start. */
template <class Case>
static void random_layout(Case &c, gk_layout l, gk_trans ta, gk_trans tb, int64_t m, int64_t n,
                          int64_t k, t_rng *rng) {
    static const float alphas[] = {1.0f, -0.5f, 2.5f}, betas[] = {0.0f, 1.0f, -1.5f};
    c.layout = l, c.ta = ta, c.tb = tb, c.m = m, c.n = n, c.k = k;
    c.alpha = alphas[t_rng_range(rng, 0, 2)], c.beta = betas[t_rng_range(rng, 0, 2)];
    c.nan_c = c.beta == 0.0f;
    c.lda = t_min_ld(l, ta, m, k) + t_rng_range(rng, 0, 3);
    c.ldb = t_min_ld(l, tb, k, n) + t_rng_range(rng, 0, 3);
    c.ldc = (l == GK_COL_MAJOR ? m : n) + t_rng_range(rng, 0, 3);
    c.off_a = (int)t_rng_range(rng, 0, 1), c.off_b = (int)t_rng_range(rng, 0, 1);
}

/* The cases every combination gets, appended to v through base(layout, ta, tb, m, n, k): both
 * layouts x the four transposition pairs on eight odd shapes (CONJ_TRANS must act as TRANS), then
 * the four layouts with every leading dimension and offset on TMA's 16 bytes (so "hopper" reads
 * the K-major operands as stored and stores C with TMA), 190 x 333 x tma_k. */
template <class Case, class Base>
static void layout_cases(std::vector<Case> &v, Base base, int64_t tma_k) {
    static const int64_t shapes[][3] = {{67, 45, 33},    {1, 1, 1},     {33, 1, 65},
                                        {129, 130, 1},   {17, 9, 300},  {131, 257, 67},
                                        {200, 131, 129}, {263, 97, 255}};
    static const gk_trans tr[2] = {GK_NO_TRANS, GK_TRANS};
    int s = 0;
    for (int l = 0; l < 2; l++)
        for (int t = 0; t < 4; t++, s++) {
            gk_trans ta = tr[t >> 1], tb = tr[t & 1];
            if (l == 1 && t == 3) ta = tb = GK_CONJ_TRANS;
            v.push_back(base(l ? GK_ROW_MAJOR : GK_COL_MAJOR, ta, tb, shapes[s][0], shapes[s][1],
                             shapes[s][2]));
        }
    for (int t = 0; t < 4; t++) {
        Case c = base(t & 1 ? GK_ROW_MAJOR : GK_COL_MAJOR, tr[t >> 1], tr[t & 1], 190, 333, tma_k);
        c.lda = round_to(c.lda, 16), c.ldb = round_to(c.ldb, 16), c.off_a = c.off_b = 0;
        c.ldc = round_to(c.ldc, 16);
        v.push_back(c);
    }
}

/* ---- operands and C ------------------------------------------------------------------------- */

/* A stored operand in the caller's layout: rows x cols, ld, `off` elements into its buffer of
 * `len` elements; the gaps hold a fill code. */
struct operand {
    gk_format f;
    int64_t rows, cols, ld, off, len;
    std::vector<uint8_t> codes;

    int64_t index(gk_layout l, int64_t r, int64_t c) const {
        return off + (l == GK_COL_MAJOR ? r + c * ld : r * ld + c);
    }
    /* the code of op(X)(i, p), X stored transposed when `trans` */
    uint32_t op_code(gk_layout l, bool trans, int64_t i, int64_t p) const {
        return get_code(codes, trans ? index(l, p, i) : index(l, i, p), size_of(f));
    }
};

/* Values range * [-1, 1) as codes of f (float32 bits for TF32), `fill` in every gap. */
static void make_operand(operand &o, gk_format f, gk_layout l, int64_t rows, int64_t cols,
                         int64_t ld, int off, uint32_t fill, float range, t_rng *rng) {
    o.f = f, o.rows = rows, o.cols = cols, o.ld = ld, o.off = off;
    o.len = off + (gkh_extent(l, rows, cols, ld) > 0 ? gkh_extent(l, rows, cols, ld) : 1);
    const int size = size_of(f);
    o.codes.assign((size_t)(o.len * size), 0);
    for (int64_t i = 0; i < o.len; i++)
        put_code(o.codes, i, size, fill);
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++)
            put_code(o.codes, o.index(l, r, c), size,
                     gk_encode_scalar(f == GK_TF32 ? GK_F32 : f, range * t_rng_float(rng), 0));
}

/* C's buffer (GUARD elements, the m x n block in the layout with ldc, GUARD elements) as before
 * the call, and the reference R and scale S of element (i, j) at [i + j * m]. */
struct cblock {
    gk_format ct;
    gk_layout layout;
    int64_t m, n, ldc, off, len;
    std::vector<uint8_t> c0;
    std::vector<double> r, s;

    int64_t at(int64_t i, int64_t j) const {
        return off + (layout == GK_COL_MAJOR ? i + j * ldc : i * ldc + j);
    }
    double old(int64_t i, int64_t j) const {
        return gk_decode_scalar(ct, get_code(c0, at(i, j), size_of(ct)));
    }
};

/* Position-coded bytes around the block, the block NaN (nan_c) or random values. */
static void make_c(cblock &cb, gk_format ct, gk_layout l, int64_t m, int64_t n, int64_t ldc,
                   bool nan_c, t_rng *rng) {
    cb.ct = ct, cb.layout = l, cb.m = m, cb.n = n, cb.ldc = ldc;
    const int cs = size_of(ct);
    cb.off = GUARD;
    cb.len = GUARD + gkh_extent(l, m, n, ldc) + GUARD;
    cb.c0.resize((size_t)(cb.len * cs));
    for (size_t i = 0; i < cb.c0.size(); i++)
        cb.c0[i] = (uint8_t)(i * 131 + 7);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++)
            put_code(cb.c0, cb.at(i, j), cs,
                     nan_c ? gk_encode_scalar(ct, NAN, 0)
                           : gk_encode_scalar(ct, t_rng_float(rng), 0));
}

/* R = alpha op(A) op(B) + beta C0 and S = |alpha| sum |a b| + |beta C0|, from op(A) decoded as
 * av (m rows of k) and op(B)^T as bv (n rows of k); with alpha == 0 the product is not read. */
static void make_reference(cblock &cb, const std::vector<double> &av, const std::vector<double> &bv,
                           int64_t k, double alpha, float beta) {
    const int64_t m = cb.m, n = cb.n;
    cb.r.assign((size_t)(m * n), 0.0), cb.s.assign((size_t)(m * n), 0.0);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double sum = 0.0, abs_sum = 0.0;
            if (alpha != 0.0) {
                const double *x = av.data() + i * k, *y = bv.data() + j * k;
                for (int64_t p = 0; p < k; p++)
                    sum += x[p] * y[p], abs_sum += fabs(x[p] * y[p]);
            }
            double want = alpha * sum, scale = fabs(alpha) * abs_sum;
            if (beta != 0.0f) {
                const double old = cb.old(i, j);
                want += (double)beta * old, scale += fabs((double)beta * old);
            }
            cb.r[(size_t)(i + j * m)] = want, cb.s[(size_t)(i + j * m)] = scale;
        }
}

/* make_reference for the stored operands a (op(A): m x k, at) and b (op(B): k x n, bt) in layout
 * l with transpositions ta, tb, each decoded once. */
static void reference_of(cblock &cb, const operand &a, gk_format at, bool ta, const operand &b,
                         gk_format bt, bool tb, gk_layout l, int64_t k, double alpha, float beta) {
    const int64_t m = cb.m, n = cb.n;
    std::vector<double> av((size_t)(m * k)), bv((size_t)(n * k));
    for (int64_t p = 0; p < k; p++) {
        for (int64_t i = 0; i < m; i++)
            av[(size_t)(i * k + p)] = gk_decode_scalar(at, a.op_code(l, ta, i, p));
        for (int64_t j = 0; j < n; j++)
            bv[(size_t)(j * k + p)] = gk_decode_scalar(bt, b.op_code(l, tb, p, j));
    }
    make_reference(cb, av, bv, k, alpha, beta);
}

/* C's buffer read back (out) against cb: every block element within bound(R, S) of R (a NaN R,
 * when nan_ok, expects NaN and nothing else), every byte outside the block as before. 0, or 1
 * with msg naming the worst element and the count. */
template <class Bound>
static int check_c(const cblock &cb, const std::vector<uint8_t> &out, bool nan_ok, Bound bound,
                   char *msg, size_t len) {
    const int cs = size_of(cb.ct);
    std::vector<char> in_block((size_t)cb.len, 0);
    int64_t bad = 0;
    double worst = -1.0;
    for (int64_t j = 0; j < cb.n; j++)
        for (int64_t i = 0; i < cb.m; i++) {
            const int64_t idx = cb.at(i, j);
            in_block[(size_t)idx] = 1;
            const double want = cb.r[(size_t)(i + j * cb.m)];
            const double got = gk_decode_scalar(cb.ct, get_code(out, idx, cs));
            double err, b;
            if (nan_ok && isnan(want)) {
                err = isnan(got) ? 0.0 : INFINITY, b = 0.0;
            } else {
                b = bound(want, cb.s[(size_t)(i + j * cb.m)]);
                err = fabs(got - want);
            }
            if (!(err <= b)) {
                const double ratio = isnan(err) || b == 0.0 ? INFINITY : err / b;
                if (bad++ == 0 || ratio > worst) {
                    worst = ratio;
                    snprintf(msg, len, "C(%lld,%lld) = %.9g, want %.9g (err %.3g > bound %.3g)",
                             (long long)i, (long long)j, got, want, err, b);
                }
            }
        }
    if (bad) {
        char tail[64];
        snprintf(tail, sizeof tail, "; %lld bad", (long long)bad);
        strncat(msg, tail, len - strlen(msg) - 1);
        return 1;
    }
    for (int64_t idx = 0; idx < cb.len; idx++)
        if (!in_block[(size_t)idx] &&
            memcmp(&out[(size_t)(idx * cs)], &cb.c0[(size_t)(idx * cs)], (size_t)cs) != 0) {
            snprintf(msg, len, "C's buffer changed outside the block at element %lld",
                     (long long)(idx - cb.off));
            return 1;
        }
    return 0;
}

#endif
