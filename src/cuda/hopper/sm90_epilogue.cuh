/*
 * sm90_epilogue.cuh — the epilogue of the sm_90a kernel: alpha, beta and the output type applied
 * to a consumer's accumulators, stored through shared memory with TMA (beta == 0, aligned C) or
 * straight to global memory as pairs of columns (single elements of a transposed C); a split-K
 * unit's unscaled chunk sum into the workspace; and the split plan's second pass, which adds the
 * chunk sums in chunk order and applies the same epilogue (sm90_plan.h: the same bits as a whole
 * tile).
 */
#ifndef GK_CUDA_HOPPER_SM90_EPILOGUE_CUH
#define GK_CUDA_HOPPER_SM90_EPILOGUE_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cuda/hopper/sm90_config.cuh"

namespace gk_sm90 {

#ifdef GK_SM90A
/* Elements (row, col) and (row, col + 1) of the product: alpha, beta and C's type applied. */
__device__ __forceinline__ void store_pair(const params &p, int64_t row, int64_t col, float v0,
                                           float v1, float alpha, float beta) {
    if (row >= p.m || col >= p.n) return;
    /* the second element: the next one in memory, or a column of C (ldc) further when transposed */
    const int64_t off = p.c_trans ? col * p.ldc + row : row * p.ldc + col;
    const int64_t next = p.c_trans ? p.ldc : 1;
    const bool both = col + 1 < p.n;
    if (p.c_type == OUT_F32) {
        float *c = (float *)p.c + off;
        if (both && p.c_pair) {
            float2 r = make_float2(alpha * v0, alpha * v1);
            if (beta != 0.0f) {
                const float2 o = *(const float2 *)c;
                r.x = fmaf(beta, o.x, r.x), r.y = fmaf(beta, o.y, r.y);
            }
            *(float2 *)c = r;
        } else {
            c[0] = beta != 0.0f ? fmaf(beta, c[0], alpha * v0) : alpha * v0;
            if (both) c[next] = beta != 0.0f ? fmaf(beta, c[next], alpha * v1) : alpha * v1;
        }
    } else if (p.c_type == OUT_BF16) {
        __nv_bfloat16 *c = (__nv_bfloat16 *)p.c + off;
        float r0 = alpha * v0, r1 = alpha * v1;
        if (both && p.c_pair) {
            if (beta != 0.0f) {
                const float2 o = __bfloat1622float2(*(const __nv_bfloat162 *)c);
                r0 = fmaf(beta, o.x, r0), r1 = fmaf(beta, o.y, r1);
            }
            *(__nv_bfloat162 *)c = __floats2bfloat162_rn(r0, r1);
        } else {
            if (beta != 0.0f) r0 = fmaf(beta, __bfloat162float(c[0]), r0);
            c[0] = __float2bfloat16_rn(r0);
            if (both) {
                if (beta != 0.0f) r1 = fmaf(beta, __bfloat162float(c[next]), r1);
                c[next] = __float2bfloat16_rn(r1);
            }
        }
    } else {
        __half *c = (__half *)p.c + off;
        float r0 = alpha * v0, r1 = alpha * v1;
        if (both && p.c_pair) {
            if (beta != 0.0f) {
                const float2 o = __half22float2(*(const __half2 *)c);
                r0 = fmaf(beta, o.x, r0), r1 = fmaf(beta, o.y, r1);
            }
            *(__half2 *)c = __floats2half2_rn(r0, r1);
        } else {
            if (beta != 0.0f) r0 = fmaf(beta, __half2float(c[0]), r0);
            c[0] = __float2half_rn(r0);
            if (both) {
                if (beta != 0.0f) r1 = fmaf(beta, __half2float(c[next]), r1);
                c[next] = __float2half_rn(r1);
            }
        }
    }
}

/* One converted element into a staging box line, at byte `byte` of the line before the TMA
 * 128-byte swizzle (16-byte chunk index XOR line % 8). */
__device__ __forceinline__ uint8_t *swizzled(uint8_t *box, int line, int byte) {
    return box + line * ROW_BYTES + (((byte >> 4) ^ (line & 7)) << 4) + (byte & 15);
}

/* Epilogue through shared memory: one consumer's 64 x BN slice of the tile, scaled by alpha,
 * converted to OUT and written into its staging buffer as boxes of 64 lines x 128 bytes in the
 * TMA 128-byte swizzle, two boxes per round, each round stored by one thread with TMA. A bulk
 * store reads the buffer asynchronously, so the next round first waits for the previous one's
 * reads. A line is a row of the slice (128 bytes of its columns), or with TRANS (C stored
 * transposed) a column of it (128 bytes of its rows); either way the fragment's writes fall in
 * distinct 16-byte chunks of the swizzle, free of bank conflicts. */
template <class C, int OUT, bool TRANS>
__device__ __forceinline__ void store_tile_tma(const CUtensorMap *map_c, const float *acc,
                                               uint8_t *buf, int barrier_id, int warp, int lane,
                                               int32_t row0, int32_t col0, float alpha) {
    constexpr int CB = OUT == OUT_F32 ? 4 : 2;
    constexpr int E = ROW_BYTES / CB; /* output elements per box line */
    /* TRANS: boxes of E rows x 64 columns, RBOX of them down the slice's 64 rows */
    constexpr int RBOX = 64 / E;
    constexpr int BOXES = TRANS ? RBOX * (C::BN / 64) : C::BN / E;
    constexpr int PER_ROUND = EPI_BYTES / (64 * ROW_BYTES);
    const bool leader = threadIdx.x % 128 == 0;
#pragma unroll
    for (int r0 = 0; r0 < BOXES; r0 += PER_ROUND) {
        if (leader) bulk_wait_read<0>();
        named_barrier(barrier_id, 128);
#pragma unroll
        for (int b = r0; b < r0 + PER_ROUND && b < BOXES; ++b) {
            uint8_t *box = buf + (b - r0) * 64 * ROW_BYTES;
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int row = warp * 16 + lane / 4 + 8 * h;
                if constexpr (TRANS) {
                    if (row / E != b % RBOX) continue; /* a box of other rows */
                }
#pragma unroll
                for (int jj = 0; jj < (TRANS ? 8 : E / 8); ++jj) {
                    /* n8 block of the fragment */
                    const int j = TRANS ? (b / RBOX) * 8 + jj : b * (E / 8) + jj;
                    const float v0 = alpha * acc[4 * j + 2 * h],
                                v1 = alpha * acc[4 * j + 2 * h + 1];
                    if constexpr (TRANS) {
                        const int line = jj * 8 + 2 * (lane % 4), byte = (row % E) * CB;
                        uint8_t *d0 = swizzled(box, line, byte),
                                *d1 = swizzled(box, line + 1, byte);
                        if constexpr (OUT == OUT_F32)
                            *(float *)d0 = v0, *(float *)d1 = v1;
                        else if constexpr (OUT == OUT_BF16)
                            *(__nv_bfloat16 *)d0 = __float2bfloat16_rn(v0),
                                            *(__nv_bfloat16 *)d1 = __float2bfloat16_rn(v1);
                        else
                            *(__half *)d0 = __float2half_rn(v0),
                                     *(__half *)d1 = __float2half_rn(v1);
                    } else {
                        uint8_t *dst = swizzled(box, row, (jj * 8 + 2 * (lane % 4)) * CB);
                        if constexpr (OUT == OUT_F32)
                            *(float2 *)dst = make_float2(v0, v1);
                        else if constexpr (OUT == OUT_BF16)
                            *(__nv_bfloat162 *)dst = __floats2bfloat162_rn(v0, v1);
                        else
                            *(__half2 *)dst = __floats2half2_rn(v0, v1);
                    }
                }
            }
        }
        fence_proxy_async_smem();
        named_barrier(barrier_id, 128);
        if (leader) {
#pragma unroll
            for (int b = r0; b < r0 + PER_ROUND && b < BOXES; ++b) {
                uint8_t *box = buf + (b - r0) * 64 * ROW_BYTES;
                if constexpr (TRANS) /* C's lines run along the kernel's rows */
                    tma_store_2d(map_c, box, row0 + (b % RBOX) * E, col0 + (b / RBOX) * 64);
                else
                    tma_store_2d(map_c, box, col0 + b * E, row0);
            }
            bulk_commit();
        }
    }
}

