/*
 * tune.cu — the CUDA side of the tune cache (src/core/tune_cache.h, docs/tuning.md): the build id
 * a cache file must carry, and the reading of the file into a context when it is created. The
 * lookup itself is in dispatch.cu; `gemmkit tune` (bench/gpu/tune.cu) writes the file.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cuda/core/core.h"
#include "cuda/gemm/configs.h"
#include "cuda/gemm/plan.h"
#include "cuda/registry.h"

/* Everything a plan's three numbers depend on: the tile configurations in id order (as text),
 * the plan kinds (by name) and the GEMV kernel's width. Editing any of them changes the hash,
 * which makes files written before stale. */
#define GK_TUNE_CONFIG_TEXT(...) #__VA_ARGS__ ";"
static const char config_text[] = GK_AUTOTUNE_CONFIGS(GK_TUNE_CONFIG_TEXT);

const char *gk_cuda_tune_build(void) {
    /* computed once; the function-local static is thread-safe and stays valid after fork */
    static const struct id {
        char text[48];
        id() {
            uint64_t h = 1469598103934665603ull; /* FNV-1a, 64 bits */
            auto add = [&h](const char *s) {
                for (; *s; s++)
                    h = (h ^ (unsigned char)*s) * 1099511628211ull;
                h = (h ^ 0xff) * 1099511628211ull; /* separator */
            };
            add(gk_version());
            add(config_text);
            char buf[64];
            if (const gk_plan_ops *ops = gk_cuda_plan_ops())
                for (int kind = 0; kind < GK_PLAN_KINDS; kind++)
                    add(ops->name(gk_sgemm_plan{kind, 0, 0}, buf, sizeof buf));
            snprintf(buf, sizeof buf, "gemv_max=%d", GK_PLAN_GEMV_MAX);
            add(buf);
            snprintf(text, sizeof text, "%016llx", (unsigned long long)h);
        }
    } build;
    return build.text;
}

gk_status gk_cuda_tune_device(const gk_cuda_ctx *ctx, char *buf, size_t n, gk_tune_device *dev) {
    cudaDeviceProp prop;
    const cudaError_t err = cudaGetDeviceProperties(&prop, ctx->device);
    if (err != cudaSuccess) return gk_cuda_status("gk_cuda_tune_device", "cudaGetDeviceProperties", err);
    snprintf(buf, n, "%s", prop.name);
    for (char *p = buf; *p; p++) /* one line in the file */
        if (*p == '\n' || *p == '\r') *p = ' ';
    dev->name = buf, dev->sm = ctx->sm, dev->sms = ctx->sm_count;
    return GK_SUCCESS;
}

void gk_cuda_tune_load(gk_cuda_ctx *ctx) {
    ctx->tune.e = nullptr, ctx->tune.n = 0;
    char path[4096];
    if (!gk_tune_cache_path(path, sizeof path) || access(path, F_OK) != 0) return;
    char name[256], why[512];
    gk_tune_device dev;
    if (gk_cuda_tune_device(ctx, name, sizeof name, &dev) != GK_SUCCESS) {
        gk_clear_error();
        return;
    }
    if (gk_tune_load(path, gk_cuda_tune_build(), &dev, &ctx->tune, why, sizeof why) < 0 &&
        ctx->verbose)
        fprintf(stderr, "gemmkit: tune cache %s ignored: %s (run `gemmkit tune` to rewrite it)\n",
                path, why);
}
