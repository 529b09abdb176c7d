/*
 * elem.cuh — element access for the mixed-precision kernels (src/cuda/mixed/): decoding each
 * operand format to float32, the TF32 rounding, and storing a result to C in its format with
 * C = v + beta * C (C never read when beta == 0, rounded once). Decoding is exact for every
 * format (each BF16, FP16 and FP8 value is a float32 value); the FP8 decoders are the library's
 * one definition (src/formats/scalar.h, docs/formats.md).
 */
#ifndef GK_CUDA_MIXED_ELEM_CUH
#define GK_CUDA_MIXED_ELEM_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "formats/scalar.h"
#include "gemmkit.h"

namespace gk_mixed {

/* Round to TF32 (10 mantissa bits) to nearest, ties away from zero: cvt.rna.tf32.f32, written in
 * integer operations so it compiles for any target. NaN and infinities pass unchanged. */
__device__ __forceinline__ float tf32_rna(float x) {
    const uint32_t u = __float_as_uint(x);
    if ((u & 0x7f800000u) == 0x7f800000u) return x;
    return __uint_as_float((u + 0x1000u) & 0xffffe000u);
}

/* Element idx of an array of format f, as float32 (GK_TF32 rounded to TF32). */
__device__ __forceinline__ float load(const void *p, int64_t idx, gk_format f) {
    switch (f) {
    case GK_F32:
        return static_cast<const float *>(p)[idx];
    case GK_TF32:
        return tf32_rna(static_cast<const float *>(p)[idx]);
    case GK_BF16:
        return gk_decode_bf16(static_cast<const uint16_t *>(p)[idx]);
    case GK_F16:
        return __half2float(static_cast<const __half *>(p)[idx]);
    case GK_F8_E4M3FN:
        return gk_decode_e4m3fn(static_cast<const uint8_t *>(p)[idx]);
    default: /* GK_F8_E5M2 */
        return gk_decode_e5m2(static_cast<const uint8_t *>(p)[idx]);
    }
}

/* C[idx] (format tc) = v + beta * C[idx], rounded to nearest even once; C not read when
 * beta == 0. */
__device__ __forceinline__ void store_c(void *c, int64_t idx, gk_format tc, float v, float beta) {
    switch (tc) {
    case GK_BF16: {
        __nv_bfloat16 *p = static_cast<__nv_bfloat16 *>(c) + idx;
        *p = __float2bfloat16_rn(beta == 0.0f ? v : v + beta * __bfloat162float(*p));
        break;
    }
    case GK_F16: {
        __half *p = static_cast<__half *>(c) + idx;
        *p = __float2half_rn(beta == 0.0f ? v : v + beta * __half2float(*p));
        break;
    }
    default: { /* GK_F32 */
        float *p = static_cast<float *>(c) + idx;
        *p = beta == 0.0f ? v : v + beta * *p;
    }
    }
}

/* alpha * *scale_a * *scale_b, a NULL scale counting as 1: read by the kernel, so a kernel
 * earlier on the stream may have written the scales. */
__device__ __forceinline__ float alpha_scaled(float alpha, const float *sa, const float *sb) {
    return alpha * (sa ? *sa : 1.0f) * (sb ? *sb : 1.0f);
}

} // namespace gk_mixed

#endif
