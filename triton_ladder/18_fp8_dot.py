"""Step 18 in Triton — FP8 E4M3 operands on tensor cores, FP32 C: step 11's tile kernel with B
K-major and a K step of 128.

Hopper's FP8 wgmma reads both operands from shared memory K-major only (BF16/FP16 wgmma also
takes an MN-major B). Given a row-major B, the compiler cannot hand the tile to wgmma as it
lies: its PTX for sm_90a loads B into registers each K step, outside the cp.async pipeline,
writes it back to shared memory transposed one byte at a time (the facts' "st.shared 1-byte") and
waits for each wgmma before the next (wgmma.wait_group 0 in the loop). So this step takes B
as stored column-major (K contiguous, ldb = its column stride), as cuBLASLt's FP8 GEMM and
gemmkit's FP8 path (docs/cuda.md, "repack") do; the operands are converted to E4M3 and B laid out
that way before the call (measure.as_step_input, not timed). matmul() accepts any B, a row-major
one at the slower speed. An FP8 wgmma consumes K = 32 per instruction, so the configurations
take 128 of K per step: the same bytes per stage as BF16's 64.
"""
import torch
import triton

from triton_ladder.registry import load

_auto = load("11_autotuned")
_tiled = load("03_smem_tiling")

FP8_SHAPES = [
    (128, 256, 128, 3, 8), (256, 128, 128, 3, 8), (128, 128, 128, 4, 4), (64, 256, 128, 4, 4),
    (128, 128, 64, 4, 4), (128, 64, 128, 4, 4),
]
fp8_autotuned = triton.autotune(configs=_auto.configs(FP8_SHAPES), key=_auto.KEY)(_tiled.tiled)
DTYPE = torch.float8_e4m3fn
B_K_MAJOR = True  # measure.as_step_input hands B to launch() column-major


def launch(a, b, c):
    return _auto.launch_autotuned(fp8_autotuned, a, b, c, None)  # exact products: no precision


def matmul(a, b):
    c = _tiled.result(a, b)
    launch(a, b, c)
    return c
