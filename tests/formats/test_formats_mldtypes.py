"""test_formats_mldtypes.py — gemmkit's conversions (gk_encode / gk_decode / gk_format_info_get,
called through ctypes on the library under test) against ml_dtypes and numpy directly: every code
of every format decoded, and millions of float32 values encoded in both modes. Each place where
gemmkit deliberately differs from ml_dtypes (docs/formats.md, "Differences from ml_dtypes") is
asserted here both ways: gemmkit gives its documented result AND ml_dtypes still gives the one the
document describes, so a change on either side fails the case. Skips when ml_dtypes is missing;
tests/formats/test_formats.c checks the same through committed vectors without it.
"""
import ctypes
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "python"))
from cases import Skip, case, run  # noqa: E402  (points GEMMKIT_LIBRARY at the build)

import numpy as np  # noqa: E402

try:
    import ml_dtypes
except ImportError:
    ml_dtypes = None

LIB = ctypes.CDLL(os.environ["GEMMKIT_LIBRARY"])
LIB.gk_encode.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                          ctypes.c_int]
LIB.gk_decode.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
LIB.gk_last_error.restype = ctypes.c_char_p


class Info(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p)] + [(f, ctypes.c_int) for f in (
        "bits", "storage_bytes", "exponent_bits", "mantissa_bits", "bias", "emax", "is_signed",
        "has_zero", "has_neg_zero", "has_inf", "has_nan", "has_subnormals")] + [
        (f, ctypes.c_double) for f in ("max_finite", "min_normal", "min_subnormal")] + [
        ("max_code", ctypes.c_uint32), ("nan_code", ctypes.c_uint32), ("mx_element", ctypes.c_int)]


LIB.gk_format_info_get.argtypes = [ctypes.c_int, ctypes.POINTER(Info)]

# gk_format values (include/gemmkit.h) of the formats ml_dtypes / numpy define.
FORMATS = {"bfloat16": 2, "float16": 3, "float8_e4m3fn": 4, "float8_e5m2": 5,
           "float8_e4m3fnuz": 6, "float8_e5m2fnuz": 7, "float8_e8m0fnu": 8, "float6_e2m3fn": 9,
           "float6_e3m2fn": 10, "float4_e2m1fn": 11}
GK_TF32 = 1


def need_ml_dtypes():
    if ml_dtypes is None:
        raise Skip("ml_dtypes is not importable (pip install ml_dtypes)")


def dtype(name):
    return np.float16 if name == "float16" else getattr(ml_dtypes, name)


def code_dtype(name):
    return np.uint16 if name in ("bfloat16", "float16") else np.uint8


def check(st):
    assert st == 0, "status %d: %s" % (st, LIB.gk_last_error().decode())


def gk_encode(fmt, x, sat):
    x = np.ascontiguousarray(x, dtype=np.float32)
    out = np.empty(x.shape, np.float32 if fmt <= GK_TF32 else
                   (np.uint16 if fmt in (2, 3) else np.uint8))
    check(LIB.gk_encode(fmt, x.ctypes.data, out.ctypes.data, x.size, sat))
    return out


def gk_decode(fmt, codes):
    codes = np.ascontiguousarray(codes)
    out = np.empty(codes.shape, np.float32)
    check(LIB.gk_decode(fmt, codes.ctypes.data, out.ctypes.data, codes.size))
    return out


def f32(bits):
    return np.asarray(bits, dtype=np.uint32).view(np.float32)


def info(fmt):
    i = Info()
    check(LIB.gk_format_info_get(fmt, ctypes.byref(i)))
    return i


