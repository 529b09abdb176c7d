/*
 * gemmkit.h — public C API of gemmkit.
 *
 * gemmkit computes C = alpha * op(A) * op(B) + beta * C in single precision, on the CPU
 * (BLIS-style packed loops with per-ISA micro-kernels, chosen at run time) and, when the CUDA
 * backend is built, on NVIDIA GPUs (device pointers, a context bound to a device and stream).
 *
 * Conventions shared by every entry point:
 *   - Sizes and leading dimensions are 64-bit. Layout and transposition enums use the CBLAS
 *     numeric values, so CBLAS callers can cast.
 *   - BLAS semantics: M or N == 0 returns with C untouched; alpha == 0 or K == 0 scales C by beta;
 *     beta == 0 overwrites C without reading it (NaN/Inf in C never leak); nothing outside the
 *     M x N block of C is written; A and B are never written.
 *   - Every function returns a gk_status. On failure, gk_last_error() returns a message naming
 *     the offending argument; it is kept per calling thread. C is untouched on argument errors.
 *   - The library never prints (except the opt-in GEMMKIT_VERBOSE log on stderr) and never exits.
 */
#ifndef GEMMKIT_H
#define GEMMKIT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GEMMKIT_VERSION_MAJOR 0
#define GEMMKIT_VERSION_MINOR 1
#define GEMMKIT_VERSION_PATCH 0

#if defined(__GNUC__)
#define GK_API __attribute__((visibility("default")))
#else
#define GK_API
#endif

typedef enum gk_status {
    GK_SUCCESS = 0,
    GK_ERR_INVALID_LAYOUT = 1, /* layout is neither GK_ROW_MAJOR nor GK_COL_MAJOR */
    GK_ERR_INVALID_TRANS = 2,  /* transa/transb is not a gk_trans value */
    GK_ERR_INVALID_SIZE = 3,   /* M, N or K negative */
    GK_ERR_INVALID_LD = 4,     /* lda, ldb or ldc too small for the layout/transposition */
    GK_ERR_NULL_POINTER = 5,   /* A, B or C is NULL where data must be read or written */
    GK_ERR_OVERFLOW = 6,       /* a matrix's extent in bytes overflows the address space */
    GK_ERR_OUT_OF_MEMORY = 7,  /* a workspace allocation failed */
    GK_ERR_INVALID_VALUE = 8,  /* another argument (thread count, kernel id, option) is invalid */
    GK_ERR_UNSUPPORTED = 9,    /* valid request this build or device cannot serve */
    GK_ERR_NOT_BUILT = 10,     /* the CUDA backend was not compiled into this library */
    GK_ERR_NO_DEVICE = 11,     /* no usable CUDA device / driver */
    GK_ERR_CUDA = 12,          /* a CUDA runtime call failed; message carries CUDA's text */
    GK_ERR_INTERNAL = 13,      /* a bug in gemmkit; please report the message */
    /* A, B or C is memory the CUDA device cannot access (host memory, another device's), or its
     * allocation is too small for what the call reads or writes */
    GK_ERR_INVALID_POINTER = 14
} gk_status;

typedef enum gk_layout { GK_ROW_MAJOR = 101, GK_COL_MAJOR = 102 } gk_layout;

/* GK_CONJ_TRANS is accepted and means GK_TRANS (the data are real). */
typedef enum gk_trans { GK_NO_TRANS = 111, GK_TRANS = 112, GK_CONJ_TRANS = 113 } gk_trans;

/* Short English name of a status ("success", "invalid leading dimension", ...). Never NULL. */
GK_API const char *gk_status_string(gk_status status);

/* Detail message of the last failed call on the calling thread ("" if none). The pointer stays
 * valid until the next gemmkit call on this thread. */
GK_API const char *gk_last_error(void);

/* Version string "MAJOR.MINOR.PATCH". */
GK_API const char *gk_version(void);

/* ---------------------------------------------------------------------------------------------
 * Number formats. One list for the whole library: operand and result types of the mixed-precision
 * GEMM, and the element and scale formats of the conversions and MX block scaling below. Names
 * follow ml_dtypes (gk_format_name). Bit-level definitions: docs/formats.md.
 * ------------------------------------------------------------------------------------------- */

typedef enum gk_format {
    GK_F32 = 0,         /* IEEE binary32 */
    GK_TF32 = 1,        /* binary32 storage, multiplied as TF32 (8-bit exponent, 10-bit mantissa) */
    GK_BF16 = 2,        /* bfloat16 */
    GK_F16 = 3,         /* IEEE binary16 */
    GK_F8_E4M3FN = 4,   /* OCP FP8 E4M3: no Inf, one NaN pattern per sign, max 448 */
    GK_F8_E5M2 = 5,     /* OCP FP8 E5M2: IEEE-like with Inf and NaN, max 57344 */
    GK_F8_E4M3FNUZ = 6, /* E4M3, bias 8, no Inf, no -0, NaN is 0x80, max 240 */
    GK_F8_E5M2FNUZ = 7, /* E5M2, bias 16, no Inf, no -0, NaN is 0x80, max 57344 */
    GK_F8_E8M0FNU = 8,  /* MX scale: 2^(code - 127), unsigned, no zero, NaN is 0xFF */
    GK_F6_E2M3FN = 9,   /* OCP FP6 E2M3: no Inf or NaN, max 7.5 */
    GK_F6_E3M2FN = 10,  /* OCP FP6 E3M2: no Inf or NaN, max 28 */
    GK_F4_E2M1FN = 11,  /* OCP FP4 E2M1: no Inf or NaN, max 6 */
    GK_FORMAT_COUNT = 12
} gk_format;

