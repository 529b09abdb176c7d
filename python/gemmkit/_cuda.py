"""CUDA arrays for gemmkit.gemm: torch tensors, and objects exposing __cuda_array_interface__ (cupy,
numba) or a CUDA __dlpack__, are read in place and multiplied on their device: float32 by
gk_cuda_sgemm (in the 3xTF32 mode for fp32_mode="3xtf32"), bfloat16, float16, float8_e4m3fn and
float8_e5m2 (and float32 with fp32_mode="tf32", a scale or a 16-bit result) by gk_cuda_gemm_ex.

Types: torch tensors are read through their own attributes (dtype, data_ptr, stride), since
__cuda_array_interface__ cannot name bfloat16 unambiguously or float8 at all; other objects by
their interface typestr ("<f4", "<f2", "<V2" for bfloat16 as ml_dtypes and torch write it; the
one-byte "<V1" is ambiguous and refused) or DLPack type code.

Stream: the work is queued, not waited for, on the stream the arrays' owner is using: for torch,
torch.cuda.current_stream(device); otherwise the output's __cuda_array_interface__ 'stream'
(None or 1: the legacy default stream, 2: the per-thread default stream, else the cudaStream_t);
for __dlpack__ objects the producer is asked to make the data ready on the legacy default stream,
which the call then uses. Device: torch's .device.index, cupy's .device.id, DLPack's device id,
else device 0. An operand whose strides fit no leading dimension is made contiguous by torch or
cupy; for other array types, and for an output that is not contiguous in one dimension, it is a
ValueError.
"""
import ctypes

from ._layout import Operand, gemm_shape, operand_args, output_layout
from ._lib import check, lib

_DL_CUDA, _DL_CUDA_MANAGED = 2, 13  # DLDeviceType

# gk_format values (include/gemmkit.h) of the types gk_cuda_gemm_ex multiplies, by their ml_dtypes
# names (gk_format_name), which torch's dtypes share; and bytes per element.
FORMATS = {"float32": 0, "tfloat32": 1, "bfloat16": 2, "float16": 3, "float8_e4m3fn": 4,
           "float8_e5m2": 5}
_ITEMSIZE = {"float32": 4, "bfloat16": 2, "float16": 2, "float8_e4m3fn": 1, "float8_e5m2": 1}
_FP8 = ("float8_e4m3fn", "float8_e5m2")
# fp32_mode= for float32 operands: gk_fp32_mode values, and "tf32" (operands passed as GK_TF32)
FP32_MODES = {"simt": 0, "3xtf32": 1, "tf32": None}
_TYPESTR = {"<f4": "float32", "=f4": "float32", "<f2": "float16", "=f2": "float16",
            "<V2": "bfloat16", "|V2": "bfloat16"}
# DLPack (type code, bits): kDLFloat 2, kDLBfloat 4, kDLFloat8_e4m3fn 10, kDLFloat8_e5m2 12
_DLPACK = {(2, 32): "float32", (2, 16): "float16", (4, 16): "bfloat16", (10, 8): "float8_e4m3fn",
           (12, 8): "float8_e5m2"}


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _GemmExOpts(ctypes.Structure):
    """Mirror of gk_gemm_ex_opts."""
    _fields_ = [("scale_a", ctypes.c_void_p), ("scale_b", ctypes.c_void_p),
                ("fp8_fast_accum", ctypes.c_int)]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype, _capsule_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object,
                                                                         ctypes.c_char_p]


def _dlpack_device(x):
    try:
        return tuple(x.__dlpack_device__())
    except (AttributeError, TypeError):
        return None


def _framework(x):
    return type(x).__module__.split(".")[0]


def _is_torch(x):
    return _framework(x) == "torch" and hasattr(x, "data_ptr")


def _has_cai(x):
    # Not hasattr: torch raises RuntimeError (not AttributeError) for tensors that require grad,
    # and that message (use .detach()) is the one the user needs. A type the producer cannot
    # describe (KeyError, TypeError) leaves DLPack to try.
    try:
        x.__cuda_array_interface__
    except (AttributeError, KeyError, TypeError):
        return False
    return True


def is_device_array(x):
    if x is None:
        return False
    if _is_torch(x):
        return bool(x.is_cuda)
    if _has_cai(x):
        return True
    dev = _dlpack_device(x) if hasattr(x, "__dlpack__") else None
    return dev is not None and dev[0] in (_DL_CUDA, _DL_CUDA_MANAGED)


def _type_error(name, what):
    return TypeError(f"gemmkit: {name} has {what}; gemmkit multiplies float32, bfloat16, float16, "
                     f"float8_e4m3fn and float8_e5m2")


