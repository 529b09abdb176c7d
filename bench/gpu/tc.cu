/*
 * tc.cu — the mixed-precision GPU benchmark (bench.h: bench_tc_run, what `gemmkit bench --dtype`
 * does) and the mixed-precision `gemmkit run` (bench_tc_run_one): gk_cuda_gemm_ex (and
 * gk_cuda_sgemm in the 3xTF32 mode) on BF16, FP16, TF32, FP8 and float32 operands, against
 * cuBLASLt in the same process and run.
 *
 * Method (docs/benchmarks.md, "Mixed precision"):
 *   - operands uniform in [-1, 1) from a hash, rounded to their format on the device; FP8 operands
 *     are stored scaled to the format's range with the inverse as their per-tensor scale, which
 *     gemmkit and cuBLASLt both receive; alpha 1, beta 0;
 *   - check: C is poisoned with NaN, each implementation runs once, and `samples` elements (the
 *     corners first) are compared on the device with a float64 reference of the decoded operands
 *     under the rule of harness/gpu.h (gkh_gpu_check_sampled); a failing result is not timed;
 *   - timing: `warmup` untimed calls, then `reps` runs each bracketed by CUDA events with the L2
 *     overwritten before each (outside the events), spread over `rounds` rounds that alternate
 *     gemmkit and the peer so both see the same thermal and power state; the median is reported;
 *   - NVML samples the SM clock, board power and throttle reasons during each side's timed runs;
 *     % of peak divides the TFLOPS by the datasheet rate per SM and clock (PEAK below) times the
 *     SM count and the measured clock.
 */
#include <cuda_runtime.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bench/bench.h"
#include "gemmkit.h"
#include "harness/gpu.h"
#include "harness/harness.h"
#include "peers.h"

namespace {

/* ---- datasheet rates ---------------------------------------------------------------------------
 * Dense FLOP per SM per clock (a multiply-add counts 2). Source: NVIDIA H100 Tensor Core GPU
 * Architecture whitepaper, Table 3: H100 SXM5 (132 SMs) peaks BF16/FP16 989.4, TF32 494.7 and FP8
 * 1978.9 TFLOPS dense at the 1830 MHz tensor-core boost clock, FP32 (non-tensor) 66.9 TFLOPS from
 * 128 FP32 cores per SM at 1980 MHz; each peak is SMs x rate x clock (e.g. 132 x 4096 x 1830 MHz =
 * 989.4 TFLOPS). The per-SM rates are the same on every sm_90 part (H100 PCIe, H200). 3xTF32 does
 * three TF32 products per useful one, so its useful peak is a third of TF32's. */
enum peak_kind { PEAK_FP32_SIMT, PEAK_TF32, PEAK_3XTF32, PEAK_16BIT, PEAK_FP8, PEAK_NONE };

struct peak_rate {
    int sm; /* compute capability x 10 */
    double flop_per_clk_sm[PEAK_NONE];
};
const peak_rate PEAK[] = {{90, {256.0, 2048.0, 2048.0 / 3.0, 4096.0, 8192.0}}};

peak_kind gemmkit_peak(const bench_dtype &d) {
    if (bench_dtype_is_fp8(&d)) return PEAK_FP8;
    switch (d.a) {
    case GK_F32:
        return d.fp32_mode == GK_FP32_3XTF32 ? PEAK_3XTF32 : PEAK_FP32_SIMT;
    case GK_TF32:
        return PEAK_TF32;
    case GK_BF16:
    case GK_F16:
        return PEAK_16BIT;
    default:
        return PEAK_NONE;
    }
}

/* % of the datasheet peak at `mhz` (NAN when the device or clock is unknown). */
double pct_peak(int sm, int sms, peak_kind k, double tflops, double mhz) {
    for (const peak_rate &r : PEAK)
        if (r.sm == sm && k != PEAK_NONE && mhz > 0)
            return 100.0 * tflops * 1e12 / (r.flop_per_clk_sm[k] * sms * mhz * 1e6);
    return NAN;
}

/* ---- one problem -------------------------------------------------------------------------------
 * The caller's description (any layout, transposition, leading dimensions) and its device
 * operands. FP8 operands carry a per-tensor scale in `scales` (device floats: A's, then B's). */
struct problem {
    gk_layout layout;
    gk_trans ta, tb;
    int64_t m, n, k, lda, ldb, ldc;
    float alpha, beta;
    bench_dtype dt;
    gk_format out;
    int fast_accum;
    void *a = nullptr, *b = nullptr, *c0 = nullptr;
    float *scales = nullptr;
    size_t c_bytes = 0;

    int fp8(gk_format f) const { return f == GK_F8_E4M3FN || f == GK_F8_E5M2; }
    const float *scale_a() const { return fp8(dt.a) ? scales : nullptr; }
    const float *scale_b() const { return fp8(dt.b) ? scales + 1 : nullptr; }
    bool all_f32() const { return dt.a == GK_F32 && dt.b == GK_F32 && out == GK_F32; }

