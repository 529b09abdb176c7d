"""test_torch_cpu.py — gemmkit.gemm / matmul on torch CPU tensors (python/gemmkit/_torch_cpu.py):
float32, bfloat16 and float16 operands and results, transposed and sliced views passed without a
copy of their own, c updated in place and returned as the same tensor, the result type without
c, batched 3-D tensors, mixing a tensor with a numpy array, and the refusals (requires_grad, an
integer dtype). Results against float64 with the accuracy rule of docs/testing.md (harness.py),
plus the rounding of a bfloat16/float16 result. Skips without torch (and bfloat16 without
ml_dtypes).
"""
import numpy as np

from cases import Skip, case, run

import gemmkit
import harness

try:
    import torch
except ImportError:
    torch = None
try:
    import ml_dtypes
except ImportError:
    ml_dtypes = None

U_OUT = {"float32": 0.0, "bfloat16": 2.0 ** -8, "float16": 2.0 ** -11}


def need(*types):
    if torch is None:
        raise Skip("torch is not installed")
    if "bfloat16" in types and ml_dtypes is None:
        raise Skip("ml_dtypes is not installed")


def rand(t, *shape, seed=0):
    g = torch.Generator().manual_seed(seed + sum(shape))
    return (torch.rand(*shape, generator=g) * 2 - 1).to(getattr(torch, t))


def f64(x):
    return None if x is None else x.to(torch.float64).numpy()


def check(c, a, b, alpha=1.0, beta=0.0, c0=None, what=""):
    name = str(c.dtype).rsplit(".", 1)[-1]
    harness.check_product(f64(c), f64(a), f64(b), alpha, beta, f64(c0), what,
                          u_in=U_OUT[name] / 2)


@case
def every_type_pair():
    need("bfloat16")
    for at in ("float32", "bfloat16", "float16"):
        for ct in ("float32", "bfloat16", "float16"):
            if at == "float32" and ct != "float32":
                continue  # float32 operands take the float32 path, whose c is float32
            a, b = rand(at, 37, 131), rand(at, 131, 29, seed=1)
            c0 = rand(ct, 37, 29, seed=2)
            c = c0.clone()
            out = gemmkit.gemm(a, b, c, alpha=0.5, beta=-1.0)
            assert out is c, "gemm did not return the tensor c it updated"
            check(c, a, b, 0.5, -1.0, c0, f"{at}->{ct}")


@case
def views_and_result_type():
    need("bfloat16")
    for t in ("float32", "float16", "bfloat16"):
        a = rand(t, 70, 50).T          # a transposed view: 50 x 70
        b = rand(t, 90, 100, seed=3)[10:80, 5:45]  # a slice: 70 x 40, row stride 100
        c = gemmkit.matmul(a, b)
        assert isinstance(c, torch.Tensor) and c.dtype == a.dtype, f"{t}: result {type(c)}"
        check(c, a, b, what=f"{t} views")
        big = torch.zeros(60, 80, dtype=torch.float32)
        c = big[5:55, 3:43]            # a strided c: written in place
        gemmkit.gemm(a, b, c)
        check(c, a, b, what=f"{t} into a strided float32 c")
        assert big[:5].abs().sum() == 0 and big[:, :3].abs().sum() == 0, "wrote outside c"


@case
def batched_and_mixed():
    need()
    a, b = rand("float32", 6, 20, 30), rand("float32", 6, 30, 10, seed=4)
    c = gemmkit.matmul(a, b)
    assert tuple(c.shape) == (6, 20, 10), f"shape {tuple(c.shape)}"
    for i in range(6):
        check(c[i], a[i], b[i], what=f"batch item {i}")
    bn = np.asarray(rand("float32", 30, 10, seed=5))
    c = gemmkit.matmul(a[0], bn)  # tensor @ numpy: the tensor decides the result type
    assert isinstance(c, torch.Tensor), f"result {type(c)}"
    check(c, a[0], torch.from_numpy(bn), what="tensor @ numpy")


@case
def refusals():
    need()
    a = rand("float32", 4, 4).requires_grad_()
    b = rand("float32", 4, 4)
    for bad, what in ((a, "requires grad"), (torch.ones(4, 4, dtype=torch.int32), "dtype")):
        try:
            gemmkit.matmul(bad, b)
        except TypeError as e:
            assert what in str(e), f"message '{e}' lacks '{what}'"
        else:
            raise AssertionError(f"a tensor that {what} was accepted")


if __name__ == "__main__":
    run()
