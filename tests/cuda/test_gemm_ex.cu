/*
 * test_gemm_ex.cu — GPU tests of the mixed-precision entry point gk_cuda_gemm_ex and of
 * gk_cuda_sgemm in the GK_FP32_3XTF32 mode, through the public API, on every path the dispatcher
 * has (src/cuda/api/gemm_ex.cu): each runs on a context created with GEMMKIT_CUDA_TC_PATH set to
 * it (auto, hopper, repack, mma, simt; a path the device cannot take is reported as a skip).
 *
 * Every supported type combination (TF32, BF16, FP16, the three FP8 pairs, float32 in both FP32
 * modes; C in float32, bfloat16, float16) on both layouts and all transposition pairs, shapes that
 * are not multiples of 128 or 256, K = 1, primes, odd leading dimensions, operands one element
 * past an aligned address (off TMA's 16 bytes), beta = 0 on NaN in C, beta = 1, alpha = 0, k = 0,
 * FP8 scales other than 1 (device values), FP8 fast accumulation on and off. Gaps between the
 * rows of A and B hold NaN, everything of C's buffer outside the m x n block must stay
 * bit-identical. Operands are drawn as codes of their format, so the float64 reference uses
 * exactly the values the GPU reads (decoded with src/formats/scalar.h); the bound per element is
 *   |C - R| <= ((K + 2) eps_acc + 2 u_in) S + u_out (|R| + that) + tiny_out,
 * S = |alpha sa sb| sum |a b| + |beta C0| (docs/testing.md), with
 *   u_in   0 for BF16/FP16/FP8 and float32 (the reference has the exact inputs); TF32 2^-11 on the
 *          paths that round to TF32 (mma, simt: to nearest) and 2^-10 on the sm_90a kernel, which
 *          hands the float32 bits to wgmma and the tensor core drops the low 13 (truncation);
 *   eps_acc 2^-23 (float32 accumulation); FP8 on the sm_90a kernel adds span * 2^-13, the tensor
 *          core's shorter FP8 accumulator over each promotion interval (span = min(K, 128); with
 *          fast accumulation span = K), as the kernel's own test (test_hopper_kernel.cu) states;
 *   u_out  0 for float32 C (its rounding is in the K + 2), 2^-8 bfloat16, 2^-11 float16.
 * 3xTF32 is held to the float32 rule (gkh_bound) with u_in = U_3XTF32 = 2^-22: each product
 * misses lo*lo (up to 2^-22 |a b|) and the split's residuals (up to 2^-23 |a| and |b|), so its
 * relative error reaches 4 float32 epsilons, which the plain rule (u_in = 0) exceeds at K = 1
 * (docs/cuda.md, "FP32 accuracy modes").
 *
 * Also: argument errors (format values, unsupported pairs, NULL pointers, leading dimensions,
 * misaligned and host pointers, sizes checked in bytes of the element type) with their status
 * and message and C untouched, gk_cuda_set_fp32_mode, and the GEMMKIT_VERBOSE line naming the
 * path. Without a device every GPU case reports "skip". `--small` keeps every case but shrinks
 * its sizes to about 70 (for compute-sanitizer, and for the CPU emulation of the same program,
 * test_gemm_ex_emulated.sh).
 */
#include <float.h>
#include <unistd.h>

#include "cuda/tc_cases.h"

/* ---- one case ------------------------------------------------------------------------------ */

struct xcase {
    gk_format at, bt, ct;
    bool split; /* float32 operands in the GK_FP32_3XTF32 mode */
    gk_layout layout;
    gk_trans ta, tb;
    int64_t m, n, k, lda, ldb, ldc;
    int off_a, off_b; /* elements past an aligned address */
    float alpha, beta;
    bool nan_c, scales, fast;
};

static void case_str(const xcase &c, char *buf, size_t len) {
    snprintf(buf, len,
             "%s%s%s%s m=%lld n=%lld k=%lld lda=%lld ldb=%lld ldc=%lld off=%d,%d alpha=%g "
             "beta=%g%s%s%s",
             c.split ? "3xtf32 " : "", c.layout == GK_COL_MAJOR ? "col" : "row",
             c.ta == GK_NO_TRANS ? "N" : "T", c.tb == GK_NO_TRANS ? "N" : "T", (long long)c.m,
             (long long)c.n, (long long)c.k, (long long)c.lda, (long long)c.ldb, (long long)c.ldc,
             c.off_a, c.off_b, c.alpha, c.beta, c.nan_c ? " C=NaN" : "", c.scales ? " scales" : "",
             c.fast ? " fast-accum" : "");
}

