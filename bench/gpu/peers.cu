/*
 * peers.cu — cuBLAS, cuBLASLt and NVML loaded with dlopen for the GPU benchmarks (see peers.h).
 * Failures are reported as text and never stop a benchmark: without cuBLAS the peer columns are
 * empty, without NVML the clock and power columns are.
 */
#include "peers.h"

#include <chrono>
#include <dlfcn.h>
#include <mutex>
#include <stdlib.h>
#include <string.h>

/* Look for a library under its versioned names, then under the CUDA toolkit's lib64. */
static void *open_lib(const char *const *names, std::string &tried) {
    const char *home = getenv("CUDA_HOME");
    for (int pass = 0; pass < 2; pass++)
        for (const char *const *n = names; *n; n++) {
            std::string path = *n;
            if (pass == 1) path = std::string(home ? home : "/usr/local/cuda") + "/lib64/" + *n;
            if (void *h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
            tried += (tried.empty() ? "" : ", ") + path;
        }
    return nullptr;
}

template <typename F> static bool sym(void *lib, const char *name, F &out, std::string &why) {
    out = reinterpret_cast<F>(dlsym(lib, name));
    if (!out) why = std::string("symbol ") + name + " missing";
    return out != nullptr;
}

bool gk_cublas::load() {
    static const char *const names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so",
                                        nullptr};
    std::string tried;
    lib_ = open_lib(names, tried);
    if (!lib_) {
        why_ = "cuBLAS not found (tried " + tried + ")";
        return false;
    }
    if (!sym(lib_, "cublasCreate_v2", create_, why_) ||
        !sym(lib_, "cublasDestroy_v2", destroy_, why_) ||
        !sym(lib_, "cublasSetStream_v2", set_stream_, why_) ||
        !sym(lib_, "cublasSetMathMode", set_math_, why_) ||
        !sym(lib_, "cublasSgemm_v2", sgemm_, why_))
        return false;
    std::string optional;
    sym(lib_, "cublasSgemmStridedBatched", sgemm_sb_, optional);
    int st = create_(&handle_);
    if (st != 0) {
        why_ = "cublasCreate failed with status " + std::to_string(st);
        handle_ = nullptr;
        return false;
    }
    set_stream_(handle_, nullptr);
    return true;
}

bool gk_cublas::sgemm(mode m, int n, const float *a, const float *b, float *c) {
    return sgemm(m, n, n, n, a, b, c);
}

bool gk_cublas::sgemm(mode md, int m, int n, int k, const float *a, const float *b, float *c) {
    const float one = 1.0f, zero = 0.0f;
    if (!handle_ || set_math_(handle_, (int)md) != 0) return false;
    return sgemm_(handle_, 0 /* CUBLAS_OP_N */, 0, m, n, k, &one, a, m, b, k, &zero, c, m) == 0;
}

bool gk_cublas::sgemm_strided_batched(int m, int n, int k, const float *a, const float *b, float *c,
                                      int batch) {
    const float one = 1.0f, zero = 0.0f;
    if (!handle_ || !sgemm_sb_ || set_math_(handle_, (int)FP32) != 0) return false;
    return sgemm_sb_(handle_, 0, 0, m, n, k, &one, a, m, (long long)m * k, b, k, (long long)k * n,
                     &zero, c, m, (long long)m * n, batch) == 0;
}

gk_cublas::~gk_cublas() {
    if (handle_) destroy_(handle_);
    /* the library stays loaded: its static destructors may still run at exit */
}

/* cuBLASLt's logger (cublasLt.h: cublasLtLoggerSetCallback, cublasLtLoggerSetMask; mask 1 is
 * "Errors") calls a plain function, so its messages collect in this process-wide buffer: the
 * benchmark plans and runs one cuBLASLt call at a time and reads the buffer right after it. */
static std::mutex lt_log_mutex;
static std::string lt_log_text;

static void lt_log(int level, const char *function, const char *message) {
    (void)level;
    std::lock_guard<std::mutex> lock(lt_log_mutex);
    if (lt_log_text.size() < 1000)
        lt_log_text += std::string(lt_log_text.empty() ? "" : " | ") + (function ? function : "") +
                       ": " + (message ? message : "");
}

/* The messages logged since the last call, as " (cuBLASLt: ...)", or "" when none. */
static std::string lt_log_take() {
    std::lock_guard<std::mutex> lock(lt_log_mutex);
    std::string s = lt_log_text.empty() ? "" : " (cuBLASLt: " + lt_log_text + ")";
    lt_log_text.clear();
    return s;
}