class _View:
    """One CUDA operand: where it is, its element type, device and stream, and what keeps it
    alive."""

    def __init__(self, x, name):
        self.obj, self.keep, self.readonly, self.stream = x, None, False, None
        if _is_torch(x):
            if x.requires_grad:
                raise RuntimeError(f"gemmkit: {name} requires grad; pass {name}.detach() "
                                   f"(gemmkit records no gradients)")
            self.dtype = str(x.dtype).rsplit(".", 1)[-1]  # torch.bfloat16 -> "bfloat16"
            if self.dtype not in _ITEMSIZE:
                raise _type_error(name, f"dtype {x.dtype}")
            self.shape = tuple(x.shape)
            self.ptr = x.data_ptr()
            strides = tuple(s * x.element_size() for s in x.stride())
            self.device = x.device.index if x.device.index is not None else 0
        elif _has_cai(x):
            cai = x.__cuda_array_interface__
            self.dtype = _TYPESTR.get(cai["typestr"])
            if self.dtype is None:
                raise _type_error(name, f"typestr {cai['typestr']}" +
                                  (" (a one-byte type that could be any FP8 format: pass a torch "
                                   "tensor or a DLPack array)" if cai["typestr"][1:] == "V1"
                                   else ""))
            self.shape = tuple(cai["shape"])
            self.ptr, self.readonly = cai["data"]
            strides = cai.get("strides")
            self.stream = cai.get("stream")
            self.device = self._device_attr(x)
        else:
            capsule = x.__dlpack__(stream=1)  # data ready on the legacy default stream
            t = _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor"))
            self.dtype = _DLPACK.get((t.dtype.code, t.dtype.bits)) if t.dtype.lanes == 1 else None
            if self.dtype is None:
                raise _type_error(name, f"DLPack type code {t.dtype.code}, {t.dtype.bits} bits")
            self.keep = capsule  # the producer frees the tensor when the capsule dies
            self.shape = tuple(t.shape[i] for i in range(t.ndim))
            self.ptr = (t.data or 0) + t.byte_offset
            item = _ITEMSIZE[self.dtype]
            strides = None if not t.strides else tuple(t.strides[i] * item for i in range(t.ndim))
            self.stream = 1
            self.device = t.device.device_id
        self.itemsize = _ITEMSIZE[self.dtype]
        if strides is None and len(self.shape) == 2:
            strides = (self.shape[1] * self.itemsize, self.itemsize)
        self.strides = tuple(strides) if strides is not None else None

    @staticmethod
    def _device_attr(x):
        dev = getattr(x, "device", None)
        for attr in ("index", "id"):
            value = getattr(dev, attr, None)
            if isinstance(value, int):
                return value
        return 0

    def operand(self):
        return Operand(self.ptr or 0, self.shape, self.strides, self.itemsize)


def _contiguous(x, name):
    fw = _framework(x)
    if fw == "torch":
        return x.contiguous()
    if fw == "cupy":
        import cupy
        return cupy.ascontiguousarray(x)
    raise ValueError(f"gemmkit: {name}'s strides fit no leading dimension and gemmkit cannot copy "
                     f"a {type(x).__name__} on the device; pass a contiguous array")


def _new_output(like, m, n, dtype):
    fw = _framework(like)
    if fw == "torch":
        import torch
        return torch.empty((m, n), dtype=getattr(torch, dtype), device=like.device)
    if fw == "cupy" and dtype in ("float32", "float16"):
        import cupy
        with cupy.cuda.Device(like.device.id):
            return cupy.empty((m, n), dtype=dtype)
    raise ValueError(f"gemmkit: pass c/out for a {dtype} result from CUDA arrays of type "
                     f"{type(like).__name__}")


def _stream_handle(view):
    """The cudaStream_t (as an int, 0 = legacy default) the call is queued on."""
    if _framework(view.obj) == "torch":
        import torch
        return torch.cuda.current_stream(view.obj.device).cuda_stream
    s = view.stream
    if s is None or s == 1:
        return 0
    return s  # 2 is cudaStreamPerThread's handle value; anything else a stream pointer


def default_out_dtype(a_dtype, b_dtype):
    """The result type when no c is given: float32 for float32 operands, bfloat16 when an operand
    is FP8, else the operands' type."""
    if a_dtype in _FP8 or b_dtype in _FP8:
        return "bfloat16"
    return a_dtype


