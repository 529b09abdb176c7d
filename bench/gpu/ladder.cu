/*
 * ladder.cu — the GPU ladder benchmark (bench.h: bench_ladder_run, what `gemmkit ladder` does):
 * every kernel of the CUDA registry, cuBLAS SGEMM (FP32 and, as a reference line, TF32) and
 * optionally the Triton peer, on square problems n x n x n or any m x n x k (`--sizes MxNxK`, the
 * thin shapes of issue 18): each is checked against a float64 reference, then timed; the results
 * go to a table, CSV, JSON and plots.
 *
 * Method (docs/cuda.md):
 *   - inputs uniform in [-1, 1) from a hash (never zeros), C = A B column-major, alpha 1, beta 0,
 *     through the public gk_cuda_sgemm_kernel (so dispatch overhead is included, as a user sees);
 *   - check: C is poisoned with NaN, the variant runs once and every element is compared on the
 *     GPU with a float64 reference computed on the GPU (harness/gpu.h; products of floats are
 *     exact in double), with the tests' bound (harness/rule.h); a non-square problem is checked
 *     at CHECK_SAMPLES elements (all of them when C is no larger); a failing variant is reported
 *     FAIL and not timed;
 *   - timing: one warm-up (two more for short runs), then up to --reps runs (time-boxed by
 *     --budget seconds, at least 3), each bracketed by CUDA events, spread round-robin over
 *     --rounds rounds so every variant is timed in the same thermal/power state; between runs
 *     a buffer of twice the L2 size is overwritten outside the event interval so every run
 *     starts with a cold L2; the median is reported (min in CSV);
 *   - during the timed runs a thread samples NVML every 5 ms: mean SM clock, mean board power,
 *     and every throttle reason seen; TFLOPS per watt is the median's TFLOPS over that mean
 *     power (a kernel that draws less keeps its clock under the board's power cap).
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

enum kind { GEMMKIT, CUBLAS_FP32, CUBLAS_TF32, TRITON };
/* Elements of C checked against float64 for a non-square problem. */
constexpr int64_t CHECK_SAMPLES = 1 << 16;
const char *const KIND_NAMES[] = {"gemmkit", "cublas", "cublas", "triton"};

struct variant {
    std::string name;
    kind k;
    int id;      /* registry index for GEMMKIT */
    double u_in; /* operand roundoff for the check */
    int min_sm;
};

/* One problem: column-major C (m x n) = A (m x k) B (k x n); `label` is "n" for a square one
 * (so CSV readers that take the size column as a number keep working), "MxNxK" otherwise. */
struct shape {
    int64_t m, n, k;
    std::string label;
    bool square() const { return m == n && n == k; }
    double flops() const { return 2.0 * (double)m * (double)n * (double)k; }
};

shape make_shape(int64_t m, int64_t n, int64_t k) {
    shape s{m, n, k, ""};
    s.label = s.square() ? std::to_string(n)
                         : std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
    return s;
}

struct result {
    shape sh;
    std::string name;
    kind k;
    int reps = 0;
    double ms = NAN, ms_min = NAN, tflops = NAN, pct = NAN, mhz = NAN, watts = NAN;
    double tflops_per_w = NAN;
    std::string throttle, check;
    double worst = NAN; /* largest err / bound over C */
};

/* ---- the harness ------------------------------------------------------------------------------
 */

struct bench {
    bench_ladder_opts opt;
    gk_cuda_ctx *ctx = nullptr;
    gk_cublas cublas;
    bool have_cublas = false;
    gk_nvml_sampler nvml;
    bool have_nvml = false;
    int sm = 0, sms = 0, l2 = 0;
    cudaDeviceProp prop;
    gkh_l2_flush flush = {nullptr, 0};
    bool context_lost = false;
    std::vector<result> results;

    std::string launch(const variant &v, const shape &sh, const float *a, const float *b,
                       float *c) {
        if (v.k == GEMMKIT) {
            gk_status st =
                gk_cuda_sgemm_kernel(ctx, v.id, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, sh.m, sh.n,
                                     sh.k, 1.0f, a, sh.m, b, sh.k, 0.0f, c, sh.m);
            return st == GK_SUCCESS ? "" : gk_last_error();
        }
        const bool ok = cublas.sgemm(v.k == CUBLAS_TF32 ? gk_cublas::TF32 : gk_cublas::FP32,
                                     (int)sh.m, (int)sh.n, (int)sh.k, a, b, c);
        return ok ? "" : "cublasSgemm failed";
    }

