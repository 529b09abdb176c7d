/*
 * internal.h — helpers shared by every backend: recording the per-thread error message and
 * validating GEMM arguments identically for the CPU and CUDA entry points.
 */
#ifndef GK_CORE_INTERNAL_H
#define GK_CORE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "gemmkit.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define GK_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define GK_HIDDEN __attribute__((visibility("hidden")))
#else
#define GK_PRINTF(f, a)
#define GK_HIDDEN
#endif

/* Record `status` with a printf-style detail message for gk_last_error(); returns `status` so
 * callers can `return gk_fail(...)`. */
GK_HIDDEN gk_status gk_fail(gk_status status, const char *fmt, ...) GK_PRINTF(2, 3);

/* Empty the calling thread's message. */
GK_HIDDEN void gk_clear_error_now(void);

/* Clear the calling thread's message at the start of a public call: after a successful call
 * gk_last_error() is "". */
#if !defined(__cplusplus) && !defined(__STDC_NO_ATOMICS__)
#include <stdatomic.h>
/* Set, once and for good, by the first failure on any thread. Until then no thread holds a
 * message, so a call skips the clear: the message is a thread-local variable in a library that
 * may be dlopen'ed, reached through a TLS descriptor call, and clearing it unconditionally was a
 * visible part of a 1^3 call (docs/cpu.md, "Per-call overhead"). A thread's own failure sets the
 * flag before its next call reads it (program order), so no thread ever keeps a stale message.
 * (C++, the CUDA host code, takes the out-of-line clear.) */
GK_HIDDEN extern atomic_int gk_error_seen;
static inline void gk_clear_error(void) {
    if (atomic_load_explicit(&gk_error_seen, memory_order_relaxed)) gk_clear_error_now();
}
#else
static inline void gk_clear_error(void) {
    gk_clear_error_now();
}
#endif

/* A GEMM problem after validation, normalised to column-major: C (m x n, ldc) =
 * alpha * op(A) * op(B) + beta * C where transa/transb are 0/1 and lda/ldb refer to the stored
 * (column-major) matrices. A row-major problem is the column-major problem C^T = op(B)^T op(A)^T,
 * so the normalisation swaps A/B and m/n; it never copies data. */
typedef struct gk_gemm_args {
    int64_t m, n, k;
    int transa, transb; /* 1: the stored matrix is op()'s transpose */
    float alpha, beta;
    const float *a, *b;
    float *c;
    int64_t lda, ldb, ldc;
} gk_gemm_args;

/* The column-major form of a valid call: a row-major C = op(A) op(B) is the column-major
 * C^T = op(B)^T op(A)^T, and the row-major arrays read as column-major already are those
 * transposes, so only the roles of A and B (and of m and n) swap. */
static inline void gk_gemm_normalise(gk_layout layout, gk_trans transa, gk_trans transb, int64_t m,
                                     int64_t n, int64_t k, float alpha, const float *a, int64_t lda,
                                     const float *b, int64_t ldb, float beta, float *c, int64_t ldc,
                                     gk_gemm_args *out) {
    const int ta = transa != GK_NO_TRANS, tb = transb != GK_NO_TRANS;
    out->k = k;
    out->alpha = alpha;
    out->beta = beta;
    out->c = c;
    out->ldc = ldc;
    if (layout != GK_ROW_MAJOR) {
        out->m = m, out->n = n;
        out->a = a, out->lda = lda, out->transa = ta;
        out->b = b, out->ldb = ldb, out->transb = tb;
    } else {
        out->m = n, out->n = m;
        out->a = b, out->lda = ldb, out->transa = tb;
        out->b = a, out->ldb = lda, out->transb = ta;
    }
}

/* [lo, hi) of `count` items for part `id` of `parts`, as even as possible (the first count % parts
 * parts get one more): threads' shares on the CPU, a distributed GEMM's blocks on the GPUs. */
static inline void gk_split(int64_t count, int parts, int id, int64_t *lo, int64_t *hi) {
    int64_t base = count / parts, extra = count % parts;
    *lo = id * base + (id < extra ? id : extra);
    *hi = *lo + base + (id < extra);
}

/* ceil(a / b) for a >= 0 and b > 0, where a + b - 1 does not overflow (sizes that passed the
 * argument checks); the sizes of blocks, panels and tiles in the CPU code. Values a caller gave
 * that no check has bounded yet take the form a / b + (a % b != 0) instead. */
static inline int64_t gk_ceil_div64(int64_t a, int64_t b) {
    return (a + b - 1) / b;
}

static inline int64_t gk_min64(int64_t a, int64_t b) {
    return a < b ? a : b;
}

/* Bytes spanned by a column-major rows x cols matrix of `size`-byte elements with leading
 * dimension ld, or -1 on overflow. The span is ((cols - 1) * ld + rows) elements; it must fit in
 * a ptrdiff_t. Checked with the overflow builtins: the three 64-bit divisions this took before
 * were a fifth of a 4x4x4 call. */
