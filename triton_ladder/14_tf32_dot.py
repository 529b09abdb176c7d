"""Step 14 in Triton — TF32 tensor cores: step 11's autotuned kernel with input_precision="tf32".

The CUDA step (14_tf32_mma.cu) rounds fragments to TF32 and issues mma.sync m16n8k8 by hand. In
Triton one argument of tl.dot selects TF32 products; the compiler picks the tensor-core
instruction for the GPU (wgmma on sm_90, mma.sync before), the operand layouts in shared memory
and the accumulator layout. It does not round the operands to TF32 first, so the tensor cores
truncate them: u_in = 2^-10 in the check (registry.TF32_U), where CUDA step 14 rounds (2^-11).
"""
from triton_ladder.registry import load

_auto = load("11_autotuned")
_tiled = load("03_smem_tiling")


def launch(a, b, c):
    return _auto.launch_autotuned(_auto.autotuned, a, b, c, "tf32")


def matmul(a, b):
    c = _tiled.result(a, b)
    launch(a, b, c)
    return c
