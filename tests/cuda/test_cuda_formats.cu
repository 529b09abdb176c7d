/*
 * test_cuda_formats.cu — the conversions on device memory (gk_cuda_encode, gk_cuda_decode,
 * gk_cuda_mx_quantize, gk_cuda_mx_dequantize) against the CPU entry points, bit for bit: every
 * code of every format decoded; boundary values and random float32 bit patterns (all classes:
 * NaN, Inf, subnormals) encoded in both modes, through the vector path, the misaligned element
 * path and odd tails; MX quantize/dequantize for every element format and scale rule over block
 * sizes, shapes, padded rows and misaligned arrays (blocks holding NaN, Inf, zeros and extreme
 * magnitudes included); argument errors with nothing written; host memory refused. And all 2^32
 * float32 inputs of every format and mode against scalar.h run on the device (convert.cu's fast
 * encoders restate the rounding). Without a device every case reports "skip"; `--small` skips
 * the exhaustive case (for compute-sanitizer).
 *
 * `--bench` runs no test: for each format it times encode (both modes) and decode of 2^28
 * elements (magnitudes 2^-9..2^8), and MX quantize/dequantize of the same data in the OCP layout
 * (rows of 4096, blocks of 32), each beside a cudaMemcpy device-to-device moving the same bytes
 * (read + written), and prints both rates and their ratio (the issue's target is 80 % of the
 * copy).
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "formats/scalar.h"
#include "gemmkit.h"
#include "harness/harness.h"

static int g_small; /* --small: no exhaustive case (for compute-sanitizer) */
static int g_have_device;
static gk_cuda_ctx *g_ctx;

#define NEED_DEVICE()                                                                              \
    do {                                                                                           \
        if (!g_have_device) T_SKIP("no CUDA device");                                              \
    } while (0)

#define CUDA_REQUIRE(call)                                                                         \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        T_REQUIRE(e_ == cudaSuccess, "%s: %s", #call, cudaGetErrorString(e_));                     \
    } while (0)

static int64_t code_bytes(gk_format fmt) {
    gk_format_info fi;
    return gk_format_info_get(fmt, &fi) == GK_SUCCESS ? fi.storage_bytes : 0;
}

static int is_mx(gk_format fmt) {
    gk_format_info fi;
    return gk_format_info_get(fmt, &fi) == GK_SUCCESS && fi.mx_element;
}

/* A device buffer freed at scope exit. */
struct dbuf {
    void *p = nullptr;
    cudaError_t alloc(size_t bytes) { return cudaMalloc(&p, bytes ? bytes : 1); }
    ~dbuf() { cudaFree(p); }
    template <typename T> T *as(size_t byte_offset = 0) const {
        return (T *)((char *)p + byte_offset);
    }
};

/* Values every format must get right: each format's max, halfway points around it and around
 * its subnormal edges, +-0, +-Inf, NaN of both signs, float32 subnormals, powers of two across
 * the whole exponent range; then random bit patterns. */
static void fill_inputs(float *x, int64_t n, uint64_t seed) {
    int64_t k = 0;
    const uint32_t special[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                0xffc00000u, 0x7f800001u, 0xffbfffffu, 0x00000001u, 0x807fffffu,
                                0x00400000u, 0x7f7fffffu, 0xff7fffffu};
    for (size_t i = 0; i < sizeof special / sizeof special[0] && k < n; i++) {
        uint32_t b = special[i];
        memcpy(&x[k++], &b, 4);
    }
    for (int f = 0; f < GK_FORMAT_COUNT && k < n; f++) {
        gk_format_info fi;
        if (gk_format_info_get((gk_format)f, &fi) != GK_SUCCESS) continue;
        const double edges[] = {fi.max_finite, fi.min_normal, fi.min_subnormal};
        for (double e : edges)
            for (double m : {1.0, 0.5, 0.75, 1.5, 1.0 + 1.0 / 64, 1.0 - 1.0 / 64, 2.0})
                for (double s : {1.0, -1.0})
                    if (k < n) x[k++] = (float)(s * e * m);
        /* halfway between max_finite and the next step up (which overflows) */
        const double ulp = ldexp(1.0, (int)floor(log2(fi.max_finite)) - fi.mantissa_bits);
        if (k + 2 <= n)
            x[k++] = (float)(fi.max_finite + ulp / 2), x[k++] = (float)(fi.max_finite + ulp / 4);
    }
    for (int e = -150; e <= 128 && k < n; e++)
        x[k++] = ldexpf(1.0f, e);
    gkh_rng r = {seed | 1};
    for (; k < n; k++) {
        uint32_t b = (uint32_t)(gkh_rng_next(&r) >> 32);
        if (k % 3 == 0)
            b = (b & 0x807fffffu) | ((uint32_t)(100 + (b >> 23) % 60) << 23); /* near 1 */
        memcpy(&x[k], &b, 4);
    }
}

