/*
 * timing.h — wall-clock helpers shared by the CLI commands and the CPU benchmark: a monotonic
 * clock in seconds and the median of a sample (which sorts the sample, so v[0] is then the best).
 */
#ifndef GK_TOOLS_TIMING_H
#define GK_TOOLS_TIMING_H

#include <stdlib.h>
#include <time.h>

static inline double gk_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int gk_cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Median of v[0..n-1], n >= 1; sorts v ascending. */
static inline double gk_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, gk_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#endif
