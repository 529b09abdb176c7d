/*
 * convert.cu — the number-format conversions on device memory (gemmkit.h: gk_cuda_encode,
 * gk_cuda_decode, gk_cuda_mx_quantize, gk_cuda_mx_dequantize), bit-identical to the CPU entry
 * points: the definitions are formats/scalar.h's, and tests/cuda/test_cuda_formats.cu checks
 * every code, all 2^32 float32 inputs of every encoding, and MX blocks against the CPU.
 *
 * The conversions are memory-bound, so the kernels are about moving bytes and about the integer
 * instructions per element, which on the GPU run out before the memory does:
 *   - elements go in groups of 4 (a 16-byte float4 on the float side, one 4-, 8- or 16-byte access
 *     on the code side), consecutive lanes on consecutive groups, so every warp access is one
 *     contiguous span on both sides (a thread owning 16 bytes of codes would own 64 contiguous
 *     bytes of floats, and a warp's 16-byte stores 64 bytes apart are far slower than a copy);
 *     misaligned arrays take an element loop;
 *   - decoding a 1-byte format, and MX dequantization, read a 256-entry table in shared memory
 *     built from scalar.h at block start;
 *   - encoding the signed formats up to 16 bits rounds with one float32 addition instead of
 *     scalar.h's shifts (encode_small below; the same results for every input, checked
 *     exhaustively), with each format's parameters and special codes taken from the registry and
 *     from scalar.h at launch, so no rule is restated here. float32, tfloat32 and E8M0 use
 *     scalar.h directly.
 * Throughput against a device-to-device copy of the same bytes: `test_cuda_formats --bench`.
 */
#include <stdint.h>

#include "cuda/core/core.h"
#include "formats/formats.h"

