"""gemmkit.formats — low-precision number formats and OCP MX block scaling, in numpy terms.

    from gemmkit import formats
    codes = formats.encode(x, "float8_e4m3fn", saturate=True)   # uint8, one code per element
    y = formats.decode(codes, "float8_e4m3fn")                   # float32, exact
    codes, scales = formats.mx_quantize(x, "float4_e2m1fn")      # blocks of 32 along the last axis
    y = formats.mx_dequantize(codes, scales, "float4_e2m1fn")

Formats are named as ml_dtypes names them (FORMATS, read from the library's registry); an
ml_dtypes or numpy dtype is accepted wherever a name is. Codes are unsigned integers: uint8 for the
formats of 8 bits or fewer (the 6- and 4-bit codes in the low bits), uint16 for bfloat16/float16,
uint32 for float32/tfloat32. Rounding is to nearest, ties to even; saturate=False sends overflow to
the format's Inf or NaN, saturate=True to its largest finite value. The exact rules, and where they
differ from ml_dtypes: docs/formats.md.

ml_dtypes arrays are accepted as input (an array of the target format gives its bits; one of
another format is widened to float32 exactly) and returned on request (as_ml_dtypes=True, view()).
Device arrays (torch/cupy tensors, __cuda_array_interface__ or a CUDA __dlpack__) are converted on
their device and current stream by the CUDA backend (gk_cuda_encode and friends); results are
bit-identical to the CPU's.
"""
import ctypes
from collections import namedtuple

import numpy as np

from . import _cuda
from ._lib import FormatInfo, check, lib

try:
    import ml_dtypes
except ImportError:  # optional: only as_ml_dtypes=True and view() need it
    ml_dtypes = None

__all__ = ["FORMATS", "MX_FORMATS", "SCALE_RULES", "info", "encode", "decode", "view", "pack",
           "unpack", "mx_quantize", "mx_dequantize"]

Info = namedtuple("Info", [f for f, _ in FormatInfo._fields_] + ["id"])

_CODE_DTYPES = {1: np.uint8, 2: np.uint16, 4: np.uint32}


def _registry():
    # gk_format_name answers NULL past the last format without recording an error (a failed call
    # would make every later call of the process clear the per-thread message: core/internal.h).
    out, fmt = {}, 0
    while lib.gk_format_name(fmt) is not None:
        raw = FormatInfo()
        check(lib.gk_format_info_get(fmt, ctypes.byref(raw)))
        values = {f: getattr(raw, f) for f, _ in FormatInfo._fields_}
        values["name"] = values["name"].decode()
        out[values["name"]] = Info(id=fmt, **values)
        fmt += 1
    return out


_INFO = _registry()
FORMATS = tuple(_INFO)  # every format of the registry, in gk_format order
MX_FORMATS = tuple(n for n, i in _INFO.items() if i.mx_element)

# gk_mx_scale_rule (include/gemmkit.h), by the names docs/formats.md uses.
SCALE_RULES = {"floor": 0, "ceil": 1, "even": 2, "rceil": 3}


def info(fmt):
    """The registry's facts about a format (gk_format_info): bits, exponent/mantissa bits, bias,
    max_finite, min_normal, min_subnormal, has_inf/has_nan/..., max_code, nan_code, mx_element."""
    return _format(fmt)


def _format(fmt):
    name = fmt
    if not isinstance(fmt, str):
        try:
            name = np.dtype(fmt).name
        except TypeError:
            name = None
    if name not in _INFO:
        raise ValueError(f"gemmkit.formats: unknown format {fmt!r}; the formats are "
                         f"{', '.join(FORMATS)}")
    return _INFO[name]


def _code_dtype(f):
    return np.dtype(_CODE_DTYPES[f.storage_bytes])