    gkh_gemm_desc desc() const {
        gkh_gemm_desc d = {layout, ta, tb, m,   n,   k,   alpha,     beta,      dt.a, dt.b,
                           out,    a,  b,  lda, ldb, ldc, scale_a(), scale_b(), c0};
        return d;
    }
};

int64_t min_ld(gk_layout layout, int64_t rows, int64_t cols) {
    const int64_t v = layout == GK_ROW_MAJOR ? cols : rows;
    return v > 1 ? v : 1;
}

/* gk_format_name, never NULL */
const char *format_name(gk_format f) {
    const char *n = gk_format_name(f);
    return n ? n : "?";
}

size_t storage_bytes(gk_format f) {
    gk_format_info info;
    return gk_format_info_get(f, &info) == GK_SUCCESS ? (size_t)info.storage_bytes : 0;
}

/* The largest finite value of an FP8 format: operands are stored scaled up to it. */
float fp8_range(gk_format f) {
    return f == GK_F8_E4M3FN ? 448.0f : f == GK_F8_E5M2 ? 57344.0f : 1.0f;
}

/* Bytes of a stored rows x cols matrix of format f with leading dimension at least the minimum
 * (so a too-small one reaches the library's own check), plus one element. */
size_t matrix_bytes(const problem &p, gk_format f, int64_t rows, int64_t cols, int64_t ld) {
    const int64_t min = min_ld(p.layout, rows, cols);
    return storage_bytes(f) * (size_t)(gkh_extent(p.layout, rows, cols, ld < min ? min : ld) + 1);
}

/* Allocate and fill the operands (and C0, random, when beta != 0); "" or the failure. */
std::string setup(problem &p, uint64_t seed, int blocks) {
    const int64_t ar = p.ta == GK_NO_TRANS ? p.m : p.k, ac = p.ta == GK_NO_TRANS ? p.k : p.m;
    const int64_t br = p.tb == GK_NO_TRANS ? p.k : p.n, bc = p.tb == GK_NO_TRANS ? p.n : p.k;
    if (p.lda < 0) p.lda = min_ld(p.layout, ar, ac);
    if (p.ldb < 0) p.ldb = min_ld(p.layout, br, bc);
    if (p.ldc < 0) p.ldc = min_ld(p.layout, p.m, p.n);
    const size_t ab = matrix_bytes(p, p.dt.a, ar, ac, p.lda),
                 bb = matrix_bytes(p, p.dt.b, br, bc, p.ldb);
    p.c_bytes = matrix_bytes(p, p.out, p.m, p.n, p.ldc);
    if (!ab || !bb || !p.c_bytes) return "a format without a GEMM storage type";
    cudaError_t e;
    if ((e = cudaMalloc(&p.a, ab)) || (e = cudaMalloc(&p.b, bb)) ||
        (p.beta != 0.0f && (e = cudaMalloc(&p.c0, p.c_bytes))) ||
        (e = cudaMalloc((void **)&p.scales, 2 * 4))) {
        (void)cudaGetLastError();
        return std::string("device memory: ") + cudaGetErrorString(e);
    }
    const float ma = fp8_range(p.dt.a), mb = fp8_range(p.dt.b);
    gkh_gpu_fill_format(p.a, p.dt.a, (int64_t)(ab / storage_bytes(p.dt.a)), seed * 3 + 1, ma,
                        blocks);
    gkh_gpu_fill_format(p.b, p.dt.b, (int64_t)(bb / storage_bytes(p.dt.b)), seed * 5 + 2, mb,
                        blocks);
    if (p.c0)
        gkh_gpu_fill_format(p.c0, p.out, (int64_t)(p.c_bytes / storage_bytes(p.out)), seed * 7 + 3,
                            1.0f, blocks);
    const float s[2] = {1.0f / ma, 1.0f / mb};
    if ((e = cudaMemcpy(p.scales, s, sizeof s, cudaMemcpyHostToDevice)) ||
        (e = cudaDeviceSynchronize()))
        return std::string("device setup: ") + cudaGetErrorString(e);
    return "";
}

void release(problem &p) {
    cudaFree(p.a), cudaFree(p.b), cudaFree(p.c0), cudaFree(p.scales);
    p.a = p.b = p.c0 = nullptr, p.scales = nullptr;
}

/* gemmkit's call: float32 operands and result go through gk_cuda_sgemm (the entry point whose
 * FP32 mode the context sets), everything else through gk_cuda_gemm_ex. */
gk_status call_gemmkit(gk_cuda_ctx *ctx, const problem &p, void *c) {
    if (p.all_f32())
        return gk_cuda_sgemm(ctx, p.layout, p.ta, p.tb, p.m, p.n, p.k, p.alpha, (const float *)p.a,
                             p.lda, (const float *)p.b, p.ldb, p.beta, (float *)c, p.ldc);
    const gk_gemm_ex_opts opts = {p.scale_a(), p.scale_b(), p.fast_accum};
    return gk_cuda_gemm_ex(ctx, p.layout, p.ta, p.tb, p.m, p.n, p.k, p.alpha, p.dt.a, p.a, p.lda,
                           p.dt.b, p.b, p.ldb, p.beta, p.out, c, p.ldc, &opts);
}

/* The same problem for cuBLASLt, which is column-major: a row-major C = op(A) op(B) is the
 * column-major C^T = op(B)^T op(A)^T, so the operands trade places. */
gk_cublaslt::problem peer_problem(const problem &p, void *c) {
    auto type = [](gk_format f) {
        switch (f) {
        case GK_F32:
        case GK_TF32:
            return (int)gk_cublaslt::R_32F;
        case GK_BF16:
            return (int)gk_cublaslt::R_16BF;
        case GK_F16:
            return (int)gk_cublaslt::R_16F;
        case GK_F8_E4M3FN:
            return (int)gk_cublaslt::R_8F_E4M3;
        case GK_F8_E5M2:
            return (int)gk_cublaslt::R_8F_E5M2;
        default:
            return -1;
        }
    };
    gk_cublaslt::problem q = {};
    const bool row = p.layout == GK_ROW_MAJOR;
    const bool ta = p.ta != GK_NO_TRANS, tb = p.tb != GK_NO_TRANS;
    q.trans_a = row ? tb : ta, q.trans_b = row ? ta : tb;
    q.m = row ? p.n : p.m, q.n = row ? p.m : p.n, q.k = p.k;
    q.type_a = type(row ? p.dt.b : p.dt.a), q.type_b = type(row ? p.dt.a : p.dt.b);
    q.type_c = type(p.out);
    q.compute = p.dt.a == GK_TF32 || p.dt.b == GK_TF32 ? gk_cublaslt::COMPUTE_32F_FAST_TF32
                                                       : gk_cublaslt::COMPUTE_32F;
    q.a = row ? p.b : p.a, q.lda = row ? p.ldb : p.lda;
    q.b = row ? p.a : p.b, q.ldb = row ? p.lda : p.ldb;
    q.c = c, q.ldc = p.ldc;
    q.alpha = p.alpha, q.beta = p.beta;
    q.scale_a = row ? p.scale_b() : p.scale_a(), q.scale_b = row ? p.scale_a() : p.scale_b();
    q.fast_accum = p.fast_accum;
    return q;
}

/* The peer's name: what cuBLASLt computes in. */
std::string peer_name(const problem &p) {
    if (bench_dtype_is_fp8(&p.dt)) return "cublaslt_fp8";
    switch (p.dt.a) {
    case GK_F32:
        return "cublaslt_fp32";
    case GK_TF32:
        return "cublaslt_tf32";
    case GK_BF16:
        return "cublaslt_bf16";
    case GK_F16:
        return "cublaslt_f16";
    default:
        return "cublaslt";
    }
}

/* cuBLASLt multiplies float32 operands on the CUDA cores (CUBLAS_COMPUTE_32F), the rest like
 * gemmkit. */
peak_kind peer_peak(const problem &p) {
    return p.dt.a == GK_F32 && p.dt.b == GK_F32 ? PEAK_FP32_SIMT : gemmkit_peak(p.dt);
}

/* ---- measurement ---------------------------------------------------------------------------- */

/* One implementation as the event timer launches it; the status of its last call is kept. */
struct impl {
    bool is_peer = false;
    gk_cuda_ctx *ctx = nullptr;
    gk_cublaslt *lt = nullptr;
    const problem *p = nullptr;
    void *c = nullptr;
    gk_status st = GK_SUCCESS;
    bool peer_ok = true;