static const float SCALE_A = 0.5f, SCALE_B = 3.0f;

struct xdata {
    xcase c;
    operand a, b; /* NaN in the gaps */
    cblock cb;
};

static void make_data(xdata &d, const xcase &c, t_rng *rng) {
    d.c = c;
    const bool ta = c.ta != GK_NO_TRANS, tb = c.tb != GK_NO_TRANS;
    make_operand(d.a, c.at, c.layout, ta ? c.k : c.m, ta ? c.m : c.k, c.lda, c.off_a,
                 gk_encode_scalar(c.at, NAN, 0), 1.0f, rng);
    make_operand(d.b, c.bt, c.layout, tb ? c.n : c.k, tb ? c.k : c.n, c.ldb, c.off_b,
                 gk_encode_scalar(c.bt, NAN, 0), 1.0f, rng);
    make_c(d.cb, c.ct, c.layout, c.m, c.n, c.ldc, c.nan_c, rng);
    /* the reference, from the values as stored: op(A) (m x k) and op(B)^T (n x k) decoded once */
    const double alpha = (double)c.alpha * (c.scales ? (double)SCALE_A * SCALE_B : 1.0);
    reference_of(d.cb, d.a, c.at, ta, d.b, c.bt, tb, c.layout, c.k, alpha, c.beta);
}

/* The largest |C - R| accepted for one element (file comment). */
static double bound(const xcase &c, int path, double want, double scale) {
    const bool fp8 = size_of(c.at) == 1, hopper = on_hopper(path);
    const double u_in = c.at == GK_TF32 ? ldexp(1.0, hopper ? -10 : -11) : c.split ? U_3XTF32 : 0.0;
    double core = gkh_bound(c.k, u_in, scale);
    if (fp8 && hopper)
        core += (double)(c.fast ? c.k : (c.k < 128 ? c.k : 128)) * ldexp(1.0, -13) * scale;
    if (c.ct == GK_F32) return core;
    const double u_out = ldexp(1.0, c.ct == GK_BF16 ? -8 : -11);
    const double tiny = c.ct == GK_BF16 ? FLT_MIN : ldexp(1.0, -25);
    return core + u_out * (fabs(want) + core) + tiny;
}