def _ml_dtype(f):
    """The numpy dtype whose storage is f's code (ml_dtypes for the narrow formats)."""
    if f.name in ("float32", "float16"):
        return np.dtype(f.name)
    if ml_dtypes is None:
        raise ImportError(f"gemmkit.formats: ml_dtypes is needed for {f.name} arrays "
                          f"(pip install ml_dtypes)")
    t = getattr(ml_dtypes, f.name, None)
    if t is None:
        raise ValueError(f"gemmkit.formats: ml_dtypes has no {f.name} type")
    return np.dtype(t)


def _float_names():
    return {"float16", "float32"} | {n for n in FORMATS if n != "tfloat32"}


def _c_order(x):
    """x itself when C-contiguous, else a C-ordered copy (np.ascontiguousarray would turn a 0-d
    array into a 1-d one)."""
    return x if x.flags.c_contiguous else x.copy(order="C")


def _floats_in(x, name):
    """x (any array-like) as a C-contiguous float32 ndarray. Narrow float types widen exactly;
    float64 and integer arrays are refused: rounding twice (float64 -> float32 -> format) can
    differ from rounding once. Lists and scalars are taken as float32."""
    if not isinstance(x, np.ndarray):
        x = np.asarray(x, dtype=np.float32) if not hasattr(x, "dtype") else np.asarray(x)
    if x.dtype == np.float32:
        return _c_order(x)
    if x.dtype.name in _float_names() and x.dtype.itemsize <= 2:
        return x.astype(np.float32, order="C")
    raise TypeError(f"gemmkit.formats: {name} has dtype {x.dtype}; encode takes float32 (or a "
                    f"narrower float type); convert explicitly, knowing that float64 -> float32 "
                    f"-> format rounds twice")


def _codes_in(codes, f, name):
    """codes as a C-contiguous array of f's code dtype: unsigned codes, or an array of f's own
    float type (its bits). Anything else is a TypeError, never a silent conversion."""
    want = _code_dtype(f)
    if not isinstance(codes, np.ndarray):
        codes = np.asarray(codes, dtype=want)
    if codes.dtype != want:
        if codes.dtype.name != f.name or codes.dtype.itemsize != want.itemsize:
            raise TypeError(f"gemmkit.formats: {name} has dtype {codes.dtype}; {f.name} codes "
                            f"are {want} (or {f.name} values)")
        codes = _c_order(codes).view(want)
    return _c_order(codes)


def _out_array(out, shape, dtype, name):
    if out is None:
        return np.empty(shape, dtype)
    if not isinstance(out, np.ndarray) or out.dtype != dtype or out.shape != tuple(shape):
        raise ValueError(f"gemmkit.formats: {name} must be a {np.dtype(dtype)} array of shape "
                         f"{tuple(shape)}")
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError(f"gemmkit.formats: {name} must be C-contiguous and writable")
    return out


def encode(x, fmt, saturate=False, out=None, as_ml_dtypes=False):
    """Codes of x (float32, rounded to nearest even) in format fmt, same shape as x.

    saturate=False: values beyond the largest finite one become the format's Inf, or NaN where it
    has no Inf (465 -> NaN in float8_e4m3fn); saturate=True: the largest finite value (448). The
    6- and 4-bit formats, with neither Inf nor NaN, always saturate. An array of fmt's own type
    (ml_dtypes) gives its bits, of another narrow float type its exact float32 values encoded.
    as_ml_dtypes=True returns the codes viewed as fmt's ml_dtypes type. A float32 device array
    gives a device array of codes (out= a device array of the code type)."""
    f = _format(fmt)
    if _cuda.is_device_array(x):
        return _device_encode(x, f, bool(saturate), out)
    if isinstance(x, np.ndarray) and x.dtype.name == f.name and not saturate:
        codes = _codes_in(x, f, "x")  # already in the format: its bits (saturating maps Inf)
        if out is not None:
            _out_array(out, codes.shape, codes.dtype, "out")[...] = codes
            codes = out
    else:
        x = _floats_in(x, "x")
        codes = _out_array(out, x.shape, _code_dtype(f), "out")
        check(lib.gk_encode(f.id, x.ctypes.data, codes.ctypes.data, x.size, int(bool(saturate))))
    return codes.view(_ml_dtype(f)) if as_ml_dtypes else codes


