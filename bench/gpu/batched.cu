/*
 * batched.cu — the batched SGEMM benchmark (batched.h, `gemmkit batched`): for each shape
 * (batch x m x n x k, column-major items stored one after another, alpha 1, beta 0) gemmkit's
 * gk_cuda_sgemm_strided_batched and cuBLAS's cublasSgemmStridedBatched (FP32, no TF32) run on
 * the same buffers in the same process. Method as the ladder's (ladder.cu, docs/cuda.md):
 * inputs from the harness's hash fill, the first and last items of each result checked against
 * the float64 reference with the tests' bound, then CUDA-event timings with L2 flushed before
 * each call, the two variants alternating over rounds; the median is reported, with TFLOPS and
 * gemmkit / cuBLAS (above 1: gemmkit faster).
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bench/gpu/batched.h"
#include "gemmkit.h"
#include "harness/gpu.h"
#include "harness/harness.h"
#include "peers.h"

namespace {

struct call {
    gk_cuda_ctx *ctx;
    gk_cublas *cublas;
    bool use_cublas;
    int64_t batch, m, n, k;
    const float *a, *b;
    float *c;
    bool ok = true;
};

void launch(void *arg) {
    call *c = static_cast<call *>(arg);
    if (c->use_cublas)
        c->ok = c->ok && c->cublas->sgemm_strided_batched((int)c->m, (int)c->n, (int)c->k, c->a,
                                                          c->b, c->c, (int)c->batch);
    else
        c->ok = c->ok && gk_cuda_sgemm_strided_batched(
                             c->ctx, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, c->m, c->n, c->k, 1.0f,
                             c->a, c->m, c->m * c->k, c->b, c->k, c->k * c->n, 0.0f, c->c, c->m,
                             c->m * c->n, c->batch) == GK_SUCCESS;
}

/* Items 0 and batch-1 of C against float64; "" or why not. */
std::string check(const call &c) {
    const int64_t sa = c.m * c.k, sb = c.k * c.n, sc = c.m * c.n;
    std::vector<float> a(sa), b(sb), r(sc);
    std::vector<double> ref(sc), scale(sc);
    for (int64_t item : {(int64_t)0, c.batch - 1}) {
        if (cudaMemcpy(a.data(), c.a + item * sa, sa * 4, cudaMemcpyDeviceToHost) ||
            cudaMemcpy(b.data(), c.b + item * sb, sb * 4, cudaMemcpyDeviceToHost) ||
            cudaMemcpy(r.data(), c.c + item * sc, sc * 4, cudaMemcpyDeviceToHost))
            return "copy back failed";
        gkh_ref_gemm(GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, c.m, c.n, c.k, 1.0f, a.data(), c.m,
                     b.data(), c.k, 0.0f, nullptr, c.m, ref.data(), scale.data());
        char msg[256];
        if (gkh_compare(GK_COL_MAJOR, c.m, c.n, r.data(), c.m, ref.data(), scale.data(), c.k, 0.0,
                        msg, sizeof msg) != 0)
            return "item " + std::to_string(item) + ": " + msg;
    }
    return "";
}

} // namespace

extern "C" void bench_batched_defaults(bench_batched_opts *o) {
    static const int64_t shapes[][4] = {
        {256, 128, 128, 128}, {64, 512, 512, 512}, {1024, 32, 32, 32},
        {64, 256, 256, 256},  {512, 64, 64, 64},
    };
    o->nshapes = 0;
    for (const auto &s : shapes) {
        for (int i = 0; i < 4; i++)
            o->shapes[o->nshapes][i] = s[i];
        o->nshapes++;
    }
    o->reps = 20;
    o->rounds = 3;
    o->device = 0;
}

