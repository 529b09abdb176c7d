/*
 * pack_avx512.c — pack_body.h compiled with the AVX-512 flags (which include AVX2), for the
 * registry entry of the AVX-512 kernel.
 */
#include "cpu/frame/frame.h"

#define GK_PACK_NAME gk_pack_avx512
#include "cpu/frame/pack_body.h"
