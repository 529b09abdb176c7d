"""Step 16 in Triton — BF16 operands on tensor cores, FP32 accumulation and FP32 C.

Beside gemmkit's mixed-precision path (gk_cuda_gemm_ex, docs/cuda.md "Mixed precision"), not a
CUDA ladder step: step 11's tile kernel, autotuned over tiles with a longer K step (a tensor-core
instruction on 16-bit operands takes twice the K of one on TF32). Operands are converted to BF16
before the call (not timed); the check compares with a float64 reference of the stored BF16
values, whose products are exact. Step 17 (FP16) runs this same kernel and configurations.
"""
import torch
import triton

from triton_ladder.registry import load

_auto = load("11_autotuned")
_tiled = load("03_smem_tiling")

TC_SHAPES = [
    (128, 256, 64, 3, 8), (256, 128, 64, 3, 8), (128, 128, 64, 4, 4), (128, 128, 32, 4, 4),
    (128, 64, 64, 4, 4), (64, 128, 64, 4, 4),
]
tc_autotuned = triton.autotune(configs=_auto.configs(TC_SHAPES), key=_auto.KEY)(_tiled.tiled)
DTYPE = torch.bfloat16


def launch(a, b, c):
    return _auto.launch_autotuned(tc_autotuned, a, b, c, None)  # exact products: no precision


def matmul(a, b):
    c = _tiled.result(a, b)
    launch(a, b, c)
    return c
