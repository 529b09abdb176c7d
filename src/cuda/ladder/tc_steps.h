/*
 * tc_steps.h — what ladder steps 16-20 (the tensor-core path on Hopper) share on the host: the
 * K-major copies of the operands that wgmma needs, their scratch, and the launcher of the steps
 * that configure the production sm_90a kernel. A header of its own, not part of ladder.h, because
 * the host emulation of the ladder (tests/ladder/) compiles the steps that include only the plain
 * headers, and these steps need a GPU.
 */
#ifndef GK_CUDA_LADDER_TC_STEPS_H
#define GK_CUDA_LADDER_TC_STEPS_H

#include <stddef.h>

#include "cuda/gemm/kernel.cuh"

/* Steps 16-20 multiply TF32 on wgmma, which reads both operands K-major only (16_wgmma_tf32.cu):
 * the launcher copies B (row-major k x n, i.e. MN-major) transposed into the scratch, B^T (n x k),
 * and A too when the kernel cannot read it in place, each row padded with zeros to a multiple of
 * 32 floats (128 bytes). The copies are bit-exact (no rounding: wgmma ignores the low 13 mantissa
 * bits of each float32) and part of the step's time. */
struct gk_kmajor_operands {
    const float *a; /* K-major m x k: p.a, or its copy in the scratch */
    int64_t lda;
    const float *bt; /* K-major n x k: the copy of B^T in the scratch */
    int64_t ldbt;
};
/* Scratch of steps 16-20 on sm_90 (0 elsewhere): the counters, B^T and room for a copy of A, all
 * sized from m, n, k alone (the dispatcher asks before it knows where the operands lie). */
size_t gk_ladder_kmajor_scratch(const gk_rm_problem &p, int sm, int sm_count);
/* Queues the copies on env.stream: A is read in place when it is 16-byte aligned with lda a
 * multiple of 4 (TMA's rules), and with whole_vectors also k a multiple of 4 (16-byte copies of
 * its rows never reach past k); otherwise copied. cudaErrorNotSupported without scratch. */
cudaError_t gk_ladder_kmajor_operands(const gk_rm_problem &p, const gk_launch_env &env,
                                      int whole_vectors, gk_kmajor_operands *out);
/* Steps 18-20: p on the production sm_90a kernel (src/cuda/hopper/) after the copies above, as
 * step `step` configures it (18_warp_specialized.cu). */
cudaError_t gk_ladder_hopper_step(const gk_rm_problem &p, const gk_launch_env &env, int step);

#endif