/* First index where two byte arrays of elements of `size` bytes differ, or -1. */
static int64_t first_diff(const void *a, const void *b, int64_t n, int64_t size) {
    const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
    for (int64_t i = 0; i < n; i++)
        if (memcmp(p + i * size, q + i * size, (size_t)size)) return i;
    return -1;
}

/* ---- cases --------------------------------------------------------------------------------- */

/* Every code of every format (all 65536 for the 16-bit ones, random bit patterns for the 32-bit
 * ones), decoded on the device and on the CPU. */
static void decode_every_code(void) {
    NEED_DEVICE();
    const int64_t n = 65536 + 13;
    uint8_t *codes = (uint8_t *)malloc((size_t)n * 4);
    float *want = (float *)malloc((size_t)n * 4), *got = (float *)malloc((size_t)n * 4);
    dbuf dc, dy;
    CUDA_REQUIRE(dc.alloc((size_t)n * 4 + 16));
    CUDA_REQUIRE(dy.alloc((size_t)n * 4 + 16));
    gkh_rng r = {12345};
    for (int f = 0; f < GK_FORMAT_COUNT; f++) {
        const gk_format fmt = (gk_format)f;
        const int64_t cb = code_bytes(fmt);
        for (int64_t i = 0; i < n; i++) {
            const uint32_t c =
                cb == 4 ? (uint32_t)(gkh_rng_next(&r) >> 32) : (uint32_t)(i % (1 << (8 * cb)));
            memcpy(codes + i * cb, &c, (size_t)cb); /* little-endian low bytes */
        }
        T_REQUIRE(gk_decode(fmt, codes, want, n) == GK_SUCCESS, "gk_decode: %s", gk_last_error());
        for (int misalign = 0; misalign < 2; misalign++) {
            const size_t off = misalign ? (size_t)cb : 0, yoff = misalign ? 4 : 0;
            const int64_t m = n - misalign;
            CUDA_REQUIRE(
                cudaMemcpy(dc.as<char>(off), codes, (size_t)(m * cb), cudaMemcpyHostToDevice));
            gk_status st = gk_cuda_decode(g_ctx, fmt, dc.as<void>(off), dy.as<float>(yoff), m);
            T_REQUIRE(st == GK_SUCCESS, "%s: %s", gk_format_name(fmt), gk_last_error());
            CUDA_REQUIRE(cudaDeviceSynchronize());
            CUDA_REQUIRE(
                cudaMemcpy(got, dy.as<float>(yoff), (size_t)m * 4, cudaMemcpyDeviceToHost));
            const int64_t d = first_diff(got, want, m, 4);
            if (d >= 0) {
                uint32_t g, w;
                memcpy(&g, &got[d], 4), memcpy(&w, &want[d], 4);
                T_CHECK(0, "%s%s: element %lld: device %08x, CPU %08x", gk_format_name(fmt),
                        misalign ? " (misaligned)" : "", (long long)d, g, w);
            }
        }
    }
    free(codes), free(want), free(got);
}

