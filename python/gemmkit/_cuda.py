"""CUDA arrays for gemmkit.gemm: torch tensors, and objects exposing __cuda_array_interface__ (cupy,
numba) or a CUDA __dlpack__, are read in place and multiplied on their device: float32 by
gk_cuda_sgemm (in the 3xTF32 mode for fp32_mode="3xtf32"), bfloat16, float16, float8_e4m3fn and
float8_e5m2 (and float32 with fp32_mode="tf32", a scale or a 16-bit result) by gk_cuda_gemm_ex.

Types: torch tensors are read through their own attributes (dtype, data_ptr, stride), since
__cuda_array_interface__ cannot name bfloat16 unambiguously or float8 at all; other objects by
their interface typestr ("<f4", "<f2", "<V2" for bfloat16 as ml_dtypes and torch write it; the
one-byte "<V1" is ambiguous and refused) or DLPack type code.

Stream: the work is queued, not waited for, on the stream the arrays' owner is using: for torch,
torch.cuda.current_stream(device) (asked through torch's raw query: _stream_handle); otherwise
the output's __cuda_array_interface__ 'stream' (None or 1: the legacy default stream, 2: the
per-thread default stream, else the cudaStream_t);
for __dlpack__ objects the producer is asked to make the data ready on the legacy default stream,
which the call then uses. Device: torch's .device.index, cupy's .device.id, DLPack's device id,
else device 0. An operand whose strides fit no leading dimension is made contiguous by torch or
cupy; for other array types, and for an output that is not contiguous in one dimension, it is a
ValueError.

Contexts: one gk_cuda_ctx per (device, stream), created on first use and kept for the process
(_Contexts below; docs/python.md, "Contexts"), so a call allocates nothing and never
synchronises: it only queues work on the stream. 3-D float32 operands (batch first) run one
gk_cuda_sgemm_strided_batched call (_gemm_batched; _batched.py). For small products the host's
time per call sets the rate, so gemm() does only what its checks need (docs/python.md, "Per-call
overhead"; bench/python_call_overhead.py measures it).
"""
import atexit
import ctypes
import os
import threading

from . import _batched
from ._layout import Operand, gemm_shape, lds, operand_fit, output_fit
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
_MODE_SIMT, _MODE_3XTF32 = FP32_MODES["simt"], FP32_MODES["3xtf32"]
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


_torch_types = {}  # type -> whether it is torch's tensor type (or a subclass), decided once


def _is_torch(x):
    t = type(x)
    known = _torch_types.get(t)
    if known is None:
        known = _torch_types[t] = (t.__module__.split(".")[0] == "torch" and
                                   hasattr(t, "data_ptr"))
    return known


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
        return x.is_cuda
    if _has_cai(x):
        return True
    dev = _dlpack_device(x) if hasattr(x, "__dlpack__") else None
    return dev is not None and dev[0] in (_DL_CUDA, _DL_CUDA_MANAGED)


def _type_error(name, what):
    return TypeError(f"gemmkit: {name} has {what}; gemmkit multiplies float32, bfloat16, float16, "
                     f"float8_e4m3fn and float8_e5m2")


_torch_dtypes = {}  # torch dtype -> (name, bytes per element) of the types gemmkit multiplies


def _torch_dtype(dtype, name):
    known = _torch_dtypes.get(dtype)
    if known is None:
        type_name = str(dtype).rsplit(".", 1)[-1]  # torch.bfloat16 -> "bfloat16"
        if type_name not in _ITEMSIZE:
            raise _type_error(name, f"dtype {dtype}")
        known = _torch_dtypes[dtype] = type_name, _ITEMSIZE[type_name]
    return known