bool gk_cublaslt::load() {
    static const char *const names[] = {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so",
                                        nullptr};
    std::string tried;
    lib_ = open_lib(names, tried);
    if (!lib_) {
        why_ = "cuBLASLt not found (tried " + tried + ")";
        return false;
    }
    if (!sym(lib_, "cublasLtCreate", create_, why_) ||
        !sym(lib_, "cublasLtDestroy", destroy_, why_) ||
        !sym(lib_, "cublasLtMatmulDescCreate", desc_create_, why_) ||
        !sym(lib_, "cublasLtMatmulDescDestroy", desc_destroy_, why_) ||
        !sym(lib_, "cublasLtMatmulDescSetAttribute", desc_set_, why_) ||
        !sym(lib_, "cublasLtMatrixLayoutCreate", layout_create_, why_) ||
        !sym(lib_, "cublasLtMatrixLayoutDestroy", layout_destroy_, why_) ||
        !sym(lib_, "cublasLtMatmulPreferenceCreate", pref_create_, why_) ||
        !sym(lib_, "cublasLtMatmulPreferenceDestroy", pref_destroy_, why_) ||
        !sym(lib_, "cublasLtMatmulPreferenceSetAttribute", pref_set_, why_) ||
        !sym(lib_, "cublasLtMatmulAlgoGetHeuristic", heuristic_, why_) ||
        !sym(lib_, "cublasLtMatmul", matmul_, why_))
        return false;
    /* the caller's CUBLASLT_LOG_LEVEL / CUBLASLT_LOG_MASK take precedence over the callback */
    int (*set_callback)(void (*)(int, const char *, const char *)) = nullptr;
    int (*set_mask)(int) = nullptr;
    std::string ignored;
    if (!getenv("CUBLASLT_LOG_LEVEL") && !getenv("CUBLASLT_LOG_MASK") &&
        sym(lib_, "cublasLtLoggerSetCallback", set_callback, ignored) &&
        sym(lib_, "cublasLtLoggerSetMask", set_mask, ignored) && set_callback(lt_log) == 0)
        set_mask(1);
    int st = create_(&handle_);
    if (st != 0) {
        why_ = "cublasLtCreate failed with status " + std::to_string(st);
        handle_ = nullptr;
        return false;
    }
    /* 32 MiB: what the cuBLAS documentation recommends for Hopper, so no algorithm is excluded
     * for want of workspace. */
    workspace_bytes_ = (size_t)32 << 20;
    if (cudaMalloc(&workspace_, workspace_bytes_) != cudaSuccess) {
        (void)cudaGetLastError();
        why_ = "cannot allocate cuBLASLt's workspace";
        workspace_ = nullptr;
        return false;
    }
    return true;
}

bool gk_cublaslt::attr(int which, const void *v, size_t n) {
    const int st = desc_set_(desc_, which, v, n);
    if (st != 0)
        why_ = "cublasLtMatmulDescSetAttribute(" + std::to_string(which) + ") failed with status " +
               std::to_string(st) + lt_log_take();
    return st == 0;
}

void gk_cublaslt::release_plan() {
    if (layout_a_) layout_destroy_(layout_a_);
    if (layout_b_) layout_destroy_(layout_b_);
    if (layout_c_) layout_destroy_(layout_c_);
    if (desc_) desc_destroy_(desc_);
    desc_ = layout_a_ = layout_b_ = layout_c_ = nullptr;
}