    /* One call of a variant as the harness's event timer launches it. */
    struct launch_arg {
        bench *self;
        const variant *v;
        const shape *sh;
        const float *a, *b;
        float *c;
    };
    static void launch_cb(void *p) {
        const launch_arg *l = (const launch_arg *)p;
        l->self->launch(*l->v, *l->sh, l->a, l->b, l->c);
    }

    /* Correctness check, then warm-up; returns the number of timed runs the variant gets (0 if
     * it failed or cannot run, with out.check saying why). */
    int check(const variant &v, const shape &sh, const float *a, const float *b, float *c,
              const double *r, const double *s, result &out) {
        out.reps = 0;
        if (v.min_sm > sm) {
            out.check = "n/a (needs sm_" + std::to_string(v.min_sm) + ")";
            return 0;
        }
        if (context_lost) {
            out.check = "not run (CUDA context lost earlier)";
            return 0;
        }
        cudaMemset(c, 0xff, (size_t)(sh.m * sh.n) * sizeof(float)); /* all-ones bits: NaN */
        std::string err = launch(v, sh, a, b, c);
        cudaError_t ce = cudaDeviceSynchronize();
        if (err.empty() && ce != cudaSuccess) err = cudaGetErrorString(ce);
        if (!err.empty()) {
            out.check = "ERROR " + err;
            /* a fault inside a kernel poisons the context: every later call would fail too */
            if (ce != cudaSuccess && cudaDeviceSynchronize() != cudaSuccess) context_lost = true;
            return 0;
        }
        unsigned long long bad = 0;
        float worst = 0;
        if (sh.square()) {
            gkh_gpu_compare(sh.n * sh.n, sh.n, v.u_in, c, r, s, sms * 8, &bad, &worst);
        } else {
            gkh_gemm_desc d;
            memset(&d, 0, sizeof d);
            d.layout = GK_COL_MAJOR, d.ta = d.tb = GK_NO_TRANS;
            d.m = sh.m, d.n = sh.n, d.k = sh.k, d.alpha = 1.0f, d.beta = 0.0f;
            d.atype = d.btype = d.ctype = GK_F32;
            d.a = a, d.b = b, d.lda = sh.m, d.ldb = sh.k, d.ldc = sh.m;
            gkh_gpu_check ck;
            gkh_gpu_check_sampled(&d, c, v.u_in, CHECK_SAMPLES, 0x5eedull, sms * 8, &ck);
            bad = (unsigned long long)ck.failed, worst = (float)ck.max_ratio;
        }
        out.worst = worst;
        char buf[96];
        if (bad) {
            snprintf(buf, sizeof buf, "FAIL %llu bad, worst err/bound %.3g", bad, worst);
            out.check = buf;
            return 0;
        }
        snprintf(buf, sizeof buf, "ok %.2g", worst);
        out.check = buf;

        /* warm-up, which also estimates the run time for the time box */
        gkh_gpu_timer warm;
        gkh_gpu_timer_create(&warm, 1);
        launch_arg arg = {this, &v, &sh, a, b, c};
        gkh_gpu_timer_run(&warm, nullptr, launch_cb, &arg);
        const float est = gkh_gpu_timer_ms(&warm, 0);
        gkh_gpu_timer_destroy(&warm);
        if (est < 20.0f) launch(v, sh, a, b, c), launch(v, sh, a, b, c);
        const int reps = (int)(opt.budget * 1000.0 / std::max(est, 1e-3f));
        return std::max(3, std::min(opt.reps, reps));
    }

    /* `reps` timed runs of one variant appended to `ms`, NVML readings added to `pw`. */
    bool time_runs(const variant &v, const shape &sh, const float *a, const float *b, float *c,
                   int reps, std::vector<double> &ms, gk_nvml_totals &pw, result &out) {
        gkh_gpu_timer timer;
        gkh_gpu_timer_create(&timer, reps);
        if (have_nvml) nvml.start();
        launch_arg arg = {this, &v, &sh, a, b, c};
        cudaError_t ce = gkh_gpu_timer_run(&timer, &flush, launch_cb, &arg);
        if (have_nvml) {
            nvml.stop();
            pw.add(nvml);
        }
        for (int i = 0; i < reps; i++)
            ms.push_back(gkh_gpu_timer_ms(&timer, i));
        gkh_gpu_timer_destroy(&timer);
        if (ce != cudaSuccess) {
            out.check = std::string("ERROR while timing: ") + cudaGetErrorString(ce);
            out.reps = 0;
            context_lost = true;
            return false;
        }
        return true;
    }