def _scale(x, name, device):
    """Device pointer of a per-tensor scale: a one-element float32 CUDA array on `device`."""
    if x is None:
        return None
    if not is_device_array(x):
        raise TypeError(f"gemmkit: {name} must be a one-element float32 CUDA array (a device "
                        f"scalar the GEMM reads when it runs), not {type(x).__name__}")
    v = _View(x, name)
    count = 1
    for d in v.shape:
        count *= d
    if v.dtype != "float32" or count != 1:
        raise ValueError(f"gemmkit: {name} must hold exactly one float32 (got {v.dtype}, shape "
                         f"{v.shape})")
    if v.device != device:
        raise ValueError(f"gemmkit: {name} is on device {v.device}, the operands on {device}")
    return v.ptr


def gemm(a, b, c, trans_a, trans_b, alpha, beta, scale_a=None, scale_b=None, fp32_mode=None,
         fp8_fast_accum=False):
    if fp32_mode is not None and fp32_mode not in FP32_MODES:
        raise ValueError(f"gemmkit: fp32_mode={fp32_mode!r}; choose one of {sorted(FP32_MODES)}")
    if not lib.gk_cuda_available():
        # Let the library say why (not built / no device), as every gemmkit error does.
        ctx = ctypes.c_void_p()
        check(lib.gk_cuda_create(ctypes.byref(ctx), 0, None))
        lib.gk_cuda_destroy(ctx)
    for x, name in ((a, "a"), (b, "b")):
        if not is_device_array(x):
            raise ValueError(f"gemmkit: {name} is a host array while another operand is on the "
                             f"GPU; move both to the same place")
    va, vb = _View(a, "a"), _View(b, "b")
    m, n, k = gemm_shape(va.shape, vb.shape, trans_a, trans_b)
    if fp32_mode is not None and (va.dtype, vb.dtype) != ("float32", "float32"):
        raise ValueError(f"gemmkit: fp32_mode applies to float32 operands, not {va.dtype} and "
                         f"{vb.dtype}")
    if c is None:
        if beta != 0:
            raise ValueError("gemmkit: beta != 0 needs c (the matrix to scale and add to)")
        c = _new_output(a, m, n, default_out_dtype(va.dtype, vb.dtype))
    elif not is_device_array(c):
        raise ValueError("gemmkit: c/out must be a CUDA array like a and b")
    vc = _View(c, "c")
    if vc.shape != (m, n):
        raise ValueError(f"gemmkit: c/out has shape {vc.shape}, the product is {(m, n)}")
    if vc.readonly:
        raise ValueError("gemmkit: c/out is read-only")
    if va.device != vc.device or vb.device != vc.device:
        raise ValueError(f"gemmkit: operands on devices {va.device}, {vb.device}, {vc.device}")
    direct = output_layout(vc.operand())
    if direct is None:
        raise ValueError("gemmkit: c/out must be contiguous along its rows or its columns")
    layout, ldc = direct
    sa, sb = _scale(scale_a, "scale_a", vc.device), _scale(scale_b, "scale_b", vc.device)

    plans = []
    for x, v, t, name in ((a, va, trans_a, "a"), (b, vb, trans_b, "b")):
        plan = operand_args(v.operand(), layout, bool(t))
        if plan is None:
            v = _View(_contiguous(x, name), name)
            plan = operand_args(v.operand(), layout, bool(t))
        plans.append((v, plan))
    (va, (ta, lda)), (vb, (tb, ldb)) = plans

    # Plain float32 stays on gk_cuda_sgemm (in the context's FP32 mode); the rest is gemm_ex's.
    fa, fb = ("tfloat32", "tfloat32") if fp32_mode == "tf32" else (va.dtype, vb.dtype)
    sgemm = (fa, fb, vc.dtype) == ("float32",) * 3 and sa is None and sb is None
    ctx = ctypes.c_void_p()
    check(lib.gk_cuda_create(ctypes.byref(ctx), vc.device, ctypes.c_void_p(_stream_handle(vc))))
    try:
        if fp32_mode == "3xtf32":
            check(lib.gk_cuda_set_fp32_mode(ctx, FP32_MODES["3xtf32"]))
        if sgemm:
            check(lib.gk_cuda_sgemm(ctx, layout, ta, tb, m, n, k, float(alpha), va.ptr, lda,
                                    vb.ptr, ldb, float(beta), vc.ptr, ldc))
        else:
            opts = _GemmExOpts(sa, sb, int(bool(fp8_fast_accum)))
            check(lib.gk_cuda_gemm_ex(ctx, layout, ta, tb, m, n, k, float(alpha), FORMATS[fa],
                                      va.ptr, lda, FORMATS[fb], vb.ptr, ldb, float(beta),
                                      FORMATS[vc.dtype], vc.ptr, ldc, ctypes.addressof(opts)))
    finally:
        lib.gk_cuda_destroy(ctx)
    return c
