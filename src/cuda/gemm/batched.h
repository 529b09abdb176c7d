/*
 * batched.h — the batched production launcher (batched.cu): a batch of problems of one shape in
 * one grid, for gk_cuda_sgemm_strided_batched / gk_cuda_sgemm_batched
 * (src/cuda/api/sgemm_batched.cu, which maps each item onto the kernel contract of kernel.cuh as
 * dispatch.cu does one call).
 */
#ifndef GK_CUDA_GEMM_BATCHED_H
#define GK_CUDA_GEMM_BATCHED_H

#include <stdint.h>

#include "cuda/gemm/kernel.cuh"

/* Where item i of an operand is: ptrs[i] when ptrs is set (an array in device memory, read by the
 * kernels), else base + i * stride (base may be NULL for an operand that is never read). */
template <class T> struct gk_batch_items {
    T *base;
    int64_t stride;
    T *const *ptrs;
    __host__ __device__ T *at(int64_t i) const { return ptrs ? ptrs[i] : base + i * stride; }
    /* The items from `first` on. */
    gk_batch_items from(int64_t first) const {
        gk_batch_items o = *this;
        if (o.ptrs != nullptr)
            o.ptrs += first;
        else if (o.base != nullptr)
            o.base += first * o.stride;
        return o;
    }
};

/* `count` items of the row-major problem p (p's pointers unused; p.lda, p.ldb, p.ldc shared by
 * every item): C_i = alpha A_i B_i + beta C_i, asynchronous on env.stream. vec_b: every B item
 * allows 16-byte copies (gk_vec_ok, n % 4 == 0); vec_c_ld: C's leading dimension allows float4
 * rows (each item's C alignment is tested by the kernel). Returns the launch error. */
cudaError_t gk_gemm_batched(const gk_rm_problem &p, gk_batch_items<const float> a,
                            gk_batch_items<const float> b, gk_batch_items<float> c, int64_t count,
                            bool vec_b, bool vec_c_ld, const gk_launch_env &env);

#endif
