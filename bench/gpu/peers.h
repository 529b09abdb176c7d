/*
 * peers.h — what the GPU benchmarks measure besides gemmkit: cuBLAS SGEMM for the ladder,
 * cuBLASLt matmul in every precision for the mixed-precision benchmark (both loaded at run time
 * with dlopen, so the CLI links and runs without them) and the GPU's clock, power and throttle
 * state from NVML (also dlopen'ed), sampled by a background thread during each measurement.
 * Only the few entry points needed are declared by hand; no cuBLAS or NVML header is required.
 */
#ifndef GK_BENCH_GPU_PEERS_H
#define GK_BENCH_GPU_PEERS_H

#include <atomic>
#include <stdint.h>
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
    /* the same for column-major C (m x n) = A (m x k) B (k x n), leading dimensions m, k, m */
    bool sgemm(mode md, int m, int n, int k, const float *a, const float *b, float *c);
    /* cublasSgemmStridedBatched, FP32 mode: `batch` column-major C_i (m x n) = A_i B_i, items of
     * A (m x k), B (k x n) and C stored contiguously one after another, on the legacy default
     * stream; false when this cuBLAS lacks it or the call fails */
    bool sgemm_strided_batched(int m, int n, int k, const float *a, const float *b, float *c,
                               int batch);
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
    int (*sgemm_sb_)(void *, int, int, int, int, int, const float *, const float *, int, long long,
                     const float *, int, long long, const float *, float *, int, long long,
                     int) = nullptr; /* optional: NULL when missing */
    std::string why_;
};

/* cuBLASLt matmul, column-major: D = alpha * scale_a * scale_b * op(A) op(B) + beta * C with C
 * and D the same buffer (FP8: per-tensor scales, or block scales on Hopper). One problem is
 * planned at a time (descriptors built, the heuristic's algorithms tried in order until one runs,
 * once), then run as often as needed, so timed runs measure the matmul alone, as cuBLAS's own
 * entry points do after their first call. Enum values are cuBLAS's (cublas_api.h, cublasLt.h,
 * library_types.h of CUDA 12 and 13), cited where they are used.
 *
 * cuBLASLt's reason for refusing a call goes to its logger, which is off unless the environment
 * sets CUBLASLT_LOG_LEVEL (2 or more prints the reason and the calls; 5 every API call) or
 * CUBLASLT_LOG_MASK; when neither is set, load() routes the logger's error messages into why(),
 * so a refused peer names cuBLASLt's reason in the benchmark's own output. */
class gk_cublaslt {
  public:
    /* cublasLtMatmulMatrixScale_t: how the scale pointers are read (CUBLASLT_MATMUL_DESC_A/B_
     * SCALE_MODE; cuBLAS 12.9+, Hopper for the two block modes) */
    enum scale_mode {
        SCALE_SCALAR = 0,     /* one float for the whole tensor */
        SCALE_VEC128 = 4,     /* a float per 128 elements along the inner dimension */
        SCALE_BLK128X128 = 5, /* a float per 128 x 128 block */
    };
    struct problem {
        int trans_a, trans_b; /* cublasOperation_t: 0 N, 1 T */
        int64_t m, n, k;
        int type_a, type_b, type_c; /* cudaDataType_t */
        int compute;                /* cublasComputeType_t */
        const void *a, *b;
        void *c;
        int64_t lda, ldb, ldc;
        float alpha, beta;
        /* FP8: device pointers to the scales (NULL: 1), read as scale_mode_a/b says */
        const float *scale_a, *scale_b;
        int scale_mode_a, scale_mode_b;
        int fast_accum; /* FP8: CUBLASLT_MATMUL_DESC_FAST_ACCUM */
    };
    /* cudaDataType_t values (library_types.h) and cublasComputeType_t values (cublas_api.h) */
    enum {
        R_32F = 0,      /* CUDA_R_32F */
        R_16F = 2,      /* CUDA_R_16F */
        R_16BF = 14,    /* CUDA_R_16BF */
        R_8F_E4M3 = 28, /* CUDA_R_8F_E4M3 */
        R_8F_E5M2 = 29, /* CUDA_R_8F_E5M2 */
        COMPUTE_32F =
            68, /* CUBLAS_COMPUTE_32F: float32 FMAs, or tensor cores for 16/8-bit inputs */
        COMPUTE_32F_FAST_TF32 = 77 /* CUBLAS_COMPUTE_32F_FAST_TF32 */
    };
    /* false with why() set when the library or a symbol is missing or the handle fails */
    bool load();
    const std::string &why() const { return why_; }
    /* Descriptors and algorithm for p: the heuristic's algorithms (up to MAX_ALGOS, best first)
     * are each run once, synchronously, until cublasLtMatmul accepts one (it may refuse an
     * algorithm the heuristic offered: CUBLAS_STATUS_NOT_SUPPORTED for pointers or attributes the
     * heuristic does not look at). Writes p.c. false with why() when cuBLASLt has no algorithm for
     * the combination (e.g. FP8 in any layout but TN) or refuses every one; a fault of the trial
     * run leaves the CUDA error pending for the caller. */
    bool plan(const problem &p);
    /* What plan() settled on: which algorithm of how many ("" before a successful plan). */
    const std::string &note() const { return note_; }
    /* The planned problem on the legacy default stream; false with why() on a failed call. */
    bool run();
    ~gk_cublaslt();

