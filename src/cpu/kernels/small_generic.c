/*
 * small_generic.c — small_body.h for the baseline ISA (4-float GCC vectors, see simd.h).
 * The AVX2/AVX-512 builds are small_avx2.c and small_avx512.c.
 */
#define GK_SMALL_NAME gk_small_gemm_generic
#define GK_SMALL_PACK gk_pack_generic
#include "cpu/kernels/small_body.h"