/* store_tile_tma for C's type (a runtime value: the epilogue is a small part of the kernel). */
template <class C, bool TRANS>
__device__ __forceinline__ void store_tile(const params &p, const CUtensorMap *map_c,
                                           const float *acc, uint8_t *buf, int cw, int warp,
                                           int lane, int32_t r0, int32_t c0, float alpha) {
    if (p.c_type == OUT_F32)
        store_tile_tma<C, OUT_F32, TRANS>(map_c, acc, buf, 1 + cw, warp, lane, r0, c0, alpha);
    else if (p.c_type == OUT_BF16)
        store_tile_tma<C, OUT_BF16, TRANS>(map_c, acc, buf, 1 + cw, warp, lane, r0, c0, alpha);
    else
        store_tile_tma<C, OUT_F16, TRANS>(map_c, acc, buf, 1 + cw, warp, lane, r0, c0, alpha);
}

/* A split unit's chunk sum, unscaled float32, into the workspace (params::ws), pairs of columns. */
template <class C>
__device__ __forceinline__ void store_chunk(const params &p, const float *acc, int c, int64_t row0,
                                            int64_t col0) {
#pragma unroll
    for (int j = 0; j < C::BN / 8; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int64_t row = row0 + 8 * h, col = col0 + 8 * j;
            if (row >= p.m || col >= p.n) continue;
            float *w = p.ws + ((int64_t)c * p.m + row) * p.ws_ld + col;
            *(float2 *)w = make_float2(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
        }
}
#endif /* GK_SM90A */

/* The split plan's second pass (sm90_plan.h): the chunk sums of each element added in chunk order,
 * the first one copied, exactly as a whole tile adds them in registers, then store_pair's
 * epilogue, so both plans give the same bits. One thread per pair of columns; consecutive threads
 * take consecutive lines of C in memory (rows, or columns when C is stored transposed). */
__global__ void __launch_bounds__(256) reduce_chunks(const params p) {
#ifdef GK_SM90A
    const int64_t pairs = (p.n + 1) / 2;
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.m * pairs) return;
    int64_t row, col;
    if (p.c_trans)
        col = 2 * (i / p.m), row = i - (i / p.m) * p.m;
    else
        row = i / pairs, col = 2 * (i - row * pairs);
    const float *w = p.ws + row * p.ws_ld + col;
    float2 v = *(const float2 *)w;
    for (int c = 1; c < p.chunks; ++c) {
        const float2 x = *(const float2 *)(w + (int64_t)c * p.m * p.ws_ld);
        v.x += x.x, v.y += x.y;
    }
    float alpha = p.alpha;
    if (p.scale_a) alpha *= *p.scale_a;
    if (p.scale_b) alpha *= *p.scale_b;
    store_pair(p, row, col, v.x, v.y, alpha, p.beta);
#endif
}

} // namespace gk_sm90

#endif
