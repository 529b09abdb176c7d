"""Step 17 in Triton — FP16 operands on tensor cores: step 16's kernel and configurations.

The operands are converted to torch.float16 before the call (not timed); only the operand type
differs from step 16, so the compiler picks the matching tensor-core instruction.
"""
import torch

from triton_ladder.registry import load

_tc = load("16_bf16_dot")
DTYPE = torch.float16
launch, matmul = _tc.launch, _tc.matmul