    static void summarise(const shape &sh, std::vector<double> &ms, result &out) {
        out.reps = (int)ms.size();
        out.ms = gkh_median(ms.data(), out.reps); /* sorts: ms[0] is then the fastest */
        out.ms_min = ms[0];
        out.tflops = sh.flops() / (out.ms * 1e-3) / 1e12;
    }

    bool run_size(const shape &sh, const std::vector<variant> &vars) {
        const char *const what = sh.label.c_str();
        const size_t a_elems = (size_t)(sh.m * sh.k), b_elems = (size_t)(sh.k * sh.n);
        const size_t c_elems = (size_t)(sh.m * sh.n), ref_elems = sh.square() ? c_elems : 0;
        float *a = nullptr, *b = nullptr, *c = nullptr;
        double *r = nullptr, *s = nullptr;
        cudaError_t e;
        if ((e = cudaMalloc(&a, a_elems * 4)) || (e = cudaMalloc(&b, b_elems * 4)) ||
            (e = cudaMalloc(&c, c_elems * 4)) ||
            (ref_elems &&
             ((e = cudaMalloc(&r, ref_elems * 8)) || (e = cudaMalloc(&s, ref_elems * 8))))) {
            fprintf(stderr, "gemmkit ladder: size %s: %s\n", what, cudaGetErrorString(e));
            cudaFree(a), cudaFree(b), cudaFree(c), cudaFree(r);
            (void)cudaGetLastError();
            return false;
        }
        gkh_gpu_fill(a, (int64_t)a_elems, 0x1234ull + (uint64_t)sh.n, sms * 4);
        gkh_gpu_fill(b, (int64_t)b_elems, 0xabcdefull * (uint64_t)sh.n, sms * 4);
        if (sh.square() && (e = gkh_gpu_reference(sh.n, a, b, r, s)) != cudaSuccess) {
            fprintf(stderr, "gemmkit ladder: reference at %s: %s\n", what, cudaGetErrorString(e));
            context_lost = true;
            return false;
        }
        /* Check every variant first, then time them round-robin: each round gives every variant
         * its share of runs, so all of them see the GPU in the same thermal and power state
         * (timing one variant after another favours whichever runs on the coolest GPU). */
        std::vector<result> res(vars.size());
        std::vector<int> reps(vars.size());
        std::vector<std::vector<double>> ms(vars.size());
        std::vector<gk_nvml_totals> pw(vars.size()); /* each variant's NVML readings */
        for (size_t i = 0; i < vars.size(); i++) {
            res[i].sh = sh, res[i].name = vars[i].name, res[i].k = vars[i].k;
            reps[i] = check(vars[i], sh, a, b, c, r, s, res[i]);
            fprintf(stderr, "[%s] check %zu/%zu %-28s %s\n", what, i + 1, vars.size(),
                    vars[i].name.c_str(), res[i].check.c_str());
        }
        const int rounds = opt.rounds;
        for (int round = 0; round < rounds && !context_lost; round++)
            for (size_t i = 0; i < vars.size() && !context_lost; i++) {
                if (!reps[i]) continue;
                const int share = (reps[i] * (round + 1)) / rounds - (reps[i] * round) / rounds;
                if (share > 0 && !time_runs(vars[i], sh, a, b, c, share, ms[i], pw[i], res[i]))
                    reps[i] = 0;
            }
        for (size_t i = 0; i < vars.size(); i++) {
            if (reps[i] && !ms[i].empty()) {
                summarise(sh, ms[i], res[i]);
                if (have_nvml && pw[i].samples) {
                    res[i].mhz = pw[i].mean_mhz(), res[i].watts = pw[i].mean_watts();
                    res[i].throttle = pw[i].throttle();
                    if (res[i].watts > 0) res[i].tflops_per_w = res[i].tflops / res[i].watts;
                }
                fprintf(stderr, "[%s] %-28s %3d reps %9.3f ms %7.2f TFLOPS\n", what,
                        vars[i].name.c_str(), res[i].reps, res[i].ms, res[i].tflops);
            }
            results.push_back(res[i]);
        }
        cudaFree(a), cudaFree(b), cudaFree(c), cudaFree(r), cudaFree(s);
        return true;
    }
};

