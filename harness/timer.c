/*
 * timer.c — the wall clock and the median of harness.h. Benchmarks report medians: on shared
 * machines the mean follows the slowest outliers, the median the typical call.
 */
#include "harness.h"

#include <stdlib.h>
#include <time.h>

double gkh_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

double gkh_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
