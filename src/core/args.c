/*
 * args.c — the ordered argument checks behind gk_check_gemm (internal.h) for every SGEMM entry
 * point (CPU and CUDA), so both report the same status and message for the same mistake. The
 * shortcut for plainly valid calls and the normalisation to column-major are inline in
 * internal.h. The mixed-precision entry point runs the same checks with its operands' element
 * sizes (gk_check_gemm_sized).
 */
#include "internal.h"

#include <stddef.h>
#include <stdint.h>

static int trans_ok(gk_trans t) {
    return t == GK_NO_TRANS || t == GK_TRANS || t == GK_CONJ_TRANS;
}

/* The first failing argument in a fixed order, with its message; GK_SUCCESS if none. */
static gk_status find_error(const char *who, gk_layout layout, gk_trans transa, gk_trans transb,
                            int64_t m, int64_t n, int64_t k, float alpha, const void *a,
                            int64_t lda, const void *b, int64_t ldb, const void *c, int64_t ldc,
                            int64_t a_size, int64_t b_size, int64_t c_size) {
    if (layout != GK_ROW_MAJOR && layout != GK_COL_MAJOR)
        return gk_fail(GK_ERR_INVALID_LAYOUT, "%s: layout=%d is not GK_ROW_MAJOR or GK_COL_MAJOR",
                       who, (int)layout);
    if (!trans_ok(transa))
        return gk_fail(GK_ERR_INVALID_TRANS, "%s: transa=%d is not a gk_trans value", who,
                       (int)transa);
    if (!trans_ok(transb))
        return gk_fail(GK_ERR_INVALID_TRANS, "%s: transb=%d is not a gk_trans value", who,
                       (int)transb);
    if (m < 0) return gk_fail(GK_ERR_INVALID_SIZE, "%s: m=%lld is negative", who, (long long)m);
    if (n < 0) return gk_fail(GK_ERR_INVALID_SIZE, "%s: n=%lld is negative", who, (long long)n);
    if (k < 0) return gk_fail(GK_ERR_INVALID_SIZE, "%s: k=%lld is negative", who, (long long)k);

    const int ta = transa != GK_NO_TRANS, tb = transb != GK_NO_TRANS;
    const int row = layout == GK_ROW_MAJOR;
    /* Stored shapes (rows x cols in the caller's layout). The leading dimension must cover the
     * contiguous extent: rows for column-major, cols for row-major; at least 1 as in BLAS. */
    const int64_t a_rows = ta ? k : m, a_cols = ta ? m : k;
    const int64_t b_rows = tb ? n : k, b_cols = tb ? k : n;
    const int64_t a_min = row ? a_cols : a_rows;
    const int64_t b_min = row ? b_cols : b_rows;
    const int64_t c_min = row ? n : m;
    if (lda < (a_min > 1 ? a_min : 1))
        return gk_fail(GK_ERR_INVALID_LD, "%s: lda=%lld must be >= max(1, %lld) for %s A", who,
                       (long long)lda, (long long)a_min, ta ? "transposed" : "non-transposed");
    if (ldb < (b_min > 1 ? b_min : 1))
        return gk_fail(GK_ERR_INVALID_LD, "%s: ldb=%lld must be >= max(1, %lld) for %s B", who,
                       (long long)ldb, (long long)b_min, tb ? "transposed" : "non-transposed");
    if (ldc < (c_min > 1 ? c_min : 1))
        return gk_fail(GK_ERR_INVALID_LD, "%s: ldc=%lld must be >= max(1, %lld)", who,
                       (long long)ldc, (long long)c_min);

    const int empty = m == 0 || n == 0;
    const int reads_ab = !empty && k > 0 && alpha != 0.0f;
    if (!empty && c == NULL) return gk_fail(GK_ERR_NULL_POINTER, "%s: c is NULL", who);
    if (reads_ab && a == NULL) return gk_fail(GK_ERR_NULL_POINTER, "%s: a is NULL", who);
    if (reads_ab && b == NULL) return gk_fail(GK_ERR_NULL_POINTER, "%s: b is NULL", who);

    /* Column-major view of each stored matrix: (contiguous extent) x (other extent). */
    if (gk_span_bytes_of(row ? a_cols : a_rows, row ? a_rows : a_cols, lda, a_size) < 0)
        return gk_fail(GK_ERR_OVERFLOW, "%s: a (%lld x %lld, lda=%lld) overflows the address space",
                       who, (long long)a_rows, (long long)a_cols, (long long)lda);
    if (gk_span_bytes_of(row ? b_cols : b_rows, row ? b_rows : b_cols, ldb, b_size) < 0)
        return gk_fail(GK_ERR_OVERFLOW, "%s: b (%lld x %lld, ldb=%lld) overflows the address space",
                       who, (long long)b_rows, (long long)b_cols, (long long)ldb);
    if (gk_span_bytes_of(row ? n : m, row ? m : n, ldc, c_size) < 0)
        return gk_fail(GK_ERR_OVERFLOW, "%s: c (%lld x %lld, ldc=%lld) overflows the address space",
                       who, (long long)m, (long long)n, (long long)ldc);
    return GK_SUCCESS;
}

gk_status gk_check_gemm_slow(const char *who, gk_layout layout, gk_trans transa, gk_trans transb,
                             int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                             int64_t lda, const float *b, int64_t ldb, float beta, float *c,
                             int64_t ldc, gk_gemm_args *out) {
    const gk_status s = find_error(who, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, c,
                                   ldc, sizeof(float), sizeof(float), sizeof(float));
    if (s == GK_SUCCESS)
        gk_gemm_normalise(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
                          out);
    return s;
}

gk_status gk_check_gemm_sized(const char *who, gk_layout layout, gk_trans transa, gk_trans transb,
                              int64_t m, int64_t n, int64_t k, float alpha, const void *a,
                              int64_t lda, const void *b, int64_t ldb, float beta, void *c,
                              int64_t ldc, int a_size, int b_size, int c_size, gk_gemm_args *out) {
    const gk_status s = find_error(who, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, c,
                                   ldc, a_size, b_size, c_size);
    if (s == GK_SUCCESS)
        gk_gemm_normalise(layout, transa, transb, m, n, k, alpha, (const float *)a, lda,
                          (const float *)b, ldb, beta, (float *)c, ldc, out);
    return s;
}
