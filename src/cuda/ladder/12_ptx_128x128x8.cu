/*
 * 12_ptx_128x128x8.cu — ladder step 12: a 128x128x8 kernel whose memory traffic is written in
 * inline PTX (src/cuda/ptx/ptx.cuh) and which uses no sm_80 feature (no cp.async):
 *   - global loads through the read-only path: A as scalar ld.global.nc (4 rows of one k column per
 *     thread, so A needs no alignment), B as ld.global.nc.v4 when B allows 128-bit loads;
 *   - each thread writes its loads with one st.shared.v4 per operand; A lands transposed with rows
 *     padded to 132 floats so the 8 threads of a store phase hit 32 distinct banks;
 *   - two shared buffers per operand at offsets that differ by one bit: switching buffers is an
 *     XOR of that bit, and the next tile is stored into the other buffer during this tile's math,
 *     so one barrier per k-tile suffices; fragments (ld.shared.v4) are double-buffered;
 *   - C goes through shared memory: each warp stages 16x32 pieces of its tile and writes them back
 *     as whole 128-byte row segments with 128-bit stores (scalar at ragged edges).
 * Over steps 10/11 this shows the register-staged alternative to cp.async with the index math,
 * predication and buffer switching spelled out. 256 threads, 8x8 outputs per thread. It shares
 * only the tile order (gk_gemm::tile_origin) and the guarded C stores (gk_gemm::store_c4) with
 * the production kernels.
 */
#include "cuda/ladder/ladder.h"
#include "cuda/gemm/epilogue.cuh"
#include "cuda/gemm/tile.cuh"
#include "cuda/gemm/util.cuh"
#include "cuda/ptx/ptx.cuh"

namespace gk_l12 {

constexpr int BM = 128, BN = 128, BK = 8, THREADS = 256;
constexpr int A_LD = BM + 4;
/* Buffer sizes rounded to powers of two so the second buffer is the first with one bit set. */
constexpr uint32_t A_BUF = 8192, B_BUF = 4096; /* bytes; A needs 8*132*4 = 4224, B 8*128*4 */
constexpr uint32_t SMEM = 2 * A_BUF + 2 * B_BUF;
static_assert(BK * A_LD * 4 <= (int)A_BUF && BK * BN * 4 <= (int)B_BUF, "buffers too small");
/* Epilogue staging: 8 warps x 16x32 floats, reusing the operand buffers. */
static_assert(8 * 16 * 32 * 4 <= (int)SMEM, "epilogue staging does not fit");

/* This thread's share of one k-tile, held in registers between the global load and the shared
 * store: A rows ar..ar+3 at column ak, B row bk at columns bc..bc+3. The row/column tests that do
 * not change along k are made once (a_rows: bit i = row ar+i exists; b_cols: columns in range). */
struct Loader {
    const float *a, *b;  /* this thread's elements of the next k-tile */
    int64_t lda, b_step; /* b_step = BK * ldb */
    /* Bounds tests that do not change along k, packed to save registers: bits 0-3 A row ar+i
     * exists, bits 4-7 B column bc+j exists, bits 8/9 column ak / row bk exists in the last
     * (partial) k-tile. */
    uint32_t ok;

    /* Load the next k-tile and advance to the one after it. Only the last k-tile can be partial,
     * so the k test is a flag instead of 64-bit arithmetic per tile. */
    template <bool VEC_B> __device__ __forceinline__ void next(bool last, float4 &ra, float4 &rb) {
        uint32_t m = ok;
        if (last) m &= (ok & 0x100u ? ~0u : ~0xfu) & (ok & 0x200u ? ~0u : ~0xf0u);
        float v[4];
#pragma unroll
        for (int i = 0; i < 4; ++i)
            v[i] = (m >> i) & 1u ? gk_ptx::ld_global_nc_f32(a + i * lda) : 0.0f;
        ra = make_float4(v[0], v[1], v[2], v[3]);
        if (VEC_B && (m & 0xf0u) == 0xf0u) {
            rb = gk_ptx::ld_global_nc_v4(b);
        } else {
#pragma unroll
            for (int j = 0; j < 4; ++j)
                v[j] = (m >> (4 + j)) & 1u ? gk_ptx::ld_global_nc_f32(b + j) : 0.0f;
            rb = make_float4(v[0], v[1], v[2], v[3]);
        }
        a += BK, b += b_step;
    }
};

template <bool VEC_B>
__global__ void __launch_bounds__(THREADS, 2)
    sgemm_ptx_128x128x8(const gk_rm_problem p, const bool vec_c) {
    __shared__ __align__(16) unsigned char smem[SMEM];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    int64_t m0, n0;
    gk_gemm::tile_origin(p, BM, BN, 1, blockIdx.x, &m0, &n0);

    /* Copy roles: A rows ar..ar+3 at column ak; B row bk, columns bc..bc+3. */
    const int ak = tid % BK, ar = (tid / BK) * 4;
    const int bk = tid / (BN / 4), bc = (tid % (BN / 4)) * 4;
    Loader ld;
    const int64_t ktiles = (p.k + BK - 1) / BK;
    const int k_rem = (int)(p.k - (ktiles - 1) * BK); /* 1..BK columns in the last k-tile */
    ld.lda = p.lda, ld.b_step = BK * p.ldb;
    ld.a = p.a + (m0 + ar) * p.lda + ak;
    ld.b = p.b + bk * p.ldb + n0 + bc;
    ld.ok = (uint32_t)(ak < k_rem) << 8 | (uint32_t)(bk < k_rem) << 9;
#pragma unroll
    for (int i = 0; i < 4; ++i)
        ld.ok |= (uint32_t)(m0 + ar + i < p.m) << i | (uint32_t)(n0 + bc + i < p.n) << (4 + i);
    const uint32_t sa = gk_ptx::smem_addr(smem), sb = sa + 2 * A_BUF;
    const uint32_t a_sts = sa + (uint32_t)(ak * A_LD + ar) * 4u;
    const uint32_t b_sts = sb + (uint32_t)(bk * BN + bc) * 4u;

    /* Compute roles: warps 4 (m) x 2 (n), warp tile 32x64, lanes 4x8, 8x8 outputs per lane as
     * 2x2 blocks of 4x4 strided by 16 rows / 32 columns. */
    const int wm = (warp / 2) * 32, wn = (warp % 2) * 64, tr = lane / 8, tc = lane % 8;
    const uint32_t a_lds = sa + (uint32_t)(wm + tr * 4) * 4u;
    const uint32_t b_lds = sb + (uint32_t)(wn + tc * 4) * 4u;

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j)
            acc[i][j] = 0.0f;

