/*
 * test_gemm_scaled.cu — GPU tests of the block-scaled GEMM gk_cuda_gemm_scaled through the public
 * API, on every path of its dispatcher (src/cuda/api/gemm_scaled.cu): each runs on a context
 * created with GEMMKIT_CUDA_TC_PATH set to it (auto, hopper, repack, mma, simt; a path the device
 * cannot take is reported as a skip, and so is a pair the sm_90a block-scaled kernel does not take
 * when that path is forced: the E5M2 ones).
 *
 * Both scalings: GK_SCALING_BLOCK128 (float32 1x128 / 128x128 scales) on the three FP8 pairs, and
 * GK_SCALING_MX (E8M0 per 32 of K) on E4M3, E5M2, both FP6, FP4 and mixed pairs; C in float32,
 * bfloat16, float16; both layouts and all transposition pairs, leading dimensions above the
 * minimum and operands one byte past an aligned address (off TMA's 16 bytes) or on it, m/n/k of 1,
 * primes, K off multiples of 32 and 128, sizes crossing the kernels' 128/192/256 tile edges, one
 * about 1000^3; alpha and beta (beta = 0 over NaN in C, beta = 1, alpha = 0 with NULL scales,
 * k = 0), scales spread over exponents (some negative for BLOCK128) and a NaN scale (every
 * element of its row of C NaN). Gaps between the rows of A and B hold 0xFF bytes (NaN or the
 * largest magnitude), everything of C's buffer outside the m x n block must stay bit-identical,
 * A, B and the scales unchanged. Operands are drawn as codes, so the float64 reference uses
 * exactly the values the GPU reads (decoded with src/formats/scalar.h, times the scales). The
 * bound per element is test_gemm_ex.cu's:
 *   |C - R| <= ((K + 2) eps_acc + 2 u_in) S + span * 2^-13 S [FP8 kernel] + u_out (|R| + that)
 *              + tiny,
 * S = |alpha| sum |sa a sb b| + |beta C0| (docs/testing.md), with
 *   u_in   0 for MX (code times a power of two is exact, also decoded to BF16); BLOCK128 2^-24
 *          where the paths without the block-scaled kernel decode code * scale to float32 (one
 *          rounding), plus U_3XTF32 = 2^-22 where that float32 product may run as 3xTF32 (the
 *          mma.sync kernel; test_gemm_ex.cu says why);
 *   span   min(K, 128): the tensor core's shorter FP8 accumulator over each 128-K block of the
 *          sm_90a block-scaled FP8 kernel (BLOCK128 on the paths that may run it; MX runs on the
 *          BF16 kernels, which accumulate in float32);
 *   u_out  0 for float32 C, 2^-8 bfloat16, 2^-11 float16; tiny FLT_MIN (bfloat16) or 2^-25
 *          (float16), C's half subnormal step.
 * Also: argument errors (scaling and format values, pairs per scaling, NULL, misaligned, host and
 * short scale arrays, leading dimensions, layout) with their status and a message naming the
 * argument, and C untouched. Without a device every GPU case reports "skip". `--small` keeps
 * every case but shrinks its sizes (M, N to about 140, K to 128 plus its residue mod 32) for
 * compute-sanitizer and the CPU emulation of the same program (test_gemm_scaled_emulated.sh).
 */
#include <float.h>

#include "cuda/mixed/mixed.h"
#include "cuda/tc_cases.h"

/* ---- the combinations ---------------------------------------------------------------------- */

struct combo {
    const char *name;
    gk_scaling sc;
    gk_format at, bt;
};
static const combo COMBOS[] = {
    {"block128_e4m3_e4m3", GK_SCALING_BLOCK128, GK_F8_E4M3FN, GK_F8_E4M3FN},
    {"block128_e4m3_e5m2", GK_SCALING_BLOCK128, GK_F8_E4M3FN, GK_F8_E5M2},
    {"block128_e5m2_e4m3", GK_SCALING_BLOCK128, GK_F8_E5M2, GK_F8_E4M3FN},
    {"mx_e4m3", GK_SCALING_MX, GK_F8_E4M3FN, GK_F8_E4M3FN},
    {"mx_e5m2", GK_SCALING_MX, GK_F8_E5M2, GK_F8_E5M2},
    {"mx_e2m3", GK_SCALING_MX, GK_F6_E2M3FN, GK_F6_E2M3FN},
    {"mx_e3m2", GK_SCALING_MX, GK_F6_E3M2FN, GK_F6_E3M2FN},
    {"mx_e2m1", GK_SCALING_MX, GK_F4_E2M1FN, GK_F4_E2M1FN},
    {"mx_e2m1_e4m3", GK_SCALING_MX, GK_F4_E2M1FN, GK_F8_E4M3FN},
    {"mx_e5m2_e3m2", GK_SCALING_MX, GK_F8_E5M2, GK_F6_E3M2FN},
};
enum { NCOMBO = sizeof COMBOS / sizeof COMBOS[0] };
static const gk_format CTYPES[] = {GK_F32, GK_BF16, GK_F16};

/* The sm_90a block-scaled kernel takes E4M3 pairs only: a forced hopper/repack path refuses a
 * BLOCK128 pair with an E5M2 operand (docs/cuda.md, "Block-scaled GEMM"). */
static bool refused_on_fp8_kernel(const combo &cb) {
    return cb.sc == GK_SCALING_BLOCK128 && (cb.at == GK_F8_E5M2 || cb.bt == GK_F8_E5M2);
}

