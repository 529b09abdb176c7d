"""Step 10 in Triton — software pipeline: step 5's kernel with num_stages = 3.

The CUDA step (10_cp_async_pipeline.cu) issues cp.async copies of the tiles STAGES - 1 ahead
and waits on commit groups by hand. In Triton num_stages asks the compiler's pipeliner for the
same thing; whether it pipelines a given loop, and with which copy instruction, is its decision
(the facts mode counts cp.async in the PTX).
"""
from triton_ladder.registry import load

CONFIG = dict(BM=128, BN=128, BK=16, warps=8, stages=3, group=1)
launch, matmul = load("03_smem_tiling").step(**CONFIG)
