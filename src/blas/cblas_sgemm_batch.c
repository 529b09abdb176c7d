/*
 * cblas_sgemm_batch.c — the batched CBLAS drop-ins of MKL and OpenBLAS: cblas_sgemm_batch (groups
 * of pointer-array items, each group with its own shape and scalars) on gk_sgemm_batched, and
 * cblas_sgemm_batch_strided on gk_sgemm_strided_batched.
 *
 * Errors: every argument is checked before any C is written, and the first illegal one goes to
 * cblas_xerbla (as cblas_sgemm's do) with its 1-based position in the caller's argument list; the
 * message names the group. Unlike cblas_sgemm there is no reference tester fixing row-major
 * positions at those of the column-major call, so row-major calls report the caller's positions
 * too. OpenBLAS reports through xerbla_ ("SGEMM_BATCH ", SGEMM's positions); MKL leaves it
 * unspecified; the caller's own position is the one a user can act on. Failures no argument
 * check can see (a NULL item pointer, out of memory) behave as in cblas_sgemm: C untouched,
 * gk_last_error() set, printed only under GEMMKIT_VERBOSE.
 */
#include "blas/cblas_abi.h"

#include <stdint.h>
#include <stdio.h>

/* The transposition as gemmkit's, or -1 when it is not a CBLAS value. */
static int gk_trans_of(enum CBLAS_TRANSPOSE t) {
    return t == CblasNoTrans ? GK_NO_TRANS : t == CblasTrans || t == CblasConjTrans ? GK_TRANS : -1;
}

/* SGEMM's size and leading-dimension check for one shape, in the caller's layout. Returns 0 or
 * the cblas_sgemm position of the first illegal argument among m 4, n 5, k 6, lda 9, ldb 11,
 * ldc 14, in the caller's argument order (the entry points map these to their own lists). */
static int shape_info(enum CBLAS_ORDER order, int ta, int tb, int m, int n, int k, int lda, int ldb,
                      int ldc) {
    const char fa = ta == GK_NO_TRANS ? 'N' : 'T', fb = tb == GK_NO_TRANS ? 'N' : 'T';
    /* A row-major call is the column-major call with A/B and M/N swapped. */
    const int row = order == CblasRowMajor;
    const int f77 = row ? gk_blas_sgemm_info(fb, fa, n, m, k, ldb, lda, ldc)
                        : gk_blas_sgemm_info(fa, fb, m, n, k, lda, ldb, ldc);
    /* Fortran positions 3 m, 4 n, 5 k, 8 lda, 10 ldb, 13 ldc. */
    switch (f77) {
    case 0:
        return 0;
    case 3:
        return row ? 5 : 4;
    case 4:
        return row ? 4 : 5;
    case 5:
        return 6;
    case 8:
        return row ? 11 : 9;
    case 10:
        return row ? 9 : 11;
    default:
        return 14;
    }
}

static const char *const shape_name[15] = {
    [4] = "M", [5] = "N", [6] = "K", [9] = "lda", [11] = "ldb", [14] = "ldc"};

/* Reference SGEMM's quick return: nothing to compute and C not even read. */
static int nothing_to_do(int m, int n, int k, float alpha, float beta) {
    return m == 0 || n == 0 || ((alpha == 0.0f || k == 0) && beta == 1.0f);
}

/* Where a group's parameter array is NULL, the position of the first such array, else 0. */
static int null_param_array(const void *const arrays[], const int positions[], int count) {
    for (int i = 0; i < count; i++)
        if (arrays[i] == NULL) return positions[i];
    return 0;
}

static void report_failure(int verbose, const char *who, gk_status st) {
    if (st != GK_SUCCESS && verbose)
        fprintf(stderr, "gemmkit: %s failed: %s (%s)\n", who, gk_status_string(st),
                gk_last_error());
}

/* Groups run one after another, each as one gk_sgemm_batched call. That call already deals a
 * group's items out to all threads (or gives one large item all of them), so a single group — the
 * common case, and every strided batch — loses nothing; with several groups the cost is one
 * fork/join per group, small beside the group's items at the sizes where batching is used, and the
 * items of different groups never share one thread's range, which keeps the per-item planning
 * that gk_sgemm_batched does in one place. */