    void call() {
        if (is_peer)
            peer_ok = lt->run();
        else
            st = call_gemmkit(ctx, *p, c);
    }
    static void launch(void *self) { ((impl *)self)->call(); }
    bool failed() const { return is_peer ? !peer_ok : st != GK_SUCCESS; }
    std::string why() const {
        if (is_peer) return lt->why();
        return std::string(gk_status_string(st)) + ": " + gk_last_error();
    }
};

struct side {
    std::string check; /* "ok", "FAIL ...", "ERROR ...", "n/a ..." */
    int reps = 0;
    double ms = NAN, ms_min = NAN, tflops = NAN, pct = NAN, mhz = NAN, watts = NAN;
    double err = NAN, err_ratio = NAN;
    std::string throttle;
    bool failed() const { return !check.compare(0, 4, "FAIL") || !check.compare(0, 5, "ERROR"); }
};

std::string quote_csv(std::string s) {
    for (char &ch : s)
        if (ch == '"' || ch == '\n') ch = '\'';
    return "\"" + s + "\"";
}

std::string fmt(double v, const char *f) {
    if (isnan(v)) return "";
    char b[64];
    snprintf(b, sizeof b, f, v);
    return b;
}

std::string json_str(const std::string &s) {
    std::vector<char> q(2 * s.size() + 3);
    return gkh_json_quote(q.data(), q.size(), s.c_str());
}

std::string json_num(double v, const char *f) {
    return isnan(v) ? "null" : fmt(v, f);
}

std::string trans_name(gk_trans ta, gk_trans tb) {
    return std::string(ta == GK_NO_TRANS ? "N" : "T") + (tb == GK_NO_TRANS ? "N" : "T");
}

struct row {
    std::string dtype, peer;
    gk_format a, b, c;
    gk_layout layout;
    gk_trans ta, tb;
    int64_t m, n, k;
    side gk, pr;
};

struct bench {
    bench_tc_opts opt;
    gk_cuda_ctx *ctx = nullptr;
    gk_cublaslt lt;
    bool have_peer = false;
    gk_nvml_sampler nvml;
    bool have_nvml = false;
    cudaDeviceProp prop;
    int sm = 0, blocks = 0;
    gkh_l2_flush flush = {nullptr, 0};
    bool context_lost = false;
    std::vector<row> rows;

