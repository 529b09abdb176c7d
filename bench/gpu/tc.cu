/*
 * tc.cu — the mixed-precision GPU benchmark (bench.h: bench_tc_run, what `gemmkit bench --dtype`
 * does) and the mixed-precision `gemmkit run` (bench_tc_run_one): gk_cuda_gemm_ex (and
 * gk_cuda_sgemm in the 3xTF32 mode) on BF16, FP16, TF32, FP8 and float32 operands, and
 * gk_cuda_gemm_scaled on block-scaled ones (1x128 / 128x128 float32 scales, OCP MX), against
 * cuBLASLt in the same process and run.
 *
 * Method (docs/benchmarks.md, "Mixed precision"):
 *   - operands uniform in [-1, 1) from a hash, rounded to their format on the device; FP8 operands
 *     are stored scaled to the format's range with the inverse as their per-tensor scale, which
 *     gemmkit and cuBLASLt both receive; alpha 1, beta 0;
 *   - block-scaled operands: random normal data quantized on the device once per problem (MX by
 *     gk_cuda_mx_quantize with the OCP rule; 1x128 / 128x128 blocks with scale amax / 448 and
 *     saturating E4M3 codes), op(A) as m x k and op(B) as n x k rows along K, stored K-major by
 *     default; their peers are cuBLASLt's per-tensor FP8 on the same codes (FP6/FP4 as their
 *     exact E4M3 images) with scales 1, the issue's yardstick, and for 1x128 / 128x128 also
 *     cuBLASLt's own block scaling on Hopper: one row per peer, gemmkit's side measured once;
 *   - check: C is poisoned with NaN, each implementation runs once, and `samples` elements (the
 *     corners first) are compared with a float64 reference of the decoded operands under the rule
 *     of harness/gpu.h: on the device (gkh_gpu_check_sampled) for plain products, on the host
 *     from the codes times their block scales for block-scaled ones; a failing result is not
 *     timed;
 *   - timing: `warmup` untimed calls, then `reps` runs each bracketed by CUDA events with the L2
 *     overwritten before each (outside the events), spread over `rounds` rounds that rotate
 *     gemmkit and the peers so all see the same thermal and power state; the median is reported;
 *   - NVML samples the SM clock, board power and throttle reasons during each side's timed runs;
 *     % of peak divides the TFLOPS by the datasheet rate per SM and clock (PEAK below) times the
 *     SM count and the measured clock.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bench/bench.h"
#include "gemmkit.h"
#include "harness/gpu.h"
#include "harness/harness.h"
#include "peers.h"

namespace {

/* ---- datasheet rates ---------------------------------------------------------------------------
 * Dense FLOP per SM per clock (a multiply-add counts 2). Source: NVIDIA H100 Tensor Core GPU
 * Architecture whitepaper, Table 3: H100 SXM5 (132 SMs) peaks BF16/FP16 989.4, TF32 494.7 and FP8
 * 1978.9 TFLOPS dense at the 1830 MHz tensor-core boost clock, FP32 (non-tensor) 66.9 TFLOPS from
 * 128 FP32 cores per SM at 1980 MHz; each peak is SMs x rate x clock (e.g. 132 x 4096 x 1830 MHz =
 * 989.4 TFLOPS). The per-SM rates are the same on every sm_90 part (H100 PCIe, H200). 3xTF32 does
 * three TF32 products per useful one, so its useful peak is a third of TF32's. */
enum peak_kind { PEAK_FP32_SIMT, PEAK_TF32, PEAK_3XTF32, PEAK_16BIT, PEAK_FP8, PEAK_NONE };

struct peak_rate {
    int sm; /* compute capability x 10 */
    double flop_per_clk_sm[PEAK_NONE];
};
const peak_rate PEAK[] = {{90, {256.0, 2048.0, 2048.0 / 3.0, 4096.0, 8192.0}}};

/* Block-scaled types run on the FP8 tensor cores (FP6/FP4 codes as E4M3), so FP8 is their peak. */
peak_kind gemmkit_peak(const bench_dtype &d) {
    if (d.scaling || bench_dtype_is_fp8(&d)) return PEAK_FP8;
    switch (d.a) {
    case GK_F32:
        return d.fp32_mode == GK_FP32_3XTF32 ? PEAK_3XTF32 : PEAK_FP32_SIMT;
    case GK_TF32:
        return PEAK_TF32;
    case GK_BF16:
    case GK_F16:
        return PEAK_16BIT;
    default:
        return PEAK_NONE;
    }
}

/* % of the datasheet peak at `mhz` (NAN when the device or clock is unknown). */
double pct_peak(int sm, int sms, peak_kind k, double tflops, double mhz) {
    for (const peak_rate &r : PEAK)
        if (r.sm == sm && k != PEAK_NONE && mhz > 0)
            return 100.0 * tflops * 1e12 / (r.flop_per_clk_sm[k] * sms * mhz * 1e6);
    return NAN;
}

/* ---- one problem -------------------------------------------------------------------------------
 * The caller's description (any layout, transposition, leading dimensions) and its device
 * operands. FP8 operands carry a per-tensor scale in `scales` (device floats: A's, then B's, each
 * 256-byte aligned like every other pointer cuBLASLt gets from cudaMalloc: its heuristic picks
 * algorithms for 256-byte aligned pointers, and cublasLtMatmul may refuse a call whose pointers
 * the chosen algorithm cannot take, with CUBLAS_STATUS_NOT_SUPPORTED). Block-scaled operands
 * keep their codes and scales in `sc`. */
constexpr int SCALE_SLOT = 64; /* floats between A's and B's scale: 256 bytes */

/* Block-scaled operands: the codes and scales of op(A) (m x k) and of op(B) as n x k, rows along
 * K, on the host (for the check) and the device, plus what the peers read. */
struct scaled_ops {
    int64_t kb = 0;                    /* scale blocks per row along K */
    std::vector<uint8_t> ha, hb;       /* codes, m x k and n x k, row-major */
    std::vector<float> fsa, fsb;       /* BLOCK128 scales as gk_cuda_gemm_scaled reads them */
    std::vector<uint8_t> esa, esb;     /* MX E8M0 scales, the same */
    float lut_a[256], lut_b[256];      /* code -> value (gk_decode) */
    void *da = nullptr, *db = nullptr; /* the codes on the device (also gemmkit's operands when
                                          stored K-major with the minimum leading dimension) */
    void *sa = nullptr, *sb = nullptr; /* the scales on the device, gk_cuda_gemm_scaled's layout */
    void *pa = nullptr, *pb = nullptr; /* E4M3 images of the codes for the FP8 peers */
    float *lt_sa = nullptr, *lt_sb = nullptr; /* e4m3-b128: the scales in cuBLASLt's layouts */
    float *ones = nullptr; /* the per-tensor peer's scales: 1 and 1, SCALE_SLOT apart */

    /* the scale of op(A)(i, kk) and op(B)(kk, j) */
    double scale_a(bool mx, int64_t i, int64_t kk) const {
        return mx ? e8m0(esa[(size_t)(i * kb + kk / 32)]) : fsa[(size_t)(i * kb + kk / 128)];
    }
    double scale_b(bool mx, int64_t kk, int64_t j) const {
        return mx ? e8m0(esb[(size_t)(j * kb + kk / 32)])
                  : fsb[(size_t)((j / 128) * kb + kk / 128)];
    }
    static double e8m0(uint8_t s) { return s == 0xFF ? NAN : ldexp(1.0, (int)s - 127); }
};

struct problem {
    gk_layout layout;
    gk_trans ta, tb;
    int64_t m, n, k, lda, ldb, ldc;
    float alpha, beta;
    bench_dtype dt;
    gk_format out;
    int fast_accum;
    void *a = nullptr, *b = nullptr, *c0 = nullptr;
    float *scales = nullptr;
    size_t c_bytes = 0;
    scaled_ops sc;

    bool scaled() const { return dt.scaling != 0; }
    bool mx() const { return dt.scaling == GK_SCALING_MX; }
    int fp8(gk_format f) const { return !scaled() && (f == GK_F8_E4M3FN || f == GK_F8_E5M2); }
    const float *scale_a() const { return fp8(dt.a) ? scales : nullptr; }
    const float *scale_b() const { return fp8(dt.b) ? scales + SCALE_SLOT : nullptr; }
    bool all_f32() const { return dt.a == GK_F32 && dt.b == GK_F32 && out == GK_F32; }

    gkh_gemm_desc desc() const {
        gkh_gemm_desc d = {layout, ta, tb, m,   n,   k,   alpha,     beta,      dt.a, dt.b,
                           out,    a,  b,  lda, ldb, ldc, scale_a(), scale_b(), c0};
        return d;
    }
};

int64_t min_ld(gk_layout layout, int64_t rows, int64_t cols) {
    const int64_t v = layout == GK_ROW_MAJOR ? cols : rows;
    return v > 1 ? v : 1;
}

/* gk_format_name, never NULL */
const char *format_name(gk_format f) {
    const char *n = gk_format_name(f);
    return n ? n : "?";
}

size_t storage_bytes(gk_format f) {
    gk_format_info info;
    return gk_format_info_get(f, &info) == GK_SUCCESS ? (size_t)info.storage_bytes : 0;
}