static bool is_fp8(gk_format f) {
    return f == GK_F8_E4M3FN || f == GK_F8_E5M2;
}

/* ---- one case ------------------------------------------------------------------------------ */

struct scase {
    int combo;
    gk_format ct;
    gk_layout layout;
    gk_trans ta, tb;
    int64_t m, n, k, lda, ldb, ldc;
    int off_a, off_b; /* bytes past an aligned address */
    float alpha, beta;
    bool nan_c;       /* C's block NaN before the call (beta = 0) */
    int spread;       /* scale exponents drawn in [-spread, spread] */
    bool nan_scale;   /* one a_scale entry NaN */
    bool extreme;     /* MX: a_scale codes 0..6 (2^-127 a float32 subnormal), b_scale 247..253 */
    bool null_scales; /* a_scale = b_scale = NULL (alpha = 0 or k = 0 only) */
};

static void case_str(const scase &c, char *buf, size_t len) {
    snprintf(buf, len,
             "c=%s %s%s%s m=%lld n=%lld k=%lld lda=%lld ldb=%lld ldc=%lld off=%d,%d alpha=%g "
             "beta=%g spread=%d%s%s%s%s",
             gk_format_name(c.ct), c.layout == GK_COL_MAJOR ? "col" : "row",
             c.ta == GK_NO_TRANS ? "N" : "T", c.tb == GK_NO_TRANS ? "N" : "T", (long long)c.m,
             (long long)c.n, (long long)c.k, (long long)c.lda, (long long)c.ldb, (long long)c.ldc,
             c.off_a, c.off_b, c.alpha, c.beta, c.spread, c.nan_c ? " C=NaN" : "",
             c.nan_scale ? " NaN-scale" : "", c.extreme ? " extreme-scales" : "",
             c.null_scales ? " NULL-scales" : "");
}

struct sdata {
    scase c;
    operand a, b; /* one-byte codes, 0xFF (NaN or the largest magnitude) in the gaps */
    std::vector<uint8_t> sa, sb; /* the scale arrays as the API lays them out (bytes) */
    cblock cb;
};

/* A scale drawn for the case: MX, an E8M0 code 127 + e; BLOCK128, +-[1, 2) * 2^e as float32
 * bytes; e in [-spread, spread]. */
static void draw_scale(std::vector<uint8_t> &v, int64_t idx, bool mx, int spread, t_rng *rng) {
    const int e = (int)t_rng_range(rng, -spread, spread);
    if (mx) {
        v[(size_t)idx] = (uint8_t)(127 + e);
    } else {
        const float u = t_rng_float(rng);
        const float s = (float)ldexp((u < 0 ? -1.0 : 1.0) * (1.0 + fabs((double)u)), e);
        memcpy(&v[(size_t)idx * 4], &s, 4);
    }
}

static double scale_value(const std::vector<uint8_t> &v, int64_t idx, bool mx) {
    if (mx) return gk_decode_e8m0fnu(v[(size_t)idx]);
    float s;
    memcpy(&s, &v[(size_t)idx * 4], 4);
    return s;
}

static void make_data(sdata &d, const scase &c, t_rng *rng) {
    d.c = c;
    const combo &cb = COMBOS[c.combo];
    const bool mx = cb.sc == GK_SCALING_MX;
    const int64_t g = mx ? 32 : 128, kb = (c.k + g - 1) / g;
    const bool ta = c.ta != GK_NO_TRANS, tb = c.tb != GK_NO_TRANS;
    /* values in [-2, 2): every format's small codes */
    make_operand(d.a, cb.at, c.layout, ta ? c.k : c.m, ta ? c.m : c.k, c.lda, c.off_a, 0xFF, 2.0f,
                 rng);
    make_operand(d.b, cb.bt, c.layout, tb ? c.n : c.k, tb ? c.k : c.n, c.ldb, c.off_b, 0xFF, 2.0f,
                 rng);
    /* include/gemmkit.h: a_scale[m][KB]; b_scale[n][KB] (MX) or [ceil(n / 128)][KB] */
    const int64_t ss = mx ? 1 : 4, b_rows = mx ? c.n : (c.n + 127) / 128;
    d.sa.assign((size_t)(c.m * kb * ss > 0 ? c.m * kb * ss : 1), 0);
    d.sb.assign((size_t)(b_rows * kb * ss > 0 ? b_rows * kb * ss : 1), 0);
    for (int64_t i = 0; i < c.m * kb; i++)
        draw_scale(d.sa, i, mx, c.spread, rng);
    for (int64_t i = 0; i < b_rows * kb; i++)
        draw_scale(d.sb, i, mx, c.spread, rng);
    if (c.extreme) {
        for (int64_t i = 0; i < c.m * kb; i++)
            d.sa[(size_t)i] = (uint8_t)t_rng_range(rng, 0, 6);
        for (int64_t i = 0; i < b_rows * kb; i++)
            d.sb[(size_t)i] = (uint8_t)t_rng_range(rng, 247, 253);
    }
    if (c.nan_scale && c.m * kb > 0) {
        const int64_t at = t_rng_range(rng, 0, c.m * kb - 1);
        if (mx) {
            d.sa[(size_t)at] = 0xFF;
        } else {
            const float nan = NAN;
            memcpy(&d.sa[(size_t)at * 4], &nan, 4);
        }
    }
    make_c(d.cb, c.ct, c.layout, c.m, c.n, c.ldc, c.nan_c, rng);
    /* the reference: sa(i, kk) op(A)(i, kk) and sb(kk, j) op(B)(kk, j) decoded once, row by row */
    const bool product = c.alpha != 0.0f && c.k > 0;
    std::vector<double> av, bv;
    if (product) {
        av.resize((size_t)(c.m * c.k)), bv.resize((size_t)(c.n * c.k));
        for (int64_t p = 0; p < c.k; p++) {
            for (int64_t i = 0; i < c.m; i++)
                av[(size_t)(i * c.k + p)] =
                    scale_value(d.sa, i * kb + p / g, mx) *
                    gk_decode_scalar(cb.at, d.a.op_code(c.layout, ta, i, p));
            for (int64_t j = 0; j < c.n; j++) {
                const int64_t s_at = (mx ? j : j / 128) * kb + p / g;
                bv[(size_t)(j * c.k + p)] =
                    scale_value(d.sb, s_at, mx) *
                    gk_decode_scalar(cb.bt, d.b.op_code(c.layout, tb, p, j));
            }
        }
    }
    make_reference(d.cb, av, bv, c.k, product ? (double)c.alpha : 0.0, c.beta);
}