def decode(codes, fmt, out=None):
    """float32 values of fmt's codes (exact: every value of every format is a float32). codes:
    unsigned integers of fmt's code width, or an array of fmt's own (ml_dtypes) type."""
    f = _format(fmt)
    if _cuda.is_device_array(codes):
        return _device_decode(codes, f, out)
    codes = _codes_in(codes, f, "codes")
    y = _out_array(out, codes.shape, np.float32, "out")
    check(lib.gk_decode(f.id, codes.ctypes.data, y.ctypes.data, codes.size))
    return y


def view(codes, fmt):
    """codes viewed (no copy where they are contiguous) as fmt's ml_dtypes (or numpy) type."""
    f = _format(fmt)
    return _codes_in(codes, f, "codes").view(_ml_dtype(f))


def pack(codes, fmt):
    """The 6- or 4-bit codes packed into a uint8 stream (gk_pack: element i at bits
    [i*b, i*b + b), little-endian; float4: two per byte, element 0 in the low nibble). 1-D."""
    f = _format(fmt)
    codes = _codes_in(codes, f, "codes").reshape(-1)
    size = lib.gk_packed_bytes(f.id, codes.size)
    if size < 0:
        raise ValueError(f"gemmkit.formats: {f.name} has no packed storage (only the 6- and "
                         f"4-bit formats do)")
    packed = np.empty(size, np.uint8)
    check(lib.gk_pack(f.id, codes.ctypes.data, packed.ctypes.data, codes.size))
    return packed


def unpack(packed, fmt, n):
    """The first n codes of a stream made by pack(), one uint8 per element."""
    f = _format(fmt)
    n = int(n)
    size = lib.gk_packed_bytes(f.id, n)
    if size < 0:
        raise ValueError(f"gemmkit.formats: {f.name} has no packed storage, or n={n} is negative")
    packed = np.ascontiguousarray(np.asarray(packed, dtype=np.uint8).reshape(-1))
    if packed.size < size:
        raise ValueError(f"gemmkit.formats: packed holds {packed.size} bytes, {n} {f.name} codes "
                         f"need {size}")
    codes = np.empty(n, np.uint8)
    check(lib.gk_unpack(f.id, packed.ctypes.data, codes.ctypes.data, n))
    return codes


# ---- MX block scaling ---------------------------------------------------------------------------

def _mx_args(fmt, block, scale_rule=None):
    f = _format(fmt)
    if not f.mx_element:
        raise ValueError(f"gemmkit.formats: {f.name} is not an MX element format; those are "
                         f"{', '.join(MX_FORMATS)}")
    if isinstance(block, bool) or not isinstance(block, (int, np.integer)) or block <= 0:
        raise ValueError(f"gemmkit.formats: block={block!r} must be a positive integer")
    if scale_rule is not None and scale_rule not in SCALE_RULES:
        raise ValueError(f"gemmkit.formats: unknown scale_rule {scale_rule!r}; the rules are "
                         f"{', '.join(SCALE_RULES)}")
    return f, int(block)


def _rows_cols(shape, name):
    """(rows, cols) of the 2-D problem an array of `shape` is: blocks along the last axis."""
    if not shape:
        raise ValueError(f"gemmkit.formats: {name} must have at least one dimension")
    return int(np.prod(shape[:-1], dtype=np.int64)), shape[-1]


