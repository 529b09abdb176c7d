/*
 * batched_emu.cpp — gk_gemm_batched (src/cuda/gemm/batched.cu) for the emulated core test: each
 * item run by ladder step 03 (plain CUDA, emulated for real), its pointers taken from the strides
 * or read from the pointer arrays, which in the emulation are host memory. So the emulated run
 * checks the batched dispatcher (src/cuda/core/batched.cu: argument checks, item pointers,
 * batched transposes into the workspace, scale-only batches); the production batched grid itself
 * needs the GPU (tests/cuda/test_cuda_batched.cu). Replaces that file in that build only.
 */
#include "cuda/gemm/batched.h"
#include "cuda/ladder/ladder.h"

cudaError_t gk_gemm_batched(const gk_rm_problem &p, gk_batch_items<const float> a,
                            gk_batch_items<const float> b, gk_batch_items<float> c, int64_t count,
                            bool vec_b, bool vec_c_ld, const gk_launch_env &env) {
    (void)vec_b, (void)vec_c_ld;
    for (int64_t i = 0; i < count; i++) {
        gk_rm_problem q = p;
        q.a = a.at(i), q.b = b.at(i), q.c = c.at(i);
        const cudaError_t e = gk_ladder_03_smem_tiling(q, env);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}
