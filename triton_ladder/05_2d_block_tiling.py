"""Step 5 in Triton — 2D block tiling: step 3's kernel with a 128x128 tile on 8 warps.

The CUDA step (05_2d_register_tiling.cu) has each of 256 threads accumulate an 8x8 outer
product from register fragments. Here 128x128 outputs over 256 threads gives 64 per thread; the
register fragments and their shape come from the compiler's layout for tl.dot (recorded by the
facts mode of bench/triton_peer.py).
"""
from triton_ladder.registry import load

CONFIG = dict(BM=128, BN=128, BK=16, warps=8, stages=1, group=1)
launch, matmul = load("03_smem_tiling").step(**CONFIG)