/* ml_dtypes name of a format ("float8_e4m3fn", ...; "float32" and "tfloat32" for the first two),
 * or NULL for a value outside the enum. */
GK_API const char *gk_format_name(gk_format fmt);

/* @formats-api-begin (conversion and MX API: see docs/formats.md) */

/* Facts about one format, the single registry that the CLI, the Python binding and the docs
 * read. Values are exact (every finite value of every format is a float32). */
typedef struct gk_format_info {
    const char *name;     /* gk_format_name */
    int bits;             /* bits of one code: 32, 16, 8, 6 or 4 (TF32: 19 significant) */
    int storage_bytes;    /* bytes of one unpacked code: 4 (F32, TF32), 2 (BF16, F16), else 1 */
    int exponent_bits;    /* 8 for F32/TF32/BF16/E8M0 */
    int mantissa_bits;    /* stored fraction bits (E8M0: 0) */
    int bias;             /* exponent bias */
    int emax;             /* max_finite is in [2^emax, 2^(emax+1)) */
    int is_signed;        /* 0 only for E8M0 */
    int has_zero;         /* 0 only for E8M0 */
    int has_neg_zero;     /* 0 for E8M0 and the FNUZ formats */
    int has_inf;          /* F32, TF32, BF16, F16, E5M2 */
    int has_nan;          /* all but FP6/FP4 */
    int has_subnormals;   /* 0 only for E8M0 */
    double max_finite;    /* largest finite value */
    double min_normal;    /* smallest positive normal value (E8M0: 2^-127) */
    double min_subnormal; /* smallest positive value (E8M0: 2^-127) */
    uint32_t max_code;    /* code of max_finite (F32/TF32: its bits) */
    uint32_t nan_code;    /* code gk_encode gives +NaN (FP6/FP4, without NaN: a zero) */
    int mx_element;       /* 1 for the OCP MX elements E4M3FN, E5M2, E2M3FN, E3M2FN, E2M1FN */
} gk_format_info;

GK_API gk_status gk_format_info_get(gk_format fmt, gk_format_info *info);

/* Encode n float32 values into fmt's codes, rounding to nearest, ties to even (E8M0, which has no
 * fraction bits: ties up, as ml_dtypes). Overflow (a finite value rounding beyond max_finite) and
 * +-Inf: saturate = 1 gives +-max_finite; saturate = 0 gives the format's Inf where it has one,
 * else its NaN; FP6/FP4, having neither, saturate in both modes. NaN gives the format's quiet NaN
 * with the input's sign where NaN is signed (the FNUZ NaN 0x80, E8M0's 0xFF; FP6/FP4 a zero with
 * the opposite sign, ml_dtypes' stand-in). E8M0 (unsigned, no zero): positive values below 2^-127
 * give 2^-127; zero and negatives give 2^-127 when saturating, else NaN. Every rule, and where
 * they differ from ml_dtypes: docs/formats.md.
 * codes: one uint8_t per element for the <= 8-bit formats, uint16_t for BF16/F16, float for
 * F32/TF32 (TF32: float32 rounded to 10 fraction bits; F32: a copy). Any alignment; x and codes
 * must not overlap unless identical (F32/TF32 in place). Independent of the floating-point
 * environment (rounding mode, flush-to-zero). */
GK_API gk_status gk_encode(gk_format fmt, const float *x, void *codes, int64_t n, int saturate);

/* Decode n codes (layout as gk_encode writes them) to float32, exactly. Bits of a <= 8-bit code
 * above the format's width are ignored. */
GK_API gk_status gk_decode(gk_format fmt, const void *codes, float *y, int64_t n);

/* Packed storage of the sub-byte formats, a little-endian bit stream: element i occupies bits
 * [i*b, i*b + b) where stream bit j is bit (j % 8) of byte j / 8. FP4 (b = 4): two per byte,
 * element 0 in the low nibble. FP6 (b = 6): four elements in three bytes. Bits past the last
 * element in the final byte are written as zero. gk_packed_bytes gives ceil(n * b / 8) for the
 * 4- and 6-bit formats, -1 for other formats or n < 0 (or overflow). */
GK_API int64_t gk_packed_bytes(gk_format fmt, int64_t n);
GK_API gk_status gk_pack(gk_format fmt, const uint8_t *codes, void *packed, int64_t n);
GK_API gk_status gk_unpack(gk_format fmt, const void *packed, uint8_t *codes, int64_t n);

/* How an MX block's E8M0 scale X = 2^e is chosen from the block's largest magnitude amax, for an
 * element format whose largest finite value is max_elem = M * 2^emax_elem (M in [1, 2)).
 * Every rule gives a zero block e = -127, a block holding NaN or Inf the NaN scale (0xFF), and
 * clamps e below at -127. docs/formats.md compares them. */