extern "C" int bench_batched_run(const bench_batched_opts *o) {
    if (cudaSetDevice(o->device) != cudaSuccess) {
        fprintf(stderr, "gemmkit batched: no CUDA device %d\n", o->device);
        return 1;
    }
    gk_cuda_ctx *ctx = nullptr;
    if (gk_cuda_create(&ctx, o->device, nullptr) != GK_SUCCESS) {
        fprintf(stderr, "gemmkit batched: %s\n", gk_last_error());
        return 1;
    }
    gk_cublas cublas;
    const bool have_cublas = cublas.load();
    if (!have_cublas)
        fprintf(stderr, "gemmkit batched: no cuBLAS peer: %s\n", cublas.why().c_str());
    int l2 = 0;
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, o->device);
    gkh_l2_flush flush = {nullptr, 0};
    gkh_l2_flush_init(&flush, l2);
    printf("%8s %6s %6s %6s | %10s %8s | %10s %8s | %s\n", "batch", "m", "n", "k", "gemmkit_ms",
           "TFLOPS", "cublas_ms", "TFLOPS", "gemmkit/cublas");
    int status = 0;
    for (int s = 0; s < o->nshapes; s++) {
        call c{ctx,
               &cublas,
               false,
               o->shapes[s][0],
               o->shapes[s][1],
               o->shapes[s][2],
               o->shapes[s][3]};
        const int64_t na = c.batch * c.m * c.k, nb = c.batch * c.k * c.n, nc = c.batch * c.m * c.n;
        float *a = nullptr, *b = nullptr, *cc = nullptr;
        if (cudaMalloc(&a, na * 4) || cudaMalloc(&b, nb * 4) || cudaMalloc(&cc, nc * 4)) {
            fprintf(stderr, "gemmkit batched: out of device memory at shape %d\n", s);
            cudaFree(a), cudaFree(b), cudaFree(cc);
            status = 1;
            continue;
        }
        gkh_gpu_fill(a, na, 1 + s, 1024);
        gkh_gpu_fill(b, nb, 100 + s, 1024);
        c.a = a, c.b = b, c.c = cc;
        double med[2] = {NAN, NAN};
        std::string why[2];
        for (int v = 0; v < (have_cublas ? 2 : 1); v++) {
            c.use_cublas = v == 1, c.ok = true;
            cudaMemset(cc, 0xff, nc * 4); /* NaN: an item left unwritten fails the check */
            launch(&c);
            if (!c.ok || cudaDeviceSynchronize() != cudaSuccess)
                why[v] = v ? "cuBLAS call failed" : std::string(gk_last_error());
            else
                why[v] = check(c);
        }
        std::vector<float> ms[2];
        for (int round = 0; round < o->rounds; round++)
            for (int v = 0; v < (have_cublas ? 2 : 1); v++) {
                if (!why[v].empty()) continue;
                c.use_cublas = v == 1, c.ok = true;
                gkh_gpu_timer t;
                if (gkh_gpu_timer_create(&t, o->reps) != cudaSuccess) continue;
                if (gkh_gpu_timer_run(&t, &flush, launch, &c) == cudaSuccess && c.ok)
                    for (int i = 0; i < o->reps; i++)
                        ms[v].push_back(gkh_gpu_timer_ms(&t, i));
                gkh_gpu_timer_destroy(&t);
            }
        const double flops = 2.0 * c.batch * c.m * c.n * c.k;
        for (int v = 0; v < 2; v++)
            if (!ms[v].empty()) {
                std::sort(ms[v].begin(), ms[v].end());
                med[v] = ms[v][ms[v].size() / 2];
            }
        printf("%8lld %6lld %6lld %6lld | %10.4f %8.2f | %10.4f %8.2f | %.3f%s%s\n",
               (long long)c.batch, (long long)c.m, (long long)c.n, (long long)c.k, med[0],
               flops / med[0] / 1e9, med[1], flops / med[1] / 1e9, med[1] / med[0],
               why[0].empty() ? "" : ("  gemmkit FAIL: " + why[0]).c_str(),
               why[1].empty() || !have_cublas ? "" : ("  cublas FAIL: " + why[1]).c_str());
        fflush(stdout);
        if (!why[0].empty()) status = 1;
        cudaFree(a), cudaFree(b), cudaFree(cc);
    }
    gkh_l2_flush_free(&flush);
    gk_cuda_destroy(ctx);
    return status;
}