/* The largest finite value of an FP8 format: operands are stored scaled up to it. */
float fp8_range(gk_format f) {
    return f == GK_F8_E4M3FN ? 448.0f : f == GK_F8_E5M2 ? 57344.0f : 1.0f;
}

/* Bytes of a stored rows x cols matrix of format f with leading dimension at least the minimum
 * (so a too-small one reaches the library's own check), plus one element. */
size_t matrix_bytes(const problem &p, gk_format f, int64_t rows, int64_t cols, int64_t ld) {
    const int64_t min = min_ld(p.layout, rows, cols);
    return storage_bytes(f) * (size_t)(gkh_extent(p.layout, rows, cols, ld < min ? min : ld) + 1);
}

std::string cuda_failure(const char *what, cudaError_t e) {
    (void)cudaGetLastError();
    return std::string(what) + ": " + cudaGetErrorString(e);
}

/* ---- block-scaled data on the device -------------------------------------------------------- */

__device__ uint64_t mix64(uint64_t z) { /* splitmix64 finaliser */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* x[0..n) standard normal (Box-Muller on two hashed uniforms), the same for any launch shape. */
__global__ void fill_normal(float *x, int64_t n, uint64_t seed) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        const uint64_t z = mix64(seed + 0x9E3779B97F4A7C15ull * (uint64_t)i);
        const float u1 = (float)((z >> 40) + 1) * 0x1p-24f; /* (0, 1] */
        const float u2 = (float)(z & 0xffffffu) * 0x1p-24f; /* [0, 1) */
        x[i] = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
    }
}

/* 1x128 / 128x128 quantization of x (rows x k, row-major) in place, one thread block per scale
 * block of `rows_per_block` rows (1 or 128) by 128 of K: scale = amax / max_elem (1 for an
 * all-zero block) into scales[rb * kb + b], and the block's values divided by it, ready for a
 * saturating encode (amax / scale may round a hair above max_elem). */
__global__ void block128_quantize(float *x, int64_t rows, int64_t k, int rows_per_block,
                                  float max_elem, float *scales, int64_t kb) {
    __shared__ float red[256];
    const int64_t rb = blockIdx.x, b = blockIdx.y;
    const int64_t r0 = rb * rows_per_block, r1 = min(rows, r0 + rows_per_block);
    const int64_t k0 = b * 128, w = min(k, k0 + 128) - k0, count = (r1 - r0) * w;
    float amax = 0.0f;
    for (int64_t t = threadIdx.x; t < count; t += blockDim.x)
        amax = fmaxf(amax, fabsf(x[(r0 + t / w) * k + k0 + t % w]));
    red[threadIdx.x] = amax;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if ((int)threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
        __syncthreads();
    }
    const float scale = red[0] > 0.0f ? red[0] / max_elem : 1.0f;
    if (threadIdx.x == 0) scales[rb * kb + b] = scale;
    for (int64_t t = threadIdx.x; t < count; t += blockDim.x)
        x[(r0 + t / w) * k + k0 + t % w] /= scale;
}

/* dst[r * s_row + kk * s_k] = src[r * k + kk]: K-major rows into any stored layout. */
__global__ void scatter_codes(const uint8_t *src, int64_t rows, int64_t k, uint8_t *dst,
                              int64_t s_row, int64_t s_k) {
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < rows * k;
         t += (int64_t)gridDim.x * blockDim.x)
        dst[(t / k) * s_row + (t % k) * s_k] = src[t];
}

struct code_map {
    uint8_t to[256];
};

__global__ void map_codes(const uint8_t *src, uint8_t *dst, int64_t n, code_map map) {
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < n;
         t += (int64_t)gridDim.x * blockDim.x)
        dst[t] = map.to[src[t]];
}

/* out[t] = element off[t] of c (elements of `size` bytes), for the host check. */
__global__ void gather_elements(const uint8_t *c, const int64_t *off, int64_t count, int size,
                                uint8_t *out) {
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < count;
         t += (int64_t)gridDim.x * blockDim.x)
        for (int i = 0; i < size; i++)
            out[t * size + i] = c[off[t] * size + i];
}

/* Strides of the stored codes of an operand with `rows` rows along K (op(A)'s m, op(B)'s n):
 * element (r, kk) at r * s_row + kk * s_k. A is K-major when column-major transposed or
 * row-major not; B the other way round. */
void operand_strides(const problem &p, bool is_a, int64_t ld, int64_t *s_row, int64_t *s_k) {
    const bool col = p.layout == GK_COL_MAJOR;
    const bool t = (is_a ? p.ta : p.tb) != GK_NO_TRANS;
    const bool k_major = is_a ? col == t : col != t;
    *s_row = k_major ? ld : 1, *s_k = k_major ? 1 : ld;
}

/* Random normal op(A) (is_a) or op(B)^T quantized to the problem's scaling into codes and scales
 * on the device, then copied to the host. x: float workspace of rows * k. */
std::string quantize_operand(gk_cuda_ctx *ctx, problem &p, bool is_a, float *x, uint64_t seed,
                             int blocks) {
    scaled_ops &s = p.sc;
    const int64_t rows = is_a ? p.m : p.n, k = p.k;
    const gk_format fmt = is_a ? p.dt.a : p.dt.b;
    void *codes = is_a ? s.da : s.db, *scales = is_a ? s.sa : s.sb;
    if (rows > 0 && k > 0) {
        fill_normal<<<blocks, 256>>>(x, rows * k, seed);
        gk_status st;
        if (p.mx()) {
            st = gk_cuda_mx_quantize(ctx, fmt, GK_MX_SCALE_FLOOR, rows, k, 32, x, k,
                                     (uint8_t *)codes, k, (uint8_t *)scales, s.kb);
        } else {
            const int rpb = is_a ? 1 : 128; /* 1x128 blocks of A, 128x128 of B */
            block128_quantize<<<dim3((unsigned)((rows + rpb - 1) / rpb), (unsigned)s.kb), 256>>>(
                x, rows, k, rpb, fp8_range(fmt), (float *)scales, s.kb);
            st = gk_cuda_encode(ctx, fmt, x, codes, rows * k, 1);
        }
        if (st != GK_SUCCESS)
            return std::string(p.mx() ? "gk_cuda_mx_quantize" : "gk_cuda_encode") + ": " +
                   gk_status_string(st) + ": " + gk_last_error();
    }
    cudaError_t e = cudaDeviceSynchronize();
    std::vector<uint8_t> &h = is_a ? s.ha : s.hb;
    h.resize((size_t)(rows * k));
    if (e == cudaSuccess && !h.empty())
        e = cudaMemcpy(h.data(), codes, h.size(), cudaMemcpyDeviceToHost);
    const int64_t nscales = p.mx() || is_a ? rows * s.kb : (rows + 127) / 128 * s.kb;
    if (p.mx()) {
        std::vector<uint8_t> &hs = is_a ? s.esa : s.esb;
        hs.resize((size_t)nscales);
        if (e == cudaSuccess && !hs.empty())
            e = cudaMemcpy(hs.data(), scales, hs.size(), cudaMemcpyDeviceToHost);
    } else {
        std::vector<float> &hs = is_a ? s.fsa : s.fsb;
        hs.resize((size_t)nscales);
        if (e == cudaSuccess && !hs.empty())
            e = cudaMemcpy(hs.data(), scales, hs.size() * 4, cudaMemcpyDeviceToHost);
    }
    if (e != cudaSuccess) return cuda_failure("quantizing the operands", e);
    uint8_t all[256];
    for (int c = 0; c < 256; c++)
        all[c] = (uint8_t)c;
    gk_decode(fmt, all, is_a ? s.lut_a : s.lut_b, 256);
    return "";
}

/* Device memory of at least `bytes` (16 more, so that an empty operand still has an address). */
cudaError_t alloc(void **p, size_t bytes) {
    return cudaMalloc(p, bytes + 16);
}