/* Boundary values and random bit patterns, both modes, aligned and misaligned, odd length. */
static void encode_matches_cpu(void) {
    NEED_DEVICE();
    const int64_t n = (1 << 22) + 7;
    float *x = (float *)malloc((size_t)n * 4);
    unsigned char *want = (unsigned char *)malloc((size_t)n * 4);
    unsigned char *got = (unsigned char *)malloc((size_t)n * 4);
    fill_inputs(x, n, 777);
    dbuf dx, dc;
    CUDA_REQUIRE(dx.alloc((size_t)n * 4 + 16));
    CUDA_REQUIRE(dc.alloc((size_t)n * 4 + 16));
    CUDA_REQUIRE(cudaMemcpy(dx.p, x, (size_t)n * 4, cudaMemcpyHostToDevice));
    for (int f = 0; f < GK_FORMAT_COUNT; f++)
        for (int sat = 0; sat < 2; sat++)
            for (int misalign = 0; misalign < 2; misalign++) {
                const gk_format fmt = (gk_format)f;
                const int64_t cb = code_bytes(fmt), m = n - misalign;
                const size_t coff = misalign ? (size_t)cb : 0;
                T_REQUIRE(gk_encode(fmt, x, want, m, sat) == GK_SUCCESS, "gk_encode: %s",
                          gk_last_error());
                gk_status st =
                    gk_cuda_encode(g_ctx, fmt, dx.as<float>(), dc.as<void>(coff), m, sat);
                T_REQUIRE(st == GK_SUCCESS, "%s: %s", gk_format_name(fmt), gk_last_error());
                CUDA_REQUIRE(cudaDeviceSynchronize());
                CUDA_REQUIRE(
                    cudaMemcpy(got, dc.as<char>(coff), (size_t)(m * cb), cudaMemcpyDeviceToHost));
                const int64_t d = first_diff(got, want, m, cb);
                if (d >= 0) {
                    uint32_t g = 0, w = 0, xb;
                    memcpy(&g, got + d * cb, (size_t)cb), memcpy(&w, want + d * cb, (size_t)cb);
                    memcpy(&xb, &x[d], 4);
                    T_CHECK(0, "%s saturate=%d%s: x[%lld] = %08x (%g): device %x, CPU %x",
                            gk_format_name(fmt), sat, misalign ? " (misaligned)" : "", (long long)d,
                            xb, (double)x[d], g, w);
                }
            }
    free(x), free(want), free(got);
}

__global__ void iota_bits(uint32_t *x, uint32_t base, int64_t n) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        x[i] = base + (uint32_t)i;
}

/* Counts the codes that differ from scalar.h's gk_encode_scalar evaluated here, keeping the
 * smallest input that differs. */
__global__ void compare_codes(gk_format fmt, int sat, const uint32_t *x, const void *codes,
                              int bytes, int64_t n, unsigned long long *bad, uint32_t *first) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        const uint32_t want = gk_encode_scalar(fmt, __uint_as_float(x[i]), sat);
        const uint32_t got = bytes == 1   ? ((const uint8_t *)codes)[i]
                             : bytes == 2 ? ((const uint16_t *)codes)[i]
                                          : ((const uint32_t *)codes)[i];
        if (got != want) {
            atomicAdd(bad, 1ull);
            atomicMin(first, x[i]);
        }
    }
}

/* All 2^32 float32 bit patterns, every format, both modes: gk_cuda_encode (whose fast forms
 * restate the rounding, convert.cu) against scalar.h's definition run on the device, which
 * encode_matches_cpu ties to the CPU. */
