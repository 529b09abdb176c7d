/*
 * tc_plans.cu — `gk-tc-plans`, a developer probe (built by `make probes` when the CUDA backend is,
 * bench/bench.mk): times every plan of the sm_90a kernel (src/cuda/hopper/sm90_plan.h: swapped or
 * not, split-K or whole tiles, each tile width) on BF16 shapes of models, against the launcher's
 * own choice with and without batch invariance and against cuBLAS, to settle the plan rules.
 * It also times the launcher's choice back to back (100 calls between two events), which shows
 * how much of a single call's time is the host's.
 *
 * Each shape is C = A W^T, row-major (the kernel problem m = M, n = N, both operands K-major,
 * the batch on m). Operands random in [-1, 1), C in BF16, alpha 1, beta 0. Each variant: one run
 * checked against cuBLAS (max |C - C_cublas| / max |C_cublas|), then `reps` runs with the L2
 * flushed before each (outside the events); median in microseconds.
 *
 *   make probes && build/bin/gk-tc-plans [reps] [MxNxK ...]     (default 15 reps, a built-in list)
 */
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cuda/hopper/hopper.h"

namespace {

__global__ void fill(__nv_bfloat16 *x, int64_t n, uint32_t seed) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        uint32_t h = (uint32_t)i * 2654435761u ^ seed;
        h ^= h >> 16, h *= 0x7feb352du, h ^= h >> 15, h *= 0x846ca68bu, h ^= h >> 16;
        x[i] = __float2bfloat16_rn((float)(h >> 8) * (1.0f / 8388608.0f) - 1.0f);
    }
}

struct shape {
    int64_t m, n, k;
};

void *g_flush;
const size_t FLUSH = 256u << 20;

/* median microseconds of reps runs of f, L2 flushed before each */
template <class F> double time_us(int reps, F &&f) {
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0), cudaEventCreate(&e1);
    std::vector<float> t;
    for (int i = 0; i < reps + 2; ++i) {
        cudaMemsetAsync(g_flush, i, FLUSH);
        cudaEventRecord(e0);
        if (!f()) return NAN;
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms;
        cudaEventElapsedTime(&ms, e0, e1);
        if (i >= 2) t.push_back(ms);
    }
    cudaEventDestroy(e0), cudaEventDestroy(e1);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2] * 1e3;
}