namespace {

constexpr int kThreads = 256;
/* Groups one thread handles per step, kThreads apart: all their loads go out before any store. */
constexpr int kUnroll = 4;

/* Storage of a group of 4 codes of S bytes: what one lane loads or stores at once. */
template <int S> struct group_of;
template <> struct group_of<1> { using type = uint32_t; };
template <> struct group_of<2> { using type = uint2; };
template <> struct group_of<4> { using type = uint4; };

/* Blocks that fill every SM once for a grid-stride loop over `items` (each block taking
 * `per_block` per step), never more than the work needs. */
int grid_for(const gk_cuda_ctx *ctx, int64_t items, int64_t per_block) {
    const int64_t need = (items + per_block - 1) / per_block;
    const int64_t full = (int64_t)ctx->sm_count * (2048 / kThreads);
    return (int)(need < 1 ? 1 : need < full ? need : full);
}

/* A 2-D grid for a rows x per_row loop: per_row items across kThreads-thread blocks in x, rows
 * grid-strided in y, about one wave in all. */
dim3 grid_2d(const gk_cuda_ctx *ctx, int64_t rows, int64_t per_row) {
    const int64_t gx = grid_for(ctx, per_row, kThreads);
    const int64_t full = (int64_t)ctx->sm_count * (2048 / kThreads);
    int64_t gy = full / gx;
    gy = gy < 1 ? 1 : gy > rows ? rows : gy > 65535 ? 65535 : gy;
    return dim3((unsigned)gx, (unsigned)gy);
}

int aligned(const void *p, unsigned bytes) {
    return ((uintptr_t)p & (bytes - 1u)) == 0;
}

__device__ __forceinline__ int64_t thread_id() {
    return (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ int64_t thread_count() {
    return (int64_t)gridDim.x * blockDim.x;
}

/* ---- the element conversions ------------------------------------------------------------- */

/* A signed format of at most 16 bits for encode_small: the exponent range as float32 biased
 * exponents (emin_f: the format's smallest normal, cap: its largest finite value), the largest
 * finite magnitude code, and the codes of -0 and of overflow and NaN by sign, which are
 * scalar.h's own answers for -0, +-Inf and +-NaN in the call's mode. */
struct small_enc {
    int mbits, emin_f, cap, sign_shift;
    uint32_t max_mag, zero_neg, ovf_pos, ovf_neg, nan_pos, nan_neg;
    /* round_mag's constants: C's bits less qe << 23, and what its count subtracts */
    uint32_t c_off, k, mul;
};

/* The magnitude code of |x| (float32 bits a) for the quantum exponent qe, |x|'s float32 exponent
 * clamped to [emin_f, cap]. The float32 adder does the rounding: with q the format's quantum at
 * qe and C = 2^23 q, |x| + C lies in [C, 2C), where float32 values are q apart, so the hardware's
 * round-to-nearest-even puts it on the nearest multiple of q, ties to the even multiple;
 * subtracting C's bits from the sum's counts those multiples, the implicit bit included, and
 * adding the exponent above emin_f gives the code (a carry into the next binade lands on the
 * right code). That is s - C + ((qe - emin_f) << mbits), folded into one multiply-add. */
__device__ __forceinline__ uint32_t round_mag(const small_enc &p, uint32_t a, int qe) {
    const uint32_t cb = ((uint32_t)qe << 23) + p.c_off;
    const uint32_t s = __float_as_uint(__fadd_rn(__uint_as_float(a), __uint_as_float(cb)));
    return s - p.k + (uint32_t)qe * p.mul;
}

/* The code of x: gk_encode_small (scalar.h) for every float32 x. Inputs above cap overflow; x
 * below emin_f needs no normalising, since emin_f >= 1 for every format with a float32 normal
 * range of its own. INT_ROUND (bfloat16, where C would overflow): the format is float32's top
 * bits, and rounding is the classic add-and-shift on the bit pattern. */
template <bool INT_ROUND>
__device__ __forceinline__ uint32_t encode_small(const small_enc &p, float x) {
    const uint32_t b = __float_as_uint(x), a = b & 0x7fffffffu, neg = b >> 31;
    const int ef = (int)(a >> 23);
    uint32_t c;
    if (INT_ROUND) {
        const int sh = 23 - p.mbits;
        c = (a + (1u << (sh - 1)) - 1u + ((a >> sh) & 1u)) >> sh;
    } else {
        c = round_mag(p, a, min(max(ef, p.emin_f), p.cap));
    }
    uint32_t r = c == 0 ? (neg ? p.zero_neg : 0u) : neg << p.sign_shift | c;
    r = ef > p.cap || c > p.max_mag ? (neg ? p.ovf_neg : p.ovf_pos) : r;
    return a > 0x7f800000u ? (neg ? p.nan_neg : p.nan_pos) : r;
}

/* The two forms of encode_small. */
enum enc_kind { ENC_FLOAT_ADD, ENC_INT_ROUND };

/* small_enc of fmt in this mode; 0 when encode_small does not apply (float32, tfloat32, E8M0). */
int small_enc_of(gk_format fmt, int saturate, small_enc *p, enc_kind *kind) {
    gk_format_info fi;
    if (gk_format_info_get(fmt, &fi) != GK_SUCCESS || !fi.is_signed || fi.storage_bytes > 2)
        return 0;
    p->mbits = fi.mantissa_bits;
    p->emin_f = 128 - fi.bias;
    p->max_mag = fi.max_code & ((1u << (fi.bits - 1)) - 1u);
    p->cap = p->emin_f - 1 + (int)(p->max_mag >> fi.mantissa_bits);
    p->sign_shift = fi.bits - 1;
    p->c_off = (uint32_t)(23 - p->mbits) << 23;
    p->k = p->c_off + ((uint32_t)p->emin_f << p->mbits);
    p->mul = (1u << p->mbits) - (1u << 23);
    const float inf = gk_bits_f32(0x7f800000u), nan = gk_bits_f32(0x7fc00000u);
    p->zero_neg = gk_encode_scalar(fmt, gk_bits_f32(0x80000000u), saturate);
    p->ovf_pos = gk_encode_scalar(fmt, inf, saturate);
    p->ovf_neg = gk_encode_scalar(fmt, -inf, saturate);
    p->nan_pos = gk_encode_scalar(fmt, nan, saturate);
    p->nan_neg = gk_encode_scalar(fmt, -nan, saturate);
    if (p->emin_f >= 1 && p->cap + 23 - p->mbits <= 254) {
        *kind = ENC_FLOAT_ADD;
        return 1;
    }
    if (p->emin_f == 1 && fi.bits == 16) { /* bfloat16: float32's exponent, truncated fraction */
        *kind = ENC_INT_ROUND;
        return 1;
    }
    return 0;
}

/* The element conversion of an encode_kernel instance, C the code type. */
template <typename C, bool INT_ROUND> struct small_encoder {
    using code = C;
    small_enc p;
    __device__ __forceinline__ uint32_t operator()(float x) const {
        return encode_small<INT_ROUND>(p, x);
    }
};
template <typename C, gk_format F, int SAT> struct scalar_encoder {
    using code = C;
    __device__ __forceinline__ uint32_t operator()(float x) const {
        return gk_encode_scalar(F, x, SAT);
    }
};

/* ---- encode / decode ----------------------------------------------------------------------- */

/* codes[i] = enc(x[i]): the first 4 * ngroups elements by groups, the rest one by one. */
template <typename Enc>
__global__ void __launch_bounds__(kThreads)
    encode_kernel(Enc enc, const float *__restrict__ x, void *__restrict__ codes, int64_t n,
                  int64_t ngroups) {
    using C = typename Enc::code;
    using G = typename group_of<sizeof(C)>::type;
    const float4 *x4 = reinterpret_cast<const float4 *>(x);
    G *cg = reinterpret_cast<G *>(codes);
    const int64_t step = (int64_t)gridDim.x * kThreads * kUnroll;
    for (int64_t g0 = (int64_t)blockIdx.x * kThreads * kUnroll + threadIdx.x; g0 < ngroups;
         g0 += step) {
        float4 v[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++)
            if (g0 + u * kThreads < ngroups) v[u] = x4[g0 + u * kThreads];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) {
            if (g0 + u * kThreads >= ngroups) break;
            union {
                G g;
                C c[4];
            } out;
            out.c[0] = (C)enc(v[u].x), out.c[1] = (C)enc(v[u].y);
            out.c[2] = (C)enc(v[u].z), out.c[3] = (C)enc(v[u].w);
            cg[g0 + u * kThreads] = out.g;
        }
    }
    C *c = reinterpret_cast<C *>(codes);
    for (int64_t i = 4 * ngroups + thread_id(); i < n; i += thread_count())
        c[i] = (C)enc(x[i]);
}

template <typename Enc>
cudaError_t launch_encode_with(const gk_cuda_ctx *ctx, Enc enc, const float *x, void *codes,
                               int64_t n) {
    const int64_t ngroups =
        aligned(x, 16) && aligned(codes, 4 * sizeof(typename Enc::code)) ? n / 4 : 0;
    const int grid =
        ngroups ? grid_for(ctx, ngroups, kThreads * kUnroll) : grid_for(ctx, n, kThreads);
    encode_kernel<<<grid, kThreads, 0, ctx->stream>>>(enc, x, codes, n, ngroups);
    return cudaGetLastError();
}

template <typename C, gk_format F>
cudaError_t launch_scalar_encode(const gk_cuda_ctx *ctx, const float *x, void *codes, int64_t n,
                                 int saturate) {
    return saturate ? launch_encode_with(ctx, scalar_encoder<C, F, 1>{}, x, codes, n)
                    : launch_encode_with(ctx, scalar_encoder<C, F, 0>{}, x, codes, n);
}

cudaError_t run_encode(const gk_cuda_ctx *ctx, gk_format fmt, const float *x, void *codes,
                       int64_t n, int saturate) {
    small_enc p;
    enc_kind kind;
    if (small_enc_of(fmt, saturate, &p, &kind)) {
        if (kind == ENC_INT_ROUND)
            return launch_encode_with(ctx, small_encoder<uint16_t, true>{p}, x, codes, n);
        if (p.sign_shift == 15)
            return launch_encode_with(ctx, small_encoder<uint16_t, false>{p}, x, codes, n);
        return launch_encode_with(ctx, small_encoder<uint8_t, false>{p}, x, codes, n);
    }
    switch (fmt) {
    case GK_F32:
        return launch_scalar_encode<uint32_t, GK_F32>(ctx, x, codes, n, saturate);
    case GK_TF32:
        return launch_scalar_encode<uint32_t, GK_TF32>(ctx, x, codes, n, saturate);
    default:
        return launch_scalar_encode<uint8_t, GK_F8_E8M0FNU>(ctx, x, codes, n, saturate);
    }
}

/* A 256-entry table in shared memory: table[c] = f(c), filled by the block. */
template <typename Fn> __device__ __forceinline__ void fill_table(float *table, Fn f) {
    for (int c = threadIdx.x; c < 256; c += blockDim.x)
        table[c] = f((uint32_t)c);
    __syncthreads();
}

/* y[i] = decode(codes[i]), grouped as encode_kernel; 1-byte formats through a table. */
template <typename C>
__global__ void __launch_bounds__(kThreads)
    decode_kernel(gk_format fmt, const void *__restrict__ codes, float *__restrict__ y, int64_t n,
                  int64_t ngroups) {
    using G = typename group_of<sizeof(C)>::type;
    __shared__ float table[sizeof(C) == 1 ? 256 : 1];
    if constexpr (sizeof(C) == 1)
        fill_table(table, [&](uint32_t c) { return gk_decode_scalar(fmt, c); });
    auto dec = [&](uint32_t c) {
        if constexpr (sizeof(C) == 1)
            return table[c];
        else
            return gk_decode_scalar(fmt, c);
    };
    const G *cg = reinterpret_cast<const G *>(codes);
    float4 *y4 = reinterpret_cast<float4 *>(y);
    const int64_t step = (int64_t)gridDim.x * kThreads * kUnroll;
    for (int64_t g0 = (int64_t)blockIdx.x * kThreads * kUnroll + threadIdx.x; g0 < ngroups;
         g0 += step) {
        union {
            G g;
            C c[4];
        } in[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++)
            if (g0 + u * kThreads < ngroups) in[u].g = cg[g0 + u * kThreads];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) {
            if (g0 + u * kThreads >= ngroups) break;
            y4[g0 + u * kThreads] =
                make_float4(dec(in[u].c[0]), dec(in[u].c[1]), dec(in[u].c[2]), dec(in[u].c[3]));
        }
    }
    const C *c = reinterpret_cast<const C *>(codes);
    for (int64_t i = 4 * ngroups + thread_id(); i < n; i += thread_count())
        y[i] = dec(c[i]);
}

template <typename C>
cudaError_t launch_decode(const gk_cuda_ctx *ctx, gk_format fmt, const void *codes, float *y,
                          int64_t n) {
    const int64_t ngroups = aligned(codes, 4 * sizeof(C)) && aligned(y, 16) ? n / 4 : 0;
    const int grid =
        ngroups ? grid_for(ctx, ngroups, kThreads * kUnroll) : grid_for(ctx, n, kThreads);
    decode_kernel<C><<<grid, kThreads, 0, ctx->stream>>>(fmt, codes, y, n, ngroups);
    return cudaGetLastError();
}

cudaError_t run_decode(const gk_cuda_ctx *ctx, gk_format fmt, const void *codes, float *y,
                       int64_t n) {
    gk_format_info fi;
    gk_format_info_get(fmt, &fi);
    if (fi.storage_bytes == 1) return launch_decode<uint8_t>(ctx, fmt, codes, y, n);
    if (fi.storage_bytes == 2) return launch_decode<uint16_t>(ctx, fmt, codes, y, n);
    return launch_decode<uint32_t>(ctx, fmt, codes, y, n);
}

/* ---- MX ------------------------------------------------------------------------------------ */
/* The OCP layout (blocks of 32, rows aligned) takes grouped kernels, rows in the grid's y.
 * Quantizing, a lane takes 8 elements (two float4, 8 bytes of codes): 4 lanes hold an MX block,
 * find its amax with two shuffles and each computes its scale once per 8 elements (the lanes'
 * instructions, not the memory, are what quantizing runs out of). Dequantizing, 4 elements a lane
 * as above. An element is quantized as x * 2^-e, exact in one multiplication whenever the result
 * is a float32 normal (smaller results encode to 0 either way: every element format's smallest
 * subnormal is far above 2^-126), then rounded as encode_small does in saturating mode
 * (encode_mx): what gk_mx_encode_elem gives. Any other block size, layout or alignment takes the
 * general kernels, scalar.h per element, one thread per block (quantize) or element (dequantize).
 */

/* 2^k for k in [-127, 127] as two normal float32 factors, applied in order. */
__device__ __forceinline__ float2 pow2_split(int k) {
    const int k1 = k / 2, k2 = k - k1;
    return make_float2(__uint_as_float((uint32_t)(k1 + 127) << 23),
                       __uint_as_float((uint32_t)(k2 + 127) << 23));
}

/* encode_small in saturating mode for what an MX element x / X always is: finite, and below
 * 2^(cap - 126) (the scale puts amax under twice the element format's top binade), so overflow is
 * a clamp, a zero keeps its sign (every MX element format has -0) and NaN cannot occur. */
__device__ __forceinline__ uint32_t encode_mx(const small_enc &p, float y) {
    const uint32_t b = __float_as_uint(y), a = b & 0x7fffffffu;
    const uint32_t c = min(round_mag(p, a, max((int)(a >> 23), p.emin_f)), p.max_mag);
    return (b >> 31) << p.sign_shift | c;
}

__device__ __forceinline__ uint32_t abs_max(float4 v, uint32_t m) {
    const uint32_t x = __float_as_uint(v.x) & 0x7fffffffu, y = __float_as_uint(v.y) & 0x7fffffffu;
    const uint32_t z = __float_as_uint(v.z) & 0x7fffffffu, w = __float_as_uint(v.w) & 0x7fffffffu;
    return max(max(max(x, y), max(z, w)), m);
}

/* Four codes of v * f, packed little-endian. */
__device__ __forceinline__ uint32_t encode_mx4(const small_enc &p, float4 v, float f) {
    return encode_mx(p, v.x * f) | encode_mx(p, v.y * f) << 8 | encode_mx(p, v.z * f) << 16 |
           encode_mx(p, v.w * f) << 24;
}

/* One lane per 8 elements (two float4, one uint2 of codes), 4 lanes per MX block. */
__global__ void __launch_bounds__(kThreads)
    mxq32_kernel(small_enc pe, gk_mx_elem p, int rule, int64_t rows, int64_t octs,
                 const float *__restrict__ x, int64_t ldx, uint8_t *__restrict__ codes,
                 int64_t ldcodes, uint8_t *__restrict__ scales, int64_t ldscales) {
    const int64_t step = (int64_t)gridDim.x * kThreads * kUnroll;
    for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
        const float4 *xr = reinterpret_cast<const float4 *>(x + r * ldx);
        uint2 *cr = reinterpret_cast<uint2 *>(codes + r * ldcodes);
        /* h0 is the same for the whole block, so every lane of a warp takes each step (the
         * shuffles need them all); octs is a multiple of 4, so an MX block is all in or out */
        for (int64_t h0 = (int64_t)blockIdx.x * kThreads * kUnroll; h0 < octs; h0 += step) {
            float4 v[kUnroll][2];
#pragma unroll
            for (int u = 0; u < kUnroll; u++) {
                const int64_t h = h0 + u * kThreads + threadIdx.x;
                const float4 zero = make_float4(0.f, 0.f, 0.f, 0.f);
                v[u][0] = h < octs ? xr[2 * h] : zero;
                v[u][1] = h < octs ? xr[2 * h + 1] : zero;
            }
#pragma unroll
            for (int u = 0; u < kUnroll; u++) {
                const int64_t h = h0 + u * kThreads + threadIdx.x;
                uint32_t a = abs_max(v[u][0], abs_max(v[u][1], 0));
                a = max(a, __shfl_xor_sync(0xffffffffu, a, 1));
                a = max(a, __shfl_xor_sync(0xffffffffu, a, 2));
                if (h >= octs) continue;
                const uint8_t s = gk_mx_scale_code(&p, rule, a);
                if ((threadIdx.x & 3) == 0) scales[r * ldscales + h / 4] = s;
                uint2 c = make_uint2(0, 0);
                if (s != 0xff) {
                    /* 1 / X = 2^(127 - s), a float32 normal: no rule gives a finite amax a
                     * scale above 2^126 (s <= 253), since emax_elem >= 2 */
                    const float f = __uint_as_float((uint32_t)(254 - s) << 23);
                    c = make_uint2(encode_mx4(pe, v[u][0], f), encode_mx4(pe, v[u][1], f));
                }
                cr[h] = c;
            }
        }
    }
}

