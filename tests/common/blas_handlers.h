/*
 * blas_handlers.h — a program's own xerbla_ and cblas_xerbla that record each call instead of
 * printing: they replace gemmkit's weak handlers, as the netlib testers' do, so a test can check
 * which routine reported which argument position. Include it in exactly one file of a program.
 */
#ifndef GK_TEST_BLAS_HANDLERS_H
#define GK_TEST_BLAS_HANDLERS_H

#include <stddef.h>
#include <stdio.h>

static int f77_calls, f77_info; /* xerbla_: calls since blas_handlers_reset, last INFO */
static char f77_name[16];       /* and its SRNAME */
static int c_calls, c_info;     /* cblas_xerbla: calls, last position */
static char c_rout[32];         /* and its routine name */

void xerbla_(const char *srname, const int *info, size_t len) {
    f77_calls++;
    f77_info = *info;
    snprintf(f77_name, sizeof f77_name, "%.*s", (int)len, srname);
}

void cblas_xerbla(int p, const char *rout, const char *form, ...) {
    (void)form;
    c_calls++;
    c_info = p;
    snprintf(c_rout, sizeof c_rout, "%s", rout);
}

static inline void blas_handlers_reset(void) {
    f77_calls = f77_info = c_calls = c_info = 0;
}

#endif
