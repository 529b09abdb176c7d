/*
 * pack_avx2.c — pack_body.h compiled with AVX2 + FMA (the Makefile adds the flags for the _avx2
 * suffix): 8x8 in-register transposes and 32-byte copies; reached only through a registry entry
 * whose cpuid predicate holds.
 */
#include "cpu/frame/frame.h"

#define GK_PACK_NAME gk_pack_avx2
#include "cpu/frame/pack_body.h"
