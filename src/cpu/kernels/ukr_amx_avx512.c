/*
 * ukr_amx_avx512.c — the AMX-BF16 micro-kernel (ukr_amx_body.h over the TMUL instructions) and the
 * per-thread tile configuration. The AMX instructions come from the functions' target attribute
 * (the file name gives the AVX-512 flags, Makefile); they run only after gk_cpu_usable_amx_bf16
 * (config/cpu.c) has seen the CPU, the OS state and Linux's permission for tile data.
 */
#include <immintrin.h>
#include <stdint.h>

#include "cpu/kernels/lp.h"

#define GK_AMX_TARGET __attribute__((target("avx512f,amx-tile,amx-bf16")))

/* Palette 1, tiles 0-7 each 16 rows of 64 bytes (ukr_amx_body.h). Loaded by every thread that
 * runs the kernel, before its first call (the configuration is per thread), and released after
 * its last so that the thread's saved state shrinks back. The configuration is constant data:
 * built in a local, GCC 12 dropped the stores of its tile shapes as dead (it does not see
 * ldtilecfg read them), leaving the tiles unconfigured and the first tile instruction to fault. */
static const struct {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} __attribute__((aligned(64))) amx_cfg = {
    .palette = 1,
    .colsb = {64, 64, 64, 64, 64, 64, 64, 64},
    .rows = {16, 16, 16, 16, 16, 16, 16, 16},
};
_Static_assert(sizeof amx_cfg == 64, "tile configuration is 64 bytes");

GK_AMX_TARGET void gk_amx_thread_begin(void) {
    _tile_loadconfig(&amx_cfg);
}

GK_AMX_TARGET void gk_amx_thread_end(void) {
    _tile_release();
}

#define GK_AMX_FN gk_ukr_amx_bf16_32x32
#define GK_AMX_ATTR GK_AMX_TARGET
#define GK_AMX_ZERO(t) _tile_zero(t)
#define GK_AMX_LOAD(t, p, s) _tile_loadd(t, p, s)
#define GK_AMX_DP(d, a, b) _tile_dpbf16ps(d, a, b)
#define GK_AMX_STORE(t, p, s) _tile_stored(t, p, s)
#include "cpu/kernels/ukr_amx_body.h"
