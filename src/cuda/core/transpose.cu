/*
 * transpose.cu — the two helper kernels of the dispatcher: an out-of-place transpose that turns a
 * transposed operand into the non-transposed row-major form every ladder kernel expects, and the
 * C = beta * C kernel for calls with k == 0 or alpha == 0.
 *
 * The transpose stages 32x32 tiles in shared memory so both the read of the source rows and the
 * write of the destination rows are coalesced; the tile row is padded by one float so the
 * column-wise reads of the tile hit 32 different banks. Grids are capped at the hardware limits
 * and the kernels stride over tiles, so any 64-bit shape is covered.
 */
#include "cuda/core/core.h"

enum { TILE = 32, ROWS_PER_PASS = 8, MAX_GRID_Y = 65535, MAX_GRID_X = 1 << 20 };

__global__ void transpose_kernel(const float *__restrict__ src, int64_t rows, int64_t cols,
                                 int64_t ld_src, float *__restrict__ dst, int64_t ld_dst) {
    __shared__ float tile[TILE][TILE + 1];
    const int64_t tiles_r = (rows + TILE - 1) / TILE, tiles_c = (cols + TILE - 1) / TILE;
    for (int64_t tr = blockIdx.y; tr < tiles_r; tr += gridDim.y)
        for (int64_t tc = blockIdx.x; tc < tiles_c; tc += gridDim.x) {
            const int64_t r0 = tr * TILE, c0 = tc * TILE;
            for (int i = threadIdx.y; i < TILE; i += ROWS_PER_PASS) {
                const int64_t r = r0 + i, c = c0 + threadIdx.x;
                if (r < rows && c < cols) tile[i][threadIdx.x] = src[r * ld_src + c];
            }
            __syncthreads();
            /* dst row = source column c0 + i, dst column = source row r0 + threadIdx.x */
            for (int i = threadIdx.y; i < TILE; i += ROWS_PER_PASS) {
                const int64_t r = r0 + threadIdx.x, c = c0 + i;
                if (r < rows && c < cols) dst[c * ld_dst + r] = tile[threadIdx.x][i];
            }
            __syncthreads(); /* the tile is reused by the next iteration */
        }
}

cudaError_t gk_cuda_transpose(const float *src, int64_t rows, int64_t cols, int64_t ld_src,
                              float *dst, int64_t ld_dst, cudaStream_t stream) {
    const int64_t tiles_r = (rows + TILE - 1) / TILE, tiles_c = (cols + TILE - 1) / TILE;
    dim3 grid((unsigned)(tiles_c < MAX_GRID_X ? tiles_c : MAX_GRID_X),
              (unsigned)(tiles_r < MAX_GRID_Y ? tiles_r : MAX_GRID_Y));
    transpose_kernel<<<grid, dim3(TILE, ROWS_PER_PASS), 0, stream>>>(src, rows, cols, ld_src, dst,
                                                                     ld_dst);
    return cudaGetLastError();
}

/* Threads run down the contiguous columns of C; a beta of zero never loads C, so NaN or Inf left
 * in C cannot reach the result (BLAS semantics). */
__global__ void scale_kernel(float *c, int64_t m, int64_t n, int64_t ldc, float beta) {
    for (int64_t j = blockIdx.y; j < n; j += gridDim.y)
        for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < m;
             i += (int64_t)gridDim.x * blockDim.x) {
            float *p = c + j * ldc + i;
            *p = beta == 0.0f ? 0.0f : beta * *p;
        }
}

cudaError_t gk_cuda_scale(float *c, int64_t m, int64_t n, int64_t ldc, float beta,
                          cudaStream_t stream) {
    const int threads = 256;
    const int64_t bx = (m + threads - 1) / threads;
    dim3 grid((unsigned)(bx < 64 ? bx : 64), (unsigned)(n < MAX_GRID_Y ? n : MAX_GRID_Y));
    scale_kernel<<<grid, threads, 0, stream>>>(c, m, n, ldc, beta);
    return cudaGetLastError();
}