def _blocks(cols, block):
    return -(-cols // block)


def mx_quantize(x, fmt, block=32, scale_rule="floor", as_ml_dtypes=False):
    """OCP MX block quantization along the last axis: (codes, scales).

    Each row is cut into blocks of `block` elements (the last one shorter when block does not
    divide the row); each block gets one E8M0 scale X = 2^e chosen by scale_rule ("floor", the
    spec's default: e = floor(log2(amax)) - emax_elem; "ceil", "even", "rceil": docs/formats.md),
    and its elements x / X rounded to nearest even and clamped to the largest finite value of fmt.
    codes: uint8 of x's shape; scales: uint8 E8M0 codes of shape x.shape[:-1] + (ceil(cols /
    block),). as_ml_dtypes=True returns them as fmt's and float8_e8m0fnu's ml_dtypes types."""
    f, block = _mx_args(fmt, block, scale_rule)
    rule = SCALE_RULES[scale_rule]
    if _cuda.is_device_array(x):
        return _device_mx_quantize(x, f, rule, block)
    x = _floats_in(x, "x")
    rows, cols = _rows_cols(x.shape, "x")
    nb = _blocks(cols, block)
    codes = np.empty(x.shape, np.uint8)
    scales = np.empty(x.shape[:-1] + (nb,), np.uint8)
    check(lib.gk_mx_quantize(f.id, rule, rows, cols, block, x.ctypes.data, max(cols, 1),
                             codes.ctypes.data, max(cols, 1), scales.ctypes.data, max(nb, 1)))
    if as_ml_dtypes:
        return codes.view(_ml_dtype(f)), scales.view(_ml_dtype(_INFO["float8_e8m0fnu"]))
    return codes, scales


def mx_dequantize(codes, scales, fmt, block=32):
    """float32 values of MX-quantized data: decode(codes) * 2^(scale - 127) per block (exact, NaN
    for a block whose scale is NaN). Shapes as mx_quantize returns them."""
    f, block = _mx_args(fmt, block)
    e8 = _INFO["float8_e8m0fnu"]
    if _cuda.is_device_array(codes) or _cuda.is_device_array(scales):
        return _device_mx_dequantize(codes, scales, f, block)
    codes, scales = _codes_in(codes, f, "codes"), _codes_in(scales, e8, "scales")
    rows, cols = _rows_cols(codes.shape, "codes")
    nb = _blocks(cols, block)
    if scales.shape != codes.shape[:-1] + (nb,):
        raise ValueError(f"gemmkit.formats: scales has shape {scales.shape}; codes of shape "
                         f"{codes.shape} in blocks of {block} need {codes.shape[:-1] + (nb,)}")
    y = np.empty(codes.shape, np.float32)
    check(lib.gk_mx_dequantize(f.id, rows, cols, block, codes.ctypes.data, max(cols, 1),
                               scales.ctypes.data, max(nb, 1), y.ctypes.data, max(cols, 1)))
    return y


# ---- device arrays ------------------------------------------------------------------------------

# DLPack type codes (kDLUInt 1, kDLInt 0, kDLFloat 2, kDLBfloat 4, then one per narrow float
# format) and the __cuda_array_interface__ typestrs of the types a code or value array may have:
# "u" for unsigned codes, else the ml_dtypes name of a float type. "<V2" is bfloat16 as torch and
# ml_dtypes write it (python/gemmkit/_cuda.py reads it the same way).
_DLPACK = {(1, 8): "u", (1, 16): "u", (1, 32): "u", (2, 32): "float32", (2, 16): "float16",
           (4, 16): "bfloat16", (10, 8): "float8_e4m3fn", (11, 8): "float8_e4m3fnuz",
           (12, 8): "float8_e5m2", (13, 8): "float8_e5m2fnuz", (14, 8): "float8_e8m0fnu",
           (15, 8): "float6_e2m3fn", (16, 8): "float6_e3m2fn", (17, 8): "float4_e2m1fn"}
_TYPESTR = {"u": "u", "f4": "float32", "f2": "float16", "V2": "bfloat16"}


class _Device:
    """One contiguous device array: pointer, shape, element type and size, device, stream.
    `type` is "u" (unsigned integers: codes), the name of a float type, or None (anything else).
    torch tensors are read through their own attributes (their float8 types have no array
    interface), other arrays through __cuda_array_interface__ or DLPack."""

    def __init__(self, x, name):
        self.obj, self.keep, self.readonly, self.stream, self.name = x, None, False, None, name
        cai = None if _cuda._is_torch(x) else self._cai(x)
        if _cuda._is_torch(x):
            t = str(x.dtype).rsplit(".", 1)[-1]  # torch.float8_e4m3fn -> "float8_e4m3fn"
            self.type = "u" if t.startswith("uint") else None if t.startswith(("int", "bool",
                                                                              "complex")) else t
            self.itemsize = x.element_size()
            self.shape = tuple(x.shape)
            self.ptr = x.data_ptr()
            strides = tuple(s * self.itemsize for s in x.stride())
            self.device = x.device.index if x.device.index is not None else 0
        elif cai is not None:
            typestr = cai["typestr"]
            kind = typestr[1] if typestr[1] == "u" else typestr[1:]
            self.type, self.itemsize = _TYPESTR.get(kind), int(typestr[2:])
            self.shape = tuple(cai["shape"])
            self.ptr, self.readonly = cai["data"]
            strides = cai.get("strides")
            self.stream = cai.get("stream")
            self.device = _cuda._View._device_attr(x)
        else:
            capsule = x.__dlpack__(stream=1)  # data ready on the legacy default stream
            t = _cuda._DLTensor.from_address(_cuda._capsule_pointer(capsule, b"dltensor"))
            self.type = _DLPACK.get((t.dtype.code, t.dtype.bits)) if t.dtype.lanes == 1 else None
            self.itemsize = max(t.dtype.bits // 8, 1)
            self.keep = capsule  # the producer frees the tensor when the capsule dies
            self.shape = tuple(t.shape[i] for i in range(t.ndim))
            self.ptr = (t.data or 0) + t.byte_offset
            strides = None if not t.strides else \
                tuple(t.strides[i] * self.itemsize for i in range(t.ndim))
            self.stream = 1
            self.device = t.device.device_id
        self.ptr = self.ptr or 0
        self.size = int(np.prod(self.shape, dtype=np.int64))
        if strides is not None and self.size > 1:
            step = self.itemsize
            for n, s in zip(reversed(self.shape), reversed(strides)):
                if n > 1 and s != step:
                    raise ValueError(f"gemmkit.formats: {name} must be a contiguous (C-ordered) "
                                     f"device array")
                step *= n

    @staticmethod
    def _cai(x):
        # A type the producer cannot describe (TypeError, KeyError) leaves DLPack to try.
        try:
            return x.__cuda_array_interface__
        except (AttributeError, TypeError, KeyError):
            return None

    def holds(self, f):
        """True when the elements are f's codes: unsigned of f's width, or f's own float type."""
        return self.type == f.name or (self.type == "u" and self.itemsize == f.storage_bytes)


def _device_in(x, name):
    fw = _cuda._framework(x)
    if fw == "torch":
        x = x.contiguous()
    elif fw == "cupy":
        import cupy
        x = cupy.ascontiguousarray(x)
    return _Device(x, name)


def _device_new(like, shape, dtype, name):
    fw = _cuda._framework(like.obj)
    if fw == "torch":
        import torch
        return torch.empty(shape, dtype=getattr(torch, np.dtype(dtype).name), device=like.obj.device)
    if fw == "cupy":
        import cupy
        with cupy.cuda.Device(like.device):
            return cupy.empty(shape, dtype=dtype)
    raise ValueError(f"gemmkit.formats: pass {name}= for device arrays of type "
                     f"{type(like.obj).__name__}")


def _device_out(out, like, shape, dtype, name):
    if out is None:
        out = _device_new(like, shape, dtype, name)
    elif not _cuda.is_device_array(out):
        raise ValueError(f"gemmkit.formats: {name} must be a device array like the input")
    v = _Device(out, name)
    d = np.dtype(dtype)
    want = "u" if d.kind == "u" else d.name
    if v.type != want or v.itemsize != d.itemsize or v.shape != tuple(shape):
        raise ValueError(f"gemmkit.formats: {name} must be a {d} device array of shape "
                         f"{tuple(shape)}")
    if v.readonly:
        raise ValueError(f"gemmkit.formats: {name} is read-only")
    if v.device != like.device:
        raise ValueError(f"gemmkit.formats: {name} is on device {v.device}, the input on "
                         f"{like.device}")
    return out, v


def _device_call(v, fn, *args):
    """Run gk_cuda_<fn>(ctx, *args) on v's device and stream (queued, not waited for)."""
    if not lib.gk_cuda_available():
        ctx = ctypes.c_void_p()  # let the library say why (not built / no device)
        check(lib.gk_cuda_create(ctypes.byref(ctx), 0, None))
        lib.gk_cuda_destroy(ctx)
    ctx = ctypes.c_void_p()
    check(lib.gk_cuda_create(ctypes.byref(ctx), v.device,
                             ctypes.c_void_p(_cuda._stream_handle(v))))
    try:
        check(getattr(lib, fn)(ctx, *args))
    finally:
        lib.gk_cuda_destroy(ctx)


def _device_codes_in(x, f, name):
    v = _device_in(x, name)
    if not v.holds(f):
        raise TypeError(f"gemmkit.formats: {name} must hold {f.name} codes (unsigned "
                        f"{8 * f.storage_bytes}-bit integers, or {f.name} values)")
    return v


def _device_encode(x, f, saturate, out):
    v = _device_in(x, "x")
    if v.type != "float32":
        raise TypeError("gemmkit.formats: device arrays are encoded from float32")
    out, vo = _device_out(out, v, v.shape, _code_dtype(f), "out")
    _device_call(vo, "gk_cuda_encode", f.id, v.ptr, vo.ptr, v.size, int(saturate))
    return out


def _device_decode(codes, f, out):
    v = _device_codes_in(codes, f, "codes")
    out, vo = _device_out(out, v, v.shape, np.float32, "out")
    _device_call(vo, "gk_cuda_decode", f.id, v.ptr, vo.ptr, v.size)
    return out


def _device_mx_quantize(x, f, rule, block):
    v = _device_in(x, "x")
    if v.type != "float32":
        raise TypeError("gemmkit.formats: device arrays are quantized from float32")
    rows, cols = _rows_cols(v.shape, "x")
    nb = _blocks(cols, block)
    codes, vc = _device_out(None, v, v.shape, np.uint8, "codes")
    scales, vs = _device_out(None, v, v.shape[:-1] + (nb,), np.uint8, "scales")
    _device_call(vc, "gk_cuda_mx_quantize", f.id, rule, rows, cols, block, v.ptr, max(cols, 1),
                 vc.ptr, max(cols, 1), vs.ptr, max(nb, 1))
    return codes, scales


def _device_mx_dequantize(codes, scales, f, block):
    if not (_cuda.is_device_array(codes) and _cuda.is_device_array(scales)):
        raise ValueError("gemmkit.formats: codes and scales must both be device arrays or both "
                         "host arrays")
    vc = _device_codes_in(codes, f, "codes")
    vs = _device_codes_in(scales, _INFO["float8_e8m0fnu"], "scales")
    rows, cols = _rows_cols(vc.shape, "codes")
    nb = _blocks(cols, block)
    if vs.shape != vc.shape[:-1] + (nb,):
        raise ValueError(f"gemmkit.formats: scales has shape {vs.shape}; codes of shape "
                         f"{vc.shape} in blocks of {block} need {vc.shape[:-1] + (nb,)}")
    if vs.device != vc.device:
        raise ValueError(f"gemmkit.formats: codes on device {vc.device}, scales on {vs.device}")
    y, vy = _device_out(None, vc, vc.shape, np.float32, "y")
    _device_call(vy, "gk_cuda_mx_dequantize", f.id, rows, cols, block, vc.ptr, max(cols, 1),
                 vs.ptr, max(nb, 1), vy.ptr, max(cols, 1))
    return y