    enum { MAX_ALGOS = 8 };

  private:
    void release_plan();
    bool attr(int which, const void *v, size_t n);
    bool describe(); /* descriptors of p_ */
    int matmul();    /* cublasLtMatmul of p_ with algo_ */
    void *lib_ = nullptr, *handle_ = nullptr, *workspace_ = nullptr;
    size_t workspace_bytes_ = 0;
    void *desc_ = nullptr, *layout_a_ = nullptr, *layout_b_ = nullptr, *layout_c_ = nullptr;
    uint64_t algo_[8] = {}; /* cublasLtMatmulAlgo_t */
    problem p_ = {};
    std::string note_;
    int (*create_)(void **) = nullptr;
    int (*destroy_)(void *) = nullptr;
    int (*desc_create_)(void **, int, int) = nullptr;
    int (*desc_destroy_)(void *) = nullptr;
    int (*desc_set_)(void *, int, const void *, size_t) = nullptr;
    int (*layout_create_)(void **, int, uint64_t, uint64_t, int64_t) = nullptr;
    int (*layout_destroy_)(void *) = nullptr;
    int (*pref_create_)(void **) = nullptr;
    int (*pref_destroy_)(void *) = nullptr;
    int (*pref_set_)(void *, int, const void *, size_t) = nullptr;
    int (*heuristic_)(void *, void *, void *, void *, void *, void *, void *, int, void *,
                      int *) = nullptr;
    int (*matmul_)(void *, void *, const void *, const void *, void *, const void *, void *,
                   const void *, const void *, void *, void *, void *, const void *, void *, size_t,
                   cudaStream_t) = nullptr;
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
    /* reasons other than "GPU idle", as "none" or names joined by '+' ("" without NVML) */
    std::string throttle() const { return throttle_names(dev_ && reasons_, reasons_seen_); }
    unsigned long long reasons_seen() const { return reasons_seen_; }
    /* the reasons in a mask, as throttle() prints them ("" when !known) */
    static std::string throttle_names(bool known, unsigned long long mask);
    ~gk_nvml_sampler();

  private:
    void sample();
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

/* The readings of several sampled intervals of one measurement (its rounds), sample-weighted. */
struct gk_nvml_totals {
    double mhz_sum = 0, watts_sum = 0;
    long samples = 0;
    unsigned long long reasons = 0;
    bool known = false; /* a sampler with throttle reasons contributed */
    void add(const gk_nvml_sampler &s) {
        mhz_sum += s.mean_mhz() * s.samples(), watts_sum += s.mean_watts() * s.samples();
        samples += s.samples(), reasons |= s.reasons_seen();
        known = known || !s.throttle().empty();
    }
    double mean_mhz() const { return samples ? mhz_sum / samples : 0.0; }
    double mean_watts() const { return samples ? watts_sum / samples : 0.0; }
    std::string throttle() const { return gk_nvml_sampler::throttle_names(known, reasons); }
};

#endif
