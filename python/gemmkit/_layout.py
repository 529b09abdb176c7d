"""How a strided 2-D array maps onto a BLAS operand without copying.

A matrix whose elements are contiguous along rows (unit column stride) is a row-major operand
with leading dimension = row stride; contiguous along columns, a column-major one. Reading a
row-major array as column-major gives its transpose, so an operand stored in the other order than
the call's layout is passed transposed. Shared by the CPU (numpy) and CUDA (device array) paths.
"""
from collections import namedtuple

ROW, COL = 101, 102  # gk_layout
NO_TRANS, TRANS = 111, 112  # gk_trans
# strides in bytes; itemsize: bytes per element (float32 unless a CUDA operand says otherwise)
Operand = namedtuple("Operand", "ptr shape strides itemsize", defaults=(4,))


def lds(ptr, shape, strides, item):
    """(leading dimension as a row-major operand, as a column-major one), None where the array
    cannot be read in that order as it is; shape and strides (bytes) of a 2-D array.

    A dimension of extent 1 has no meaningful stride, and an empty matrix is never read, so both
    are given the smallest leading dimension BLAS accepts. Tuples, not an Operand: the CUDA path
    calls this on every GEMM and keeps its per-call work small (docs/python.md, "Contexts")."""
    r, c = shape
    if r == 0 or c == 0:
        return max(1, c), max(1, r)
    if ptr % item:
        return None, None
    s0, s1 = strides
    row = col = None
    if (c == 1 or s1 == item) and (r == 1 or (s0 % item == 0 and s0 // item >= c)):
        row = s0 // item if r > 1 else c
    if (r == 1 or s0 == item) and (c == 1 or (s1 % item == 0 and s1 // item >= r)):
        col = s1 // item if c > 1 else r
    return row, col


def orders(op):
    """{layout: leading dimension} for every layout the operand can be read in as it is."""
    row, col = lds(op.ptr, op.shape, op.strides, op.itemsize)
    return {k: v for k, v in ((ROW, row), (COL, col)) if v is not None}


def output_fit(fit):
    """(layout, ldc) for writing C in place from its lds(), or None (a temporary is needed)."""
    row, col = fit
    if row is not None:
        return ROW, row
    return None if col is None else (COL, col)


def output_layout(c):
    """Layout and ldc for writing C in place, or None when C must go through a temporary."""
    return output_fit(lds(c.ptr, c.shape, c.strides, c.itemsize))


def operand_fit(fit, layout, transposed):
    """(gk_trans, ld) for an operand whose lds() are `fit` in a `layout` call (op() applied when
    `transposed`), or None when its strides fit neither order and it must be copied. Stored in
    the other order, it is read as its transpose."""
    row, col = fit
    same, other = (row, col) if layout == ROW else (col, row)
    if same is not None:
        return (TRANS if transposed else NO_TRANS), same
    if other is not None:
        return (NO_TRANS if transposed else TRANS), other
    return None


def operand_args(op, layout, transposed):
    """(gk_trans, ld) for passing `op` (op() applied when `transposed`) in a `layout` call, or
    None when its strides fit neither order and it must be copied."""
    return operand_fit(lds(op.ptr, op.shape, op.strides, op.itemsize), layout, transposed)


def gemm_shape(a_shape, b_shape, trans_a, trans_b):
    """(m, n, k) of op(A) @ op(B), or ValueError naming the mismatch."""
    if len(a_shape) != 2 or len(b_shape) != 2:
        raise ValueError(f"gemmkit: a and b must be 2-D (got {len(a_shape)}-D and "
                         f"{len(b_shape)}-D)")
    m, k = (a_shape[1], a_shape[0]) if trans_a else a_shape
    kb, n = (b_shape[1], b_shape[0]) if trans_b else b_shape
    if k != kb:
        raise ValueError(f"gemmkit: inner dimensions differ: op(a) is {m}x{k}, op(b) is {kb}x{n}")
    return m, n, k