__global__ void __launch_bounds__(kThreads)
    mxq_kernel(gk_mx_elem pk, int rule, int64_t rows, int64_t cols, int64_t block, int64_t nb,
               const float *__restrict__ x, int64_t ldx, uint8_t *__restrict__ codes,
               int64_t ldcodes, uint8_t *__restrict__ scales, int64_t ldscales) {
    const gk_mx_elem p = pk;
    for (int64_t r = blockIdx.y; r < rows; r += gridDim.y)
        for (int64_t b = thread_id(); b < nb; b += thread_count()) {
            const int64_t j0 = b * block, len = cols - j0 < block ? cols - j0 : block;
            const float *xb = x + r * ldx + j0;
            uint8_t *cb = codes + r * ldcodes + j0;
            uint32_t amax = 0;
            for (int64_t j = 0; j < len; j++)
                amax = max(amax, gk_f32_bits(xb[j]) & 0x7fffffffu);
            const uint8_t s = gk_mx_scale_code(&p, rule, amax);
            scales[r * ldscales + b] = s;
#pragma unroll 1 /* unrolled, the scalar.h encode spills registers */
            for (int64_t j = 0; j < len; j++)
                cb[j] = s == 0xff ? 0 : gk_mx_encode_elem(&p, xb[j], s);
        }
}

