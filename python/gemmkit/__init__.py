"""gemmkit — Python binding (ctypes, no compiler needed) of the gemmkit SGEMM library.

    import numpy as np, gemmkit
    c = gemmkit.matmul(a, b)                       # a @ b in float32
    gemmkit.gemm(a, b, c, trans_a=True, alpha=2.0, beta=1.0)   # c = 2 a.T @ b + c, in place

numpy float32 arrays of any strides are accepted: C- or F-ordered arrays, transposed views and
row- or column-padded slices are passed to the library as they are (the leading dimension comes
from the strides); anything else is copied first. CUDA arrays (torch tensors, objects with
__cuda_array_interface__ or a CUDA __dlpack__, e.g. cupy arrays) run on the GPU when the library
has the CUDA backend, in float32, bfloat16, float16, float8_e4m3fn or float8_e5m2 (docs/python.md,
"Mixed precision"). Failures raise GemmkitError carrying the library's status and message; shape,
dtype and writability mistakes raise ValueError / TypeError before any call.
"""
import numpy as np

from . import _cuda
from . import formats  # low-precision formats and MX scaling: gemmkit.formats
from ._layout import Operand, gemm_shape, operand_args, output_layout
from ._lib import GemmkitError, Status, CpuInfo, check, lib, library_path

__all__ = ["matmul", "gemm", "set_num_threads", "get_num_threads", "set_arch", "info",
           "cuda_available", "version", "GemmkitError", "Status", "library_path", "formats"]


def version():
    """The library's version string, e.g. "0.1.0"."""
    return lib.gk_version().decode()


def cuda_available():
    """True when the library has the CUDA backend and a device answers."""
    return bool(lib.gk_cuda_available())


def set_num_threads(n):
    """Threads used by CPU calls, process-wide; 0 returns to the default (GEMMKIT_NUM_THREADS,
    else OMP_NUM_THREADS, else the online cores)."""
    check(lib.gk_set_num_threads(int(n)))


def get_num_threads():
    """Threads a CPU call made now will use."""
    return lib.gk_get_num_threads()


def set_arch(name=None):
    """Force the CPU kernel family ("generic", "avx2", "avx512"); None or "auto" for cpuid."""
    check(lib.gk_set_arch(None if name is None else name.encode()))


def info():
    """What the library will do: version, path, CPU kernel choice and blocking, CUDA state."""
    cpu = CpuInfo()
    check(lib.gk_cpu_get_info(cpu))
    fields = {}
    for name, _ in CpuInfo._fields_:
        value = getattr(cpu, name)
        fields[name] = value.decode(errors="replace") if isinstance(value, bytes) else value
    return {"version": version(), "library": library_path, "cpu": fields,
            "cuda_available": cuda_available(), "cuda_kernels": lib.gk_cuda_kernel_count()}


def _host_array(x, name):
    """x as a 2-D-or-not numpy float32 array; lists are converted, other dtypes refused."""
    if isinstance(x, np.ndarray):
        if x.dtype != np.float32:
            raise TypeError(f"gemmkit: {name} has dtype {x.dtype}; gemmkit computes in float32 "
                            f"(convert with .astype(np.float32))")
        return x
    return np.asarray(x, dtype=np.float32)


def _operand(x):
    return Operand(x.ctypes.data, x.shape, x.strides)


def gemm(a, b, c=None, trans_a=False, trans_b=False, alpha=1.0, beta=0.0, *, scale_a=None,
         scale_b=None, fp32_mode=None, fp8_fast_accum=False):
    """c = alpha * op(a) @ op(b) + beta * c, op(x) = x.T when trans_x; returns c.

    c is updated in place (it must be a writable array of shape m x n: float32, or on the GPU
    also bfloat16 or float16); without c a new array is returned and beta must be 0. With
    beta == 0, c is not read (NaN in it do not propagate). CUDA arrays are dispatched to the GPU
    (see the module docstring); only there do the keywords apply: scale_a/scale_b, one-element
    float32 device arrays multiplying a and b (per-tensor FP8 scales); fp32_mode for float32
    operands, "simt" (the default), "3xtf32" or "tf32"; fp8_fast_accum. Result type without c:
    bfloat16 for FP8 operands, else theirs."""
    if _cuda.is_device_array(a) or _cuda.is_device_array(b) or _cuda.is_device_array(c):
        return _cuda.gemm(a, b, c, trans_a, trans_b, alpha, beta, scale_a, scale_b, fp32_mode,
                          fp8_fast_accum)
    if scale_a is not None or scale_b is not None or fp32_mode is not None or fp8_fast_accum:
        raise ValueError("gemmkit: scale_a, scale_b, fp32_mode and fp8_fast_accum apply to CUDA "
                         "arrays; the CPU multiplies float32")
    a, b = _host_array(a, "a"), _host_array(b, "b")
    m, n, k = gemm_shape(a.shape, b.shape, trans_a, trans_b)
    if c is None:
        if beta != 0:
            raise ValueError("gemmkit: beta != 0 needs c (the matrix to scale and add to)")
        c = np.empty((m, n), dtype=np.float32)
    elif not isinstance(c, np.ndarray) or c.dtype != np.float32:
        raise ValueError("gemmkit: c/out must be a float32 numpy array")
    if c.shape != (m, n):
        raise ValueError(f"gemmkit: c/out has shape {c.shape}, the product is {(m, n)}")
    if not c.flags.writeable:
        raise ValueError("gemmkit: c/out is read-only")

    # Writing C while A or B still have to be read from overlapping memory would be wrong.
    direct = output_layout(_operand(c))
    if direct is None or np.may_share_memory(c, a) or np.may_share_memory(c, b):
        tmp = np.array(c, order="C") if beta != 0 else np.empty((m, n), dtype=np.float32)
        gemm(a, b, tmp, trans_a, trans_b, alpha, beta)
        c[...] = tmp
        return c
    layout, ldc = direct

    args = []
    for x, t in ((a, trans_a), (b, trans_b)):
        plan = operand_args(_operand(x), layout, bool(t))
        if plan is None:  # strides that no leading dimension describes
            x = np.ascontiguousarray(x)
            plan = operand_args(_operand(x), layout, bool(t))
        args.append((x, plan))
    (a, (ta, lda)), (b, (tb, ldb)) = args
    check(lib.gk_sgemm(layout, ta, tb, m, n, k, float(alpha), a.ctypes.data, lda,
                       b.ctypes.data, ldb, float(beta), c.ctypes.data, ldc))
    return c


def matmul(a, b, out=None, alpha=1.0, beta=0.0, **gpu):
    """alpha * a @ b (+ beta * out), written to out when given; returns the result. The keywords
    of gemm for CUDA arrays (scale_a, scale_b, fp32_mode, fp8_fast_accum) are passed on."""
    return gemm(a, b, out, False, False, alpha, beta, **gpu)
