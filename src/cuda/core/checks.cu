/*
 * checks.cu — what gk_cuda_sgemm checks before it queues any work, so that mistakes a GPU would
 * turn into a fault, which leaves the whole process's CUDA context unusable, come back as a
 * status naming the argument instead: a context already in a sticky error state (a fault of
 * earlier work), an operand the context's device cannot access (host memory, memory of another
 * device without peer access), and an operand whose allocation ends before the last element the
 * call reads or writes. What each check costs per call, what it cannot see, and the
 * GEMMKIT_CUDA_CHECKS=0 switch: docs/cuda.md, "Errors".
 */
#include <stdint.h>

#include "cuda/core/core.h"

int gk_cuda_is_sticky(cudaError_t err) {
    switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorContained:
    case cudaErrorTensorMemoryLeak:
    case cudaErrorMpsClientTerminated:
    case cudaErrorExternalDevice:
        return 1;
    default:
        return 0;
    }
}

/* Clear the runtime's last error if it is `err` (one this file's query produced and handled), and
 * leave any other alone. */
static void forget(cudaError_t err) {
    if (cudaPeekAtLastError() == err) (void)cudaGetLastError();
}

/* Once the driver knows of a fault of earlier work (the application's or gemmkit's), it answers
 * every call that reaches the context with that sticky error. cudaStreamIsCapturing is the
 * cheapest such call, and unlike a stream query it is legal while the stream is being captured
 * into a graph. A fault the driver has not noticed yet shows at this call's own launch instead
 * (gk_cuda_status names it as sticky too) or at the caller's next synchronisation. */
static gk_status check_context(const gk_cuda_ctx *ctx, const char *who) {
    cudaStreamCaptureStatus capture;
    const cudaError_t err = cudaStreamIsCapturing(ctx->stream, &capture);
    if (err == cudaSuccess) return GK_SUCCESS;
    if (gk_cuda_is_sticky(err))
        return gk_fail(GK_ERR_CUDA,
                       "%s: the CUDA context is already in an error state (sticky error from "
                       "earlier work: %s (%s)); no work was queued",
                       who, cudaGetErrorString(err), cudaGetErrorName(err));
    return gk_cuda_status(who, "cudaStreamIsCapturing", err);
}

/* Bytes from p to the end of the allocation holding it, as the driver knows the allocation: the
 * "mappable address range" (for cudaMalloc the allocation itself; for a virtual-memory
 * reservation the whole reservation, so a matrix spanning several mapped chunks is never refused).
 * -1 where there is no answer to check against. */
static int64_t bytes_to_end(const gk_cuda_ctx *ctx, const void *p) {
    if (ctx->pointer_attributes == NULL) return -1;
    CUdeviceptr start = 0;
    size_t size = 0;
    CUpointer_attribute attrs[2] = {CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                    CU_POINTER_ATTRIBUTE_RANGE_SIZE};
    void *data[2] = {&start, &size};
    const uintptr_t q = (uintptr_t)p;
    if (ctx->pointer_attributes(2, attrs, data, (CUdeviceptr)q) != CUDA_SUCCESS || start == 0 ||
        q < start || q - start >= size)
        return -1;
    return (int64_t)(size - (q - start));
}

