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
 * CPU SGEMM
 * ------------------------------------------------------------------------------------------- */

/* C = alpha * op(A) * op(B) + beta * C, op(A) is M x K, op(B) is K x N, C is M x N. */
GK_API gk_status gk_sgemm(gk_layout layout, gk_trans transa, gk_trans transb, int64_t m, int64_t n,
                          int64_t k, float alpha, const float *a, int64_t lda, const float *b,
                          int64_t ldb, float beta, float *c, int64_t ldc);

/* Threads used by CPU calls. n >= 1 sets the count process-wide (safe to call concurrently with
 * running GEMMs: each call reads it once at entry); n == 0 returns to the default, which is
 * GEMMKIT_NUM_THREADS, else OMP_NUM_THREADS, else the number of online cores. */
GK_API gk_status gk_set_num_threads(int n);
GK_API int gk_get_num_threads(void);

/* Force the CPU micro-kernel family: "generic", "avx2", "avx512", or NULL/"auto" for cpuid
 * dispatch (the default, overridable by GEMMKIT_ARCH). Fails with GK_ERR_UNSUPPORTED if the CPU
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
