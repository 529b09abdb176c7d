/*
 * transpose.cu — the two helper kernels of the dispatcher: an out-of-place transpose that turns a
 * transposed operand into the non-transposed row-major form every ladder kernel expects, and the
 * C = beta * C kernel for calls with k == 0 or alpha == 0.
 *
 * The transpose stages 32x32 tiles in shared memory so both the read of the source rows and the
 * write of the destination rows are coalesced; the tile row is padded by one float so the
 * column-wise reads of the tile hit 32 different banks. Both kernels also take a batch of items
 * (the batched calls, src/cuda/api/sgemm_batched.cu), one per grid z. Grids are capped at the
 * hardware limits and the kernels stride over tiles and items, so any 64-bit shape is covered.
 */
#include "cuda/core/core.h"
#include "cuda/gemm/batched.h"

enum { TILE = 32, ROWS_PER_PASS = 8, MAX_GRID_YZ = 65535, MAX_GRID_X = 1 << 20 };

/* Item it of dst (cols x rows, ld_dst; items dst_stride apart) = transpose of item it of src;
 * blockIdx.z walks the items (one for gk_cuda_transpose). */
__global__ void transpose_kernel(gk_batch_items<const float> src, int64_t rows, int64_t cols,
                                 int64_t ld_src, float *dst, int64_t dst_stride, int64_t ld_dst,
                                 int64_t count) {
    __shared__ float tile[TILE][TILE + 1];
    const int64_t tiles_r = (rows + TILE - 1) / TILE, tiles_c = (cols + TILE - 1) / TILE;
    for (int64_t it = blockIdx.z; it < count; it += gridDim.z) {
        const float *s = src.at(it);
        float *d = dst + it * dst_stride;
        for (int64_t tr = blockIdx.y; tr < tiles_r; tr += gridDim.y)
            for (int64_t tc = blockIdx.x; tc < tiles_c; tc += gridDim.x) {
                const int64_t r0 = tr * TILE, c0 = tc * TILE;
                for (int i = threadIdx.y; i < TILE; i += ROWS_PER_PASS) {
                    const int64_t r = r0 + i, c = c0 + threadIdx.x;
                    if (r < rows && c < cols) tile[i][threadIdx.x] = s[r * ld_src + c];
                }
                __syncthreads();
                /* dst row = source column c0 + i, dst column = source row r0 + threadIdx.x */
                for (int i = threadIdx.y; i < TILE; i += ROWS_PER_PASS) {
                    const int64_t r = r0 + threadIdx.x, c = c0 + i;
                    if (r < rows && c < cols) d[c * ld_dst + r] = tile[threadIdx.x][i];
                }
                __syncthreads(); /* the tile is reused by the next iteration */
            }
    }
}

cudaError_t gk_cuda_transpose_batched(gk_batch_items<const float> src, int64_t rows, int64_t cols,
                                      int64_t ld_src, float *dst, int64_t dst_stride,
                                      int64_t ld_dst, int64_t count, cudaStream_t stream) {
    const int64_t tiles_r = (rows + TILE - 1) / TILE, tiles_c = (cols + TILE - 1) / TILE;
    const dim3 grid((unsigned)(tiles_c < MAX_GRID_X ? tiles_c : MAX_GRID_X),
                    (unsigned)(tiles_r < MAX_GRID_YZ ? tiles_r : MAX_GRID_YZ),
                    (unsigned)(count < MAX_GRID_YZ ? count : MAX_GRID_YZ));
    transpose_kernel<<<grid, dim3(TILE, ROWS_PER_PASS), 0, stream>>>(src, rows, cols, ld_src, dst,
                                                                     dst_stride, ld_dst, count);
    return cudaGetLastError();
}

cudaError_t gk_cuda_transpose(const float *src, int64_t rows, int64_t cols, int64_t ld_src,
                              float *dst, int64_t ld_dst, cudaStream_t stream) {
    return gk_cuda_transpose_batched({src, 0, nullptr}, rows, cols, ld_src, dst, 0, ld_dst, 1,
                                     stream);
}

/* Threads run down the contiguous columns of C; a beta of zero never loads C, so NaN or Inf left
 * in C cannot reach the result (BLAS semantics). blockIdx.z walks the items. */
__global__ void scale_kernel(gk_batch_items<float> c, int64_t m, int64_t n, int64_t ldc, float beta,
                             int64_t count) {
    for (int64_t it = blockIdx.z; it < count; it += gridDim.z) {
        float *ci = c.at(it);
        for (int64_t j = blockIdx.y; j < n; j += gridDim.y)
            for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < m;
                 i += (int64_t)gridDim.x * blockDim.x) {
                float *p = ci + j * ldc + i;
                *p = beta == 0.0f ? 0.0f : beta * *p;
            }
    }
}

cudaError_t gk_cuda_scale_batched(gk_batch_items<float> c, int64_t m, int64_t n, int64_t ldc,
                                  float beta, int64_t count, cudaStream_t stream) {
    const int threads = 256;
    const int64_t bx = (m + threads - 1) / threads;
    const int64_t z = count < MAX_GRID_YZ ? count : MAX_GRID_YZ;
    const int64_t y_cap = MAX_GRID_YZ / z; /* columns x items in flight at most MAX_GRID_YZ */
    const dim3 grid((unsigned)(bx < 64 ? bx : 64), (unsigned)(n < y_cap ? n : y_cap), (unsigned)z);
    scale_kernel<<<grid, threads, 0, stream>>>(c, m, n, ldc, beta, count);
    return cudaGetLastError();
}

cudaError_t gk_cuda_scale(float *c, int64_t m, int64_t n, int64_t ldc, float beta,
                          cudaStream_t stream) {
    return gk_cuda_scale_batched({c, 0, nullptr}, m, n, ldc, beta, 1, stream);
}
