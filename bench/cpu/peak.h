/*
 * peak.h — the machine's measured single-precision FMA throughput, the denominator of the
 * benchmark's "% of peak" column. Measured, not computed from a spec sheet, because clocks under
 * all-core load (and in VMs) differ from nominal.
 */
#ifndef GK_BENCH_PEAK_H
#define GK_BENCH_PEAK_H

#include <stdint.h>

/* Each kernel runs `iters` rounds of independent FMA chains and returns the flops it did
 * (2 per lane per FMA). The ISA files are compiled with their own -m flags (Makefile). */
double gk_peak_kernel_avx2(int64_t iters);
double gk_peak_kernel_avx512(int64_t iters);
double gk_peak_kernel_generic(int64_t iters);

/* Best-of-10 GFLOPS of the widest FMA ISA the CPU (and OS) supports, with `threads` threads each
 * running its own chains. *isa receives "avx512", "avx2" or "generic". */
double gk_peak_gflops(int threads, const char **isa);

#endif
