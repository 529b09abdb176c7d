"""Step 2 in Triton — coalesced: step 1's loop with the program turned along a row of C.

A program computes BLOCK consecutive columns of one row: per k its threads load one A element
(a broadcast) and BLOCK contiguous floats of B, and store one contiguous run of C, as the CUDA
step (02_coalesced.cu) does by swapping the thread map. Row-major C = A B, FP32.
"""
import torch
import triton
import triton.language as tl

BLOCK = 128


@triton.jit
def _coalesced(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)  # rows on axis 0 (2^31 programs), column blocks on 1
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    ok = cols < N
    pa = a + row * sam
    pb = b + cols * sbn
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for _ in range(0, K):
        acc += tl.load(pa) * tl.load(pb, mask=ok, other=0.0)
        pa += sak
        pb += sbk
    tl.store(c + row * scm + cols * scn, acc, mask=ok)


def launch(a, b, c):
    m, k = a.shape
    n = b.shape[1]
    strides = (*a.stride(), *b.stride(), *c.stride())
    return _coalesced[(m, triton.cdiv(n, BLOCK))](a, b, c, m, n, k, *strides, BLOCK=BLOCK,
                                                  num_warps=4)


def matmul(a, b):
    c = torch.empty((a.shape[0], b.shape[1]), device=a.device, dtype=torch.float32)
    launch(a, b, c)
    return c