bool gk_cublaslt::describe() {
    release_plan();
    const problem &p = p_;
    /* cublasLtMatmulDescAttributes_t (cublasLt.h): TRANSA 3, TRANSB 4 (int32_t), A_SCALE_POINTER
     * 17, B_SCALE_POINTER 18 (const void *), FAST_ACCUM 25 (int8_t), A_SCALE_MODE 31,
     * B_SCALE_MODE 32 (int32_t). Scale type CUDA_R_32F: alpha and beta are floats. */
    int st = desc_create_(&desc_, p.compute, R_32F);
    if (st != 0) {
        why_ = "cublasLtMatmulDescCreate failed with status " + std::to_string(st) + lt_log_take();
        desc_ = nullptr;
        return false;
    }
    const int32_t ta = p.trans_a, tb = p.trans_b;
    if (!attr(3, &ta, sizeof ta) || !attr(4, &tb, sizeof tb)) return false;
    if (p.scale_a && !attr(17, &p.scale_a, sizeof p.scale_a)) return false;
    if (p.scale_b && !attr(18, &p.scale_b, sizeof p.scale_b)) return false;
    const int32_t mode_a = p.scale_mode_a, mode_b = p.scale_mode_b;
    if (mode_a != SCALE_SCALAR && !attr(31, &mode_a, sizeof mode_a)) return false;
    if (mode_b != SCALE_SCALAR && !attr(32, &mode_b, sizeof mode_b)) return false;
    const int8_t fast = (int8_t)p.fast_accum;
    if (p.fast_accum && !attr(25, &fast, sizeof fast)) return false;
    /* Stored shapes, column-major (CUBLASLT_ORDER_COL, the default): op(A) is m x k. */
    const uint64_t ar = p.trans_a ? p.k : p.m, ac = p.trans_a ? p.m : p.k;
    const uint64_t br = p.trans_b ? p.n : p.k, bc = p.trans_b ? p.k : p.n;
    if ((st = layout_create_(&layout_a_, p.type_a, ar, ac, p.lda)) != 0 ||
        (st = layout_create_(&layout_b_, p.type_b, br, bc, p.ldb)) != 0 ||
        (st = layout_create_(&layout_c_, p.type_c, (uint64_t)p.m, (uint64_t)p.n, p.ldc)) != 0) {
        why_ =
            "cublasLtMatrixLayoutCreate failed with status " + std::to_string(st) + lt_log_take();
        return false;
    }
    return true;
}

int gk_cublaslt::matmul() {
    return matmul_(handle_, desc_, &p_.alpha, p_.a, layout_a_, p_.b, layout_b_, &p_.beta, p_.c,
                   layout_c_, p_.c, layout_c_, algo_, workspace_, workspace_bytes_, nullptr);
}

bool gk_cublaslt::plan(const problem &p) {
    release_plan();
    note_.clear();
    if (!handle_) return false;
    (void)lt_log_take();
    p_ = p;
    if (!describe()) return false;
    void *pref = nullptr;
    int st = pref_create_(&pref);
    if (st != 0) {
        why_ = "cublasLtMatmulPreferenceCreate failed with status " + std::to_string(st);
        return false;
    }
    /* CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1 (uint64_t) */
    const uint64_t ws = workspace_bytes_;
    pref_set_(pref, 1, &ws, sizeof ws);
    /* cublasLtMatmulHeuristicResult_t: the algorithm (8 x uint64_t), workspaceSize (size_t),
     * state (cublasStatus_t), wavesCount (float), reserved[4] (int) */
    struct {
        uint64_t algo[8];
        size_t workspace;
        int state;
        float waves;
        int reserved[4];
    } results[MAX_ALGOS] = {};
    int found = 0;
    st = heuristic_(handle_, desc_, layout_a_, layout_b_, layout_c_, layout_c_, pref, MAX_ALGOS,
                    results, &found);
    pref_destroy_(pref);
    if (st != 0 || found < 1) { /* 15, CUBLAS_STATUS_NOT_SUPPORTED: no algorithm at all */
        why_ = "cuBLASLt has no algorithm for this problem (heuristic status " +
               std::to_string(st) + ")" + lt_log_take();
        return false;
    }
    std::string refused;
    for (int i = 0; i < found; i++) {
        if (results[i].state != 0) continue;
        memcpy(algo_, results[i].algo, sizeof algo_);
        st = matmul();
        const cudaError_t ce = cudaDeviceSynchronize();
        if (ce != cudaSuccess) {
            why_ = std::string("cublasLtMatmul's trial run failed: ") + cudaGetErrorString(ce);
            return false;
        }
        if (st == 0) {
            note_ = "heuristic algorithm " + std::to_string(i + 1) + " of " + std::to_string(found);
            (void)lt_log_take();
            return true;
        }
        /* cuBLASLt's reason is given once, with the first refusal */
        const std::string log = lt_log_take();
        refused += std::string(refused.empty() ? "" : "; ") + "algorithm " + std::to_string(i + 1) +
                   "/" + std::to_string(found) + ": status " + std::to_string(st) +
                   (refused.empty() ? log : "");
    }
    release_plan();
    why_ = "cublasLtMatmul refused every algorithm the heuristic offered (" + refused +
           "; CUBLASLT_LOG_LEVEL=2 prints cuBLASLt's reasons)";
    return false;
}

