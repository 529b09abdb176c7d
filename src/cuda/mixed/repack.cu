/*
 * repack.cu — the data movement around the mixed-precision and block-scaled GEMM kernels: an
 * operand copied into the workspace in the K-major, zero-padded form a tensor-core kernel reads
 * (with the 3xTF32 split, or a code conversion — FP8/FP6/FP4 to BF16 or float32, block scales
 * applied — on the way: mixed.h), per-row block scales transposed for the sm_90a kernel,
 * and C = beta * C in C's format for calls without a product.
 *
 * The repack stages 64 x 64 tiles in shared memory (as 32-bit words, one per element, rows padded
 * by one word, so both the row-wise and the column-wise accesses of the tile hit 32 banks): the
 * source is read along its contiguous dimension whichever major order it has, and the destination
 * is written along K. A conversion of a K-major source needs no transposition and has its own
 * kernel: 16 codes per thread in one 16-byte load, decoded through a table in shared memory,
 * one block scale per 16 codes (the blocks are 32 or 128 long), written with 16-byte stores; the
 * tiled one decoded each code through the format's scalar code and read a scale per element,
 * several times slower than a copy. Grids are capped at the hardware limits and the kernels
 * stride over their work, so any 64-bit shape is covered; all indexing is 64-bit.
 */
#include "cuda/mixed/elem.cuh"
#include "cuda/mixed/mixed.h"

