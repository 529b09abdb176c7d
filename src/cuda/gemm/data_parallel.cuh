/*
 * data_parallel.cuh — the data-parallel SIMT kernel, one block per tile of C (main loop over all of
 * K, then the epilogue), and its launch templates. Ladder steps 10, 11 and 13 run it as it is with
 * different tile configurations; the stream-K launcher (stream_k.cu) runs it on the tiles it does
 * not split.
 */
#ifndef GK_CUDA_GEMM_DATA_PARALLEL_CUH
#define GK_CUDA_GEMM_DATA_PARALLEL_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda/gemm/epilogue.cuh"
#include "cuda/gemm/kernel.cuh"
#include "cuda/gemm/mainloop.cuh"
#include "cuda/gemm/tile.cuh"
#include "cuda/gemm/util.cuh"

namespace gk_gemm {

/* One whole tile: the main loop over all of K, then the epilogue. */
template <class C, bool VEC_B>
__device__ __forceinline__ void whole_tile(const gk_rm_problem &p, const int64_t m0,
                                           const int64_t n0, const bool vec_c) {
    float acc[C::TM][C::TN];
    const int64_t ktiles = gk_ceil_div(p.k, C::BK);
    tile_mainloop<C, VEC_B>(p, m0, n0, 0, ktiles, p.k, acc);
    epilogue<C>(p, m0, n0, acc, vec_c);
}

/* Block b computes tile b in tile_origin's order (blocks rasterised in groups of group_m tile rows
 * so concurrently running blocks share A and B panels in L2; group_m == 1 is row-major order). */
template <class C, bool VEC_B>
__global__ void __launch_bounds__(C::THREADS, C::MIN_BLOCKS)
    sgemm_pipeline(const gk_rm_problem p, const int group_m, const bool vec_c) {
    int64_t m0, n0;
    tile_origin(p, C::BM, C::BN, group_m, blockIdx.x, &m0, &n0);
    whole_tile<C, VEC_B>(p, m0, n0, vec_c);
}

/* 16-byte B copies need whole vectors: n % 4 == 0 (or rows padded past n) as well as alignment
 * (see cp_async_16). */
inline bool vec_b_ok(const gk_rm_problem &p) {
    return gk_vec_ok(p.b, p.ldb) && (p.n % 4 == 0 || p.b_padded);
}

/* Allow kernel `kern` the dynamic shared memory of configuration C. */
template <class C, class K> cudaError_t allow_smem(K kern) {
    if (C::SMEM_BYTES <= 48 * 1024) return cudaSuccess;
    return cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, C::SMEM_BYTES);
}

/* Launch configuration C on the first `tiles` tiles of p (in tile_origin order), one block per
 * tile, with 16-byte B copies when B allows them. */
template <class C>
cudaError_t launch_tiles(const gk_rm_problem &p, int group_m, cudaStream_t s, int64_t tiles) {
    if (tiles > 0x7fffffff) return cudaErrorInvalidValue;
    const bool vec_c = gk_vec_ok(p.c, p.ldc);
    auto kern = vec_b_ok(p) ? sgemm_pipeline<C, true> : sgemm_pipeline<C, false>;
    const cudaError_t e = allow_smem<C>(kern);
    if (e != cudaSuccess) return e;
    kern<<<(unsigned)tiles, C::THREADS, C::SMEM_BYTES, s>>>(p, group_m, vec_c);
    return cudaGetLastError();
}

/* Launch configuration C on the whole of p. */
template <class C> cudaError_t launch(const gk_rm_problem &p, int group_m, cudaStream_t s) {
    return launch_tiles<C>(p, group_m, s, gk_ceil_div(p.m, C::BM) * gk_ceil_div(p.n, C::BN));
}

} // namespace gk_gemm

#endif
