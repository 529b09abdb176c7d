/*
 * cuda_runtime.h (host emulation for the backend core) — extends the ladder's host emulation
 * (tests/ladder/emu/cuda_runtime.h: threads as fibers, launches rewritten to gk_emu_launch) with
 * the runtime calls the CUDA core and tests/cuda/test_cuda_sgemm.cu make, so both run on the CPU
 * under ASan/UBSan (test_core_emulated.sh). "Device" memory is host memory, there are two sm_90
 * devices, streams are tokens and every call is synchronous. Device memory is a budget of
 * GK_EMU_DEVICE_BYTES, so a test can use it up and meet cudaErrorMemoryAllocation as on a GPU.
 * Every allocation (device, managed, page-locked or registered host memory) is recorded with its
 * device and extent, so cudaPointerGetAttributes and the driver's cuPointerGetAttributes (reached
 * through cudaGetDriverEntryPointByVersion) answer as the real ones do for these kinds of memory,
 * including "not reachable" for another device's memory until peer access is enabled; unknown
 * addresses are host memory. Faults are not modelled: a test sets gk_emu_sticky to put the
 * context in a sticky error state. GK_CUDA_EMULATED tells the tests which runtime they have.
 */
#ifndef GK_TEST_CORE_EMU_CUDA_RUNTIME_H
#define GK_TEST_CORE_EMU_CUDA_RUNTIME_H

#include "../../ladder/emu/cuda_runtime.h"

#include <cstdlib>
#include <cstring>
#include <malloc.h>
#include <map>

#include "cuda.h"

#define GK_CUDA_EMULATED 1

/* the real runtime's values */
enum {
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInvalidDevice = 101,
    cudaErrorContained = 226,
    cudaErrorNotReady = 600,
    cudaErrorIllegalAddress = 700,
    cudaErrorLaunchTimeout = 702,
    cudaErrorPeerAccessAlreadyEnabled = 704,
    cudaErrorPeerAccessNotEnabled = 705,
    cudaErrorAssert = 710,
    cudaErrorHardwareStackError = 714,
    cudaErrorIllegalInstruction = 715,
    cudaErrorMisalignedAddress = 716,
    cudaErrorInvalidAddressSpace = 717,
    cudaErrorInvalidPc = 718,
    cudaErrorLaunchFailure = 719,
    cudaErrorTensorMemoryLeak = 721,
    cudaErrorMpsClientTerminated = 810,
    cudaErrorExternalDevice = 911
};
enum cudaDeviceAttr {
    cudaDevAttrComputeCapabilityMajor,
    cudaDevAttrComputeCapabilityMinor,
    cudaDevAttrMultiProcessorCount,
    cudaDevAttrMemoryPoolsSupported,
    cudaDevAttrPageableMemoryAccess
};
enum cudaMemcpyKind {
    cudaMemcpyHostToDevice,
    cudaMemcpyDeviceToHost,
    cudaMemcpyDeviceToDevice,
    cudaMemcpyDefault
};

/* bit casts of the device code (the mixed-precision kernels) */
inline uint32_t __float_as_uint(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}
inline float __uint_as_float(uint32_t u) {
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}
enum { cudaStreamNonBlocking = 1 };

enum { GK_EMU_DEVICES = 2 };
inline int gk_emu_device = 0;
/* What a test may change: the sticky error that calls reaching the context return (0: none; as on
 * a GPU, pointer attributes still answer), the
 * answer to cudaDevAttrPageableMemoryAccess, whether peer access is possible. */
inline cudaError_t gk_emu_sticky = cudaSuccess;
inline int gk_emu_pageable_access = 0;
inline int gk_emu_peer_possible = 1;
inline bool gk_emu_peer_enabled[GK_EMU_DEVICES][GK_EMU_DEVICES];

inline cudaError_t cudaGetDeviceCount(int *n) {
    *n = GK_EMU_DEVICES;
    return cudaSuccess;
}
inline cudaError_t cudaGetDevice(int *d) {
    *d = gk_emu_device;
    return cudaSuccess;
}
inline cudaError_t cudaSetDevice(int d) {
    if (d < 0 || d >= GK_EMU_DEVICES) return cudaErrorInvalidDevice;
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
    case cudaDevAttrPageableMemoryAccess:
        *v = gk_emu_pageable_access;
        break;
    }
    return cudaSuccess;
}
enum cudaMemoryType {
    cudaMemoryTypeUnregistered = 0,
    cudaMemoryTypeHost = 1,
    cudaMemoryTypeDevice = 2,
    cudaMemoryTypeManaged = 3
};
struct cudaPointerAttributes {
    cudaMemoryType type;
    int device;
    void *devicePointer;
    void *hostPointer;
};
/* Every live allocation by start address: its size, kind and the device it belongs to. */
struct gk_emu_alloc {
    size_t size;
    cudaMemoryType type;
    int device;
};
inline std::map<uintptr_t, gk_emu_alloc> gk_emu_allocs;
/* The allocation holding p, NULL for memory CUDA does not know. */
inline const std::pair<const uintptr_t, gk_emu_alloc> *gk_emu_find(const void *p) {
    const uintptr_t q = (uintptr_t)p;
    auto it = gk_emu_allocs.upper_bound(q);
    if (it == gk_emu_allocs.begin()) return nullptr;
    --it;
    return q - it->first < (it->second.size ? it->second.size : 1) ? &*it : nullptr;
}
inline void gk_emu_record(void *p, size_t n, cudaMemoryType type) {
    gk_emu_allocs[(uintptr_t)p] = {n, type, gk_emu_device};
}

