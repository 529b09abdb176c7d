"""Batched products of 3-D arrays (batch first): gemmkit.gemm / matmul on a stack of matrices run
one gk_sgemm_strided_batched call (numpy) or gk_cuda_sgemm_strided_batched call (CUDA arrays).

An operand is a batch of 2-D items one batch stride apart; each item is read as _layout reads a
2-D array (the same leading dimension and transposition for every item). A 2-D operand next to a
3-D one, or a batch dimension of 1, is the same matrix for every item (stride 0), as in
numpy.matmul's broadcasting. The output gets its own batch stride, which must keep its items
apart; numpy operands whose strides fit no such description are copied, CUDA ones made contiguous
by their framework (docs/python.md, "Batches").
"""
import ctypes

from ._layout import Operand, gemm_shape, operand_args, output_layout
from ._lib import lib

_i64, _int, _f32, _vp = ctypes.c_int64, ctypes.c_int, ctypes.c_float, ctypes.c_void_p
_STRIDED = [_int, _int, _int, _i64, _i64, _i64, _f32, _vp, _i64, _i64, _vp, _i64, _i64, _f32, _vp,
            _i64, _i64, _i64]
lib.gk_sgemm_strided_batched.restype = _int
lib.gk_sgemm_strided_batched.argtypes = _STRIDED
lib.gk_cuda_sgemm_strided_batched.restype = _int
lib.gk_cuda_sgemm_strided_batched.argtypes = [_vp] + _STRIDED


def is_batched(*shapes):
    return any(s is not None and len(s) == 3 for s in shapes)


def shape(a_shape, b_shape, trans_a, trans_b):
    """(batch, m, n, k) of a batched product; a 2-D operand or a batch of 1 is broadcast."""
    for s, name in ((a_shape, "a"), (b_shape, "b")):
        if len(s) not in (2, 3):
            raise ValueError(f"gemmkit: {name} must be 2-D or 3-D (batch first), not {len(s)}-D")
    ba = a_shape[0] if len(a_shape) == 3 else 1
    bb = b_shape[0] if len(b_shape) == 3 else 1
    if ba != bb and 1 not in (ba, bb):
        raise ValueError(f"gemmkit: batch sizes differ: a has {ba} items, b has {bb}")
    m, n, k = gemm_shape(a_shape[-2:], b_shape[-2:], trans_a, trans_b)
    return max(ba, bb), m, n, k


def item(op):
    """(2-D Operand of item 0, batch stride in elements) of an operand; None where the batch
    stride is not a whole, non-negative number of elements. 2-D operands and batches of one have
    stride 0 (broadcast)."""
    if len(op.shape) == 2:
        return op, 0
    if 0 in op.shape:  # nothing is read or written; the strides may say anything (numpy: 0)
        rows, cols = op.shape[1:]
        return Operand(op.ptr, (rows, cols), (max(cols, 1) * op.itemsize, op.itemsize),
                       op.itemsize), 0
    two = Operand(op.ptr, op.shape[1:], op.strides[1:], op.itemsize)
    if op.shape[0] == 1:
        return two, 0
    s = op.strides[0]
    if s < 0 or s % op.itemsize:
        return None
    return two, s // op.itemsize


def c_args(c_op, batch):
    """(layout, ldc, stride_c) for writing the batched output in place, or None (a temporary):
    its items must fit a layout and lie apart (stride at least one item's extent)."""
    it = item(c_op)
    if it is None:
        return None
    two, stride = it
    direct = output_layout(two)
    if direct is None:
        return None
    layout, ldc = direct
    rows, cols = two.shape if layout == 101 else two.shape[::-1]
    extent = (rows - 1) * ldc + cols if rows and cols else 0
    if batch > 1 and stride < extent:
        return None
    return layout, ldc, stride


def operand(op, layout, transposed):
    """(gk_trans, ld, batch stride) for an input operand, or None when it must be copied."""
    it = item(op)
    if it is None:
        return None
    two, stride = it
    plan = operand_args(two, layout, transposed)
    return None if plan is None else plan + (stride,)


def strided_args(layout, m, n, k, alpha, a, a_plan, b, b_plan, beta, c, c_plan, batch):
    """The argument list of gk_(cuda_)sgemm_strided_batched after the context."""
    (ta, lda, sa), (tb, ldb, sb), (_, ldc, sc) = a_plan, b_plan, c_plan
    return [layout, ta, tb, m, n, k, float(alpha), a, lda, sa, b, ldb, sb, float(beta), c, ldc, sc,
            batch]


def _np_operand(x):
    return Operand(x.ctypes.data, x.shape, x.strides)


def host_gemm(a, b, c, trans_a, trans_b, alpha, beta):
    """gemmkit.gemm for float32 numpy operands of which at least one is 3-D."""
    import numpy as np

    from ._lib import check
    batch, m, n, k = shape(a.shape, b.shape, trans_a, trans_b)
    if c is None:
        if beta != 0:
            raise ValueError("gemmkit: beta != 0 needs c (the matrix to scale and add to)")
        c = np.empty((batch, m, n), dtype=np.float32)
    elif not isinstance(c, np.ndarray) or c.dtype != np.float32:
        raise ValueError("gemmkit: c/out must be a float32 numpy array")
    if c.shape != (batch, m, n):
        raise ValueError(f"gemmkit: c/out has shape {c.shape}, the product is {(batch, m, n)}")
    if not c.flags.writeable:
        raise ValueError("gemmkit: c/out is read-only")
    c_plan = c_args(_np_operand(c), batch)
    if c_plan is None or np.may_share_memory(c, a) or np.may_share_memory(c, b):
        tmp = np.array(c, order="C") if beta != 0 else np.empty((batch, m, n), dtype=np.float32)
        host_gemm(a, b, tmp, trans_a, trans_b, alpha, beta)
        c[...] = tmp
        return c
    plans = []
    for x, t in ((a, trans_a), (b, trans_b)):
        plan = operand(_np_operand(x), c_plan[0], bool(t))
        if plan is None:  # strides that no leading dimension or batch stride describes
            x = np.ascontiguousarray(x)
            plan = operand(_np_operand(x), c_plan[0], bool(t))
        plans.append((x, plan))
    (a, a_plan), (b, b_plan) = plans
    check(lib.gk_sgemm_strided_batched(*strided_args(c_plan[0], m, n, k, alpha, a.ctypes.data,
                                                      a_plan, b.ctypes.data, b_plan, beta,
                                                      c.ctypes.data, c_plan, batch)))
    return c
