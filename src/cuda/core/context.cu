/*
 * context.cu — the CUDA context (device, stream, device properties, workspace), device discovery
 * and the mapping of CUDA runtime errors onto gk_status. A context never synchronises: work is
 * ordered on its stream, and even the workspace is grown and freed in stream order. It also
 * records what the pre-launch checks (checks.cu) need: whether they are on, whether the device
 * reads pageable host memory, and the driver's pointer query; and the float32 mode and path
 * switches of the mixed-precision entry point (gemm_ex.cu).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/core/core.h"
#include "cuda/gemm/kernel.cuh"

gk_status gk_cuda_status(const char *who, const char *call, cudaError_t err) {
    /* Reading the error resets the runtime's last error unless it is sticky (a kernel fault),
     * in which case every later call fails too and says so. */
    (void)cudaGetLastError();
    if (gk_cuda_is_sticky(err))
        return gk_fail(GK_ERR_CUDA,
                       "%s: %s failed: the CUDA context is in an error state (sticky error from "
                       "earlier work: %s (%s)); every later CUDA call of this process fails",
                       who, call, cudaGetErrorString(err), cudaGetErrorName(err));
    const gk_status st = err == cudaErrorMemoryAllocation ? GK_ERR_OUT_OF_MEMORY : GK_ERR_CUDA;
    return gk_fail(st, "%s: %s failed: %s (%s)", who, call, cudaGetErrorString(err),
                   cudaGetErrorName(err));
}

/* The driver's pointer query for the allocation-extent check, NULL where this driver cannot give
 * it (the check is then skipped). Version 12000 asks for the function's current ABI, which every
 * driver that runs this CUDA 12+ runtime has. */
static gk_cu_pointer_get_attributes driver_pointer_attributes(void) {
    void *fn = NULL;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion("cuPointerGetAttributes", &fn, 12000, cudaEnableDefault,
                                         &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return (gk_cu_pointer_get_attributes)fn;
}

/* GEMMKIT_CUDA_TC_PATH (docs/cuda.md, "Mixed precision"): a developer's switch that restricts
 * gk_cuda_gemm_ex to one path. An unknown value means auto, said only under GEMMKIT_VERBOSE (the
 * library never prints otherwise). */
static int tc_path_from_env(const char *v, int verbose) {
    static const char *const names[] = {"auto", "hopper", "repack", "mma", "simt"};
    if (v == NULL || *v == '\0') return GK_TC_AUTO;
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
        if (strcmp(v, names[i]) == 0) return i;
    if (verbose)
        fprintf(stderr,
                "gemmkit: GEMMKIT_CUDA_TC_PATH=%s is unknown (auto, hopper, repack, mma, simt); "
                "using auto\n",
                v);
    return GK_TC_AUTO;
}

int gk_cuda_available(void) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return count > 0;
}

gk_status gk_cuda_create(gk_cuda_ctx **ctx, int device, void *stream) {
    gk_clear_error();
    if (ctx == NULL) return gk_fail(GK_ERR_INVALID_VALUE, "gk_cuda_create: ctx is NULL");
    *ctx = NULL;
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        (void)cudaGetLastError();
        return gk_fail(GK_ERR_NO_DEVICE, "gk_cuda_create: no CUDA device: %s",
                       err != cudaSuccess ? cudaGetErrorString(err) : "device count is 0");
    }
    if (device < 0 || device >= count)
        return gk_fail(GK_ERR_INVALID_VALUE, "gk_cuda_create: device=%d is not in [0, %d)", device,
                       count);

    gk_device_guard guard(device);
    if (guard.error() != cudaSuccess)
        return gk_cuda_status("gk_cuda_create", "cudaSetDevice", guard.error());
    int major = 0, minor = 0, sms = 0, pools = 0, pageable = 0;
    if ((err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device)) ||
        (err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device)) ||
        (err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)) ||
        (err = cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device)) ||
        (err = cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device)))
        return gk_cuda_status("gk_cuda_create", "cudaDeviceGetAttribute", err);
    /* Read once here, not per call: the switches are the context's, and getenv on every call
     * would race with a caller's setenv. */
    const char *checks = getenv("GEMMKIT_CUDA_CHECKS");
    const char *verbose = getenv("GEMMKIT_VERBOSE");
    const char *tc_path = getenv("GEMMKIT_CUDA_TC_PATH");
    const char *invariant = getenv("GEMMKIT_BATCH_INVARIANT");

    gk_cuda_ctx *c = (gk_cuda_ctx *)calloc(1, sizeof *c);
    if (c == NULL) return gk_fail(GK_ERR_OUT_OF_MEMORY, "gk_cuda_create: out of host memory");
    c->device = device;
    c->stream = (cudaStream_t)stream;
    c->sm = major * 10 + minor;
    c->sm_count = sms;
    c->async_alloc = pools != 0;
    c->checks = !(checks != NULL && strcmp(checks, "0") == 0);
    c->pageable_access = pageable != 0;
    c->pointer_attributes = c->checks ? driver_pointer_attributes() : NULL;
    c->fp32_mode = GK_FP32_SIMT;
    c->verbose = verbose != NULL && *verbose != '\0' && strcmp(verbose, "0") != 0;
    c->tc_path = tc_path_from_env(tc_path, c->verbose);
    c->batch_invariant = !(invariant != NULL && strcmp(invariant, "0") == 0);
    gk_cuda_tune_load(c);
    *ctx = c;
    return GK_SUCCESS;
}

