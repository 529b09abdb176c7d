"""Step 3 in Triton — shared-memory tiling: a program computes a tile of C as a sum of tl.dot
products of a tile of A and a tile of B.

The CUDA step (03_smem_tiling.cu) copies both tiles into __shared__ arrays, syncs, and runs the
32-term dot products out of them by hand. Here the source only loads two tiles and calls tl.dot;
staging them through shared memory, the barriers and which thread computes which outputs are
the compiler's (the facts mode of bench/triton_peer.py records what it did). FP32 products:
input_precision="ieee" (Triton's default for float32 would be TF32).

This file also holds the tile kernel that the later steps reuse with other block shapes, stage
counts and precisions: in Triton steps 4-6, 10 and 13 differ from this one only in numbers.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def tile_coords(t, M, N, BM: tl.constexpr, BN: tl.constexpr, GROUP_M: tl.constexpr):
    """Tile t's (row, column). GROUP_M > 1: consecutive tiles walk down GROUP_M tile rows before
    moving right, so the B tiles they share are still in L2; GROUP_M == 1: row by row."""
    tiles_n = tl.cdiv(N, BN)
    per_group = GROUP_M * tiles_n
    first = (t // per_group) * GROUP_M
    rows = tl.minimum(tl.cdiv(M, BM) - first, GROUP_M)
    return first + (t % per_group) % rows, (t % per_group) // rows


@triton.jit
def tile_acc(a, b, M, N, sam, sak, sbk, sbn, pm, pn, k_lo, k_hi, BM: tl.constexpr,
             BN: tl.constexpr, BK: tl.constexpr, PRECISION: tl.constexpr):
    """The (pm, pn) tile of A[:, k_lo:k_hi] B[k_lo:k_hi, :] in FP32 registers; loads outside the
    matrices or the K range read 0. Every step passes the whole K (0, K) except step 15's
    stream-K part."""
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    pa = a + rm[:, None].to(tl.int64) * sam + (k_lo + rk[None, :]) * sak  # 64-bit: row * lda
    pb = b + (k_lo + rk[:, None]).to(tl.int64) * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(k_lo, k_hi, BK):
        ta = tl.load(pa, mask=(rm[:, None] < M) & (rk[None, :] < k_hi - k0), other=0.0)
        tb = tl.load(pb, mask=(rk[:, None] < k_hi - k0) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(ta, tb, acc, input_precision=PRECISION)
        pa += BK * sak
        pb += BK * sbk
    return acc


@triton.jit
def store_tile(c, M, N, scm, scn, pm, pn, acc, BM: tl.constexpr, BN: tl.constexpr):
    """Stores the (pm, pn) tile of C; elements outside C are masked off."""
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    tl.store(c + rm[:, None].to(tl.int64) * scm + rn[None, :] * scn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def tile(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn, pm, pn, BM: tl.constexpr,
         BN: tl.constexpr, BK: tl.constexpr, PRECISION: tl.constexpr):
    """C tile (pm, pn) = A rows x B columns over all of K."""
    acc = tile_acc(a, b, M, N, sam, sak, sbk, sbn, pm, pn, 0, K, BM, BN, BK, PRECISION)
    store_tile(c, M, N, scm, scn, pm, pn, acc, BM, BN)


@triton.jit
def tiled(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn, BM: tl.constexpr, BN: tl.constexpr,
          BK: tl.constexpr, GROUP_M: tl.constexpr, PRECISION: tl.constexpr):
    pm, pn = tile_coords(tl.program_id(0), M, N, BM, BN, GROUP_M)
    tile(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn, pm, pn, BM, BN, BK, PRECISION)


def args(a, b, c):
    """The problem as the kernels take it: pointers, m, n, k and the six strides."""
    return (a, b, c, a.shape[0], b.shape[1], a.shape[1], a.stride(0), a.stride(1), b.stride(0),
            b.stride(1), c.stride(0), c.stride(1))


def grid(bm, bn, m, n):
    return (triton.cdiv(m, bm) * triton.cdiv(n, bn),)


def launch_tiled(a, b, c, BM, BN, BK, warps, stages, group=1, precision="ieee"):
    """One fixed configuration of the tile kernel; returns the compiled kernel."""
    return tiled[grid(BM, BN, a.shape[0], b.shape[1])](*args(a, b, c), BM=BM, BN=BN, BK=BK,
                                                        GROUP_M=group, PRECISION=precision,
                                                        num_warps=warps, num_stages=stages)


def result(a, b):
    return torch.empty((a.shape[0], b.shape[1]), device=a.device, dtype=torch.float32)


def step(**config):
    """launch(a, b, c) and matmul(a, b) of a step that is this kernel in one configuration: this
    step, and steps 4, 5, 6, 10 and 13, which differ from it only in their numbers."""
    def launch(a, b, c):
        return launch_tiled(a, b, c, **config)

    def matmul(a, b):
        c = result(a, b)
        launch(a, b, c)
        return c

    return launch, matmul


launch, matmul = step(BM=32, BN=32, BK=32, warps=4, stages=1)
