/*
 * cuda_bf16.h (host emulation) — the bfloat16 type and conversions the mixed-precision kernels
 * use (src/cuda/mixed/elem.cuh), defined by the library's own scalar conversions
 * (src/formats/scalar.h: round to nearest even, overflow to infinity, as the CUDA intrinsics).
 */
#ifndef GK_TEST_CORE_EMU_CUDA_BF16_H
#define GK_TEST_CORE_EMU_CUDA_BF16_H

#include "formats/scalar.h"

struct __nv_bfloat16 {
    uint16_t x;
};
inline float __bfloat162float(__nv_bfloat16 h) {
    return gk_decode_bf16(h.x);
}
inline __nv_bfloat16 __float2bfloat16_rn(float f) {
    return __nv_bfloat16{gk_encode_bf16(f, 0)};
}

#endif
