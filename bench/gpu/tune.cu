/*
 * tune.cu — `gemmkit tune` (tune.h): for each shape, every candidate plan of the production FP32
 * path (gk_sgemm_plan_candidates, src/cuda/gemm/plan.h) runs through gk_cuda_sgemm's own dispatch
 * as a row-major, non-transposed call (alpha 1, beta 0) on random data; each is checked at
 * sampled elements against float64 with the tests' bound, then timed with CUDA events, L2 flushed
 * before each call, the candidates alternating over rounds; the fastest median wins. The winners
 * are merged into the tune cache (src/core/tune_cache.h), which contexts created afterwards read.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bench/gpu/tune.h"
#include "cuda/core/core.h"
#include "cuda/gemm/plan.h"
#include "cuda/registry.h"
#include "gemmkit.h"
#include "harness/gpu.h"

namespace {

enum { MAX_CANDIDATES = 64, CHECK_SAMPLES = 4096 };

struct call {
    gk_cuda_ctx *ctx;
    int kernel;
    gk_sgemm_plan plan;
    int64_t m, n, k;
    const float *a, *b;
    float *c;
    gk_status st = GK_SUCCESS;
};

void launch(void *arg) {
    call *c = static_cast<call *>(arg);
    if (c->st != GK_SUCCESS) return;
    c->st = gk_cuda_sgemm_run(c->ctx, c->kernel, "gemmkit tune", GK_ROW_MAJOR, GK_NO_TRANS,
                              GK_NO_TRANS, c->m, c->n, c->k, 1.0f, c->a, c->k, c->b, c->n, 0.0f,
                              c->c, c->n, &c->plan);
}

/* "" when the candidate's result passes the sampled float64 check, else why not. */
std::string check(call &c, int sms) {
    cudaMemset(c.c, 0xff, (size_t)(c.m * c.n) * sizeof(float)); /* NaN: unwritten fails */
    c.st = GK_SUCCESS;
    launch(&c);
    if (c.st != GK_SUCCESS) return gk_last_error();
    const cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) return cudaGetErrorString(e);
    gkh_gemm_desc d = {GK_ROW_MAJOR, GK_NO_TRANS, GK_NO_TRANS, c.m, c.n, c.k, 1.0f, 0.0f, GK_F32,
                       GK_F32, GK_F32, c.a, c.b, c.k, c.n, c.n, nullptr, nullptr, nullptr};
    gkh_gpu_check r;
    const double u_in = gkh_gemm_ex_u_in(GK_F32, GK_F32, GK_FP32_SIMT, 0, c.k);
    if (gkh_gpu_check_sampled(&d, c.c, u_in, CHECK_SAMPLES, 7, sms * 4, &r) != cudaSuccess)
        return "the check failed to run";
    if (r.failed) {
        char buf[160];
        snprintf(buf, sizeof buf, "%lld of %lld sampled elements outside the bound (worst %.3g)",
                 (long long)r.failed, (long long)r.checked, r.max_ratio);
        return buf;
    }
    return "";
}

bool same(const gk_sgemm_plan &x, const gk_sgemm_plan &y) {
    return x.kind == y.kind && x.config == y.config && x.split == y.split;
}

} // namespace

extern "C" void bench_tune_defaults(bench_tune_opts *o) {
    /* issue 18's shapes: squares that leave the GPU part-idle, thin and GEMV-like shapes */
    static const bench_shape shapes[] = {
        {512, 512, 512},       {1000, 1000, 1000},    {2048, 2048, 2048},
        {3072, 3072, 3072},    {4096, 4096, 4096},    {4097, 4095, 4093},
        {64, 8192, 8192},      {8192, 64, 8192},      {128, 8192, 8192},
        {256, 8192, 8192},     {8192, 8192, 64},      {8192, 8192, 256},
        {1, 8192, 8192},       {8192, 1, 8192},
    };
    memset(o, 0, sizeof *o);
    for (const bench_shape &s : shapes)
        o->shapes[o->nshapes++] = s;
    o->reps = 10;
    o->rounds = 3;
}