/* The block-scaled operands of p (file comment) and what the peers need; "" or the failure. */
std::string setup_scaled(gk_cuda_ctx *ctx, problem &p, uint64_t seed, int blocks) {
    scaled_ops &s = p.sc;
    const int64_t m = p.m, n = p.n, k = p.k;
    s.kb = (k + (p.mx() ? 31 : 127)) / (p.mx() ? 32 : 128);
    const size_t sa_bytes = (size_t)(m * s.kb) * (p.mx() ? 1 : 4);
    const size_t sb_bytes = p.mx() ? (size_t)(n * s.kb) : (size_t)((n + 127) / 128 * s.kb) * 4;
    float *x = nullptr;
    cudaError_t e;
    if ((e = alloc((void **)&x, (size_t)(std::max(m, n) * k) * 4)) ||
        (e = alloc(&s.da, (size_t)(m * k))) || (e = alloc(&s.db, (size_t)(n * k))) ||
        (e = alloc(&s.sa, sa_bytes)) || (e = alloc(&s.sb, sb_bytes)) ||
        (e = alloc((void **)&s.ones, 2 * SCALE_SLOT * 4))) {
        cudaFree(x);
        return cuda_failure("device memory", e);
    }
    std::string err = quantize_operand(ctx, p, true, x, seed * 3 + 1, blocks);
    if (err.empty()) err = quantize_operand(ctx, p, false, x, seed * 5 + 2, blocks);
    cudaFree(x);
    if (!err.empty()) return err;

    /* gemmkit's operands as stored: the codes themselves when K-major with ld = k */
    for (int o = 0; o < 2; o++) {
        const bool is_a = o == 0;
        const int64_t rows = is_a ? m : n;
        int64_t &ld = is_a ? p.lda : p.ldb;
        /* the stored matrix's rows and columns */
        const int64_t sr = is_a ? (p.ta == GK_NO_TRANS ? m : k) : (p.tb == GK_NO_TRANS ? k : n);
        const int64_t scols = is_a ? (p.ta == GK_NO_TRANS ? k : m) : (p.tb == GK_NO_TRANS ? n : k);
        if (ld < 0) ld = min_ld(p.layout, sr, scols);
        int64_t s_row, s_k;
        operand_strides(p, is_a, ld, &s_row, &s_k);
        void *codes = is_a ? s.da : s.db, *&stored = is_a ? p.a : p.b;
        if (s_k == 1 && s_row == k) {
            stored = codes;
            continue;
        }
        const size_t bytes = matrix_bytes(p, is_a ? p.dt.a : p.dt.b, sr, scols, ld);
        if ((e = alloc(&stored, bytes)) || (e = cudaMemset(stored, 0, bytes)))
            return cuda_failure("device memory", e);
        if (rows > 0 && k > 0)
            scatter_codes<<<blocks, 256>>>((const uint8_t *)codes, rows, k, (uint8_t *)stored,
                                           s_row, s_k);
    }

    /* the FP8 peers' operands: the codes, or their exact E4M3 images (FP6/FP4 values are E4M3
     * values) */
    for (int o = 0; o < 2; o++) {
        const gk_format fmt = o ? p.dt.b : p.dt.a;
        void *codes = o ? s.db : s.da, *&img = o ? s.pb : s.pa;
        const int64_t count = (o ? n : m) * k;
        if (fmt == GK_F8_E4M3FN) {
            img = codes;
            continue;
        }
        code_map map;
        gk_encode(GK_F8_E4M3FN, o ? s.lut_b : s.lut_a, map.to, 256, 1);
        if ((e = alloc(&img, (size_t)count))) return cuda_failure("device memory", e);
        if (count > 0)
            map_codes<<<blocks, 256>>>((const uint8_t *)codes, (uint8_t *)img, count, map);
    }
    std::vector<float> ones(2 * SCALE_SLOT, 0.0f);
    ones[0] = ones[SCALE_SLOT] = 1.0f;
    if ((e = cudaMemcpy(s.ones, ones.data(), ones.size() * 4, cudaMemcpyHostToDevice)))
        return cuda_failure("device setup", e);

    /* cuBLASLt's block scales on Hopper, one float per 128 of K (VEC128_32F) for A, stored as
     * k x m, and per 128 x 128 block (BLK128x128_32F) for B, stored as k x n. Their layouts are
     * those of NVIDIA's cuBLASLt samples (sizes: kb * m and pad4(kb) * ceil(n / 128)), Transformer
     * Engine and PyTorch's _scaled_mm (order): A's with the m rows contiguous, one run of m per
     * 128 of K; B's with the K blocks contiguous, runs of pad4(kb) per 128 columns. */
    if (!p.mx() && p.dt.a == GK_F8_E4M3FN && p.dt.b == GK_F8_E4M3FN) {
        const int64_t kb4 = (s.kb + 3) / 4 * 4, nb = (n + 127) / 128;
        std::vector<float> la((size_t)(m * s.kb), 0.0f), lb((size_t)(nb * kb4), 0.0f);
        for (int64_t i = 0; i < m; i++)
            for (int64_t b = 0; b < s.kb; b++)
                la[(size_t)(b * m + i)] = s.fsa[(size_t)(i * s.kb + b)];
        for (int64_t jb = 0; jb < nb; jb++)
            for (int64_t b = 0; b < s.kb; b++)
                lb[(size_t)(jb * kb4 + b)] = s.fsb[(size_t)(jb * s.kb + b)];
        if ((e = alloc((void **)&s.lt_sa, la.size() * 4)) ||
            (e = alloc((void **)&s.lt_sb, lb.size() * 4)) ||
            (!la.empty() &&
             (e = cudaMemcpy(s.lt_sa, la.data(), la.size() * 4, cudaMemcpyHostToDevice))) ||
            (!lb.empty() &&
             (e = cudaMemcpy(s.lt_sb, lb.data(), lb.size() * 4, cudaMemcpyHostToDevice))))
            return cuda_failure("device memory", e);
    }
    return "";
}

/* Allocate and fill the operands (and C0, random, when beta != 0); "" or the failure. */
std::string setup(gk_cuda_ctx *ctx, problem &p, uint64_t seed, int blocks) {
    const int64_t ar = p.ta == GK_NO_TRANS ? p.m : p.k, ac = p.ta == GK_NO_TRANS ? p.k : p.m;
    const int64_t br = p.tb == GK_NO_TRANS ? p.k : p.n, bc = p.tb == GK_NO_TRANS ? p.n : p.k;
    if (p.ldc < 0) p.ldc = min_ld(p.layout, p.m, p.n);
    p.c_bytes = matrix_bytes(p, p.out, p.m, p.n, p.ldc);
    cudaError_t e;
    if (p.scaled()) {
        const std::string err = setup_scaled(ctx, p, seed, blocks);
        if (!err.empty()) return err;
    } else {
        if (p.lda < 0) p.lda = min_ld(p.layout, ar, ac);
        if (p.ldb < 0) p.ldb = min_ld(p.layout, br, bc);
        const size_t ab = matrix_bytes(p, p.dt.a, ar, ac, p.lda),
                     bb = matrix_bytes(p, p.dt.b, br, bc, p.ldb);
        if (!ab || !bb || !p.c_bytes) return "a format without a GEMM storage type";
        if ((e = cudaMalloc(&p.a, ab)) || (e = cudaMalloc(&p.b, bb)) ||
            (e = cudaMalloc((void **)&p.scales, 2 * SCALE_SLOT * 4)))
            return cuda_failure("device memory", e);
        const float ma = fp8_range(p.dt.a), mb = fp8_range(p.dt.b);
        gkh_gpu_fill_format(p.a, p.dt.a, (int64_t)(ab / storage_bytes(p.dt.a)), seed * 3 + 1, ma,
                            blocks);
        gkh_gpu_fill_format(p.b, p.dt.b, (int64_t)(bb / storage_bytes(p.dt.b)), seed * 5 + 2, mb,
                            blocks);
        std::vector<float> s(2 * SCALE_SLOT, 0.0f);
        s[0] = 1.0f / ma, s[SCALE_SLOT] = 1.0f / mb;
        if ((e = cudaMemcpy(p.scales, s.data(), s.size() * 4, cudaMemcpyHostToDevice)))
            return cuda_failure("device setup", e);
    }
    if (!p.c_bytes) return "a format without a GEMM storage type";
    if (p.beta != 0.0f) {
        if ((e = cudaMalloc(&p.c0, p.c_bytes))) return cuda_failure("device memory", e);
        gkh_gpu_fill_format(p.c0, p.out, (int64_t)(p.c_bytes / storage_bytes(p.out)), seed * 7 + 3,
                            1.0f, blocks);
    }
    if ((e = cudaDeviceSynchronize())) return cuda_failure("device setup", e);
    return "";
}

void release(problem &p) {
    scaled_ops &s = p.sc;
    if (p.a != s.da) cudaFree(p.a);
    if (p.b != s.db) cudaFree(p.b);
    if (s.pa != s.da) cudaFree(s.pa);
    if (s.pb != s.db) cudaFree(s.pb);
    cudaFree(p.c0), cudaFree(p.scales);
    cudaFree(s.da), cudaFree(s.db), cudaFree(s.sa), cudaFree(s.sb);
    cudaFree(s.lt_sa), cudaFree(s.lt_sb), cudaFree(s.ones);
    p.a = p.b = p.c0 = nullptr, p.scales = nullptr;
    s = scaled_ops();
}

/* ---- the check of a block-scaled result ----------------------------------------------------- */

/* Elements off[] of a device matrix of format f, decoded to float. */
cudaError_t gather(const void *c, gk_format f, const std::vector<int64_t> &off, int blocks,
                   std::vector<float> &vals) {
    const int size = (int)storage_bytes(f);
    const int64_t count = (int64_t)off.size();
    int64_t *d_off = nullptr;
    uint8_t *d_out = nullptr;
    std::vector<uint8_t> raw((size_t)(count * size));
    cudaError_t e;
    if ((e = cudaMalloc((void **)&d_off, off.size() * sizeof off[0] + 16)) ||
        (e = cudaMalloc((void **)&d_out, raw.size() + 16)) ||
        (e = cudaMemcpy(d_off, off.data(), off.size() * sizeof off[0], cudaMemcpyHostToDevice))) {
        cudaFree(d_off), cudaFree(d_out);
        return e;
    }
    gather_elements<<<blocks, 256>>>((const uint8_t *)c, d_off, count, size, d_out);
    e = cudaMemcpy(raw.data(), d_out, raw.size(), cudaMemcpyDeviceToHost);
    cudaFree(d_off), cudaFree(d_out);
    vals.resize((size_t)count);
    if (e == cudaSuccess) gk_decode(f, raw.data(), vals.data(), count);
    return e;
}