/* One operand: `bytes` from p are read (or written, for C) by the call. */
static gk_status check_operand(const gk_cuda_ctx *ctx, const char *who, const char *name,
                               const void *p, int64_t bytes, int writes) {
    cudaPointerAttributes at;
    cudaError_t err = cudaPointerGetAttributes(&at, p);
    if (err == cudaErrorInvalidValue) { /* older drivers' answer for memory CUDA does not know */
        forget(err);
        at.type = cudaMemoryTypeUnregistered;
        at.devicePointer = NULL;
    } else if (err != cudaSuccess) {
        return gk_cuda_status(who, "cudaPointerGetAttributes", err);
    }
    if (at.type == cudaMemoryTypeUnregistered) {
        /* With HMM or ATS the device reads pageable memory directly; its extent is unknown. */
        if (ctx->pageable_access) return GK_SUCCESS;
        return gk_fail(GK_ERR_INVALID_POINTER,
                       "%s: %s is a host pointer (not device memory): %p is in no CUDA allocation "
                       "or registration",
                       who, name, p);
    }
    /* devicePointer is the address through which the current device (the context's) reaches the
     * memory, NULL when it cannot. */
    if (at.devicePointer == NULL) {
        if (at.type == cudaMemoryTypeDevice && at.device != ctx->device) {
            int peer = 0;
            if (cudaDeviceCanAccessPeer(&peer, ctx->device, at.device) != cudaSuccess) {
                (void)cudaGetLastError();
                peer = 0;
            }
            return gk_fail(GK_ERR_INVALID_POINTER,
                           "%s: %s is memory of device %d, the context is on device %d (%s)", who,
                           name, at.device, ctx->device,
                           peer ? "peer access to it is not enabled: cudaDeviceEnablePeerAccess"
                                : "which cannot access it");
        }
        if (at.type == cudaMemoryTypeHost)
            return gk_fail(
                GK_ERR_INVALID_POINTER,
                "%s: %s is page-locked host memory not mapped for device %d (allocate "
                "it with cudaHostAllocMapped or register it with cudaHostRegisterMapped)",
                who, name, ctx->device);
        return gk_fail(GK_ERR_INVALID_POINTER, "%s: %s (%p) is not accessible from device %d", who,
                       name, p, ctx->device);
    }
    if (at.devicePointer != p)
        return gk_fail(GK_ERR_INVALID_POINTER,
                       "%s: %s is registered host memory that device %d reaches at %p, not at %p: "
                       "pass that address (cudaHostGetDevicePointer)",
                       who, name, ctx->device, at.devicePointer, p);
    const int64_t left = bytes_to_end(ctx, p);
    if (left >= 0 && bytes > left)
        return gk_fail(GK_ERR_INVALID_POINTER,
                       "%s: %s: the allocation holding it ends %lld bytes after %s, the call %s up "
                       "to %lld bytes",
                       who, name, (long long)left, name, writes ? "writes" : "reads",
                       (long long)bytes);
    return GK_SUCCESS;
}

gk_status gk_cuda_check_buffer(const gk_cuda_ctx *ctx, const char *who, const char *name,
                               const void *p, int64_t bytes) {
    return check_operand(ctx, who, name, p, bytes, 0);
}

gk_status gk_cuda_check_call(const gk_cuda_ctx *ctx, const char *who, int row_major,
                             const gk_gemm_args *g) {
    return gk_cuda_check_call_sized(ctx, who, row_major, g, sizeof(float), sizeof(float),
                                    sizeof(float));
}

gk_status gk_cuda_check_call_sized(const gk_cuda_ctx *ctx, const char *who, int row_major,
                                   const gk_gemm_args *g, int a_size, int b_size, int c_size) {
    gk_status st = check_context(ctx, who);
    if (st != GK_SUCCESS) return st;
    if (!gk_gemm_is_scale_only(g)) {
        /* the normalised A is the caller's B in a row-major call; check in the caller's order
         * (gk_check_gemm has ruled out a span that overflows) */
        struct {
            const char *name;
            const float *p;
            int64_t bytes;
        } ops[2] = {
            {row_major ? "b" : "a", g->a,
             g->transa ? gk_span_bytes_of(g->k, g->m, g->lda, a_size)
                       : gk_span_bytes_of(g->m, g->k, g->lda, a_size)},
            {row_major ? "a" : "b", g->b,
             g->transb ? gk_span_bytes_of(g->n, g->k, g->ldb, b_size)
                       : gk_span_bytes_of(g->k, g->n, g->ldb, b_size)},
        };
        const int first = row_major ? 1 : 0;
        for (int i = 0; i < 2; i++) {
            const int o = first ^ i;
            st = check_operand(ctx, who, ops[o].name, ops[o].p, ops[o].bytes, 0);
            if (st != GK_SUCCESS) return st;
        }
    }
    return check_operand(ctx, who, "c", g->c, gk_span_bytes_of(g->m, g->n, g->ldc, c_size), 1);
}