typedef enum gk_mx_scale_rule {
    /* OCP MX v1.0 (the default): e = floor(log2(amax)) - emax_elem. Elements above max_elem
     * after scaling are clamped to it (E4M3: amax / X is in [256, 512), max 448). */
    GK_MX_SCALE_FLOOR = 0,
    /* e = ceil(log2(amax)) - emax_elem (torchao CEIL): never clamps; a power-of-two amax keeps
     * FLOOR's scale, any other amax gets twice FLOOR's. */
    GK_MX_SCALE_CEIL = 1,
    /* torchao EVEN: amax is first rounded to the element format's precision (mantissa_bits
     * fraction bits, ties away from zero), then FLOOR. */
    GK_MX_SCALE_EVEN = 2,
    /* NVIDIA's (cuBLAS/Transformer Engine "RCEIL"): the smallest power of two X with
     * amax / X <= max_elem, i.e. e = ceil(log2(amax / max_elem)), computed exactly. Never
     * clamps and uses the most of the element range of the rules that never clamp. */
    GK_MX_SCALE_RCEIL = 3
} gk_mx_scale_rule;

/* MX block quantization of a row-major rows x cols float32 matrix x (row stride ldx elements):
 * each row is cut into blocks of `block` consecutive elements (OCP MX: 32), the last block of a
 * row holding the cols % block remainder when block does not divide cols. Per block, one E8M0
 * scale X by `rule`, and elements P = x / X rounded to nearest even and clamped to the element
 * format's largest finite value (saturating; NaN never produced). A block whose scale is NaN
 * (it holds NaN or Inf) gets element codes 0. elem: GK_F8_E4M3FN, GK_F8_E5M2, GK_F6_E2M3FN,
 * GK_F6_E3M2FN or GK_F4_E2M1FN. codes: one uint8_t per element, row stride ldcodes (>= cols);
 * scales: ceil(cols / block) per row, row stride ldscales. */
GK_API gk_status gk_mx_quantize(gk_format elem, gk_mx_scale_rule rule, int64_t rows, int64_t cols,
                                int64_t block, const float *x, int64_t ldx, uint8_t *codes,
                                int64_t ldcodes, uint8_t *scales, int64_t ldscales);

/* y = decode(code) * X for every element, the same layout as gk_mx_quantize; exact (a product
 * beyond float32's range is +-Inf; a NaN scale makes its block NaN). */
GK_API gk_status gk_mx_dequantize(gk_format elem, int64_t rows, int64_t cols, int64_t block,
                                  const uint8_t *codes, int64_t ldcodes, const uint8_t *scales,
                                  int64_t ldscales, float *y, int64_t ldy);

/* @formats-api-end */

/* The conversions on device memory (the CUDA backend; GK_ERR_NOT_BUILT without it): the same
 * arguments, layouts and results, bit for bit, as gk_encode, gk_decode, gk_mx_quantize and
 * gk_mx_dequantize, with every pointer in memory the context's device can access. Asynchronous on
 * the context's stream. (gk_cuda_ctx is the context of the CUDA API below.) */
struct gk_cuda_ctx;
GK_API gk_status gk_cuda_encode(struct gk_cuda_ctx *ctx, gk_format fmt, const float *x, void *codes,
                                int64_t n, int saturate);
GK_API gk_status gk_cuda_decode(struct gk_cuda_ctx *ctx, gk_format fmt, const void *codes, float *y,
                                int64_t n);
GK_API gk_status gk_cuda_mx_quantize(struct gk_cuda_ctx *ctx, gk_format elem, gk_mx_scale_rule rule,
                                     int64_t rows, int64_t cols, int64_t block, const float *x,
                                     int64_t ldx, uint8_t *codes, int64_t ldcodes, uint8_t *scales,
                                     int64_t ldscales);
GK_API gk_status gk_cuda_mx_dequantize(struct gk_cuda_ctx *ctx, gk_format elem, int64_t rows,
                                       int64_t cols, int64_t block, const uint8_t *codes,
                                       int64_t ldcodes, const uint8_t *scales, int64_t ldscales,
                                       float *y, int64_t ldy);

/* ---------------------------------------------------------------------------------------------
 * CPU SGEMM
 * ------------------------------------------------------------------------------------------- */

/* C = alpha * op(A) * op(B) + beta * C, op(A) is M x K, op(B) is K x N, C is M x N. */
GK_API gk_status gk_sgemm(gk_layout layout, gk_trans transa, gk_trans transb, int64_t m, int64_t n,
                          int64_t k, float alpha, const float *a, int64_t lda, const float *b,
                          int64_t ldb, float beta, float *c, int64_t ldc);

/* Batched SGEMM: `batch` independent products, item i exactly gk_sgemm's on
 *   strided:       A + i * stride_a, B + i * stride_b, C + i * stride_c (strides in elements);
 *   pointer-array: a[i], b[i], c[i] (host arrays of host pointers).
 * Every item shares layout, transpositions, sizes, alpha, beta and leading dimensions. batch == 0
 * does nothing; batch < 0 is GK_ERR_INVALID_VALUE naming "batch"; other arguments fail as
 * gk_sgemm's. Strides are >= 0; stride_a or stride_b 0 reuses one matrix for every item; when
 * more than one item is written (batch > 1, m, n > 0), stride_c must be at least one C item's
 * extent (ldc * (columns - 1) + rows, column-major terms), so items never overlap (interleaved
 * items are refused too). Pointer arrays are not checked for overlapping C items. Small items
 * are spread over the threads, large ones each use all of them (docs/cuda.md, "Batched"). */
GK_API gk_status gk_sgemm_strided_batched(gk_layout layout, gk_trans transa, gk_trans transb,
                                          int64_t m, int64_t n, int64_t k, float alpha,
                                          const float *a, int64_t lda, int64_t stride_a,
                                          const float *b, int64_t ldb, int64_t stride_b, float beta,
                                          float *c, int64_t ldc, int64_t stride_c, int64_t batch);
