/*
 * repack.cu — the data movement around the mixed-precision GEMM kernels: an operand copied into
 * the workspace in the K-major, zero-padded form a tensor-core kernel reads (with FP8 -> BF16
 * conversion or the 3xTF32 split on the way: mixed.h), and C = beta * C in C's format for calls
 * without a product.
 *
 * The repack stages 64 x 64 tiles in shared memory (as 32-bit words, one per element, rows padded
 * by one word, so both the row-wise and the column-wise accesses of the tile hit 32 banks): the
 * source is read along its contiguous dimension whichever major order it has, and the destination
 * is written along K. Grids are capped at the hardware limits and the kernels stride over tiles,
 * so any 64-bit shape is covered; all indexing is 64-bit.
 */
#include "cuda/mixed/elem.cuh"
#include "cuda/mixed/mixed.h"

namespace {

enum { TILE = 64, TX = 32, TY = 8, MAX_GRID_Y = 65535, MAX_GRID_X = 1 << 20 };
enum Mode { COPY, FP8_TO_BF16, SPLIT };

/* The element bits as a word (SIZE bytes at src[idx]). */
template <int SIZE> __device__ __forceinline__ uint32_t load_bits(const void *src, int64_t idx) {
    if (SIZE == 1) return static_cast<const uint8_t *>(src)[idx];
    if (SIZE == 2) return static_cast<const uint16_t *>(src)[idx];
    return static_cast<const uint32_t *>(src)[idx];
}

template <int SIZE> __device__ __forceinline__ void store_bits(void *dst, int64_t idx, uint32_t v) {
    if (SIZE == 1)
        static_cast<uint8_t *>(dst)[idx] = (uint8_t)v;
    else if (SIZE == 2)
        static_cast<uint16_t *>(dst)[idx] = (uint16_t)v;
    else
        static_cast<uint32_t *>(dst)[idx] = v;
}

/* MODE COPY moves SIZE-byte elements unchanged; FP8_TO_BF16 reads bytes and writes BF16 bits;
 * SPLIT reads float32 and writes the TF32 high part at kk and the low part at k_lo + kk. */
template <int MODE, int SIZE> __global__ void repack_kernel(const gk_repack r) {
    constexpr int IN = MODE == COPY ? SIZE : MODE == FP8_TO_BF16 ? 1 : 4;
    constexpr int OUT = MODE == COPY ? SIZE : MODE == FP8_TO_BF16 ? 2 : 4;
    __shared__ uint32_t tile[TILE][TILE + 1]; /* [row][kk] */
    /* destination columns this grid covers: the split writes two per source column */
    const int64_t cols = MODE == SPLIT ? r.k_lo : r.ld_dst;
    const int64_t tiles_r = (r.rows + TILE - 1) / TILE, tiles_c = (cols + TILE - 1) / TILE;
    const bool e4m3 = r.src_fmt == GK_F8_E4M3FN;
    for (int64_t tr = blockIdx.y; tr < tiles_r; tr += gridDim.y)
        for (int64_t tc = blockIdx.x; tc < tiles_c; tc += gridDim.x) {
            const int64_t r0 = tr * TILE, c0 = tc * TILE;
            if (c0 < r.k) { /* tiles wholly in the padding have nothing to read */
                for (int i = threadIdx.y; i < TILE; i += TY)
#pragma unroll
                    for (int h = 0; h < TILE; h += TX) {
                        /* consecutive threads take consecutive source addresses */
                        if (!r.src_mn_major) {
                            const int64_t row = r0 + i, kk = c0 + h + threadIdx.x;
                            if (row < r.rows && kk < r.k)
                                tile[i][h + threadIdx.x] =
                                    load_bits<IN>(r.src, row * r.ld_src + kk);
                        } else {
                            const int64_t row = r0 + h + threadIdx.x, kk = c0 + i;
                            if (row < r.rows && kk < r.k)
                                tile[h + threadIdx.x][i] =
                                    load_bits<IN>(r.src, kk * r.ld_src + row);
                        }
                    }
            }
            __syncthreads();
            for (int i = threadIdx.y; i < TILE; i += TY)
#pragma unroll
                for (int h = 0; h < TILE; h += TX) {
                    const int64_t row = r0 + i, kk = c0 + h + threadIdx.x;
                    if (row >= r.rows || kk >= cols) continue;
                    const bool in = kk < r.k;
                    const uint32_t v = in ? tile[i][h + threadIdx.x] : 0u;
                    const int64_t at = row * r.ld_dst + kk;
                    if (MODE == COPY) {
                        store_bits<OUT>(r.dst, at, v);
                    } else if (MODE == FP8_TO_BF16) {
                        const float x =
                            e4m3 ? gk_decode_e4m3fn((uint8_t)v) : gk_decode_e5m2((uint8_t)v);
                        store_bits<OUT>(r.dst, at, in ? __float_as_uint(x) >> 16 : 0u);
                    } else {
                        const float x = __uint_as_float(v), hi = gk_mixed::tf32_rna(x);
                        const float lo = gk_mixed::tf32_rna(x - hi);
                        store_bits<OUT>(r.dst, at, __float_as_uint(hi));
                        store_bits<OUT>(r.dst, at + r.k_lo, __float_as_uint(lo));
                    }
                }
            __syncthreads(); /* the tile is reused by the next iteration */
        }
}

template <int MODE, int SIZE> cudaError_t launch(const gk_repack &r, cudaStream_t stream) {
    const int64_t cols = MODE == SPLIT ? r.k_lo : r.ld_dst;
    const int64_t tiles_r = (r.rows + TILE - 1) / TILE, tiles_c = (cols + TILE - 1) / TILE;
    const dim3 grid((unsigned)(tiles_c < MAX_GRID_X ? tiles_c : MAX_GRID_X),
                    (unsigned)(tiles_r < MAX_GRID_Y ? tiles_r : MAX_GRID_Y));
    repack_kernel<MODE, SIZE><<<grid, dim3(TX, TY), 0, stream>>>(r);
    return cudaGetLastError();
}

/* Threads run along the contiguous rows of C; beta == 0 never loads C. */
__global__ void scale_c_kernel(void *c, gk_format tc, int64_t rows, int64_t cols, int64_t ldc,
                               float beta) {
    for (int64_t i = blockIdx.y; i < rows; i += gridDim.y)
        for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < cols;
             j += (int64_t)gridDim.x * blockDim.x)
            gk_mixed::store_c(c, i * ldc + j, tc, 0.0f, beta);
}

} // namespace

cudaError_t gk_repack_operand(const gk_repack &r, cudaStream_t stream) {
    if (r.k_lo > 0) return launch<SPLIT, 4>(r, stream);
    if (r.src_fmt != r.dst_fmt) return launch<FP8_TO_BF16, 1>(r, stream);
    switch (gk_format_size(r.src_fmt)) {
    case 1:
        return launch<COPY, 1>(r, stream);
    case 2:
        return launch<COPY, 2>(r, stream);
    default:
        return launch<COPY, 4>(r, stream);
    }
}

cudaError_t gk_scale_c(void *c, gk_format tc, int64_t rows, int64_t cols, int64_t ldc, float beta,
                       cudaStream_t stream) {
    const int threads = 256;
    const int64_t bx = (cols + threads - 1) / threads;
    const dim3 grid((unsigned)(bx < 64 ? bx : 64),
                    (unsigned)(rows < MAX_GRID_Y ? rows : MAX_GRID_Y));
    scale_c_kernel<<<grid, threads, 0, stream>>>(c, tc, rows, cols, ldc, beta);
    return cudaGetLastError();
}
