/*
 * batched.h — what the CPU batched calls (batched.c) need from the single-call path (sgemm.c):
 * one checked, normalised item run as gk_sgemm would run it, on at most `threads` threads.
 */
#ifndef GK_CPU_FRAME_BATCHED_H
#define GK_CPU_FRAME_BATCHED_H

#include "core/internal.h"

/* Plan and run one item (m, n, k may be 0) with the kernel a call made now uses; the planner
 * chooses the path and how many of `threads` to use. Returns GK_ERR_OUT_OF_MEMORY when the packed
 * path cannot allocate its buffers (C untouched), else GK_SUCCESS. */
GK_HIDDEN gk_status gk_sgemm_item(const gk_gemm_args *g, int threads);

#endif
