"""Step 22 in Triton — a persistent grid: one program per SM walks the tiles in grouped order
(program p takes tiles p, p + P, p + 2P, ...), TF32 products on 128x128 tiles.

The CUDA step (19_persistent.cu) keeps each CTA resident with its producer warpgroup loading the
next tile while the consumers finish one. Here the loop over tiles is the source's, as in step
15's full waves; everything inside a tile (the operand staging, the pipeliner's stages, the MMA
instruction: wgmma on sm_90) is the compiler's, and a tile's loads start only when the loop
reaches it. u_in = 2^-10: Triton hands the float32 bits to the tensor cores, which truncate them.
"""
import triton.language as tl
import triton

from triton_ladder.registry import load

_tiled = load("03_smem_tiling")
_sk = load("15_stream_k")
CONFIG = dict(BM=128, BN=128, BK=32, GROUP_M=8)
LAUNCH = dict(num_warps=8, num_stages=3)


@triton.jit
def _persistent(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn, TILES, BM: tl.constexpr,
                BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr,
                PRECISION: tl.constexpr):
    p = tl.program_id(0)
    P = tl.num_programs(0)
    for t in range(p, TILES, P):
        pm, pn = _tiled.tile_coords(t, M, N, BM, BN, GROUP_M)
        _tiled.tile(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn, pm, pn, BM, BN, BK, PRECISION)


def launch(a, b, c):
    """One program per SM (fewer when there are fewer tiles); returns the compiled kernel."""
    m, n = a.shape[0], b.shape[1]
    tiles = _tiled.grid(CONFIG["BM"], CONFIG["BN"], m, n)[0]
    programs = min(_sk.programs(a.device), tiles)
    return _persistent[(programs,)](*_tiled.args(a, b, c), tiles, PRECISION="tf32", **CONFIG,
                                    **LAUNCH)


def matmul(a, b):
    c = _tiled.result(a, b)
    launch(a, b, c)
    return c
