/*
 * batched_small.cu — the batched SGEMM kernel for items with m, n <= 64 (batched_small.h): one
 * block per item, sized to the item. A batch of small items is memory-bound (each item's operands
 * are read once), so what matters is that every block's loads are wide and coalesced and that all
 * items are in flight in one wave; the tiled grid (batched.cu) pads such items to 64x64 tiles
 * and runs its long-K pipeline for a few k-tiles.
 *
 * Shape: each of m and n is rounded up to a bucket of 16, 32 or 64; the block is a grid of
 * threads each owning a TM x TN register tile (4 outputs per dimension, 2 for the 16 bucket, so a
 * block has 64 to 256 threads). Small blocks let an SM hold many items at once (the grid is 1-D
 * over the items: up to 2^31 - 1 per launch, with no gridDim.y limit).
 *
 * K runs in chunks of KC: every thread loads its share of the chunk's A (BM x KC) and B (KC x BN)
 * into registers, one float4 per slot where the item's pointer, leading dimension and the edge
 * allow it and guarded scalars otherwise (alignment is tested per item, so pointer-array batches
 * need no host-side knowledge); the chunk is stored to shared memory (A transposed, so a thread's
 * A fragment is one 16-byte read) and the next chunk's loads are issued before this chunk's FFMAs,
 * so they arrive while it is computed: all of a batch's blocks start together and run in step, so
 * without this the SMs would idle through every chunk's load. Elements past m, n or k are zero in
 * shared memory, so every chunk runs its KC steps whole (a tail loop for the last chunk's k - k0
 * steps would cost registers).
 * Epilogue: BLAS semantics (epilogue.cuh: C never read when beta == 0), float4 stores where C
 * allows them.
 */
#include "cuda/gemm/batched_small.h"

#include "cuda/gemm/epilogue.cuh"
#include "cuda/gemm/util.cuh"

namespace {

/* Block shape for a BM x BN bucket. */
template <int BM_, int BN_> struct Small {
    static constexpr int BM = BM_, BN = BN_;
    static constexpr int TM = BM == 16 ? 2 : 4, TN = BN == 16 ? 2 : 4; /* outputs per thread */
    static constexpr int TX = BN / TN, THREADS = (BM / TM) * TX;
    /* k per chunk: 32, or less so that a thread's share of a chunk is at most one float4 of each
     * operand: the prefetched chunk lives in registers, and more of it spills at the 64-register
     * cap below */
    static constexpr int KC =
        4 * THREADS / (BM > BN ? BM : BN) < 32 ? 4 * THREADS / (BM > BN ? BM : BN) : 32;
    static constexpr int A_LD = BM + 4; /* A^T rows in shared memory: 16-byte aligned, padded */
    /* float4 slots of a chunk, and each thread's share (the last share may be partial) */
    static constexpr int A_VECS = BM * KC / 4, B_VECS = KC * BN / 4;
    static constexpr int A_SLOTS = (A_VECS + THREADS - 1) / THREADS;
    static constexpr int B_SLOTS = (B_VECS + THREADS - 1) / THREADS;
    /* the occupancy promised to ptxas: 1024 threads per SM, i.e. at most 64 registers */
    static constexpr int MIN_BLOCKS = 1024 / THREADS;
    static_assert(KC >= 4 && KC % 4 == 0, "a chunk is whole float4 slots of A's rows");
};

/* Four elements row[col..col+3], zero from `limit` on: one 16-byte load when vec (row 16-byte
 * aligned at col, a multiple of 4) and all four are inside. copy.cuh's gk_load4 with the vector
 * choice made per item at run time and 32-bit indices (columns and limits are those of one chunk
 * or item, at most 64; its 64-bit indices compile to other code than the one measured). */
__device__ __forceinline__ float4 load4(const float *row, int col, int limit, bool vec) {
    if (vec && col + 4 <= limit) return *reinterpret_cast<const float4 *>(row + col);
    float v[4];
#pragma unroll
    for (int j = 0; j < 4; ++j)
        v[j] = col + j < limit ? row[col + j] : 0.0f;
    return make_float4(v[0], v[1], v[2], v[3]);
}

/* T consecutive floats of a shared-memory row into registers: one 16-byte read for T == 4 (the
 * rows are 16-byte aligned there), else T scalar reads. */
template <int T> __device__ __forceinline__ void read_frag(const float *src, float (&f)[T]) {
    if constexpr (T == 4) {
        const float4 v = *reinterpret_cast<const float4 *>(src);
        f[0] = v.x, f[1] = v.y, f[2] = v.z, f[3] = v.w;
    } else {
#pragma unroll
        for (int i = 0; i < T; ++i)
            f[i] = src[i];
    }
}

/* One item's operands: row-major A (m x k) and B (k x n), each with whether float4 rows are legal.
 * m and n are at most 64, so 32-bit. */
struct Operands {
    const float *a, *b;
    int64_t lda, ldb;
    int m, n;
    bool vec_a, vec_b;
};

/* This thread's slots of the chunk whose first column of A is a_k and first row of B is b_k, with
 * k_left (<= KC) columns of A and rows of B inside K, into registers. A slot s is row s / (KC/4),
 * columns 4 * (s % (KC/4)) ..+3 of the chunk (B alike with BN/4 slots per row): consecutive threads
 * read consecutive 16 bytes of a row. */
template <class S>
__device__ __forceinline__ void load_chunk(const Operands &o, const float *a_k, const float *b_k,
                                           int k_left, float4 (&ra)[S::A_SLOTS],
                                           float4 (&rb)[S::B_SLOTS]) {
    constexpr int A_ROW = S::KC / 4, B_ROW = S::BN / 4;
    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int i = 0; i < S::A_SLOTS; ++i) {
        const int s = (int)threadIdx.x + i * S::THREADS, r = s / A_ROW, c = s % A_ROW * 4;
        const bool in = (S::A_VECS % S::THREADS == 0 || s < S::A_VECS) && r < o.m;
        ra[i] = in ? load4(a_k + r * o.lda, c, k_left, o.vec_a) : zero;
    }
#pragma unroll
    for (int i = 0; i < S::B_SLOTS; ++i) {
        const int s = (int)threadIdx.x + i * S::THREADS, r = s / B_ROW, c = s % B_ROW * 4;
        const bool in = (S::B_VECS % S::THREADS == 0 || s < S::B_VECS) && r < k_left;
        rb[i] = in ? load4(b_k + r * o.ldb, c, o.n, o.vec_b) : zero;
    }
}