GK_API gk_status gk_sgemm_batched(gk_layout layout, gk_trans transa, gk_trans transb, int64_t m,
                                  int64_t n, int64_t k, float alpha, const float *const *a,
                                  int64_t lda, const float *const *b, int64_t ldb, float beta,
                                  float *const *c, int64_t ldc, int64_t batch);

/* Threads used by CPU calls. n >= 1 sets the count process-wide (safe to call concurrently with
 * running GEMMs: each call reads it once at entry); n == 0 returns to the default, which is
 * GEMMKIT_NUM_THREADS, else OMP_NUM_THREADS, else the number of online cores. */
GK_API gk_status gk_set_num_threads(int n);
GK_API int gk_get_num_threads(void);

/* Force the CPU micro-kernel family: "generic", "avx2", "avx512", or NULL/"auto" for cpuid
 * dispatch (the default, overridable by GEMMKIT_ARCH). "amx" and "avx512bf16" force that BF16
 * kernel of gk_gemm_ex (FP32 stays on cpuid's choice); an FP32 family also makes gk_gemm_ex
 * convert BF16 to float32 on it. Fails with GK_ERR_UNSUPPORTED if the CPU
 * (or this build) lacks the ISA, GK_ERR_INVALID_VALUE for an unknown name. Process-wide. */
GK_API gk_status gk_set_arch(const char *name);

/* What the CPU path will do for a call made now. */
typedef struct gk_cpu_info {
    char vendor[16];                       /* cpuid vendor string, "" off x86 */
    char brand[64];                        /* cpuid brand string, "" when unknown */
    int has_avx2, has_fma, has_avx512f;    /* ISA usable (CPU and OS state) */
    char arch[16];                         /* kernel family in use: "generic", "avx2", "avx512" */
    char arch_reason[64];                  /* "cpuid", "GEMMKIT_ARCH", "gk_set_arch" */
    int mr, nr;                            /* micro-tile */
    int64_t mc, kc, nc;                    /* cache blocking */
    int64_t l1d_bytes, l2_bytes, l3_bytes; /* caches as detected (0 = unknown) */
    int threads;                           /* threads a call made now will use */
} gk_cpu_info;

GK_API gk_status gk_cpu_get_info(gk_cpu_info *info);

/* The CPU kernel registry: one entry per micro-kernel family this build contains, best first
 * (the order cpuid dispatch tries them). `gemmkit kernels` and the docs list it. */
typedef struct gk_cpu_kernel_info {
    int id;           /* registry index, 0-based */
    const char *name; /* e.g. "avx512_32x12" */
    const char *arch; /* family, as GEMMKIT_ARCH and gk_set_arch take it: "avx512", "avx2", ... */
    int mr, nr;       /* micro-tile */
    int usable;       /* 1 when this CPU, OS and build can run it */
    int selected;     /* 1 for the family a call made now uses */
} gk_cpu_kernel_info;

GK_API int gk_cpu_kernel_count(void);
GK_API gk_status gk_cpu_kernel_info_get(int kernel_id, gk_cpu_kernel_info *info);

/* ---------------------------------------------------------------------------------------------
 * CUDA SGEMM (device pointers). Present in every build; without the CUDA backend each function
 * returns GK_ERR_NOT_BUILT. Pointers to cudaStream_t are passed as void* so this header needs no
 * CUDA headers.
 * ------------------------------------------------------------------------------------------- */

typedef struct gk_cuda_ctx gk_cuda_ctx;

/* 1 if the CUDA backend is built and at least one device answers, else 0. */
GK_API int gk_cuda_available(void);

/* Create a context on `device`, issuing work on `stream` (NULL = legacy default stream). */
GK_API gk_status gk_cuda_create(gk_cuda_ctx **ctx, int device, void *stream);
GK_API gk_status gk_cuda_destroy(gk_cuda_ctx *ctx);
GK_API gk_status gk_cuda_set_stream(gk_cuda_ctx *ctx, void *stream);

/* Same semantics as gk_sgemm, on device memory, asynchronous on the context's stream. */
GK_API gk_status gk_cuda_sgemm(gk_cuda_ctx *ctx, gk_layout layout, gk_trans transa, gk_trans transb,
                               int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                               int64_t lda, const float *b, int64_t ldb, float beta, float *c,
                               int64_t ldc);

/* Run one kernel of the registry (see gk_cuda_kernel_count/gk_cuda_kernel_info), same semantics. */
GK_API gk_status gk_cuda_sgemm_kernel(gk_cuda_ctx *ctx, int kernel_id, gk_layout layout,
                                      gk_trans transa, gk_trans transb, int64_t m, int64_t n,
                                      int64_t k, float alpha, const float *a, int64_t lda,
                                      const float *b, int64_t ldb, float beta, float *c,
                                      int64_t ldc);

/* Batched SGEMM on device memory, asynchronous on the context's stream: item i is exactly
 * gk_cuda_sgemm's on A + i * stride_a, B + i * stride_b, C + i * stride_c (strided) or on
 * a[i], b[i], c[i] (pointer arrays: device arrays of device pointers, read by the kernel, as
 * cuBLAS's *Batched calls take them). Arguments and errors as gk_sgemm_strided_batched /
 * gk_sgemm_batched. The whole batch is one grid (the batch index in the grid, each item on the
 * tile configuration chosen for its size), so a batch of small products fills the GPU. In the
 * GK_FP32_3XTF32 mode the items run the SIMT kernel all the same (docs/cuda.md, "Batched"). */