class _View:
    """One CUDA operand: where it is, its element type, device and stream, and what keeps it
    alive. Torch tensors are read first and with the fewest attribute reads (data_ptr, shape,
    stride, dtype, get_device): this runs three times on every call."""

    def __init__(self, x, name, torch=None):  # torch: _is_torch(x) where the caller knows it
        self.obj, self.keep, self.readonly, self.stream = x, None, False, None
        if torch or (torch is None and _is_torch(x)):
            if x.requires_grad:
                raise RuntimeError(f"gemmkit: {name} requires grad; pass {name}.detach() "
                                   f"(gemmkit records no gradients)")
            self.dtype, item = _torch_dtype(x.dtype, name)
            self.itemsize, self.ptr = item, x.data_ptr()
            shape, st = tuple(x.shape), x.stride()
            self.shape = shape
            self.strides = (st[0] * item, st[1] * item) if len(st) == 2 else \
                tuple(s * item for s in st)
            device = x.get_device()  # the CUDA device's index (-1 for a CPU tensor)
            self.device = device if device >= 0 else 0
            return
        if _has_cai(x):
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
        self.itemsize = item = _ITEMSIZE[self.dtype]
        shape = self.shape
        if strides is not None:
            strides = tuple(strides)
        elif len(shape) == 2:  # C-contiguous
            strides = shape[1] * item, item
        elif len(shape) == 3:
            strides = shape[1] * shape[2] * item, shape[2] * item, item
        self.strides = strides

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

    def lds(self):
        """_layout.lds of this 2-D operand."""
        return lds(self.ptr or 0, self.shape, self.strides, self.itemsize)


def _contiguous(x, name):
    fw = _framework(x)
    if fw == "torch":
        return x.contiguous()
    if fw == "cupy":
        import cupy
        return cupy.ascontiguousarray(x)
    raise ValueError(f"gemmkit: {name}'s strides fit no leading dimension and gemmkit cannot copy "
                     f"a {type(x).__name__} on the device; pass a contiguous array")


def _new_output(like, m, n, dtype, batch=None):
    fw = _framework(like)
    shape = (m, n) if batch is None else (batch, m, n)
    if fw == "torch":
        import torch
        return torch.empty(shape, dtype=getattr(torch, dtype), device=like.device)
    if fw == "cupy" and dtype in ("float32", "float16"):
        import cupy
        with cupy.cuda.Device(like.device.id):
            return cupy.empty(shape, dtype=dtype)
    raise ValueError(f"gemmkit: pass c/out for a {dtype} result from CUDA arrays of type "
                     f"{type(like).__name__}")


_torch_stream = None  # device index -> torch's current cudaStream_t, chosen on first use


def _find_torch_stream():
    """torch's raw current-stream query (what torch's own compiled code calls: no Stream object is
    built, a fraction of torch.cuda.current_stream's cost); the public call where it is absent."""
    global _torch_stream
    import torch
    raw = getattr(getattr(torch, "_C", None), "_cuda_getCurrentRawStream", None)
    _torch_stream = raw if callable(raw) else \
        (lambda device: torch.cuda.current_stream(device).cuda_stream)
    return _torch_stream


def _stream_handle(view):
    """The cudaStream_t (as an int, 0 = legacy default) the call is queued on."""
    if _is_torch(view.obj):
        return (_torch_stream or _find_torch_stream())(view.device)
    s = view.stream
    if s is None or s == 1:
        return 0
    return s  # 2 is cudaStreamPerThread's handle value; anything else a stream pointer


class _Context:
    """A cached gk_cuda_ctx: its handle, the lock that keeps it to one thread at a time (library
    contexts are not locked) and the float32 mode last set on it."""
    __slots__ = ("handle", "lock", "fp32_mode")

    def __init__(self, handle):
        self.handle, self.lock, self.fp32_mode = handle, threading.Lock(), FP32_MODES["simt"]


class _Contexts:
    """The process's contexts by (device, stream handle), created on first use.

    One per (device, stream) with a lock per context, not one per thread: a call holds its
    context only while it queues work (microseconds, the GIL released), so threads sharing a
    stream wait that long at most, and the number of contexts (each with its workspace) is bounded
    by the streams used, not by the threads a program starts.
    Fork: a child must not use or free its parent's contexts (the CUDA state is the parent's), so
    it forgets them (at fork, and by a pid check for forks Python did not see) and makes its own.
    Exit: free() (atexit) destroys them, each workspace freed in its stream's order."""

    def __init__(self):
        self.forget()

    def forget(self):
        self.pid, self.lock, self.by_key = os.getpid(), threading.Lock(), {}

    def get(self, device, stream):
        if self.pid != os.getpid():
            self.forget()
        ctx = self.by_key.get((device, stream))  # a dict read is atomic: no lock once cached
        if ctx is None:
            with self.lock:
                ctx = self.by_key.get((device, stream))
                if ctx is None:
                    handle = ctypes.c_void_p()
                    check(lib.gk_cuda_create(ctypes.byref(handle), device,
                                             ctypes.c_void_p(stream)))
                    ctx = self.by_key[(device, stream)] = _Context(handle)
        return ctx

    def free(self):
        if self.pid != os.getpid():
            return
        with self.lock:
            ctxs, self.by_key = list(self.by_key.values()), {}
        for ctx in ctxs:
            with ctx.lock:
                lib.gk_cuda_destroy(ctx.handle)


