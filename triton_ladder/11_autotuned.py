"""Step 11 in Triton — autotuning: step 3's tile kernel under @triton.autotune.

The CUDA step (11_autotuned.cu) picks one of six tile configurations per problem size from a
table measured offline. Triton's autotuner times every configuration below the first time it
sees a problem (keyed by M, N, K, the precision and the operand types) and keeps the fastest.
Tiles are visited in grouped order (GROUP_M = 8) for L2 reuse. Steps 14 and 16-18 reuse this
kernel with other precisions, operand formats and configurations.
"""
import os

import triton

from triton_ladder.registry import load

_tiled = load("03_smem_tiling")


# The tests' hook: with GK_TRITON_ONE_CONFIG=1 (tests/ladder/triton_ladder_cases.py sets it) every
# autotuned step has its first configuration only, which the autotuner then runs without timing.
# The kernel checked is the same; what the tests skip is compiling and timing every configuration
# for each new problem size: the autotuner's work, and most of the tests' time on a GPU. The CPU
# interpreter (TRITON_INTERPRET=1) always gets the first only: it would time them all on the CPU.
ONE_CONFIG = "1" in (os.environ.get("GK_TRITON_ONE_CONFIG"), os.environ.get("TRITON_INTERPRET"))


def configs(shapes):
    """triton.Config per (BM, BN, BK, stages, warps); only the first under ONE_CONFIG."""
    if ONE_CONFIG:
        shapes = shapes[:1]
    return [triton.Config({"BM": bm, "BN": bn, "BK": bk, "GROUP_M": 8}, num_stages=s, num_warps=w)
            for bm, bn, bk, s, w in shapes]


FP32_SHAPES = [
    (128, 256, 32, 3, 8), (256, 128, 32, 3, 8), (128, 128, 32, 4, 4), (128, 128, 16, 4, 8),
    (128, 64, 32, 4, 4), (64, 128, 32, 4, 4), (64, 64, 32, 5, 2), (128, 256, 16, 4, 8),
]
KEY = ["M", "N", "K", "PRECISION"]
autotuned = triton.autotune(configs=configs(FP32_SHAPES), key=KEY)(_tiled.tiled)


def launch_autotuned(kernel, a, b, c, precision):
    """Runs an autotuned tile kernel; returns the compiled kernel of the configuration it chose.
    precision: tl.dot's input_precision for FP32 operands; None for other formats, where it has
    no meaning (so the compiled kernel's constants do not show one)."""
    m, n = a.shape[0], b.shape[1]
    grid = lambda meta: _tiled.grid(meta["BM"], meta["BN"], m, n)
    return kernel[grid](*_tiled.args(a, b, c), PRECISION=precision)


def launch(a, b, c):
    return launch_autotuned(autotuned, a, b, c, "ieee")


def matmul(a, b):
    c = _tiled.result(a, b)
    launch(a, b, c)
    return c