/* Run case d on context ctx (path `path`) and verify. 0 on success, else 1 with msg. */
static int run_case(gk_cuda_ctx *ctx, int path, const xdata &d, char *msg, size_t len) {
    const xcase &c = d.c;
    const int as = size_of(c.at), bs = size_of(c.bt), cs = size_of(c.ct);
    uint8_t *da = NULL, *db = NULL, *dc = NULL;
    float *dscale = NULL;
    const float scales[2] = {SCALE_A, SCALE_B};
    std::vector<uint8_t> out(d.cb.c0.size()), back_a(d.a.codes.size()), back_b(d.b.codes.size());
    int rc = 1;
    gk_status st;
    gk_gemm_ex_opts opts;
    memset(&opts, 0, sizeof opts);
    /* cudaMalloc'ed buffers are 256-byte aligned: offsets 0 keep the TMA's 16 bytes, 1 breaks them
     */
    CK(cudaMalloc(&da, d.a.codes.size()));
    CK(cudaMalloc(&db, d.b.codes.size()));
    CK(cudaMalloc(&dc, d.cb.c0.size()));
    CK(cudaMalloc(&dscale, sizeof scales));
    CK(cudaMemcpy(da, d.a.codes.data(), d.a.codes.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, d.b.codes.data(), d.b.codes.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dc, d.cb.c0.data(), d.cb.c0.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dscale, scales, sizeof scales, cudaMemcpyHostToDevice));
    CK(cudaDeviceSynchronize());
    if (c.scales) opts.scale_a = dscale, opts.scale_b = dscale + 1;
    opts.fp8_fast_accum = c.fast;
    if (gk_cuda_set_fp32_mode(ctx, c.split ? GK_FP32_3XTF32 : GK_FP32_SIMT) != GK_SUCCESS) {
        snprintf(msg, len, "gk_cuda_set_fp32_mode: %s", gk_last_error());
        goto out;
    }
    st = gk_cuda_gemm_ex(ctx, c.layout, c.ta, c.tb, c.m, c.n, c.k, c.alpha, c.at, da + d.a.off * as,
                         c.lda, c.bt, db + d.b.off * bs, c.ldb, c.beta, c.ct, dc + d.cb.off * cs,
                         c.ldc, &opts);
    gk_cuda_set_fp32_mode(ctx, GK_FP32_SIMT);
    if (st != GK_SUCCESS) {
        snprintf(msg, len, "status %s: %s", gk_status_string(st), gk_last_error());
        goto out;
    }
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(out.data(), dc, out.size(), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(back_a.data(), da, back_a.size(), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(back_b.data(), db, back_b.size(), cudaMemcpyDeviceToHost));
    if (back_a != d.a.codes || back_b != d.b.codes) {
        snprintf(msg, len, "A or B was written");
        goto out;
    }
    if (check_c(
            d.cb, out, false,
            [&](double want, double scale) { return bound(c, path, want, scale); }, msg, len))
        goto out;
    rc = 0;
out:
    cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(dscale);
    return rc;
}

/* ---- the combinations and their cases ------------------------------------------------------- */

struct combo {
    const char *name;
    gk_format at, bt;
    bool split;
};
static const combo COMBOS[] = {
    {"tf32", GK_TF32, GK_TF32, false},
    {"bf16", GK_BF16, GK_BF16, false},
    {"f16", GK_F16, GK_F16, false},
    {"e4m3_e4m3", GK_F8_E4M3FN, GK_F8_E4M3FN, false},
    {"e4m3_e5m2", GK_F8_E4M3FN, GK_F8_E5M2, false},
    {"e5m2_e4m3", GK_F8_E5M2, GK_F8_E4M3FN, false},
    {"f32_simt_mode", GK_F32, GK_F32, false},
    {"f32_3xtf32", GK_F32, GK_F32, true},
};
enum { NCOMBO = sizeof COMBOS / sizeof COMBOS[0] };
static const gk_format CTYPES[] = {GK_F32, GK_BF16, GK_F16};

/* Every case of one combination and C type. */
static std::vector<xcase> build_cases(const combo &cb, gk_format ct, t_rng *rng) {
    const bool fp8 = size_of(cb.at) == 1;
    std::vector<xcase> v;
    auto base = [&](gk_layout l, gk_trans ta, gk_trans tb, int64_t m, int64_t n, int64_t k) {
        if (g_small) { /* keep the shape's oddness, not its size */
            m = m > 70 ? 70 - m % 7 : m, n = n > 70 ? 70 - n % 7 : n, k = k > 70 ? 70 - k % 7 : k;
        }
        xcase c;
        memset(&c, 0, sizeof c);
        c.at = cb.at, c.bt = cb.bt, c.ct = ct, c.split = cb.split;
        random_layout(c, l, ta, tb, m, n, k, rng);
        c.scales = fp8 && t_rng_range(rng, 0, 1);
        c.fast = fp8 && t_rng_range(rng, 0, 1);
        return c;
    };
    layout_cases(v, base, 77);
    /* larger than a 128x256 tile on both sides, primes, K = 1, odd everything */
    v.push_back(base(GK_COL_MAJOR, GK_NO_TRANS, GK_TRANS, 389, 259, 520));
    v.push_back(base(GK_ROW_MAJOR, GK_TRANS, GK_NO_TRANS, 257, 263, 131));
    v.push_back(base(GK_COL_MAJOR, GK_TRANS, GK_TRANS, 300, 257, 1));
    /* scalar special cases: alpha = 0 (C = beta C), beta = 1 with alpha = 0 (nothing), k = 0 with
     * NaN in C and beta = 0 (zeros), beta = 0 with NaN in C, beta = 1 */
    xcase c = base(GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 45, 67, 33);
    c.alpha = 0.0f, c.beta = -1.5f, c.nan_c = false;
    v.push_back(c);
    c.beta = 1.0f;
    v.push_back(c);
    c = base(GK_ROW_MAJOR, GK_NO_TRANS, GK_TRANS, 45, 67, 0);
    c.beta = 0.0f, c.nan_c = true;
    v.push_back(c);
    c = base(GK_ROW_MAJOR, GK_TRANS, GK_NO_TRANS, 70, 40, 50);
    c.alpha = 1.0f, c.beta = 0.0f, c.nan_c = true, c.scales = true;
    v.push_back(c);
    c.beta = 1.0f, c.nan_c = false, c.fast = fp8;
    v.push_back(c);
    return v;
}

static struct {
    int failed, skipped;
    char why[700];
} g_res[NPATH][NCOMBO];

static void run_combos(void) {
    t_rng rng = {0x5deece66dull};
    for (int ci = 0; ci < NCOMBO; ci++)
        for (gk_format ct : CTYPES) {
            const std::vector<xcase> cases = build_cases(COMBOS[ci], ct, &rng);
            for (const xcase &c : cases) {
                xdata d;
                make_data(d, c, &rng);
                for (int p = 0; p < NPATH; p++) {
                    if (g_unavailable[p][0] || g_res[p][ci].failed) continue;
                    char msg[400], desc[200];
                    if (run_case(g_ctx[p], p, d, msg, sizeof msg)) {
                        g_res[p][ci].failed++;
                        case_str(c, desc, sizeof desc);
                        snprintf(g_res[p][ci].why, sizeof g_res[p][ci].why, "c=%s %s: %s",
                                 gk_format_name(ct), desc, msg);
                    }
                }
            }
        }
}

static int g_path, g_combo;
static void combo_case(void) {
    NEED_DEVICE();
    if (g_unavailable[g_path][0]) T_SKIP("%s", g_unavailable[g_path]);
    T_CHECK(!g_res[g_path][g_combo].failed, "%s", g_res[g_path][g_combo].why);
}

/* ---- gk_cuda_sgemm in the 3xTF32 mode (float harness data: tests/common/ref.h) -------------- */

static void sgemm_3xtf32(void) {
    NEED_DEVICE();
    if (g_unavailable[g_path][0]) T_SKIP("%s", g_unavailable[g_path]);
    static const int64_t shapes[][3] = {{1, 1, 1},       {67, 45, 33}, {129, 130, 1},
                                        {300, 257, 131}, {17, 9, 700}, {256, 128, 64}};
    t_rng rng = {0x2545f4914f6cdd1dull};
    gk_cuda_ctx *ctx = g_ctx[g_path];
    T_REQUIRE(gk_cuda_set_fp32_mode(ctx, GK_FP32_3XTF32) == GK_SUCCESS, "%s", gk_last_error());
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int t = 0; t < 8; t++) {
            t_gemm_case cs;
            memset(&cs, 0, sizeof cs);
            cs.layout = t & 4 ? GK_ROW_MAJOR : GK_COL_MAJOR;
            cs.ta = t & 2 ? GK_TRANS : GK_NO_TRANS, cs.tb = t & 1 ? GK_TRANS : GK_NO_TRANS;
            cs.m = shapes[s][0], cs.n = shapes[s][1], cs.k = shapes[s][2];
            cs.alpha = t & 1 ? -0.5f : 1.0f, cs.beta = t & 2 ? 0.0f : 1.5f;
            cs.nan_c = cs.beta == 0.0f;
            cs.lda = t_min_ld(cs.layout, cs.ta, cs.m, cs.k) + (t & 1);
            cs.ldb = t_min_ld(cs.layout, cs.tb, cs.k, cs.n) + 2 * (t & 1);
            cs.ldc = (cs.layout == GK_COL_MAJOR ? cs.m : cs.n) + 1;
            t_gemm_data d;
            T_REQUIRE(t_gemm_data_init(&d, &cs, &rng) == 0, "out of host memory");
            float *da = NULL, *db = NULL, *dc = NULL;
            char msg[400] = "", desc[200];
            int bad = 1;
            if (cudaMalloc(&da, (size_t)d.a_len * 4) == cudaSuccess &&
                cudaMalloc(&db, (size_t)d.b_len * 4) == cudaSuccess &&
                cudaMalloc(&dc, (size_t)d.c_len * 4) == cudaSuccess &&
                cudaMemcpy(da, d.a, (size_t)d.a_len * 4, cudaMemcpyHostToDevice) == cudaSuccess &&
                cudaMemcpy(db, d.b, (size_t)d.b_len * 4, cudaMemcpyHostToDevice) == cudaSuccess &&
                cudaMemcpy(dc, d.c_buf, (size_t)d.c_len * 4, cudaMemcpyHostToDevice) ==
                    cudaSuccess &&
                cudaDeviceSynchronize() == cudaSuccess) {
                const gk_status st =
                    gk_cuda_sgemm(ctx, cs.layout, cs.ta, cs.tb, cs.m, cs.n, cs.k, cs.alpha, da,
                                  cs.lda, db, cs.ldb, cs.beta, dc + (d.c - d.c_buf), cs.ldc);
                if (st != GK_SUCCESS)
                    snprintf(msg, sizeof msg, "status %s: %s", gk_status_string(st),
                             gk_last_error());
                else if (cudaDeviceSynchronize() != cudaSuccess ||
                         cudaMemcpy(d.c_buf, dc, (size_t)d.c_len * 4, cudaMemcpyDeviceToHost) !=
                             cudaSuccess)
                    snprintf(msg, sizeof msg, "CUDA error after the call");
                else
                    bad = t_gemm_data_verify(&d, U_3XTF32, msg, sizeof msg);
            } else {
                snprintf(msg, sizeof msg, "setup failed");
            }
            cudaFree(da), cudaFree(db), cudaFree(dc);
            t_case_str(&cs, desc, sizeof desc);
            t_gemm_data_free(&d);
            if (bad) {
                gk_cuda_set_fp32_mode(ctx, GK_FP32_SIMT);
                T_REQUIRE(0, "%s: %s", desc, msg);
            }
        }
    gk_cuda_set_fp32_mode(ctx, GK_FP32_SIMT);
}