    /* Check one implementation, then warm it up; false (with s.check saying why) when it is not
     * to be timed. */
    bool check(impl &im, const problem &p, side &s) {
        if (context_lost) {
            s.check = "not run (CUDA context lost earlier)";
            return false;
        }
        cudaMemset(im.c, 0xff, p.c_bytes); /* NaN in every format used for C */
        im.call();
        cudaError_t ce = cudaDeviceSynchronize();
        /* a fault inside a kernel poisons the context: every later call would fail too */
        if (ce != cudaSuccess) context_lost = cudaDeviceSynchronize() != cudaSuccess;
        if (im.failed()) {
            const bool na =
                !im.is_peer && (im.st == GK_ERR_UNSUPPORTED || im.st == GK_ERR_NOT_BUILT);
            s.check = (na ? "n/a " : "ERROR ") + im.why();
            return false;
        }
        if (ce != cudaSuccess) {
            s.check = std::string("ERROR ") + cudaGetErrorString(ce);
            return false;
        }
        gkh_gpu_check r;
        const gkh_gemm_desc d = p.desc();
        const double u_in = gkh_gemm_ex_u_in(p.dt.a, p.dt.b, p.dt.fp32_mode, p.fast_accum, p.k);
        if ((ce = gkh_gpu_check_sampled(&d, im.c, u_in, opt.samples, opt.seed, blocks, &r))) {
            s.check = std::string("ERROR in the check: ") + cudaGetErrorString(ce);
            context_lost = true;
            return false;
        }
        s.err = r.max_err, s.err_ratio = r.max_ratio;
        char buf[160];
        if (r.failed) {
            snprintf(buf, sizeof buf, "FAIL %lld of %lld; worst C(%lld,%lld) = %.6g, want %.6g",
                     (long long)r.failed, (long long)r.checked, (long long)r.worst_i,
                     (long long)r.worst_j, r.worst_got, r.worst_want);
            s.check = buf;
            return false;
        }
        s.check = "ok";
        for (int w = 0; w < opt.warmup; w++)
            im.call();
        return true;
    }

    /* `reps` timed runs appended to ms; NVML readings added to pw. */
    bool time_runs(impl &im, int reps, std::vector<double> &ms, gk_nvml_totals &pw, side &s) {
        gkh_gpu_timer timer;
        if (gkh_gpu_timer_create(&timer, reps) != cudaSuccess) {
            s.check = "ERROR creating events";
            return false;
        }
        if (have_nvml) nvml.start();
        const cudaError_t ce = gkh_gpu_timer_run(&timer, &flush, impl::launch, &im);
        if (have_nvml) nvml.stop(), pw.add(nvml);
        for (int i = 0; i < reps; i++)
            ms.push_back(gkh_gpu_timer_ms(&timer, i));
        gkh_gpu_timer_destroy(&timer);
        if (im.failed() || ce != cudaSuccess) {
            s.check = "ERROR while timing: " + (im.failed() ? im.why() : cudaGetErrorString(ce));
            context_lost = context_lost || ce != cudaSuccess;
            return false;
        }
        return true;
    }

    void summarise(const problem &p, peak_kind k, std::vector<double> &ms, const gk_nvml_totals &pw,
                   side &s) {
        s.reps = (int)ms.size();
        s.ms = gkh_median(ms.data(), s.reps); /* sorts: ms[0] is then the fastest */
        s.ms_min = ms[0];
        s.tflops = 2.0 * (double)p.m * (double)p.n * (double)p.k / (s.ms * 1e-3) / 1e12;
        if (have_nvml && pw.samples) {
            s.mhz = pw.mean_mhz(), s.watts = pw.mean_watts(), s.throttle = pw.throttle();
            s.pct = pct_peak(sm, prop.multiProcessorCount, k, s.tflops, s.mhz);
        }
    }

