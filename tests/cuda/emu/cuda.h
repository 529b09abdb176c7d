/*
 * cuda.h (host emulation) — the few driver API types and values the CUDA core names (it reaches
 * the driver only through function pointers that cudaGetDriverEntryPointByVersion returns, which
 * the emulated runtime answers in cuda_runtime.h).
 */
#ifndef GK_TEST_CORE_EMU_CUDA_H
#define GK_TEST_CORE_EMU_CUDA_H

#define CUDAAPI
typedef int CUresult;
enum { CUDA_SUCCESS = 0, CUDA_ERROR_INVALID_VALUE = 1 };
typedef unsigned long long CUdeviceptr;
typedef enum CUpointer_attribute_enum {
    CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11,
    CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12
} CUpointer_attribute;

#endif
