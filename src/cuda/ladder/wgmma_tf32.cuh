/*
 * wgmma_tf32.cuh — the consumer math shared by ladder steps 16 and 17: one warpgroup's wgmmas over
 * a 32-float K slice of shared-memory tiles in the 128-byte swizzle, and the store of its
 * accumulators. The tiles are 128 rows of 128 bytes (32 TF32 elements of K per row) starting on a
 * 1024-byte boundary, each 16-byte chunk c of row r stored at chunk c ^ (r % 8): the layout a TMA
 * load with CU_TENSOR_MAP_SWIZZLE_128B writes, and the K-major layout wgmma's matrix descriptor
 * reads with the 128-byte swizzle (PTX ISA, "Shared Memory Matrix Layout"; the same descriptors
 * as the production kernel, src/cuda/hopper/gemm_sm90.cuh).
 */
#ifndef GK_CUDA_LADDER_WGMMA_TF32_CUH
#define GK_CUDA_LADDER_WGMMA_TF32_CUH

#include "cuda/gemm/epilogue.cuh"
#include "cuda/ptx/sm90.cuh"

namespace gk_ladder_tc {

constexpr int BM = 128, BN = 128; /* block tile: two warpgroups of 64 rows each */
constexpr int BK = 32;            /* floats of K per stage: one 128-byte swizzle row */
constexpr int ROW_BYTES = 128, TILE_BYTES = BM * ROW_BYTES; /* A and B tiles alike (BN == BM) */
constexpr int NACC = BN / 2; /* accumulators per thread: 64 rows x BN over 128 threads */

/* Byte offset of 16-byte chunk c of row r in a tile (the 128-byte swizzle). */
__host__ __device__ __forceinline__ uint32_t swizzle_128b(int r, int c) {
    return r * ROW_BYTES + ((c ^ (r & 7)) << 4);
}

#ifdef GK_SM90A
/* acc (64 x BN, this warpgroup's rows of the tile) += A slice (64 rows at a_base) * B tile (BN
 * rows at b_base)^T over one stage's K: four m64n128k8 wgmmas, each 8 floats = 32 bytes further
 * along the swizzled rows (the descriptor's stride: 8 rows = 1024 bytes; its leading offset is
 * unused by K-major swizzled layouts). Issued, committed as one group, not waited for. */
__device__ __forceinline__ void mma_stage(float *acc, uint32_t a_base, uint32_t b_base) {
    gk_sm90::wgmma_fence();
#pragma unroll
    for (int j = 0; j < BK / 8; ++j)
        gk_sm90::wgmma_tf32_n128(acc, gk_sm90::desc_sw128(a_base + j * 32, 16, 1024),
                                 gk_sm90::desc_sw128(b_base + j * 32, 16, 1024), 1);
    gk_sm90::wgmma_commit();
}
#endif

/* C = alpha * acc + beta * C for one warpgroup's 64 x BN slice at (row0, col0), guarded at the
 * edges. wgmma's accumulator fragment: acc[4j + 2h + e] is row 16 * warp + lane / 4 + 8h, column
 * 8j + 2 * (lane % 4) + e of the slice (warp and lane inside the warpgroup). */
__device__ __forceinline__ void store_acc(const gk_rm_problem &p, const float *acc, int64_t row0,
                                          int64_t col0) {
    const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    const int64_t r = row0 + warp * 16 + lane / 4, c = col0 + 2 * (lane % 4);
#pragma unroll
    for (int j = 0; j < BN / 8; ++j)
#pragma unroll
        for (int i = 0; i < 4; ++i)
            gk_gemm::store_c1(p, r + 8 * (i / 2), c + 8 * j + i % 2, acc[4 * j + i]);
}

/* Whether this build holds sm_90a code for `kernel` (its body is empty for the build's other
 * targets). Launchers ask once (a function-local static) and also need an sm_90 device. */
inline bool built_for_sm90a(const void *kernel) {
    cudaFuncAttributes attr;
    return cudaFuncGetAttributes(&attr, kernel) == cudaSuccess && attr.binaryVersion == 90;
}

} // namespace gk_ladder_tc

#endif
