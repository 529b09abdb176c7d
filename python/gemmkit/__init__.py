"""gemmkit — Python binding (ctypes, no compiler needed) of the gemmkit GEMM library.

    import numpy as np, gemmkit
    c = gemmkit.matmul(a, b)                       # a @ b in float32
    gemmkit.gemm(a, b, c, trans_a=True, alpha=2.0, beta=1.0)   # c = 2 a.T @ b + c, in place

numpy float32 arrays of any strides are accepted: C- or F-ordered arrays, transposed views and
row- or column-padded slices are passed to the library as they are (the leading dimension comes
from the strides); anything else is copied first. torch CPU tensors (float32, bfloat16, float16)
are taken as numpy views of their memory. CUDA arrays (torch tensors, objects with
__cuda_array_interface__ or a CUDA __dlpack__, e.g. cupy arrays) run on the GPU when the library
has the CUDA backend, in float32, bfloat16, float16, float8_e4m3fn or float8_e5m2 (docs/python.md,
"Mixed precision"). Block-scaled operands (FP8/FP6/FP4 codes with 1x128 / 128x128 float32 or
OCP MX E8M0 scales) are multiplied by gemm_scaled. Failures raise GemmkitError carrying the
library's status and message; shape, dtype and writability mistakes raise ValueError / TypeError
before any call.

This module is the front: the library's settings and queries, and the three products, each of
which hands its arguments to _dispatch.py, the one place that decides where a call goes.
"""
from . import _dispatch
from . import formats  # low-precision formats and MX scaling: gemmkit.formats
from ._lib import GemmkitError, Status, CpuInfo, check, lib, library_path
# Names this package has always exported beside __all__ (the layout constants and helpers).
from ._layout import NO_TRANS, ROW, TRANS, Operand, gemm_shape, operand_args, output_layout

__all__ = ["matmul", "gemm", "gemm_scaled", "set_num_threads", "get_num_threads", "set_arch",
           "info", "cuda_available", "version", "GemmkitError", "Status", "library_path",
           "formats"]


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
    """Force a CPU kernel family, process-wide. The float32 families: "generic", "avx2",
    "avx512" (bfloat16/float16 operands are then converted to float32 and multiplied on that
    family); the bfloat16 kernels: "avx512bf16", "amx" (float32 stays on the cpuid choice). None
    or "auto" returns to the cpuid choice. GemmkitError when the name is unknown or this CPU or
    build lacks the family."""
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


def gemm(a, b, c=None, trans_a=False, trans_b=False, alpha=1.0, beta=0.0, *, scale_a=None,
         scale_b=None, fp32_mode=None, fp8_fast_accum=False):
    """c = alpha * op(a) @ op(b) + beta * c, op(x) = x.T when trans_x; returns c.

    c is updated in place (it must be a writable array of shape m x n: float32, bfloat16 or
    float16); without c a new array is returned and beta must be 0. numpy bfloat16 (ml_dtypes)
    or float16 operands (both the same) run gk_gemm_ex on the CPU; torch CPU tensors run as
    numpy views of their memory (the result, without c, as a torch tensor). With
    beta == 0, c is not read (NaN in it do not propagate). CUDA arrays are dispatched to the GPU
    (see the module docstring); only there do the keywords apply: scale_a/scale_b, one-element
    float32 device arrays multiplying a and b (per-tensor FP8 scales); fp32_mode for float32
    operands, "simt" (the default), "3xtf32" or "tf32"; fp8_fast_accum. Result type without c:
    bfloat16 for FP8 operands, else theirs."""
    return _dispatch.gemm(a, b, c, trans_a, trans_b, alpha, beta, scale_a, scale_b, fp32_mode,
                          fp8_fast_accum)


def matmul(a, b, out=None, alpha=1.0, beta=0.0, **gpu):
    """alpha * a @ b (+ beta * out), written to out when given; returns the result. The keywords
    of gemm for CUDA arrays (scale_a, scale_b, fp32_mode, fp8_fast_accum) are passed on."""
    return gemm(a, b, out, False, False, alpha, beta, **gpu)


def gemm_scaled(a, a_scale, b, b_scale, scaling, *, a_format=None, b_format=None, c=None,
                trans_a=False, trans_b=False, alpha=1.0, beta=0.0, out_dtype=None):
    """Block-scaled GEMM: c = alpha * op(A) @ op(B) + beta * c, every element of op(A) (m x k) and
    op(B) (k x n) being a code times the scale of its block along K; returns c.

    scaling "block128": FP8 codes (float8_e4m3fn / float8_e5m2, not both e5m2) with float32
    scales, a_scale of shape (m, ceil(k/128)) (1 x 128 blocks of op(A)) and b_scale of shape
    (ceil(n/128), ceil(k/128)) (128 x 128 blocks of op(B)). scaling "mx" (OCP MX): float8_e4m3fn,
    float8_e5m2, float6_e2m3fn, float6_e3m2fn or float4_e2m1fn codes (any pair) with E8M0 scale
    bytes per 32 of K, a_scale (m, ceil(k/32)) and b_scale (n, ceil(k/32)): what
    formats.mx_quantize returns for A (m x k) and for B stored as (n, k), which is passed with
    trans_b=True. The shapes are those of op(A) and op(B) whatever trans_a/trans_b.

    a, b: 2-D uint8 code arrays (one code per element, 6- and 4-bit codes in the low bits; any
    strides) with a_format/b_format naming the format, or ml_dtypes arrays of the format (the
    name may then be omitted). Scales: float32 (block128) or uint8 / float8_e8m0fnu (mx).
    The result is accumulated in float32 and rounded once to c's type: float32 (default),
    bfloat16 (ml_dtypes) or float16 (out_dtype, or the type of c). c is updated in place when
    given; without it a new array is returned and beta must be 0. With beta == 0, c is not read.

    Host (numpy) arrays run on the CPU (gk_gemm_scaled: the operands decoded to float32, exactly
    for MX, then the CPU SGEMM); CUDA arrays (torch, __cuda_array_interface__, DLPack) on their
    device and current stream (gk_cuda_gemm_scaled), made contiguous first where they are not;
    a CUDA c must be C-ordered. Errors of argument types and shapes are TypeError/ValueError
    naming the argument; what the library refuses (a format the scaling does not take) is a
    GemmkitError."""
    return _dispatch.gemm_scaled(a, a_scale, b, b_scale, scaling, a_format, b_format, c, trans_a,
                                 trans_b, alpha, beta, out_dtype)
