"""test_batched.py — gemmkit.gemm / matmul on 3-D operands (batch first): numpy stacks through
gk_sgemm_strided_batched checked against the float64 reference item by item (views, transposes,
broadcast 2-D operands and batches of one, out= in either order, beta, overlapping out), the
exact gk_cuda_sgemm_strided_batched arguments for CUDA arrays from a stand-in library, and, with
torch and a GPU, real 3-D CUDA tensors against torch's float64 product.
"""
import numpy as np

from cases import case, run, cuda_torch, FakeCudaArray, RecordingLib
from harness import check_product, rand

import gemmkit
from gemmkit import _cuda, _layout


def raises(exc, fn, *args, **kw):
    try:
        fn(*args, **kw)
    except exc:
        return
    raise AssertionError(f"{fn.__name__} did not raise {exc.__name__}")


@case
def numpy_stacks():
    rng = np.random.default_rng(18)
    for batch, m, n, k in ((1, 3, 4, 5), (7, 1, 9, 2), (5, 17, 3, 8), (33, 8, 8, 8), (0, 4, 4, 4),
                           (3, 0, 5, 2), (4, 6, 5, 0)):
        a, b = rand(rng, batch, m, k), rand(rng, batch, k, n)
        check_product(gemmkit.matmul(a, b), a, b, what=f"{batch}x{m}x{n}x{k}")
        # transposed views of each item, an F-ordered out with beta
        at = np.ascontiguousarray(a.transpose(0, 2, 1)).transpose(0, 2, 1)
        bt = np.ascontiguousarray(b.transpose(0, 2, 1))
        c0 = rand(rng, batch, n, m).transpose(0, 2, 1)
        c = c0.copy(order="K")
        r = gemmkit.gemm(at, bt, c, trans_b=True, alpha=0.5, beta=2.0)
        assert r is c
        check_product(c, a, b, 0.5, 2.0, c0, what=f"views {batch}x{m}x{n}x{k}")


@case
def numpy_broadcast_and_copies():
    rng = np.random.default_rng(19)
    a, b = rand(rng, 6, 5, 4), rand(rng, 4, 3)
    check_product(gemmkit.matmul(a, b), a, np.broadcast_to(b, (6, 4, 3)), what="2-D b")
    check_product(gemmkit.matmul(b.T, a.transpose(0, 2, 1)), np.broadcast_to(b.T, (6, 3, 4)),
                  a.transpose(0, 2, 1), what="2-D a")
    check_product(gemmkit.matmul(a[:1], b[None]), a[:1], b[None], what="batches of one")
    w6 = rand(rng, 6, 4, 2)
    check_product(gemmkit.matmul(a[:1], w6), np.broadcast_to(a[:1], (6, 5, 4)), w6,
                  what="a batch of one against six")
    big = rand(rng, 12, 10, 9)
    v = big[::2, 1:6, ::2]  # steps in both item dimensions: copied
    w = rand(rng, 6, 5, 2)
    check_product(gemmkit.matmul(v, w), v, w, what="strided view")
    # out overlapping an operand, and out whose items overlap (stride 0): via a temporary
    x = rand(rng, 4, 5, 5)
    want = x @ x
    gemmkit.matmul(x, x, out=x)
    assert np.allclose(x, want, atol=1e-5)
    raises(ValueError, gemmkit.matmul, rand(rng, 3, 2, 4), rand(rng, 2, 4, 2))  # 3 vs 2 items
    raises(ValueError, gemmkit.matmul, rand(rng, 3, 2, 4), rand(rng, 3, 5, 2))  # k differs
    raises(ValueError, gemmkit.matmul, rand(rng, 3, 2, 4), rand(rng, 3, 4, 2),
           out=np.zeros((3, 2, 3), np.float32))
    raises(ValueError, gemmkit.gemm, rand(rng, 3, 2, 4), rand(rng, 3, 4, 2), beta=1.0)