def inputs(name, n=1 << 21, seed=17):
    """Random float32 bit patterns (every class: NaN payloads, Inf, subnormals, both signs), plus
    values spread over the format's range and the points between its neighbouring codes (exact
    halfway points, and one float32 ulp either side of them)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return _inputs(name, n, seed)


def _inputs(name, n, seed):
    rng = np.random.default_rng(seed)
    parts = [rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)]
    fin = ml_dtypes.finfo(dtype(name)) if name != "float16" else np.finfo(np.float16)
    lo, hi = np.log2(float(fin.smallest_subnormal)) - 2, np.log2(float(fin.max)) + 2
    mags = np.exp2(rng.uniform(lo, hi, n)).astype(np.float32)
    parts.append(np.where(rng.random(n) < 0.5, -mags, mags).astype(np.float32))
    # every representable value, the midpoints between neighbours, and their float32 neighbours
    width = 16 if name in ("bfloat16", "float16") else 8
    allv = np.arange(1 << width, dtype=np.uint32).astype(code_dtype(name)).view(dtype(name))
    vals = np.unique(allv.astype(np.float64)[np.isfinite(allv.astype(np.float64))])
    mids = (vals[1:] + vals[:-1]) / 2
    beyond = vals[-1] + (vals[-1] - vals[-2]) * np.array([0.5, 1, 1.5, 2, 100])
    pts = np.concatenate([vals, mids, beyond, -beyond, [np.inf, -np.inf, np.nan, -np.nan]])
    p32 = pts.astype(np.float32)
    parts += [p32, np.nextafter(p32, np.float32(np.inf)), np.nextafter(p32, np.float32(-np.inf))]
    return np.concatenate(parts)


def mldtypes_codes(name, x):
    with np.errstate(invalid="ignore", over="ignore"):
        return x.astype(dtype(name)).view(code_dtype(name))


def expected(name, x, sat):
    """ml_dtypes' codes; saturating = ml_dtypes of x clamped to [-max, max] (E8M0: [2^-127,
    2^127], zero and negatives to 2^-127), NaN left alone. Then gemmkit's documented
    differences (docs/formats.md), each checked against ml_dtypes in its own case."""
    xs = x
    if sat:
        if name == "float8_e8m0fnu":
            xs = np.where(np.isnan(x), x, np.clip(np.nan_to_num(x, nan=0), 2.0 ** -127, 2.0 ** 127))
        else:
            m = float(ml_dtypes.finfo(dtype(name)).max)
            xs = np.where(np.isnan(x), x, np.clip(x, -m, m))
        xs = xs.astype(np.float32)
    e = mldtypes_codes(name, xs).copy()
    bits = x.view(np.uint32)
    if name == "float16":  # canonical NaN instead of numpy's truncated payload
        nan = np.isnan(x)
        e[nan] = ((bits[nan] >> 16) & 0x8000 | 0x7E00).astype(np.uint16)
    if name == "float8_e8m0fnu":  # exact nearest below 1.5 * 2^-127 instead of ml_dtypes' 2^-126
        a = bits & 0x7FFFFFFF
        fix = (bits >> 31 == 0) & (a > 0x400000) & (a < 0x600000)
        e[fix] = 0
    return e


@case
def decode_every_code():
    need_ml_dtypes()
    for name, fmt in FORMATS.items():
        width = 16 if name in ("bfloat16", "float16") else 8
        codes = np.arange(1 << width, dtype=np.uint32).astype(code_dtype(name))
        if name.startswith(("float6", "float4")):  # only the format's own bits are codes
            codes = codes[: 1 << int(name[5])]
        want = codes.view(dtype(name)).astype(np.float32).view(np.uint32)
        got = gk_decode(fmt, codes).view(np.uint32)
        bad = np.nonzero(got != want)[0]
        assert bad.size == 0, "%s: code 0x%x -> 0x%08x, ml_dtypes 0x%08x (%d codes differ)" % (
            name, codes[bad[0]], got[bad[0]], want[bad[0]], bad.size)


def encode_case(sat):
    need_ml_dtypes()
    for name, fmt in FORMATS.items():
        x = inputs(name)
        got = gk_encode(fmt, x, sat)
        want = expected(name, x, sat)
        bad = np.nonzero(got != want)[0]
        assert bad.size == 0, "%s sat=%d: x=%r (0x%08x) -> 0x%x, expected 0x%x (%d of %d)" % (
            name, sat, float(x[bad[0]]), x.view(np.uint32)[bad[0]], got[bad[0]], want[bad[0]],
            bad.size, x.size)


@case
def encode_nonsaturating():
    encode_case(0)


@case
def encode_saturating():
    encode_case(1)


@case
def encode_tf32():
    """TF32 (no ml_dtypes type): float64 nearest-even onto 10 fraction bits, by numpy."""
    rng = np.random.default_rng(5)
    x = rng.integers(0, 1 << 32, 1 << 20, dtype=np.uint64).astype(np.uint32).view(np.float32)
    x = x[np.isfinite(x)]
    d = x.astype(np.float64)
    e = np.floor(np.log2(np.maximum(np.abs(d), 2.0 ** -126)))
    q = 2.0 ** (e - 10)
    want = (np.round(d / q) * q)  # np.round: half to even
    for sat in (0, 1):
        w = want.copy()
        tf32_max = (2 - 2.0 ** -10) * 2.0 ** 127
        big = np.abs(w) > tf32_max
        w[big] = np.sign(w[big]) * (tf32_max if sat else np.inf)
        got = gk_encode(GK_TF32, x, sat).astype(np.float64)
        bad = np.nonzero(got != w)[0]
        assert bad.size == 0, "sat=%d x=%r -> %r, expected %r" % (sat, x[bad[0]], got[bad[0]],
                                                                  w[bad[0]])


@case
def difference_f16_nan_payload():
    """gemmkit: every NaN encodes to the canonical quiet NaN 0x7E00 (sign kept); numpy keeps the
    top payload bits, so a signaling NaN stays signaling."""
    need_ml_dtypes()
    x = f32([0x7F800001, 0xFFA00000])
    assert list(gk_encode(3, x, 0)) == [0x7E00, 0xFE00]
    with np.errstate(invalid="ignore"):
        assert list(x.astype(np.float16).view(np.uint16)) == [0x7C01, 0xFD00]


@case
def difference_e8m0_below_2_pow_minus_126():
    """gemmkit rounds (2^-127, 1.5 * 2^-127) to the nearer 2^-127 (code 0); ml_dtypes 0.6
    rounds every float32 subnormal above 2^-127 up to 2^-126 (code 1)."""
    need_ml_dtypes()
    x = f32([0x00480000, 0x005FFFFF, 0x00600000])  # 1.125, 1.49999, 1.5 times 2^-127
    assert list(gk_encode(8, x, 0)) == [0, 0, 1]
    assert list(mldtypes_codes("float8_e8m0fnu", x)) == [1, 1, 1]


@case
def difference_saturating_inf():
    """Saturating mode (which ml_dtypes' numpy casts do not offer) maps +-Inf to +-max; the
    C++ ml_dtypes saturating conversion keeps Inf as Inf/NaN. Documented; checked here on
    gemmkit's side only."""
    x = f32([0x7F800000, 0xFF800000])
    assert list(gk_encode(4, x, 1)) == [0x7E, 0xFE]
    assert list(gk_encode(5, x, 1)) == [0x7B, 0xFB]
    assert list(gk_encode(8, x, 1)) == [0xFE, 0x00]


@case
def mx_rceil_matches_nvidia_float32_formula():
    """GK_MX_SCALE_RCEIL (exact: smallest 2^e with amax / 2^e <= max_elem) against the float32
    formula cuBLAS and torchao use: descale = amax * float32(1 / max_elem), rounded up to a power
    of two (E8M0 round-up, float32 subnormals included). Block size 1, so each value is a block."""
    LIB.gk_mx_quantize.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64,
                                   ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64,
                                   ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p,
                                   ctypes.c_int64]
    rng = np.random.default_rng(11)
    a = rng.integers(1, 0x7F800000, 1 << 21, dtype=np.uint64).astype(np.uint32).view(np.float32)
    for fmt, maxv in ((4, 448.0), (5, 57344.0), (9, 7.5), (10, 28.0), (11, 6.0)):
        k = np.arange(-150, 128, dtype=np.float64)
        with np.errstate(over="ignore"):
            edge = (maxv * np.exp2(k)).astype(np.float32)
        edge = edge[np.isfinite(edge) & (edge > 0)]
        x = np.concatenate([a, edge, np.nextafter(edge, np.float32(np.inf)),
                            np.nextafter(edge, np.float32(0))]).astype(np.float32)
        codes = np.empty(x.size, np.uint8)
        scales = np.empty(x.size, np.uint8)
        check(LIB.gk_mx_quantize(fmt, 3, 1, x.size, 1, x.ctypes.data, x.size, codes.ctypes.data,
                                 x.size, scales.ctypes.data, x.size))
        d = (x * (np.float32(1) / np.float32(maxv))).astype(np.float32).view(np.uint32)
        e, m = (d >> 23) & 0xFF, d & 0x7FFFFF
        want = e + np.where(e == 0, m > 0x400000, m != 0)
        normal = d >= 0x00800000  # below, the float32 product itself rounds (next case)
        bad = np.nonzero((scales != want) & normal)[0]
        assert bad.size == 0, "fmt %d amax %r: scale %d, float32 formula %d (%d differ)" % (
            fmt, float(x[bad[0]]), scales[bad[0]], want[bad[0]], bad.size)
    # Documented difference: amax just above 448 * 2^-127. Its exact quotient by 448 is above
    # 2^-127, so the scale must be 2^-126 (code 1) for amax / X <= 448; the float32 product is a
    # subnormal that rounds to exactly 2^-127 (code 0), and 448.00003 would then be clamped.
    x = np.nextafter(np.float32(448 * 2.0 ** -127), np.float32(1)).reshape(1)
    codes, scales = np.empty(1, np.uint8), np.empty(1, np.uint8)
    check(LIB.gk_mx_quantize(4, 3, 1, 1, 1, x.ctypes.data, 1, codes.ctypes.data, 1,
                             scales.ctypes.data, 1))
    d = (x * (np.float32(1) / np.float32(448))).astype(np.float32).view(np.uint32)
    assert scales[0] == 1 and d[0] == 0x00400000, (scales[0], hex(d[0]))


@case
def format_info_matches_finfo():
    need_ml_dtypes()
    for name, fmt in FORMATS.items():
        fin = np.finfo(np.float16) if name == "float16" else ml_dtypes.finfo(dtype(name))
        i = info(fmt)
        assert i.name.decode() == name, i.name
        assert i.max_finite == float(fin.max), (name, i.max_finite, fin.max)
        assert i.min_normal == float(fin.tiny), (name, i.min_normal, fin.tiny)
        sub = float(fin.smallest_subnormal)
        assert i.min_subnormal == sub, (name, i.min_subnormal, sub)
        assert i.mantissa_bits == fin.nmant, (name, i.mantissa_bits, fin.nmant)
        codes = np.array([i.max_code], dtype=code_dtype(name))
        assert float(codes.view(dtype(name)).astype(np.float64)[0]) == i.max_finite, name


if __name__ == "__main__":
    run()