/* The element values of elem's codes, in a shared table (gk_mx_decode_elem at scale 2^0). */
__device__ __forceinline__ void fill_elem_table(float *table, const gk_mx_elem *p) {
    fill_table(table, [&](uint32_t c) { return gk_mx_decode_elem(p, (uint8_t)c, 127); });
}

/* decode(code) * 2^(s - 127) as gk_mx_decode_elem computes it, the value from the table. */
__device__ __forceinline__ float mx_value(const float *table, uint32_t c, uint8_t s) {
    const float2 f = pow2_split((int)s - 127);
    return s == 0xff ? __uint_as_float(0x7fc00000u) : table[c & 0xffu] * f.x * f.y;
}

/* Groups of 4 codes (one uint32) to one float4, every group inside one block (block % 4 == 0);
 * BLOCK32: the block index is a shift. */
template <bool BLOCK32>
__global__ void __launch_bounds__(kThreads)
    mxd4_kernel(gk_mx_elem p, int64_t rows, int64_t groups, int64_t block,
                const uint8_t *__restrict__ codes, int64_t ldcodes,
                const uint8_t *__restrict__ scales, int64_t ldscales, float *__restrict__ y,
                int64_t ldy) {
    __shared__ float table[256];
    fill_elem_table(table, &p);
    for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
        const uint32_t *cr = reinterpret_cast<const uint32_t *>(codes + r * ldcodes);
        const uint8_t *sr = scales + r * ldscales;
        float4 *yr = reinterpret_cast<float4 *>(y + r * ldy);
        for (int64_t g = thread_id(); g < groups; g += thread_count()) {
            const uint32_t c = cr[g];
            const uint8_t s = sr[BLOCK32 ? g >> 3 : 4 * g / block];
            yr[g] = make_float4(mx_value(table, c, s), mx_value(table, c >> 8, s),
                                mx_value(table, c >> 16, s), mx_value(table, c >> 24, s));
        }
    }
}