static void encode_exhaustive(void) {
    NEED_DEVICE();
    if (g_small) T_SKIP("--small");
    const int64_t chunk = (int64_t)1 << 28;
    dbuf dx, dc, dbad;
    if (dx.alloc((size_t)chunk * 4) != cudaSuccess || dc.alloc((size_t)chunk * 4) != cudaSuccess) {
        (void)cudaGetLastError();
        T_SKIP("no room for 2 x 1 GiB on the device");
    }
    CUDA_REQUIRE(dbad.alloc(16));
    unsigned long long *bad = dbad.as<unsigned long long>();
    uint32_t *first = dbad.as<uint32_t>(8);
    for (int f = 0; f < GK_FORMAT_COUNT; f++)
        for (int sat = 0; sat < 2; sat++) {
            const gk_format fmt = (gk_format)f;
            CUDA_REQUIRE(cudaMemset(bad, 0, 8));
            CUDA_REQUIRE(cudaMemset(first, 0xff, 4));
            for (int64_t base = 0; base < ((int64_t)1 << 32); base += chunk) {
                iota_bits<<<1024, 256>>>(dx.as<uint32_t>(), (uint32_t)base, chunk);
                gk_status st = gk_cuda_encode(g_ctx, fmt, dx.as<float>(), dc.p, chunk, sat);
                T_REQUIRE(st == GK_SUCCESS, "%s: %s", gk_format_name(fmt), gk_last_error());
                compare_codes<<<1024, 256>>>(fmt, sat, dx.as<uint32_t>(), dc.p,
                                             (int)code_bytes(fmt), chunk, bad, first);
            }
            unsigned long long nbad = 0;
            uint32_t x0 = 0;
            CUDA_REQUIRE(cudaMemcpy(&nbad, bad, 8, cudaMemcpyDeviceToHost));
            CUDA_REQUIRE(cudaMemcpy(&x0, first, 4, cudaMemcpyDeviceToHost));
            T_CHECK(nbad == 0, "%s saturate=%d: %llu of 2^32 inputs differ, the first %08x",
                    gk_format_name(fmt), sat, nbad, x0);
        }
    /* the comparison can fail: the last chunk's E4M3FN codes against the other mode differ */
    CUDA_REQUIRE(cudaMemset(bad, 0, 8));
    T_REQUIRE(gk_cuda_encode(g_ctx, GK_F8_E4M3FN, dx.as<float>(), dc.p, chunk, 1) == GK_SUCCESS,
              "%s", gk_last_error());
    compare_codes<<<1024, 256>>>(GK_F8_E4M3FN, 0, dx.as<uint32_t>(), dc.p, 1, chunk, bad, first);
    unsigned long long planted = 0;
    CUDA_REQUIRE(cudaMemcpy(&planted, bad, 8, cudaMemcpyDeviceToHost));
    T_CHECK(planted > 0, "saturating codes compared equal to non-saturating ones");
}

