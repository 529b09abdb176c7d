"""Step 23 in Triton — clusters: step 22's persistent kernel launched with num_ctas=2, so each
program is a cluster of two CTAs on two SMs sharing one tile (one program per pair of SMs).

The CUDA step (20_clusters.cu) pairs two CTAs on vertically adjacent tiles and has each load
half of their common B tile, multicast by TMA into both. In Triton the cluster is a launch option:
the compiler splits each tile's tensors over the cluster's CTAs (its CTA layout) and decides
what, if anything, is multicast; the facts show which instructions it emitted.
"""
from triton_ladder.registry import load

_tiled = load("03_smem_tiling")
_sk = load("15_stream_k")
_p = load("22_persistent")
CTAS = 2


def launch(a, b, c):
    """One program (a cluster of CTAS CTAs) per CTAS SMs; returns the compiled kernel."""
    m, n = a.shape[0], b.shape[1]
    tiles = _tiled.grid(_p.CONFIG["BM"], _p.CONFIG["BN"], m, n)[0]
    programs = max(1, min(_sk.programs(a.device) // CTAS, tiles))
    return _p._persistent[(programs,)](*_tiled.args(a, b, c), tiles, PRECISION="tf32",
                                       **_p.CONFIG, **_p.LAUNCH, num_ctas=CTAS)


def matmul(a, b):
    c = _tiled.result(a, b)
    launch(a, b, c)
    return c
