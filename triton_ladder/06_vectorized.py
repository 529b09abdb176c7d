"""Step 6 in Triton — vectorized access: step 5's kernel, with a K step of 32.

The CUDA step (06_vectorized.cu) rewrites loads and stores as float4 and transposes the A tile
in shared memory. Triton emits 16-byte accesses by itself wherever it can prove them legal: the
launcher specializes pointers and integer arguments that are multiples of 16, and the axis
analysis turns contiguous, aligned runs into ld.global.v4 / st.global.v4. The source has nothing
to add; the only change here, BK = 32, gives every thread a longer contiguous run of A's row.
"""
from triton_ladder.registry import load

CONFIG = dict(BM=128, BN=128, BK=32, warps=8, stages=1, group=1)
launch, matmul = load("03_smem_tiling").step(**CONFIG)
