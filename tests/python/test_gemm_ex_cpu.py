"""test_gemm_ex_cpu.py — gemmkit.gemm / matmul on bfloat16 (ml_dtypes) and float16 numpy arrays,
which run gk_gemm_ex on the CPU: every operand/result type pair, transpositions, strided and
F-ordered arrays, beta with NaN-free and NaN c, the result type without c, and the type errors;
results against numpy float64 with the accuracy rule of docs/testing.md (harness.py) plus the
rounding of a bfloat16/float16 result (operands are exact in float32, so their products are too).
"""
import numpy as np

from cases import Skip, case, run

import gemmkit
import harness

try:
    import ml_dtypes
except ImportError:
    ml_dtypes = None

rng = np.random.default_rng(1924)
U_OUT = {"float32": 0.0, "bfloat16": 2.0 ** -8, "float16": 2.0 ** -11}


def dtype(name):
    if name == "bfloat16":
        if ml_dtypes is None:
            raise Skip("ml_dtypes is not installed")
        return ml_dtypes.bfloat16
    return np.dtype(name)


def rand(t, *shape, order="C"):
    return np.asarray(rng.uniform(-1, 1, shape), order=order).astype(dtype(t))


def check(c, a, b, alpha=1.0, beta=0.0, c0=None, what=""):
    f = lambda x: None if x is None else np.asarray(x, dtype=np.float32)
    harness.check_product(np.asarray(c, dtype=np.float64), f(a), f(b), alpha, beta, f(c0), what,
                          u_in=U_OUT[np.dtype(c.dtype).name] / 2)


@case
def every_type_pair():
    for at in ("bfloat16", "float16", "float32"):
        for ct in ("float32", "bfloat16", "float16"):
            if "bfloat16" in (at, ct) and ml_dtypes is None:
                continue
            if at == "float32" and ct == "float32":
                continue  # the float32 path, tested elsewhere
            for m, n, k in ((1, 1, 1), (37, 29, 131), (64, 96, 300)):
                a, b = rand(at, m, k), rand(at, k, n)
                c0 = rand(ct, m, n)
                c = c0.copy()
                gemmkit.gemm(a, b, c, alpha=0.5, beta=-1.0)
                check(c, a, b, 0.5, -1.0, c0, f"{at}->{ct} {m}x{n}x{k}")


@case
def transposed_strided_and_f_order():
    for t in ("float16", "bfloat16"):  # bfloat16 (ml_dtypes) last: it may skip
        a = rand(t, 70, 50, order="F")
        b = rand(t, 40, 90)[:, ::1][:, 5:75]  # a column slice: row stride > row length
        c = gemmkit.gemm(a, b, None, trans_a=True, trans_b=True)  # 50 x 40
        check(c, a.T, b.T, what=f"{t} TT")
        assert c.dtype == dtype(t), f"result type {c.dtype}, want {t}"
        c = np.zeros((60, 80), dtype=np.float32)[5:55, 3:43]  # strided c: written in place
        gemmkit.gemm(a, b, c, trans_a=True, trans_b=True)
        check(c, a.T, b.T, what=f"{t} TT into a strided float32 c")


@case
def beta_zero_ignores_nan_in_c():
    a, b = rand("float16", 33, 17), rand("float16", 17, 45)
    c = np.full((33, 45), np.nan, dtype=np.float16)
    gemmkit.matmul(a, b, c)
    assert not np.isnan(c.astype(np.float32)).any(), "NaN from c leaked with beta = 0"
    check(c, a, b)


@case
def type_errors():
    a, b = rand("float16", 4, 4), rand("float32", 4, 4)
    try:
        gemmkit.gemm(a, b)
    except TypeError as e:
        assert "float16" in str(e), str(e)
    else:
        raise AssertionError("float16 x float32 was accepted")
    try:
        gemmkit.gemm(rand("float16", 4, 4), rand("float16", 4, 4), np.zeros((4, 4), np.float64))
    except ValueError:
        pass
    else:
        raise AssertionError("a float64 c was accepted")


run()
