/*
 * frame.h — the ISA-free code that runs a plan (plan.h): the packed BLIS-style loop nest around
 * the micro-kernels, C = beta * C when nothing is multiplied, and the thread runner of the
 * unpacked small path. All take the column-major normalised problem from gk_check_gemm; the ISA
 * code they call is reached through the kernel's registry entry (kernels/ukernel.h).
 */
#ifndef GK_CPU_FRAME_FRAME_H
#define GK_CPU_FRAME_FRAME_H

#include "core/internal.h"
#include "cpu/frame/plan.h"
#include "cpu/kernels/ukernel.h"

/* The packed loop nest with kernel u on `threads` threads as planned in pk (gk_plan_packed).
 * Requires m, n, k >= 1 and alpha != 0. Returns GK_ERR_OUT_OF_MEMORY (C untouched) when the
 * packing buffers cannot be allocated. */
gk_status gk_frame_gemm(const gk_gemm_args *g, const gk_ukr_desc *u, const gk_packed_plan *pk,
                        int threads);

/* The packing of operands that are not float32 (gk_gemm_ex; kernels/lp.h has the layouts). */
typedef struct gk_frame_lp {
    int esize;          /* bytes of one stored element of A and B */
    int psize;          /* bytes of one packed element */
    int kgrain;         /* packed k blocks are zero-padded to kp, a multiple of this */
    int64_t tmp_floats; /* per-thread scratch the pack needs */
    /* Pack a block as ukernel.h's pack does (A: is_b = 0, w = MR; B: is_b = 1, w = NR), src at
     * the block's first stored element, k padded to kp, with tmp the thread's scratch. */
    void (*pack)(const struct gk_frame_lp *lp, int is_b, void *dst, int w, int64_t lanes,
                 int64_t kb, int64_t kp, const void *src, int64_t ls, int64_t ps, int64_t npan,
                 void *tmp);
    void (*thread_begin)(void), (*thread_end)(void); /* optional, around a thread's share */
    const void *ctx;                                 /* the pack's own data */
} gk_frame_lp;

/* gk_frame_gemm on operands packed as lp says, with kernel u (which has no in-place variants:
 * pk must not ask for them). lp == NULL is gk_frame_gemm. */
gk_status gk_frame_gemm_lp(const gk_gemm_args *g, const gk_ukr_desc *u, const gk_frame_lp *lp,
                           const gk_packed_plan *pk, int threads);

/* C = beta * C over m x n (beta == 0 writes zeros without reading C). */
void gk_frame_scale(const gk_gemm_args *g);

/* gk_small_run with more than one thread (small.c). */
void gk_small_run_parallel(const gk_gemm_args *g, gk_small_fn fn, gk_small_form form, int threads);

/* Run the small path build fn in `form` on `threads` threads (gk_plan_small_threads), each on its
 * own slice of C's rows, or of its columns for the swapped forms. Inline, so that a tiny call
 * on one thread goes straight to its kernel. */
static inline void gk_small_run(const gk_gemm_args *g, gk_small_fn fn, gk_small_form form,
                                int threads) {
    if (threads <= 1)
        fn(g, form);
    else
        gk_small_run_parallel(g, fn, form, threads);
}

#endif
