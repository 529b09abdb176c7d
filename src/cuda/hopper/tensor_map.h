/*
 * tensor_map.h — the driver's cuTensorMapEncodeTiled for every TMA user (the sm_90a kernel's
 * launcher gemm_sm90.cu, ladder step 17). Kept apart from hopper.h, which the CPU emulation of the
 * CUDA runtime also compiles and which therefore names no driver types.
 */
#ifndef GK_CUDA_HOPPER_TENSOR_MAP_H
#define GK_CUDA_HOPPER_TENSOR_MAP_H

#include <cudaTypedefs.h> /* PFN_cuTensorMapEncodeTiled */

/* cuTensorMapEncodeTiled through the runtime's entry-point query (the library does not link
 * libcuda), looked up once; NULL when the driver lacks it. */
PFN_cuTensorMapEncodeTiled_v12000 gk_tensor_map_encode(void);

#endif
