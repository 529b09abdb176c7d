/*
 * gemv.cu — the GEMV-class kernels of the production FP32 path (plan kind GK_PLAN_GEMV, plan.h)
 * and the reduction pass it shares with split-K (gk_reduce_pieces).
 *
 * With m or n <= GK_PLAN_GEMV_MAX a tile of the SIMT kernels is mostly empty rows or columns, and
 * the problem is memory-bound anyway: each element of the big operand (B when C has few rows, A
 * when it has few columns) is used by at most 8 FMAs, so the time to beat is the time to read that
 * operand once from DRAM (docs/cuda.md, "Plan kinds"). Both kernels read it exactly once, with
 * 16-byte loads where the pointer and leading dimension allow (gk_vec_ok; scalar loads otherwise),
 * with many loads in flight per thread, and accumulate in fp32 in an order fixed by the launch
 * configuration alone:
 *   - wide (m <= 8, B is the k x n operand): a block owns 128 columns of C, 4 per lane, and its 8
 *     warps take 8-row steps of B in turn; each warp keeps all m rows of C for its columns, and
 *     the block adds the warps' sums in warp order through shared memory;
 *   - tall (n <= 8, A is the m x k operand): a warp owns 4 rows of A, its lanes walk along k
 *     (16 bytes each, coalesced); the block stages the matching rows of B, transposed, in shared
 *     memory, and each warp adds its lanes' sums with a xor butterfly (the same tree on every run).
 * K is cut into pieces over grid.y when the columns (rows) alone give too few blocks to keep
 * enough loads in flight; the pieces' partial sums go to scratch and gk_reduce_pieces adds them in
 * piece order and applies alpha and beta. One piece writes C directly. C is never read when
 * beta == 0. All indexing that can exceed 2^31 is 64-bit.
 */
#include "cuda/gemm/epilogue.cuh"
#include "cuda/gemm/gemm.h"
#include "cuda/gemm/plan.h"
#include "cuda/gemm/util.cuh"