/* The float64 check of a block-scaled result C (device, stored in c_layout with leading
 * dimension ldc, format p.out) on the host: `samples` elements (the four corners first, then
 * positions drawn from `seed`; every element when m * n <= samples) against the sum over K of
 * decoded code times block scale of both operands, under the rule of harness/gpu.h (the bound of
 * rule.h plus the rounding to p.out). c0: C before the call (p's layout and ldc), read when
 * beta != 0. */
cudaError_t check_scaled(const problem &p, const void *c, gk_layout c_layout, int64_t ldc,
                         float alpha, float beta, const void *c0, double u_in, int64_t samples,
                         uint64_t seed, int blocks, gkh_gpu_check *out) {
    *out = gkh_gpu_check{};
    const int64_t m = p.m, n = p.n, k = p.k;
    if (m == 0 || n == 0) return cudaSuccess;
    const bool all = m * n <= samples;
    const int64_t count = all ? m * n : samples;
    std::vector<int64_t> is((size_t)count), js((size_t)count), off((size_t)count),
        off0((size_t)count);
    gkh_rng rng = {seed | 1};
    for (int64_t t = 0; t < count; t++) {
        int64_t i, j;
        if (all)
            i = t % m, j = t / m;
        else if (t < 4)
            i = t & 1 ? m - 1 : 0, j = t & 2 ? n - 1 : 0;
        else
            i = (int64_t)(gkh_rng_next(&rng) % (uint64_t)m),
            j = (int64_t)(gkh_rng_next(&rng) % (uint64_t)n);
        is[(size_t)t] = i, js[(size_t)t] = j;
        off[(size_t)t] = c_layout == GK_COL_MAJOR ? i + j * ldc : i * ldc + j;
        off0[(size_t)t] = p.layout == GK_COL_MAJOR ? i + j * p.ldc : i * p.ldc + j;
    }
    std::vector<float> got, before;
    cudaError_t e = gather(c, p.out, off, blocks, got);
    if (e == cudaSuccess && beta != 0.0f) e = gather(c0, p.out, off0, blocks, before);
    if (e != cudaSuccess) return e;
    const scaled_ops &s = p.sc;
    const bool mx = p.mx();
    const int shift = mx ? 5 : 7; /* log2 of the block length along K */
    const double u_out = gkh_format_u_out(p.out);
    std::vector<double> sa((size_t)s.kb), sb((size_t)s.kb);
    out->checked = count;
    for (int64_t t = 0; t < count; t++) {
        const int64_t i = is[(size_t)t], j = js[(size_t)t];
        for (int64_t b = 0; b < s.kb; b++)
            sa[(size_t)b] = s.scale_a(mx, i, b << shift),
            sb[(size_t)b] = s.scale_b(mx, b << shift, j);
        const uint8_t *ar = s.ha.data() + i * k, *br = s.hb.data() + j * k;
        double r = 0.0, sum = 0.0;
        for (int64_t kk = 0; kk < k; kk++) {
            const double v = (double)s.lut_a[ar[kk]] * sa[(size_t)(kk >> shift)] *
                             ((double)s.lut_b[br[kk]] * sb[(size_t)(kk >> shift)]);
            r += v, sum += fabs(v);
        }
        const double c0v = beta != 0.0f ? (double)before[(size_t)t] : 0.0;
        const double want = (double)alpha * r + (double)beta * c0v;
        const double scale = fabs((double)alpha) * sum + fabs((double)beta * c0v);
        const double err = fabs((double)got[(size_t)t] - want);
        const double bound = gkh_bound(k, u_in, scale) + u_out * fabs(want);
        const double ratio = isnan(err) ? INFINITY : err / bound;
        if (!(err <= bound)) out->failed++;
        out->max_err = std::max(out->max_err, isnan(err) ? INFINITY : scale > 0 ? err / scale : 0);
        if (t == 0 || ratio > out->max_ratio) {
            out->max_ratio = ratio;
            out->worst_i = i, out->worst_j = j;
            out->worst_got = got[(size_t)t], out->worst_want = want;
        }
    }
    return cudaSuccess;
}

/* The rule's u_in for block-scaled products: the FP8 tensor-core accumulation between float32
 * promotions, at most every 128 of K (gkh_gemm_ex_u_in); FP6/FP4 codes run as E4M3, and the
 * decoding paths (exact MX products, one float32 rounding of a BLOCK128 element) stay inside it. */
double scaled_u_in(int64_t k) {
    return gkh_gemm_ex_u_in(GK_F8_E4M3FN, GK_F8_E4M3FN, GK_FP32_SIMT, 0, k);
}

/* gemmkit's call: float32 operands and result go through gk_cuda_sgemm (the entry point whose
 * FP32 mode the context sets), block-scaled ones through gk_cuda_gemm_scaled, everything else
 * through gk_cuda_gemm_ex. */
gk_status call_gemmkit(gk_cuda_ctx *ctx, const problem &p, void *c) {
    if (p.scaled())
        return gk_cuda_gemm_scaled(ctx, p.layout, p.ta, p.tb, p.m, p.n, p.k, p.alpha, p.dt.a, p.a,
                                   p.lda, p.sc.sa, p.dt.b, p.b, p.ldb, p.sc.sb, p.dt.scaling,
                                   p.beta, p.out, c, p.ldc);
    if (p.all_f32())
        return gk_cuda_sgemm(ctx, p.layout, p.ta, p.tb, p.m, p.n, p.k, p.alpha, (const float *)p.a,
                             p.lda, (const float *)p.b, p.ldb, p.beta, (float *)c, p.ldc);
    const gk_gemm_ex_opts opts = {p.scale_a(), p.scale_b(), p.fast_accum};
    return gk_cuda_gemm_ex(ctx, p.layout, p.ta, p.tb, p.m, p.n, p.k, p.alpha, p.dt.a, p.a, p.lda,
                           p.dt.b, p.b, p.ldb, p.beta, p.out, c, p.ldc, &opts);
}

const char *gemmkit_entry(const problem &p) {
    return p.scaled() ? "gk_cuda_gemm_scaled" : p.all_f32() ? "gk_cuda_sgemm" : "gk_cuda_gemm_ex";
}

int lt_type(gk_format f) {
    switch (f) {
    case GK_F32:
    case GK_TF32:
        return (int)gk_cublaslt::R_32F;
    case GK_BF16:
        return (int)gk_cublaslt::R_16BF;
    case GK_F16:
        return (int)gk_cublaslt::R_16F;
    case GK_F8_E4M3FN:
        return (int)gk_cublaslt::R_8F_E4M3;
    case GK_F8_E5M2:
        return (int)gk_cublaslt::R_8F_E5M2;
    default:
        return -1;
    }
}

/* The same problem for cuBLASLt, which is column-major: a row-major C = op(A) op(B) is the
 * column-major C^T = op(B)^T op(A)^T, so the operands trade places. */
gk_cublaslt::problem peer_problem(const problem &p, void *c) {
    gk_cublaslt::problem q = {};
    const bool row = p.layout == GK_ROW_MAJOR;
    const bool ta = p.ta != GK_NO_TRANS, tb = p.tb != GK_NO_TRANS;
    q.trans_a = row ? tb : ta, q.trans_b = row ? ta : tb;
    q.m = row ? p.n : p.m, q.n = row ? p.m : p.n, q.k = p.k;
    q.type_a = lt_type(row ? p.dt.b : p.dt.a), q.type_b = lt_type(row ? p.dt.a : p.dt.b);
    q.type_c = lt_type(p.out);
    q.compute = p.dt.a == GK_TF32 || p.dt.b == GK_TF32 ? gk_cublaslt::COMPUTE_32F_FAST_TF32
                                                       : gk_cublaslt::COMPUTE_32F;
    q.a = row ? p.b : p.a, q.lda = row ? p.ldb : p.lda;
    q.b = row ? p.a : p.b, q.ldb = row ? p.lda : p.ldb;
    q.c = c, q.ldc = p.ldc;
    q.alpha = p.alpha, q.beta = p.beta;
    q.scale_a = row ? p.scale_b() : p.scale_a(), q.scale_b = row ? p.scale_a() : p.scale_b();
    q.fast_accum = p.fast_accum;
    return q;
}

/* A block-scaled problem's FP8 peers, both column-major TN on the codes' E4M3 images (op(A) as
 * k x m, op(B) as k x n, both K-major), C m x n with ldc = m, beta 0: per-tensor scales of 1
 * (block = false), or cuBLASLt's 1x128 / 128x128 block scaling on the E4M3 codes (block). */