contexts = _Contexts()
atexit.register(lambda: contexts.free())  # the module's current cache (tests swap it)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=lambda: contexts.forget())


def _unavailable():
    """Raise the library's own reason (not built / no device) for CUDA arrays without CUDA."""
    ctx = ctypes.c_void_p()
    check(lib.gk_cuda_create(ctypes.byref(ctx), 0, None))
    lib.gk_cuda_destroy(ctx)


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


_HOST_OPERAND = ("gemmkit: {} is a host array while another operand is on the GPU; move both to "
                 "the same place")
_HOST_OUTPUT = "gemmkit: c/out must be a CUDA array like a and b"


def _device_view(x, name, error=_HOST_OPERAND):
    """The _View of a CUDA array; ValueError(error naming it) for anything else (a host array)."""
    torch = _is_torch(x)
    if not (x.is_cuda if torch else is_device_array(x)):
        raise ValueError(error.format(name))
    return _View(x, name, torch)


def _plan(x, v, layout, trans, name):
    """(view, (gk_trans, ld)) of an input operand, made contiguous first where its strides fit no
    leading dimension."""
    plan = operand_fit(v.lds(), layout, trans)
    if plan is None:
        v = _View(_contiguous(x, name), name)
        plan = operand_fit(v.lds(), layout, trans)
    return v, plan


def gemm(a, b, c, trans_a, trans_b, alpha, beta, scale_a=None, scale_b=None, fp32_mode=None,
         fp8_fast_accum=False):
    """gemmkit.gemm on CUDA arrays. Every call runs this whole, so it reads each array once
    (_View), asks the current stream cheaply (_stream_handle) and queues the GEMM on a cached
    context; the checks that need the library's answer (is there a device) run only until a
    context exists."""
    if fp32_mode is not None and fp32_mode not in FP32_MODES:
        raise ValueError(f"gemmkit: fp32_mode={fp32_mode!r}; choose one of {sorted(FP32_MODES)}")
    if not contexts.by_key and not lib.gk_cuda_available():
        _unavailable()
    va, vb = _device_view(a, "a"), _device_view(b, "b")
    if len(va.shape) == 3 or len(vb.shape) == 3:
        if scale_a is not None or scale_b is not None or fp32_mode not in (None, "simt"):
            raise ValueError("gemmkit: batched (3-D) CUDA operands multiply float32 on the CUDA "
                             "cores: scale_a, scale_b and fp32_mode apply to 2-D operands")
        return _gemm_batched(a, b, c, va, vb, trans_a, trans_b, alpha, beta)
    m, n, k = gemm_shape(va.shape, vb.shape, trans_a, trans_b)
    if fp32_mode is not None and (va.dtype != "float32" or vb.dtype != "float32"):
        raise ValueError(f"gemmkit: fp32_mode applies to float32 operands, not {va.dtype} and "
                         f"{vb.dtype}")
    if c is None:
        if beta != 0:
            raise ValueError("gemmkit: beta != 0 needs c (the matrix to scale and add to)")
        c = _new_output(a, m, n, default_out_dtype(va.dtype, vb.dtype))
    vc = _device_view(c, "c", _HOST_OUTPUT)
    if vc.shape != (m, n):
        raise ValueError(f"gemmkit: c/out has shape {vc.shape}, the product is {(m, n)}")
    if vc.readonly:
        raise ValueError("gemmkit: c/out is read-only")
    device = vc.device
    if va.device != device or vb.device != device:
        raise ValueError(f"gemmkit: operands on devices {va.device}, {vb.device}, {device}")
    direct = output_fit(vc.lds())
    if direct is None:
        raise ValueError("gemmkit: c/out must be contiguous along its rows or its columns")
    layout, ldc = direct
    sa = None if scale_a is None else _scale(scale_a, "scale_a", device)
    sb = None if scale_b is None else _scale(scale_b, "scale_b", device)
    va, (ta, lda) = _plan(a, va, layout, trans_a, "a")
    vb, (tb, ldb) = _plan(b, vb, layout, trans_b, "b")

    # Plain float32 stays on gk_cuda_sgemm (in the context's FP32 mode); the rest is gemm_ex's.
    fa, fb = ("tfloat32", "tfloat32") if fp32_mode == "tf32" else (va.dtype, vb.dtype)
    sgemm = fa == fb == vc.dtype == "float32" and sa is None and sb is None
    ctx = contexts.get(device, _stream_handle(vc))
    mode = _MODE_3XTF32 if fp32_mode == "3xtf32" else _MODE_SIMT
    with ctx.lock:
        if ctx.fp32_mode != mode:
            check(lib.gk_cuda_set_fp32_mode(ctx.handle, mode))
            ctx.fp32_mode = mode
        if sgemm:
            status = lib.gk_cuda_sgemm(ctx.handle, layout, ta, tb, m, n, k, float(alpha), va.ptr,
                                       lda, vb.ptr, ldb, float(beta), vc.ptr, ldc)
        else:
            opts = _GemmExOpts(sa, sb, int(bool(fp8_fast_accum)))
            status = lib.gk_cuda_gemm_ex(ctx.handle, layout, ta, tb, m, n, k, float(alpha),
                                         FORMATS[fa], va.ptr, lda, FORMATS[fb], vb.ptr, ldb,
                                         float(beta), FORMATS[vc.dtype], vc.ptr, ldc,
                                         ctypes.addressof(opts))
        if status:
            check(status)  # gk_last_error() is this thread's: read it before another call
    return c


