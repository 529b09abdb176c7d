/*
 * cblas_abi.h — the standard BLAS entry points gemmkit exports (Fortran sgemm_/xerbla_, CBLAS
 * cblas_sgemm/cblas_xerbla, and MKL's / OpenBLAS's cblas_sgemm_batch and
 * cblas_sgemm_batch_strided), declared here so gemmkit needs no system cblas.h. The enum values
 * are those of netlib cblas.h, so a program compiled against any cblas.h calls these directly.
 * Private to the library and its tests; programs use their own BLAS headers.
 */
#ifndef GK_BLAS_CBLAS_ABI_H
#define GK_BLAS_CBLAS_ABI_H

#include <stdatomic.h>
#include <stddef.h>

#include "core/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

enum CBLAS_ORDER { CblasRowMajor = 101, CblasColMajor = 102 };
enum CBLAS_TRANSPOSE { CblasNoTrans = 111, CblasTrans = 112, CblasConjTrans = 113 };

/* Fortran ABI: every argument by reference, then one hidden length per CHARACTER argument,
 * which gemmkit ignores (only the first character is significant). */
GK_API void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
                   const float *alpha, const float *a, const int *lda, const float *b,
                   const int *ldb, const float *beta, float *c, const int *ldc, size_t transa_len,
                   size_t transb_len);

/* Error handler called with the routine name ("SGEMM ", blank padded) and the 1-based position of
 * the first illegal argument. gemmkit's definition is weak: a program's own xerbla_ replaces it. */
GK_API void xerbla_(const char *srname, const int *info, size_t srname_len);

GK_API void cblas_sgemm(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE transa,
                        enum CBLAS_TRANSPOSE transb, int m, int n, int k, float alpha,
                        const float *a, int lda, const float *b, int ldb, float beta, float *c,
                        int ldc);

/* CBLAS error handler, weak as xerbla_. As in reference CBLAS, for a row-major call the position
 * passed is that of the equivalent column-major call (A/B and M/N swapped: 4<->5, 9<->11), which a
 * handler translates back; gemmkit's default handler does. */
GK_API void cblas_xerbla(int p, const char *rout, const char *form, ...);

/* Shared by sgemm_ and cblas_sgemm: reference SGEMM's argument check. Returns 0 or the Fortran
 * position of the first illegal argument (1 transa, 2 transb, 3 m, 4 n, 5 k, 8 lda, 10 ldb,
 * 13 ldc), in that order. */
GK_HIDDEN int gk_blas_sgemm_info(char transa, char transb, int m, int n, int k, int lda, int ldb,
                                 int ldc);

/* Batched CBLAS entry points of MKL and OpenBLAS (cblas_sgemm_batch.c), with their exact
 * signatures (blasint / MKL_INT is int in the LP64 interface). cblas_sgemm_batch: group g has
 * group_size[g] items sharing transa_array[g] ... ldc_array[g]; its items' pointers follow those of
 * group g-1 in a_array, b_array, c_array. Illegal arguments go to cblas_xerbla with their position
 * in these argument lists (see cblas_sgemm_batch.c). */
GK_API void cblas_sgemm_batch(enum CBLAS_ORDER order, const enum CBLAS_TRANSPOSE *transa_array,
                              const enum CBLAS_TRANSPOSE *transb_array, const int *m_array,
                              const int *n_array, const int *k_array, const float *alpha_array,
                              const float **a_array, const int *lda_array, const float **b_array,
                              const int *ldb_array, const float *beta_array, float **c_array,
                              const int *ldc_array, int group_count, const int *group_size);
GK_API void cblas_sgemm_batch_strided(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE transa,
                                      enum CBLAS_TRANSPOSE transb, int m, int n, int k, float alpha,
                                      const float *a, int lda, int stridea, const float *b, int ldb,
                                      int strideb, float beta, float *c, int ldc, int stridec,
                                      int batch_size);

/* GEMMKIT_VERBOSE, read once per process; when set, the first call through `who` (flag `logged`,
 * one per entry point) prints one line, so users and tests can see the drop-in is in use. */
GK_HIDDEN int gk_blas_verbose(const char *who, atomic_int *logged);

/* Shared by sgemm_ and cblas_sgemm once the check passed: reference SGEMM's quick return, then
 * the column-major gk_sgemm call. BLAS has no status to return, so a failure gk_sgemm still finds
 * (NULL pointer, out of memory) leaves C untouched, keeps gk_last_error() and is printed only
 * under GEMMKIT_VERBOSE (with gk_blas_verbose's line). */
GK_HIDDEN void gk_blas_sgemm_run(const char *who, atomic_int *logged, char transa, char transb,
                                 int m, int n, int k, float alpha, const float *a, int lda,
                                 const float *b, int ldb, float beta, float *c, int ldc);

#ifdef __cplusplus
}
#endif

#endif