__global__ void __launch_bounds__(kThreads)
    mxd_kernel(gk_mx_elem p, int64_t rows, int64_t cols, int64_t block,
               const uint8_t *__restrict__ codes, int64_t ldcodes,
               const uint8_t *__restrict__ scales, int64_t ldscales, float *__restrict__ y,
               int64_t ldy) {
    for (int64_t r = blockIdx.y; r < rows; r += gridDim.y)
        for (int64_t j = thread_id(); j < cols; j += thread_count())
            y[r * ldy + j] =
                gk_mx_decode_elem(&p, codes[r * ldcodes + j], scales[r * ldscales + j / block]);
}

cudaError_t run_mxq(const gk_cuda_ctx *ctx, gk_format elem, const gk_mx_elem &p, int rule,
                    int64_t rows, int64_t cols, int64_t block, const float *x, int64_t ldx,
                    uint8_t *codes, int64_t ldcodes, uint8_t *scales, int64_t ldscales) {
    const int64_t nb = cols / block + (cols % block != 0);
    small_enc pe;
    enc_kind kind;
    if (block == 32 && cols % 32 == 0 && aligned(x, 16) && ldx % 4 == 0 && aligned(codes, 8) &&
        ldcodes % 8 == 0 && small_enc_of(elem, 1, &pe, &kind) && kind == ENC_FLOAT_ADD)
        mxq32_kernel<<<grid_2d(ctx, rows, cols / 8 / kUnroll), kThreads, 0, ctx->stream>>>(
            pe, p, rule, rows, cols / 8, x, ldx, codes, ldcodes, scales, ldscales);
    else
        mxq_kernel<<<grid_2d(ctx, rows, nb), kThreads, 0, ctx->stream>>>(
            p, rule, rows, cols, block, nb, x, ldx, codes, ldcodes, scales, ldscales);
    return cudaGetLastError();
}