/* Device memory in use, each block counted at malloc_usable_size. */
enum : size_t { GK_EMU_DEVICE_BYTES = (size_t)256 << 20 };
inline size_t gk_emu_device_used = 0;
template <class T> cudaError_t cudaMalloc(T **p, size_t n) {
    *p = NULL;
    if (gk_emu_sticky) return gk_emu_sticky;
    if (gk_emu_device_used + n > GK_EMU_DEVICE_BYTES) return cudaErrorMemoryAllocation;
    *p = (T *)malloc(n ? n : 1);
    if (!*p) return cudaErrorMemoryAllocation;
    gk_emu_device_used += malloc_usable_size(*p);
    gk_emu_record(*p, n, cudaMemoryTypeDevice);
    return cudaSuccess;
}
template <class T> cudaError_t cudaMallocAsync(T **p, size_t n, cudaStream_t) {
    return cudaMalloc(p, n);
}
inline cudaError_t cudaFree(void *p) {
    const auto it = gk_emu_allocs.find((uintptr_t)p);
    if (it != gk_emu_allocs.end()) {
        if (it->second.type == cudaMemoryTypeDevice) gk_emu_device_used -= malloc_usable_size(p);
        gk_emu_allocs.erase(it);
    }
    free(p);
    return cudaSuccess;
}
enum { cudaMemAttachGlobal = 1, cudaHostAllocDefault = 0, cudaHostAllocMapped = 2 };
enum { cudaHostRegisterDefault = 0, cudaHostRegisterMapped = 2 };
struct cudaDeviceProp {
    char name[256];
};
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int) {
    snprintf(p->name, sizeof p->name, "emulated sm_90");
    return cudaSuccess;
}
template <class T> cudaError_t cudaMallocManaged(T **p, size_t n, unsigned = cudaMemAttachGlobal) {
    *p = (T *)malloc(n ? n : 1);
    if (!*p) return cudaErrorMemoryAllocation;
    gk_emu_record(*p, n, cudaMemoryTypeManaged);
    return cudaSuccess;
}
template <class T> cudaError_t cudaHostAlloc(T **p, size_t n, unsigned) {
    *p = (T *)malloc(n ? n : 1);
    if (!*p) return cudaErrorMemoryAllocation;
    gk_emu_record(*p, n, cudaMemoryTypeHost);
    return cudaSuccess;
}
inline cudaError_t cudaFreeHost(void *p) {
    gk_emu_allocs.erase((uintptr_t)p);
    free(p);
    return cudaSuccess;
}
inline cudaError_t cudaHostRegister(void *p, size_t n, unsigned) {
    gk_emu_record(p, n, cudaMemoryTypeHost);
    return cudaSuccess;
}
inline cudaError_t cudaHostUnregister(void *p) {
    gk_emu_allocs.erase((uintptr_t)p);
    return cudaSuccess;
}
/* As the real call with unified addressing: devicePointer is where the current device reaches
 * the memory, NULL for another device's memory without peer access. */
inline cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *a, const void *p) {
    *a = {cudaMemoryTypeUnregistered, -2, nullptr, const_cast<void *>(p)};
    const auto *hit = gk_emu_find(p);
    if (hit == nullptr) return cudaSuccess;
    const gk_emu_alloc &m = hit->second;
    a->type = m.type;
    a->device = m.device;
    const bool reach = m.type != cudaMemoryTypeDevice || m.device == gk_emu_device ||
                       gk_emu_peer_enabled[gk_emu_device][m.device];
    a->devicePointer = reach ? const_cast<void *>(p) : nullptr;
    a->hostPointer = m.type == cudaMemoryTypeDevice ? nullptr : const_cast<void *>(p);
    return cudaSuccess;
}
inline cudaError_t cudaDeviceCanAccessPeer(int *can, int device, int peer) {
    *can = gk_emu_peer_possible && device != peer;
    return cudaSuccess;
}
inline cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned) {
    if (!gk_emu_peer_possible || peer == gk_emu_device) return cudaErrorInvalidDevice;
    if (gk_emu_peer_enabled[gk_emu_device][peer]) return cudaErrorPeerAccessAlreadyEnabled;
    gk_emu_peer_enabled[gk_emu_device][peer] = true;
    return cudaSuccess;
}
inline cudaError_t cudaDeviceDisablePeerAccess(int peer) {
    if (!gk_emu_peer_enabled[gk_emu_device][peer]) return cudaErrorPeerAccessNotEnabled;
    gk_emu_peer_enabled[gk_emu_device][peer] = false;
    return cudaSuccess;
}

