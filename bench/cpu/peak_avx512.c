/*
 * peak_avx512.c — AVX-512F throughput kernel for the peak measurement: sixteen independent
 * 16-lane chains, enough for two 512-bit FMA pipes of 4-cycle latency, in 18 of the 32 zmm
 * registers. Only called when cpuid and the OS report AVX-512F.
 */
#include <immintrin.h>

#include "peak.h"

double gk_peak_kernel_avx512(int64_t iters) {
    volatile float xv = 0.999999f, yv = 1e-6f;
    const __m512 x = _mm512_set1_ps(xv), y = _mm512_set1_ps(yv);
    __m512 c[16];
    /* Distinct starting values: identical chains would be merged into one by the compiler. */
    for (int j = 0; j < 16; j++)
        c[j] = _mm512_set1_ps(0.1f * (float)j);
    for (int64_t i = 0; i < iters; i++) {
        /* A fixed-count inner loop that gcc fully unrolls, keeping c[] in registers. */
        for (int j = 0; j < 16; j++)
            c[j] = _mm512_fmadd_ps(c[j], x, y);
    }
    __m512 s = c[0];
    for (int j = 1; j < 16; j++)
        s = _mm512_add_ps(s, c[j]);
    volatile float sink = _mm512_reduce_add_ps(s);
    (void)sink;
    return (double)iters * 16 * 16 * 2;
}
