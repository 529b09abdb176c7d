/*
 * peers.cu — cuBLAS and NVML loaded with dlopen for the ladder harness (see peers.h). Failures
 * are reported as text and never stop the harness: without cuBLAS the "% of cuBLAS" column is
 * empty, without NVML the clock and power columns are.
 */
#include "peers.h"

#include <chrono>
#include <dlfcn.h>
#include <stdlib.h>

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
    const float one = 1.0f, zero = 0.0f;
    if (!handle_ || set_math_(handle_, (int)m) != 0) return false;
    return sgemm_(handle_, 0 /* CUBLAS_OP_N */, 0, n, n, n, &one, a, n, b, n, &zero, c, n) == 0;
}

gk_cublas::~gk_cublas() {
    if (handle_) destroy_(handle_);
    /* the library stays loaded: its static destructors may still run at exit */
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

void gk_nvml_sampler::loop() {
    while (running_.load(std::memory_order_relaxed)) {
        unsigned mhz = 0, mw = 0;
        unsigned long long r = 0;
        if (clock_(dev_, 1 /* NVML_CLOCK_SM */, &mhz) == 0 && power_(dev_, &mw) == 0) {
            mhz_sum_ += mhz, mw_sum_ += mw, n_++;
        }
        if (reasons_ && reasons_(dev_, &r) == 0) reasons_seen_ |= r;
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
}

std::string gk_nvml_sampler::throttle() const {
    if (!dev_ || !reasons_) return "";
    static const struct {
        unsigned long long bit;
        const char *name;
    } names[] = {{0x2, "app_clocks"},   {0x4, "sw_power_cap"}, {0x8, "hw_slowdown"},
                 {0x10, "sync_boost"},  {0x20, "sw_thermal"},  {0x40, "hw_thermal"},
                 {0x80, "power_brake"}, {0x100, "display"}};
    std::string s;
    for (const auto &n : names)
        if (reasons_seen_ & n.bit) s += (s.empty() ? "" : "+") + std::string(n.name);
    return s.empty() ? "none" : s;
}

gk_nvml_sampler::~gk_nvml_sampler() {
    stop();
    if (shutdown_) shutdown_();
}
