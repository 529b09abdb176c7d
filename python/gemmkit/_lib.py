"""Loading libgemmkit with ctypes, the C prototypes, and turning a gk_status into GemmkitError.

The library is looked for, in order: $GEMMKIT_LIBRARY (a path), a libgemmkit.so next to this
package, the repository's build tree ($GK_BUILD/lib, then build/lib, relative to the checkout this
package sits in), then the system's loader paths (an installed libgemmkit.so.0).
"""
import ctypes
import ctypes.util
import enum
import os

__all__ = ["GemmkitError", "Status", "lib", "library_path", "check", "FormatInfo"]


class Status(enum.IntEnum):
    """gk_status values (include/gemmkit.h)."""
    SUCCESS = 0
    INVALID_LAYOUT = 1
    INVALID_TRANS = 2
    INVALID_SIZE = 3
    INVALID_LD = 4
    NULL_POINTER = 5
    OVERFLOW = 6
    OUT_OF_MEMORY = 7
    INVALID_VALUE = 8
    UNSUPPORTED = 9
    NOT_BUILT = 10
    NO_DEVICE = 11
    CUDA = 12
    INTERNAL = 13
    INVALID_POINTER = 14


class GemmkitError(RuntimeError):
    """A gemmkit call failed. `status` is a Status, `message` gk_last_error()'s detail."""

    def __init__(self, status, message):
        try:
            status = Status(status)
        except ValueError:
            pass
        self.status = status
        self.message = message
        name = status.name if isinstance(status, Status) else str(status)
        super().__init__(f"{name}: {message}" if message else name)


def _candidates():
    env = os.environ.get("GEMMKIT_LIBRARY")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    for name in ("libgemmkit.so", "libgemmkit.so.0"):
        yield os.path.join(here, name)
    repo = os.path.dirname(os.path.dirname(here))
    builds = [os.environ.get("GK_BUILD"), "build"]
    for build in filter(None, builds):
        yield os.path.join(build if os.path.isabs(build) else os.path.join(repo, build), "lib",
                           "libgemmkit.so")
    found = ctypes.util.find_library("gemmkit")
    yield found or "libgemmkit.so.0"


def _load():
    errors = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            errors.append(f"{path}: {e}")
    raise ImportError("gemmkit: cannot load libgemmkit.so (set GEMMKIT_LIBRARY to its path); "
                      + "; ".join(errors or ["not found"]))


lib, library_path = _load()

_i64, _f32, _vp, _int = ctypes.c_int64, ctypes.c_float, ctypes.c_void_p, ctypes.c_int
_GEMM_ARGS = [_int, _int, _int, _i64, _i64, _i64, _f32, _vp, _i64, _vp, _i64, _f32, _vp, _i64]


class CpuInfo(ctypes.Structure):
    """Mirror of gk_cpu_info."""
    _fields_ = [("vendor", ctypes.c_char * 16), ("brand", ctypes.c_char * 64),
                ("has_avx2", _int), ("has_fma", _int), ("has_avx512f", _int),
                ("arch", ctypes.c_char * 16), ("arch_reason", ctypes.c_char * 64),
                ("mr", _int), ("nr", _int), ("mc", _i64), ("kc", _i64), ("nc", _i64),
                ("l1d_bytes", _i64), ("l2_bytes", _i64), ("l3_bytes", _i64), ("threads", _int)]


class FormatInfo(ctypes.Structure):
    """Mirror of gk_format_info (the number-format registry)."""
    _fields_ = [("name", ctypes.c_char_p), ("bits", _int), ("storage_bytes", _int),
                ("exponent_bits", _int), ("mantissa_bits", _int), ("bias", _int), ("emax", _int),
                ("is_signed", _int), ("has_zero", _int), ("has_neg_zero", _int),
                ("has_inf", _int), ("has_nan", _int), ("has_subnormals", _int),
                ("max_finite", ctypes.c_double), ("min_normal", ctypes.c_double),
                ("min_subnormal", ctypes.c_double), ("max_code", ctypes.c_uint32),
                ("nan_code", ctypes.c_uint32), ("mx_element", _int)]


def _proto(name, restype, argtypes):
    fn = getattr(lib, name)
    fn.restype, fn.argtypes = restype, argtypes


_proto("gk_status_string", ctypes.c_char_p, [_int])
_proto("gk_last_error", ctypes.c_char_p, [])
_proto("gk_version", ctypes.c_char_p, [])
_proto("gk_sgemm", _int, _GEMM_ARGS)
_proto("gk_set_num_threads", _int, [_int])
_proto("gk_get_num_threads", _int, [])
_proto("gk_set_arch", _int, [ctypes.c_char_p])
_proto("gk_cpu_get_info", _int, [ctypes.POINTER(CpuInfo)])
_proto("gk_cuda_available", _int, [])
_proto("gk_cuda_create", _int, [ctypes.POINTER(_vp), _int, _vp])
_proto("gk_cuda_destroy", _int, [_vp])
_proto("gk_cuda_sgemm", _int, [_vp] + _GEMM_ARGS)
_proto("gk_cuda_gemm_ex", _int, [_vp, _int, _int, _int, _i64, _i64, _i64, _f32, _int, _vp, _i64,
                                 _int, _vp, _i64, _f32, _int, _vp, _i64, _vp])
_proto("gk_cuda_set_fp32_mode", _int, [_vp, _int])
_proto("gk_cuda_kernel_count", _int, [])
_MX_Q = [_int, _int, _i64, _i64, _i64, _vp, _i64, _vp, _i64, _vp, _i64]
_MX_DQ = [_int, _i64, _i64, _i64, _vp, _i64, _vp, _i64, _vp, _i64]
_proto("gk_format_name", ctypes.c_char_p, [_int])
_proto("gk_format_info_get", _int, [_int, ctypes.POINTER(FormatInfo)])
_proto("gk_encode", _int, [_int, _vp, _vp, _i64, _int])
_proto("gk_decode", _int, [_int, _vp, _vp, _i64])
_proto("gk_packed_bytes", _i64, [_int, _i64])
_proto("gk_pack", _int, [_int, _vp, _vp, _i64])
_proto("gk_unpack", _int, [_int, _vp, _vp, _i64])
_proto("gk_mx_quantize", _int, _MX_Q)
_proto("gk_mx_dequantize", _int, _MX_DQ)
_proto("gk_cuda_encode", _int, [_vp, _int, _vp, _vp, _i64, _int])
_proto("gk_cuda_decode", _int, [_vp, _int, _vp, _vp, _i64])
_proto("gk_cuda_mx_quantize", _int, [_vp] + _MX_Q)
_proto("gk_cuda_mx_dequantize", _int, [_vp] + _MX_DQ)
# gk_gemm_scaled / gk_cuda_gemm_scaled: layout, transa, transb, m, n, k, alpha, atype, a, lda,
# a_scale, btype, b, ldb, b_scale, scaling, beta, ctype, c, ldc
_SCALED = [_int, _int, _int, _i64, _i64, _i64, _f32, _int, _vp, _i64, _vp, _int, _vp, _i64, _vp,
           _int, _f32, _int, _vp, _i64]
_proto("gk_gemm_scaled", _int, _SCALED)
_proto("gk_cuda_gemm_scaled", _int, [_vp] + _SCALED)


def check(status):
    """Raise GemmkitError for a failed status. gk_last_error() is per OS thread and ctypes calls
    run on the calling thread, so the message read here is this call's."""
    if status != Status.SUCCESS:
        raise GemmkitError(status, lib.gk_last_error().decode(errors="replace"))