/* ---- output ------------------------------------------------------------------------------- */

std::vector<std::string> split(const char *s) {
    std::vector<std::string> out;
    std::string cur;
    for (; *s; s++)
        if (*s == ',')
            out.push_back(cur), cur.clear();
        else
            cur += *s;
    if (!cur.empty()) out.push_back(cur);
    return out;
}

/* Names or name prefixes ("13", "13_cp"). Registry ids are not accepted: they count from 0 while
 * the step numbers in the names count from 1, and "11" would select two different kernels. */
bool selected(const std::vector<std::string> &kernels, const std::string &name) {
    if (kernels.empty()) return true;
    for (const auto &k : kernels)
        if (name.compare(0, k.size(), k) == 0) return true;
    return false;
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

/* Reads the rows bench/triton_peer.py wrote: size,variant,ms,tflops,check. */
void merge_triton(const std::string &csv, std::vector<result> &results) {
    FILE *f = fopen(csv.c_str(), "r");
    if (!f) {
        fprintf(stderr, "gemmkit ladder: no Triton results (%s)\n", csv.c_str());
        return;
    }
    char line[512];
    while (fgets(line, sizeof line, f)) {
        long long size;
        char var[64], check[128] = "";
        double ms, tf;
        if (sscanf(line, "%lld,%63[^,],%lf,%lf,%127[^\n]", &size, var, &ms, &tf, check) < 4)
            continue; /* header or malformed */
        result r;
        r.sh = make_shape(size, size, size), r.name = std::string("triton_") + var, r.k = TRITON;
        r.ms = ms, r.tflops = tf, r.check = check[0] ? check : "see triton_peer.py", r.reps = 1;
        results.push_back(r);
    }
    fclose(f);
}

} // namespace

extern "C" void bench_ladder_defaults(bench_ladder_opts *o, const char *out) {
    *o = bench_ladder_opts{};
    o->nsizes = 2, o->sizes[0] = 4096, o->sizes[1] = 8192;
    o->reps = 30, o->rounds = 3, o->budget = 1.5;
    o->out = out;
    o->cublas = 1, o->plot = 1;
}

