/*
 * cblas_abi.h — the standard BLAS entry points gemmkit exports (Fortran sgemm_/xerbla_ and CBLAS
 * cblas_sgemm/cblas_xerbla), declared here so gemmkit needs no system cblas.h. The enum values
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

/* Shared by sgemm_ and cblas_sgemm once the check passed: reference SGEMM's quick return, then
 * the column-major gk_sgemm call. BLAS has no status to return, so a failure gk_sgemm still finds
 * (NULL pointer, out of memory) leaves C untouched, keeps gk_last_error() and is printed only
 * under GEMMKIT_VERBOSE. Under GEMMKIT_VERBOSE the first call through `who` (flag `logged`, one
 * per entry point) also prints one line, so users and tests can see the drop-in is in use. */
GK_HIDDEN void gk_blas_sgemm_run(const char *who, atomic_int *logged, char transa, char transb,
                                 int m, int n, int k, float alpha, const float *a, int lda,
                                 const float *b, int ldb, float beta, float *c, int ldc);

#ifdef __cplusplus
}
#endif

#endif