namespace {

constexpr int THREADS = 256, WARPS = THREADS / 32;
constexpr int WIDE_COLS = 128;               /* columns of C per block (4 per lane) */
constexpr int WIDE_ROWS = 8;                 /* rows of B a warp loads per step */
constexpr int WIDE_STEP = WARPS * WIDE_ROWS; /* rows of B per block step */
constexpr int TALL_ROWS = 4;                 /* rows of A per warp */
constexpr int TALL_STEP = 256;               /* k per block step: two float4 per lane */
constexpr int TALL_BLOCK_ROWS = WARPS * TALL_ROWS;
/* Blocks per SM the K split aims for (rounding down): with several blocks resident per SM this
 * keeps enough 16-byte loads in flight to cover DRAM latency, and more pieces only add partial
 * sums to write and add. */
constexpr int BLOCKS_PER_SM = 2;
/* Fewest block steps per K piece: a shorter piece spends more on its partial sums than it gains. */
constexpr int64_t MIN_PIECE_STEPS = 4;

__device__ __forceinline__ float4 zero4() {
    return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

/* Four consecutive elements src[0..3] of a row, those at index >= left read as zero; 16 bytes at
 * once when VEC (src 16-byte aligned) and the whole vector is inside. */
template <bool VEC> __device__ __forceinline__ float4 load4(const float *src, int64_t left) {
    if (left <= 0) return zero4();
    if (VEC && left >= 4) return __ldg(reinterpret_cast<const float4 *>(src));
    float v[4];
#pragma unroll
    for (int c = 0; c < 4; ++c)
        v[c] = c < left ? __ldg(src + c) : 0.0f;
    return make_float4(v[0], v[1], v[2], v[3]);
}

/* Where a K piece's result goes: scratch piece blockIdx.y, or C itself (ws == NULL). */
__device__ __forceinline__ void put(const gk_rm_problem &p, float *ws, int64_t row, int64_t col,
                                    float v) {
    if (ws)
        ws[((int64_t)blockIdx.y * p.m + row) * gk_pieces_ld(p.n) + col] = v;
    else
        gk_store(p.c, row * p.ldc + col, v, p.alpha, p.beta);
}

/* C has m <= M rows (M in 1, 2, 4, 8). VEC: B allows 16-byte loads (gk_vec_ok). */
template <int M, bool VEC>
__global__ void __launch_bounds__(THREADS)
    gemv_wide(const gk_rm_problem p, const int64_t kc, float *ws) {
    __shared__ __align__(16) float part[WARPS][M][WIDE_COLS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t col = (int64_t)blockIdx.x * WIDE_COLS + lane * 4;
    const int64_t k0 = (int64_t)blockIdx.y * kc, k1 = k0 + kc < p.k ? k0 + kc : p.k;
    const int m = (int)p.m;
    float acc[M][4];
#pragma unroll
    for (int r = 0; r < M; ++r)
        acc[r][0] = acc[r][1] = acc[r][2] = acc[r][3] = 0.0f;
    for (int64_t kb = k0 + warp * WIDE_ROWS; kb < k1; kb += WIDE_STEP) {
        float4 b[WIDE_ROWS];
#pragma unroll
        for (int i = 0; i < WIDE_ROWS; ++i)
            b[i] = kb + i < k1 ? load4<VEC>(p.b + (kb + i) * p.ldb + col, p.n - col) : zero4();
#pragma unroll
        for (int i = 0; i < WIDE_ROWS; ++i)
#pragma unroll
            for (int r = 0; r < M; ++r) {
                const float a = r < m && kb + i < k1 ? __ldg(p.a + r * p.lda + kb + i) : 0.0f;
                acc[r][0] += a * b[i].x;
                acc[r][1] += a * b[i].y;
                acc[r][2] += a * b[i].z;
                acc[r][3] += a * b[i].w;
            }
    }
#pragma unroll
    for (int r = 0; r < M; ++r)
        *reinterpret_cast<float4 *>(&part[warp][r][lane * 4]) =
            make_float4(acc[r][0], acc[r][1], acc[r][2], acc[r][3]);
    __syncthreads();
    for (int e = threadIdx.x; e < M * WIDE_COLS; e += THREADS) {
        const int r = e / WIDE_COLS, cc = e % WIDE_COLS;
        const int64_t c = (int64_t)blockIdx.x * WIDE_COLS + cc;
        if (r >= m || c >= p.n) continue;
        float s = part[0][r][cc];
#pragma unroll
        for (int w = 1; w < WARPS; ++w)
            s += part[w][r][cc];
        put(p, ws, r, c, s);
    }
}

/* C has n <= NB columns (NB in 1, 2, 4, 8). VEC: A allows 16-byte loads and kc % 4 == 0. */
template <int NB, bool VEC>
__global__ void __launch_bounds__(THREADS)
    gemv_tall(const gk_rm_problem p, const int64_t kc, float *ws) {
    /* B rows of one step, transposed: bs[j][kk] = B(kb + kk, j). The row pitch (a multiple of 4
     * floats, 4 mod 32 banks) keeps the lanes' 16-byte reads aligned and spreads the stores. */
    __shared__ __align__(16) float bs[NB][TALL_STEP + 4];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t row0 = ((int64_t)blockIdx.x * WARPS + warp) * TALL_ROWS;
    const int64_t k0 = (int64_t)blockIdx.y * kc, k1 = k0 + kc < p.k ? k0 + kc : p.k;
    const int n = (int)p.n;
    float acc[TALL_ROWS][NB];
#pragma unroll
    for (int r = 0; r < TALL_ROWS; ++r)
#pragma unroll
        for (int j = 0; j < NB; ++j)
            acc[r][j] = 0.0f;
    for (int64_t kb = k0; kb < k1; kb += TALL_STEP) {
        float4 a[TALL_ROWS][2];
#pragma unroll
        for (int r = 0; r < TALL_ROWS; ++r)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int64_t kk = kb + h * (TALL_STEP / 2) + lane * 4;
                a[r][h] =
                    row0 + r < p.m ? load4<VEC>(p.a + (row0 + r) * p.lda + kk, k1 - kk) : zero4();
            }
        __syncthreads(); /* every warp has read the previous step's bs */
        for (int e = threadIdx.x; e < TALL_STEP * NB; e += THREADS) {
            const int kk = e / NB, j = e % NB;
            bs[j][kk] = kb + kk < k1 && j < n ? __ldg(p.b + (kb + kk) * p.ldb + j) : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int j = 0; j < NB; ++j) {
                const float4 b =
                    *reinterpret_cast<const float4 *>(&bs[j][h * (TALL_STEP / 2) + lane * 4]);
#pragma unroll
                for (int r = 0; r < TALL_ROWS; ++r) {
                    acc[r][j] += a[r][h].x * b.x;
                    acc[r][j] += a[r][h].y * b.y;
                    acc[r][j] += a[r][h].z * b.z;
                    acc[r][j] += a[r][h].w * b.w;
                }
            }
    }
#pragma unroll
    for (int r = 0; r < TALL_ROWS; ++r)
#pragma unroll
        for (int j = 0; j < NB; ++j)
#pragma unroll
            for (int off = 16; off > 0; off >>= 1)
                acc[r][j] += __shfl_xor_sync(0xffffffffu, acc[r][j], off);
    if (lane == 0)
#pragma unroll
        for (int r = 0; r < TALL_ROWS; ++r)
#pragma unroll
            for (int j = 0; j < NB; ++j)
                if (row0 + r < p.m && j < n) put(p, ws, row0 + r, j, acc[r][j]);
}

__global__ void reduce_pieces(const gk_rm_problem p, const float *ws, const int pieces) {
    const int64_t ldw = gk_pieces_ld(p.n), piece = p.m * ldw, total = p.m * p.n;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t row = e / p.n, col = e - row * p.n;
        const float *src = ws + row * ldw + col;
        float s = src[0];
        for (int q = 1; q < pieces; ++q)
            s += src[q * piece];
        gk_store(p.c, row * p.ldc + col, s, p.alpha, p.beta);
    }
}

/* The shape of a GEMV launch: blocks over the thin side's partner, block steps along K. */
struct Shape {
    bool tall;
    int64_t blocks, step;
};

Shape shape_of(const gk_rm_problem &p) {
    const bool tall = p.n <= GK_PLAN_GEMV_MAX;
    return {tall, gk_ceil_div(tall ? p.m : p.n, tall ? TALL_BLOCK_ROWS : WIDE_COLS),
            tall ? TALL_STEP : WIDE_STEP};
}

/* K per piece for at most `split` pieces: whole block steps. */
int64_t piece_k(const gk_rm_problem &p, int split) {
    const int64_t step = shape_of(p).step;
    return gk_ceil_div(gk_ceil_div(p.k, step), split) * step;
}

int width_class(int64_t x) {
    return x <= 1 ? 1 : x <= 2 ? 2 : x <= 4 ? 4 : 8;
}

template <int W>
cudaError_t launch_w(const gk_rm_problem &p, bool tall, bool vec, dim3 grid, int64_t kc, float *ws,
                     cudaStream_t s) {
    if (tall) {
        auto kern = vec ? gemv_tall<W, true> : gemv_tall<W, false>;
        kern<<<grid, THREADS, 0, s>>>(p, kc, ws);
    } else {
        auto kern = vec ? gemv_wide<W, true> : gemv_wide<W, false>;
        kern<<<grid, THREADS, 0, s>>>(p, kc, ws);
    }
    return cudaGetLastError();
}

} // namespace