bool gk_cublaslt::run() {
    if (!desc_) return false;
    const int st = matmul();
    if (st != 0)
        why_ = "cublasLtMatmul failed with status " + std::to_string(st) + lt_log_take() +
               " (CUBLASLT_LOG_LEVEL=2 prints cuBLASLt's reason)";
    return st == 0;
}

gk_cublaslt::~gk_cublaslt() {
    if (lib_) release_plan();
    if (handle_) destroy_(handle_);
    cudaFree(workspace_);
}

bool gk_nvml_sampler::load(int cuda_device) {
    static const char *const names[] = {"libnvidia-ml.so.1", "libnvidia-ml.so", nullptr};
    std::string tried;
    lib_ = open_lib(names, tried);
    if (!lib_) {
        why_ = "NVML not found (tried " + tried + ")";
        return false;
    }
    int (*init)(void) = nullptr;
    int (*by_bus)(const char *, void **) = nullptr;
    int (*by_index)(unsigned, void **) = nullptr;
    if (!sym(lib_, "nvmlInit_v2", init, why_) || !sym(lib_, "nvmlShutdown", shutdown_, why_) ||
        !sym(lib_, "nvmlDeviceGetClockInfo", clock_, why_) ||
        !sym(lib_, "nvmlDeviceGetPowerUsage", power_, why_) ||
        !sym(lib_, "nvmlDeviceGetHandleByIndex_v2", by_index, why_))
        return false;
    /* the reasons call was renamed "clocks event reasons" in newer drivers; either will do */
    std::string ignored;
    if (!sym(lib_, "nvmlDeviceGetCurrentClocksThrottleReasons", reasons_, ignored))
        sym(lib_, "nvmlDeviceGetCurrentClocksEventReasons", reasons_, ignored);
    if (init() != 0) {
        why_ = "nvmlInit failed";
        shutdown_ = nullptr;
        return false;
    }
    /* NVML numbers devices by PCI order, CUDA by speed (and CUDA_VISIBLE_DEVICES): match by bus
     * id, and fall back to the index only when the bus-id lookup is unavailable. */
    char bus[32];
    std::string unused;
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, cuda_device) == cudaSuccess &&
        sym(lib_, "nvmlDeviceGetHandleByPciBusId_v2", by_bus, unused) && by_bus(bus, &dev_) == 0)
        return true;
    if (by_index((unsigned)cuda_device, &dev_) == 0) return true;
    why_ = "NVML cannot find CUDA device " + std::to_string(cuda_device);
    dev_ = nullptr;
    return false;
}

void gk_nvml_sampler::sample() {
    unsigned mhz = 0, mw = 0;
    unsigned long long r = 0;
    if (clock_(dev_, 1 /* NVML_CLOCK_SM */, &mhz) == 0 && power_(dev_, &mw) == 0) {
        mhz_sum_ += mhz, mw_sum_ += mw, n_++;
    }
    if (reasons_ && reasons_(dev_, &r) == 0) reasons_seen_ |= r;
}

void gk_nvml_sampler::loop() {
    while (running_.load(std::memory_order_relaxed)) {
        sample();
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

void gk_nvml_sampler::start() {
    mhz_sum_ = mw_sum_ = 0, n_ = 0, reasons_seen_ = 0;
    if (!dev_) return;
    running_ = true;
    thread_ = std::thread(&gk_nvml_sampler::loop, this);
}

void gk_nvml_sampler::stop() {
    if (!thread_.joinable()) return;
    running_ = false;
    thread_.join();
    /* an interval shorter than the thread's start-up still gets the reading at its end */
    if (n_ == 0) sample();
}

std::string gk_nvml_sampler::throttle_names(bool known, unsigned long long mask) {
    if (!known) return "";
    static const struct {
        unsigned long long bit;
        const char *name;
    } names[] = {{0x2, "app_clocks"},   {0x4, "sw_power_cap"}, {0x8, "hw_slowdown"},
                 {0x10, "sync_boost"},  {0x20, "sw_thermal"},  {0x40, "hw_thermal"},
                 {0x80, "power_brake"}, {0x100, "display"}};
    std::string s;
    for (const auto &n : names)
        if (mask & n.bit) s += (s.empty() ? "" : "+") + std::string(n.name);
    return s.empty() ? "none" : s;
}

gk_nvml_sampler::~gk_nvml_sampler() {
    stop();
    if (shutdown_) shutdown_();
}