gk_cublaslt::problem scaled_peer_problem(const problem &p, bool block, void *c) {
    gk_cublaslt::problem q = {};
    q.trans_a = 1, q.trans_b = 0;
    q.m = p.m, q.n = p.n, q.k = p.k;
    q.type_a = q.type_b = gk_cublaslt::R_8F_E4M3;
    q.type_c = lt_type(p.out);
    q.compute = gk_cublaslt::COMPUTE_32F;
    q.a = p.sc.pa, q.b = p.sc.pb, q.c = c;
    q.lda = q.ldb = std::max<int64_t>(p.k, 1), q.ldc = std::max<int64_t>(p.m, 1);
    q.beta = 0.0f;
    if (block) {
        q.alpha = p.alpha;
        q.scale_a = p.sc.lt_sa, q.scale_b = p.sc.lt_sb;
        q.scale_mode_a = gk_cublaslt::SCALE_VEC128, q.scale_mode_b = gk_cublaslt::SCALE_BLK128X128;
    } else {
        q.alpha = 1.0f;
        q.scale_a = p.sc.ones, q.scale_b = p.sc.ones + SCALE_SLOT;
        q.fast_accum = p.fast_accum;
    }
    return q;
}

/* The plain FP8 product the per-tensor peer of a block-scaled problem computes, for its check. */
gkh_gemm_desc scaled_peer_desc(const problem &p) {
    gkh_gemm_desc d = {};
    d.layout = GK_COL_MAJOR, d.ta = GK_TRANS, d.tb = GK_NO_TRANS;
    d.m = p.m, d.n = p.n, d.k = p.k, d.alpha = 1.0f, d.beta = 0.0f;
    d.atype = d.btype = GK_F8_E4M3FN, d.ctype = p.out;
    d.a = p.sc.pa, d.b = p.sc.pb;
    d.lda = d.ldb = std::max<int64_t>(p.k, 1), d.ldc = std::max<int64_t>(p.m, 1);
    d.scale_a = p.sc.ones, d.scale_b = p.sc.ones + SCALE_SLOT;
    return d;
}

/* The peer's name: what cuBLASLt computes in. */
std::string peer_name(const problem &p) {
    if (p.scaled() || bench_dtype_is_fp8(&p.dt)) return "cublaslt_fp8";
    switch (p.dt.a) {
    case GK_F32:
        return "cublaslt_fp32";
    case GK_TF32:
        return "cublaslt_tf32";
    case GK_BF16:
        return "cublaslt_bf16";
    case GK_F16:
        return "cublaslt_f16";
    default:
        return "cublaslt";
    }
}

/* cuBLASLt multiplies float32 operands on the CUDA cores (CUBLAS_COMPUTE_32F), the rest like
 * gemmkit (block-scaled problems' peers in FP8). */
peak_kind peer_peak(const problem &p) {
    return p.dt.a == GK_F32 && p.dt.b == GK_F32 ? PEAK_FP32_SIMT : gemmkit_peak(p.dt);
}

/* ---- measurement ---------------------------------------------------------------------------- */

/* One implementation as the event timer launches it, and what its result is checked against:
 * the plain product `desc` on the device, or the block-scaled problem `scaled` on the host (C
 * stored in c_layout with c_ld). The status of its last call is kept. */
struct impl {
    bool is_peer = false;
    gk_cuda_ctx *ctx = nullptr;
    gk_cublaslt *lt = nullptr;
    const problem *p = nullptr;
    void *c = nullptr;
    size_t c_bytes = 0;
    gk_status st = GK_SUCCESS;
    bool peer_ok = true;
    gkh_gemm_desc desc = {};
    const problem *scaled = nullptr;
    gk_layout c_layout = GK_COL_MAJOR;
    int64_t c_ld = 1;
    float alpha = 1.0f, beta = 0.0f;
    double u_in = 0.0;

    void call() {
        if (is_peer)
            peer_ok = lt->run();
        else
            st = call_gemmkit(ctx, *p, c);
    }
    static void launch(void *self) { ((impl *)self)->call(); }
    bool failed() const { return is_peer ? !peer_ok : st != GK_SUCCESS; }
    std::string why() const {
        if (is_peer) return lt->why();
        return std::string(gk_status_string(st)) + ": " + gk_last_error();
    }
    cudaError_t verify(int64_t samples, uint64_t seed, int blocks, gkh_gpu_check *r) const {
        if (scaled)
            return check_scaled(*scaled, c, c_layout, c_ld, alpha, beta, scaled->c0, u_in, samples,
                                seed, blocks, r);
        return gkh_gpu_check_sampled(&desc, c, u_in, samples, seed, blocks, r);
    }
};

/* gemmkit's side of problem p writing C to c. */
impl gemmkit_impl(gk_cuda_ctx *ctx, const problem &p, void *c) {
    impl im;
    im.ctx = ctx, im.p = &p, im.c = c, im.c_bytes = p.c_bytes;
    im.alpha = p.alpha, im.beta = p.beta;
    if (p.scaled()) {
        im.scaled = &p, im.c_layout = p.layout, im.c_ld = p.ldc;
        im.u_in = scaled_u_in(p.k);
    } else {
        im.desc = p.desc();
        im.u_in = gkh_gemm_ex_u_in(p.dt.a, p.dt.b, p.dt.fp32_mode, p.fast_accum, p.k);
    }
    return im;
}

struct side {
    std::string check; /* "ok", "FAIL ...", "ERROR ...", "n/a ..." */
    int reps = 0;
    double ms = NAN, ms_min = NAN, tflops = NAN, pct = NAN, mhz = NAN, watts = NAN;
    double err = NAN, err_ratio = NAN;
    std::string throttle;
    bool failed() const { return !check.compare(0, 4, "FAIL") || !check.compare(0, 5, "ERROR"); }
};

std::string quote_csv(std::string s) {
    for (char &ch : s)
        if (ch == '"' || ch == '\n') ch = '\'';
    return "\"" + s + "\"";
}

std::string fmt(double v, const char *f) {
    if (isnan(v)) return "";
    char b[64];
    snprintf(b, sizeof b, f, v);
    return b;
}

std::string json_str(const std::string &s) {
    std::vector<char> q(2 * s.size() + 3);
    return gkh_json_quote(q.data(), q.size(), s.c_str());
}

std::string json_num(double v, const char *f) {
    return isnan(v) ? "null" : fmt(v, f);
}

std::string trans_name(gk_trans ta, gk_trans tb) {
    return std::string(ta == GK_NO_TRANS ? "N" : "T") + (tb == GK_NO_TRANS ? "N" : "T");
}

const char *scaling_name(int scaling) {
    return scaling == GK_SCALING_BLOCK128 ? "block128" : scaling == GK_SCALING_MX ? "mx" : "none";
}

/* One line of the results: gemmkit against one peer (a block-scaled type with two peers gets
 * two rows with the same gemmkit side). */
struct row {
    std::string dtype, peer, peer_algo;
    int scaling;
    gk_format a, b, c;
    gk_layout layout;
    gk_trans ta, tb;
    int64_t m, n, k;
    side gk, pr;
};

/* An implementation taking part in one problem's measurement. */
struct contender {
    impl im;
    side s;
    peak_kind peak = PEAK_NONE;
    bool timed = false;
    std::vector<double> ms;
    gk_nvml_totals pw;
};

struct bench {
    bench_tc_opts opt;
    gk_cuda_ctx *ctx = nullptr;
    gk_cublaslt lt[2]; /* one plan each: the peer of a row, and a block-scaled row's second */
    bool have_peer = false;
    gk_nvml_sampler nvml;
    bool have_nvml = false;
    cudaDeviceProp prop;
    int sm = 0, blocks = 0;
    gkh_l2_flush flush = {nullptr, 0};
    bool context_lost = false;
    std::vector<row> rows;

    /* Check one implementation, then warm it up; false (with s.check saying why) when it is not
     * to be timed. */
    bool check(impl &im, side &s) {
        if (context_lost) {
            s.check = "not run (CUDA context lost earlier)";
            return false;
        }
        cudaMemset(im.c, 0xff, im.c_bytes); /* NaN in every format used for C */
        im.call();
        cudaError_t ce = cudaDeviceSynchronize();
        /* a fault inside a kernel poisons the context: every later call would fail too */
        if (ce != cudaSuccess) context_lost = cudaDeviceSynchronize() != cudaSuccess;
        if (im.failed()) {
            const bool na =
                !im.is_peer && (im.st == GK_ERR_UNSUPPORTED || im.st == GK_ERR_NOT_BUILT);
            s.check = (na ? "n/a " : "ERROR ") + im.why();
            return false;
        }
        if (ce != cudaSuccess) {
            s.check = std::string("ERROR ") + cudaGetErrorString(ce);
            return false;
        }
        gkh_gpu_check r;
        if ((ce = im.verify(opt.samples, opt.seed, blocks, &r))) {
            s.check = std::string("ERROR in the check: ") + cudaGetErrorString(ce);
            context_lost = true;
            return false;
        }
        s.err = r.max_err, s.err_ratio = r.max_ratio;
        char buf[160];
        if (r.failed) {
            snprintf(buf, sizeof buf, "FAIL %lld of %lld; worst C(%lld,%lld) = %.6g, want %.6g",
                     (long long)r.failed, (long long)r.checked, (long long)r.worst_i,
                     (long long)r.worst_j, r.worst_got, r.worst_want);
            s.check = buf;
            return false;
        }
        s.check = "ok";
        for (int w = 0; w < opt.warmup; w++)
            im.call();
        return true;
    }

