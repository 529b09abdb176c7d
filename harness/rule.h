/*
 * rule.h — the accuracy rule every GEMM check applies (docs/testing.md): element (i, j) passes
 * when
 *   |C_ij - R_ij| <= ((K + 2) * FLT_EPSILON + 2 * u_in) * S_ij + FLT_MIN,
 *   S_ij = |alpha| * sum_k |op(A)_ik op(B)_kj| + |beta C0_ij|,
 * with R the float64 result and u_in the unit roundoff of the operands as the multiplier sees
 * them (0 for FP32 products, 2^-11 for TF32). NaN never passes: compare as !(err <= bound).
 *
 * Header-only and host/device, so the C harness (harness.h), the GPU harness (gpu.cu) and any
 * CUDA test compute the bound with this one function.
 */
#ifndef GK_HARNESS_RULE_H
#define GK_HARNESS_RULE_H

#include <float.h>
#include <stdint.h>

#ifdef __CUDACC__
#define GKH_HOST_DEVICE __host__ __device__
#else
#define GKH_HOST_DEVICE
#endif

/* The largest |C_ij - R_ij| the rule accepts for an element of scale S_ij = `scale` in a product
 * with inner dimension k. */
static inline GKH_HOST_DEVICE double gkh_bound(int64_t k, double u_in, double scale) {
    return ((double)(k + 2) * FLT_EPSILON + 2.0 * u_in) * scale + FLT_MIN;
}

#endif
