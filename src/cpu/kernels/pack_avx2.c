/*
 * pack_avx2.c — pack_body.h compiled with AVX2 + FMA (the Makefile adds the flags for the _avx2
 * suffix): its contiguous copies become 32-byte moves and its edge steps masked loads; reached
 * only through a registry entry whose cpuid predicate holds.
 */
#include "cpu/kernels/kernels.h"

#define GK_PACK_NAME gk_pack_avx2
#include "cpu/kernels/pack_body.h"