    /* `reps` timed runs appended to ms; NVML readings added to pw. */
    bool time_runs(impl &im, int reps, std::vector<double> &ms, gk_nvml_totals &pw, side &s) {
        gkh_gpu_timer timer;
        if (gkh_gpu_timer_create(&timer, reps) != cudaSuccess) {
            s.check = "ERROR creating events";
            return false;
        }
        if (have_nvml) nvml.start();
        const cudaError_t ce = gkh_gpu_timer_run(&timer, &flush, impl::launch, &im);
        if (have_nvml) nvml.stop(), pw.add(nvml);
        for (int i = 0; i < reps; i++)
            ms.push_back(gkh_gpu_timer_ms(&timer, i));
        gkh_gpu_timer_destroy(&timer);
        if (im.failed() || ce != cudaSuccess) {
            s.check = "ERROR while timing: " + (im.failed() ? im.why() : cudaGetErrorString(ce));
            context_lost = context_lost || ce != cudaSuccess;
            return false;
        }
        return true;
    }

    void summarise(const problem &p, peak_kind k, std::vector<double> &ms, const gk_nvml_totals &pw,
                   side &s) {
        s.reps = (int)ms.size();
        s.ms = gkh_median(ms.data(), s.reps); /* sorts: ms[0] is then the fastest */
        s.ms_min = ms[0];
        s.tflops = 2.0 * (double)p.m * (double)p.n * (double)p.k / (s.ms * 1e-3) / 1e12;
        if (have_nvml && pw.samples) {
            s.mhz = pw.mean_mhz(), s.watts = pw.mean_watts(), s.throttle = pw.throttle();
            s.pct = pct_peak(sm, prop.multiProcessorCount, k, s.tflops, s.mhz);
        }
    }

    void run_one(const bench_shape &shape, const bench_dtype &dt) {
        char name[64];
        bench_dtype_name(&dt, name, sizeof name);
        problem p;
        p.layout = opt.layout;
        /* FP8 and block-scaled types: both operands K-major unless asked otherwise (column-major
         * TN, row-major NT) */
        const bool k_major = (dt.scaling || bench_dtype_is_fp8(&dt)) && !opt.trans_set;
        p.ta = opt.trans_set                           ? opt.ta
               : k_major && opt.layout == GK_COL_MAJOR ? GK_TRANS
                                                       : GK_NO_TRANS;
        p.tb = opt.trans_set                           ? opt.tb
               : k_major && opt.layout == GK_ROW_MAJOR ? GK_TRANS
                                                       : GK_NO_TRANS;
        p.m = shape.m, p.n = shape.n, p.k = shape.k;
        p.lda = p.ldb = p.ldc = -1;
        p.alpha = 1.0f, p.beta = 0.0f;
        p.dt = dt;
        p.out = opt.out_type_set ? opt.out_type : bench_dtype_default_out(&dt);
        p.fast_accum = opt.fp8_fast_accum;

        /* the peers: cuBLASLt in the same precision; for block-scaled types per-tensor FP8, and
         * for 1x128 / 128x128 E4M3 also cuBLASLt's own block scaling */
        const bool b128_peer =
            dt.scaling == GK_SCALING_BLOCK128 && dt.a == GK_F8_E4M3FN && dt.b == GK_F8_E4M3FN;
        const int npeers = opt.peer ? (b128_peer ? 2 : 1) : 0;
        row proto;
        proto.dtype = name, proto.scaling = dt.scaling;
        proto.a = dt.a, proto.b = dt.b, proto.c = p.out, proto.layout = p.layout;
        proto.ta = p.ta, proto.tb = p.tb, proto.m = p.m, proto.n = p.n, proto.k = p.k;
        std::vector<row> out(npeers ? npeers : 1, proto);
        for (int i = 0; i < npeers; i++)
            out[i].peer = i ? "cublaslt_fp8_b128" : peer_name(p);

        std::vector<contender> cs(1 + npeers);
        std::vector<void *> cbuf(cs.size(), nullptr);
        std::string err = setup(ctx, p, opt.seed + (uint64_t)(p.m * 131 + p.n * 17 + p.k), blocks);
        /* a block-scaled problem's peers write C column-major m x n */
        const size_t peer_c_bytes =
            p.scaled() ? storage_bytes(p.out) * (size_t)(std::max<int64_t>(p.m, 1) * p.n + 1)
                       : p.c_bytes;
        for (size_t i = 0; i < cs.size() && err.empty(); i++)
            if (cudaMalloc(&cbuf[i], i ? peer_c_bytes : p.c_bytes) != cudaSuccess) {
                (void)cudaGetLastError();
                err = "device memory for C";
            }
        if (!err.empty()) {
            for (row &r : out) {
                r.gk.check = "ERROR " + err;
                r.pr.check = opt.peer ? "not run" : "n/a not requested";
            }
            release(p);
            for (void *c : cbuf)
                cudaFree(c);
            rows.insert(rows.end(), out.begin(), out.end());
            return;
        }

        contender &gk = cs[0];
        gk.im = gemmkit_impl(ctx, p, cbuf[0]);
        gk.peak = gemmkit_peak(dt);
        const bool f32 = dt.a == GK_F32 || dt.b == GK_F32;
        const gk_status mode = f32 ? gk_cuda_set_fp32_mode(ctx, dt.fp32_mode) : GK_SUCCESS;
        if (mode != GK_SUCCESS) {
            gk.s.check =
                std::string(mode == GK_ERR_UNSUPPORTED || mode == GK_ERR_NOT_BUILT ? "n/a "
                                                                                   : "ERROR ") +
                "gk_cuda_set_fp32_mode: " + gk_last_error();
        } else {
            gk.timed = check(gk.im, gk.s);
        }
        for (int i = 0; i < npeers; i++) {
            contender &pc = cs[1 + i];
            impl &im = pc.im;
            im.is_peer = true, im.lt = &lt[i], im.p = &p, im.c = cbuf[1 + i];
            im.c_bytes = peer_c_bytes;
            pc.peak = peer_peak(p);
            gk_cublaslt::problem q;
            if (!p.scaled()) {
                q = peer_problem(p, im.c);
                im.desc = gk.im.desc, im.u_in = gk.im.u_in;
            } else if (i == 0) {
                q = scaled_peer_problem(p, false, im.c);
                im.desc = scaled_peer_desc(p);
                im.u_in =
                    gkh_gemm_ex_u_in(GK_F8_E4M3FN, GK_F8_E4M3FN, GK_FP32_SIMT, p.fast_accum, p.k);
            } else {
                q = scaled_peer_problem(p, true, im.c);
                im.scaled = &p, im.c_layout = GK_COL_MAJOR, im.c_ld = q.ldc;
                im.alpha = p.alpha, im.beta = 0.0f, im.u_in = scaled_u_in(p.k);
            }
            if (!have_peer) {
                pc.s.check = "n/a cuBLASLt unavailable";
            } else if (context_lost) {
                pc.s.check = "not run (CUDA context lost earlier)";
            } else if (!lt[i].plan(q)) {
                pc.s.check = "n/a " + lt[i].why();
                /* a fault in the trial run poisons the context like one in a timed run */
                if (cudaDeviceSynchronize() != cudaSuccess) context_lost = true;
            } else {
                out[i].peer_algo = lt[i].note();
                pc.timed = check(im, pc.s);
            }
        }
        std::string checks;
        for (int i = 0; i < npeers; i++)
            checks += "; " + out[i].peer + ": " + cs[1 + i].s.check +
                      (out[i].peer_algo.empty() ? "" : " (" + out[i].peer_algo + ")");
        fprintf(stderr, "[%s %lldx%lldx%lld %s] check gemmkit: %s%s\n", name, (long long)p.m,
                (long long)p.n, (long long)p.k, trans_name(p.ta, p.tb).c_str(), gk.s.check.c_str(),
                checks.c_str());

        /* rotate which side goes first, so none always follows another's heat */
        const int rounds = std::max(1, std::min(opt.rounds, opt.reps));
        const int nc = (int)cs.size();
        for (int round = 0; round < rounds && !context_lost; round++) {
            const int share = opt.reps * (round + 1) / rounds - opt.reps * round / rounds;
            for (int turn = 0; turn < nc; turn++) {
                contender &c = cs[(size_t)((turn + round) % nc)];
                if (c.timed) c.timed = time_runs(c.im, share, c.ms, c.pw, c.s);
            }
        }
        std::string times;
        for (int i = 0; i < nc; i++) {
            contender &c = cs[(size_t)i];
            if (c.timed) summarise(p, c.peak, c.ms, c.pw, c.s);
            times += std::string(i ? "; " : "") + (i ? out[i - 1].peer : "gemmkit") + " " +
                     fmt(c.s.ms, "%.3f") + " ms " + fmt(c.s.tflops, "%.1f") + " TFLOPS";
        }
        fprintf(stderr, "[%s %lldx%lldx%lld] %s\n", name, (long long)p.m, (long long)p.n,
                (long long)p.k, times.c_str());
        for (size_t i = 0; i < out.size(); i++) {
            out[i].gk = gk.s;
            out[i].pr = npeers ? cs[1 + i].s : side();
            if (!npeers) out[i].pr.check = "n/a not requested";
        }
        release(p);
        for (void *c : cbuf)
            cudaFree(c);
        rows.insert(rows.end(), out.begin(), out.end());
    }

