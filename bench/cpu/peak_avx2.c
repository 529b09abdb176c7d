/*
 * peak_avx2.c — AVX2+FMA throughput kernel for the peak measurement. Twelve independent 8-lane
 * chains cover FMA latency x issue width on current x86 cores (4 cycles x 2 pipes = 8 needed)
 * with room to spare, while fitting the 16 ymm registers with the two operands.
 */
#include <immintrin.h>

#include "peak.h"

double gk_peak_kernel_avx2(int64_t iters) {
    /* volatile so the operands are not constants the compiler could fold the loop through. */
    volatile float xv = 0.999999f, yv = 1e-6f;
    const __m256 x = _mm256_set1_ps(xv), y = _mm256_set1_ps(yv);
    /* Distinct starting values: identical chains would be merged into one by the compiler. */
    __m256 c0 = _mm256_set1_ps(0.0f), c1 = _mm256_set1_ps(0.1f), c2 = _mm256_set1_ps(0.2f),
           c3 = _mm256_set1_ps(0.3f), c4 = _mm256_set1_ps(0.4f), c5 = _mm256_set1_ps(0.5f),
           c6 = _mm256_set1_ps(0.6f), c7 = _mm256_set1_ps(0.7f), c8 = _mm256_set1_ps(0.8f),
           c9 = _mm256_set1_ps(0.9f), c10 = _mm256_set1_ps(1.0f), c11 = _mm256_set1_ps(1.1f);
    for (int64_t i = 0; i < iters; i++) {
        c0 = _mm256_fmadd_ps(c0, x, y), c1 = _mm256_fmadd_ps(c1, x, y);
        c2 = _mm256_fmadd_ps(c2, x, y), c3 = _mm256_fmadd_ps(c3, x, y);
        c4 = _mm256_fmadd_ps(c4, x, y), c5 = _mm256_fmadd_ps(c5, x, y);
        c6 = _mm256_fmadd_ps(c6, x, y), c7 = _mm256_fmadd_ps(c7, x, y);
        c8 = _mm256_fmadd_ps(c8, x, y), c9 = _mm256_fmadd_ps(c9, x, y);
        c10 = _mm256_fmadd_ps(c10, x, y), c11 = _mm256_fmadd_ps(c11, x, y);
    }
    __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(c0, c1), _mm256_add_ps(c2, c3)),
                             _mm256_add_ps(_mm256_add_ps(c4, c5), _mm256_add_ps(c6, c7)));
    s = _mm256_add_ps(s, _mm256_add_ps(_mm256_add_ps(c8, c9), _mm256_add_ps(c10, c11)));
    float out[8];
    _mm256_storeu_ps(out, s);
    volatile float sink = out[0];
    (void)sink;
    return (double)iters * 12 * 8 * 2;
}
