/*
 * cuda_fp16.h (host emulation) — the binary16 type and conversions the mixed-precision kernels
 * use (src/cuda/mixed/elem.cuh), defined by the library's own scalar conversions
 * (src/formats/scalar.h: round to nearest even, overflow to infinity, as the CUDA intrinsics).
 */
#ifndef GK_TEST_CORE_EMU_CUDA_FP16_H
#define GK_TEST_CORE_EMU_CUDA_FP16_H

#include "formats/scalar.h"

struct __half {
    uint16_t x;
};
inline float __half2float(__half h) {
    return gk_decode_f16(h.x);
}
inline __half __float2half_rn(float f) {
    return __half{gk_encode_f16(f, 0)};
}

#endif