extern "C" int bench_ladder_run(const bench_ladder_opts *o) {
    const bench_ladder_opts &opt = *o;
    const std::vector<std::string> kernels =
        opt.kernels ? split(opt.kernels) : std::vector<std::string>();
    const std::string out = opt.out;
    bench b;
    b.opt = opt;
    if (gk_cuda_create(&b.ctx, opt.device, nullptr) != GK_SUCCESS) {
        fprintf(stderr, "gemmkit ladder: %s\n", gk_last_error());
        return 2;
    }
    cudaSetDevice(opt.device);
    cudaGetDeviceProperties(&b.prop, opt.device);
    b.sm = b.prop.major * 10 + b.prop.minor;
    b.sms = b.prop.multiProcessorCount;
    b.l2 = b.prop.l2CacheSize;
    if (gkh_l2_flush_init(&b.flush, b.l2) != cudaSuccess) {
        fprintf(stderr, "gemmkit ladder: cannot allocate the L2 flush buffer\n");
        gk_cuda_destroy(b.ctx);
        return 2;
    }
    if (opt.cublas && !(b.have_cublas = b.cublas.load()))
        fprintf(stderr, "gemmkit ladder: cuBLAS unavailable: %s\n", b.cublas.why().c_str());
    if (!(b.have_nvml = b.nvml.load(opt.device)))
        fprintf(stderr, "gemmkit ladder: NVML unavailable: %s\n", b.nvml.why().c_str());

    std::vector<variant> vars;
    if (b.have_cublas) {
        vars.push_back({"cublas_fp32", CUBLAS_FP32, -1, 0.0, 0});
        vars.push_back({"cublas_tf32", CUBLAS_TF32, -1, 1.0 / 2048.0, 80});
    }
    for (int id = 0; id < gk_cuda_kernel_count(); id++) {
        gk_cuda_kernel_info info;
        gk_cuda_kernel_info_get(id, &info);
        if (selected(kernels, info.name))
            vars.push_back({info.name, GEMMKIT, id, info.input_rounding, info.min_sm});
    }
    if (vars.size() == (size_t)(b.have_cublas ? 2 : 0)) {
        fprintf(stderr, "gemmkit ladder: --kernels matched no registry kernel\n");
        gk_cuda_destroy(b.ctx);
        gkh_l2_flush_free(&b.flush);
        return 2;
    }
    fprintf(stderr, "gemmkit ladder: %s (sm_%d, %d SMs, L2 %d MiB), %zu variants\n", b.prop.name,
            b.sm, b.sms, b.l2 >> 20, vars.size());
    std::vector<shape> shapes;
    for (int i = 0; i < opt.nsizes; i++) {
        const int64_t *d = opt.shapes[i];
        shapes.push_back(d[0] || d[1] || d[2]
                             ? make_shape(d[0], d[1], d[2])
                             : make_shape(opt.sizes[i], opt.sizes[i], opt.sizes[i]));
    }
    for (size_t i = 0; i < shapes.size() && !b.context_lost; i++)
        b.run_size(shapes[i], vars);
    gkh_l2_flush_free(&b.flush);
    gk_cuda_destroy(b.ctx);

    if (gkh_mkdirs(out.c_str())) {
        fprintf(stderr, "gemmkit ladder: cannot create %s: %s\n", out.c_str(), strerror(errno));
        return 2;
    }
    if (opt.triton) {
        std::string sizes, csv = out + "/triton_peer.csv";
        for (const shape &sh : shapes) /* the Triton peer runs square problems only */
            if (sh.square()) sizes += (sizes.empty() ? "" : ",") + sh.label;
        const char *py = getenv("GK_PYTHON") ? getenv("GK_PYTHON") : "python3";
        std::string cmd = std::string(py) + " bench/triton_peer.py --sizes " + sizes + " --csv '" +
                          csv + "' 1>&2";
        fprintf(stderr, "gemmkit ladder: %s\n", cmd.c_str());
        remove(csv.c_str());
        if (system(cmd.c_str()) != 0) fprintf(stderr, "gemmkit ladder: triton_peer.py failed\n");
        merge_triton(csv, b.results);
    } else if (opt.triton_csv && *opt.triton_csv) {
        merge_triton(opt.triton_csv, b.results);
    }

    /* % of cuBLAS FP32 on the same problem */
    for (auto &r : b.results)
        for (const auto &base : b.results)
            if (base.k == CUBLAS_FP32 && base.sh.label == r.sh.label && base.reps &&
                !isnan(r.tflops))
                r.pct = 100.0 * r.tflops / base.tflops;
    std::stable_sort(b.results.begin(), b.results.end(),
                     [](const result &x, const result &y) { return x.sh.flops() < y.sh.flops(); });

    const std::string csv_path = out + "/gpu_ladder.csv", json_path = out + "/gpu_ladder.json";
    FILE *csv = fopen(csv_path.c_str(), "w"), *js = fopen(json_path.c_str(), "w");
    if (!csv || !js) {
        fprintf(stderr, "gemmkit ladder: cannot write under %s\n", out.c_str());
        if (csv) fclose(csv);
        if (js) fclose(js);
        return 2;
    }
    /* Columns only ever appended, so readers by position keep working. */
    fprintf(csv, "device,size,variant,kind,reps,ms_median,ms_min,tflops,pct_cublas,sm_mhz,power_w,"
                 "throttle,check,worst_err_ratio,tflops_per_w,m,n,k\n");
    int runtime = 0, driver = 0;
    cudaRuntimeGetVersion(&runtime), cudaDriverGetVersion(&driver);
    time_t now = time(nullptr);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(
        js,
        "{\n  \"tool\": \"gemmkit ladder\",\n  \"version\": %s,\n  \"time\": %s,\n"
        "  \"device\": {\"name\": %s, \"sm\": %d, \"sms\": %d, \"l2_bytes\": %d, "
        "\"cuda_runtime\": %d, \"cuda_driver\": %d},\n"
        "  \"method\": {\"problem\": \"n x n x n or m x n x k, column-major NN, alpha 1, beta 0\", "
        "\"max_reps\": "
        "%d, \"budget_s\": %g, \"statistic\": \"median\", \"l2_flush_bytes\": %zu},\n"
        "  \"results\": [",
        json_str(gk_version()).c_str(), json_str(stamp).c_str(), json_str(b.prop.name).c_str(),
        b.sm, b.sms, b.l2, runtime, driver, opt.reps, opt.budget, b.flush.bytes);
    bool failed = false;
    for (size_t i = 0; i < b.results.size(); i++) {
        const result &r = b.results[i];
        failed |= r.check.compare(0, 4, "FAIL") == 0 || r.check.compare(0, 5, "ERROR") == 0;
        fprintf(csv, "\"%s\",%s,%s,%s,%d,%s,%s,%s,%s,%s,%s,%s,\"%s\",%s,%s,%lld,%lld,%lld\n",
                b.prop.name, r.sh.label.c_str(), r.name.c_str(), KIND_NAMES[r.k], r.reps,
                fmt(r.ms, "%.4f").c_str(), fmt(r.ms_min, "%.4f").c_str(),
                fmt(r.tflops, "%.3f").c_str(), fmt(r.pct, "%.1f").c_str(),
                fmt(r.mhz, "%.0f").c_str(), fmt(r.watts, "%.1f").c_str(), r.throttle.c_str(),
                r.check.c_str(), fmt(r.worst, "%.3g").c_str(), fmt(r.tflops_per_w, "%.4f").c_str(),
                (long long)r.sh.m, (long long)r.sh.n, (long long)r.sh.k);
        fprintf(js,
                "%s\n    {\"size\": %s, \"m\": %lld, \"n\": %lld, \"k\": %lld, "
                "\"variant\": %s, \"kind\": %s, \"reps\": %d, "
                "\"ms_median\": %s, \"ms_min\": %s, \"tflops\": %s, \"pct_cublas\": %s, "
                "\"sm_mhz\": %s, \"power_w\": %s, \"tflops_per_w\": %s, \"throttle\": %s, "
                "\"check\": %s, \"worst_err_ratio\": %s}",
                i ? "," : "", r.sh.square() ? r.sh.label.c_str() : json_str(r.sh.label).c_str(),
                (long long)r.sh.m, (long long)r.sh.n, (long long)r.sh.k, json_str(r.name).c_str(),
                json_str(KIND_NAMES[r.k]).c_str(), r.reps, json_num(r.ms, "%.4f").c_str(),
                json_num(r.ms_min, "%.4f").c_str(), json_num(r.tflops, "%.3f").c_str(),
                json_num(r.pct, "%.1f").c_str(), json_num(r.mhz, "%.0f").c_str(),
                json_num(r.watts, "%.1f").c_str(), json_num(r.tflops_per_w, "%.4f").c_str(),
                json_str(r.throttle).c_str(), json_str(r.check).c_str(),
                json_num(r.worst, "%.3g").c_str());
    }
    fprintf(js, "\n  ]\n}\n");
    fclose(csv);
    fclose(js);
    fprintf(stderr, "gemmkit ladder: wrote %s and %s\n", csv_path.c_str(), json_path.c_str());

    if (opt.plot) {
        struct stat st;
        if (stat("bench/plot_gpu.py", &st) == 0) {
            const char *py = getenv("GK_PYTHON") ? getenv("GK_PYTHON") : "python3";
            std::string cmd =
                std::string(py) + " bench/plot_gpu.py '" + csv_path + "' --out '" + out + "' 1>&2";
            if (system(cmd.c_str()) != 0) fprintf(stderr, "gemmkit ladder: plotting failed\n");
        } else {
            fprintf(stderr, "gemmkit ladder: bench/plot_gpu.py not found (run from the source "
                            "tree to get plots)\n");
        }
    }

    printf("%s, sm_%d, %d SMs; SGEMM (n: n x n x n; MxNxK), median of timed runs, L2 flushed\n",
           b.prop.name, b.sm, b.sms);
    printf("%14s  %-26s %10s %8s %8s %6s %6s %7s  %s\n", "size", "kernel", "ms", "TFLOPS",
           "%cuBLAS", "MHz", "W", "TFLOP/J", "check");
    for (const auto &r : b.results)
        printf("%14s  %-26s %10s %8s %8s %6s %6s %7s  %s%s%s\n", r.sh.label.c_str(), r.name.c_str(),
               fmt(r.ms, "%.3f").c_str(), fmt(r.tflops, "%.2f").c_str(), fmt(r.pct, "%.1f").c_str(),
               fmt(r.mhz, "%.0f").c_str(), fmt(r.watts, "%.0f").c_str(),
               fmt(r.tflops_per_w, "%.3f").c_str(), r.check.c_str(),
               r.throttle.empty() || r.throttle == "none" ? "" : "  throttle: ",
               r.throttle == "none" ? "" : r.throttle.c_str());
    return failed ? 1 : 0;
}
