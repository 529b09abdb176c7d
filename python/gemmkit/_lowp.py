"""BF16/FP16 host arrays: gemmkit.gemm / matmul on numpy arrays of ml_dtypes' bfloat16 or numpy's
float16 run gk_gemm_ex on the CPU (docs/cpu.md, "Low precision (BF16/FP16)"): float32
accumulation, C rounded once to its type. A and B must have the same type (bfloat16, float16 or
float32); C may be float32, bfloat16 or float16 (without c: the operands' type). Strided arrays
are passed as they are where a leading dimension describes them, as for float32.
"""
import ctypes

import numpy as np

from . import formats
from . import _host
from ._lib import check, lib

_i64, _int, _f32, _vp = ctypes.c_int64, ctypes.c_int, ctypes.c_float, ctypes.c_void_p
lib.gk_gemm_ex.restype = _int
lib.gk_gemm_ex.argtypes = [_int, _int, _int, _i64, _i64, _i64, _f32, _int, _vp, _i64, _int, _vp,
                           _i64, _f32, _int, _vp, _i64]

_TYPES = ("float32", "bfloat16", "float16")
_LOW = ("bfloat16", "float16")


def _name(x):
    return x.dtype.name if isinstance(x, np.ndarray) else None


def wants(a, b, c):
    """Whether a host call is a low-precision one: an operand or c in bfloat16 or float16."""
    return any(_name(x) in _LOW for x in (a, b, c))


def host_gemm(a, b, c, trans_a, trans_b, alpha, beta):
    a = a if isinstance(a, np.ndarray) else np.asarray(a, dtype=np.float32)
    b = b if isinstance(b, np.ndarray) else np.asarray(b, dtype=np.float32)
    if _name(a) not in _TYPES or _name(b) != _name(a):
        raise TypeError(f"gemmkit: a and b have dtypes {a.dtype} and {b.dtype}; on the CPU both "
                        f"are float32, bfloat16 or float16")

    def call(layout, ta, tb, m, n, k, a, lda, b, ldb, c, ldc):
        at, ct = formats.info(_name(a)).id, formats.info(_name(c)).id
        check(lib.gk_gemm_ex(layout, ta, tb, m, n, k, float(alpha), at, a.ctypes.data, lda, at,
                             b.ctypes.data, ldb, float(beta), ct, c.ctypes.data, ldc))

    return _host.run(a, b, c, trans_a, trans_b, alpha, beta, _TYPES, a.dtype, call)