/* ---- the path a call takes, in the GEMMKIT_VERBOSE line -------------------------------------- */

static void verbose_names_path(void) {
    NEED_DEVICE();
    static const char *const want[NPATH] = {NULL, "path=hopper", "path=repack+hopper", "path=mma",
                                            "path=simt"};
    const int64_t n = 64;
    void *buf = NULL;
    T_REQUIRE(cudaMalloc(&buf, 3 * n * n * 4) == cudaSuccess, "cudaMalloc");
    cudaMemset(buf, 0, 3 * n * n * 4);
    uint8_t *a = (uint8_t *)buf, *b = a + n * n * 4, *c = b + n * n * 4;
    char tmpl[] = "/tmp/gk_test_gemm_ex_XXXXXX";
    const int fd = mkstemp(tmpl);
    T_REQUIRE(fd >= 0, "mkstemp");
    unlink(tmpl);
    int tested = 0;
    for (int p = 1; p < NPATH; p++) {
        if (g_unavailable[p][0]) continue;
        gk_cuda_ctx *ctx = make_ctx(PATHS[p], 1);
        T_CHECK(ctx != NULL, "gk_cuda_create: %s", gk_last_error());
        if (!ctx) continue;
        fflush(stderr);
        const int saved = dup(2);
        if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0) break;
        dup2(fd, 2);
        const gk_status st =
            gk_cuda_gemm_ex(ctx, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, n, n, n, 1.0f, GK_BF16, a,
                            n, GK_BF16, b, n, 0.0f, GK_F32, c, n, NULL);
        fflush(stderr);
        dup2(saved, 2), close(saved);
        char log[512] = "";
        lseek(fd, 0, SEEK_SET);
        const ssize_t got = read(fd, log, sizeof log - 1);
        log[got > 0 ? got : 0] = '\0';
        T_CHECK(st == GK_SUCCESS, "%s: %s", PATHS[p], gk_last_error());
        T_CHECK(strstr(log, want[p]) != NULL && strstr(log, "a=bfloat16") != NULL,
                "GEMMKIT_CUDA_TC_PATH=%s: the log line \"%s\" does not say %s", PATHS[p], log,
                want[p]);
        gk_cuda_destroy(ctx);
        tested++;
    }
    close(fd);
    cudaFree(buf);
    T_CHECK(tested > 0, "no path available");
}

