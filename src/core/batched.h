/*
 * batched.h — the argument checks of the batched SGEMM entry points (gk_sgemm_strided_batched,
 * gk_sgemm_batched and their CUDA forms), shared by the CPU and the CUDA backends so both refuse
 * the same calls with the same statuses and messages (docs/cuda.md, "Batched").
 */
#ifndef GK_CORE_BATCHED_H
#define GK_CORE_BATCHED_H

#include "core/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes from the first item's start to the last item's end, per operand as the caller names them
 * (0 for an operand the call does not touch). */
typedef struct gk_batch_extent {
    int64_t a, b, c;
} gk_batch_extent;

/* The checks of a strided batched call, in order: batch (>= 0), then item 0 as gk_check_gemm
 * (filling *g, normalised), the strides (>= 0), C items disjoint (stride_c at least one item's
 * extent when more than one item is written), and the whole batch within the address space
 * (*ext). batch == 0 returns GK_SUCCESS at once with g->m = g->n = 0. */
GK_HIDDEN gk_status gk_check_strided_batched(const char *who, gk_layout layout, gk_trans transa,
                                             gk_trans transb, int64_t m, int64_t n, int64_t k,
                                             float alpha, const float *a, int64_t lda,
                                             int64_t stride_a, const float *b, int64_t ldb,
                                             int64_t stride_b, float beta, float *c, int64_t ldc,
                                             int64_t stride_c, int64_t batch, gk_gemm_args *g,
                                             gk_batch_extent *ext);

/* The checks of a pointer-array call: batch (>= 0; 0 returns GK_SUCCESS with g->m = g->n = 0),
 * the arrays a, b, c (not NULL), then the shared arguments as gk_check_gemm (filling *g with the
 * arrays standing in for the items' pointers, which the caller replaces per item). */
GK_HIDDEN gk_status gk_check_ptr_batched(const char *who, gk_layout layout, gk_trans transa,
                                         gk_trans transb, int64_t m, int64_t n, int64_t k,
                                         float alpha, const void *a, int64_t lda, const void *b,
                                         int64_t ldb, float beta, const void *c, int64_t ldc,
                                         int64_t batch, gk_gemm_args *g);

/* Item pointers into a normalised call: the caller's a, b, c go where the normalisation of g
 * (row-major: A and B swapped) put them. */
static inline void gk_batch_item(gk_gemm_args *g, int row_major, const float *a, const float *b,
                                 float *c) {
    g->a = row_major ? b : a;
    g->b = row_major ? a : b;
    g->c = c;
}

#ifdef __cplusplus
}
#endif

#endif
