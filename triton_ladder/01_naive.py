"""Step 1 in Triton — naive: every output a K-long loop of scalar FMAs read from global memory.

A program computes BLOCK consecutive rows of one column of C. Its threads hold consecutive rows,
so per k they load A elements one row (lda floats) apart and store C the same way: the
uncoalesced map of the CUDA step (01_naive.cu), which Triton cannot repair because the
addresses really are strided. Row-major C = A B, FP32.
"""
import torch
import triton
import triton.language as tl

BLOCK = 128


@triton.jit
def _naive(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn, BLOCK: tl.constexpr):
    col = tl.program_id(0)  # columns on axis 0 (2^31 programs), row blocks on axis 1
    rows = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    ok = rows < M
    pa = a + rows.to(tl.int64) * sam  # 64-bit: row * lda may pass 2^31
    pb = b + col.to(tl.int64) * sbn
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for _ in range(0, K):  # pointers advance, so k * ldb never overflows 32 bits
        acc += tl.load(pa, mask=ok, other=0.0) * tl.load(pb)
        pa += sak
        pb += sbk
    tl.store(c + rows.to(tl.int64) * scm + col * scn, acc, mask=ok)


def launch(a, b, c):
    m, k = a.shape
    n = b.shape[1]
    strides = (*a.stride(), *b.stride(), *c.stride())
    return _naive[(n, triton.cdiv(m, BLOCK))](a, b, c, m, n, k, *strides, BLOCK=BLOCK, num_warps=4)


def matmul(a, b):
    c = torch.empty((a.shape[0], b.shape[1]), device=a.device, dtype=torch.float32)
    launch(a, b, c)
    return c