    void run_one(const bench_shape &shape, const bench_dtype &dt) {
        row r;
        char name[64];
        bench_dtype_name(&dt, name, sizeof name);
        problem p;
        p.layout = opt.layout;
        const bool fp8 = bench_dtype_is_fp8(&dt);
        /* FP8: both operands K-major unless asked otherwise (column-major TN, row-major NT) */
        const bool k_major = fp8 && !opt.trans_set;
        p.ta = opt.trans_set                           ? opt.ta
               : k_major && opt.layout == GK_COL_MAJOR ? GK_TRANS
                                                       : GK_NO_TRANS;
        p.tb = opt.trans_set                           ? opt.tb
               : k_major && opt.layout == GK_ROW_MAJOR ? GK_TRANS
                                                       : GK_NO_TRANS;
        p.m = shape.m, p.n = shape.n, p.k = shape.k;
        p.lda = p.ldb = p.ldc = -1;
        p.alpha = 1.0f, p.beta = 0.0f;
        p.dt = dt;
        p.out = opt.out_type_set ? opt.out_type : bench_dtype_default_out(&dt);
        p.fast_accum = opt.fp8_fast_accum;
        r.dtype = name, r.peer = opt.peer ? peer_name(p) : "";
        r.a = dt.a, r.b = dt.b, r.c = p.out, r.layout = p.layout, r.ta = p.ta, r.tb = p.tb;
        r.m = p.m, r.n = p.n, r.k = p.k;
        r.pr.check = opt.peer ? (have_peer ? "" : "n/a cuBLASLt unavailable") : "n/a not requested";

        void *c_gk = nullptr, *c_peer = nullptr;
        std::string err = setup(p, opt.seed + (uint64_t)(p.m * 131 + p.n * 17 + p.k), blocks);
        if (err.empty() && (cudaMalloc(&c_gk, p.c_bytes) != cudaSuccess ||
                            (opt.peer && cudaMalloc(&c_peer, p.c_bytes) != cudaSuccess))) {
            (void)cudaGetLastError();
            err = "device memory for C";
        }
        if (!err.empty()) {
            r.gk.check = "ERROR " + err;
            if (r.pr.check.empty()) r.pr.check = "not run";
            release(p), cudaFree(c_gk), cudaFree(c_peer);
            rows.push_back(r);
            return;
        }
        impl gk_impl, peer_impl;
        gk_impl.ctx = ctx, gk_impl.p = &p, gk_impl.c = c_gk;
        peer_impl.is_peer = true, peer_impl.lt = &lt, peer_impl.p = &p, peer_impl.c = c_peer;

        bool time_gk = false, time_peer = false;
        const bool f32 = dt.a == GK_F32 || dt.b == GK_F32;
        const gk_status mode = f32 ? gk_cuda_set_fp32_mode(ctx, dt.fp32_mode) : GK_SUCCESS;
        if (mode != GK_SUCCESS) {
            r.gk.check =
                std::string(mode == GK_ERR_UNSUPPORTED || mode == GK_ERR_NOT_BUILT ? "n/a "
                                                                                   : "ERROR ") +
                "gk_cuda_set_fp32_mode: " + gk_last_error();
        } else {
            time_gk = check(gk_impl, p, r.gk);
        }
        if (opt.peer && have_peer) {
            if (!lt.plan(peer_problem(p, c_peer)))
                r.pr.check = "n/a " + lt.why();
            else
                time_peer = check(peer_impl, p, r.pr);
        }
        fprintf(stderr, "[%s %lldx%lldx%lld %s] check gemmkit: %s; %s: %s\n", name, (long long)p.m,
                (long long)p.n, (long long)p.k, trans_name(p.ta, p.tb).c_str(), r.gk.check.c_str(),
                r.peer.c_str(), r.pr.check.c_str());

        std::vector<double> ms_gk, ms_peer;
        gk_nvml_totals pw_gk, pw_peer;
        const int rounds = std::max(1, std::min(opt.rounds, opt.reps));
        for (int round = 0; round < rounds && !context_lost; round++) {
            const int share = opt.reps * (round + 1) / rounds - opt.reps * round / rounds;
            /* alternate which side goes first, so neither always follows the other's heat */
            for (int turn = 0; turn < 2; turn++) {
                const bool peer_turn = (turn + round) % 2 == 1;
                if (peer_turn && time_peer)
                    time_peer = time_runs(peer_impl, share, ms_peer, pw_peer, r.pr);
                if (!peer_turn && time_gk) time_gk = time_runs(gk_impl, share, ms_gk, pw_gk, r.gk);
            }
        }
        if (time_gk) summarise(p, gemmkit_peak(dt), ms_gk, pw_gk, r.gk);
        if (time_peer) summarise(p, peer_peak(p), ms_peer, pw_peer, r.pr);
        fprintf(stderr, "[%s %lldx%lldx%lld] gemmkit %s ms %s TFLOPS; %s %s ms %s TFLOPS\n", name,
                (long long)p.m, (long long)p.n, (long long)p.k, fmt(r.gk.ms, "%.3f").c_str(),
                fmt(r.gk.tflops, "%.1f").c_str(), r.peer.c_str(), fmt(r.pr.ms, "%.3f").c_str(),
                fmt(r.pr.tflops, "%.1f").c_str());
        release(p);
        cudaFree(c_gk), cudaFree(c_peer);
        rows.push_back(r);
    }

