"""CUDA arrays for gemmkit.gemm: objects exposing __cuda_array_interface__ (torch, cupy, numba) or
a CUDA __dlpack__ are read in place and multiplied by gk_cuda_sgemm on their device.

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


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype, _capsule_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object,
                                                                         ctypes.c_char_p]


def _dlpack_device(x):
    try:
        return tuple(x.__dlpack_device__())
    except (AttributeError, TypeError):
        return None


def _has_cai(x):
    # Not hasattr: torch raises RuntimeError (not AttributeError) for tensors that require grad,
    # and that message (use .detach()) is the one the user needs.
    try:
        x.__cuda_array_interface__
    except AttributeError:
        return False
    return True


def is_device_array(x):
    if x is None:
        return False
    if _has_cai(x):
        return True
    dev = _dlpack_device(x) if hasattr(x, "__dlpack__") else None
    return dev is not None and dev[0] in (_DL_CUDA, _DL_CUDA_MANAGED)


def _framework(x):
    return type(x).__module__.split(".")[0]


class _View:
    """One CUDA operand: where it is, its device and stream, and what keeps it alive."""

    def __init__(self, x, name):
        self.obj, self.keep, self.readonly = x, None, False
        if _has_cai(x):
            cai = x.__cuda_array_interface__
            if cai["typestr"] not in ("<f4", "=f4"):
                raise TypeError(f"gemmkit: {name} has typestr {cai['typestr']}; need float32")
            self.shape = tuple(cai["shape"])
            self.ptr, self.readonly = cai["data"]
            strides = cai.get("strides")
            self.stream = cai.get("stream")
            self.device = self._device_attr(x)
        else:
            capsule = x.__dlpack__(stream=1)  # data ready on the legacy default stream
            t = _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor"))
            if (t.dtype.code, t.dtype.bits, t.dtype.lanes) != (2, 32, 1):
                raise TypeError(f"gemmkit: {name} is not float32")
            self.keep = capsule  # the producer frees the tensor when the capsule dies
            self.shape = tuple(t.shape[i] for i in range(t.ndim))
            self.ptr = (t.data or 0) + t.byte_offset
            strides = None if not t.strides else tuple(t.strides[i] * 4 for i in range(t.ndim))
            self.stream = 1
            self.device = t.device.device_id
        if strides is None and len(self.shape) == 2:
            strides = (self.shape[1] * 4, 4)
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
        return Operand(self.ptr or 0, self.shape, self.strides)


def _contiguous(x, name):
    fw = _framework(x)
    if fw == "torch":
        return x.contiguous()
    if fw == "cupy":
        import cupy
        return cupy.ascontiguousarray(x)
    raise ValueError(f"gemmkit: {name}'s strides fit no leading dimension and gemmkit cannot copy "
                     f"a {type(x).__name__} on the device; pass a contiguous array")


def _new_output(like, m, n):
    fw = _framework(like)
    if fw == "torch":
        import torch
        return torch.empty((m, n), dtype=torch.float32, device=like.device)
    if fw == "cupy":
        import cupy
        with cupy.cuda.Device(like.device.id):
            return cupy.empty((m, n), dtype=cupy.float32)
    raise ValueError(f"gemmkit: pass c/out for CUDA arrays of type {type(like).__name__}")


def _stream_handle(view):
    """The cudaStream_t (as an int, 0 = legacy default) the call is queued on."""
    if _framework(view.obj) == "torch":
        import torch
        return torch.cuda.current_stream(view.obj.device).cuda_stream
    s = view.stream
    if s is None or s == 1:
        return 0
    return s  # 2 is cudaStreamPerThread's handle value; anything else a stream pointer


def gemm(a, b, c, trans_a, trans_b, alpha, beta):
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
    if c is None:
        if beta != 0:
            raise ValueError("gemmkit: beta != 0 needs c (the matrix to scale and add to)")
        c = _new_output(a, m, n)
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

    plans = []
    for x, v, t, name in ((a, va, trans_a, "a"), (b, vb, trans_b, "b")):
        plan = operand_args(v.operand(), layout, bool(t))
        if plan is None:
            v = _View(_contiguous(x, name), name)
            plan = operand_args(v.operand(), layout, bool(t))
        plans.append((v, plan))
    (va, (ta, lda)), (vb, (tb, ldb)) = plans

    ctx = ctypes.c_void_p()
    check(lib.gk_cuda_create(ctypes.byref(ctx), vc.device, ctypes.c_void_p(_stream_handle(vc))))
    try:
        check(lib.gk_cuda_sgemm(ctx, layout, ta, tb, m, n, k, float(alpha), va.ptr, lda, vb.ptr,
                                ldb, float(beta), vc.ptr, ldc))
    finally:
        lib.gk_cuda_destroy(ctx)
    return c
