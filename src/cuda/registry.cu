/*
 * registry.cu — the kernels, in ladder order. Adding a ladder step means one launcher file in
 * ladder/ and one line here; a production kernel lives in gemm/ (or hopper/) and is listed under
 * the step (file in ladder/) that introduces it, as step 15 does for the stream-K launcher and
 * steps 18-20 for the sm_90a kernel's configurations. The CLI, tests,
 * benchmark and docs pick the list up from this table.
 */
#include "cuda/gemm/plan.h"
#include "cuda/ladder/ladder.h"
#include "cuda/ladder/tc_steps.h"
#include "cuda/registry.h"

#include "gemmkit.h"

static const double TF32_UNIT = 1.0 / 2048.0; /* 10 explicit mantissa bits: u = 2^-11 */
/* wgmma reads float32 operands as TF32 by dropping the low 13 mantissa bits: truncation, u = 2^-10
 * (steps 16-20 hand it the caller's bits, as gk_cuda_gemm_ex does for GK_TF32) */
static const double TF32_TRUNC = 1.0 / 1024.0;

static const gk_kernel_entry entries[] = {
    {"01_naive",
     "one thread per element of C; threadIdx.x walks down a column of C, so a "
     "warp's A loads and C stores are uncoalesced",
     50, 0.0, 0, gk_ladder_01_naive, nullptr},
    {"02_coalesced",
     "threadIdx.x runs along a row of C: B loads and C stores coalesce, the A "
     "load is a warp-wide broadcast",
     50, 0.0, 0, gk_ladder_02_coalesced, nullptr},
    {"03_smem_tiling",
     "32x32 tiles of A and B staged in shared memory: each global load serves "
     "32 FMAs",
     50, 0.0, 0, gk_ladder_03_smem_tiling, nullptr},
    {"04_1d_register_tiling",
     "64x64x8 block tile; each thread computes a column of 8 outputs, "
     "reusing one B value from a register across them",
     50, 0.0, 0, gk_ladder_04_1d_register_tiling, nullptr},
    {"05_2d_register_tiling",
     "128x128x8 block tile; each thread accumulates an 8x8 outer product "
     "from register fragments of A and B",
     50, 0.0, 0, gk_ladder_05_2d_register_tiling, nullptr},
    {"06_vectorized",
     "float4 global loads/stores and LDS.128 fragment reads; the A tile is "
     "stored transposed so both fragments are contiguous",
     50, 0.0, 0, gk_ladder_06_vectorized, nullptr},
    {"07_bank_conflict_free",
     "A tile padded to 132 floats per row and 4x4-quadrant thread "
     "fragments: no shared-memory bank conflicts on A stores or B reads",
     50, 0.0, 0, gk_ladder_07_bank_conflict_free, nullptr},
    {"08_warp_tiling",
     "32x64 warp tiles over a 4x8 lane grid: smaller shared-memory footprint "
     "per warp, one conflict-free wavefront per fragment load",
     50, 0.0, 0, gk_ladder_08_warp_tiling, nullptr},
    {"09_double_buffering",
     "two shared buffers and register prefetch overlap the next tile's "
     "global loads with this tile's math, one barrier per K step",
     50, 0.0, 0, gk_ladder_09_double_buffering, nullptr},
    {"10_cp_async_pipeline",
     "cp.async copies global->shared without registers, several stages "
     "in flight",
     80, 0.0, 0, gk_ladder_10_cp_async_pipeline, nullptr},
    {"11_autotuned",
     "step 10's kernel in several tile configurations, chosen per problem size from "
     "a table measured on H100 (a block-count heuristic on other GPUs)",
     80, 0.0, 0, gk_ladder_11_autotuned, nullptr},
    {"12_ptx_128x128x8",
     "128x128x8 tiles with inline-PTX loads/stores, XOR-switched double "
     "buffers and C stored through shared memory for coalescing",
     50, 0.0, 0, gk_ladder_12_ptx_128x128x8, nullptr},
    {"13_cp_async_128x256x8",
     "128x256x8 tiles fed by a 4-stage cp.async pipeline, 8x16 "
     "outputs per thread, grouped block order, measured lane layout and FFMA order",
     80, 0.0, 0, gk_ladder_13_cp_async_128x256x8, nullptr},
    {"14_tf32_mma",
     "tensor cores: mma.sync m16n8k8 TF32 with FP32 accumulation (reduced-precision "
     "products)",
     80, TF32_UNIT, 1, gk_ladder_14_tf32_mma, nullptr},
    {"15_stream_k",
     "step 11's tiles under a stream-K schedule: the tiles of the last, partial "
     "wave are split along K over all SMs and summed in a fixed order; as the "
     "production launcher it also runs split-K and a GEMV-class kernel for thin "
     "shapes, the plan chosen per problem",
     80, 0.0, 0, gk_ladder_15_stream_k, gk_ladder_15_stream_k_scratch},
    {"16_wgmma_tf32",
     "Hopper's warpgroup MMA: wgmma m64n128k8 TF32 reads both tiles from shared memory "
     "through descriptors (128-byte swizzle), accumulators in registers; tiles by "
     "cp.async, two buffers. B is first copied transposed (wgmma's TF32 is K-major "
     "only), in the timed call",
     90, TF32_TRUNC, 1, gk_ladder_16_wgmma_tf32, gk_ladder_kmajor_scratch},
    {"17_tma_ring",
     "TMA loads into a 4-stage ring guarded by full (expect_tx) and empty mbarriers; "
     "one computing thread issues the loads 4 stages ahead, one wgmma group in flight",
     90, TF32_TRUNC, 1, gk_ladder_17_tma_ring, gk_ladder_kmajor_scratch},
    {"18_warp_specialized",
     "the production sm_90a kernel: a producer warpgroup (setmaxnreg down) issues TMA, "
     "two consumer warpgroups (setmaxnreg up) compute a 128x256 tile, TMA store of C; "
     "one tile per CTA",
     90, TF32_TRUNC, 1, gk_ladder_18_warp_specialized, gk_ladder_kmajor_scratch},
    {"19_persistent",
     "one CTA per SM walks the tiles in grouped order; the producer loads the next "
     "tile during the epilogue",
     90, TF32_TRUNC, 1, gk_ladder_19_persistent, gk_ladder_kmajor_scratch},
    {"20_clusters",
     "clusters of 2 CTAs share each B tile by TMA multicast; tile width chosen per "
     "problem: the TF32 path of gk_cuda_gemm_ex",
     90, TF32_TRUNC, 1, gk_ladder_20_clusters, gk_ladder_kmajor_scratch},
};

const gk_kernel_entry *gk_cuda_registry(int *count) {
    *count = (int)(sizeof entries / sizeof entries[0]);
    return entries;
}

const gk_plan_ops *gk_cuda_plan_ops(void) {
    static const gk_plan_ops ops = {gk_sgemm_plan_pick,    gk_sgemm_plan_candidates,
                                    gk_sgemm_plan_valid,   gk_sgemm_plan_scratch,
                                    gk_sgemm_plan_launch,  gk_sgemm_plan_name};
    return &ops;
}
