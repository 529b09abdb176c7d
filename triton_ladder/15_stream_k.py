"""Step 15 in Triton — stream-K: one program per SM; full waves of tiles data-parallel, the tiles
of the last, partial wave split along K over all programs, the pieces summed in a fixed order.

As in the CUDA step (15_stream_k.cu), with step 13's tile shape: of T tiles on P programs, the
first T - T % P are whole tiles, program p taking p, p + P, ...; the K iterations of the other
T % P tiles are cut into P equal ranges, one per program. A range is shorter than a tile's K, so
it touches at most two tiles; a program writes the partial sum of each piece to a workspace slot
(program, piece). The CUDA step sums the pieces inside the kernel behind flags; here a second
launch does it, one program per split tile adding its pieces in program order, so the result does
not depend on timing and no program ever waits for another (Triton's CPU interpreter runs
programs one after the other, where waiting would never end).
"""
import torch
import triton
import triton.language as tl

from triton_ladder.registry import load

_tiled = load("03_smem_tiling")
CONFIG = dict(BM=128, BN=256, BK=16, GROUP_M=8)
LAUNCH = dict(num_warps=8, num_stages=4)


@triton.jit
def _piece(p, P, t, SK_ITERS, ITERS):
    """Program p's K-iteration range within split tile t, as [lo, hi) (empty: lo >= hi).
    32-bit products suffice: SK_ITERS < P * cdiv(K, BK), so p * SK_ITERS < P^2 K / 16."""
    lo = (p * SK_ITERS) // P
    hi = ((p + 1) * SK_ITERS) // P
    return tl.maximum(lo, t * ITERS) - t * ITERS, tl.minimum(hi, (t + 1) * ITERS) - t * ITERS


@triton.jit
def _stream_k(a, b, c, ws, M, N, K, sam, sak, sbk, sbn, scm, scn, DP_TILES, SK_TILES,
              BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr,
              PRECISION: tl.constexpr):
    p = tl.program_id(0)
    P = tl.num_programs(0)
    for t in range(p, DP_TILES, P):  # the full waves
        pm, pn = _tiled.tile_coords(t, M, N, BM, BN, GROUP_M)
        _tiled.tile(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn, pm, pn, BM, BN, BK, PRECISION)
    iters = tl.cdiv(K, BK)
    first = ((p * SK_TILES * iters) // P) // iters
    offs = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    for j in range(0, 2):  # the split tiles this program's range touches
        t = first + j
        lo, hi = _piece(p, P, t, SK_TILES * iters, iters)
        if (t < SK_TILES) & (lo < hi):
            pm, pn = _tiled.tile_coords(DP_TILES + t, M, N, BM, BN, GROUP_M)
            acc = _tiled.tile_acc(a, b, M, N, sam, sak, sbk, sbn, pm, pn, lo * BK,
                                  tl.minimum(hi * BK, K), BM, BN, BK, PRECISION)
            tl.store(ws + (p * 2 + j) * (BM * BN) + offs, acc)


@triton.jit
def _fixup(c, ws, M, N, K, scm, scn, DP_TILES, SK_TILES, P, BM: tl.constexpr,
           BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    t = tl.program_id(0)
    iters = tl.cdiv(K, BK)
    offs = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for p in range(0, P):  # in program order: the sum does not depend on timing
        first = ((p * SK_TILES * iters) // P) // iters
        lo, hi = _piece(p, P, t, SK_TILES * iters, iters)
        if (lo < hi) & (t - first < 2):
            acc += tl.load(ws + (p * 2 + t - first) * (BM * BN) + offs)
    pm, pn = _tiled.tile_coords(DP_TILES + t, M, N, BM, BN, GROUP_M)
    _tiled.store_tile(c, M, N, scm, scn, pm, pn, acc, BM, BN)


def programs(device):
    """One program per SM (4 on the CPU interpreter)."""
    return torch.cuda.get_device_properties(device).multi_processor_count \
        if device.type == "cuda" else 4


def launch(a, b, c):
    """Returns the compiled stream-K kernel (the fixup, when it runs, is a second launch)."""
    m, n = a.shape[0], b.shape[1]
    tiles = _tiled.grid(CONFIG["BM"], CONFIG["BN"], m, n)[0]
    P = min(programs(a.device), tiles)
    sk = tiles % P
    dp = tiles - sk
    ws = torch.empty((2 * P if sk else 1, CONFIG["BM"], CONFIG["BN"]), device=a.device,
                     dtype=torch.float32)
    k = _stream_k[(P,)](*_tiled.args(a, b, c)[:3], ws, *_tiled.args(a, b, c)[3:], dp, sk,
                        PRECISION="ieee", **CONFIG, **LAUNCH)
    if sk:
        _fixup[(sk,)](c, ws, m, n, a.shape[1], c.stride(0), c.stride(1), dp, sk, P, **CONFIG)
    return k


def matmul(a, b):
    c = _tiled.result(a, b)
    launch(a, b, c)
    return c