/* MX quantize and dequantize against the CPU for every element format and rule. */
static void mx_matches_cpu(void) {
    NEED_DEVICE();
    struct shape {
        int64_t rows, cols, block, pad, offset;
    } shapes[] = {
        {64, 1024, 32, 0, 0}, /* the OCP layout: the 32-element register kernel */
        {33, 96, 32, 16, 0},  /* padded rows, still aligned */
        {7, 100, 32, 0, 0},   /* a partial last block */
        {5, 64, 32, 3, 1},    /* misaligned: the general kernel */
        {9, 77, 16, 5, 0},    /* another block size */
        {3, 50, 7, 0, 0},     /* blocks that straddle the 16-element chunks of dequantize */
        {1, 1, 32, 0, 0},
    };
    gkh_rng r = {99};
    for (const shape &s : shapes) {
        const int64_t ld = s.cols + s.pad, nb = (s.cols + s.block - 1) / s.block;
        const int64_t ldcodes = ld, ldscales = nb + s.pad, elems = s.rows * ld + s.offset;
        float *x = (float *)malloc((size_t)elems * 4);
        /* blocks of one magnitude each (scales across E8M0's range), some with specials */
        for (int64_t i = 0; i < elems; i++) {
            const int64_t blk = i / s.block;
            const int e = (int)(blk * 37 % 300) - 150;
            x[i] = ldexpf(gkh_rng_float(&r), e);
            if (blk % 11 == 3) x[i] = 0.0f;
            if (i % 997 == 500) x[i] = blk % 2 ? NAN : -INFINITY;
        }
        const int64_t cbytes = s.rows * ldcodes + s.offset, sbytes = s.rows * ldscales;
        uint8_t *wc = (uint8_t *)calloc((size_t)cbytes, 1),
                *gc = (uint8_t *)calloc((size_t)cbytes, 1);
        uint8_t *ws = (uint8_t *)calloc((size_t)sbytes, 1),
                *gs = (uint8_t *)calloc((size_t)sbytes, 1);
        float *wy = (float *)calloc((size_t)elems, 4), *gy = (float *)calloc((size_t)elems, 4);
        dbuf dx, dcodes, dscales, dy;
        CUDA_REQUIRE(dx.alloc((size_t)elems * 4));
        CUDA_REQUIRE(dcodes.alloc((size_t)cbytes));
        CUDA_REQUIRE(dscales.alloc((size_t)sbytes));
        CUDA_REQUIRE(dy.alloc((size_t)elems * 4));
        CUDA_REQUIRE(cudaMemcpy(dx.p, x, (size_t)elems * 4, cudaMemcpyHostToDevice));
        for (int f = 0; f < GK_FORMAT_COUNT; f++) {
            const gk_format elem = (gk_format)f;
            if (!is_mx(elem)) continue;
            for (int rule = GK_MX_SCALE_FLOOR; rule <= GK_MX_SCALE_RCEIL; rule++) {
                const gk_mx_scale_rule rl = (gk_mx_scale_rule)rule;
                const float *xo = x + s.offset;
                T_REQUIRE(gk_mx_quantize(elem, rl, s.rows, s.cols, s.block, xo, ld, wc + s.offset,
                                         ldcodes, ws, ldscales) == GK_SUCCESS,
                          "gk_mx_quantize: %s", gk_last_error());
                CUDA_REQUIRE(cudaMemset(dcodes.p, 0, (size_t)cbytes));
                CUDA_REQUIRE(cudaMemset(dscales.p, 0, (size_t)sbytes));
                gk_status st = gk_cuda_mx_quantize(
                    g_ctx, elem, rl, s.rows, s.cols, s.block, dx.as<float>(4 * s.offset), ld,
                    dcodes.as<uint8_t>(s.offset), ldcodes, dscales.as<uint8_t>(), ldscales);
                T_REQUIRE(st == GK_SUCCESS, "gk_cuda_mx_quantize: %s", gk_last_error());
                CUDA_REQUIRE(cudaDeviceSynchronize());
                CUDA_REQUIRE(cudaMemcpy(gc, dcodes.p, (size_t)cbytes, cudaMemcpyDeviceToHost));
                CUDA_REQUIRE(cudaMemcpy(gs, dscales.p, (size_t)sbytes, cudaMemcpyDeviceToHost));
                const char *name = gk_format_name(elem);
                const long long R = s.rows, C = s.cols, B = s.block;
                for (int64_t i = 0; i < s.rows; i++) {
                    int64_t d = first_diff(gs + i * ldscales, ws + i * ldscales, nb, 1);
                    T_REQUIRE(
                        d < 0,
                        "%s rule %d %lldx%lld/%lld: scale (%lld, %lld): device %02x, CPU %02x",
                        name, rule, R, C, B, (long long)i, (long long)d, gs[i * ldscales + d],
                        ws[i * ldscales + d]);
                    d = first_diff(gc + s.offset + i * ldcodes, wc + s.offset + i * ldcodes, s.cols,
                                   1);
                    T_REQUIRE(d < 0,
                              "%s rule %d %lldx%lld/%lld: code (%lld, %lld): device %02x, CPU %02x",
                              name, rule, R, C, B, (long long)i, (long long)d,
                              gc[s.offset + i * ldcodes + d], wc[s.offset + i * ldcodes + d]);
                }
                /* padding between rows untouched (it was zeroed on both sides) */
                T_REQUIRE(first_diff(gc, wc, cbytes, 1) < 0, "%s: bytes outside the codes written",
                          name);
                T_REQUIRE(gk_mx_dequantize(elem, s.rows, s.cols, s.block, wc + s.offset, ldcodes,
                                           ws, ldscales, wy + s.offset, ld) == GK_SUCCESS,
                          "gk_mx_dequantize: %s", gk_last_error());
                st = gk_cuda_mx_dequantize(
                    g_ctx, elem, s.rows, s.cols, s.block, dcodes.as<uint8_t>(s.offset), ldcodes,
                    dscales.as<uint8_t>(), ldscales, dy.as<float>(4 * s.offset), ld);
                T_REQUIRE(st == GK_SUCCESS, "gk_cuda_mx_dequantize: %s", gk_last_error());
                CUDA_REQUIRE(cudaDeviceSynchronize());
                CUDA_REQUIRE(cudaMemcpy(gy, dy.p, (size_t)elems * 4, cudaMemcpyDeviceToHost));
                for (int64_t i = 0; i < s.rows; i++) {
                    const int64_t o = s.offset + i * ld, d = first_diff(gy + o, wy + o, s.cols, 4);
                    T_REQUIRE(d < 0,
                              "%s %lldx%lld/%lld: dequantized (%lld, %lld): device %g, CPU %g",
                              name, R, C, B, (long long)i, (long long)d, (double)gy[o + d],
                              (double)wy[o + d]);
                }
            }
        }
        free(x), free(wc), free(gc), free(ws), free(gs), free(wy), free(gy);
    }
}