cudaError_t run_mxd(const gk_cuda_ctx *ctx, const gk_mx_elem &p, int64_t rows, int64_t cols,
                    int64_t block, const uint8_t *codes, int64_t ldcodes, const uint8_t *scales,
                    int64_t ldscales, float *y, int64_t ldy) {
    if (block % 4 == 0 && cols % 4 == 0 && aligned(codes, 4) && ldcodes % 4 == 0 &&
        aligned(y, 16) && ldy % 4 == 0) {
        const dim3 grid = grid_2d(ctx, rows, cols / 4);
        if (block == 32)
            mxd4_kernel<true><<<grid, kThreads, 0, ctx->stream>>>(
                p, rows, cols / 4, block, codes, ldcodes, scales, ldscales, y, ldy);
        else
            mxd4_kernel<false><<<grid, kThreads, 0, ctx->stream>>>(
                p, rows, cols / 4, block, codes, ldcodes, scales, ldscales, y, ldy);
    } else {
        mxd_kernel<<<grid_2d(ctx, rows, cols), kThreads, 0, ctx->stream>>>(
            p, rows, cols, block, codes, ldcodes, scales, ldscales, y, ldy);
    }
    return cudaGetLastError();
}

/* ---- argument checks ----------------------------------------------------------------------- */
/* The order, statuses and messages of the CPU entry points (src/formats/formats.c), then the
 * device checks of each buffer (cuda/core/checks.cu) unless GEMMKIT_CUDA_CHECKS=0. */

