/*
 * registry.h — the single list of CUDA SGEMM kernels. The CLI (`gemmkit kernels`, `gemmkit
 * ladder`), the tests, the benchmark and docs/ladder.md all read it through gk_cuda_kernel_info_get
 * or gk_cuda_registry(); nothing else lists kernels.
 */
#ifndef GK_CUDA_REGISTRY_H
#define GK_CUDA_REGISTRY_H

#include "cuda/gemm/kernel.cuh"

struct gk_kernel_entry {
    const char *name;      /* file stem in src/cuda/ladder/ */
    const char *technique; /* what the step adds over the one before */
    int min_sm;            /* compute capability * 10 */
    double input_rounding; /* 0 for FP32 products, 2^-11 for TF32 */
    int tensor_cores;
    gk_launch_fn launch;
    gk_scratch_fn scratch; /* NULL: the kernel needs no scratch memory */
};

/* Entries in ladder order; *count receives their number. */
const gk_kernel_entry *gk_cuda_registry(int *count);

/* Index of the kernel gk_cuda_sgemm uses by default (fastest FP32-exact SIMT step). */
int gk_cuda_default_kernel(void);

/* The plans the default kernel runs (src/cuda/gemm/plan.h), or NULL when it runs none (then the
 * dispatcher calls its registry launcher as for any other kernel). */
struct gk_plan_ops;
const gk_plan_ops *gk_cuda_plan_ops(void);

#endif