/* Argument errors give the CPU entry points' statuses and write nothing; host memory is refused
 * before any launch. */
static void bad_arguments(void) {
    NEED_DEVICE();
    dbuf dx, dc;
    CUDA_REQUIRE(dx.alloc(64 * 4));
    CUDA_REQUIRE(dc.alloc(64 * 4));
    CUDA_REQUIRE(cudaMemset(dc.p, 0x5a, 64 * 4));
    float *x = dx.as<float>();
    void *c = dc.p;
    struct {
        gk_status st, want;
        const char *what;
    } cases[] = {
        {gk_cuda_encode(NULL, GK_F8_E4M3FN, x, c, 4, 0), GK_ERR_INVALID_VALUE, "ctx"},
        {gk_cuda_encode(g_ctx, (gk_format)99, x, c, 4, 0), GK_ERR_INVALID_VALUE, "fmt"},
        {gk_cuda_encode(g_ctx, GK_F8_E4M3FN, x, c, -1, 0), GK_ERR_INVALID_SIZE, "n"},
        {gk_cuda_encode(g_ctx, GK_F8_E4M3FN, NULL, c, 4, 0), GK_ERR_NULL_POINTER, "x"},
        {gk_cuda_encode(g_ctx, GK_F8_E4M3FN, x, c, 4, 2), GK_ERR_INVALID_VALUE, "saturate"},
        {gk_cuda_decode(g_ctx, GK_F16, c, NULL, 4), GK_ERR_NULL_POINTER, "y"},
        {gk_cuda_mx_quantize(g_ctx, GK_F16, GK_MX_SCALE_FLOOR, 1, 32, 32, x, 32, (uint8_t *)c, 32,
                             (uint8_t *)c, 1),
         GK_ERR_INVALID_VALUE, "elem"},
        {gk_cuda_mx_quantize(g_ctx, GK_F4_E2M1FN, (gk_mx_scale_rule)7, 1, 32, 32, x, 32,
                             (uint8_t *)c, 32, (uint8_t *)c, 1),
         GK_ERR_INVALID_VALUE, "rule"},
        {gk_cuda_mx_quantize(g_ctx, GK_F4_E2M1FN, GK_MX_SCALE_FLOOR, 1, 32, 0, x, 32, (uint8_t *)c,
                             32, (uint8_t *)c, 1),
         GK_ERR_INVALID_VALUE, "block"},
        {gk_cuda_mx_quantize(g_ctx, GK_F4_E2M1FN, GK_MX_SCALE_FLOOR, 2, 32, 32, x, 31, (uint8_t *)c,
                             32, (uint8_t *)c, 1),
         GK_ERR_INVALID_LD, "ldx"},
        {gk_cuda_mx_dequantize(g_ctx, GK_F8_E5M2, 2, 64, 32, (const uint8_t *)c, 64,
                               (const uint8_t *)c, 1, x, 64),
         GK_ERR_INVALID_LD, "ldscales"},
    };
    for (auto &k : cases)
        T_CHECK(k.st == k.want, "%s: status %s, want %s (%s)", k.what, gk_status_string(k.st),
                gk_status_string(k.want), gk_last_error());
    float host[4] = {1, 2, 3, 4};
    gk_status st = gk_cuda_encode(g_ctx, GK_F8_E4M3FN, host, c, 4, 0);
    T_CHECK(st == GK_ERR_INVALID_POINTER && strstr(gk_last_error(), "x"), "host x: status %s (%s)",
            gk_status_string(st), gk_last_error());
    CUDA_REQUIRE(cudaDeviceSynchronize());
    unsigned char back[64 * 4];
    CUDA_REQUIRE(cudaMemcpy(back, c, sizeof back, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < sizeof back; i++)
        T_REQUIRE(back[i] == 0x5a, "byte %zu of the output written by a refused call", i);
    T_CHECK(gk_cuda_encode(g_ctx, GK_F8_E4M3FN, NULL, NULL, 0, 0) == GK_SUCCESS,
            "n = 0 with NULL pointers: %s", gk_last_error());
}

/* The work goes on the context's stream: queued behind a busy stream, it is still ordered. */
static void context_stream(void) {
    NEED_DEVICE();
    cudaStream_t s;
    CUDA_REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    gk_cuda_ctx *ctx = NULL;
    T_REQUIRE(gk_cuda_create(&ctx, 0, s) == GK_SUCCESS, "gk_cuda_create: %s", gk_last_error());
    const int64_t n = 1 << 20;
    dbuf dx, dc, dy;
    CUDA_REQUIRE(dx.alloc((size_t)n * 4));
    CUDA_REQUIRE(dc.alloc((size_t)n));
    CUDA_REQUIRE(dy.alloc((size_t)n * 4));
    float *x = (float *)malloc((size_t)n * 4), *y = (float *)malloc((size_t)n * 4);
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)(i % 1000) * 0.37f - 185.0f;
    CUDA_REQUIRE(cudaMemcpyAsync(dx.p, x, (size_t)n * 4, cudaMemcpyHostToDevice, s));
    T_REQUIRE(gk_cuda_encode(ctx, GK_F8_E4M3FN, dx.as<float>(), dc.p, n, 1) == GK_SUCCESS, "%s",
              gk_last_error());
    T_REQUIRE(gk_cuda_decode(ctx, GK_F8_E4M3FN, dc.p, dy.as<float>(), n) == GK_SUCCESS, "%s",
              gk_last_error());
    CUDA_REQUIRE(cudaMemcpyAsync(y, dy.p, (size_t)n * 4, cudaMemcpyDeviceToHost, s));
    CUDA_REQUIRE(cudaStreamSynchronize(s));
    uint8_t *c = (uint8_t *)malloc((size_t)n);
    float *want = (float *)malloc((size_t)n * 4);
    gk_encode(GK_F8_E4M3FN, x, c, n, 1);
    gk_decode(GK_F8_E4M3FN, c, want, n);
    T_CHECK(first_diff(y, want, n, 4) < 0, "round trip on a user stream differs from the CPU");
    gk_cuda_destroy(ctx);
    cudaStreamDestroy(s);
    free(x), free(y), free(c), free(want);
}