gk_status check_ctx(const gk_cuda_ctx *ctx, const char *who) {
    if (ctx == NULL) return gk_fail(GK_ERR_INVALID_VALUE, "%s: ctx is NULL", who);
    return GK_SUCCESS;
}

gk_status check_format(const char *who, const char *name, gk_format fmt) {
    if (gk_format_name(fmt) == NULL)
        return gk_fail(GK_ERR_INVALID_VALUE, "%s: %s=%d is not a gk_format", who, name, (int)fmt);
    return GK_SUCCESS;
}

/* The device checks of `count` buffers (name, pointer, bytes), skipped for empty ones. */
struct dev_buffer {
    const char *name;
    const void *ptr;
    int64_t bytes;
};
gk_status check_buffers(const gk_cuda_ctx *ctx, const char *who, const dev_buffer *b, int count) {
    if (!ctx->checks) return GK_SUCCESS;
    for (int i = 0; i < count; i++) {
        if (b[i].bytes == 0) continue;
        const gk_status st = gk_cuda_check_buffer(ctx, who, b[i].name, b[i].ptr, b[i].bytes);
        if (st != GK_SUCCESS) return st;
    }
    return GK_SUCCESS;
}

/* Run `launch` on the context's device, with the device guard and CUDA's error mapped. */
template <typename L> gk_status on_device(const gk_cuda_ctx *ctx, const char *who, L launch) {
    gk_device_guard guard(ctx->device);
    if (guard.error() != cudaSuccess) return gk_cuda_status(who, "cudaSetDevice", guard.error());
    return launch();
}

int64_t code_bytes(gk_format fmt) {
    gk_format_info fi;
    return gk_format_info_get(fmt, &fi) == GK_SUCCESS ? fi.storage_bytes : 0;
}

} // namespace

/* ---- public entry points ------------------------------------------------------------------- */

gk_status gk_cuda_encode(gk_cuda_ctx *ctx, gk_format fmt, const float *x, void *codes, int64_t n,
                         int saturate) {
    static const char who[] = "gk_cuda_encode";
    gk_clear_error();
    gk_status st = check_ctx(ctx, who);
    if (st == GK_SUCCESS) st = check_format(who, "fmt", fmt);
    if (st == GK_SUCCESS) st = gk_fmt_check_n(who, n, x, "x", codes, "codes", 4);
    if (st != GK_SUCCESS) return st;
    if (saturate != 0 && saturate != 1)
        return gk_fail(GK_ERR_INVALID_VALUE, "%s: saturate=%d is not 0 or 1", who, saturate);
    if (n == 0) return GK_SUCCESS;
    return on_device(ctx, who, [&]() -> gk_status {
        const dev_buffer b[2] = {{"x", x, n * 4}, {"codes", codes, n * code_bytes(fmt)}};
        gk_status s = check_buffers(ctx, who, b, 2);
        if (s != GK_SUCCESS) return s;
        const cudaError_t err = run_encode(ctx, fmt, x, codes, n, saturate);
        return err == cudaSuccess ? GK_SUCCESS : gk_cuda_status(who, "kernel launch", err);
    });
}