/* ---- argument errors ------------------------------------------------------------------------ */

static void null_context(void) {
    T_CHECK(gk_cuda_gemm_ex(NULL, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 1, 1, 1, 1.0f, GK_BF16,
                            NULL, 1, GK_BF16, NULL, 1, 0.0f, GK_F32, NULL, 1,
                            NULL) == GK_ERR_INVALID_VALUE,
            "status");
    T_CHECK(strstr(gk_last_error(), "gk_cuda_gemm_ex: ctx is NULL") != NULL, "message: %s",
            gk_last_error());
    T_CHECK(gk_cuda_set_fp32_mode(NULL, GK_FP32_3XTF32) == GK_ERR_INVALID_VALUE, "status");
    T_CHECK(strstr(gk_last_error(), "ctx is NULL") != NULL, "message: %s", gk_last_error());
}

static void bad_arguments(void) {
    NEED_DEVICE();
    gk_cuda_ctx *ctx = g_ctx[P_AUTO];
    const int64_t m = 8, n = 8, k = 8;
    uint8_t *buf = NULL;
    T_REQUIRE(cudaMalloc(&buf, 3 * 256) == cudaSuccess, "cudaMalloc");
    uint8_t *a = buf, *b = buf + 256, *c = buf + 512;
    T_REQUIRE(cudaMemset(c, 0x5a, 256) == cudaSuccess, "memset");
    static uint16_t host[64];
    const float one = 1.0f;
    gk_gemm_ex_opts host_scale;
    memset(&host_scale, 0, sizeof host_scale);
    host_scale.scale_a = &one;
    struct {
        const char *what;
        gk_layout layout;
        int64_t lda;
        int at, bt, ct; /* ints: a C++ enum must not hold 99 (UBSan) */
        const void *a;
        const gk_gemm_ex_opts *opts;
        gk_status want;
        const char *msg;
    } bad[] = {
        {"format value", GK_COL_MAJOR, 8, 99, GK_BF16, GK_F32, a, NULL, GK_ERR_INVALID_VALUE,
         "atype=99 is not a gk_format value"},
        {"negative format", GK_COL_MAJOR, 8, GK_BF16, -1, GK_F32, a, NULL, GK_ERR_INVALID_VALUE,
         "btype=-1 is not a gk_format value"},
        {"FP8 C", GK_COL_MAJOR, 8, GK_BF16, GK_BF16, GK_F8_E4M3FN, a, NULL, GK_ERR_UNSUPPORTED,
         "ctype=float8_e4m3fn is not supported"},
        {"mixed 16-bit pair", GK_COL_MAJOR, 8, GK_BF16, GK_F16, GK_F32, a, NULL, GK_ERR_UNSUPPORTED,
         "atype=bfloat16 with btype=float16 is not supported"},
        {"float32 with TF32", GK_COL_MAJOR, 8, GK_F32, GK_TF32, GK_F32, a, NULL, GK_ERR_UNSUPPORTED,
         "atype=float32 with btype=tfloat32"},
        {"E5M2 pair", GK_COL_MAJOR, 8, GK_F8_E5M2, GK_F8_E5M2, GK_F32, a, NULL, GK_ERR_UNSUPPORTED,
         "atype=btype=float8_e5m2 is not supported"},
        {"FP6 operand", GK_COL_MAJOR, 8, GK_F6_E2M3FN, GK_BF16, GK_F32, a, NULL, GK_ERR_UNSUPPORTED,
         "atype=float6_e2m3fn is not supported as an operand"},
        {"layout", (gk_layout)7, 8, GK_BF16, GK_BF16, GK_F32, a, NULL, GK_ERR_INVALID_LAYOUT,
         "layout=7"},
        {"lda", GK_COL_MAJOR, 7, GK_BF16, GK_BF16, GK_F32, a, NULL, GK_ERR_INVALID_LD,
         "lda=7 must be >= max(1, 8)"},
        {"NULL a", GK_COL_MAJOR, 8, GK_BF16, GK_BF16, GK_F32, NULL, NULL, GK_ERR_NULL_POINTER,
         "a is NULL"},
        {"misaligned a", GK_COL_MAJOR, 8, GK_BF16, GK_BF16, GK_F32, a + 1, NULL,
         GK_ERR_INVALID_POINTER, "is not aligned to its element size (2 bytes)"},
        {"host a", GK_COL_MAJOR, 8, GK_BF16, GK_BF16, GK_F32, host, NULL, GK_ERR_INVALID_POINTER,
         "a is a host pointer"},
        {"host scale", GK_COL_MAJOR, 8, GK_BF16, GK_BF16, GK_F32, a, &host_scale,
         GK_ERR_INVALID_POINTER, "opts->scale_a is a host pointer"},
    };
    /* where the device reads pageable host memory (HMM, ATS), host pointers are legal */
    int pageable = 0;
    cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, 0);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (pageable && strstr(bad[i].msg, "host pointer")) continue;
        const gk_status st =
            gk_cuda_gemm_ex(ctx, bad[i].layout, GK_NO_TRANS, GK_NO_TRANS, m, n, k, 1.0f,
                            (gk_format)bad[i].at, bad[i].a, bad[i].lda, (gk_format)bad[i].bt, b, 8,
                            0.0f, (gk_format)bad[i].ct, c, 8, bad[i].opts);
        T_CHECK(st == bad[i].want, "%s: status %s, want %s (%s)", bad[i].what, gk_status_string(st),
                gk_status_string(bad[i].want), gk_last_error());
        T_CHECK(strstr(gk_last_error(), bad[i].msg) != NULL &&
                    strncmp(gk_last_error(), "gk_cuda_gemm_ex: ", 17) == 0,
                "%s: message \"%s\" lacks \"%s\"", bad[i].what, gk_last_error(), bad[i].msg);
    }
    /* sizes are checked in bytes of each element type: 8x8 BF16 operands in allocations of
     * exactly 128 bytes are accepted, an allocation of 126 bytes is not */
    uint8_t *ex[3] = {NULL, NULL, NULL}, *shrt = NULL;
    T_REQUIRE(cudaMalloc(&ex[0], 128) == cudaSuccess && cudaMalloc(&ex[1], 128) == cudaSuccess &&
                  cudaMalloc(&ex[2], 128) == cudaSuccess && cudaMalloc(&shrt, 126) == cudaSuccess,
              "cudaMalloc");
    T_CHECK(gk_cuda_gemm_ex(ctx, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, m, n, k, 1.0f, GK_BF16,
                            ex[0], 8, GK_BF16, ex[1], 8, 0.0f, GK_BF16, ex[2], 8,
                            NULL) == GK_SUCCESS,
            "exact-size BF16 buffers refused: %s", gk_last_error());
    T_CHECK(
        gk_cuda_gemm_ex(ctx, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, m, n, k, 1.0f, GK_BF16, shrt,
                        8, GK_BF16, b, 8, 0.0f, GK_F32, c, 8, NULL) == GK_ERR_INVALID_POINTER &&
            strstr(gk_last_error(), "a: the allocation holding it ends 126 bytes after a") != NULL,
        "short A: %s", gk_last_error());
    cudaDeviceSynchronize();
    cudaFree(ex[0]), cudaFree(ex[1]), cudaFree(ex[2]), cudaFree(shrt);
    T_CHECK(gk_cuda_set_fp32_mode(ctx, (gk_fp32_mode)7) == GK_ERR_INVALID_VALUE &&
                strstr(gk_last_error(), "mode=7") != NULL,
            "set_fp32_mode(7): %s", gk_last_error());
    /* nothing of the refused calls reached C */
    uint8_t back[256];
    T_REQUIRE(cudaDeviceSynchronize() == cudaSuccess, "sync");
    T_REQUIRE(cudaMemcpy(back, c, 256, cudaMemcpyDeviceToHost) == cudaSuccess, "copy");
    int changed = 0;
    for (int i = 0; i < 256; i++)
        changed += back[i] != 0x5a;
    T_CHECK(!changed, "%d bytes of C changed by refused calls", changed);
    cudaFree(buf);
}