/* Free the workspace after the work already queued on the context's stream. Without
 * stream-ordered allocation that needs a stream synchronisation, the only place one happens. */
static cudaError_t release_workspace(gk_cuda_ctx *ctx) {
    if (ctx->work == NULL) return cudaSuccess;
    cudaError_t err;
    if (ctx->async_alloc) {
        err = cudaFreeAsync(ctx->work, ctx->stream);
    } else {
        err = cudaStreamSynchronize(ctx->stream);
        if (err == cudaSuccess) err = cudaFree(ctx->work);
    }
    ctx->work = NULL;
    ctx->work_bytes = 0;
    return err;
}

gk_status gk_cuda_destroy(gk_cuda_ctx *ctx) {
    gk_clear_error();
    if (ctx == NULL) return GK_SUCCESS; /* like free(NULL) */
    gk_status st = GK_SUCCESS;
    gk_device_guard guard(ctx->device);
    cudaError_t err = guard.error() != cudaSuccess ? guard.error() : release_workspace(ctx);
    if (err != cudaSuccess) st = gk_cuda_status("gk_cuda_destroy", "releasing the workspace", err);
    gk_tune_free(&ctx->tune);
    free(ctx);
    return st;
}

gk_status gk_cuda_set_stream(gk_cuda_ctx *ctx, void *stream) {
    gk_clear_error();
    if (ctx == NULL) return gk_fail(GK_ERR_INVALID_VALUE, "gk_cuda_set_stream: ctx is NULL");
    if ((cudaStream_t)stream == ctx->stream) return GK_SUCCESS;
    /* Work still queued on the old stream may read the workspace: release it in that stream's
     * order; the next call allocates a fresh one on the new stream. */
    gk_device_guard guard(ctx->device);
    cudaError_t err = guard.error() != cudaSuccess ? guard.error() : release_workspace(ctx);
    ctx->stream = (cudaStream_t)stream;
    if (err != cudaSuccess)
        return gk_cuda_status("gk_cuda_set_stream", "releasing the workspace", err);
    return GK_SUCCESS;
}

gk_status gk_cuda_set_fp32_mode(gk_cuda_ctx *ctx, gk_fp32_mode mode) {
    gk_clear_error();
    if (ctx == NULL) return gk_fail(GK_ERR_INVALID_VALUE, "gk_cuda_set_fp32_mode: ctx is NULL");
    if (mode != GK_FP32_SIMT && mode != GK_FP32_3XTF32)
        return gk_fail(GK_ERR_INVALID_VALUE,
                       "gk_cuda_set_fp32_mode: mode=%d is not GK_FP32_SIMT or GK_FP32_3XTF32",
                       (int)mode);
    ctx->fp32_mode = mode;
    return GK_SUCCESS;
}

gk_status gk_cuda_workspace(gk_cuda_ctx *ctx, size_t bytes, const char *who) {
    if (bytes <= ctx->work_bytes) return GK_SUCCESS;
    cudaError_t err = release_workspace(ctx);
    if (err != cudaSuccess) return gk_cuda_status(who, "releasing the workspace", err);
    /* Grow geometrically so a sequence of slowly growing problems reallocates O(log) times. */
    size_t want = bytes + bytes / 4;
    void *p = NULL;
    err = ctx->async_alloc ? cudaMallocAsync(&p, want, ctx->stream) : cudaMalloc(&p, want);
    if (err != cudaSuccess) {
        want = bytes;
        (void)cudaGetLastError();
        err = ctx->async_alloc ? cudaMallocAsync(&p, want, ctx->stream) : cudaMalloc(&p, want);
    }
    if (err != cudaSuccess) return gk_cuda_status(who, "allocating the workspace", err);
    ctx->work = (float *)p;
    /* Kernel scratch starts with counters that must be zero (gemm/kernel.cuh); kernels keep them
     * so. Its size counts only once the clearing is queued: if that fails, the next call replaces
     * the buffer instead of using counters that may not be zero. */
    err = cudaMemsetAsync(p, 0, want < GK_SCRATCH_FLAG_BYTES ? want : GK_SCRATCH_FLAG_BYTES,
                          ctx->stream);
    if (err != cudaSuccess) return gk_cuda_status(who, "clearing the workspace", err);
    ctx->work_bytes = want;
    return GK_SUCCESS;
}