@case
def cuda_batched_plumbing():
    real, contexts, fake = _cuda.lib, _cuda.contexts, RecordingLib()
    _cuda.lib, _cuda.contexts = fake, _cuda._Contexts()
    R, C, N, T = _layout.ROW, _layout.COL, _layout.NO_TRANS, _layout.TRANS
    try:
        # a: 4 items of 6x3, C-contiguous; b: one 3x5 matrix for every item; c: 4 x 6x5 on a
        # user stream
        a = FakeCudaArray((4, 6, 3), ptr=0x1000)
        b = FakeCudaArray((3, 5), ptr=0x2000)
        c = FakeCudaArray((4, 6, 5), ptr=0x3000, stream=0x77)
        assert gemmkit.gemm(a, b, c, alpha=2.0, beta=0.5) is c
        want = ("gk_cuda_sgemm_strided_batched", R, N, N, 6, 5, 3, 2.0, 0x1000, 3, 18, 0x2000, 5,
                0, 0.5, 0x3000, 5, 30, 4)
        assert fake.calls == [("create", 0, 0x77), want], fake.calls
        # b's items transposed views (column-major, ld 8) 40 floats apart; c's column-major items
        # padded to ld 7, 50 apart; trans_a on row-major items read column-major: no transposition
        fake.calls.clear()
        bt = FakeCudaArray((4, 3, 5), strides=(160, 4, 32), ptr=0x4000)
        at = FakeCudaArray((4, 3, 6), ptr=0x1000)  # op(a) = a.T per item
        cf = FakeCudaArray((4, 6, 5), strides=(200, 4, 28), ptr=0x5000, stream=0x77)
        gemmkit.gemm(at, bt, cf, trans_a=True)
        want = ("gk_cuda_sgemm_strided_batched", C, N, N, 6, 5, 3, 1.0, 0x1000, 6, 18, 0x4000, 8,
                40, 0.0, 0x5000, 7, 50, 4)
        assert fake.calls == [want], fake.calls
        # out whose items overlap, a non-float32 operand, fp32_mode: refused before any call
        fake.calls.clear()
        raises(ValueError, gemmkit.gemm, a, b, FakeCudaArray((4, 6, 5), strides=(4, 20, 4)))
        raises(TypeError, gemmkit.gemm, FakeCudaArray((4, 6, 3), "<f2"),
               FakeCudaArray((3, 5), "<f2"), FakeCudaArray((4, 6, 5), "<f2"))
        raises(ValueError, gemmkit.gemm, a, b, c, fp32_mode="tf32")
        raises(ValueError, gemmkit.gemm, a, FakeCudaArray((3, 3, 5)), c)
        assert fake.calls == [], fake.calls
    finally:
        _cuda.lib, _cuda.contexts = real, contexts


@case
def torch_batched():
    torch = cuda_torch()
    g = torch.Generator(device="cuda").manual_seed(18)
    for batch, m, n, k in ((64, 64, 64, 64), (7, 33, 17, 9), (3, 300, 200, 100)):
        a = torch.rand(batch, m, k, device="cuda", generator=g) * 2 - 1
        b = torch.rand(batch, k, n, device="cuda", generator=g) * 2 - 1
        for x, y, ta, tb in ((a, b, False, False), (a.transpose(1, 2), b, True, False),
                             (a, b.transpose(1, 2).contiguous(), False, True)):
            c = gemmkit.gemm(x, y, trans_a=ta, trans_b=tb)
            torch.cuda.synchronize()
            check_product(c.cpu().numpy(), a.cpu().numpy(), b.cpu().numpy(),
                          what=f"torch {batch}x{m}x{n}x{k} {ta} {tb}")
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        c = gemmkit.matmul(a, b[0])
    s.synchronize()
    check_product(c.cpu().numpy(), a.cpu().numpy(), b[0].cpu().numpy()[None].repeat(3, 0),
                  what="torch broadcast b on a side stream")


if __name__ == "__main__":
    run()
