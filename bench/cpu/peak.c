/*
 * peak.c — picks the widest FMA kernel the CPU supports and times it on 1..T threads (OpenMP,
 * each thread its own chains) to give the benchmark a measured throughput ceiling.
 */
#include "peak.h"

#include "gemmkit.h"
#include "harness/harness.h"

double gk_peak_kernel_generic(int64_t iters) {
    /* Portable fallback: 16 independent scalar chains the compiler may vectorise. */
    volatile float xv = 0.999999f, yv = 1e-6f;
    const float x = xv, y = yv;
    float c[16];
    for (int j = 0; j < 16; j++)
        c[j] = 0.1f * (float)j; /* distinct, so chains stay separate */
    for (int64_t i = 0; i < iters; i++)
        for (int j = 0; j < 16; j++)
            c[j] = c[j] * x + y;
    float s = 0;
    for (int j = 0; j < 16; j++)
        s += c[j];
    volatile float sink = s;
    (void)sink;
    return (double)iters * 16 * 2;
}

/* Wall-clock GFLOPS of `threads` threads each running kern(iters). */
static double run_once(double (*kern)(int64_t), int64_t iters, int threads) {
    double flops = 0;
    double t0 = gkh_now();
#pragma omp parallel num_threads(threads) reduction(+ : flops)
    flops += kern(iters);
    double t1 = gkh_now();
    return flops / (t1 - t0) * 1e-9;
}

double gk_peak_gflops(int threads, const char **isa) {
    double (*kern)(int64_t) = gk_peak_kernel_generic;
    *isa = "generic";
#if defined(__x86_64__)
    gk_cpu_info ci;
    if (gk_cpu_get_info(&ci) == GK_SUCCESS) {
        if (ci.has_avx512f)
            kern = gk_peak_kernel_avx512, *isa = "avx512";
        else if (ci.has_avx2 && ci.has_fma)
            kern = gk_peak_kernel_avx2, *isa = "avx2";
    }
#endif
    /* ~0.05 s per run: long against thread start-up and timer resolution, short enough that
     * the best of 10 likely includes a run no other process interrupted. */
    int64_t iters = 1 << 16;
    double t0 = gkh_now();
    kern(iters);
    double dt = gkh_now() - t0;
    if (dt > 0) iters = (int64_t)((double)iters * 0.05 / dt) + 1;
    double best = 0;
    for (int r = 0; r < 10; r++) {
        double g = run_once(kern, iters, threads);
        if (g > best) best = g;
    }
    return best;
}