    float4 ta, tb;
    ld.next<VEC_B>(ktiles == 1, ta, tb);
    gk_ptx::st_shared_v4(a_sts, ta);
    gk_ptx::st_shared_v4(b_sts, tb);
    __syncthreads();

    float fa[2][8], fb[2][8];
    auto load_frag = [&](int f, uint32_t rbuf, int kk) {
        const uint32_t a = a_lds + (rbuf ? A_BUF : 0u) + (uint32_t)(kk * A_LD) * 4u;
        const uint32_t b = b_lds + (rbuf ? B_BUF : 0u) + (uint32_t)(kk * BN) * 4u;
        const float4 a0 = gk_ptx::ld_shared_v4(a), a1 = gk_ptx::ld_shared_v4(a + 64);
        const float4 b0 = gk_ptx::ld_shared_v4(b), b1 = gk_ptx::ld_shared_v4(b + 128);
        fa[f][0] = a0.x, fa[f][1] = a0.y, fa[f][2] = a0.z, fa[f][3] = a0.w;
        fa[f][4] = a1.x, fa[f][5] = a1.y, fa[f][6] = a1.z, fa[f][7] = a1.w;
        fb[f][0] = b0.x, fb[f][1] = b0.y, fb[f][2] = b0.z, fb[f][3] = b0.w;
        fb[f][4] = b1.x, fb[f][5] = b1.y, fb[f][6] = b1.z, fb[f][7] = b1.w;
    };

    uint32_t buf = 0; /* buffer being read; the next tile is stored into buf ^ 1 */
    load_frag(0, buf, 0);
    for (int64_t kt = 0; kt < ktiles; ++kt) {
        const bool more = kt + 1 < ktiles;
        if (more) ld.next<VEC_B>(kt + 2 == ktiles, ta, tb);
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            if (kk == BK - 1 && more) {
                gk_ptx::st_shared_v4(a_sts + (buf ? 0u : A_BUF), ta);
                gk_ptx::st_shared_v4(b_sts + (buf ? 0u : B_BUF), tb);
                __syncthreads();
                buf ^= 1u;
            }
            if (kk < BK - 1 || more) load_frag((kk + 1) & 1, buf, (kk + 1) % BK);
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j)
                    acc[i][j] += fa[kk & 1][i] * fb[kk & 1][j];
        }
    }

    /* Epilogue through shared memory, one 16x32 piece of the warp tile at a time. */
    __syncthreads(); /* every warp is done reading the operand buffers */
    const uint32_t stage = sa + (uint32_t)warp * 16 * 32 * 4;
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) {
#pragma unroll
            for (int r = 0; r < 4; ++r)
                gk_ptx::st_shared_v4(stage + (uint32_t)((tr * 4 + r) * 32 + tc * 4) * 4u,
                                     make_float4(acc[4 * i + r][4 * j], acc[4 * i + r][4 * j + 1],
                                                 acc[4 * i + r][4 * j + 2],
                                                 acc[4 * i + r][4 * j + 3]));
            __syncwarp();
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                const int r = lane / 8 + 4 * q, c = (lane % 8) * 4;
                const float4 v = gk_ptx::ld_shared_v4(stage + (uint32_t)(r * 32 + c) * 4u);
                const int64_t row = m0 + wm + 16 * i + r, col = n0 + wn + 32 * j + c;
                if (row < p.m && col < p.n) gk_gemm::store_c4(p, row, col, v, vec_c);
            }
            __syncwarp();
        }
}

} // namespace gk_l12

cudaError_t gk_ladder_12_ptx_128x128x8(const gk_rm_problem &p, const gk_launch_env &env) {
    using namespace gk_l12;
    const int64_t tiles = gk_ceil_div(p.m, BM) * gk_ceil_div(p.n, BN);
    if (tiles > 0x7fffffff) return cudaErrorInvalidValue;
    const unsigned grid = (unsigned)tiles;
    const bool vec_c = gk_vec_ok(p.c, p.ldc);
    if (gk_vec_ok(p.b, p.ldb))
        sgemm_ptx_128x128x8<true><<<grid, THREADS, 0, env.stream>>>(p, vec_c);
    else
        sgemm_ptx_128x128x8<false><<<grid, THREADS, 0, env.stream>>>(p, vec_c);
    return cudaGetLastError();
}
