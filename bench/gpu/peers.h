/*
 * peers.h — what the ladder harness measures besides gemmkit: cuBLAS SGEMM (loaded at run time
 * with dlopen, so the CLI links and runs without cuBLAS) and the GPU's clock, power and throttle
 * state from NVML (also dlopen'ed), sampled by a background thread during each measurement.
 * Only the few entry points needed are declared by hand; no cuBLAS or NVML header is required.
 */
#ifndef GK_BENCH_GPU_PEERS_H
#define GK_BENCH_GPU_PEERS_H

#include <atomic>
#include <string>
#include <thread>

#include <cuda_runtime.h>

/* cuBLAS SGEMM in one math mode: FP32 (CUBLAS_DEFAULT_MATH: no TF32 since CUDA 11) or
 * TF32 tensor cores (CUBLAS_TF32_TENSOR_OP_MATH). */
class gk_cublas {
  public:
    enum mode { FP32 = 0, TF32 = 3 }; /* cublasMath_t values */
    /* false with why() set when the library or a symbol is missing or the handle fails */
    bool load();
    const std::string &why() const { return why_; }
    /* column-major C (n x n) = A B, alpha 1, beta 0, on the legacy default stream */
    bool sgemm(mode m, int n, const float *a, const float *b, float *c);
    ~gk_cublas();

  private:
    void *lib_ = nullptr;
    void *handle_ = nullptr;
    int (*create_)(void **) = nullptr;
    int (*destroy_)(void *) = nullptr;
    int (*set_stream_)(void *, cudaStream_t) = nullptr;
    int (*set_math_)(void *, int) = nullptr;
    int (*sgemm_)(void *, int, int, int, int, int, const float *, const float *, int, const float *,
                  int, const float *, float *, int) = nullptr;
    std::string why_;
};

/* Mean SM clock, mean board power and the union of throttle reasons over an interval. */
class gk_nvml_sampler {
  public:
    /* false with why() set when NVML is missing or the device cannot be found */
    bool load(int cuda_device);
    const std::string &why() const { return why_; }
    void start();
    void stop();
    int samples() const { return n_; }
    double mean_mhz() const { return n_ ? mhz_sum_ / n_ : 0.0; }
    double mean_watts() const { return n_ ? mw_sum_ / n_ / 1000.0 : 0.0; }
    /* reasons other than "GPU idle", as "none" or names joined by '+' */
    std::string throttle() const;
    ~gk_nvml_sampler();

  private:
    void loop();
    void *lib_ = nullptr;
    void *dev_ = nullptr;
    int (*clock_)(void *, int, unsigned *) = nullptr;
    int (*power_)(void *, unsigned *) = nullptr;
    int (*reasons_)(void *, unsigned long long *) = nullptr;
    int (*shutdown_)(void) = nullptr;
    std::thread thread_;
    std::atomic<bool> running_{false};
    double mhz_sum_ = 0, mw_sum_ = 0;
    long n_ = 0;
    unsigned long long reasons_seen_ = 0;
    std::string why_;
};

#endif
