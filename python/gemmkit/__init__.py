"""gemmkit — Python binding (ctypes, no compiler needed) of the gemmkit SGEMM library.

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
"""
import ctypes

import numpy as np

from . import _batched, _cuda, _host, _lowp, _torch_cpu
from . import formats  # low-precision formats and MX scaling: gemmkit.formats
from ._layout import NO_TRANS, ROW, TRANS, Operand, gemm_shape, operand_args, output_layout
from ._lib import GemmkitError, Status, CpuInfo, check, lib, library_path

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
    if _cuda.is_device_array(a) or _cuda.is_device_array(b) or _cuda.is_device_array(c):
        return _cuda.gemm(a, b, c, trans_a, trans_b, alpha, beta, scale_a, scale_b, fp32_mode,
                          fp8_fast_accum)
    if scale_a is not None or scale_b is not None or fp32_mode is not None or fp8_fast_accum:
        raise ValueError("gemmkit: scale_a, scale_b, fp32_mode and fp8_fast_accum apply to CUDA "
                         "arrays; the CPU multiplies float32")
    if _torch_cpu.is_tensor(a) or _torch_cpu.is_tensor(b) or _torch_cpu.is_tensor(c):
        return _torch_cpu.gemm(_host_gemm, a, b, c, trans_a, trans_b, alpha, beta)
    return _host_gemm(a, b, c, trans_a, trans_b, alpha, beta)


def _host_gemm(a, b, c, trans_a, trans_b, alpha, beta):
    """gemm on host (numpy) arrays."""
    if _lowp.wants(a, b, c):  # bfloat16 / float16 host arrays: gk_gemm_ex
        return _lowp.host_gemm(a, b, c, trans_a, trans_b, alpha, beta)
    a, b = _host_array(a, "a"), _host_array(b, "b")
    if _batched.is_batched(a.shape, b.shape):  # stacks of matrices (batch first)
        return _batched.host_gemm(a, b, c, trans_a, trans_b, alpha, beta)

    def call(layout, ta, tb, m, n, k, a, lda, b, ldb, c, ldc):
        check(lib.gk_sgemm(layout, ta, tb, m, n, k, float(alpha), a.ctypes.data, lda,
                           b.ctypes.data, ldb, float(beta), c.ctypes.data, ldc))

    return _host.run(a, b, c, trans_a, trans_b, alpha, beta, ("float32",), np.float32, call)


def matmul(a, b, out=None, alpha=1.0, beta=0.0, **gpu):
    """alpha * a @ b (+ beta * out), written to out when given; returns the result. The keywords
    of gemm for CUDA arrays (scale_a, scale_b, fp32_mode, fp8_fast_accum) are passed on."""
    return gemm(a, b, out, False, False, alpha, beta, **gpu)


# ---- block-scaled GEMM (gk_gemm_scaled / gk_cuda_gemm_scaled) ------------------------------------

# gk_scaling values, and the elements of K one scale covers
_SCALINGS = {"block128": (1, 128), "mx": (2, 32)}
_OUT_TYPES = ("float32", "bfloat16", "float16")


def _out_name(out_dtype):
    """out_dtype as one of _OUT_TYPES' names (a name, a numpy/ml_dtypes dtype or a torch dtype)."""
    if out_dtype is None:
        return None
    name = out_dtype
    if not isinstance(out_dtype, str):
        try:
            name = np.dtype(out_dtype).name
        except TypeError:
            name = str(out_dtype).rsplit(".", 1)[-1]  # torch.bfloat16 -> "bfloat16"
    if name not in _OUT_TYPES:
        raise ValueError(f"gemmkit: out_dtype={out_dtype!r}; the results are float32, bfloat16 "
                         f"or float16")
    return name


def _operand_format(type_name, fmt, name):
    """The format of an operand's codes: the array's own (an ml_dtypes float8/6/4 array), or
    `fmt` (<name>_format) for uint8 codes; both given, they must agree."""
    own = type_name if type_name in formats.FORMATS else None
    if type_name != "uint8" and (own is None or formats.info(own).storage_bytes != 1):
        raise TypeError(f"gemmkit: {name} has dtype {type_name}; block-scaled operands are uint8 "
                        f"codes, one per element, or ml_dtypes float8/float6/float4 arrays")
    if fmt is None:
        if own is None:
            raise ValueError(f"gemmkit: {name}_format is needed: {name} holds uint8 codes of no "
                             f"stated format")
        return formats.info(own)
    f = formats.info(fmt)
    if own is not None and own != f.name:
        raise TypeError(f"gemmkit: {name} holds {own} values but {name}_format is {f.name}")
    return f