extern "C" int bench_tune_run(const bench_tune_opts *o) {
    char path[4096];
    if (o->cache) {
        snprintf(path, sizeof path, "%s", o->cache);
    } else if (!o->dry_run && !gk_tune_cache_path(path, sizeof path)) {
        fprintf(stderr, "gemmkit tune: the tune cache is off (GEMMKIT_TUNE_CACHE) or has no path "
                        "(no HOME); give --cache PATH or --dry-run\n");
        return 1;
    }
    gk_cuda_ctx *ctx = nullptr;
    if (cudaSetDevice(o->device) != cudaSuccess ||
        gk_cuda_create(&ctx, o->device, nullptr) != GK_SUCCESS) {
        fprintf(stderr, "gemmkit tune: no CUDA device %d: %s\n", o->device, gk_last_error());
        return 1;
    }
    char name[256];
    gk_tune_device dev;
    if (gk_cuda_tune_device(ctx, name, sizeof name, &dev) != GK_SUCCESS) {
        fprintf(stderr, "gemmkit tune: %s\n", gk_last_error());
        gk_cuda_destroy(ctx);
        return 1;
    }
    const int kernel = gk_cuda_pick_kernel(ctx->sm);
    int l2 = 0;
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, o->device);
    gkh_l2_flush flush = {nullptr, 0};
    gkh_l2_flush_init(&flush, l2);
    printf("gemmkit tune: %s (sm_%d, %d SMs), build %s; median of %d x %d calls, L2 flushed\n",
           name, ctx->sm, ctx->sm_count, gk_cuda_tune_build(), o->rounds, o->reps);
    printf("%-18s %-16s %10s %8s  %s\n", "shape (row-major)", "plan", "ms", "TFLOPS", "");
    std::vector<gk_tune_entry> winners;
    int status = 0;
    for (int s = 0; s < o->nshapes; s++) {
        const bench_shape sh = o->shapes[s];
        float *a = nullptr, *b = nullptr, *cc = nullptr;
        if (cudaMalloc(&a, sh.m * sh.k * 4) || cudaMalloc(&b, sh.k * sh.n * 4) ||
            cudaMalloc(&cc, sh.m * sh.n * 4)) {
            fprintf(stderr, "gemmkit tune: out of device memory at %lldx%lldx%lld\n",
                    (long long)sh.m, (long long)sh.n, (long long)sh.k);
            cudaFree(a), cudaFree(b), cudaFree(cc);
            (void)cudaGetLastError();
            status = 1;
            continue;
        }
        gkh_gpu_fill(a, sh.m * sh.k, 1 + s, ctx->sm_count * 8);
        gkh_gpu_fill(b, sh.k * sh.n, 100 + s, ctx->sm_count * 8);
        gk_rm_problem p = {};
        p.m = sh.m, p.n = sh.n, p.k = sh.k;
        gk_sgemm_plan cand[MAX_CANDIDATES];
        int nc = gk_sgemm_plan_candidates(p, ctx->sm, ctx->sm_count, cand, MAX_CANDIDATES);
        nc = nc < MAX_CANDIDATES ? nc : MAX_CANDIDATES;
        const gk_sgemm_plan heur = gk_sgemm_plan_pick(p, ctx->sm, ctx->sm_count);
        if (std::none_of(cand, cand + nc, [&](const gk_sgemm_plan &x) { return same(x, heur); }) &&
            nc < MAX_CANDIDATES)
            cand[nc++] = heur; /* always measured: the winner is compared with it */
        std::vector<call> calls;
        std::vector<std::string> why;
        for (int i = 0; i < nc; i++) {
            call c{ctx, kernel, cand[i], sh.m, sh.n, sh.k, a, b, cc};
            calls.push_back(c);
            why.push_back(check(calls.back(), ctx->sm_count));
        }
        std::vector<std::vector<float>> ms(nc);
        for (int round = 0; round < o->rounds; round++)
            for (int i = 0; i < nc; i++) {
                const int j = round % 2 ? nc - 1 - i : i; /* reverse the order every other round */
                if (!why[j].empty()) continue;
                gkh_gpu_timer t;
                if (gkh_gpu_timer_create(&t, o->reps) != cudaSuccess) continue;
                calls[j].st = GK_SUCCESS;
                const cudaError_t e = gkh_gpu_timer_run(&t, &flush, launch, &calls[j]);
                if (e == cudaSuccess && calls[j].st == GK_SUCCESS)
                    for (int r = 0; r < o->reps; r++)
                        ms[j].push_back(gkh_gpu_timer_ms(&t, r));
                else
                    why[j] = e != cudaSuccess ? cudaGetErrorString(e) : gk_last_error();
                gkh_gpu_timer_destroy(&t);
            }
        const double flops = 2.0 * sh.m * sh.n * sh.k;
        int best = -1, h = -1;
        std::vector<double> med(nc, NAN);
        for (int i = 0; i < nc; i++) {
            if (same(cand[i], heur)) h = i;
            if (!why[i].empty() || ms[i].empty()) continue;
            std::sort(ms[i].begin(), ms[i].end());
            med[i] = ms[i][ms[i].size() / 2];
            if (best < 0 || med[i] < med[best]) best = i;
        }
        char shape[48];
        snprintf(shape, sizeof shape, "%lldx%lldx%lld", (long long)sh.m, (long long)sh.n,
                 (long long)sh.k);
        for (int i = 0; i < nc; i++) {
            char pn[48];
            gk_sgemm_plan_name(cand[i], pn, sizeof pn);
            std::string tag = i == best ? "best" : "";
            if (i == h) tag += tag.empty() ? "heuristic" : ", heuristic";
            if (!why[i].empty()) {
                tag = "FAIL: " + why[i];
                status = 1;
            }
            printf("%-18s %-16s %10.4f %8.2f  %s\n", i == 0 ? shape : "", pn, med[i],
                   flops / med[i] / 1e9, tag.c_str());
        }
        if (best >= 0) {
            winners.push_back({sh.m, sh.n, sh.k, cand[best].kind, cand[best].config,
                               cand[best].split});
            if (h >= 0 && !isnan(med[h]))
                printf("%-18s heuristic / best: %.3f\n", "", med[h] / med[best]);
        }
        fflush(stdout);
        cudaFree(a), cudaFree(b), cudaFree(cc);
    }
    gkh_l2_flush_free(&flush);
    gk_cuda_destroy(ctx);
    if (o->dry_run || winners.empty()) return status;
    int replaced = 0;
    char why[600];
    if (gk_tune_store(path, gk_cuda_tune_build(), &dev, winners.data(), winners.size(), &replaced,
                      why, sizeof why) != 0) {
        fprintf(stderr, "gemmkit tune: %s\n", why);
        return 1;
    }
    if (replaced) printf("gemmkit tune: replaced %s (%s)\n", path, why);
    printf("gemmkit tune: %zu shapes stored in %s\n", winners.size(), path);
    return status;
}