/* ---- --bench: what each path costs ---------------------------------------------------------- */

#ifndef GK_CUDA_EMULATED
/* x[0..n) uniform in [-1, 1) from a hash of the index. */
__global__ void bench_fill(float *x, int64_t n, uint64_t seed) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        uint64_t h = (uint64_t)i * 0x9e3779b97f4a7c15ull + seed;
        h ^= h >> 31, h *= 0xbf58476d1ce4e5b9ull, h ^= h >> 29;
        x[i] = (float)((double)(h >> 11) * (2.0 / 9007199254740992.0) - 1.0);
    }
}

/* Square column-major products at 4096 and 8192, median of 11 CUDA-event timings per path: TN
 * (both operands K-major, what the sm_90a kernel reads as stored) and NN (A MN-major: FP8 and TF32
 * go through the repack path there), each on the paths that take it. Prints one line per
 * measurement (or why a path did not run); no check (the test cases check). The float32 rows:
 * 3xTF32 on each path, and the SGEMM production kernel (GK_FP32_SIMT) beside them. */
static int bench(void) {
    if (!gk_cuda_available()) {
        printf("bench: no CUDA device\n");
        return 1;
    }
    struct {
        const char *name;
        gk_format t, ct;
        bool split;
    } types[] = {{"bf16", GK_BF16, GK_BF16, false},      {"f16", GK_F16, GK_F16, false},
                 {"e4m3", GK_F8_E4M3FN, GK_BF16, false}, {"tf32", GK_TF32, GK_F32, false},
                 {"f32_3xtf32", GK_F32, GK_F32, true},   {"f32_sgemm", GK_F32, GK_F32, false}};
    static const int paths[] = {P_AUTO, P_REPACK, P_MMA};
    for (int p = 0; p < NPATH; p++)
        if (!g_ctx[p] && !(g_ctx[p] = make_ctx(PATHS[p], 0))) return 1;
    for (int64_t n : {(int64_t)4096, (int64_t)8192}) {
        float *x = NULL, *c = NULL;
        uint8_t *a = NULL, *b = NULL;
        const size_t elems = (size_t)(n * n);
        if (cudaMalloc(&x, elems * 4) || cudaMalloc(&a, elems * 4) || cudaMalloc(&b, elems * 4) ||
            cudaMalloc(&c, elems * 4))
            return printf("bench: out of device memory\n"), 1;
        cudaEvent_t ev[22];
        for (int i = 0; i < 22; i++)
            cudaEventCreate(&ev[i]);
        for (const auto &ty : types) {
            for (int o = 0; o < 2; o++) { /* random operands of the type */
                uint8_t *dst = o ? b : a;
                bench_fill<<<1024, 256>>>(size_of(ty.t) == 4 ? (float *)dst : x, (int64_t)elems,
                                          (uint64_t)o + 1);
                if (size_of(ty.t) < 4 &&
                    gk_cuda_encode(g_ctx[P_AUTO], ty.t, x, dst, (int64_t)elems, 0) != GK_SUCCESS)
                    return printf("bench: gk_cuda_encode: %s\n", gk_last_error()), 1;
            }
            for (int layout = 0; layout < 2; layout++)
                for (int pi : paths) {
                    if (!strcmp(ty.name, "f32_sgemm") && pi != P_AUTO)
                        continue; /* no tensor cores */
                    gk_cuda_ctx *ctx = g_ctx[pi];
                    gk_cuda_set_fp32_mode(ctx, ty.split ? GK_FP32_3XTF32 : GK_FP32_SIMT);
                    const gk_trans ta = layout ? GK_NO_TRANS : GK_TRANS;
                    auto call = [&] {
                        return gk_cuda_gemm_ex(ctx, GK_COL_MAJOR, ta, GK_NO_TRANS, n, n, n, 1.0f,
                                               ty.t, a, n, ty.t, b, n, 0.0f, ty.ct, c, n, NULL);
                    };
                    gk_status st = GK_SUCCESS;
                    for (int w = 0; w < 2 && st == GK_SUCCESS; w++)
                        st = call();
                    for (int r = 0; r < 11 && st == GK_SUCCESS; r++) {
                        cudaEventRecord(ev[2 * r]);
                        st = call();
                        cudaEventRecord(ev[2 * r + 1]);
                    }
                    gk_cuda_set_fp32_mode(ctx, GK_FP32_SIMT);
                    /* a path this device does not have says so here */
                    if (st != GK_SUCCESS || cudaDeviceSynchronize() != cudaSuccess) {
                        printf("bench n=%lld %s %s path=%s: %s\n", (long long)n, ty.name,
                               layout ? "NN" : "TN", PATHS[pi], gk_last_error());
                        continue;
                    }
                    double ms[11];
                    for (int r = 0; r < 11; r++) {
                        float t = 0.0f;
                        cudaEventElapsedTime(&t, ev[2 * r], ev[2 * r + 1]);
                        ms[r] = t;
                    }
                    const double med = gkh_median(ms, 11);
                    printf("bench n=%lld %-10s %s path=%-6s %9.3f ms %8.1f TFLOPS\n", (long long)n,
                           ty.name, layout ? "NN" : "TN", PATHS[pi], med,
                           2.0 * (double)n * n * n / (med * 1e-3) / 1e12);
                    fflush(stdout);
                }
        }
        for (int i = 0; i < 22; i++)
            cudaEventDestroy(ev[i]);
        cudaFree(x), cudaFree(a), cudaFree(b), cudaFree(c);
    }
    return 0;
}
#endif