/* The largest |C - R| accepted for one element (file comment). */
static double bound(const scase &c, int path, double want, double scale) {
    const bool mx = COMBOS[c.combo].sc == GK_SCALING_MX;
    const double u_in =
        mx ? 0.0 : ldexp(1.0, -24) + (path == P_AUTO || path == P_MMA ? U_3XTF32 : 0.0);
    double core = gkh_bound(c.k, u_in, scale);
    if (!mx && on_hopper(path)) core += (double)(c.k < 128 ? c.k : 128) * ldexp(1.0, -13) * scale;
    if (c.ct == GK_F32) return core;
    const double u_out = ldexp(1.0, c.ct == GK_BF16 ? -8 : -11);
    const double tiny = c.ct == GK_BF16 ? FLT_MIN : ldexp(1.0, -25);
    return core + u_out * (fabs(want) + core) + tiny;
}

enum { RUN_OK = 0, RUN_FAIL = 1, RUN_DECLINED = 2 };

/* Run case d on context ctx (path `path`) and verify: RUN_OK, RUN_FAIL with msg, or RUN_DECLINED
 * (msg: why) when a forced sm_90a path refuses an E5M2 pair. */
static int run_case(gk_cuda_ctx *ctx, int path, const sdata &d, char *msg, size_t len) {
    const scase &c = d.c;
    const combo &cb = COMBOS[c.combo];
    const int cs = size_of(c.ct);
    uint8_t *da = NULL, *db = NULL, *dc = NULL, *dsa = NULL, *dsb = NULL;
    std::vector<uint8_t> out(d.cb.c0.size()), back_a(d.a.codes.size()), back_b(d.b.codes.size());
    std::vector<uint8_t> back_sa(d.sa.size()), back_sb(d.sb.size());
    int rc = RUN_FAIL;
    gk_status st;
    /* cudaMalloc'ed buffers are 256-byte aligned: offset 0 keeps the TMA's 16 bytes, 1 breaks
     * them; the scale arrays are allocated to their exact size */
    CK(cudaMalloc(&da, d.a.codes.size()));
    CK(cudaMalloc(&db, d.b.codes.size()));
    CK(cudaMalloc(&dc, d.cb.c0.size()));
    CK(cudaMalloc(&dsa, d.sa.size()));
    CK(cudaMalloc(&dsb, d.sb.size()));
    CK(cudaMemcpy(da, d.a.codes.data(), d.a.codes.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, d.b.codes.data(), d.b.codes.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dc, d.cb.c0.data(), d.cb.c0.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dsa, d.sa.data(), d.sa.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dsb, d.sb.data(), d.sb.size(), cudaMemcpyHostToDevice));
    CK(cudaDeviceSynchronize());
    st = gk_cuda_gemm_scaled(ctx, c.layout, c.ta, c.tb, c.m, c.n, c.k, c.alpha, cb.at, da + d.a.off,
                             c.lda, c.null_scales ? NULL : dsa, cb.bt, db + d.b.off, c.ldb,
                             c.null_scales ? NULL : dsb, cb.sc, c.beta, c.ct, dc + d.cb.off * cs,
                             c.ldc);
    if (st == GK_ERR_UNSUPPORTED && (path == P_HOPPER || path == P_REPACK) &&
        refused_on_fp8_kernel(cb)) {
        snprintf(msg, len, "%s", gk_last_error());
        rc = RUN_DECLINED;
        goto out;
    }
    if (st != GK_SUCCESS) {
        snprintf(msg, len, "status %s: %s", gk_status_string(st), gk_last_error());
        goto out;
    }
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(out.data(), dc, out.size(), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(back_a.data(), da, back_a.size(), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(back_b.data(), db, back_b.size(), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(back_sa.data(), dsa, back_sa.size(), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(back_sb.data(), dsb, back_sb.size(), cudaMemcpyDeviceToHost));
    if (back_a != d.a.codes || back_b != d.b.codes || back_sa != d.sa || back_sb != d.sb) {
        snprintf(msg, len, "A, B or a scale array was written");
        goto out;
    }
    /* a NaN scale makes its row of C NaN: NaN expected there, nothing else */
    if (check_c(
            d.cb, out, true, [&](double want, double scale) { return bound(c, path, want, scale); },
            msg, len))
        goto out;
    rc = RUN_OK;
out:
    cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(dsa), cudaFree(dsb);
    return rc;
}

/* ---- the cases ------------------------------------------------------------------------------ */

/* Every case of one combination and C type. */
static std::vector<scase> build_cases(int ci, gk_format ct, t_rng *rng) {
    /* float16 C holds 65504 at most: narrower scales keep the sums inside it */
    const int spread = ct == GK_F16 ? 3 : 6;
    std::vector<scase> v;
    auto base = [&](gk_layout l, gk_trans ta, gk_trans tb, int64_t m, int64_t n, int64_t k) {
        if (g_small) { /* keep crossing 128 in M, N and one K block, and k mod 32 */
            m = m > 140 ? 129 + m % 11 : m, n = n > 140 ? 129 + n % 11 : n;
            k = k > 160 ? 128 + k % 32 : k;
        }
        scase c;
        memset(&c, 0, sizeof c);
        c.combo = ci, c.ct = ct;
        random_layout(c, l, ta, tb, m, n, k, rng);
        c.spread = spread;
        return c;
    };
    layout_cases(v, base, 256);
    {
        scase c = base(GK_ROW_MAJOR, GK_NO_TRANS, GK_TRANS, 256, 192, 96); /* K = 3 MX blocks */
        c.lda = c.ldb = round_to(c.k, 16), c.ldc = 192, c.off_a = c.off_b = 0;
        v.push_back(c);
        c = base(GK_COL_MAJOR, GK_TRANS, GK_NO_TRANS, 129, 193, 200); /* K off 32 and 128 */
        c.lda = c.ldb = round_to(c.k, 16), c.off_a = c.off_b = 0;
        v.push_back(c);
    }
    /* larger than a 128x256 tile on both sides, crossing 128/192/256, primes, K = 1 */
    v.push_back(base(GK_COL_MAJOR, GK_NO_TRANS, GK_TRANS, 389, 259, 520));
    v.push_back(base(GK_ROW_MAJOR, GK_TRANS, GK_NO_TRANS, 257, 263, 131));
    v.push_back(base(GK_COL_MAJOR, GK_TRANS, GK_TRANS, 300, 257, 1));
    v.push_back(base(GK_ROW_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 193, 385, 97));
    /* about 2000^2: the block-scaled kernel's 256-wide tile (at 1000 it takes 128 columns), for
     * the pair it runs, once */
    if (ci == 0 && ct == GK_BF16)
        v.push_back(base(GK_ROW_MAJOR, GK_NO_TRANS, GK_TRANS, 2000, 2000, 260));
    /* about 1000^3, once per combination (its C type rotating) */
    if (ct == CTYPES[ci % 3]) {
        scase c = base(GK_ROW_MAJOR, GK_NO_TRANS, GK_TRANS, 1000, 1000, 1000);
        c.beta = 1.0f, c.nan_c = false;
        v.push_back(c);
    }
    /* scales over a wide exponent range (C types with float32's range), and a NaN scale */
    if (ct != GK_F16) {
        scase c = base(GK_COL_MAJOR, GK_NO_TRANS, GK_TRANS, 70, 140, 300);
        c.spread = 40;
        v.push_back(c);
    }
    {
        scase c = base(GK_ROW_MAJOR, GK_TRANS, GK_NO_TRANS, 45, 67, 100);
        c.nan_scale = true;
        v.push_back(c);
    }
    /* the ends of E8M0's range, products near 1: a_scale from 2^-127 (a float32 subnormal) up,
     * b_scale up to 2^126. Only for FP6/FP4 pairs, whose values in [-2, 2) are multiples of 2^-4:
     * times 2^-127 they stay exact in BF16 (subnormals down to 2^-133), which the decoding paths
     * need; E4M3 and E5M2 have smaller values that would round there. */
    const combo &cb = COMBOS[ci];
    if (cb.sc == GK_SCALING_MX && !is_fp8(cb.at) && !is_fp8(cb.bt)) {
        scase c = base(GK_COL_MAJOR, GK_TRANS, GK_NO_TRANS, 130, 70, 160);
        c.extreme = true;
        v.push_back(c);
    }
    /* scalar special cases: alpha = 0 with NULL scales (C = beta C), beta = 1 with alpha = 0
     * (nothing), k = 0 with NULL scales and NaN in C, beta = 0 with NaN in C, beta = 1 */
    scase c = base(GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 45, 67, 33);
    c.alpha = 0.0f, c.beta = -1.5f, c.nan_c = false, c.null_scales = true;
    v.push_back(c);
    c.beta = 1.0f;
    v.push_back(c);
    c = base(GK_ROW_MAJOR, GK_NO_TRANS, GK_TRANS, 45, 67, 0);
    c.beta = 0.0f, c.nan_c = true, c.null_scales = true;
    v.push_back(c);
    c = base(GK_ROW_MAJOR, GK_TRANS, GK_NO_TRANS, 70, 40, 50);
    c.alpha = 1.0f, c.beta = 0.0f, c.nan_c = true;
    v.push_back(c);
    c.beta = 1.0f, c.nan_c = false;
    v.push_back(c);
    return v;
}

static struct {
    int failed, declined;
    char why[700];
} g_res[NPATH][NCOMBO];

static void run_combos(void) {
    t_rng rng = {0x9e3779b97f4a7c15ull};
    for (int ci = 0; ci < NCOMBO; ci++)
        for (gk_format ct : CTYPES) {
            const std::vector<scase> cases = build_cases(ci, ct, &rng);
            for (const scase &c : cases) {
                sdata d;
                make_data(d, c, &rng);
                for (int p = 0; p < NPATH; p++) {
                    if (g_unavailable[p][0] || g_res[p][ci].failed || g_res[p][ci].declined)
                        continue;
                    char msg[400], desc[240];
                    const int rc = run_case(g_ctx[p], p, d, msg, sizeof msg);
                    if (rc == RUN_DECLINED) {
                        g_res[p][ci].declined = 1;
                        snprintf(g_res[p][ci].why, sizeof g_res[p][ci].why, "E5M2 pair refused: %s",
                                 msg);
                    } else if (rc == RUN_FAIL) {
                        g_res[p][ci].failed++;
                        case_str(c, desc, sizeof desc);
                        snprintf(g_res[p][ci].why, sizeof g_res[p][ci].why, "%s: %s", desc, msg);
                    }
                }
            }
        }
}

static int g_path, g_combo;
static void combo_case(void) {
    NEED_DEVICE();
    if (g_unavailable[g_path][0]) T_SKIP("%s", g_unavailable[g_path]);
    if (g_res[g_path][g_combo].declined) T_SKIP("%s", g_res[g_path][g_combo].why);
    T_CHECK(!g_res[g_path][g_combo].failed, "%s", g_res[g_path][g_combo].why);
}

/* ---- the pieces the dispatcher calls: repack conversions and the scale transpose ------------- */

/* gk_repack_operand's code conversions (mixed.h), bit for bit against scalar.h on the host: every
 * code of each source format, both major orders, every destination and scale kind; the padding
 * columns up to ld_dst zero, the rows after `rows` untouched, refused conversions refused. */
static void repack_conversions(void) {
    NEED_DEVICE();
    const int64_t rows = 67, k = 45, ld_dst = 72, pad_rows = 2;
    static const gk_format srcs[] = {GK_F8_E4M3FN, GK_F8_E5M2, GK_F6_E2M3FN, GK_F6_E3M2FN,
                                     GK_F4_E2M1FN};
    struct {
        gk_format dst;
        int kind, group;
    } modes[] = {{GK_BF16, GK_REPACK_SCALE_NONE, 0},       {GK_F32, GK_REPACK_SCALE_NONE, 0},
                 {GK_BF16, GK_REPACK_SCALE_ROW_E8M0, 32},  {GK_F32, GK_REPACK_SCALE_ROW_E8M0, 32},
                 {GK_BF16, GK_REPACK_SCALE_ROW_F32, 32},   {GK_F32, GK_REPACK_SCALE_ROW_F32, 128},
                 {GK_F32, GK_REPACK_SCALE_BLK128_F32, 128}};
    t_rng rng = {0x1234567ull};
    /* scales: per-row arrays of rows x 2 entries (K = 45 spans 2 blocks of 32), 128x128 blocks
     * need 1 x 1; E8M0 codes include 0 (2^-127), 254 and 255 (NaN) */
    const int64_t s_ld = 2;
    std::vector<uint8_t> e8(rows * s_ld);
    std::vector<float> f32(rows * s_ld);
    for (int64_t i = 0; i < rows * s_ld; i++) {
        e8[(size_t)i] = i == 0   ? 0
                        : i == 1 ? 254
                        : i == 2 ? 255
                                 : (uint8_t)t_rng_range(&rng, 100, 150);
        f32[(size_t)i] =
            (float)ldexp(1.0 + fabs((double)t_rng_float(&rng)), (int)t_rng_range(&rng, -130, 20));
    }
    uint8_t *d_src = NULL, *d_dst = NULL, *d_e8 = NULL;
    float *d_f32 = NULL;
    const size_t dst_bytes = (size_t)((rows + pad_rows) * ld_dst * 4);
    T_REQUIRE(cudaMalloc(&d_src, (size_t)(rows * k)) == cudaSuccess &&
                  cudaMalloc(&d_dst, dst_bytes) == cudaSuccess &&
                  cudaMalloc(&d_e8, e8.size()) == cudaSuccess &&
                  cudaMalloc(&d_f32, f32.size() * 4) == cudaSuccess,
              "cudaMalloc");
    cudaMemcpy(d_e8, e8.data(), e8.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(d_f32, f32.data(), f32.size() * 4, cudaMemcpyHostToDevice);
    std::vector<uint8_t> codes((size_t)(rows * k)), stored(codes.size()), out(dst_bytes);
    for (gk_format sf : srcs) {
        const int ncodes = sf == GK_F4_E2M1FN ? 16 : is_fp8(sf) ? 256 : 64;
        for (int64_t i = 0; i < rows * k; i++) /* every code, in a scrambled order */
            codes[(size_t)i] = (uint8_t)((i * 37 + 11) % ncodes);
        for (int mn = 0; mn < 2; mn++) {
            for (int64_t r = 0; r < rows; r++)
                for (int64_t kk = 0; kk < k; kk++)
                    stored[(size_t)(mn ? kk * rows + r : r * k + kk)] = codes[(size_t)(r * k + kk)];
            cudaMemcpy(d_src, stored.data(), stored.size(), cudaMemcpyHostToDevice);
            for (const auto &md : modes) {
                cudaMemset(d_dst, 0xA5, dst_bytes);
                gk_repack rp = {d_src, mn ? rows : k, mn, sf, rows, k, d_dst, ld_dst, md.dst, 0};
                rp.scale_kind = md.kind, rp.scale_group = md.group;
                rp.scale = md.kind == GK_REPACK_SCALE_ROW_E8M0 ? (const void *)d_e8 : d_f32;
                rp.scale_ld = md.kind == GK_REPACK_SCALE_BLK128_F32 ? 1 : s_ld;
                T_REQUIRE(gk_repack_operand(rp, 0) == cudaSuccess, "%s -> %s kind %d: launch",
                          gk_format_name(sf), gk_format_name(md.dst), md.kind);
                T_REQUIRE(cudaDeviceSynchronize() == cudaSuccess, "sync");
                cudaMemcpy(out.data(), d_dst, dst_bytes, cudaMemcpyDeviceToHost);
                const int os = size_of(md.dst);
                int64_t bad = 0;
                char first[200] = "";
                for (int64_t r = 0; r < rows + pad_rows; r++)
                    for (int64_t kk = 0; kk < ld_dst; kk++) {
                        const uint32_t got = get_code(out, r * ld_dst + kk, os);
                        uint32_t want = 0;
                        bool want_nan = false;
                        if (r >= rows) { /* untouched */
                            want = os == 2 ? 0xA5A5u : 0xA5A5A5A5u;
                        } else if (kk < k) {
                            float x = gk_decode_scalar(sf, codes[(size_t)(r * k + kk)]);
                            if (md.kind == GK_REPACK_SCALE_ROW_E8M0)
                                x *= gk_decode_e8m0fnu(e8[(size_t)(r * s_ld + kk / md.group)]);
                            else if (md.kind == GK_REPACK_SCALE_ROW_F32)
                                x *= f32[(size_t)(r * s_ld + kk / md.group)];
                            else if (md.kind == GK_REPACK_SCALE_BLK128_F32)
                                x *= f32[(size_t)(r / 128 * 1 + kk / 128)];
                            want_nan = md.kind != GK_REPACK_SCALE_NONE && isnan(x);
                            want = md.dst == GK_BF16 ? gk_encode_bf16(x, 0) : gk_f32_bits(x);
                        }
                        const bool ok =
                            want_nan ? isnan(gk_decode_scalar(md.dst, got)) : got == want;
                        if (!ok && bad++ == 0)
                            snprintf(first, sizeof first, "(%lld, %lld) = 0x%x, want 0x%x",
                                     (long long)r, (long long)kk, got, want);
                    }
                T_CHECK(!bad, "%s %s -> %s scale kind %d group %d: %lld wrong, first %s",
                        mn ? "MN-major" : "K-major", gk_format_name(sf), gk_format_name(md.dst),
                        md.kind, md.group, (long long)bad, first);
            }
        }
    }
    /* refused: a code into E4M3 (with or without scales), a bad group, a source that is not a
     * code */
    gk_repack rp = {d_src, k, 0, GK_F8_E5M2, rows, k, d_dst, ld_dst, GK_F8_E4M3FN, 0};
    T_CHECK(gk_repack_operand(rp, 0) == cudaErrorInvalidValue, "E5M2 -> E4M3 accepted");
    rp.src_fmt = GK_F6_E2M3FN, rp.scale = d_e8, rp.scale_kind = GK_REPACK_SCALE_ROW_E8M0;
    rp.scale_group = 32, rp.scale_ld = s_ld;
    T_CHECK(gk_repack_operand(rp, 0) == cudaErrorInvalidValue, "scaled E4M3 destination accepted");
    rp.dst_fmt = GK_BF16, rp.scale_group = 64;
    T_CHECK(gk_repack_operand(rp, 0) == cudaErrorInvalidValue, "scale group 64 accepted");
    rp.src_fmt = GK_F16, rp.scale_group = 32;
    T_CHECK(gk_repack_operand(rp, 0) == cudaErrorInvalidValue,
            "float16 source with scales accepted");
    cudaDeviceSynchronize();
    cudaFree(d_src), cudaFree(d_dst), cudaFree(d_e8), cudaFree(d_f32);
}

/* gk_scales_transpose: dst[j * ld + r] = scale (r, j) bit for bit, zeros for rows [rows, ld),
 * nothing written past kb blocks; bad ld refused. */
static void scales_transpose(void) {
    NEED_DEVICE();
    t_rng rng = {0x7654321ull};
    static const int64_t shapes[][2] = {{37, 3}, {1, 1}, {130, 40}, {64, 32}, {5, 70}};
    for (const auto &sh : shapes) {
        const int64_t rows = sh[0], kb = sh[1], ld = (rows + 3) / 4 * 4 + 4;
        const int64_t n = rows * kb, dst_len = (kb + 1) * ld;
        std::vector<float> src((size_t)n);
        for (int64_t i = 0; i < n; i++)
            src[(size_t)i] = t_rng_float(&rng);
        float *d_src = NULL, *d_dst = NULL;
        T_REQUIRE(cudaMalloc(&d_src, (size_t)n * 4) == cudaSuccess &&
                      cudaMalloc(&d_dst, (size_t)dst_len * 4) == cudaSuccess,
                  "cudaMalloc");
        cudaMemcpy(d_src, src.data(), (size_t)n * 4, cudaMemcpyHostToDevice);
        cudaMemset(d_dst, 0xA5, (size_t)dst_len * 4);
        T_REQUIRE(gk_scales_transpose(d_src, rows, kb, d_dst, ld, 0) == cudaSuccess, "launch");
        T_REQUIRE(cudaDeviceSynchronize() == cudaSuccess, "sync");
        std::vector<uint32_t> out((size_t)dst_len);
        cudaMemcpy(out.data(), d_dst, (size_t)dst_len * 4, cudaMemcpyDeviceToHost);
        int64_t bad = 0;
        for (int64_t j = 0; j <= kb; j++)
            for (int64_t r = 0; r < ld; r++) {
                uint32_t want = 0xA5A5A5A5u; /* past kb: untouched */
                if (j < kb) want = r < rows ? gk_f32_bits(src[(size_t)(r * kb + j)]) : 0;
                bad += out[(size_t)(j * ld + r)] != want;
            }
        T_CHECK(!bad, "rows=%lld kb=%lld: %lld wrong", (long long)rows, (long long)kb,
                (long long)bad);
        T_CHECK(gk_scales_transpose(d_src, rows, kb, d_dst, rows - 1, 0) == cudaErrorInvalidValue,
                "ld_dst < rows accepted");
        T_CHECK(gk_scales_transpose(d_src, rows, kb, d_dst, ld + 2, 0) == cudaErrorInvalidValue,
                "ld_dst not a multiple of 4 accepted");
        cudaFree(d_src), cudaFree(d_dst);
    }
}

/* ---- argument errors ------------------------------------------------------------------------ */

static void null_context(void) {
    static const float one = 1.0f;
    T_CHECK(gk_cuda_gemm_scaled(NULL, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 1, 1, 1, 1.0f,
                                GK_F8_E4M3FN, &one, 1, &one, GK_F8_E4M3FN, &one, 1, &one,
                                GK_SCALING_MX, 0.0f, GK_F32, NULL, 1) == GK_ERR_INVALID_VALUE,
            "status");
    T_CHECK(strstr(gk_last_error(), "gk_cuda_gemm_scaled: ctx is NULL") != NULL, "message: %s",
            gk_last_error());
}

static void bad_arguments(void) {
    NEED_DEVICE();
    gk_cuda_ctx *ctx = g_ctx[P_AUTO];
    const int64_t m = 8, n = 8, k = 8;
    uint8_t *buf = NULL;
    T_REQUIRE(cudaMalloc(&buf, 5 * 256) == cudaSuccess, "cudaMalloc");
    uint8_t *a = buf, *b = buf + 256, *c = buf + 512, *sa = buf + 768, *sb = buf + 1024;
    T_REQUIRE(cudaMemset(buf, 0, 5 * 256) == cudaSuccess, "memset");
    T_REQUIRE(cudaMemset(c, 0x5a, 256) == cudaSuccess, "memset");
    static float host_scale[64];
    const int BLK = GK_SCALING_BLOCK128, MX = GK_SCALING_MX;
    const int E4 = GK_F8_E4M3FN, E5 = GK_F8_E5M2;
    struct {
        const char *what;
        gk_layout layout;
        int64_t lda;
        int scaling, at, bt, ct; /* ints: a C++ enum must not hold 99 (UBSan) */
        const void *a, *sa, *sb, *c;
        gk_status want;
        const char *msg;
    } bad[] = {
        {"scaling value", GK_COL_MAJOR, 8, 7, E4, E4, GK_F32, a, sa, sb, c, GK_ERR_INVALID_VALUE,
         "scaling=7"},
        {"format value", GK_COL_MAJOR, 8, MX, 99, E4, GK_F32, a, sa, sb, c, GK_ERR_INVALID_VALUE,
         "atype=99 is not a gk_format value"},
        {"negative ctype", GK_COL_MAJOR, 8, MX, E4, E4, -1, a, sa, sb, c, GK_ERR_INVALID_VALUE,
         "ctype=-1 is not a gk_format value"},
        {"FP6 with BLOCK128", GK_COL_MAJOR, 8, BLK, GK_F6_E2M3FN, E4, GK_F32, a, sa, sb, c,
         GK_ERR_UNSUPPORTED, "atype=float6_e2m3fn"},
        {"BF16 with MX", GK_COL_MAJOR, 8, MX, E4, GK_BF16, GK_F32, a, sa, sb, c, GK_ERR_UNSUPPORTED,
         "btype=bfloat16"},
        {"E5M2 pair with BLOCK128", GK_COL_MAJOR, 8, BLK, E5, E5, GK_F32, a, sa, sb, c,
         GK_ERR_UNSUPPORTED, "atype=btype=float8_e5m2"},
        {"FP8 C", GK_COL_MAJOR, 8, MX, E4, E4, E4, a, sa, sb, c, GK_ERR_UNSUPPORTED,
         "ctype=float8_e4m3fn"},
        {"layout", (gk_layout)7, 8, MX, E4, E4, GK_F32, a, sa, sb, c, GK_ERR_INVALID_LAYOUT,
         "layout=7"},
        {"lda", GK_COL_MAJOR, 7, MX, E4, E4, GK_F32, a, sa, sb, c, GK_ERR_INVALID_LD,
         "lda=7 must be >= max(1, 8)"},
        {"NULL a", GK_COL_MAJOR, 8, MX, E4, E4, GK_F32, NULL, sa, sb, c, GK_ERR_NULL_POINTER,
         "a is NULL"},
        {"NULL a_scale", GK_COL_MAJOR, 8, MX, E4, E4, GK_F32, a, NULL, sb, c,
         GK_ERR_INVALID_POINTER, "a_scale is NULL"},
        {"NULL b_scale", GK_COL_MAJOR, 8, BLK, E4, E4, GK_F32, a, sa, NULL, c,
         GK_ERR_INVALID_POINTER, "b_scale is NULL"},
        {"misaligned b_scale", GK_ROW_MAJOR, 8, BLK, E4, E4, GK_F32, a, sa, sb + 2, c,
         GK_ERR_INVALID_POINTER, "b_scale"},
        {"misaligned c", GK_COL_MAJOR, 8, MX, E4, E4, GK_F32, a, sa, sb, c + 2,
         GK_ERR_INVALID_POINTER, "c ("},
        {"host a_scale", GK_COL_MAJOR, 8, BLK, E4, E4, GK_F32, a, host_scale, sb, c,
         GK_ERR_INVALID_POINTER, "a_scale is a host pointer"},
    };
    /* where the device reads pageable host memory (HMM, ATS), host pointers are legal */
    int pageable = 0;
    cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, 0);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (pageable && strstr(bad[i].msg, "host pointer")) continue;
        const gk_status st = gk_cuda_gemm_scaled(
            ctx, bad[i].layout, GK_NO_TRANS, GK_NO_TRANS, m, n, k, 1.0f, (gk_format)bad[i].at,
            bad[i].a, bad[i].lda, bad[i].sa, (gk_format)bad[i].bt, b, 8, bad[i].sb,
            (gk_scaling)bad[i].scaling, 0.0f, (gk_format)bad[i].ct, (void *)bad[i].c, 8);
        T_CHECK(st == bad[i].want, "%s: status %s, want %s (%s)", bad[i].what, gk_status_string(st),
                gk_status_string(bad[i].want), gk_last_error());
        T_CHECK(strstr(gk_last_error(), bad[i].msg) != NULL &&
                    strncmp(gk_last_error(), "gk_cuda_gemm_scaled: ", 21) == 0,
                "%s: message \"%s\" lacks \"%s\"", bad[i].what, gk_last_error(), bad[i].msg);
    }
    /* the scale arrays are checked in their own sizes: 8 x 1 E8M0 bytes in an allocation of
     * exactly 8 are accepted, 7 are not; NULL scales are fine when nothing is multiplied */
    uint8_t *exact = NULL, *shrt = NULL;
    T_REQUIRE(cudaMalloc(&exact, 8) == cudaSuccess && cudaMalloc(&shrt, 7) == cudaSuccess,
              "cudaMalloc");
    cudaMemset(exact, 127, 8), cudaMemset(shrt, 127, 7);
    uint8_t *c2 = b + 128; /* a second C: the refused calls' C stays untouched */
    gk_status st = gk_cuda_gemm_scaled(ctx, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, m, n, k, 1.0f,
                                       GK_F8_E4M3FN, a, 8, exact, GK_F8_E4M3FN, b, 8, exact,
                                       GK_SCALING_MX, 0.0f, GK_BF16, c2, 8);
    T_CHECK(st == GK_SUCCESS, "exact-size scale arrays refused: %s", gk_last_error());
    st = gk_cuda_gemm_scaled(ctx, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, m, n, k, 1.0f,
                             GK_F8_E4M3FN, a, 8, shrt, GK_F8_E4M3FN, b, 8, exact, GK_SCALING_MX,
                             0.0f, GK_F32, c, 8);
    T_CHECK(st == GK_ERR_INVALID_POINTER &&
                strstr(gk_last_error(), "a_scale: the allocation holding it ends 7 bytes") != NULL,
            "short a_scale: %s %s", gk_status_string(st), gk_last_error());
    st = gk_cuda_gemm_scaled(ctx, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, m, n, k, 0.0f,
                             GK_F8_E4M3FN, a, 8, NULL, GK_F8_E4M3FN, b, 8, NULL, GK_SCALING_MX,
                             2.0f, GK_BF16, c2, 8);
    T_CHECK(st == GK_SUCCESS, "alpha = 0 with NULL scales refused: %s", gk_last_error());
    T_REQUIRE(cudaDeviceSynchronize() == cudaSuccess, "sync");
    cudaFree(exact), cudaFree(shrt);
    /* nothing of the refused calls reached C */
    uint8_t back[256];
    T_REQUIRE(cudaMemcpy(back, c, 256, cudaMemcpyDeviceToHost) == cudaSuccess, "copy");
    int changed = 0;
    for (int i = 0; i < 256; i++)
        changed += back[i] != 0x5a;
    T_CHECK(!changed, "%d bytes of C changed by refused calls", changed);
    cudaFree(buf);
}

/* A path is available when it takes a plain aligned MX E4M3 product (zeros, scales 1): A and B
 * at 0 and 4096, their scales at 8192 and 8320, C (float32) at 12288. */
static gk_status probe(gk_cuda_ctx *ctx, uint8_t *buf) {
    cudaMemset(buf + 8192, 127, 256);
    return gk_cuda_gemm_scaled(ctx, GK_ROW_MAJOR, GK_NO_TRANS, GK_TRANS, 64, 64, 64, 1.0f,
                               GK_F8_E4M3FN, buf, 64, buf + 8192, GK_F8_E4M3FN, buf + 4096, 64,
                               buf + 8320, GK_SCALING_MX, 0.0f, GK_F32, buf + 12288, 64);
}

int main(int argc, char **argv) {
    if ((g_small = t_small_option(argc, argv)) < 0) return 2;
    if (setup_paths(probe)) return 1;
    if (g_have_device) run_combos();
    T_RUN(null_context);
    T_RUN(bad_arguments);
    T_RUN(repack_conversions);
    T_RUN(scales_transpose);
    for (g_path = 0; g_path < NPATH; g_path++)
        for (g_combo = 0; g_combo < NCOMBO; g_combo++) {
            char name[96];
            snprintf(name, sizeof name, "gemm_scaled_%s_%s", PATHS[g_path], COMBOS[g_combo].name);
            t_run(name, combo_case);
        }
    for (int p = 0; p < NPATH; p++)
        gk_cuda_destroy(g_ctx[p]);
    return t_finish();
}