    bool write(const std::string &out, std::string &csv_path) {
        csv_path = out + "/gpu_tc.csv";
        const std::string json_path = out + "/gpu_tc.json";
        FILE *csv = fopen(csv_path.c_str(), "w"), *js = fopen(json_path.c_str(), "w");
        if (!csv || !js) {
            if (csv) fclose(csv);
            if (js) fclose(js);
            return false;
        }
        static const char *const side_cols[] = {"reps",     "ms_median", "ms_min",   "tflops",
                                                "pct_peak", "sm_mhz",    "power_w",  "throttle",
                                                "check",    "err",       "err_ratio"};
        fprintf(csv, "device,dtype,a_type,b_type,c_type,layout,trans,m,n,k");
        for (const char *pre : {"gk_", "peer_"})
            for (const char *c : side_cols)
                fprintf(csv, ",%s%s", pre, c);
        fprintf(csv, ",peer,gk_over_peer\n");
        int runtime = 0, driver = 0;
        cudaRuntimeGetVersion(&runtime), cudaDriverGetVersion(&driver);
        time_t now = time(nullptr);
        char stamp[32];
        strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
        fprintf(js,
                "{\n  \"tool\": \"gemmkit bench --dtype\",\n  \"version\": %s,\n  \"time\": %s,\n"
                "  \"device\": {\"name\": %s, \"sm\": %d, \"sms\": %d, \"l2_bytes\": %d, "
                "\"cuda_runtime\": %d, \"cuda_driver\": %d},\n"
                "  \"method\": {\"alpha\": 1, \"beta\": 0, \"reps\": %d, \"rounds\": %d, "
                "\"warmup\": %d, \"statistic\": \"median\", \"l2_flush_bytes\": %zu, "
                "\"check_samples\": %lld, \"fp8_fast_accum\": %d, \"peak_flop_per_clk_sm\": "
                "{\"fp32_simt\": %g, \"tf32\": %g, \"3xtf32\": %g, \"bf16_f16\": %g, \"fp8\": %g}"
                "},\n  \"results\": [",
                json_str(gk_version()).c_str(), json_str(stamp).c_str(),
                json_str(prop.name).c_str(), sm, prop.multiProcessorCount, prop.l2CacheSize,
                runtime, driver, opt.reps, opt.rounds, opt.warmup, flush.bytes,
                (long long)opt.samples, opt.fp8_fast_accum, PEAK[0].flop_per_clk_sm[0],
                PEAK[0].flop_per_clk_sm[1], PEAK[0].flop_per_clk_sm[2], PEAK[0].flop_per_clk_sm[3],
                PEAK[0].flop_per_clk_sm[4]);
        for (size_t i = 0; i < rows.size(); i++) {
            const row &r = rows[i];
            const double ratio = r.gk.tflops / r.pr.tflops;
            const std::string trans = trans_name(r.ta, r.tb);
            const char *layout = r.layout == GK_ROW_MAJOR ? "row" : "col";
            fprintf(csv, "%s,%s,%s,%s,%s,%s,%s,%lld,%lld,%lld", quote_csv(prop.name).c_str(),
                    r.dtype.c_str(), format_name(r.a), format_name(r.b), format_name(r.c), layout,
                    trans.c_str(), (long long)r.m, (long long)r.n, (long long)r.k);
            fprintf(js,
                    "%s\n    {\"dtype\": %s, \"a_type\": %s, \"b_type\": %s, \"c_type\": %s, "
                    "\"layout\": \"%s\", \"trans\": \"%s\", \"m\": %lld, \"n\": %lld, \"k\": %lld, "
                    "\"peer\": %s, \"gk_over_peer\": %s",
                    i ? "," : "", json_str(r.dtype).c_str(), json_str(format_name(r.a)).c_str(),
                    json_str(format_name(r.b)).c_str(), json_str(format_name(r.c)).c_str(), layout,
                    trans.c_str(), (long long)r.m, (long long)r.n, (long long)r.k,
                    json_str(r.peer).c_str(), json_num(ratio, "%.4f").c_str());
            for (int which = 0; which < 2; which++) {
                const side &s = which ? r.pr : r.gk;
                fprintf(csv, ",%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s", s.reps, fmt(s.ms, "%.4f").c_str(),
                        fmt(s.ms_min, "%.4f").c_str(), fmt(s.tflops, "%.2f").c_str(),
                        fmt(s.pct, "%.1f").c_str(), fmt(s.mhz, "%.0f").c_str(),
                        fmt(s.watts, "%.1f").c_str(), quote_csv(s.throttle).c_str(),
                        quote_csv(s.check).c_str(), fmt(s.err, "%.3g").c_str(),
                        fmt(s.err_ratio, "%.3g").c_str());
                fprintf(js,
                        ", \"%s\": {\"reps\": %d, \"ms_median\": %s, \"ms_min\": %s, \"tflops\": "
                        "%s, \"pct_peak\": %s, \"sm_mhz\": %s, \"power_w\": %s, \"throttle\": %s, "
                        "\"check\": %s, \"err\": %s, \"err_ratio\": %s}",
                        which ? "peer_result" : "gemmkit", s.reps, json_num(s.ms, "%.4f").c_str(),
                        json_num(s.ms_min, "%.4f").c_str(), json_num(s.tflops, "%.2f").c_str(),
                        json_num(s.pct, "%.1f").c_str(), json_num(s.mhz, "%.0f").c_str(),
                        json_num(s.watts, "%.1f").c_str(), json_str(s.throttle).c_str(),
                        json_str(s.check).c_str(), json_num(s.err, "%.3g").c_str(),
                        json_num(s.err_ratio, "%.3g").c_str());
            }
            fprintf(csv, ",%s,%s\n", r.peer.c_str(), fmt(ratio, "%.4f").c_str());
            fprintf(js, "}");
        }
        fprintf(js, "\n  ]\n}\n");
        fclose(csv);
        fclose(js);
        fprintf(stderr, "gemmkit bench: wrote %s and %s\n", csv_path.c_str(), json_path.c_str());
        return true;
    }