void cblas_sgemm_batch(enum CBLAS_ORDER order, const enum CBLAS_TRANSPOSE *transa_array,
                       const enum CBLAS_TRANSPOSE *transb_array, const int *m_array,
                       const int *n_array, const int *k_array, const float *alpha_array,
                       const float **a_array, const int *lda_array, const float **b_array,
                       const int *ldb_array, const float *beta_array, float **c_array,
                       const int *ldc_array, int group_count, const int *group_size) {
    static const char who[] = "cblas_sgemm_batch";
    static atomic_int logged;
    if (order != CblasColMajor && order != CblasRowMajor) {
        cblas_xerbla(1, who, "Illegal layout setting, %d\n", (int)order);
        return;
    }
    if (group_count < 0) {
        cblas_xerbla(15, who, "Illegal group_count, %d\n", group_count);
        return;
    }
    if (group_count == 0) return;
    const void *const params[] = {transa_array, transb_array, m_array,   n_array,
                                  k_array,      alpha_array,  lda_array, ldb_array,
                                  beta_array,   ldc_array,    group_size};
    static const int param_pos[] = {2, 3, 4, 5, 6, 7, 9, 11, 12, 14, 16};
    const int null_pos = null_param_array(params, param_pos, (int)(sizeof param_pos / sizeof(int)));
    if (null_pos) {
        cblas_xerbla(null_pos, who, "Illegal NULL array\n");
        return;
    }
    int64_t total = 0;
    for (int g = 0; g < group_count; g++) {
        const int ta = gk_trans_of(transa_array[g]), tb = gk_trans_of(transb_array[g]);
        if (ta < 0) {
            cblas_xerbla(2, who, "Illegal TransA setting %d in group %d\n", (int)transa_array[g],
                         g);
            return;
        }
        if (tb < 0) {
            cblas_xerbla(3, who, "Illegal TransB setting %d in group %d\n", (int)transb_array[g],
                         g);
            return;
        }
        const int pos = shape_info(order, ta, tb, m_array[g], n_array[g], k_array[g], lda_array[g],
                                   ldb_array[g], ldc_array[g]);
        if (pos) {
            cblas_xerbla(pos, who, "Illegal %s in group %d\n", shape_name[pos], g);
            return;
        }
        if (group_size[g] < 0) {
            cblas_xerbla(16, who, "Illegal group_size %d in group %d\n", group_size[g], g);
            return;
        }
        total += group_size[g];
    }
    if (total > 0 && (a_array == NULL || b_array == NULL || c_array == NULL)) {
        cblas_xerbla(a_array == NULL ? 8 : b_array == NULL ? 10 : 13, who, "Illegal NULL array\n");
        return;
    }
    const int verbose = gk_blas_verbose(who, &logged);
    const gk_layout layout = order == CblasRowMajor ? GK_ROW_MAJOR : GK_COL_MAJOR;
    int64_t first = 0;
    for (int g = 0; g < group_count; first += group_size[g], g++) {
        if (group_size[g] == 0 ||
            nothing_to_do(m_array[g], n_array[g], k_array[g], alpha_array[g], beta_array[g]))
            continue;
        const gk_status st = gk_sgemm_batched(
            layout, (gk_trans)gk_trans_of(transa_array[g]), (gk_trans)gk_trans_of(transb_array[g]),
            m_array[g], n_array[g], k_array[g], alpha_array[g], a_array + first, lda_array[g],
            b_array + first, ldb_array[g], beta_array[g], c_array + first, ldc_array[g],
            group_size[g]);
        report_failure(verbose, who, st);
    }
}

void cblas_sgemm_batch_strided(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE transa,
                               enum CBLAS_TRANSPOSE transb, int m, int n, int k, float alpha,
                               const float *a, int lda, int stridea, const float *b, int ldb,
                               int strideb, float beta, float *c, int ldc, int stridec,
                               int batch_size) {
    static const char who[] = "cblas_sgemm_batch_strided";
    static atomic_int logged;
    const int ta = gk_trans_of(transa), tb = gk_trans_of(transb);
    if (order != CblasColMajor && order != CblasRowMajor) {
        cblas_xerbla(1, who, "Illegal layout setting, %d\n", (int)order);
        return;
    }
    if (ta < 0) {
        cblas_xerbla(2, who, "Illegal TransA setting, %d\n", (int)transa);
        return;
    }
    if (tb < 0) {
        cblas_xerbla(3, who, "Illegal TransB setting, %d\n", (int)transb);
        return;
    }
    /* cblas_sgemm's positions in this longer list: the strides follow each leading dimension. */
    static const int strided_pos[15] = {[4] = 4, [5] = 5, [6] = 6, [9] = 9, [11] = 12, [14] = 16};
    const int pos = shape_info(order, ta, tb, m, n, k, lda, ldb, ldc);
    if (pos) {
        cblas_xerbla(strided_pos[pos], who, "Illegal %s\n", shape_name[pos]);
        return;
    }
    /* Items of C must not overlap (they are written concurrently); A and B items may (a stride of
     * 0 shares one matrix across the batch). */
    const int64_t extent_c = m == 0 || n == 0         ? 0
                             : order == CblasColMajor ? (int64_t)(n - 1) * ldc + m
                                                      : (int64_t)(m - 1) * ldc + n;
    const int bad_stride = stridea < 0 ? 10 : strideb < 0 ? 13 : stridec < 0 ? 17 : 0;
    if (bad_stride) {
        cblas_xerbla(bad_stride, who, "Illegal negative stride\n");
        return;
    }
    if (batch_size > 1 && stridec < extent_c) {
        cblas_xerbla(17, who, "Illegal stridec %d: less than one C item's extent, %lld\n", stridec,
                     (long long)extent_c);
        return;
    }
    if (batch_size < 0) {
        cblas_xerbla(18, who, "Illegal batch_size, %d\n", batch_size);
        return;
    }
    const int verbose = gk_blas_verbose(who, &logged);
    if (batch_size == 0 || nothing_to_do(m, n, k, alpha, beta)) return;
    const gk_status st = gk_sgemm_strided_batched(
        order == CblasRowMajor ? GK_ROW_MAJOR : GK_COL_MAJOR, (gk_trans)ta, (gk_trans)tb, m, n, k,
        alpha, a, lda, stridea, b, ldb, strideb, beta, c, ldc, stridec, batch_size);
    report_failure(verbose, who, st);
}
