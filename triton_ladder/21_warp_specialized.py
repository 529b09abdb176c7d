"""Step 21 in Triton — warp specialization: step 20's TMA kernel with its K loop written as
tl.range(..., warp_specialize=True), which asks the compiler to split the program's warps into a
group that issues the loads and groups that multiply.

The CUDA step (18_warp_specialized.cu) gives a producer warpgroup its own code path, lowers its
register budget with setmaxnreg and hands stages to two consumer warpgroups through mbarriers.
Here one loop attribute asks for the same division; which warps load, how many registers each
group keeps and how the stages are handed over are the compiler's. Triton 3.6 on the H100 emitted
the same instructions for this loop as for step 20's and ran at the same speed
(bench/results/h100/triton_facts.json, ladder.csv): the request is there, the split was not made.
"""
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

from triton_ladder.registry import load

_tiled = load("03_smem_tiling")
_tma = load("20_tma")
CONFIG = _tma.CONFIG
LAUNCH = _tma.LAUNCH


@triton.jit
def _specialized(a_desc, b_desc, c, M, N, K, scm, scn, BM: tl.constexpr, BN: tl.constexpr,
                 BK: tl.constexpr, GROUP_M: tl.constexpr, PRECISION: tl.constexpr):
    pm, pn = _tiled.tile_coords(tl.program_id(0), M, N, BM, BN, GROUP_M)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), warp_specialize=True):
        x = a_desc.load([pm * BM, k * BK])
        y = b_desc.load([k * BK, pn * BN])
        acc = tl.dot(x, y, acc, input_precision=PRECISION)
    _tiled.store_tile(c, M, N, scm, scn, pm, pn, acc, BM, BN)


def launch(a, b, c):
    """Returns the compiled kernel."""
    m, n, k = a.shape[0], b.shape[1], a.shape[1]
    a, b = _tma._rows_16_bytes(a), _tma._rows_16_bytes(b)
    bm, bn, bk = CONFIG["BM"], CONFIG["BN"], CONFIG["BK"]
    a_desc = TensorDescriptor.from_tensor(a, [bm, bk])
    b_desc = TensorDescriptor.from_tensor(b, [bk, bn])
    return _specialized[_tiled.grid(bm, bn, m, n)](a_desc, b_desc, c, m, n, k, c.stride(0),
                                                   c.stride(1), PRECISION="tf32", **CONFIG,
                                                   **LAUNCH)


def matmul(a, b):
    c = _tiled.result(a, b)
    launch(a, b, c)
    return c