    bool write(const std::string &out, std::string &csv_path) {
        csv_path = out + "/gpu_tc.csv";
        const std::string json_path = out + "/gpu_tc.json";
        FILE *csv = fopen(csv_path.c_str(), "w"), *js = fopen(json_path.c_str(), "w");
        if (!csv || !js) {
            if (csv) fclose(csv);
            if (js) fclose(js);
            return false;
        }
        static const char *const side_cols[] = {"reps",     "ms_median", "ms_min",   "tflops",
                                                "pct_peak", "sm_mhz",    "power_w",  "throttle",
                                                "check",    "err",       "err_ratio"};
        fprintf(csv, "device,dtype,a_type,b_type,c_type,layout,trans,m,n,k");
        for (const char *pre : {"gk_", "peer_"})
            for (const char *c : side_cols)
                fprintf(csv, ",%s%s", pre, c);
        fprintf(csv, ",peer,gk_over_peer,peer_algo\n");
        int runtime = 0, driver = 0;
        cudaRuntimeGetVersion(&runtime), cudaDriverGetVersion(&driver);
        time_t now = time(nullptr);
        char stamp[32];
        strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
        fprintf(js,
                "{\n  \"tool\": \"gemmkit bench --dtype\",\n  \"version\": %s,\n  \"time\": %s,\n"
                "  \"device\": {\"name\": %s, \"sm\": %d, \"sms\": %d, \"l2_bytes\": %d, "
                "\"cuda_runtime\": %d, \"cuda_driver\": %d},\n"
                "  \"method\": {\"alpha\": 1, \"beta\": 0, \"reps\": %d, \"rounds\": %d, "
                "\"warmup\": %d, \"statistic\": \"median\", \"l2_flush_bytes\": %zu, "
                "\"check_samples\": %lld, \"fp8_fast_accum\": %d, \"peak_flop_per_clk_sm\": "
                "{\"fp32_simt\": %g, \"tf32\": %g, \"3xtf32\": %g, \"bf16_f16\": %g, \"fp8\": %g}"
                "},\n  \"results\": [",
                json_str(gk_version()).c_str(), json_str(stamp).c_str(),
                json_str(prop.name).c_str(), sm, prop.multiProcessorCount, prop.l2CacheSize,
                runtime, driver, opt.reps, opt.rounds, opt.warmup, flush.bytes,
                (long long)opt.samples, opt.fp8_fast_accum, PEAK[0].flop_per_clk_sm[0],
                PEAK[0].flop_per_clk_sm[1], PEAK[0].flop_per_clk_sm[2], PEAK[0].flop_per_clk_sm[3],
                PEAK[0].flop_per_clk_sm[4]);
        for (size_t i = 0; i < rows.size(); i++) {
            const row &r = rows[i];
            const double ratio = r.gk.tflops / r.pr.tflops;
            const std::string trans = trans_name(r.ta, r.tb);
            const char *layout = r.layout == GK_ROW_MAJOR ? "row" : "col";
            fprintf(csv, "%s,%s,%s,%s,%s,%s,%s,%lld,%lld,%lld", quote_csv(prop.name).c_str(),
                    r.dtype.c_str(), format_name(r.a), format_name(r.b), format_name(r.c), layout,
                    trans.c_str(), (long long)r.m, (long long)r.n, (long long)r.k);
            fprintf(js,
                    "%s\n    {\"dtype\": %s, \"scaling\": \"%s\", \"a_type\": %s, \"b_type\": %s, "
                    "\"c_type\": %s, \"layout\": \"%s\", \"trans\": \"%s\", \"m\": %lld, \"n\": "
                    "%lld, \"k\": %lld, \"peer\": %s, \"peer_algo\": %s, \"gk_over_peer\": %s",
                    i ? "," : "", json_str(r.dtype).c_str(), scaling_name(r.scaling),
                    json_str(format_name(r.a)).c_str(), json_str(format_name(r.b)).c_str(),
                    json_str(format_name(r.c)).c_str(), layout, trans.c_str(), (long long)r.m,
                    (long long)r.n, (long long)r.k, json_str(r.peer).c_str(),
                    json_str(r.peer_algo).c_str(), json_num(ratio, "%.4f").c_str());
            for (int which = 0; which < 2; which++) {
                const side &s = which ? r.pr : r.gk;
                fprintf(csv, ",%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s", s.reps, fmt(s.ms, "%.5f").c_str(),
                        fmt(s.ms_min, "%.5f").c_str(), fmt(s.tflops, "%.2f").c_str(),
                        fmt(s.pct, "%.1f").c_str(), fmt(s.mhz, "%.0f").c_str(),
                        fmt(s.watts, "%.1f").c_str(), quote_csv(s.throttle).c_str(),
                        quote_csv(s.check).c_str(), fmt(s.err, "%.3g").c_str(),
                        fmt(s.err_ratio, "%.3g").c_str());
                fprintf(js,
                        ", \"%s\": {\"reps\": %d, \"ms_median\": %s, \"ms_min\": %s, \"tflops\": "
                        "%s, \"pct_peak\": %s, \"sm_mhz\": %s, \"power_w\": %s, \"throttle\": %s, "
                        "\"check\": %s, \"err\": %s, \"err_ratio\": %s}",
                        which ? "peer_result" : "gemmkit", s.reps, json_num(s.ms, "%.5f").c_str(),
                        json_num(s.ms_min, "%.5f").c_str(), json_num(s.tflops, "%.2f").c_str(),
                        json_num(s.pct, "%.1f").c_str(), json_num(s.mhz, "%.0f").c_str(),
                        json_num(s.watts, "%.1f").c_str(), json_str(s.throttle).c_str(),
                        json_str(s.check).c_str(), json_num(s.err, "%.3g").c_str(),
                        json_num(s.err_ratio, "%.3g").c_str());
            }
            fprintf(csv, ",%s,%s,%s\n", r.peer.c_str(), fmt(ratio, "%.4f").c_str(),
                    quote_csv(r.peer_algo).c_str());
            fprintf(js, "}");
        }
        fprintf(js, "\n  ]\n}\n");
        fclose(csv);
        fclose(js);
        fprintf(stderr, "gemmkit bench: wrote %s and %s\n", csv_path.c_str(), json_path.c_str());
        return true;
    }

    void print_table() const {
        printf("%s, sm_%d, %d SMs; mixed-precision GEMM, alpha 1, beta 0, median of %d runs, L2 "
               "flushed; %% peak at the measured SM clock\n",
               prop.name, sm, prop.multiProcessorCount, opt.reps);
        printf("%-10s %-5s %-5s %-17s %9s %6s %-17s %9s %6s %7s %6s %5s %9s %9s  %s\n", "dtype",
               "out", "op", "m x n x k", "gk TFLOPS", "%peak", "peer", "TFLOPS", "%peak", "gk/peer",
               "MHz", "W", "gk err", "peer err", "check (gemmkit; peer)");
        for (const row &r : rows) {
            char shape[48];
            snprintf(shape, sizeof shape, "%lldx%lldx%lld", (long long)r.m, (long long)r.n,
                     (long long)r.k);
            const std::string op =
                std::string(r.layout == GK_ROW_MAJOR ? "r" : "c") + trans_name(r.ta, r.tb);
            printf("%-10s %-5s %-5s %-17s %9s %6s %-17s %9s %6s %7s %6s %5s %9s %9s  %s; %s\n",
                   r.dtype.c_str(), bench_format_short(r.c), op.c_str(), shape,
                   fmt(r.gk.tflops, "%.1f").c_str(), fmt(r.gk.pct, "%.1f").c_str(),
                   r.peer.empty() ? "-" : r.peer.c_str(), fmt(r.pr.tflops, "%.1f").c_str(),
                   fmt(r.pr.pct, "%.1f").c_str(), fmt(r.gk.tflops / r.pr.tflops, "%.3f").c_str(),
                   fmt(r.gk.mhz, "%.0f").c_str(), fmt(r.gk.watts, "%.0f").c_str(),
                   fmt(r.gk.err, "%.2g").c_str(), fmt(r.pr.err, "%.2g").c_str(), r.gk.check.c_str(),
                   r.pr.check.c_str());
        }
    }
};

/* Opens a context on `device`; prints why not and returns false when there is none. */
bool open_device(int device, const char *who, gk_cuda_ctx **ctx, cudaDeviceProp *prop) {
    if (!gk_cuda_available()) {
        fprintf(stderr, "%s: no usable CUDA device on this machine\n", who);
        return false;
    }
    const gk_status st = gk_cuda_create(ctx, device, nullptr);
    if (st != GK_SUCCESS) {
        fprintf(stderr, "%s: gk_cuda_create: %s: %s\n", who, gk_status_string(st), gk_last_error());
        return false;
    }
    cudaSetDevice(device);
    cudaGetDeviceProperties(prop, device);
    return true;
}

} // namespace