    void print_table() const {
        printf("%s, sm_%d, %d SMs; mixed-precision GEMM, alpha 1, beta 0, median of %d runs, L2 "
               "flushed; %% peak at the measured SM clock\n",
               prop.name, sm, prop.multiProcessorCount, opt.reps);
        printf("%-10s %-5s %-5s %-17s %9s %6s %9s %6s %7s %6s %5s %9s %9s  %s\n", "dtype", "out",
               "op", "m x n x k", "gk TFLOPS", "%peak", "peer", "%peak", "gk/peer", "MHz", "W",
               "gk err", "peer err", "check (gemmkit; peer)");
        for (const row &r : rows) {
            char shape[48];
            snprintf(shape, sizeof shape, "%lldx%lldx%lld", (long long)r.m, (long long)r.n,
                     (long long)r.k);
            const std::string op =
                std::string(r.layout == GK_ROW_MAJOR ? "r" : "c") + trans_name(r.ta, r.tb);
            printf("%-10s %-5s %-5s %-17s %9s %6s %9s %6s %7s %6s %5s %9s %9s  %s; %s\n",
                   r.dtype.c_str(), bench_format_short(r.c), op.c_str(), shape,
                   fmt(r.gk.tflops, "%.1f").c_str(), fmt(r.gk.pct, "%.1f").c_str(),
                   fmt(r.pr.tflops, "%.1f").c_str(), fmt(r.pr.pct, "%.1f").c_str(),
                   fmt(r.gk.tflops / r.pr.tflops, "%.3f").c_str(), fmt(r.gk.mhz, "%.0f").c_str(),
                   fmt(r.gk.watts, "%.0f").c_str(), fmt(r.gk.err, "%.2g").c_str(),
                   fmt(r.pr.err, "%.2g").c_str(), r.gk.check.c_str(), r.pr.check.c_str());
        }
    }
};

/* Opens a context on `device`; prints why not and returns false when there is none. */
bool open_device(int device, const char *who, gk_cuda_ctx **ctx, cudaDeviceProp *prop) {
    if (!gk_cuda_available()) {
        fprintf(stderr, "%s: no usable CUDA device on this machine\n", who);
        return false;
    }
    const gk_status st = gk_cuda_create(ctx, device, nullptr);
    if (st != GK_SUCCESS) {
        fprintf(stderr, "%s: gk_cuda_create: %s: %s\n", who, gk_status_string(st), gk_last_error());
        return false;
    }
    cudaSetDevice(device);
    cudaGetDeviceProperties(prop, device);
    return true;
}

} // namespace

extern "C" int bench_tc_run(const bench_tc_opts *o) {
    bench b;
    b.opt = *o;
    if (!open_device(o->device, "gemmkit bench", &b.ctx, &b.prop)) return 2;
    b.sm = b.prop.major * 10 + b.prop.minor;
    b.blocks = b.prop.multiProcessorCount * 4;
    if (gkh_l2_flush_init(&b.flush, b.prop.l2CacheSize) != cudaSuccess) {
        fprintf(stderr, "gemmkit bench: cannot allocate the L2 flush buffer\n");
        gk_cuda_destroy(b.ctx);
        return 2;
    }
    if (o->peer && !(b.have_peer = b.lt.load()))
        fprintf(stderr, "gemmkit bench: cuBLASLt unavailable: %s\n", b.lt.why().c_str());
    if (!(b.have_nvml = b.nvml.load(o->device)))
        fprintf(stderr, "gemmkit bench: NVML unavailable: %s\n", b.nvml.why().c_str());
    fprintf(stderr, "gemmkit bench: %s (sm_%d, %d SMs), %d dtypes x %d shapes\n", b.prop.name, b.sm,
            b.prop.multiProcessorCount, o->ndtypes, o->nshapes);
    for (int s = 0; s < o->nshapes && !b.context_lost; s++)
        for (int d = 0; d < o->ndtypes && !b.context_lost; d++)
            b.run_one(o->shapes[s], o->dtypes[d]);
    gkh_l2_flush_free(&b.flush);
    gk_cuda_destroy(b.ctx);

    if (gkh_mkdirs(o->out)) {
        fprintf(stderr, "gemmkit bench: cannot create %s: %s\n", o->out, strerror(errno));
        return 2;
    }
    std::string csv;
    if (!b.write(o->out, csv)) {
        fprintf(stderr, "gemmkit bench: cannot write under %s\n", o->out);
        return 2;
    }
    if (o->plot) {
        struct stat st;
        if (stat("bench/plot_tc.py", &st) == 0) {
            const char *py = getenv("GK_PYTHON") ? getenv("GK_PYTHON") : "python3";
            const std::string cmd =
                std::string(py) + " bench/plot_tc.py '" + csv + "' --out '" + o->out + "' 1>&2";
            if (system(cmd.c_str()) != 0) fprintf(stderr, "gemmkit bench: plotting failed\n");
        } else {
            fprintf(stderr, "gemmkit bench: bench/plot_tc.py not found (run from the source "
                            "tree to get plots)\n");
        }
    }
    b.print_table();
    bool failed = b.context_lost;
    for (const row &r : b.rows)
        failed = failed || r.gk.failed() || r.pr.failed();
    return failed ? 1 : 0;
}

/* ---- gemmkit run --dtype ------------------------------------------------------------------- */

namespace {

struct run_call {
    gk_cuda_ctx *ctx;
    const problem *p;
    void *c;
    gk_status st;
};

void run_launch(void *arg) {
    run_call *r = (run_call *)arg;
    r->st = call_gemmkit(r->ctx, *r->p, r->c);
}

int run_status_exit(const char *what, gk_status st) {
    fprintf(stderr, "gemmkit run: %s failed: %s: %s\n", what, gk_status_string(st),
            gk_last_error());
    /* argument errors come from the command line (sizes, leading dimensions, type combinations) */
    return st == GK_ERR_INVALID_LD || st == GK_ERR_INVALID_SIZE || st == GK_ERR_OVERFLOW ||
                   st == GK_ERR_INVALID_VALUE
               ? 2
               : 1;
}

} // namespace

