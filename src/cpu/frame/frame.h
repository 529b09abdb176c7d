/*
 * frame.h — the BLIS-style loop nest around the micro-kernels, plus the two paths that bypass
 * it: C = beta * C when nothing is multiplied, and the unpacked small-matrix loop.
 * All take the column-major normalised problem from gk_check_gemm.
 */
#ifndef GK_CPU_FRAME_FRAME_H
#define GK_CPU_FRAME_FRAME_H

#include "core/internal.h"
#include "cpu/config/cpu.h"
#include "cpu/kernels/ukernel.h"

/* Each thread of a call should get about this many multiply-adds (~3.5 us at 75 GFLOPS): waking
 * the team and packing each thread's operands cost a few microseconds. Zen 3, 2 threads, quiet
 * machine, 7 interleaved rounds against 2^18 (which ran these on 1 thread): 64^3 1.19x,
 * 72^3 1.57x, 80^3 1.27x, 64x64x128 1.17x (bench/results/zen3-2026-11-22-session3/). An earlier
 * run that found 64^3 0.79x on 2 threads was taken while the other core was busy. */
#define GK_MIN_MNK_PER_THREAD 131072.0

/* [lo, hi) of `count` items for part `id` of `parts`, as even as possible. */
static inline void gk_split(int64_t count, int parts, int id, int64_t *lo, int64_t *hi) {
    int64_t base = count / parts, extra = count % parts;
    *lo = id * base + (id < extra ? id : extra);
    *hi = *lo + base + (id < extra);
}

/* Packed five-loop GEMM with kernel `u`, blocking `blk`, up to `threads` OpenMP threads.
 * Requires m, n, k >= 1 and alpha != 0. Returns GK_ERR_OUT_OF_MEMORY (C untouched) when the
 * packing buffers cannot be allocated. */
gk_status gk_frame_gemm(const gk_gemm_args *g, const gk_ukr_desc *u, gk_blocking blk, int threads);

/* C = beta * C over m x n (beta == 0 writes zeros without reading C). */
void gk_frame_scale(const gk_gemm_args *g);

/* Floats of the stack copy of op(A) that the unpacked path's register tiles make when A is
 * transposed (32 KiB), with its rows padded to a multiple of GK_SMALL_ROW_ALIGN (the tallest
 * tile, two AVX-512 vectors): gk_small_wanted sends such calls there only when the copy fits. */
#define GK_SMALL_ABUF 8192
#define GK_SMALL_ROW_ALIGN 32

/* The unpacked path's register tiles against the packed path, 1 thread, `gk-cpu-probe` (tables in
 * docs/cpu.md). Zen 3: 2-9x faster up to 12^3 in every transposition (the packed path spends
 * ~0.2 us per call on edge panels and tiles), 0.6-0.95x of its time up to 32^3, level
 * (0.9-1.1x) at 48^3-64^3 with plain B; with transposed B, whose pack is a transpose that the
 * tiles avoid by broadcasting B in place, 0.5-0.85x up to 64^3. The Xeon's AVX-512 tiles gain
 * as much or more (0.6-0.95x at 48^3-64^3 with plain B), so one rule serves both. */
#define GK_SMALL_MNK (32.0 * 32.0 * 32.0)
#define GK_SMALL_MNK_TRANSB (64.0 * 64.0 * 64.0)

/* 1 when m * n * k is within the tiles' size rule above. */
static inline int gk_small_mnk_within(const gk_gemm_args *g) {
    return (double)g->m * (double)g->n * (double)g->k <=
           (g->transb ? GK_SMALL_MNK_TRANSB : GK_SMALL_MNK);
}

/* The swapped vector form (small_body.h): m <= 2 with plain A, too large for the tiles. This is
 * a row-major GEMV after normalisation (y = A x with A row-major is C^T = x^T A^T), which the
 * packed path ran at a third to a half of the speed of the same product stored column-major,
 * padding the 1- or 2-row operand to a whole micro-panel. The vector form runs C^T = op(B)^T
 * op(A)^T instead: dot products of the rows of A with op(B)'s columns, writing C's rows ldc
 * apart; when op(B) is transposed that is the axpy form, which needs C's row contiguous (m == 1,
 * ldc == 1), and otherwise the packed path stays. */
static inline int gk_small_swapped_form(const gk_gemm_args *g) {
    return g->m <= 2 && g->n > 2 && !g->transa && (!g->transb || (g->m == 1 && g->ldc == 1)) &&
           !gk_small_mnk_within(g);
}

/* GEMV-like calls: n <= 2, m <= 2 with transposed A, or the swapped form's. The unpacked path
 * takes them at any size (gk_small_wanted). */
