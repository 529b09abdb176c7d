"""Step 4 in Triton — 1D block tiling: step 3's kernel with a 64x64 tile on 16 warps.

The CUDA step (04_1d_register_tiling.cu) gives each of 512 threads a column of 8 outputs and
reuses one B value from a register across them. In Triton the same 8 outputs per thread follow
from the block shape and warp count alone; which 8 they are is the compiler's layout choice. The K
step is 16 rather than 8 because tl.dot takes no K below 16.
"""
from triton_ladder.registry import load

CONFIG = dict(BM=64, BN=64, BK=16, warps=16, stages=1, group=1)
launch, matmul = load("03_smem_tiling").step(**CONFIG)
