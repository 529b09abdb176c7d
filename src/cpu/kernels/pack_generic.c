/*
 * pack_generic.c — the block packing (pack_body.h) for the baseline ISA: SSE 4x4 transposes on
 * x86-64, plain loops elsewhere. The AVX2/AVX-512 builds are pack_avx2.c and pack_avx512.c.
 */
#include "cpu/kernels/kernels.h"

#define GK_PACK_NAME gk_pack_generic
#include "cpu/kernels/pack_body.h"