gk_status gk_cuda_decode(gk_cuda_ctx *ctx, gk_format fmt, const void *codes, float *y, int64_t n) {
    static const char who[] = "gk_cuda_decode";
    gk_clear_error();
    gk_status st = check_ctx(ctx, who);
    if (st == GK_SUCCESS) st = check_format(who, "fmt", fmt);
    if (st == GK_SUCCESS) st = gk_fmt_check_n(who, n, codes, "codes", y, "y", 4);
    if (st != GK_SUCCESS) return st;
    if (n == 0) return GK_SUCCESS;
    return on_device(ctx, who, [&]() -> gk_status {
        const dev_buffer b[2] = {{"codes", codes, n * code_bytes(fmt)}, {"y", y, n * 4}};
        gk_status s = check_buffers(ctx, who, b, 2);
        if (s != GK_SUCCESS) return s;
        const cudaError_t err = run_decode(ctx, fmt, codes, y, n);
        return err == cudaSuccess ? GK_SUCCESS : gk_cuda_status(who, "kernel launch", err);
    });
}

gk_status gk_cuda_mx_quantize(gk_cuda_ctx *ctx, gk_format elem, gk_mx_scale_rule rule, int64_t rows,
                              int64_t cols, int64_t block, const float *x, int64_t ldx,
                              uint8_t *codes, int64_t ldcodes, uint8_t *scales, int64_t ldscales) {
    static const char who[] = "gk_cuda_mx_quantize";
    gk_clear_error();
    const gk_fmt_operand a[3] = {{x, "x", "ldx", ldx, 4, 0},
                                 {codes, "codes", "ldcodes", ldcodes, 1, 0},
                                 {scales, "scales", "ldscales", ldscales, 1, 1}};
    gk_mx_elem p; /* the element format's parameters, filled by the check */
    gk_status st = check_ctx(ctx, who);
    if (st == GK_SUCCESS) st = gk_fmt_check_mx(who, elem, 1, (int)rule, &p, rows, cols, block, a);
    if (st != GK_SUCCESS) return st;
    if (rows == 0 || cols == 0) return GK_SUCCESS;
    return on_device(ctx, who, [&]() -> gk_status {
        const int64_t nb = cols / block + (cols % block != 0);
        const dev_buffer b[3] = {{"x", x, gk_fmt_row_span(rows, cols, ldx, 4)},
                                 {"codes", codes, gk_fmt_row_span(rows, cols, ldcodes, 1)},
                                 {"scales", scales, gk_fmt_row_span(rows, nb, ldscales, 1)}};
        gk_status s = check_buffers(ctx, who, b, 3);
        if (s != GK_SUCCESS) return s;
        const cudaError_t err = run_mxq(ctx, elem, p, (int)rule, rows, cols, block, x, ldx, codes,
                                        ldcodes, scales, ldscales);
        return err == cudaSuccess ? GK_SUCCESS : gk_cuda_status(who, "kernel launch", err);
    });
}

gk_status gk_cuda_mx_dequantize(gk_cuda_ctx *ctx, gk_format elem, int64_t rows, int64_t cols,
                                int64_t block, const uint8_t *codes, int64_t ldcodes,
                                const uint8_t *scales, int64_t ldscales, float *y, int64_t ldy) {
    static const char who[] = "gk_cuda_mx_dequantize";
    gk_clear_error();
    const gk_fmt_operand a[3] = {{codes, "codes", "ldcodes", ldcodes, 1, 0},
                                 {scales, "scales", "ldscales", ldscales, 1, 1},
                                 {y, "y", "ldy", ldy, 4, 0}};
    gk_mx_elem p; /* the element format's parameters, filled by the check */
    gk_status st = check_ctx(ctx, who);
    if (st == GK_SUCCESS) st = gk_fmt_check_mx(who, elem, 0, 0, &p, rows, cols, block, a);
    if (st != GK_SUCCESS) return st;
    if (rows == 0 || cols == 0) return GK_SUCCESS;
    return on_device(ctx, who, [&]() -> gk_status {
        const int64_t nb = cols / block + (cols % block != 0);
        const dev_buffer b[3] = {{"codes", codes, gk_fmt_row_span(rows, cols, ldcodes, 1)},
                                 {"scales", scales, gk_fmt_row_span(rows, nb, ldscales, 1)},
                                 {"y", y, gk_fmt_row_span(rows, cols, ldy, 4)}};
        gk_status s = check_buffers(ctx, who, b, 3);
        if (s != GK_SUCCESS) return s;
        const cudaError_t err =
            run_mxd(ctx, p, rows, cols, block, codes, ldcodes, scales, ldscales, y, ldy);
        return err == cudaSuccess ? GK_SUCCESS : gk_cuda_status(who, "kernel launch", err);
    });
}
