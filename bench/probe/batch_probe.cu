/*
 * batch_probe.cu — `gk-batch-probe`, a developer probe (built by `make probes` when the CUDA
 * backend is, bench/bench.mk): times gemmkit's batched SGEMM launchers per forced choice against
 * cublasSgemmStridedBatched, to settle batched.cu's pick rule and check the small-item kernel. The
 * library's own batched.cu and batched_small.cu are compiled into this file, so their internal
 * config table, admits()/pick() and launchers are reachable; nothing else of the library is
 * linked. No other program forces a configuration (`gemmkit batched` times the library's own
 * choice), which is why this one is kept.
 *
 * Shapes: the issue's five, 128 x 96^3 (just past the small kernel), 2048 x 16^3, and 8 x 1024^3
 * (one wave of 128x256 tiles). Each shape is `batch` column-major NN
 * items stored back to back, alpha 1, beta 0 (as `gemmkit batched`), mapped onto the kernel
 * contract as src/cuda/api/sgemm_batched.cu does (C^T = B^T A^T). Variants: "auto"
 * (gk_gemm_batched: what the library runs), "small" (the small-item kernel, when the items fit), "cfgN" (tiled grid
 * with configs.h row N forced; N = 0..7), "cublas". Each variant: one checked run (max |C -
 * C_cublas| / max |C_cublas|), then `reps` timed calls with L2 flushed before each (2x L2 memset,
 * outside the events), median and min reported.
 *
 * Build and run (repository root, on the GPU machine):
 *   make probes && build/bin/gk-batch-probe [reps]          (default 20)
 * Results: bench/results/h100/batch_probe.txt.
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cuda/gemm/batched.cu"
#include "cuda/gemm/batched_small.cu"

namespace probe {

__global__ void fill(float *x, int64_t n, uint32_t seed) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        uint32_t h = (uint32_t)i * 2654435761u ^ seed * 40503u;
        h ^= h >> 15, h *= 2246822519u, h ^= h >> 13, h *= 3266489917u, h ^= h >> 16;
        x[i] = (float)(h >> 8) / 8388608.0f - 1.0f;
    }
}

struct Shape {
    int64_t batch, m, n, k;
};

float max_abs(const std::vector<float> &v) {
    float m = 0;
    for (float x : v)
        m = std::max(m, std::fabs(x));
    return m;
}

} // namespace probe

int main(int argc, char **argv) {
    using namespace probe;
    const int reps = argc > 1 ? atoi(argv[1]) : 20;
    const Shape shapes[] = {{1024, 32, 32, 32},   {512, 64, 64, 64},    {64, 256, 256, 256},
                            {256, 128, 128, 128}, {64, 512, 512, 512},  {128, 96, 96, 96},
                            {2048, 16, 16, 16},   {8, 1024, 1024, 1024}};
    int sm_count = 0, l2 = 0;
    cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0);
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0);
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    printf("# %s, %d SMs, L2 %d MB; reps %d, L2 flushed before each call; ratio = cublas/variant "
           "(above 1: faster than cuBLAS)\n",
           prop.name, sm_count, l2 >> 20, reps);
    const size_t flush_bytes = std::max((size_t)l2 * 2, (size_t)64 << 20);
    void *flush = nullptr;
    cublasHandle_t h;
    if (cudaMalloc(&flush, flush_bytes) != cudaSuccess ||
        cublasCreate(&h) != CUBLAS_STATUS_SUCCESS ||
        cublasSetMathMode(h, CUBLAS_DEFAULT_MATH) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "setup failed\n");
        return 1;
    }
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0), cudaEventCreate(&e1);
    int status = 0;
    for (const Shape &s : shapes) {
        const int64_t sa = s.m * s.k, sb = s.k * s.n, sc = s.m * s.n;
        float *a, *b, *c;
        if (cudaMalloc(&a, s.batch * sa * 4) || cudaMalloc(&b, s.batch * sb * 4) ||
            cudaMalloc(&c, s.batch * sc * 4)) {
            fprintf(stderr, "out of memory\n");
            return 1;
        }
        fill<<<1024, 256>>>(a, s.batch * sa, 1), fill<<<1024, 256>>>(b, s.batch * sb, 2);
        /* the kernel contract of src/cuda/api/sgemm_batched.cu:
         * C^T (n x m) = B^T (n x k) A^T (k x m) */
        gk_rm_problem p;
        p.m = s.n, p.n = s.m, p.k = s.k, p.alpha = 1.0f, p.beta = 0.0f;
        p.a = b, p.lda = s.k, p.b = a, p.ldb = s.m, p.c = c, p.ldc = s.m;
        const gk_batch_items<const float> ka = {b, sb, nullptr}, kb = {a, sa, nullptr};
        const gk_batch_items<float> kc = {c, sc, nullptr};
        const bool vec_b = p.n % 4 == 0 && gk_vec_ok(kb.base, p.ldb) && kb.stride % 4 == 0;
        const bool vec_c_ld = p.ldc % 4 == 0 && gk_vec_ok(kc.base, kc.stride);
        gk_launch_env env;
        env.stream = 0, env.sm = 90, env.sm_count = sm_count, env.scratch = nullptr;
        const Config &picked = pick(p, s.batch, sm_count);
        printf("\n%lld x %lldx%lldx%lld: auto runs %s", (long long)s.batch, (long long)s.m,
               (long long)s.n, (long long)s.k,
               gk_batched_small_fits(p) ? "small"
                                        : ("cfg" + std::to_string(&picked - configs)).c_str());
        if (!gk_batched_small_fits(p)) printf(" (%dx%d)", picked.bm, picked.bn);
        printf("\n%-8s %10s %10s %8s %12s\n", "variant", "median_us", "min_us", "ratio", "rel_err");

        std::vector<std::string> names = {"cublas", "auto"};
        if (gk_batched_small_fits(p)) names.push_back("small");
        for (int i = 0; i < (int)(sizeof configs / sizeof configs[0]); i++)
            names.push_back("cfg" + std::to_string(i));
        auto run = [&](const std::string &v) -> cudaError_t {
            if (v == "cublas") {
                const float one = 1.0f, zero = 0.0f;
                return cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)s.m, (int)s.n,
                                                 (int)s.k, &one, a, (int)s.m, sa, b, (int)s.k, sb,
                                                 &zero, c, (int)s.m, sc,
                                                 (int)s.batch) == CUBLAS_STATUS_SUCCESS
                           ? cudaSuccess
                           : cudaErrorUnknown;
            }
            if (v == "auto") return gk_gemm_batched(p, ka, kb, kc, s.batch, vec_b, vec_c_ld, env);
            if (v == "small") return gk_gemm_batched_small(p, ka, kb, kc, s.batch, 0);
            const Config &cfg = configs[atoi(v.c_str() + 3)];
            return cfg.launch(Launch{p, ka, kb, kc, s.batch, vec_b, vec_c_ld, 0}, cfg.group_m);
        };
        std::vector<float> ref((size_t)(s.batch * sc)), got(ref.size());
        double cublas_med = 0;
        for (const std::string &v : names) {
            cudaMemset(c, 0xff, s.batch * sc * 4); /* NaN: an unwritten item shows */
            cudaError_t err = run(v);
            if (err == cudaSuccess) err = cudaDeviceSynchronize();
            if (err != cudaSuccess) {
                printf("%-8s failed: %s\n", v.c_str(), cudaGetErrorString(err));
                status = 1;
                cudaGetLastError();
                continue;
            }
            cudaMemcpy(v == "cublas" ? ref.data() : got.data(), c, s.batch * sc * 4,
                       cudaMemcpyDeviceToHost);
            double rel = 0;
            if (v != "cublas") {
                float worst = 0;
                for (size_t i = 0; i < got.size(); i++) {
                    const float d = std::fabs(got[i] - ref[i]);
                    worst = std::isnan(d) ? INFINITY : std::max(worst, d);
                }
                rel = worst / max_abs(ref);
                if (!(rel < 1e-5)) status = 1;
            }
            std::vector<float> us;
            for (int r = 0; r < reps; r++) {
                cudaMemsetAsync(flush, r & 0xff, flush_bytes);
                cudaEventRecord(e0);
                run(v);
                cudaEventRecord(e1);
                cudaEventSynchronize(e1);
                float ms = 0;
                cudaEventElapsedTime(&ms, e0, e1);
                us.push_back(ms * 1000.0f);
            }
            std::sort(us.begin(), us.end());
            const double med = us[us.size() / 2];
            if (v == "cublas") cublas_med = med;
            printf("%-8s %10.2f %10.2f %8.3f %12.2e%s\n", v.c_str(), med, us[0], cublas_med / med,
                   rel, rel < 1e-5 ? "" : "  MISMATCH");
        }
        cudaFree(a), cudaFree(b), cudaFree(c);
    }
    cublasDestroy(h);
    cudaFree(flush);
    return status;
}