extern "C" int bench_tc_run_one(const bench_run_opts *o) {
    gk_cuda_ctx *ctx = nullptr;
    cudaDeviceProp prop;
    if (!open_device(0, "gemmkit run", &ctx, &prop)) return 1;
    problem p;
    p.layout = o->layout, p.ta = o->ta, p.tb = o->tb;
    p.m = o->m, p.n = o->n, p.k = o->k, p.lda = o->lda, p.ldb = o->ldb, p.ldc = o->ldc;
    p.alpha = o->alpha, p.beta = o->beta;
    p.dt = o->dtype, p.out = o->out, p.fast_accum = o->fp8_fast_accum;
    char name[64];
    bench_dtype_name(&p.dt, name, sizeof name);
    const int blocks = prop.multiProcessorCount * 4;
    void *c = nullptr;
    std::vector<double> times((size_t)o->reps);
    gkh_gpu_timer timer = {0, nullptr, nullptr};
    int rc = 1;
    gk_status st;
    std::string err = setup(p, o->seed, blocks);
    printf("run: gpu %s-major op(A)=%s op(B)=%s m=%lld n=%lld k=%lld lda=%lld ldb=%lld ldc=%lld "
           "alpha=%g beta=%g\n",
           p.layout == GK_ROW_MAJOR ? "row" : "col", p.ta == GK_NO_TRANS ? "A" : "A^T",
           p.tb == GK_NO_TRANS ? "B" : "B^T", (long long)p.m, (long long)p.n, (long long)p.k,
           (long long)p.lda, (long long)p.ldb, (long long)p.ldc, o->alpha, o->beta);
    printf("types: --dtype %s: A %s, B %s, C %s, float32 accumulation%s%s\n", name,
           format_name(p.dt.a), format_name(p.dt.b), format_name(p.out),
           p.scale_a() || p.scale_b() ? "; per-tensor scales 1/max of each FP8 format" : "",
           p.dt.fp32_mode == GK_FP32_3XTF32 ? "; FP32 mode 3xTF32" : "");
    printf("gpu: device 0 (%s), %s\n", prop.name,
           p.all_f32() ? "gk_cuda_sgemm" : "gk_cuda_gemm_ex");
    if (!err.empty()) {
        fprintf(stderr, "gemmkit run: %s\n", err.c_str());
        goto out;
    }
    if (cudaMalloc(&c, p.c_bytes) != cudaSuccess || gkh_gpu_timer_create(&timer, 1)) {
        fprintf(stderr, "gemmkit run: device memory for C\n");
        goto out;
    }
    if ((p.dt.a == GK_F32 || p.dt.b == GK_F32) &&
        (st = gk_cuda_set_fp32_mode(ctx, p.dt.fp32_mode)) != GK_SUCCESS) {
        rc = run_status_exit("gk_cuda_set_fp32_mode", st);
        goto out;
    }
    {
        run_call call = {ctx, &p, c, GK_SUCCESS};
        cudaError_t ce = cudaSuccess;
        /* one untimed call, then the timed ones, each on a fresh copy of C (beta != 0 would
         * otherwise compound); C is poisoned first so a call that skips elements shows */
        for (int r = -1; r < o->reps; r++) {
            if (p.beta != 0.0f)
                ce = cudaMemcpy(c, p.c0, p.c_bytes, cudaMemcpyDeviceToDevice);
            else if (r < 0)
                ce = cudaMemset(c, 0xff, p.c_bytes);
            if (ce == cudaSuccess) ce = gkh_gpu_timer_run(&timer, nullptr, run_launch, &call);
            if (call.st != GK_SUCCESS) {
                rc = run_status_exit(p.all_f32() ? "gk_cuda_sgemm" : "gk_cuda_gemm_ex", call.st);
                goto out;
            }
            if (ce != cudaSuccess) {
                fprintf(stderr, "gemmkit run: kernel failed: %s\n", cudaGetErrorString(ce));
                goto out;
            }
            if (r >= 0) times[(size_t)r] = gkh_gpu_timer_ms(&timer, 0) * 1e-3;
        }
        gkh_gpu_check chk;
        const gkh_gemm_desc d = p.desc();
        const double u_in = gkh_gemm_ex_u_in(p.dt.a, p.dt.b, p.dt.fp32_mode, p.fast_accum, p.k);
        if ((ce = gkh_gpu_check_sampled(&d, c, u_in, gkh_check_samples(p.m, p.n, p.k), o->seed,
                                        blocks, &chk))) {
            fprintf(stderr, "gemmkit run: check failed: %s\n", cudaGetErrorString(ce));
            goto out;
        }
        printf("check: %lld of %lld elements vs float64, max error ratio %.3g (pass <= 1), max "
               "error %.3g of the element's scale",
               (long long)chk.checked, (long long)(p.m * p.n), chk.max_ratio, chk.max_err);
        if (chk.failed)
            printf("; %lld failed, worst C(%lld,%lld) = %.9g, expected %.9g", (long long)chk.failed,
                   (long long)chk.worst_i, (long long)chk.worst_j, chk.worst_got, chk.worst_want);
        printf("\n");
        const double med = gkh_median(times.data(), o->reps);
        const double flops = 2.0 * (double)p.m * (double)p.n * (double)p.k;
        printf("time: median %.4f ms, best %.4f ms over %d reps; %.2f GFLOPS at the median, "
               "%.2f at best\n",
               med * 1e3, times[0] * 1e3, o->reps, med > 0 ? flops / med * 1e-9 : 0.0,
               times[0] > 0 ? flops / times[0] * 1e-9 : 0.0);
        printf("%s\n", chk.failed ? "FAIL" : "PASS");
        rc = chk.failed ? 1 : 0;
    }
out:
    gkh_gpu_timer_destroy(&timer);
    release(p);
    cudaFree(c);
    gk_cuda_destroy(ctx);
    return rc;
}
