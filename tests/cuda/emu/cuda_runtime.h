/*
 * cuda_runtime.h (host emulation for the backend core) — extends the ladder's host emulation
 * (tests/ladder/emu/cuda_runtime.h: threads as fibers, launches rewritten to gk_emu_launch) with
 * the runtime calls the CUDA core and tests/cuda/test_cuda_sgemm.cu make, so both run on the CPU
 * under ASan/UBSan (test_core_emulated.sh). "Device" memory is host memory, there is one sm_90
 * device, streams are tokens and every call is synchronous. Error paths of the real runtime
 * (faults, out of memory) are not modelled.
 */
#ifndef GK_TEST_CORE_EMU_CUDA_RUNTIME_H
#define GK_TEST_CORE_EMU_CUDA_RUNTIME_H

#include "../../ladder/emu/cuda_runtime.h"

#include <cstdlib>
#include <cstring>

enum { cudaErrorMemoryAllocation = 2, cudaErrorInvalidDevice = 101 };
enum cudaDeviceAttr {
    cudaDevAttrComputeCapabilityMajor,
    cudaDevAttrComputeCapabilityMinor,
    cudaDevAttrMultiProcessorCount,
    cudaDevAttrMemoryPoolsSupported
};
enum cudaMemcpyKind { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice };
enum { cudaStreamNonBlocking = 1 };

inline int gk_emu_device = 0;

inline cudaError_t cudaGetDeviceCount(int *n) {
    *n = 1;
    return cudaSuccess;
}
inline cudaError_t cudaGetDevice(int *d) {
    *d = gk_emu_device;
    return cudaSuccess;
}
inline cudaError_t cudaSetDevice(int d) {
    if (d != 0) return cudaErrorInvalidDevice;
    gk_emu_device = d;
    return cudaSuccess;
}
inline cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int) {
    switch (a) {
    case cudaDevAttrComputeCapabilityMajor:
        *v = 9;
        break;
    case cudaDevAttrComputeCapabilityMinor:
        *v = 0;
        break;
    case cudaDevAttrMultiProcessorCount:
        *v = 132;
        break;
    case cudaDevAttrMemoryPoolsSupported:
        *v = 1;
        break;
    }
    return cudaSuccess;
}
template <class T> cudaError_t cudaMalloc(T **p, size_t n) {
    *p = (T *)malloc(n ? n : 1);
    return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
template <class T> cudaError_t cudaMallocAsync(T **p, size_t n, cudaStream_t) {
    return cudaMalloc(p, n);
}
inline cudaError_t cudaFree(void *p) {
    free(p);
    return cudaSuccess;
}
inline cudaError_t cudaFreeAsync(void *p, cudaStream_t) {
    return cudaFree(p);
}
inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind) {
    memcpy(d, s, n);
    return cudaSuccess;
}
inline cudaError_t cudaMemset(void *d, int v, size_t n) {
    memset(d, v, n);
    return cudaSuccess;
}
inline cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t) {
    return cudaMemset(d, v, n);
}
inline cudaError_t cudaDeviceSynchronize() {
    return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t) {
    return cudaSuccess;
}
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned) {
    *s = malloc(1); /* a distinct token per stream */
    return cudaSuccess;
}
inline cudaError_t cudaStreamDestroy(cudaStream_t s) {
    free(s);
    return cudaSuccess;
}
inline const char *cudaGetErrorString(cudaError_t e) {
    return e ? "emulated CUDA error" : "no error";
}
inline const char *cudaGetErrorName(cudaError_t e) {
    return e ? "cudaErrorEmulated" : "cudaSuccess";
}

#endif
