/*
 * batched_emu.cpp — gk_gemm_batched (src/cuda/gemm/batched.cu) for the emulated core test: items
 * that the small-item kernel takes run through it as on the GPU (src/cuda/gemm/batched_small.cu is
 * plain CUDA, emulated for real); other items one by one through ladder step 03, their pointers
 * taken from the strides or read from the pointer arrays, which in the emulation are host memory.
 * So the emulated run checks the batched dispatcher (src/cuda/api/sgemm_batched.cu: argument
 * checks, item pointers, batched transposes into the workspace, scale-only batches) and the
 * small-item kernel's indexing; the tiled batched grid needs the GPU
 * (tests/cuda/test_cuda_batched.cu). Replaces src/cuda/gemm/batched.cu in that build only.
 */
#include "cuda/gemm/batched.h"
#include "cuda/gemm/batched_small.h"
#include "cuda/ladder/ladder.h"

cudaError_t gk_gemm_batched(const gk_rm_problem &p, gk_batch_items<const float> a,
                            gk_batch_items<const float> b, gk_batch_items<float> c, int64_t count,
                            bool vec_b, bool vec_c_ld, const gk_launch_env &env) {
    (void)vec_b, (void)vec_c_ld;
    if (gk_batched_small_fits(p)) return gk_gemm_batched_small(p, a, b, c, count, env.stream);
    for (int64_t i = 0; i < count; i++) {
        gk_rm_problem q = p;
        q.a = a.at(i), q.b = b.at(i), q.c = c.at(i);
        const cudaError_t e = gk_ladder_03_smem_tiling(q, env);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}