static inline int64_t gk_span_bytes_of(int64_t rows, int64_t cols, int64_t ld, int64_t size) {
    if (rows == 0 || cols == 0) return 0;
    int64_t elems, bytes;
    if (__builtin_mul_overflow(cols - 1, ld, &elems) ||
        __builtin_add_overflow(elems, rows, &elems) ||
        __builtin_mul_overflow(elems, size, &bytes) || bytes > PTRDIFF_MAX)
        return -1;
    return bytes;
}

/* The same for float elements. */
static inline int64_t gk_span_bytes(int64_t rows, int64_t cols, int64_t ld) {
    return gk_span_bytes_of(rows, cols, ld, (int64_t)sizeof(float));
}

/* The ordered checks (args.c): the first bad argument in the order of gk_check_gemm, with its
 * message; on success the call is normalised into `out`. */
GK_HIDDEN gk_status gk_check_gemm_slow(const char *who, gk_layout layout, gk_trans transa,
                                       gk_trans transb, int64_t m, int64_t n, int64_t k,
                                       float alpha, const float *a, int64_t lda, const float *b,
                                       int64_t ldb, float beta, float *c, int64_t ldc,
                                       gk_gemm_args *out);

/* The ordered checks for operands of other element sizes (bytes per element of the caller's A, B
 * and C; the mixed-precision entry point): the same order, statuses and messages, the overflow
 * checks in bytes of those sizes. `out` receives the caller's pointers (as float pointers: only
 * their values are carried). */
GK_HIDDEN gk_status gk_check_gemm_sized(const char *who, gk_layout layout, gk_trans transa,
                                        gk_trans transb, int64_t m, int64_t n, int64_t k,
                                        float alpha, const void *a, int64_t lda, const void *b,
                                        int64_t ldb, float beta, void *c, int64_t ldc, int a_size,
                                        int b_size, int c_size, gk_gemm_args *out);

/* Check every argument in the fixed order layout, transa, transb, m, n, k, lda, ldb, ldc,
 * pointers, byte overflow; on success fill `out` (column-major normalised). On failure return the
 * status with a message naming the argument (as the caller named it, e.g. "lda") and leave `out`
 * unspecified. `who` prefixes the message ("gk_sgemm").
 *
 * Inline, so that a plainly valid call (known enums, every size and leading dimension in
 * [0, 2^30), each leading dimension at least the extent it must cover, no NULL pointer) costs a
 * few branch-free tests in the caller: a call through the full checks, with their 15 arguments
 * partly on the stack, was a visible part of a 4x4x4 call. The test is stricter than the ordered
 * checks, never looser (below 2^30 no span can overflow: (2^30)^2 floats is 2^62 bytes); whatever
 * it rejects goes to gk_check_gemm_slow, which may still accept it (huge sizes, a NULL operand that
 * is never read) or name the culprit. */
static inline gk_status gk_check_gemm(const char *who, gk_layout layout, gk_trans transa,
                                      gk_trans transb, int64_t m, int64_t n, int64_t k, float alpha,
                                      const float *a, int64_t lda, const float *b, int64_t ldb,
                                      float beta, float *c, int64_t ldc, gk_gemm_args *out) {
    const int row = layout == GK_ROW_MAJOR;
    const int ta = transa != GK_NO_TRANS, tb = transb != GK_NO_TRANS;
    const int64_t a_min = row == ta ? m : k, b_min = row == tb ? k : n, c_min = row ? n : m;
    const int layout_ok = (layout == GK_COL_MAJOR) | row;
    /* subtracted as unsigned: any int may arrive, and INT_MIN - 111 would overflow an int */
    const int trans_ok =
        ((unsigned)transa - (unsigned)GK_NO_TRANS <= (unsigned)(GK_CONJ_TRANS - GK_NO_TRANS)) &
        ((unsigned)transb - (unsigned)GK_NO_TRANS <= (unsigned)(GK_CONJ_TRANS - GK_NO_TRANS));
    const int sizes_ok = (uint64_t)(m | n | k | lda | ldb | ldc) < ((uint64_t)1 << 30);
    const int lds_ok =
        (lda >= a_min) & (ldb >= b_min) & (ldc >= c_min) & (lda > 0) & (ldb > 0) & (ldc > 0);
    const int ptrs_ok = (a != NULL) & (b != NULL) & (c != NULL);
    if (!(layout_ok & trans_ok & sizes_ok & lds_ok & ptrs_ok))
        return gk_check_gemm_slow(who, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta,
                                  c, ldc, out);
    gk_gemm_normalise(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, out);
    return GK_SUCCESS;
}

/* 1 when the call reduces to C = beta * C (or nothing), so A and B are never read. */
static inline int gk_gemm_is_scale_only(const gk_gemm_args *g) {
    return g->k == 0 || g->alpha == 0.0f;
}

#ifdef __cplusplus
}
#endif

#endif
