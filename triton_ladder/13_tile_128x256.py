"""Step 13 in Triton — one large tile: step 10's kernel as 128x256x16, 4 stages, grouped order.

The CUDA step (13_cp_async_128x256x8.cu) is the fastest single FP32 configuration of the CUDA
ladder, with a measured lane layout and FMA order. In Triton only the tile shape, stage and warp
counts and the tile order can be given; the rest is the compiler's.
"""
from triton_ladder.registry import load

CONFIG = dict(BM=128, BN=256, BK=16, warps=8, stages=4, group=8)
launch, matmul = load("03_smem_tiling").step(**CONFIG)