GK_API gk_status gk_cuda_sgemm_strided_batched(gk_cuda_ctx *ctx, gk_layout layout, gk_trans transa,
                                               gk_trans transb, int64_t m, int64_t n, int64_t k,
                                               float alpha, const float *a, int64_t lda,
                                               int64_t stride_a, const float *b, int64_t ldb,
                                               int64_t stride_b, float beta, float *c, int64_t ldc,
                                               int64_t stride_c, int64_t batch);
GK_API gk_status gk_cuda_sgemm_batched(gk_cuda_ctx *ctx, gk_layout layout, gk_trans transa,
                                       gk_trans transb, int64_t m, int64_t n, int64_t k,
                                       float alpha, const float *const *a, int64_t lda,
                                       const float *const *b, int64_t ldb, float beta,
                                       float *const *c, int64_t ldc, int64_t batch);

/* Mixed-precision GEMM on device memory, asynchronous on the context's stream: C/D (ctype) =
 * alpha * scale_a * scale_b * op(A) (atype) * op(B) (btype) + beta * C, with float32 accumulation.
 * Supported types (docs/cuda.md, "Mixed precision"):
 *   atype/btype: GK_F32, GK_TF32, GK_BF16, GK_F16 (both the same), or GK_F8_E4M3FN/GK_F8_E5M2
 *                (any pair of the two; not both E5M2);
 *   ctype:       GK_F32, GK_BF16 or GK_F16.
 * GK_F32 operands use the context's FP32 mode (gk_cuda_set_fp32_mode); GK_TF32 always multiplies in
 * TF32. Same BLAS semantics, layouts and transpositions as gk_cuda_sgemm; any M, N, K, leading
 * dimension and pointer alignment beyond the element size's (operands that the tensor-memory path
 * cannot read as stored are first copied to the context's workspace: docs/cuda.md says when).
 * C elements are read only when beta != 0; rounding to ctype happens once, after alpha and beta
 * are applied. Errors: as gk_cuda_sgemm, checked after the formats (a value outside gk_format:
 * GK_ERR_INVALID_VALUE; an operand, pair or ctype not listed: GK_ERR_UNSUPPORTED), and a pointer
 * not aligned to its element size (GK_ERR_INVALID_POINTER). */
typedef struct gk_gemm_ex_opts {
    /* Device pointers to one float each, multiplying A and B (per-tensor FP8 scales; taken for
     * any operand type), read when the kernel runs, so a preceding kernel on the stream may write
     * them. NULL means 1. */
    const float *scale_a, *scale_b;
    /* FP8 only: 1 keeps partial sums in the tensor core's reduced-precision accumulator for the
     * whole K loop (faster, less accurate); 0 (default) promotes them to float32 every 128 of K.
     * The paths without the sm_90a kernel accumulate in float32 either way. */
    int fp8_fast_accum;
} gk_gemm_ex_opts;

GK_API gk_status gk_cuda_gemm_ex(gk_cuda_ctx *ctx, gk_layout layout, gk_trans transa,
                                 gk_trans transb, int64_t m, int64_t n, int64_t k, float alpha,
                                 gk_format atype, const void *a, int64_t lda, gk_format btype,
                                 const void *b, int64_t ldb, float beta, gk_format ctype, void *c,
                                 int64_t ldc, const gk_gemm_ex_opts *opts /* NULL: defaults */);

/* How float32 GEMMs on this context (gk_cuda_sgemm, gk_cuda_gemm_ex with GK_F32 operands) use the
 * GPU. GK_FP32_SIMT (default): float32 FMAs on the CUDA cores. GK_FP32_3XTF32: on tensor cores,
 * each operand split into a TF32 high and low part and the three significant products summed;
 * results within the float32 error bound widened by 4 roundings per product (docs/cuda.md, "FP32
 * accuracy modes"); falls back to GK_FP32_SIMT on devices without tensor cores (below sm_80).
 * GK_ERR_INVALID_VALUE for another mode. */
typedef enum gk_fp32_mode { GK_FP32_SIMT = 0, GK_FP32_3XTF32 = 1 } gk_fp32_mode;
GK_API gk_status gk_cuda_set_fp32_mode(gk_cuda_ctx *ctx, gk_fp32_mode mode);

/* Block-scaled GEMM (docs/formats.md, "Block-scaled GEMM"): every element of op(A) and op(B) is
 * a code times the scale of the block it belongs to, blocks running along K:
 *     C (ctype) = alpha * sum_kk [sa(i, kk) * A(i, kk)] * [sb(kk, j) * B(kk, j)] + beta * C
 * accumulated in float32 and rounded to ctype once. The scale arrays are indexed by the logical
 * op(A) (m x k) and op(B) (k x n) whatever the layout and transpositions, row after row with no
 * padding; KB = ceil(k / G) blocks per row:
 *   GK_SCALING_BLOCK128 (G = 128): float32 scales. a_scale[m][KB]: sa(i, kk) =
 *       a_scale[i * KB + kk / 128] (1 x 128 blocks of op(A)); b_scale[ceil(n / 128)][KB]:
 *       sb(kk, j) = b_scale[(j / 128) * KB + kk / 128] (128 x 128 blocks of op(B)).
 *       atype/btype: GK_F8_E4M3FN or GK_F8_E5M2 (not both E5M2).
 *   GK_SCALING_MX (G = 32, OCP Microscaling v1.0): E8M0 scale bytes, 2^(s - 127), 0xFF is NaN.
 *       a_scale[m][KB]: sa(i, kk) from a_scale[i * KB + kk / 32]; b_scale[n][KB]: sb(kk, j)
 *       from b_scale[j * KB + kk / 32] (what gk_mx_quantize writes for A as m x k and for B
 *       stored as n x k). atype/btype: any of GK_F8_E4M3FN, GK_F8_E5M2, GK_F6_E2M3FN,
 *       GK_F6_E3M2FN, GK_F4_E2M1FN, one code per byte (gk_encode's codes).
 * ctype: GK_F32, GK_BF16 or GK_F16. Same BLAS semantics, layouts, transpositions, leading
 * dimensions and errors as gk_cuda_gemm_ex; NULL a_scale or b_scale (with k > 0 and alpha != 0):
 * GK_ERR_INVALID_POINTER; a scaling value not listed: GK_ERR_INVALID_VALUE. */
