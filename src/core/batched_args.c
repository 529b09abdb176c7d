/*
 * batched_args.c — the argument checks of the batched SGEMM calls (batched.h). Each item is a
 * gk_sgemm call, so item 0 goes through gk_check_gemm; what is added is the batch count, the
 * strides, and the rule that written C items are disjoint. The disjointness test is the simple
 * sufficient one (stride_c >= one item's extent): it also refuses interleaved layouts whose items
 * would not collide, which no batched GEMM user needs and which would make each item's writes
 * hard to reason about.
 */
#include "core/batched.h"

static gk_status negative(const char *who, const char *name, int64_t v) {
    return gk_fail(GK_ERR_INVALID_VALUE, "%s: %s=%lld is negative", who, name, (long long)v);
}

/* Bytes from the first item's start to the last item's end for one operand of `span` bytes, or -1
 * on overflow. */
static int64_t batch_bytes(int64_t span, int64_t stride, int64_t batch) {
    if (span == 0) return 0;
    int64_t off;
    if (__builtin_mul_overflow(batch - 1, stride, &off) ||
        __builtin_mul_overflow(off, (int64_t)sizeof(float), &off) ||
        __builtin_add_overflow(off, span, &off) || off > PTRDIFF_MAX)
        return -1;
    return off;
}

gk_status gk_check_strided_batched(const char *who, gk_layout layout, gk_trans transa,
                                   gk_trans transb, int64_t m, int64_t n, int64_t k, float alpha,
                                   const float *a, int64_t lda, int64_t stride_a, const float *b,
                                   int64_t ldb, int64_t stride_b, float beta, float *c, int64_t ldc,
                                   int64_t stride_c, int64_t batch, gk_gemm_args *g,
                                   gk_batch_extent *ext) {
    ext->a = ext->b = ext->c = 0;
    if (batch < 0) return negative(who, "batch", batch);
    if (batch == 0) {
        g->m = g->n = g->k = 0;
        return GK_SUCCESS;
    }
    gk_status st =
        gk_check_gemm(who, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, g);
    if (st != GK_SUCCESS) return st;
    if (stride_a < 0) return negative(who, "stride_a", stride_a);
    if (stride_b < 0) return negative(who, "stride_b", stride_b);
    if (stride_c < 0) return negative(who, "stride_c", stride_c);
    if (g->m == 0 || g->n == 0) return GK_SUCCESS;       /* nothing is read or written */
    const int64_t extent_c = (g->n - 1) * g->ldc + g->m; /* fits: gk_check_gemm checked C's span */
    if (batch > 1 && stride_c < extent_c)
        return gk_fail(GK_ERR_INVALID_VALUE,
                       "%s: stride_c=%lld is less than one C item's extent, %lld elements "
                       "(ldc * (columns - 1) + rows): items would overlap",
                       who, (long long)stride_c, (long long)extent_c);
    /* Spans of the normalised operands, then named as the caller passed them. */
    const int reads = !gk_gemm_is_scale_only(g);
    const int64_t span_na =
        reads ? (g->transa ? gk_span_bytes(g->k, g->m, g->lda) : gk_span_bytes(g->m, g->k, g->lda))
              : 0;
    const int64_t span_nb =
        reads ? (g->transb ? gk_span_bytes(g->n, g->k, g->ldb) : gk_span_bytes(g->k, g->n, g->ldb))
              : 0;
    const int row = layout == GK_ROW_MAJOR;
    ext->a = batch_bytes(row ? span_nb : span_na, stride_a, batch);
    ext->b = batch_bytes(row ? span_na : span_nb, stride_b, batch);
    ext->c = batch_bytes(gk_span_bytes(g->m, g->n, g->ldc), stride_c, batch);
    const char *over = ext->a < 0 ? "a" : ext->b < 0 ? "b" : ext->c < 0 ? "c" : NULL;
    if (over != NULL)
        return gk_fail(GK_ERR_OVERFLOW,
                       "%s: %s's batch (batch=%lld, stride_%s=%lld) overflows the address space",
                       who, over, (long long)batch, over,
                       (long long)(*over == 'a'   ? stride_a
                                   : *over == 'b' ? stride_b
                                                  : stride_c));
    return GK_SUCCESS;
}

gk_status gk_check_ptr_batched(const char *who, gk_layout layout, gk_trans transa, gk_trans transb,
                               int64_t m, int64_t n, int64_t k, float alpha, const void *a,
                               int64_t lda, const void *b, int64_t ldb, float beta, const void *c,
                               int64_t ldc, int64_t batch, gk_gemm_args *g) {
    if (batch < 0) return negative(who, "batch", batch);
    if (batch == 0) {
        g->m = g->n = g->k = 0;
        return GK_SUCCESS;
    }
    if (a == NULL)
        return gk_fail(GK_ERR_NULL_POINTER, "%s: a (the array of A pointers) is NULL", who);
    if (b == NULL)
        return gk_fail(GK_ERR_NULL_POINTER, "%s: b (the array of B pointers) is NULL", who);
    if (c == NULL)
        return gk_fail(GK_ERR_NULL_POINTER, "%s: c (the array of C pointers) is NULL", who);
    /* The arrays stand in for the items' pointers: only the shared arguments are checked here. */
    return gk_check_gemm(who, layout, transa, transb, m, n, k, alpha, (const float *)a, lda,
                         (const float *)b, ldb, beta, (float *)c, ldc, g);
}