extern "C" int bench_tc_run(const bench_tc_opts *o) {
    bench b;
    b.opt = *o;
    if (!open_device(o->device, "gemmkit bench", &b.ctx, &b.prop)) return 2;
    b.sm = b.prop.major * 10 + b.prop.minor;
    b.blocks = b.prop.multiProcessorCount * 4;
    if (gkh_l2_flush_init(&b.flush, b.prop.l2CacheSize) != cudaSuccess) {
        fprintf(stderr, "gemmkit bench: cannot allocate the L2 flush buffer\n");
        gk_cuda_destroy(b.ctx);
        return 2;
    }
    if (o->peer && !(b.have_peer = b.lt[0].load() && b.lt[1].load()))
        fprintf(stderr, "gemmkit bench: cuBLASLt unavailable: %s\n",
                (b.lt[0].why().empty() ? b.lt[1].why() : b.lt[0].why()).c_str());
    if (!(b.have_nvml = b.nvml.load(o->device)))
        fprintf(stderr, "gemmkit bench: NVML unavailable: %s\n", b.nvml.why().c_str());
    fprintf(stderr, "gemmkit bench: %s (sm_%d, %d SMs), %d dtypes x %d shapes\n", b.prop.name, b.sm,
            b.prop.multiProcessorCount, o->ndtypes, o->nshapes);
    for (int s = 0; s < o->nshapes && !b.context_lost; s++)
        for (int d = 0; d < o->ndtypes && !b.context_lost; d++)
            b.run_one(o->shapes[s], o->dtypes[d]);
    gkh_l2_flush_free(&b.flush);
    gk_cuda_destroy(b.ctx);

    if (gkh_mkdirs(o->out)) {
        fprintf(stderr, "gemmkit bench: cannot create %s: %s\n", o->out, strerror(errno));
        return 2;
    }
    std::string csv;
    if (!b.write(o->out, csv)) {
        fprintf(stderr, "gemmkit bench: cannot write under %s\n", o->out);
        return 2;
    }
    if (o->plot) {
        struct stat st;
        if (stat("bench/plot_tc.py", &st) == 0) {
            const char *py = getenv("GK_PYTHON") ? getenv("GK_PYTHON") : "python3";
            const std::string cmd =
                std::string(py) + " bench/plot_tc.py '" + csv + "' --out '" + o->out + "' 1>&2";
            if (system(cmd.c_str()) != 0) fprintf(stderr, "gemmkit bench: plotting failed\n");
        } else {
            fprintf(stderr, "gemmkit bench: bench/plot_tc.py not found (run from the source "
                            "tree to get plots)\n");
        }
    }
    b.print_table();
    bool failed = b.context_lost;
    for (const row &r : b.rows)
        failed = failed || r.gk.failed() || r.pr.failed();
    return failed ? 1 : 0;
}

/* ---- gemmkit run --dtype ------------------------------------------------------------------- */

namespace {

void run_launch(void *arg) {
    impl *im = (impl *)arg;
    im->call();
}

int run_status_exit(const char *what, gk_status st) {
    fprintf(stderr, "gemmkit run: %s failed: %s: %s\n", what, gk_status_string(st),
            gk_last_error());
    /* argument errors come from the command line (sizes, leading dimensions, type combinations) */
    return st == GK_ERR_INVALID_LD || st == GK_ERR_INVALID_SIZE || st == GK_ERR_OVERFLOW ||
                   st == GK_ERR_INVALID_VALUE
               ? 2
               : 1;
}

/* What the "types:" line says about the operands' scales. */
std::string scales_text(const problem &p) {
    if (p.dt.scaling == GK_SCALING_MX)
        return "; OCP MX block scales (E8M0 per 32 of K) of random normal data";
    if (p.dt.scaling == GK_SCALING_BLOCK128)
        return "; float32 block scales per 1x128 of A and 128x128 of B (amax / max) of random "
               "normal data";
    if (p.scale_a() || p.scale_b()) return "; per-tensor scales 1/max of each FP8 format";
    return "";
}

} // namespace

extern "C" int bench_tc_run_one(const bench_run_opts *o) {
    if (o->dtype.scaling && o->fp8_fast_accum) {
        fprintf(stderr, "gemmkit run: --fp8-fast-accum does not apply to block-scaled types "
                        "(gk_cuda_gemm_scaled always promotes to float32)\n");
        return 2;
    }
    gk_cuda_ctx *ctx = nullptr;
    cudaDeviceProp prop;
    if (!open_device(0, "gemmkit run", &ctx, &prop)) return 1;
    problem p;
    p.layout = o->layout, p.ta = o->ta, p.tb = o->tb;
    p.m = o->m, p.n = o->n, p.k = o->k, p.lda = o->lda, p.ldb = o->ldb, p.ldc = o->ldc;
    p.alpha = o->alpha, p.beta = o->beta;
    p.dt = o->dtype, p.out = o->out, p.fast_accum = o->fp8_fast_accum;
    char name[64];
    bench_dtype_name(&p.dt, name, sizeof name);
    const int blocks = prop.multiProcessorCount * 4;
    void *c = nullptr;
    std::vector<double> times((size_t)o->reps);
    gkh_gpu_timer timer = {0, nullptr, nullptr};
    int rc = 1;
    gk_status st;
    std::string err = setup(ctx, p, o->seed, blocks);
    printf("run: gpu %s-major op(A)=%s op(B)=%s m=%lld n=%lld k=%lld lda=%lld ldb=%lld ldc=%lld "
           "alpha=%g beta=%g\n",
           p.layout == GK_ROW_MAJOR ? "row" : "col", p.ta == GK_NO_TRANS ? "A" : "A^T",
           p.tb == GK_NO_TRANS ? "B" : "B^T", (long long)p.m, (long long)p.n, (long long)p.k,
           (long long)p.lda, (long long)p.ldb, (long long)p.ldc, o->alpha, o->beta);
    printf("types: --dtype %s: A %s, B %s, C %s, float32 accumulation%s%s\n", name,
           format_name(p.dt.a), format_name(p.dt.b), format_name(p.out), scales_text(p).c_str(),
           p.dt.fp32_mode == GK_FP32_3XTF32 ? "; FP32 mode 3xTF32" : "");
    printf("gpu: device 0 (%s), %s\n", prop.name, gemmkit_entry(p));
    if (!err.empty()) {
        fprintf(stderr, "gemmkit run: %s\n", err.c_str());
        goto out;
    }
    if (cudaMalloc(&c, p.c_bytes) != cudaSuccess || gkh_gpu_timer_create(&timer, 1)) {
        fprintf(stderr, "gemmkit run: device memory for C\n");
        goto out;
    }
    if ((p.dt.a == GK_F32 || p.dt.b == GK_F32) &&
        (st = gk_cuda_set_fp32_mode(ctx, p.dt.fp32_mode)) != GK_SUCCESS) {
        rc = run_status_exit("gk_cuda_set_fp32_mode", st);
        goto out;
    }
    {
        impl call = gemmkit_impl(ctx, p, c);
        cudaError_t ce = cudaSuccess;
        /* one untimed call, then the timed ones, each on a fresh copy of C (beta != 0 would
         * otherwise compound); C is poisoned first so a call that skips elements shows */
        for (int r = -1; r < o->reps; r++) {
            if (p.beta != 0.0f)
                ce = cudaMemcpy(c, p.c0, p.c_bytes, cudaMemcpyDeviceToDevice);
            else if (r < 0)
                ce = cudaMemset(c, 0xff, p.c_bytes);
            if (ce == cudaSuccess) ce = gkh_gpu_timer_run(&timer, nullptr, run_launch, &call);
            if (call.st != GK_SUCCESS) {
                rc = run_status_exit(gemmkit_entry(p), call.st);
                goto out;
            }
            if (ce != cudaSuccess) {
                fprintf(stderr, "gemmkit run: kernel failed: %s\n", cudaGetErrorString(ce));
                goto out;
            }
            if (r >= 0) times[(size_t)r] = gkh_gpu_timer_ms(&timer, 0) * 1e-3;
        }
        gkh_gpu_check chk;
        if ((ce = call.verify(gkh_check_samples(p.m, p.n, p.k), o->seed, blocks, &chk))) {
            fprintf(stderr, "gemmkit run: check failed: %s\n", cudaGetErrorString(ce));
            goto out;
        }
        printf("check: %lld of %lld elements vs float64%s, max error ratio %.3g (pass <= 1), max "
               "error %.3g of the element's scale",
               (long long)chk.checked, (long long)(p.m * p.n),
               p.scaled() ? " (codes times block scales, on the host)" : "", chk.max_ratio,
               chk.max_err);
        if (chk.failed)
            printf("; %lld failed, worst C(%lld,%lld) = %.9g, expected %.9g", (long long)chk.failed,
                   (long long)chk.worst_i, (long long)chk.worst_j, chk.worst_got, chk.worst_want);
        printf("\n");
        const double med = gkh_median(times.data(), o->reps);
        const double flops = 2.0 * (double)p.m * (double)p.n * (double)p.k;
        printf("time: median %.4f ms, best %.4f ms over %d reps; %.2f GFLOPS at the median, "
               "%.2f at best\n",
               med * 1e3, times[0] * 1e3, o->reps, med > 0 ? flops / med * 1e-9 : 0.0,
               times[0] > 0 ? flops / times[0] * 1e-9 : 0.0);
        printf("%s\n", chk.failed ? "FAIL" : "PASS");
        rc = chk.failed ? 1 : 0;
    }
out:
    gkh_gpu_timer_destroy(&timer);
    release(p);
    cudaFree(c);
    gk_cuda_destroy(ctx);
    return rc;
}