def _scale_shapes(scaling, m, n, k):
    """The shapes of a_scale and b_scale (include/gemmkit.h, above gk_scaling)."""
    group = _SCALINGS[scaling][1]
    kb = -(-k // group)
    return (m, kb), ((n if scaling == "mx" else -(-n // 128)), kb)


def _check_scale(type_name, shape, want, scaling, name):
    ok = type_name == "float32" if scaling == "block128" else \
        type_name in ("uint8", "float8_e8m0fnu")
    if not ok:
        kind = "float32" if scaling == "block128" else "uint8 E8M0 codes (or float8_e8m0fnu)"
        raise TypeError(f"gemmkit: {name} has dtype {type_name}; {scaling} scales are {kind}")
    if tuple(shape) != want:
        raise ValueError(f"gemmkit: {name} has shape {tuple(shape)}; {scaling} scaling of this "
                         f"product needs {want}")


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
    if scaling not in _SCALINGS:
        raise ValueError(f"gemmkit: scaling={scaling!r}; choose \"block128\" or \"mx\"")
    out_name = _out_name(out_dtype)
    if any(_cuda.is_device_array(x) for x in (a, a_scale, b, b_scale, c)):
        return _gemm_scaled_device(a, a_scale, b, b_scale, scaling, a_format, b_format, c,
                                   trans_a, trans_b, alpha, beta, out_name)
    a, a_scale, b, b_scale = (x if isinstance(x, np.ndarray) else np.asarray(x)
                              for x in (a, a_scale, b, b_scale))
    fa = _operand_format(a.dtype.name, a_format, "a")
    fb = _operand_format(b.dtype.name, b_format, "b")
    a, b = a.view(np.uint8), b.view(np.uint8)
    m, n, k = gemm_shape(a.shape, b.shape, trans_a, trans_b)
    want_a, want_b = _scale_shapes(scaling, m, n, k)
    _check_scale(a_scale.dtype.name, a_scale.shape, want_a, scaling, "a_scale")
    _check_scale(b_scale.dtype.name, b_scale.shape, want_b, scaling, "b_scale")
    scale_type = np.float32 if scaling == "block128" else np.uint8
    a_scale = np.ascontiguousarray(a_scale).view(scale_type)
    b_scale = np.ascontiguousarray(b_scale).view(scale_type)

    if c is None:
        if beta != 0:
            raise ValueError("gemmkit: beta != 0 needs c (the matrix to scale and add to)")
        c = np.empty((m, n), formats._ml_dtype(formats.info(out_name or "float32")))
    elif not isinstance(c, np.ndarray) or c.dtype.name not in _OUT_TYPES:
        raise TypeError(f"gemmkit: c must be a float32, bfloat16 or float16 numpy array, not "
                        f"{getattr(c, 'dtype', type(c).__name__)}")
    if out_name is not None and c.dtype.name != out_name:
        raise ValueError(f"gemmkit: c is {c.dtype.name} but out_dtype is {out_name}")
    if c.shape != (m, n):
        raise ValueError(f"gemmkit: c has shape {c.shape}, the product is {(m, n)}")
    if not c.flags.writeable:
        raise ValueError("gemmkit: c is read-only")

    direct = output_layout(Operand(c.ctypes.data, c.shape, c.strides, c.itemsize))
    if direct is None or any(np.may_share_memory(c, x) for x in (a, b, a_scale, b_scale)):
        tmp = np.array(c, order="C") if beta != 0 else np.empty((m, n), c.dtype)
        gemm_scaled(a, a_scale, b, b_scale, scaling, a_format=fa.name, b_format=fb.name, c=tmp,
                    trans_a=trans_a, trans_b=trans_b, alpha=alpha, beta=beta)
        c[...] = tmp
        return c
    layout, ldc = direct
    args = []
    for x, t in ((a, trans_a), (b, trans_b)):
        plan = operand_args(Operand(x.ctypes.data, x.shape, x.strides, 1), layout, bool(t))
        if plan is None:  # strides that no leading dimension describes
            x = np.ascontiguousarray(x)
            plan = operand_args(Operand(x.ctypes.data, x.shape, x.strides, 1), layout, bool(t))
        args.append((x, plan))
    (a, (ta, lda)), (b, (tb, ldb)) = args
    check(lib.gk_gemm_scaled(layout, ta, tb, m, n, k, float(alpha), fa.id, a.ctypes.data, lda,
                             a_scale.ctypes.data, fb.id, b.ctypes.data, ldb, b_scale.ctypes.data,
                             _SCALINGS[scaling][0], float(beta), formats.info(c.dtype.name).id,
                             c.ctypes.data, ldc))
    return c


def _device_type_name(v):
    """A formats._Device's element type as a numpy-style name ("uint8", "float8_e4m3fn", ...)."""
    return f"uint{8 * v.itemsize}" if v.type == "u" else (v.type or "unknown")


def _gemm_scaled_device(a, a_scale, b, b_scale, scaling, a_format, b_format, c, trans_a, trans_b,
                        alpha, beta, out_name):
    if not lib.gk_cuda_available():
        ctx = ctypes.c_void_p()  # let the library say why (not built / no device)
        check(lib.gk_cuda_create(ctypes.byref(ctx), 0, None))
        lib.gk_cuda_destroy(ctx)
    for x, name in ((a, "a"), (a_scale, "a_scale"), (b, "b"), (b_scale, "b_scale")):
        if not _cuda.is_device_array(x):
            raise ValueError(f"gemmkit: {name} is a host array while another operand is on the "
                             f"GPU; move all of them to the same place")
    va, vb = formats._device_in(a, "a"), formats._device_in(b, "b")
    fa = _operand_format(_device_type_name(va), a_format, "a")
    fb = _operand_format(_device_type_name(vb), b_format, "b")
    m, n, k = gemm_shape(va.shape, vb.shape, trans_a, trans_b)
    want_a, want_b = _scale_shapes(scaling, m, n, k)
    vsa, vsb = formats._device_in(a_scale, "a_scale"), formats._device_in(b_scale, "b_scale")
    _check_scale(_device_type_name(vsa), vsa.shape, want_a, scaling, "a_scale")
    _check_scale(_device_type_name(vsb), vsb.shape, want_b, scaling, "b_scale")
    if c is None:
        if beta != 0:
            raise ValueError("gemmkit: beta != 0 needs c (the matrix to scale and add to)")
        c = _cuda._new_output(a, m, n, out_name or "float32")
    elif not _cuda.is_device_array(c):
        raise ValueError("gemmkit: c must be a CUDA array like the operands")
    vc = formats._Device(c, "c")  # C-ordered, else a ValueError
    if vc.type not in _OUT_TYPES:
        raise TypeError(f"gemmkit: c has type {_device_type_name(vc)}; the results are float32, "
                        f"bfloat16 or float16")
    if out_name is not None and vc.type != out_name:
        raise ValueError(f"gemmkit: c is {vc.type} but out_dtype is {out_name}")
    if vc.shape != (m, n):
        raise ValueError(f"gemmkit: c has shape {vc.shape}, the product is {(m, n)}")
    if vc.readonly:
        raise ValueError("gemmkit: c is read-only")
    devices = {v.device for v in (va, vb, vsa, vsb, vc)}
    if len(devices) > 1:
        raise ValueError(f"gemmkit: the arrays are on devices {sorted(devices)}; use one")
    ctx = ctypes.c_void_p()
    stream = ctypes.c_void_p(_cuda._stream_handle(vc))
    check(lib.gk_cuda_create(ctypes.byref(ctx), vc.device, stream))
    try:
        check(lib.gk_cuda_gemm_scaled(
            ctx, ROW, TRANS if trans_a else NO_TRANS, TRANS if trans_b else NO_TRANS, m, n, k,
            float(alpha), fa.id, va.ptr, max(va.shape[1], 1), vsa.ptr, fb.id, vb.ptr,
            max(vb.shape[1], 1), vsb.ptr, _SCALINGS[scaling][0], float(beta),
            formats.info(vc.type).id, vc.ptr, max(n, 1)))
    finally:
        lib.gk_cuda_destroy(ctx)
    return c