static inline int gk_small_gemv_like(const gk_gemm_args *g) {
    return g->n <= 2 || (g->m <= 2 && g->transa) || gk_small_swapped_form(g);
}

/* 1 when the unpacked path takes its vector form (small_body.h), else register tiles. The vector
 * form serves GEMV-like calls, except those with plain A that the tiles run faster: A of at most
 * GK_SMALL_ROW_ALIGN rows, or of at most 128 KiB with k >= 32. There a tile loads each column of
 * A once for both columns of C and keeps C in registers, where the vector form runs one short
 * axpy per column of A and per column of C; with more rows, or an A that leaves L2, the tiles'
 * walk along k of one row tile at a time loses to the vector form's sweep down whole columns
 * (Zen 3, 1 thread, gk-call-ab, tiles' time over the vector form's: 1x2x1000 0.20, 16x2x512
 * 0.12, 32x1x20000 0.61, 128x2x128 0.47, 200x2x200 0.53, 64x1x64 0.78; left to the vector form:
 * 1000x1x10 1.17, 256x1x256 1.10, 64x1x4096 1.10, 128x1x4096 1.92, 4000x1x4000 3.4). */
static inline int gk_small_vector_form(const gk_gemm_args *g) {
    if (!gk_small_gemv_like(g)) return 0;
    if (g->transa || g->n > 2) return 1; /* the dot products, or the swapped form */
    return !(g->m <= GK_SMALL_ROW_ALIGN ||
             (g->k >= 32 && (double)g->m * (double)g->k <= 32.0 * 1024.0));
}

/* 1 when packing would cost more than it saves: the unpacked path. GEMV-like calls take it at
 * any size: packing would pad a 1- or 2-wide operand to a whole micro-panel and copy the big
 * matrix once more than it reads it (Zen 3: 1000x1x1000 4x, 2000x2x500 2x faster unpacked).
 * Otherwise the size rule above, provided a transposed A fits the tiles' stack copy.
 * Inline, like the single-thread case of gk_small_run, because tiny calls are decided here:
 * the two calls were a fifth of a 1^3 call (perf, Zen 3). */
static inline int gk_small_wanted(const gk_gemm_args *g) {
    if (gk_small_gemv_like(g)) return 1;
    if (!gk_small_mnk_within(g)) return 0;
    return !g->transa ||
           (g->m + GK_SMALL_ROW_ALIGN - 1) / GK_SMALL_ROW_ALIGN * GK_SMALL_ROW_ALIGN * g->k <=
               GK_SMALL_ABUF;
}

/* gk_small_run with more than one thread (small.c). */
void gk_small_run_parallel(const gk_gemm_args *g, void (*fn)(const struct gk_gemm_args *),
                           int threads);

/* Run a small-path build `fn` on up to `threads` threads, each on its own slice of rows of C, or
 * of columns for the swapped form (GEMV-like calls can be large; the slices share nothing), at
 * most one per GK_MIN_MNK_PER_THREAD multiply-adds. */
static inline void gk_small_run(const gk_gemm_args *g, void (*fn)(const struct gk_gemm_args *),
                                int threads) {
    const double per_thread = (double)g->m * (double)g->n * (double)g->k / GK_MIN_MNK_PER_THREAD;
    if (threads <= 1 || per_thread < 2.0)
        fn(g);
    else
        gk_small_run_parallel(g, fn, (double)threads > per_thread ? (int)per_thread : threads);
}

/* The small path compiled per ISA (small_body.h); the registry pairs each micro-kernel with the
 * build its CPU can run. Requires m, n, k >= 1 and alpha != 0. */
void gk_small_gemm_generic(const gk_gemm_args *g);
#if defined(__x86_64__)
void gk_small_gemm_avx2(const gk_gemm_args *g);
void gk_small_gemm_avx512(const gk_gemm_args *g);
#endif

/* Block packing compiled per ISA (pack_body.h, which documents the layout); the registry pairs
 * each micro-kernel with the build its CPU can run. */
void gk_pack_generic(float *dst, int w, int64_t lanes, int64_t kb, const float *src, int64_t ls,
                     int64_t ps, int64_t npan);
#if defined(__x86_64__)
void gk_pack_avx2(float *dst, int w, int64_t lanes, int64_t kb, const float *src, int64_t ls,
                  int64_t ps, int64_t npan);
void gk_pack_avx512(float *dst, int w, int64_t lanes, int64_t kb, const float *src, int64_t ls,
                    int64_t ps, int64_t npan);
#endif

#endif
