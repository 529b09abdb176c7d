"""Block-scaled GEMM (gemmkit.gemm_scaled): codes of FP8/FP6/FP4 formats times the scales of their
blocks along K. The checks of formats, shapes and scales are the same for both places an array
may live; then host (numpy) arrays run gk_gemm_scaled on the CPU (host_gemm) and CUDA arrays
gk_cuda_gemm_scaled on their device and current stream (device_gemm). _dispatch.py decides which.
"""
import ctypes

import numpy as np

from . import _cuda, formats
from ._layout import NO_TRANS, ROW, TRANS, Operand, gemm_shape, operand_args, output_layout
from ._lib import check, lib

# gk_scaling values, and the elements of K one scale covers
SCALINGS = {"block128": (1, 128), "mx": (2, 32)}
OUT_TYPES = ("float32", "bfloat16", "float16")


def out_name(out_dtype):
    """out_dtype as one of OUT_TYPES' names (a name, a numpy/ml_dtypes dtype or a torch dtype)."""
    if out_dtype is None:
        return None
    name = out_dtype
    if not isinstance(out_dtype, str):
        try:
            name = np.dtype(out_dtype).name
        except TypeError:
            name = str(out_dtype).rsplit(".", 1)[-1]  # torch.bfloat16 -> "bfloat16"
    if name not in OUT_TYPES:
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
    group = SCALINGS[scaling][1]
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


def check_scaling(scaling):
    """ValueError unless scaling names a gk_scaling ("block128" or "mx")."""
    if scaling not in SCALINGS:
        raise ValueError(f"gemmkit: scaling={scaling!r}; choose \"block128\" or \"mx\"")


def is_device_call(a, a_scale, b, b_scale, c):
    """Whether any array of the call is a CUDA array (then all must be)."""
    return any(_cuda.is_device_array(x) for x in (a, a_scale, b, b_scale, c))


def host_gemm(a, a_scale, b, b_scale, scaling, a_format, b_format, c, trans_a, trans_b, alpha, beta,
              out_name):
    """gemm_scaled on host (numpy) arrays: gk_gemm_scaled, with a temporary c where c overlaps an
    operand or no leading dimension describes it."""
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
    elif not isinstance(c, np.ndarray) or c.dtype.name not in OUT_TYPES:
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
        host_gemm(a, a_scale, b, b_scale, scaling, fa.name, fb.name, tmp, trans_a, trans_b, alpha,
                  beta, None)
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
                             SCALINGS[scaling][0], float(beta), formats.info(c.dtype.name).id,
                             c.ctypes.data, ldc))
    return c


def _device_type_name(v):
    """A formats._Device's element type as a numpy-style name ("uint8", "float8_e4m3fn", ...)."""
    return f"uint{8 * v.itemsize}" if v.type == "u" else (v.type or "unknown")


def device_gemm(a, a_scale, b, b_scale, scaling, a_format, b_format, c, trans_a, trans_b, alpha,
                beta, out_name):
    """gemm_scaled on CUDA arrays: gk_cuda_gemm_scaled on their device and current stream."""
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
    if vc.type not in OUT_TYPES:
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
            max(vb.shape[1], 1), vsb.ptr, SCALINGS[scaling][0], float(beta),
            formats.info(vc.type).id, vc.ptr, max(n, 1)))
    finally:
        lib.gk_cuda_destroy(ctx)
    return c
