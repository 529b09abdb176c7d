/*
 * small_avx2.c — small_body.h compiled with AVX2 + FMA (the Makefile adds the flags for the
 * _avx2 suffix); reached only through a registry entry whose cpuid predicate holds.
 */
#define GK_SMALL_NAME gk_small_gemm_avx2
#define GK_SMALL_PACK gk_pack_avx2
#include "cpu/kernels/small_body.h"