/* ---- --bench ------------------------------------------------------------------------------- */

static float time_ms(cudaEvent_t a, cudaEvent_t b) {
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    return ms;
}

/* Median time of `reps` runs of fn after one warm-up. */
template <typename F> static float median_ms(F fn, int reps) {
    cudaEvent_t a, b;
    cudaEventCreate(&a), cudaEventCreate(&b);
    float t[64];
    fn();
    for (int i = 0; i < reps; i++) {
        cudaEventRecord(a);
        fn();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        t[i] = time_ms(a, b);
    }
    cudaEventDestroy(a), cudaEventDestroy(b);
    double d[64];
    for (int i = 0; i < reps; i++)
        d[i] = t[i];
    return (float)gkh_median(d, reps);
}

static int bench(void) {
    if (!gk_cuda_available()) {
        printf("no CUDA device\n");
        return 0;
    }
    const int64_t n = (int64_t)1 << 28;
    const int reps = 15;
    void *x, *c, *y, *scratch;
    if (cudaMalloc(&x, (size_t)n * 4) || cudaMalloc(&c, (size_t)n * 4) ||
        cudaMalloc(&y, (size_t)n * 4) || cudaMalloc(&scratch, (size_t)n * 8)) {
        printf("cudaMalloc failed\n");
        return 1;
    }
    {
        /* data as conversions meet it: magnitudes within a few binades of 1, both signs (random
         * bit patterns would time mostly overflow and NaN) */
        float *h = (float *)malloc((size_t)n * 4);
        gkh_rng r = {5};
        for (int64_t i = 0; i < n; i++)
            h[i] = ldexpf(gkh_rng_float(&r), (int)(gkh_rng_next(&r) % 17) - 8);
        cudaMemcpy(x, h, (size_t)n * 4, cudaMemcpyHostToDevice);
        free(h);
    }
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    printf("%s, %lld elements, median of %d; rates count bytes read + written\n", prop.name,
           (long long)n, reps);
    printf("%-18s %-14s %10s %10s %7s\n", "format", "conversion", "GB/s", "copy GB/s", "ratio");
    for (int f = 0; f < GK_FORMAT_COUNT; f++) {
        const gk_format fmt = (gk_format)f;
        const int64_t bytes = n * (4 + code_bytes(fmt));
        for (int op = 0; op < 3; op++) {
            const char *what = op == 0 ? "encode" : op == 1 ? "encode sat" : "decode";
            /* the same traffic as a copy, bytes / 2 read and written, timed just before */
            const float copy = median_ms(
                [&] { cudaMemcpyAsync(scratch, x, (size_t)(bytes / 2), cudaMemcpyDeviceToDevice); },
                reps);
            const float copy_gbs = (float)(bytes / copy / 1e6);
            gk_status st = GK_SUCCESS;
            const float ms = median_ms(
                [&] {
                    st = op < 2 ? gk_cuda_encode(g_ctx, fmt, (float *)x, c, n, op)
                                : gk_cuda_decode(g_ctx, fmt, c, (float *)y, n);
                },
                reps);
            if (st != GK_SUCCESS || cudaDeviceSynchronize() != cudaSuccess) {
                printf("%s %s failed: %s\n", gk_format_name(fmt), what, gk_last_error());
                return 1;
            }
            const float gbs = (float)(bytes / ms / 1e6);
            printf("%-18s %-14s %10.0f %10.0f %6.1f%%\n", gk_format_name(fmt), what, gbs, copy_gbs,
                   100.0f * gbs / copy_gbs);
        }
    }
    /* MX, the OCP layout: rows of 4096, blocks of 32, one scale byte per block */
    const int64_t cols = 4096, rows = n / cols, nb = cols / 32;
    uint8_t *scales = (uint8_t *)scratch;
    for (int f = 0; f < GK_FORMAT_COUNT; f++) {
        const gk_format elem = (gk_format)f;
        if (!is_mx(elem)) continue;
        const int64_t bytes = n * 5 + rows * nb;
        for (int op = 0; op < 2; op++) {
            const float copy = median_ms(
                [&] { cudaMemcpyAsync(y, x, (size_t)(bytes / 2), cudaMemcpyDeviceToDevice); },
                reps);
            const float copy_gbs = (float)(bytes / copy / 1e6);
            gk_status st = GK_SUCCESS;
            const float ms = median_ms(
                [&] {
                    st = op == 0
                             ? gk_cuda_mx_quantize(g_ctx, elem, GK_MX_SCALE_FLOOR, rows, cols, 32,
                                                   (float *)x, cols, (uint8_t *)c, cols, scales, nb)
                             : gk_cuda_mx_dequantize(g_ctx, elem, rows, cols, 32, (uint8_t *)c,
                                                     cols, scales, nb, (float *)y, cols);
                },
                reps);
            if (st != GK_SUCCESS || cudaDeviceSynchronize() != cudaSuccess) {
                printf("%s MX failed: %s\n", gk_format_name(elem), gk_last_error());
                return 1;
            }
            const float gbs = (float)(bytes / ms / 1e6);
            printf("%-18s %-14s %10.0f %10.0f %6.1f%%\n", gk_format_name(elem),
                   op == 0 ? "mx quantize" : "mx dequantize", gbs, copy_gbs,
                   100.0f * gbs / copy_gbs);
        }
    }
    cudaFree(x), cudaFree(c), cudaFree(y), cudaFree(scratch);
    return 0;
}

int main(int argc, char **argv) {
    g_have_device = gk_cuda_available();
    if (g_have_device && gk_cuda_create(&g_ctx, 0, NULL) != GK_SUCCESS) {
        printf("FAIL setup: gk_cuda_create: %s\n", gk_last_error());
        return 1;
    }
    if (argc == 2 && !strcmp(argv[1], "--bench")) return bench();
    g_small = argc == 2 && !strcmp(argv[1], "--small");
    if (argc > 1 && !g_small) {
        fprintf(stderr, "usage: %s [--small | --bench]\n", argv[0]);
        return 2;
    }
    T_RUN(decode_every_code);
    T_RUN(encode_matches_cpu);
    T_RUN(encode_exhaustive);
    T_RUN(mx_matches_cpu);
    T_RUN(bad_arguments);
    T_RUN(context_stream);
    gk_cuda_destroy(g_ctx);
    return t_finish();
}
