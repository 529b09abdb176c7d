/*
 * 18_warp_specialized.cu — ladder step 18, the first configuration of the production sm_90a kernel
 * (src/cuda/hopper/gemm_sm90.cuh; docs/cuda.md, "Tensor cores on Hopper"): warp specialization.
 * Step 17's threads both load and compute, so the thread that issues TMA loads stalls its warp
 * while it waits for a free stage, and every warp holds the registers of both jobs. Here a CTA is
 * three warpgroups: a producer warpgroup gives registers back (setmaxnreg.dec to 40) and one of its
 * threads only issues TMA loads into the ring, waiting on the empty barriers; two consumer
 * warpgroups take the registers (setmaxnreg.inc to 232) and only wait on full barriers and
 * multiply, which lets the tile grow to 128 x 256 (128 accumulators per thread). The epilogue
 * stores C through shared memory with TMA where it can. One tile per CTA (a grid of as many CTAs
 * as tiles) and no clusters: steps 19 and 20 add those.
 *
 * The operands are prepared as for steps 16 and 17 (B transposed into the scratch, A copied when
 * TMA cannot read it in place), the same copies gk_cuda_gemm_ex makes for a TF32 call whose
 * operands are not K-major. This file also holds the launcher of steps 18-20.
 */
#include "cuda/hopper/hopper.h"
#include "cuda/ladder/ladder.h"
#include "cuda/ladder/tc_steps.h"

cudaError_t gk_ladder_hopper_step(const gk_rm_problem &p, const gk_launch_env &env, int step) {
    gk_tc_problem q;
    q.m = p.m, q.n = p.n, q.k = p.k;
    q.ta = q.tb = GK_TF32, q.tc = GK_F32;
    q.a = q.b = nullptr, q.a_mn_major = q.b_mn_major = 0;
    q.c = p.c, q.ldc = p.ldc, q.c_trans = 0;
    q.alpha = p.alpha, q.beta = p.beta;
    q.scale_a = q.scale_b = nullptr;
    q.fp8_fast_accum = 0, q.k_lo = 0;
    /* the kernel's rules but the operands' addresses (after the copies they are aligned), checked
     * before anything is queued */
    q.lda = q.ldb = (p.k + 31) / 32 * 32;
    if (!gk_hopper_supports(q, env.sm)) return cudaErrorNotSupported;
    gk_kmajor_operands op;
    cudaError_t err = gk_ladder_kmajor_operands(p, env, 0, &op);
    if (err != cudaSuccess) return err;
    q.a = op.a, q.lda = op.lda, q.b = op.bt, q.ldb = op.ldbt;
    if (step == 20) return gk_hopper_gemm(q, env);
    return gk_hopper_gemm_ladder(q, env, step == 19);
}

cudaError_t gk_ladder_18_warp_specialized(const gk_rm_problem &p, const gk_launch_env &env) {
    return gk_ladder_hopper_step(p, env, 18);
}