/* The driver's cuPointerGetAttributes, as far as the library asks it: the allocation's range,
 * zeros for memory CUDA does not know. */
inline CUresult gk_emu_cuPointerGetAttributes(unsigned count, CUpointer_attribute *attrs,
                                              void **data, CUdeviceptr ptr) {
    const auto *hit = gk_emu_find((const void *)(uintptr_t)ptr);
    for (unsigned i = 0; i < count; i++) {
        if (attrs[i] == CU_POINTER_ATTRIBUTE_RANGE_START_ADDR)
            *(CUdeviceptr *)data[i] = hit ? hit->first : 0;
        else if (attrs[i] == CU_POINTER_ATTRIBUTE_RANGE_SIZE)
            *(size_t *)data[i] = hit ? hit->second.size : 0;
        else
            return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}
enum cudaDriverEntryPointQueryResult {
    cudaDriverEntryPointSuccess = 0,
    cudaDriverEntryPointSymbolNotFound = 1,
    cudaDriverEntryPointVersionNotSufficent = 2
};
enum { cudaEnableDefault = 0 };
inline cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **fn, unsigned,
                                                    unsigned long long,
                                                    cudaDriverEntryPointQueryResult *found) {
    const bool known = strcmp(symbol, "cuPointerGetAttributes") == 0;
    *fn = known ? (void *)gk_emu_cuPointerGetAttributes : nullptr;
    *found = known ? cudaDriverEntryPointSuccess : cudaDriverEntryPointSymbolNotFound;
    return cudaSuccess;
}

enum cudaStreamCaptureStatus { cudaStreamCaptureStatusNone = 0, cudaStreamCaptureStatusActive = 1 };
inline cudaError_t cudaStreamIsCapturing(cudaStream_t, cudaStreamCaptureStatus *status) {
    *status = cudaStreamCaptureStatusNone;
    return gk_emu_sticky;
}
/* Every call is synchronous, so a stream never has work pending: only a sticky error shows. */
inline cudaError_t cudaStreamQuery(cudaStream_t) {
    return gk_emu_sticky;
}
inline cudaError_t cudaPeekAtLastError() {
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
    return gk_emu_sticky;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t) {
    return gk_emu_sticky;
}
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned) {
    *s = malloc(1); /* a distinct token per stream */
    return cudaSuccess;
}
/* priorities order nothing here: every call is synchronous */
inline cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest) {
    *least = 0, *greatest = -1;
    return cudaSuccess;
}
inline cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned flags, int) {
    return cudaStreamCreateWithFlags(s, flags);
}
inline cudaError_t cudaStreamDestroy(cudaStream_t s) {
    free(s);
    return cudaSuccess;
}
inline const char *cudaGetErrorString(cudaError_t e) {
    return e == cudaErrorIllegalAddress ? "an illegal memory access was encountered"
           : e                          ? "emulated CUDA error"
                                        : "no error";
}
inline const char *cudaGetErrorName(cudaError_t e) {
    return e == cudaErrorIllegalAddress ? "cudaErrorIllegalAddress"
           : e                          ? "cudaErrorEmulated"
                                        : "cudaSuccess";
}

/* For the out-of-core engine (src/cuda/multi/ooc.cu): strided copies, events, page-locked
 * allocation and the free-memory query. Copies are synchronous and events are always complete.
 * gk_emu_copy_fail_after > 0 makes the copy that many calls later (counting from 1) fail with
 * cudaErrorInvalidValue, as an injected failed transfer. */
inline int gk_emu_copy_fail_after = 0;
inline cudaError_t cudaMemcpy2DAsync(void *d, size_t dpitch, const void *s, size_t spitch,
                                     size_t width, size_t height, cudaMemcpyKind, cudaStream_t) {
    if (gk_emu_sticky) return gk_emu_sticky;
    if (gk_emu_copy_fail_after > 0 && --gk_emu_copy_fail_after == 0) return cudaErrorInvalidValue;
    for (size_t r = 0; r < height; r++)
        memcpy((char *)d + r * dpitch, (const char *)s + r * spitch, width);
    return cudaSuccess;
}
typedef struct gk_emu_event *cudaEvent_t;
enum { cudaEventDisableTiming = 2 };
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned) {
    *e = (cudaEvent_t)malloc(1); /* a distinct token per event */
    return *e ? (cudaError_t)cudaSuccess : (cudaError_t)cudaErrorMemoryAllocation;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t e) {
    free(e);
    return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) {
    return gk_emu_sticky;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t) {
    return gk_emu_sticky;
}
inline cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned) {
    return gk_emu_sticky;
}
template <class T> cudaError_t cudaMallocHost(T **p, size_t n) {
    return cudaHostAlloc(p, n, cudaHostAllocDefault);
}
inline cudaError_t cudaMemGetInfo(size_t *free_b, size_t *total) {
    *free_b = GK_EMU_DEVICE_BYTES - gk_emu_device_used;
    *total = GK_EMU_DEVICE_BYTES;
    return cudaSuccess;
}

#endif
