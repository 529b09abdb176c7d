/*
 * gemm_ex.h — what the CPU entry points (sgemm.c) and the low-precision GEMM (gemm_ex.c) tell each
 * other about the kernel choice: gk_set_arch and GEMMKIT_ARCH also name the low-precision
 * kernels ("amx", "avx512bf16"), and the converting fallback multiplies on the FP32 family in use.
 */
#ifndef GK_CPU_FRAME_GEMM_EX_H
#define GK_CPU_FRAME_GEMM_EX_H

#include "core/internal.h"

/* The FP32 registry index a call made now uses, and why ("cpuid", "GEMMKIT_ARCH",
 * "gk_set_arch"); sgemm.c. */
GK_HIDDEN int gk_cpu_kernel_now(const char **reason);

/* gk_set_arch's part for the low-precision kernels (gemm_ex.c): a name of one ("amx",
 * "avx512bf16") forces it for BF16 operands, *st telling whether this CPU can run it, and returns
 * 1; any other name (an FP32 family, "auto", NULL) clears that choice and returns 0. */
GK_HIDDEN int gk_lp_set_arch(const char *name, gk_status *st);

#endif