/* A path is available when it takes a plain aligned BF16 product. */
static gk_status probe(gk_cuda_ctx *ctx, uint8_t *x) {
    return gk_cuda_gemm_ex(ctx, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 64, 64, 64, 1.0f, GK_BF16,
                           x, 64, GK_BF16, x + 16384, 64, 0.0f, GK_F32, x + 32768, 64, NULL);
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--small")) {
            g_small = 1;
#ifndef GK_CUDA_EMULATED
        } else if (!strcmp(argv[i], "--bench")) {
            return bench();
#endif
        } else {
            fprintf(stderr, "usage: %s [--small | --bench]\n", argv[0]);
            return 2;
        }
    }
    if (setup_paths(probe)) return 1;
    if (g_have_device) run_combos();
    T_RUN(null_context);
    T_RUN(bad_arguments);
    T_RUN(verbose_names_path);
    for (g_path = 0; g_path < NPATH; g_path++) {
        char name[96];
        for (g_combo = 0; g_combo < NCOMBO; g_combo++) {
            snprintf(name, sizeof name, "gemm_ex_%s_%s", PATHS[g_path], COMBOS[g_combo].name);
            t_run(name, combo_case);
        }
        snprintf(name, sizeof name, "sgemm_3xtf32_%s", PATHS[g_path]);
        t_run(name, sgemm_3xtf32);
    }
    for (int p = 0; p < NPATH; p++)
        gk_cuda_destroy(g_ctx[p]);
    return t_finish();
}