namespace {

enum { TILE = 64, TX = 32, TY = 8, MAX_GRID_Y = 65535, MAX_GRID_X = 1 << 20 };
enum Mode { COPY, CONVERT, SPLIT };

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

/* The block scale of element (row, kk), in the caller's layout (mixed.h, gk_repack). The groups
 * are powers of two (32, 128): shifts, not 64-bit divisions, per element. */
__device__ __forceinline__ float block_scale(const gk_repack &r, int64_t row, int64_t kk) {
    const int64_t blk = kk >> (r.scale_group == 32 ? 5 : 7);
    switch (r.scale_kind) {
    case GK_REPACK_SCALE_ROW_F32:
        return static_cast<const float *>(r.scale)[row * r.scale_ld + blk];
    case GK_REPACK_SCALE_BLK128_F32:
        return static_cast<const float *>(r.scale)[(row >> 7) * r.scale_ld + (kk >> 7)];
    default: /* GK_REPACK_SCALE_ROW_E8M0 */
        return gk_decode_e8m0fnu(static_cast<const uint8_t *>(r.scale)[row * r.scale_ld + blk]);
    }
}

/* MODE COPY moves SIZE-byte elements unchanged; CONVERT reads one code per byte (r.src_fmt),
 * multiplies its value by its block scale (if any) and writes it as a SIZE-byte BF16 or float32;
 * SPLIT reads float32 and writes the TF32 high part at kk and the low part at k_lo + kk. */
template <int MODE, int SIZE> __global__ void repack_kernel(const gk_repack r) {
    constexpr int IN = MODE == COPY ? SIZE : MODE == CONVERT ? 1 : 4;
    constexpr int OUT = MODE == SPLIT ? 4 : SIZE;
    __shared__ uint32_t tile[TILE][TILE + 1]; /* [row][kk] */
    /* destination columns this grid covers: the split writes two per source column */
    const int64_t cols = MODE == SPLIT ? r.k_lo : r.ld_dst;
    const int64_t tiles_r = (r.rows + TILE - 1) / TILE, tiles_c = (cols + TILE - 1) / TILE;
    const bool scaled = r.scale_kind != GK_REPACK_SCALE_NONE;
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
                    } else if (MODE == CONVERT) {
                        uint32_t out = 0u; /* padding: zeros, never a scale times zero */
                        if (in) {
                            float x = gk_decode_scalar(r.src_fmt, v);
                            if (scaled) x *= block_scale(r, row, kk);
                            out = OUT == 2 ? gk_encode_bf16(x, 0) : __float_as_uint(x);
                        }
                        store_bits<OUT>(r.dst, at, out);
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

/* CONVERT of a K-major source (file comment): thread chunk q of a row covers destination columns
 * [16q, 16q + 16), codes past k and the padding up to ld_dst written as zeros. OUT is 2 (BF16) or
 * 4 (float32); the same decode, scale and rounding as repack_kernel's CONVERT. */
constexpr int CHUNK = 16, CONVERT_THREADS = 256;
template <int OUT> __global__ void convert_rows_kernel(const gk_repack r, bool vec_in, bool vec_out) {
    __shared__ float lut[256];
    for (int c = threadIdx.x; c < 256; c += blockDim.x) lut[c] = gk_decode_scalar(r.src_fmt, c);
    __syncthreads();
    const bool scaled = r.scale_kind != GK_REPACK_SCALE_NONE;
    const int64_t chunks = (r.ld_dst + CHUNK - 1) / CHUNK;
    const uint8_t *src = static_cast<const uint8_t *>(r.src);
    for (int64_t row = blockIdx.y; row < r.rows; row += gridDim.y)
        for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < chunks;
             q += (int64_t)gridDim.x * blockDim.x) {
            const int64_t k0 = q * CHUNK;
            uint8_t code[CHUNK];
            if (vec_in && k0 + CHUNK <= r.k) {
                *reinterpret_cast<uint4 *>(code) =
                    *reinterpret_cast<const uint4 *>(src + row * r.ld_src + k0);
            } else {
#pragma unroll
                for (int e = 0; e < CHUNK; ++e)
                    code[e] = k0 + e < r.k ? src[row * r.ld_src + k0 + e] : 0;
            }
            const float sc = scaled && k0 < r.k ? block_scale(r, row, k0) : 1.0f;
            uint32_t out[CHUNK];
#pragma unroll
            for (int e = 0; e < CHUNK; ++e) {
                float x = lut[code[e]];
                if (scaled) x *= sc;
                const uint32_t v = OUT == 2 ? gk_encode_bf16(x, 0) : __float_as_uint(x);
                out[e] = k0 + e < r.k ? v : 0u; /* padding: zeros, never a scale times zero */
            }
            const int64_t at = row * r.ld_dst + k0;
            if (vec_out && k0 + CHUNK <= r.ld_dst) {
#pragma unroll
                for (int v = 0; v < CHUNK * OUT / 16; ++v) {
                    uint4 w;
                    if (OUT == 2)
                        w = make_uint4(out[8 * v] | out[8 * v + 1] << 16,
                                       out[8 * v + 2] | out[8 * v + 3] << 16,
                                       out[8 * v + 4] | out[8 * v + 5] << 16,
                                       out[8 * v + 6] | out[8 * v + 7] << 16);
                    else
                        w = make_uint4(out[4 * v], out[4 * v + 1], out[4 * v + 2], out[4 * v + 3]);
                    reinterpret_cast<uint4 *>(static_cast<char *>(r.dst) + at * OUT)[v] = w;
                }
            } else {
#pragma unroll
                for (int e = 0; e < CHUNK; ++e)
                    if (k0 + e < r.ld_dst) store_bits<OUT>(r.dst, at + e, out[e]);
            }
        }
}

template <int OUT> cudaError_t launch_convert_rows(const gk_repack &r, cudaStream_t stream) {
    if (r.rows <= 0 || r.ld_dst <= 0) return cudaSuccess;
    const int64_t chunks = (r.ld_dst + CHUNK - 1) / CHUNK;
    const int64_t bx = (chunks + CONVERT_THREADS - 1) / CONVERT_THREADS;
    const dim3 grid((unsigned)(bx < MAX_GRID_X ? bx : MAX_GRID_X),
                    (unsigned)(r.rows < MAX_GRID_Y ? r.rows : MAX_GRID_Y));
    const bool vec_in = (uintptr_t)r.src % 16 == 0 && r.ld_src % 16 == 0;
    const bool vec_out = (uintptr_t)r.dst % 16 == 0 && (r.ld_dst * OUT) % 16 == 0;
    convert_rows_kernel<OUT><<<grid, CONVERT_THREADS, 0, stream>>>(r, vec_in, vec_out);
    return cudaGetLastError();
}

template <int MODE, int SIZE> cudaError_t launch(const gk_repack &r, cudaStream_t stream) {
    const int64_t cols = MODE == SPLIT ? r.k_lo : r.ld_dst;
    const int64_t tiles_r = (r.rows + TILE - 1) / TILE, tiles_c = (cols + TILE - 1) / TILE;
    const dim3 grid((unsigned)(tiles_c < MAX_GRID_X ? tiles_c : MAX_GRID_X),
                    (unsigned)(tiles_r < MAX_GRID_Y ? tiles_r : MAX_GRID_Y));
    repack_kernel<MODE, SIZE><<<grid, dim3(TX, TY), 0, stream>>>(r);
    return cudaGetLastError();
}

/* Per-row scales, rows x kb (row stride kb) -> dst[j * ld_dst + r], through 32 x 32 tiles in
 * shared memory ([r][j], padded by one word against bank conflicts). The rows (long) run along
 * grid x, the blocks along grid y. A tile is read as one run of its rows' w = min(32, kb - j0)
 * scales, so a short row (kb < 32, the common case) still gives contiguous loads; it is written
 * along r, contiguous in dst. Rows [rows, ld_dst) get zeros. */
__global__ void scales_transpose_kernel(const float *src, int64_t rows, int64_t kb, float *dst,
                                        int64_t ld_dst) {
    __shared__ float tile[TX][TX + 1];
    const int64_t tiles_r = (ld_dst + TX - 1) / TX, tiles_j = (kb + TX - 1) / TX;
    for (int64_t tj = blockIdx.y; tj < tiles_j; tj += gridDim.y)
        for (int64_t tr = blockIdx.x; tr < tiles_r; tr += gridDim.x) {
            const int64_t r0 = tr * TX, j0 = tj * TX;
            const int w = (int)(kb - j0 < TX ? kb - j0 : TX);
            for (int e = threadIdx.y * TX + threadIdx.x; e < TX * w; e += TX * TY) {
                const int i = e / w, jj = e % w;
                const int64_t at = (r0 + i) * kb + j0 + jj;
                if (r0 + i < rows) tile[i][jj] = src[at];
            }
            __syncthreads();
            for (int i = threadIdx.y; i < w; i += TY) {
                const int64_t r = r0 + threadIdx.x;
                if (r < ld_dst) dst[(j0 + i) * ld_dst + r] = r < rows ? tile[threadIdx.x][i] : 0.0f;
            }
            __syncthreads(); /* the tile is reused by the next iteration */
        }
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
    const bool scaled = r.scale_kind != GK_REPACK_SCALE_NONE;
    if (r.src_fmt == r.dst_fmt && !scaled) {
        switch (gk_format_size(r.src_fmt)) {
        case 1:
            return launch<COPY, 1>(r, stream);
        case 2:
            return launch<COPY, 2>(r, stream);
        case 4:
            return launch<COPY, 4>(r, stream);
        default: /* FP6/FP4 codes: converted only (below) */
            break;
        }
    }
    /* conversions of one-byte codes (mixed.h lists them) */
    const gk_format s = r.src_fmt;
    const bool code = s == GK_F8_E4M3FN || s == GK_F8_E5M2 || s == GK_F6_E2M3FN ||
                      s == GK_F6_E3M2FN || s == GK_F4_E2M1FN;
    if (!code) return cudaErrorInvalidValue;
    if (scaled) {
        const bool rowwise =
            r.scale_kind == GK_REPACK_SCALE_ROW_F32 || r.scale_kind == GK_REPACK_SCALE_ROW_E8M0;
        if (r.scale == nullptr || r.scale_ld <= 0 ||
            (r.scale_kind != GK_REPACK_SCALE_BLK128_F32 && !rowwise) ||
            (rowwise && r.scale_group != 32 && r.scale_group != 128))
            return cudaErrorInvalidValue;
    }
    switch (r.dst_fmt) {
    case GK_BF16:
        return r.src_mn_major ? launch<CONVERT, 2>(r, stream) : launch_convert_rows<2>(r, stream);
    case GK_F32:
        return r.src_mn_major ? launch<CONVERT, 4>(r, stream) : launch_convert_rows<4>(r, stream);
    default:
        return cudaErrorInvalidValue;
    }
}

cudaError_t gk_scales_transpose(const float *src, int64_t rows, int64_t kb, float *dst,
                                int64_t ld_dst, cudaStream_t stream) {
    if (rows < 0 || kb < 0 || ld_dst < rows || ld_dst % 4) return cudaErrorInvalidValue;
    if (ld_dst == 0 || kb == 0) return cudaSuccess;
    const int64_t tiles_r = (ld_dst + TX - 1) / TX, tiles_j = (kb + TX - 1) / TX;
    const dim3 grid((unsigned)(tiles_r < MAX_GRID_X ? tiles_r : MAX_GRID_X),
                    (unsigned)(tiles_j < MAX_GRID_Y ? tiles_j : MAX_GRID_Y));
    scales_transpose_kernel<<<grid, dim3(TX, TY), 0, stream>>>(src, rows, kb, dst, ld_dst);
    return cudaGetLastError();
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