/* Block x computes item x of the launch: C = alpha A B + beta C for a BM x BN bucket. */
template <class S>
__global__ void __launch_bounds__(S::THREADS, S::MIN_BLOCKS)
    sgemm_small_items(const gk_rm_problem p, const gk_batch_items<const float> a,
                      const gk_batch_items<const float> b, const gk_batch_items<float> c) {
    constexpr int KC = S::KC, TM = S::TM, TN = S::TN;
    alignas(16) __shared__ float as[KC][S::A_LD]; /* A^T: [k][row] */
    alignas(16) __shared__ float bs[KC][S::BN];   /* B: [k][column] */
    const int64_t item = blockIdx.x;
    Operands o;
    o.a = a.at(item), o.b = b.at(item), o.lda = p.lda, o.ldb = p.ldb;
    o.m = (int)p.m, o.n = (int)p.n;
    o.vec_a = (uintptr_t)o.a % 16u == 0 && p.lda % 4 == 0;
    o.vec_b = (uintptr_t)o.b % 16u == 0 && p.ldb % 4 == 0;
    const int tid = threadIdx.x, ty = tid / S::TX, tx = tid % S::TX;

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.0f;

    /* ra, rb: the chunk at a_k, b_k (A's column and B's row k0); k_rem = k - k0 */
    const float *a_k = o.a, *b_k = o.b;
    float4 ra[S::A_SLOTS], rb[S::B_SLOTS];
    load_chunk<S>(o, a_k, b_k, p.k < KC ? (int)p.k : KC, ra, rb);
    for (int64_t k_rem = p.k; k_rem > 0; k_rem -= KC) {
#pragma unroll
        for (int i = 0; i < S::A_SLOTS; ++i) {
            const int s = tid + i * S::THREADS, r = s / (KC / 4), cc = s % (KC / 4) * 4;
            if (S::A_VECS % S::THREADS != 0 && s >= S::A_VECS) break;
            as[cc][r] = ra[i].x, as[cc + 1][r] = ra[i].y;
            as[cc + 2][r] = ra[i].z, as[cc + 3][r] = ra[i].w;
        }
#pragma unroll
        for (int i = 0; i < S::B_SLOTS; ++i) {
            const int s = tid + i * S::THREADS, r = s / (S::BN / 4), cc = s % (S::BN / 4) * 4;
            if (S::B_VECS % S::THREADS != 0 && s >= S::B_VECS) break;
            *reinterpret_cast<float4 *>(&bs[r][cc]) = rb[i];
        }
        __syncthreads();
        if (k_rem > KC) { /* the next chunk, in flight during this one's FFMAs */
            a_k += KC, b_k += KC * o.ldb;
            load_chunk<S>(o, a_k, b_k, k_rem - KC < KC ? (int)(k_rem - KC) : KC, ra, rb);
        }
        /* Whole KC steps: past k both operands are zero. Unrolled by 2 only: a deeper unroll lets
         * ptxas hoist the shared loads of later steps, which spills at the 64-register cap. */
#pragma unroll 2
        for (int kk = 0; kk < KC; ++kk) {
            float fa[TM], fb[TN];
            read_frag(&as[kk][ty * TM], fa);
            read_frag(&bs[kk][tx * TN], fb);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] += fa[i] * fb[j];
        }
        __syncthreads();
    }

    /* Epilogue: rows ty*TM.., columns tx*TN..; a thread's 4 columns are one float4 store where C
     * allows it (gk_store4 guards the right edge). */
    float *const pc = c.at(item);
    const bool vec_c = (uintptr_t)pc % 16u == 0 && p.ldc % 4 == 0;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = ty * TM + i, col = tx * TN;
        if (row >= o.m || col >= o.n) continue;
        float *const crow = pc + (int64_t)row * p.ldc;
        if constexpr (TN == 4) {
            const float4 v = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
            if (vec_c)
                gk_store4<true>(crow, col, o.n, v, p.alpha, p.beta);
            else
                gk_store4<false>(crow, col, o.n, v, p.alpha, p.beta);
        } else {
#pragma unroll
            for (int j = 0; j < TN; ++j)
                if (col + j < o.n) gk_store(crow, col + j, acc[i][j], p.alpha, p.beta);
        }
    }
}