typedef enum gk_scaling { GK_SCALING_BLOCK128 = 1, GK_SCALING_MX = 2 } gk_scaling;

/* On device memory (all pointers), asynchronous on the context's stream. */
GK_API gk_status gk_cuda_gemm_scaled(gk_cuda_ctx *ctx, gk_layout layout, gk_trans transa,
                                     gk_trans transb, int64_t m, int64_t n, int64_t k, float alpha,
                                     gk_format atype, const void *a, int64_t lda,
                                     const void *a_scale, gk_format btype, const void *b,
                                     int64_t ldb, const void *b_scale, gk_scaling scaling,
                                     float beta, gk_format ctype, void *c, int64_t ldc);

/* The same on host memory, on the CPU: the scaled operands decoded to float32 (exactly for MX;
 * one rounding of code * scale for BLOCK128), multiplied by the CPU SGEMM. The CPU reference of
 * the GPU call, and a block-scaled GEMM for CPUs. Allocates its float32 copies per call
 * (GK_ERR_OUT_OF_MEMORY when that fails). */
GK_API gk_status gk_gemm_scaled(gk_layout layout, gk_trans transa, gk_trans transb, int64_t m,
                                int64_t n, int64_t k, float alpha, gk_format atype, const void *a,
                                int64_t lda, const void *a_scale, gk_format btype, const void *b,
                                int64_t ldb, const void *b_scale, gk_scaling scaling, float beta,
                                gk_format ctype, void *c, int64_t ldc);

/* Mixed-precision GEMM on host memory, on the CPU: C (ctype) = alpha * op(A) (atype) * op(B)
 * (btype) + beta * C, with float32 accumulation (docs/cpu.md, "Low precision (BF16/FP16)").
 * Supported types: atype = btype, one of GK_F32, GK_BF16, GK_F16; ctype GK_F32, GK_BF16 or GK_F16.
 * BF16 runs on AMX tiles or AVX512-BF16 dot products where the CPU has them; FP16 (and BF16
 * elsewhere) is converted to float32 while packing and multiplied by the FP32 kernel, so the call
 * works on every CPU. Same BLAS semantics, layouts, transpositions and leading dimensions as
 * gk_sgemm; C elements are read only when beta != 0; rounding to ctype (nearest even, overflow to
 * Inf) happens once, after alpha and beta are applied. Errors: as gk_sgemm, checked after the
 * formats (a value outside gk_format: GK_ERR_INVALID_VALUE; a type or pair not listed:
 * GK_ERR_UNSUPPORTED), and a pointer not aligned to its element size (GK_ERR_INVALID_POINTER). A
 * BF16/F16 C is accumulated in a float32 copy allocated per call (GK_ERR_OUT_OF_MEMORY when that
 * fails, C untouched). */
GK_API gk_status gk_gemm_ex(gk_layout layout, gk_trans transa, gk_trans transb, int64_t m,
                            int64_t n, int64_t k, float alpha, gk_format atype, const void *a,
                            int64_t lda, gk_format btype, const void *b, int64_t ldb, float beta,
                            gk_format ctype, void *c, int64_t ldc);

/* The CPU kernel gk_gemm_ex runs now for operands of type atype ("amx_bf16_32x32",
 * "avx512bf16_32x12", "convert+avx512_32x12", or for GK_F32 the FP32 kernel's name), with why in
 * *reason ("cpuid", "GEMMKIT_ARCH", "gk_set_arch") when reason is not NULL; NULL for a type
 * gk_gemm_ex does not take. gk_set_arch and GEMMKIT_ARCH also take "amx" and "avx512bf16". */
GK_API const char *gk_cpu_gemm_ex_kernel(gk_format atype, const char **reason);