def _gemm_batched(a, b, c, va, vb, trans_a, trans_b, alpha, beta):
    """gemm on CUDA operands of which one is 3-D (batch first): one
    gk_cuda_sgemm_strided_batched call (python/gemmkit/_batched.py says how arrays map)."""
    batch, m, n, k = _batched.shape(va.shape, vb.shape, trans_a, trans_b)
    if (va.dtype, vb.dtype) != ("float32", "float32"):
        raise TypeError(f"gemmkit: batched CUDA operands must be float32, not {va.dtype} and "
                        f"{vb.dtype}")
    if c is None:
        if beta != 0:
            raise ValueError("gemmkit: beta != 0 needs c (the matrix to scale and add to)")
        c = _new_output(a, m, n, "float32", batch)
    vc = _device_view(c, "c", _HOST_OUTPUT)
    if vc.shape != (batch, m, n):
        raise ValueError(f"gemmkit: c/out has shape {vc.shape}, the product is {(batch, m, n)}")
    if vc.readonly or vc.dtype != "float32":
        raise ValueError("gemmkit: c/out must be a writable float32 array")
    if va.device != vc.device or vb.device != vc.device:
        raise ValueError(f"gemmkit: operands on devices {va.device}, {vb.device}, {vc.device}")
    c_plan = _batched.c_args(vc.operand(), batch)
    if c_plan is None:
        raise ValueError("gemmkit: c/out's items must each be contiguous along rows or columns "
                         "and must not overlap")
    plans = []
    for x, v, t, name in ((a, va, trans_a, "a"), (b, vb, trans_b, "b")):
        plan = _batched.operand(v.operand(), c_plan[0], bool(t))
        if plan is None:
            v = _View(_contiguous(x, name), name)
            plan = _batched.operand(v.operand(), c_plan[0], bool(t))
        plans.append((v, plan))
    (va, a_plan), (vb, b_plan) = plans
    ctx = contexts.get(vc.device, _stream_handle(vc))
    args = _batched.strided_args(c_plan[0], m, n, k, alpha, va.ptr, a_plan, vb.ptr, b_plan, beta,
                                 vc.ptr, c_plan, batch)
    with ctx.lock:
        check(lib.gk_cuda_sgemm_strided_batched(ctx.handle, *args))
    return c