enum : int64_t { MAX_GRID_X = 0x7fffffff };

template <int BM, int BN>
cudaError_t launch_small(const gk_rm_problem &p, gk_batch_items<const float> a,
                         gk_batch_items<const float> b, gk_batch_items<float> c, int64_t count,
                         cudaStream_t stream) {
    using S = Small<BM, BN>;
    for (int64_t first = 0; first < count; first += MAX_GRID_X) {
        const int64_t n = count - first < MAX_GRID_X ? count - first : MAX_GRID_X;
        sgemm_small_items<S><<<(unsigned)n, S::THREADS, 0, stream>>>(p, a.from(first),
                                                                     b.from(first), c.from(first));
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

/* The bucket (0: 16, 1: 32, 2: 64) a dimension of at most 64 rounds up to. */
int bucket(int64_t x) {
    return x <= 16 ? 0 : x <= 32 ? 1 : 2;
}

typedef cudaError_t (*small_fn)(const gk_rm_problem &, gk_batch_items<const float>,
                                gk_batch_items<const float>, gk_batch_items<float>, int64_t,
                                cudaStream_t);
const small_fn launchers[3][3] = {
    {launch_small<16, 16>, launch_small<16, 32>, launch_small<16, 64>},
    {launch_small<32, 16>, launch_small<32, 32>, launch_small<32, 64>},
    {launch_small<64, 16>, launch_small<64, 32>, launch_small<64, 64>},
};

} // namespace

cudaError_t gk_gemm_batched_small(const gk_rm_problem &p, gk_batch_items<const float> a,
                                  gk_batch_items<const float> b, gk_batch_items<float> c,
                                  int64_t count, cudaStream_t stream) {
    if (!gk_batched_small_fits(p)) return cudaErrorInvalidValue;
    return launchers[bucket(p.m)][bucket(p.n)](p, a, b, c, count, stream);
}