/* Out-of-core SGEMM: gk_sgemm's semantics with A, B and C in HOST memory (pageable or page-locked;
 * device or managed memory works too), of any size the host holds, computed on the context's GPU.
 * Synchronous: returns when C is written (work already queued on the context's stream runs
 * first). C is cut into tiles sized to a device-memory budget, streamed through the GPU with
 * copies overlapped with compute on several streams, and each tile computed by gk_cuda_sgemm's own
 * kernel on the context's stream (in its FP32 mode). K is chunked only when a tile's panels would
 * not fit; each later chunk then adds to C (beta 1), which rounds differently from the in-memory
 * call. Where K is not chunked, each C tile is one gk_cuda_sgemm call on that tile's sub-problem,
 * and C is bitwise equal to one in-memory gk_cuda_sgemm call on all of C when beta == 0 and
 * neither call splits K (stream-K): docs/cuda.md, "Out-of-core and multi-GPU", says exactly when.
 * Budget: GEMMKIT_CUDA_MEM_LIMIT bytes (optional K, M or G suffix, read at each call) per context,
 * default 80 % of the device's free memory (shared by the call's contexts on one device); an
 * invalid value is ignored (said under GEMMKIT_VERBOSE). Pageable operands are staged through
 * 2 x 32 MB of page-locked memory allocated per call; page-locked ones are copied directly.
 * Errors: argument errors as gk_sgemm (C untouched); GK_ERR_OUT_OF_MEMORY when the budget holds no
 * tile or an allocation fails; GK_ERR_CUDA for a failed copy, launch or synchronisation. On any
 * error every element of C holds either its value before the call or its final result (a tile is
 * copied back only once complete). alpha == 0 or K == 0 scales C on the host. */
GK_API gk_status gk_cuda_sgemm_host(gk_cuda_ctx *ctx, gk_layout layout, gk_trans transa,
                                    gk_trans transb, int64_t m, int64_t n, int64_t k, float alpha,
                                    const float *a, int64_t lda, const float *b, int64_t ldb,
                                    float beta, float *c, int64_t ldc);

/* The same spread over nctx distinct contexts (several devices, or several contexts of one): C's
 * tiles are divided into nctx contiguous runs, one per context, all issued from the calling
 * thread; the budget applies to each context and the smallest one sets the common tiling.
 * nctx == 1 is gk_cuda_sgemm_host. With the same tiling on devices of one model the result is the
 * same bits whatever nctx (every tile is the same call). GK_ERR_INVALID_VALUE for a NULL ctxs or
 * element, nctx < 1, or one context passed twice. */
GK_API gk_status gk_cuda_sgemm_host_multi(gk_cuda_ctx *const *ctxs, int nctx, gk_layout layout,
                                          gk_trans transa, gk_trans transb, int64_t m, int64_t n,
                                          int64_t k, float alpha, const float *a, int64_t lda,
                                          const float *b, int64_t ldb, float beta, float *c,
                                          int64_t ldc);

/* Out-of-core mixed-precision GEMM: gk_cuda_gemm_ex's semantics, types, option struct and argument
 * checks with A, B and C in HOST memory (as gk_cuda_sgemm_host: pageable or page-locked, any size
 * the host holds, synchronous, the same budget, tiling, errors and C-on-error guarantee), each
 * tile computed by gk_cuda_gemm_ex's own path on the context's stream. opts->scale_a/scale_b are
 * read by the kernels as in gk_cuda_gemm_ex, on every tile call (alpha * sa * sb per call): memory
 * the context's device reads (its device memory, or managed or page-locked host memory, which
 * every context of the _multi call reads). Where K is not chunked, each C tile is one
 * gk_cuda_gemm_ex call on the tile's sub-problem (bitwise the in-memory result where the kernel's
 * sums do not depend on the tiling: docs/cuda.md, "Out-of-core and multi-GPU"). Where it is
 * chunked, the chunks' products are summed in float32 on the device and a bfloat16/float16 C is
 * rounded once, at the end, after beta * C is added: within the K-scaled bound, not bitwise.
 * alpha == 0 or K == 0 scales C on the host, rounded as the in-memory call rounds it. */
GK_API gk_status gk_cuda_gemm_ex_host(gk_cuda_ctx *ctx, gk_layout layout, gk_trans transa,
                                      gk_trans transb, int64_t m, int64_t n, int64_t k, float alpha,
                                      gk_format atype, const void *a, int64_t lda, gk_format btype,
                                      const void *b, int64_t ldb, float beta, gk_format ctype,
                                      void *c, int64_t ldc,
                                      const gk_gemm_ex_opts *opts /* NULL: defaults */);
/* The same over nctx distinct contexts, as gk_cuda_sgemm_host_multi. */
GK_API gk_status gk_cuda_gemm_ex_host_multi(gk_cuda_ctx *const *ctxs, int nctx, gk_layout layout,
                                            gk_trans transa, gk_trans transb, int64_t m, int64_t n,
                                            int64_t k, float alpha, gk_format atype, const void *a,
                                            int64_t lda, gk_format btype, const void *b,
                                            int64_t ldb, float beta, gk_format ctype, void *c,
                                            int64_t ldc, const gk_gemm_ex_opts *opts);

/* Distributed SGEMM over NCCL (docs/cuda.md, "Distributed SGEMM over NCCL"): A, B and C are in
 * device memory, spread over a P x Q grid of ranks (one GPU each), and the product is computed by
 * SUMMA: for each panel of K, the rank holding that panel of op(A) broadcasts it along its grid row
 * and the rank holding that panel of op(B) along its grid column (ncclBroadcast), and every rank
 * multiplies the two panels into its block of C with gk_cuda_sgemm's own kernels; the broadcasts of
 * the next panel overlap the current panel's GEMM (double-buffered panels, a communication
 * stream). NCCL (2.18 or later) is loaded at run time: GEMMKIT_NCCL_LIB names the library, else
 * libnccl.so.2 is searched on the loader's path and in pip's nvidia-nccl wheels; without it every
 * gk_cuda_dist_* call that needs it returns GK_ERR_UNSUPPORTED naming what was tried.
 *
 * Rank r sits at grid row r / q, column r % q. Each global dimension is split into contiguous
 * blocks by gk_cuda_dist_range (rows(m, p, i): block i of m split into p); rank (i, j) holds
 *     op(A)[rows(m, p, i), cols(k, q, j)]   op(B)[rows(k, p, i), cols(n, q, j)]
 *     C[rows(m, p, i), cols(n, q, j)]
 * each stored as a matrix of its own in the call's layout with its own leading dimension (op(A)'s
 * block transposed when transa is GK_TRANS, as for gk_sgemm). */
