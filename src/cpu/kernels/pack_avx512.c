/*
 * pack_avx512.c — pack_body.h compiled with the AVX-512 flags (which include AVX2): 64-byte
 * copies and masked edge steps, for the registry entry of the AVX-512 kernel.
 */
#include "cpu/kernels/kernels.h"

#define GK_PACK_NAME gk_pack_avx512
#include "cpu/kernels/pack_body.h"
