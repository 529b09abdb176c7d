/*
 * sgemm_f77.c — the Fortran-ABI drop-in sgemm_ (what libblas.so.3 exports), its default xerbla_,
 * and the argument check and dispatch that cblas_sgemm shares, so a program or a BLAS-linked
 * library (numpy, LAPACK) gets gemmkit through LD_PRELOAD or the libblas.so.3 alternative with
 * exactly the reference BLAS error numbering.
 */
#include "blas/cblas_abi.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static int lsame(char c, char upper) {
    return c == upper || c == upper - 'A' + 'a';
}

int gk_blas_sgemm_info(char transa, char transb, int m, int n, int k, int lda, int ldb, int ldc) {
    const int nota = lsame(transa, 'N'), notb = lsame(transb, 'N');
    const int nrowa = nota ? m : k, nrowb = notb ? k : n;
    if (!nota && !lsame(transa, 'T') && !lsame(transa, 'C')) return 1;
    if (!notb && !lsame(transb, 'T') && !lsame(transb, 'C')) return 2;
    if (m < 0) return 3;
    if (n < 0) return 4;
    if (k < 0) return 5;
    if (lda < (nrowa > 1 ? nrowa : 1)) return 8;
    if (ldb < (nrowb > 1 ? nrowb : 1)) return 10;
    if (ldc < (m > 1 ? m : 1)) return 13;
    return 0;
}

/* GEMMKIT_VERBOSE is read once; the BLAS entry points then say once per process that they ran,
 * which is how a user (or tests/blas, tests/python) sees that an LD_PRELOAD took effect. */
static pthread_once_t verbose_once = PTHREAD_ONCE_INIT;
static int verbose;
static void read_verbose(void) {
    const char *v = getenv("GEMMKIT_VERBOSE");
    verbose = v && *v && !(v[0] == '0' && v[1] == '\0');
}

int gk_blas_verbose(const char *who, atomic_int *logged) {
    pthread_once(&verbose_once, read_verbose);
    if (verbose) {
        if (!atomic_exchange(logged, 1))
            fprintf(stderr, "gemmkit: %s called (gemmkit %s BLAS interface)\n", who, gk_version());
    }
    return verbose;
}

void gk_blas_sgemm_run(const char *who, atomic_int *logged, char transa, char transb, int m, int n,
                       int k, float alpha, const float *a, int lda, const float *b, int ldb,
                       float beta, float *c, int ldc) {
    const int verbose = gk_blas_verbose(who, logged);
    /* Reference SGEMM's quick return: C is not even read. */
    if (m == 0 || n == 0 || ((alpha == 0.0f || k == 0) && beta == 1.0f)) return;
    const gk_trans ta = lsame(transa, 'N') ? GK_NO_TRANS : GK_TRANS;
    const gk_trans tb = lsame(transb, 'N') ? GK_NO_TRANS : GK_TRANS;
    gk_status st = gk_sgemm(GK_COL_MAJOR, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    if (st != GK_SUCCESS && verbose)
        fprintf(stderr, "gemmkit: %s failed: %s (%s)\n", who, gk_status_string(st),
                gk_last_error());
}

void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc, size_t transa_len, size_t transb_len) {
    static atomic_int logged;
    (void)transa_len, (void)transb_len;
    int info = gk_blas_sgemm_info(*transa, *transb, *m, *n, *k, *lda, *ldb, *ldc);
    if (info) {
        xerbla_("SGEMM ", &info, 6);
        return;
    }
    gk_blas_sgemm_run("sgemm_", &logged, *transa, *transb, *m, *n, *k, *alpha, a, *lda, b, *ldb,
                      *beta, c, *ldc);
}

/* Reference XERBLA prints this and STOPs; a library must not end the program, so this one
 * returns after printing (as OpenBLAS's does). Called through the dynamic symbol, so a program's
 * own xerbla_ (the netlib test programs have one) takes over. */
__attribute__((weak)) void xerbla_(const char *srname, const int *info, size_t srname_len) {
    fprintf(stderr, " ** On entry to %.*s parameter number %d had an illegal value\n",
            (int)srname_len, srname, *info);
}
