/*
 * cblas_sgemm.c — the CBLAS drop-in cblas_sgemm and its default cblas_xerbla. Errors are numbered
 * as reference CBLAS numbers them (the netlib CBLAS tester, xscblat3, checks the numbers): order
 * 1, TransA 2, TransB 3, then the column-major SGEMM check shifted by one; a row-major call is
 * checked as the column-major call it becomes (A/B and M/N swapped), positions included.
 */
#include "blas/cblas_abi.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Set only while a row-major cblas_sgemm reports an error, so the default handler can name the
 * argument the caller actually passed (reference CBLAS keeps a process-wide flag for this; a
 * thread-local one keeps concurrent callers apart). */
static _Thread_local int reporting_row_major;

static char trans_char(enum CBLAS_TRANSPOSE t) {
    switch (t) {
    case CblasNoTrans:
        return 'N';
    case CblasTrans:
        return 'T';
    case CblasConjTrans:
        return 'C';
    }
    return 0;
}

void cblas_sgemm(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE transa, enum CBLAS_TRANSPOSE transb,
                 int m, int n, int k, float alpha, const float *a, int lda, const float *b, int ldb,
                 float beta, float *c, int ldc) {
    static atomic_int logged;
    const char ta = trans_char(transa), tb = trans_char(transb);
    int info = 0;
    if (order != CblasColMajor && order != CblasRowMajor) {
        info = 1;
    } else if (!ta) {
        info = 2;
    } else if (!tb) {
        info = 3;
    } else {
        const int f77 = order == CblasColMajor ? gk_blas_sgemm_info(ta, tb, m, n, k, lda, ldb, ldc)
                                               : gk_blas_sgemm_info(tb, ta, n, m, k, ldb, lda, ldc);
        /* Positions past the order argument are the Fortran ones plus one. */
        if (f77) info = f77 + 1;
    }
    if (info) {
        reporting_row_major = order == CblasRowMajor;
        if (info == 1)
            cblas_xerbla(1, "cblas_sgemm", "Illegal layout setting, %d\n", (int)order);
        else if (info == 2)
            cblas_xerbla(2, "cblas_sgemm", "Illegal TransA setting, %d\n", (int)transa);
        else if (info == 3)
            cblas_xerbla(3, "cblas_sgemm", "Illegal TransB setting, %d\n", (int)transb);
        else
            cblas_xerbla(info, "cblas_sgemm", "");
        reporting_row_major = 0;
        return;
    }
    if (order == CblasColMajor)
        gk_blas_sgemm_run("cblas_sgemm", &logged, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                          ldc);
    else
        gk_blas_sgemm_run("cblas_sgemm", &logged, tb, ta, n, m, k, alpha, b, ldb, a, lda, beta, c,
                          ldc);
}

/* Reference cblas_xerbla prints this and exits; a library must not end the program, so this one
 * returns. Called through the dynamic symbol, so a program's own cblas_xerbla takes over. */
__attribute__((weak)) void cblas_xerbla(int p, const char *rout, const char *form, ...) {
    if (reporting_row_major && strstr(rout, "gemm")) {
        /* Undo the row-major swap so the message names the caller's argument. */
        static const int caller_pos[15] = {0, 1, 2, 3, 5, 4, 6, 7, 8, 11, 10, 9, 12, 13, 14};
        if (p > 0 && p < 15) p = caller_pos[p];
    }
    if (p) fprintf(stderr, "Parameter %d to routine %s was incorrect\n", p, rout);
    va_list ap;
    va_start(ap, form);
    vfprintf(stderr, form, ap);
    va_end(ap);
}
