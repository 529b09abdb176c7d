/*
 * small_avx512.c — small_body.h compiled with AVX-512 (the Makefile adds the flags for the
 * _avx512 suffix); reached only through a registry entry whose cpuid predicate holds.
 */
#define GK_SMALL_NAME gk_small_gemm_avx512
#define GK_SMALL_PACK gk_pack_avx512
#include "cpu/kernels/small_body.h"
