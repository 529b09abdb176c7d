/*
 * lp.h — the low-precision (BF16/FP16 operand) kernel contract of the CPU path and its registry,
 * the counterpart of ukernel.h for gk_gemm_ex (frame/gemm_ex.c; docs/cpu.md, "Low precision").
 *
 * A low-precision kernel is a micro-kernel of ukernel.h's type gk_ukr_fn with the same C rule
 * (C[0:m_valid, 0:n_valid] = alpha * (Ap * Bp) + beta * C, float32 C, beta == 0 never reads C),
 * whose packed panels hold operand codes instead of floats. The frame's loop nest (gemm.c) runs
 * it unchanged; only the packing and the panel sizes differ, described by the entry:
 *
 *   kgrain  each packed k block is zero-padded to kp = a multiple of kgrain, and the kernel is
 *           called with kc = kp;
 *   psize   bytes of one packed element;
 *   kc      the k block the kernel wants (0: the L1 rule of config/cpu.c, sized for psize);
 *   pack_a, pack_b   fill the MR-lane panels of A and the NR-lane panels of B in the layouts below,
 *           from stored 2-byte codes (same arguments as pack_body.h, plus kp).
 * The pointers pa and pb of gk_ukr_fn point at these panels (typed float * by the common
 * signature; the kernel reads them as codes).
 *
 * Panel layouts for a panel of w lanes (A: rows i of op(A); B: columns j of op(B)), lane l, step p:
 *   pairs (GK_LP_PAIRS): dst[(p / 2) * 2w + 2l + (p % 2)] = X(l, p) — two consecutive k of a lane
 *           side by side, the operand order of vdpbf16ps and of AMX's B tile ("VNNI" layout);
 *   rows  (GK_LP_ROWS):  dst[(p / 32) * 32w + 32l + (p % 32)] = X(l, p) — chunks of 32 k, each
 *           lane's 32 codes contiguous (64 bytes), the row layout of AMX's A tile.
 * Lanes past the matrix edge and steps past kb are zero; a zero pair adds exactly 0.
 *
 * The kernels multiply exact products (a BF16 x BF16 product is exact in float32) and accumulate
 * in float32, rounding to nearest even. vdpbf16ps and tdpbf16ps treat float32 subnormal inputs
 * and results as zero (Intel SDM), which the products of normal BF16 values in the usual range
 * never meet; the converting fallback (below) keeps subnormals.
 *
 * Operands without a float32-accumulating dot product on the CPU (FP16 everywhere, BF16 without
 * AVX512-BF16) are converted to float32 while packing and multiplied by the FP32 micro-kernel of
 * the family in use: that is the registry's "convert" entry, whose kernel and packing come from
 * gk_ukr_table at run time.
 */
#ifndef GK_CPU_KERNELS_LP_H
#define GK_CPU_KERNELS_LP_H

#include <stdint.h>

#include "cpu/kernels/ukernel.h"
#include "gemmkit.h"

/* Pack a block of 2-byte codes (pack_body.h's arguments; kp >= kb the padded k). */
typedef void (*gk_lp_pack_fn)(void *dst, int w, int64_t lanes, int64_t kb, int64_t kp,
                              const void *src, int64_t ls, int64_t ps, int64_t npan);

typedef struct gk_lp_desc {
    const char *name; /* "avx512bf16_32x12" */
    const char *arch; /* as GEMMKIT_ARCH and gk_set_arch name it: "amx", "avx512bf16", "convert" */
    unsigned formats; /* operand formats it takes: bit (1 << gk_format) */
    int mr, nr, kgrain, psize, kc;
    gk_ukr_fn fn;         /* NULL for the convert entry (the FP32 family's kernel) */
    gk_lp_pack_fn pack_a; /* NULL for the convert entry */
    gk_lp_pack_fn pack_b;
    int (*usable)(void);        /* cpuid (and OS permission) predicate */
    void (*thread_begin)(void); /* optional: run by each thread before its first kernel call */
    void (*thread_end)(void);   /* optional: run by each thread after its last one */
} gk_lp_desc;

/* The registry, best first; the last entry is the convert entry, usable everywhere. */
extern const gk_lp_desc gk_lp_table[];
extern const int gk_lp_count;

/* Index of the entry whose arch is `name`, or -1. */
int gk_lp_find(const char *name);

/* The packs (lp_pack_avx512.c) and kernels (ukr_bf16_avx512.c, ukr_amx_avx512.c). */
void gk_lp_pack_pairs(void *dst, int w, int64_t lanes, int64_t kb, int64_t kp, const void *src,
                      int64_t ls, int64_t ps, int64_t npan);
void gk_lp_pack_rows(void *dst, int w, int64_t lanes, int64_t kb, int64_t kp, const void *src,
                     int64_t ls, int64_t ps, int64_t npan);
void gk_ukr_avx512bf16_32x12(int64_t kc, const float *pa, const float *pb, float *c, int64_t rs_c,
                             int64_t cs_c, float alpha, float beta, int m_valid, int n_valid);
void gk_ukr_amx_bf16_32x32(int64_t kc, const float *pa, const float *pb, float *c, int64_t rs_c,
                           int64_t cs_c, float alpha, float beta, int m_valid, int n_valid);
void gk_amx_thread_begin(void);
void gk_amx_thread_end(void);

#endif