int gk_gemv_split(const gk_rm_problem &p, int sm_count) {
    const Shape s = shape_of(p);
    const int64_t want = (int64_t)sm_count * BLOCKS_PER_SM / s.blocks;
    int64_t most = gk_ceil_div(p.k, s.step) / MIN_PIECE_STEPS;
    if (most > GK_GEMV_MAX_SPLIT) most = GK_GEMV_MAX_SPLIT;
    const int64_t split = want < most ? want : most;
    return split > 1 ? (int)split : 1;
}

size_t gk_gemv_scratch(int split, const gk_rm_problem &p, int sm_count) {
    if (split == 0) split = gk_gemv_split(p, sm_count);
    const int64_t pieces = gk_ceil_div(p.k, piece_k(p, split));
    if (pieces <= 1) return 0;
    return GK_SCRATCH_FLAG_BYTES + (size_t)pieces * p.m * gk_pieces_ld(p.n) * sizeof(float);
}

cudaError_t gk_gemv(int split, const gk_rm_problem &p, const gk_launch_env &env) {
    if (split == 0) split = gk_gemv_split(p, env.sm_count);
    if (env.scratch == nullptr) split = 1;
    const Shape s = shape_of(p);
    const int64_t kc = piece_k(p, split), pieces = gk_ceil_div(p.k, kc);
    if (s.blocks > 0x7fffffff || pieces > 65535) return cudaErrorInvalidValue;
    float *ws =
        pieces > 1
            ? reinterpret_cast<float *>(static_cast<char *>(env.scratch) + GK_SCRATCH_FLAG_BYTES)
            : nullptr;
    const dim3 grid((unsigned)s.blocks, (unsigned)pieces);
    const bool vec = s.tall ? gk_vec_ok(p.a, p.lda) : gk_vec_ok(p.b, p.ldb);
    cudaError_t e;
    switch (width_class(s.tall ? p.n : p.m)) {
    case 1:
        e = launch_w<1>(p, s.tall, vec, grid, kc, ws, env.stream);
        break;
    case 2:
        e = launch_w<2>(p, s.tall, vec, grid, kc, ws, env.stream);
        break;
    case 4:
        e = launch_w<4>(p, s.tall, vec, grid, kc, ws, env.stream);
        break;
    default:
        e = launch_w<8>(p, s.tall, vec, grid, kc, ws, env.stream);
        break;
    }
    if (e != cudaSuccess || ws == nullptr) return e;
    return gk_reduce_pieces(p, ws, (int)pieces, env.stream);
}

cudaError_t gk_reduce_pieces(const gk_rm_problem &p, const float *ws, int pieces,
                             cudaStream_t stream) {
    const int64_t blocks = gk_ceil_div(p.m * p.n, THREADS);
    reduce_pieces<<<(unsigned)(blocks < (1 << 20) ? blocks : (1 << 20)), THREADS, 0, stream>>>(
        p, ws, pieces);
    return cudaGetLastError();
}