double max_rel(const __nv_bfloat16 *c, const std::vector<float> &ref, size_t n) {
    std::vector<__nv_bfloat16> h(n);
    cudaMemcpy(h.data(), c, n * 2, cudaMemcpyDeviceToHost);
    double e = 0, mag = 0;
    for (size_t i = 0; i < n; ++i) {
        e = std::max(e, (double)std::fabs(__bfloat162float(h[i]) - ref[i]));
        mag = std::max(mag, (double)std::fabs(ref[i]));
    }
    return mag > 0 ? e / mag : e;
}

} // namespace

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 15;
    std::vector<shape> shapes;
    for (int i = 2; i < argc; ++i) {
        shape s;
        if (sscanf(argv[i], "%ldx%ldx%ld", &s.m, &s.n, &s.k) == 3) shapes.push_back(s);
    }
    if (shapes.empty())
        shapes = {{1, 4096, 4096},    {64, 4096, 4096},   {128, 4096, 4096}, {128, 6144, 4096},
                  {256, 4096, 4096},  {64, 2112, 7168},   {1, 5120, 27648},  {1024, 1024, 1024},
                  {2048, 2048, 2048}, {4096, 4096, 4096}, {2048, 7168, 5120}};
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    printf("gk-tc-plans: %s, %d SMs, %d reps, BF16 C = A W^T row-major, C bf16; times in us\n",
           prop.name, prop.multiProcessorCount, reps);
    cudaMalloc(&g_flush, FLUSH);
    cublasHandle_t h;
    cublasCreate(&h);
    for (const shape &s : shapes) {
        __nv_bfloat16 *a, *w, *c, *cr;
        cudaMalloc(&a, s.m * s.k * 2), cudaMalloc(&w, s.n * s.k * 2);
        cudaMalloc(&c, s.m * s.n * 2), cudaMalloc(&cr, s.m * s.n * 2);
        fill<<<1024, 256>>>(a, s.m * s.k, 1u);
        fill<<<1024, 256>>>(w, s.n * s.k, 2u);
        const float one = 1.0f, zero = 0.0f;
        /* cuBLAS, column-major: C^T (n x m) = W (n x k, stored k x n transposed) * A^T */
        auto cublas = [&] {
            return cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, (int)s.n, (int)s.m, (int)s.k, &one, w,
                                CUDA_R_16BF, (int)s.k, a, CUDA_R_16BF, (int)s.k, &zero, cr,
                                CUDA_R_16BF, (int)s.n, CUBLAS_COMPUTE_32F,
                                CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS;
        };
        cublas();
        cudaDeviceSynchronize();
        std::vector<float> ref(s.m * s.n);
        {
            std::vector<__nv_bfloat16> t(s.m * s.n);
            cudaMemcpy(t.data(), cr, t.size() * 2, cudaMemcpyDeviceToHost);
            for (size_t i = 0; i < t.size(); ++i)
                ref[i] = __bfloat162float(t[i]);
        }
        const double t_cublas = time_us(reps, cublas);
        printf("\n%ldx%ldx%ld  cublas %.1f\n", s.m, s.n, s.k, t_cublas);

        gk_tc_problem p;
        p.m = s.m, p.n = s.n, p.k = s.k;
        p.ta = p.tb = GK_BF16, p.tc = GK_BF16;
        p.a = a, p.lda = s.k, p.a_mn_major = 0;
        p.b = w, p.ldb = s.k, p.b_mn_major = 0;
        p.c = c, p.ldc = s.n, p.alpha = 1.0f, p.beta = 0.0f;
        p.scale_a = p.scale_b = nullptr, p.fp8_fast_accum = 0, p.k_lo = 0;
        gk_launch_env env = {0, 90, prop.multiProcessorCount, nullptr};
        void *ws = nullptr;
        size_t ws_have = 0;
        auto run = [&](gk_tc_problem q, const char *label) {
            size_t need = 0;
            if (gk_hopper_workspace(q, env, &need) != cudaSuccess) return;
            if (need > ws_have) cudaFree(ws), cudaMalloc(&ws, need), ws_have = need;
            gk_launch_env e = env;
            e.scratch = need ? ws : nullptr;
            char plan[64] = "";
            gk_hopper_describe(q, e, plan, sizeof plan);
            cudaMemset(c, 0xff, s.m * s.n * 2);
            if (gk_hopper_gemm(q, e) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
                cudaGetLastError();
                return;
            }
            const double err = max_rel(c, ref, s.m * s.n);
            const double t = time_us(reps, [&] { return gk_hopper_gemm(q, e) == cudaSuccess; });
            printf("  %-22s %-28s %8.1f  x%.3f  err %.1e\n", label, plan, t, t_cublas / t, err);
        };
        run(p, "auto");
        {
            gk_tc_problem q = p;
            q.batch_variant = 1;
            run(q, "auto noinv");
        }
        for (int swap = 0; swap < 2; ++swap)
            for (int split = 0; split < 2; ++split)
                for (int wdt : {32, 64, 128, 192, 256}) {
                    gk_tc_problem q = p;
                    q.swap = swap, q.split = split, q.tile_n = wdt;
                    char label[48];
                    snprintf(label, sizeof label, "swap%d split%d w%d", swap, split, wdt);
                    run(q, label);
                }
        /* back to back: the launcher's choice, 100 calls between two events */
        {
            size_t need = 0;
            gk_hopper_workspace(p, env, &need);
            if (need > ws_have) cudaFree(ws), cudaMalloc(&ws, need), ws_have = need;
            gk_launch_env e = env;
            e.scratch = need ? ws : nullptr;
            const double t100 = time_us(3, [&] {
                for (int i = 0; i < 100; ++i)
                    if (gk_hopper_gemm(p, e) != cudaSuccess) return false;
                return true;
            });
            const double c100 = time_us(3, [&] {
                for (int i = 0; i < 100; ++i)
                    if (!cublas()) return false;
                return true;
            });
            printf("  back to back, per call: gemmkit %.1f, cublas %.1f\n", t100 / 100, c100 / 100);
        }
        cudaFree(a), cudaFree(w), cudaFree(c), cudaFree(cr);
    }
    return 0;
}
