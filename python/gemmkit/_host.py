"""_host.py — the host (CPU) path of 2-D products: float32 operands (gk_sgemm, sgemm below) and,
through run(), BF16/FP16 operands (gk_gemm_ex, _lowp.py): the checks of C, a temporary C when C
overlaps A or B or no leading dimension describes it, the operands' layout arguments (copied only
when no leading dimension describes their strides: docs/python.md, "Strides"), then one library
call.
"""
import numpy as np

from ._layout import Operand, gemm_shape, operand_args, output_layout
from ._lib import check, lib


def host_array(x, name):
    """x as a numpy float32 array; lists are converted, other dtypes refused."""
    if isinstance(x, np.ndarray):
        if x.dtype != np.float32:
            raise TypeError(f"gemmkit: {name} has dtype {x.dtype}; gemmkit computes in float32 "
                            f"(convert with .astype(np.float32))")
        return x
    return np.asarray(x, dtype=np.float32)


def operand(x):
    return Operand(x.ctypes.data, x.shape, x.strides, x.itemsize)


def run(a, b, c, trans_a, trans_b, alpha, beta, c_types, c_new, call):
    """c = alpha op(a) op(b) + beta c on numpy arrays a, b of a type the library call takes; c of
    one of the dtype names c_types, or None (a new c_new array; beta must then be 0). call(layout,
    ta, tb, m, n, k, a, lda, b, ldb, c, ldc) makes the call on the arrays it is given. Returns c."""
    m, n, k = gemm_shape(a.shape, b.shape, trans_a, trans_b)
    if c is None:
        if beta != 0:
            raise ValueError("gemmkit: beta != 0 needs c (the matrix to scale and add to)")
        c = np.empty((m, n), dtype=c_new)
    elif not isinstance(c, np.ndarray) or c.dtype.name not in c_types:
        raise ValueError("gemmkit: c/out must be a %s numpy array" % ", ".join(c_types))
    if c.shape != (m, n):
        raise ValueError(f"gemmkit: c/out has shape {c.shape}, the product is {(m, n)}")
    if not c.flags.writeable:
        raise ValueError("gemmkit: c/out is read-only")
    # Writing C while A or B still have to be read from overlapping memory would be wrong.
    direct = output_layout(operand(c))
    if direct is None or np.may_share_memory(c, a) or np.may_share_memory(c, b):
        tmp = np.array(c, order="C") if beta != 0 else np.empty((m, n), dtype=c.dtype)
        run(a, b, tmp, trans_a, trans_b, alpha, beta, c_types, c_new, call)
        c[...] = tmp
        return c
    layout, ldc = direct
    args = []
    for x, t in ((a, trans_a), (b, trans_b)):
        plan = operand_args(operand(x), layout, bool(t))
        if plan is None:  # strides that no leading dimension describes
            x = np.ascontiguousarray(x)
            plan = operand_args(operand(x), layout, bool(t))
        args.append((x, plan))
    (a, (ta, lda)), (b, (tb, ldb)) = args
    call(layout, ta, tb, m, n, k, a, lda, b, ldb, c, ldc)
    return c


def sgemm(a, b, c, trans_a, trans_b, alpha, beta):
    """gemmkit.gemm on 2-D float32 numpy arrays (host_array's): one gk_sgemm call."""

    def call(layout, ta, tb, m, n, k, a, lda, b, ldb, c, ldc):
        check(lib.gk_sgemm(layout, ta, tb, m, n, k, float(alpha), a.ctypes.data, lda,
                           b.ctypes.data, ldb, float(beta), c.ctypes.data, ldc))

    return run(a, b, c, trans_a, trans_b, alpha, beta, ("float32",), np.float32, call)