typedef struct gk_cuda_dist gk_cuda_dist;
#define GK_CUDA_DIST_ID_BYTES 128 /* ncclUniqueId */

/* The version of the NCCL the library loads (major * 10000 + minor * 100 + patch); no device
 * needed. GK_ERR_UNSUPPORTED when NCCL cannot be loaded or is older than 2.18. */
GK_API gk_status gk_cuda_nccl_version(int *version);

/* The block of a dimension of size n split into `parts` (>= 1) that `index` holds: the first
 * n % parts blocks have n / parts + 1 elements, the others n / parts; *first is its first index. */
GK_API gk_status gk_cuda_dist_range(int64_t n, int parts, int index, int64_t *first,
                                    int64_t *count);

/* One process (or thread) per GPU: gk_cuda_dist_unique_id on one rank (an ncclUniqueId; no device
 * needed), its GK_CUDA_DIST_ID_BYTES bytes passed to every rank by the caller's means, then on each
 * rank gk_cuda_dist_create with the same p, q and id, its own rank in [0, p * q) and its device.
 * Collective: returns once every rank has joined. */
GK_API gk_status gk_cuda_dist_unique_id(void *id);
GK_API gk_status gk_cuda_dist_create(gk_cuda_dist **dist, int p, int q, int rank, const void *id,
                                     int device);
/* One process driving p * q GPUs: dists[r] is rank r on devices[r] (NULL: device r), all distinct.
 * Each handle is then used by its own host thread (one collective's calls run concurrently). */
GK_API gk_status gk_cuda_dist_create_all(gk_cuda_dist **dists, int p, int q, const int *devices);
GK_API gk_status gk_cuda_dist_destroy(gk_cuda_dist *dist);

typedef struct gk_cuda_dist_info {
    int p, q, rank, row, col, device;
    int nccl_version;
    /* The context the rank computes on: its stream orders the calls (a non-blocking stream the
     * handle created, unless changed with gk_cuda_set_stream); gk_cuda_set_fp32_mode applies to
     * the panel GEMMs. */
    gk_cuda_ctx *ctx;
    void *stream;  /* the context's stream now (a cudaStream_t) */
    int64_t panel; /* panel width of K (gk_cuda_dist_set_panel; 0: the default) */
} gk_cuda_dist_info;
GK_API gk_status gk_cuda_dist_info_get(const gk_cuda_dist *dist, gk_cuda_dist_info *info);

/* Width of K's panels (>= 1; 0 restores the default). Every rank of a call must use the same. */
GK_API gk_status gk_cuda_dist_set_panel(gk_cuda_dist *dist, int64_t width);

/* C = alpha * op(A) * op(B) + beta * C for global m x n x k on the grid, collective: every rank
 * calls it with the same layout, transa, transb, m, n, k, alpha, beta and its own blocks a, b, c
 * (device memory) and leading dimensions. Asynchronous on the rank's context stream: C's block is
 * final when that stream reaches this point; a, b and c must stay untouched until then. gk_sgemm's
 * BLAS semantics (beta == 0 never reads C; alpha == 0 or k == 0 scales C without communication).
 * On a 1 x 1 grid with the default panel width (or one >= k) the call is one gk_cuda_sgemm on the
 * blocks, bit for bit; otherwise each panel after the first adds to C (beta 1), one rounding per
 * panel, within the K-scaled error bound.
 * Argument errors (gk_sgemm's statuses, leading dimensions checked against this rank's blocks, a
 * NULL block this rank must read or write) are found before anything is queued; a rank that
 * returns one leaves the others waiting in their broadcasts, so the arguments must agree. */
GK_API gk_status gk_cuda_dist_sgemm(gk_cuda_dist *dist, gk_layout layout, gk_trans transa,
                                    gk_trans transb, int64_t m, int64_t n, int64_t k, float alpha,
                                    const float *a, int64_t lda, const float *b, int64_t ldb,
                                    float beta, float *c, int64_t ldc);

typedef struct gk_cuda_kernel_info {
    int id;                /* registry index, 0-based, stable within a release */
    const char *name;      /* short name, e.g. "07_bank_conflict_free" */
    const char *technique; /* one line: what this step adds */
    int min_sm;            /* minimum compute capability * 10, e.g. 80 */
    double
        input_rounding; /* unit roundoff of the operands as the multiplier sees them: 0 for
                           FP32 products, 2^-11 for TF32. Tests accept
                           |C - Cref| <= ((K + 2) * FLT_EPSILON + 2 * input_rounding) * scale,
                           scale = |alpha| * sum_k |a_ik b_kj| + |beta * c_ij| (docs/testing.md) */
    int tensor_cores;   /* 1 if it uses tensor cores */
    int is_default;     /* 1 for the kernel gk_cuda_sgemm runs on devices that support it */
} gk_cuda_kernel_info;

GK_API int gk_cuda_kernel_count(void);
GK_API gk_status gk_cuda_kernel_info_get(int kernel_id, gk_cuda_kernel_info *info);

#ifdef __cplusplus
}
#endif

#endif /* GEMMKIT_H */
