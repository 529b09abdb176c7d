"""test_formats.py — the Python API of the number formats (gemmkit.formats): the registry, names
and dtypes accepted, shapes and code dtypes returned, errors (a bad name is a ValueError naming
it), round trips, ml_dtypes arrays in and out, packing, the binding against ml_dtypes where it is
importable (the exhaustive C-level comparison is tests/formats/test_formats_mldtypes.py), MX
quantize/dequantize against a float64 model of the OCP MX v1.0 rule and of each other scale rule,
and the device-array path: the exact gk_cuda_* calls recorded from a stand-in library, then, with
a GPU and torch, results on the device equal to the CPU's bit for bit.
"""
import numpy as np

from cases import Skip, case, run, cuda_torch, FakeCudaArray, RecordingLib

import gemmkit
from gemmkit import formats as F

try:
    import ml_dtypes
except ImportError:
    ml_dtypes = None

rng = np.random.default_rng(17)

ISSUE_NAMES = ("float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
               "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn", "bfloat16",
               "float16")


def raises(exc, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except exc as e:
        return e
    raise AssertionError(f"{fn.__name__}{args}: no {exc.__name__}")


def need_ml_dtypes():
    if ml_dtypes is None:
        raise Skip("ml_dtypes is not importable (pip install ml_dtypes)")


def ml_type(name):
    return np.dtype(np.float16) if name == "float16" else np.dtype(getattr(ml_dtypes, name))


def all_codes(name):
    i = F.info(name)
    count = 1 << (8 * i.storage_bytes if i.bits >= 8 else i.bits)
    return np.arange(count, dtype=np.uint32).astype(np.dtype(f"u{i.storage_bytes}"))


def same_floats(a, b):
    """Equal as floats, NaN matching NaN, and the sign of zeros equal."""
    with np.errstate(invalid="ignore"):
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return a.shape == b.shape and bool(np.all((a == b) & (np.signbit(a) == np.signbit(b))
                                              | (np.isnan(a) & np.isnan(b))))


# ---- registry, names, dtypes ---------------------------------------------------------------------

@case
def registry():
    assert set(ISSUE_NAMES) <= set(F.FORMATS), F.FORMATS
    assert F.MX_FORMATS == ("float8_e4m3fn", "float8_e5m2", "float6_e2m3fn", "float6_e3m2fn",
                            "float4_e2m1fn"), F.MX_FORMATS
    i = F.info("float8_e4m3fn")
    assert (i.max_finite, i.max_code, i.nan_code, i.bits, i.has_inf) == (448.0, 0x7E, 0x7F, 8, 0)
    assert F.info("float4_e2m1fn").max_finite == 6.0
    assert F.info("bfloat16").storage_bytes == 2
    assert set(F.SCALE_RULES) == {"floor", "ceil", "even", "rceil"}


@case
def bad_format_names():
    for bad in ("float8", "e4m3", "FLOAT8_E4M3FN", "", np.float64, 7):
        e = raises(ValueError, F.encode, [1.0], bad)
        assert repr(bad) in str(e) and "float8_e4m3fn" in str(e), str(e)
    e = raises(ValueError, F.decode, np.zeros(3, np.uint8), "float7_e3m3")
    assert "'float7_e3m3'" in str(e), str(e)
    raises(ValueError, F.mx_quantize, np.ones((1, 32), np.float32), "nope")
    raises(ValueError, F.info, "nope")


@case
def dtypes_as_format_names():
    x = np.array([1.5, -3.0, 465.0], np.float32)
    want = F.encode(x, "float16")
    assert np.array_equal(F.encode(x, np.float16), want)
    if ml_dtypes is not None:
        assert np.array_equal(F.encode(x, ml_dtypes.float8_e5m2), F.encode(x, "float8_e5m2"))
        assert np.array_equal(F.encode(x, np.dtype(ml_dtypes.bfloat16)), F.encode(x, "bfloat16"))


@case
def shapes_and_code_dtypes():
    for name in F.FORMATS:
        width = F.info(name).storage_bytes
        for shape in [(), (0,), (7,), (3, 5), (2, 3, 4), (1, 0, 2)]:
            x = rng.standard_normal(shape).astype(np.float32)
            c = F.encode(x, name)
            assert c.shape == x.shape and c.dtype == np.dtype(f"u{width}"), (name, shape, c.dtype)
            y = F.decode(c, name)
            assert y.shape == x.shape and y.dtype == np.float32, (name, shape)
    # non-contiguous input and Python lists / scalars
    x = rng.standard_normal((6, 8)).astype(np.float32)
    assert np.array_equal(F.encode(x[::2, ::3], "float8_e4m3fn"),
                          F.encode(np.ascontiguousarray(x[::2, ::3]), "float8_e4m3fn"))
    assert F.encode(465.0, "float8_e4m3fn", saturate=True) == 0x7E
    assert list(F.encode([1.0, -2.0], "float4_e2m1fn")) == [0x2, 0xC]
    assert list(F.decode([0x2, 0xC], "float4_e2m1fn")) == [1.0, -2.0]


@case
def dtype_errors():
    e = raises(TypeError, F.encode, np.ones(3, np.float64), "float8_e4m3fn")
    assert "float64" in str(e)
    raises(TypeError, F.encode, np.ones(3, np.int32), "float8_e4m3fn")
    raises(TypeError, F.decode, np.zeros(3, np.uint16), "float8_e4m3fn")   # wrong code width
    raises(TypeError, F.decode, np.zeros(3, np.uint8), "bfloat16")
    raises(TypeError, F.decode, np.zeros(3, np.float32), "float8_e4m3fn")
    raises(TypeError, F.decode, np.zeros(3, np.float16), "bfloat16")       # another float type
    raises(ValueError, F.encode, np.ones(3, np.float32), "float8_e4m3fn",
           out=np.zeros(4, np.uint8))
    raises(ValueError, F.encode, np.ones(3, np.float32), "float8_e4m3fn",
           out=np.zeros(3, np.uint16))


@case
def out_arrays():
    x = rng.standard_normal(100).astype(np.float32)
    out = np.zeros(100, np.uint8)
    assert F.encode(x, "float8_e5m2", out=out) is out
    assert np.array_equal(out, F.encode(x, "float8_e5m2"))
    y = np.zeros(100, np.float32)
    assert F.decode(out, "float8_e5m2", out=y) is y
    assert np.array_equal(y, F.decode(out, "float8_e5m2"))


# ---- values ---------------------------------------------------------------------------------------

@case
def saturating_and_not():
    # the issue's example: 465 in E4M3FN is NaN non-saturating, 448 saturating
    assert F.encode(465.0, "float8_e4m3fn") == 0x7F
    assert np.isnan(F.decode(F.encode(465.0, "float8_e4m3fn"), "float8_e4m3fn"))
    assert F.decode(F.encode(465.0, "float8_e4m3fn", saturate=True), "float8_e4m3fn") == 448.0
    assert F.decode(F.encode(-1e6, "float8_e5m2"), "float8_e5m2") == -np.inf
    assert F.decode(F.encode(-1e6, "float8_e5m2", saturate=True), "float8_e5m2") == -57344.0
    assert F.encode(1e6, "float8_e4m3fnuz") == 0x80  # the only NaN
    assert F.encode(-0.0, "float8_e4m3fnuz") == 0x00  # no -0
    assert F.encode(100.0, "float4_e2m1fn") == 0x7    # no Inf or NaN: always saturates
    assert F.encode(np.inf, "float6_e3m2fn") == 0x1F


@case
def round_trips():
    """Every value a format holds survives decode -> encode exactly (codes of NaN aside)."""
    for name in F.FORMATS:
        if name in ("float32", "tfloat32"):
            continue
        codes = all_codes(name)
        values = F.decode(codes, name)
        for sat in (False, True):
            keep = np.isfinite(values) if sat else ~np.isnan(values)  # saturating: Inf -> max
            again = F.encode(values[keep], name, saturate=sat)
            back = F.decode(again, name)
            assert same_floats(back, values[keep]), (name, sat)
    x = rng.standard_normal(1000).astype(np.float32)
    assert np.array_equal(F.decode(F.encode(x, "float32"), "float32"), x)
    t = F.decode(F.encode(x, "tfloat32"), "tfloat32")
    assert np.all(np.abs(t - x) <= np.abs(x) * 2.0 ** -11), "tfloat32 off by more than half an ulp"


@case
def decode_against_ml_dtypes():
    need_ml_dtypes()
    for name in ISSUE_NAMES:
        codes = all_codes(name)
        want = codes.view(ml_type(name)).astype(np.float32)
        assert same_floats(F.decode(codes, name), want), name


@case
def encode_against_ml_dtypes():
    """Non-saturating encode is ml_dtypes' cast, except where docs/formats.md says otherwise (NaN
    payloads in float16, float32 subnormals in E8M0): those inputs are left out here and tested
    at the C level."""
    need_ml_dtypes()
    bits = rng.integers(0, 1 << 32, 1 << 18, dtype=np.uint64).astype(np.uint32)
    spread = (rng.standard_normal(1 << 16) * 2.0 ** rng.integers(-20, 20, 1 << 16))
    x = np.concatenate([bits.view(np.float32), spread.astype(np.float32)])
    for name in ISSUE_NAMES:
        xs = x
        if name == "float16":
            xs = x[~np.isnan(x)]
        if name == "float8_e8m0fnu":
            xs = x[(np.abs(x) >= 2.0 ** -126) | (x == 0) | ~np.isfinite(x)]
        with np.errstate(invalid="ignore", over="ignore"):
            want = xs.astype(ml_type(name)).view(np.dtype(f"u{F.info(name).storage_bytes}"))
        got = F.encode(xs, name)
        bad = np.nonzero(got != want)[0]
        assert bad.size == 0, f"{name}: {xs[bad[0]]!r} -> {got[bad[0]]:#x}, ml_dtypes {want[bad[0]]:#x}"


@case
def ml_dtypes_arrays_in_and_out():
    need_ml_dtypes()
    x = rng.standard_normal(64).astype(np.float32) * 4
    for name in ISSUE_NAMES:
        t = ml_type(name)
        with np.errstate(invalid="ignore", over="ignore"):
            m = x.astype(t)
        codes = F.encode(m, name)  # an array of the format itself: its bits
        assert np.array_equal(codes, m.view(codes.dtype)), name
        assert same_floats(F.decode(m, name), m.astype(np.float32)), name  # values as codes
        v = F.encode(x, name, as_ml_dtypes=True)
        assert v.dtype == t and np.array_equal(v.view(codes.dtype), F.encode(x, name)), name
        assert F.view(codes, name).dtype == t
    # saturating: the values are encoded, so Inf becomes the largest finite value
    e5 = np.array([np.inf, -1.5], np.float32).astype(ml_dtypes.float8_e5m2)
    assert list(F.encode(e5, "float8_e5m2")) == [0x7C, 0xBE]
    assert list(F.encode(e5, "float8_e5m2", saturate=True)) == [0x7B, 0xBE]
    # another format's array is widened exactly, then encoded
    b = x.astype(ml_dtypes.bfloat16)
    assert np.array_equal(F.encode(b, "float8_e4m3fn"),
                          F.encode(b.astype(np.float32), "float8_e4m3fn"))
    c, s = F.mx_quantize(rng.standard_normal((2, 64)).astype(np.float32), "float4_e2m1fn",
                         as_ml_dtypes=True)
    assert c.dtype == ml_dtypes.float4_e2m1fn and s.dtype == ml_dtypes.float8_e8m0fnu


@case
def packing():
    assert list(F.pack(np.array([1, 2, 3], np.uint8), "float4_e2m1fn")) == [0x21, 0x03]
    # four 6-bit codes in three bytes, element 0 in the low bits
    assert list(F.pack(np.array([0x3F, 0, 0, 0x21], np.uint8), "float6_e2m3fn")) == [
        0x3F, 0x00, 0x84]
    for name, bits in (("float4_e2m1fn", 4), ("float6_e3m2fn", 6), ("float6_e2m3fn", 6)):
        for n in (0, 1, 5, 64, 1001):
            codes = rng.integers(0, 1 << bits, n).astype(np.uint8)
            p = F.pack(codes, name)
            assert p.size == (n * bits + 7) // 8, (name, n, p.size)
            assert np.array_equal(F.unpack(p, name, n), codes), (name, n)
    raises(ValueError, F.pack, np.zeros(4, np.uint8), "float8_e4m3fn")
    raises(ValueError, F.unpack, np.zeros(1, np.uint8), "float4_e2m1fn", 3)


# ---- MX -------------------------------------------------------------------------------------------

def model_scale_exp(amax, name, rule):
    """The block scale exponent e (X = 2^e) of the rule, in float64 from the definitions."""
    i = F.info(name)
    if amax == 0:
        return -127
    m, ex = np.frexp(amax)            # amax = m * 2^ex, m in [0.5, 1)
    floor_log2 = int(ex) - 1
    if rule == "floor":
        e = floor_log2 - i.emax
    elif rule == "ceil":
        e = floor_log2 + (m != 0.5) - i.emax
    elif rule == "even":              # amax rounded to mbits fraction bits, ties away from zero
        sig = m * 2                   # in [1, 2)
        r = np.floor(sig * 2 ** i.mantissa_bits + 0.5) / 2 ** i.mantissa_bits
        e = floor_log2 + (r >= 2) - i.emax
    else:                             # rceil: the smallest e with amax / 2^e <= max_elem
        e = floor_log2 - i.emax
        e += amax / 2.0 ** e > i.max_finite
    return max(e, -127)


def model_element(v, name):
    """v (float64) rounded to nearest even onto the element format, clamped to its max."""
    i = F.info(name)
    emin = 1 - i.bias
    with np.errstate(divide="ignore"):
        e = np.floor(np.log2(np.maximum(np.abs(v), 2.0 ** emin)))
    q = 2.0 ** (e - i.mantissa_bits)
    r = np.round(v / q) * q           # half to even
    return np.clip(r, -i.max_finite, i.max_finite)


def model_mx(x, name, block, rule):
    """(element values, scale exponents) of OCP MX quantization in float64."""
    rows, cols = x.shape
    nb = -(-cols // block)
    vals = np.zeros((rows, cols))
    exps = np.zeros((rows, nb), np.int64)
    for r in range(rows):
        for b in range(nb):
            blk = x[r, b * block:(b + 1) * block].astype(np.float64)
            e = model_scale_exp(float(np.max(np.abs(blk))), name, rule)
            exps[r, b] = e
            vals[r, b * block:(b + 1) * block] = model_element(blk / 2.0 ** e, name)
    return vals, exps


def mx_data(rows, cols):
    """Rows of blocks at magnitudes across E8M0's range, a zero block, exact powers of two."""
    x = rng.standard_normal((rows, cols)) * 2.0 ** rng.integers(-140, 120, (rows, 1))
    x[0, :8] = 0.0
    x[-1, -1] = 2.0 ** 10
    return x.astype(np.float32)


@case
def mx_against_float64_model():
    for name in F.MX_FORMATS:
        for rule in F.SCALE_RULES:
            for rows, cols, block in ((4, 64, 32), (3, 100, 32), (2, 50, 16), (5, 7, 32)):
                x = mx_data(rows, cols)
                codes, scales = F.mx_quantize(x, name, block=block, scale_rule=rule)
                nb = -(-cols // block)
                assert codes.shape == x.shape and codes.dtype == np.uint8
                assert scales.shape == (rows, nb) and scales.dtype == np.uint8
                vals, exps = model_mx(x, name, block, rule)
                assert np.array_equal(scales.astype(np.int64) - 127, exps), (name, rule, block)
                got = F.decode(codes, name).astype(np.float64)
                bad = np.nonzero(got != vals)
                assert bad[0].size == 0, (name, rule, block, x[bad][0], got[bad][0], vals[bad][0])
                y = F.mx_dequantize(codes, scales, name, block=block)
                want = (vals * 2.0 ** np.repeat(exps, block, axis=1)[:, :cols]).astype(np.float32)
                assert np.array_equal(y, want), (name, rule, block)


@case
def mx_default_is_ocp():
    x = mx_data(8, 128)
    c1, s1 = F.mx_quantize(x, "float8_e4m3fn")
    c2, s2 = F.mx_quantize(x, "float8_e4m3fn", block=32, scale_rule="floor")
    assert np.array_equal(c1, c2) and np.array_equal(s1, s2)
    # the spec's rule clamps: a block whose amax has a large significand exceeds 448 after scaling
    x = np.full((1, 32), 1.0, np.float32)
    x[0, 0] = 1.99
    c, s = F.mx_quantize(x, "float8_e4m3fn")
    assert s[0, 0] == 127 - 8 and F.decode(c, "float8_e4m3fn")[0, 0] == 448.0


@case
def mx_specials_and_shapes():
    x = np.ones((2, 64), np.float32)
    x[0, 3] = np.nan
    x[1, 40] = -np.inf
    c, s = F.mx_quantize(x, "float6_e3m2fn")
    assert s[0, 0] == 0xFF and s[1, 1] == 0xFF and s[0, 1] != 0xFF and s[1, 0] != 0xFF, s
    assert not c[0, :32].any() and not c[1, 32:].any()
    y = F.mx_dequantize(c, s, "float6_e3m2fn")
    assert np.isnan(y[0, :32]).all() and np.isnan(y[1, 32:]).all()
    assert (y[0, 32:] == 1).all() and (y[1, :32] == 1).all()
    # N-D: blocks along the last axis
    x3 = rng.standard_normal((2, 3, 64)).astype(np.float32)
    c3, s3 = F.mx_quantize(x3, "float8_e5m2")
    c2, s2 = F.mx_quantize(x3.reshape(6, 64), "float8_e5m2")
    assert c3.shape == (2, 3, 64) and s3.shape == (2, 3, 2)
    assert np.array_equal(c3.reshape(6, 64), c2) and np.array_equal(s3.reshape(6, 2), s2)
    # empty
    c0, s0 = F.mx_quantize(np.zeros((0, 64), np.float32), "float4_e2m1fn")
    assert c0.shape == (0, 64) and s0.shape == (0, 2)


@case
def mx_errors():
    x = np.ones((2, 64), np.float32)
    e = raises(ValueError, F.mx_quantize, x, "float16")
    assert "float16" in str(e) and "float4_e2m1fn" in str(e), str(e)
    raises(ValueError, F.mx_quantize, x, "float8_e4m3fnuz")
    raises(ValueError, F.mx_quantize, x, "float4_e2m1fn", block=0)
    raises(ValueError, F.mx_quantize, x, "float4_e2m1fn", block=2.5)
    e = raises(ValueError, F.mx_quantize, x, "float4_e2m1fn", scale_rule="round")
    assert "round" in str(e) and "floor" in str(e)
    raises(ValueError, F.mx_quantize, np.float32(1.0), "float4_e2m1fn")
    c, s = F.mx_quantize(x, "float4_e2m1fn")
    e = raises(ValueError, F.mx_dequantize, c, s[:, :1], "float4_e2m1fn")
    assert "(2, 2)" in str(e), str(e)
    raises(ValueError, F.mx_dequantize, c, s, "float4_e2m1fn", block=16)
    raises(TypeError, F.mx_dequantize, c.astype(np.uint16), s, "float4_e2m1fn")


# ---- device arrays ------------------------------------------------------------------------------





@case
def device_call_plumbing():
    real, fake = F.lib, RecordingLib()
    F.lib = fake
    try:
        fmt = F.info("float8_e4m3fn").id
        x = FakeCudaArray((4, 8), ptr=0x1000, stream=0x77)
        out = FakeCudaArray((4, 8), typestr="|u1", ptr=0x2000, stream=0x77)
        assert F.encode(x, "float8_e4m3fn", saturate=True, out=out) is out
        assert fake.calls == [("create", 0, 0x77), ("gk_cuda_encode", fmt, 0x1000, 0x2000, 32, 1),
                              ("destroy",)], fake.calls
        fake.calls.clear()
        y = FakeCudaArray((4, 8), ptr=0x3000)
        F.decode(FakeCudaArray((4, 8), typestr="|u1", ptr=0x2000), "float8_e4m3fn", out=y)
        assert fake.calls[1] == ("gk_cuda_decode", fmt, 0x2000, 0x3000, 32), fake.calls
        fake.calls.clear()
        bf = F.info("bfloat16").id
        F.decode(FakeCudaArray((3,), typestr="<u2", ptr=0x4000), "bfloat16",
                 out=FakeCudaArray((3,), ptr=0x5000))
        assert fake.calls[1] == ("gk_cuda_decode", bf, 0x4000, 0x5000, 3), fake.calls
        # wrong dtypes, shapes, non-contiguous, mixed host/device, no allocator for plain CAI
        raises(TypeError, F.encode, FakeCudaArray((4,), typestr="<f8"), "float8_e4m3fn",
               out=FakeCudaArray((4,), typestr="|u1"))
        raises(ValueError, F.encode, x, "float8_e4m3fn", out=FakeCudaArray((4, 8), "<u2"))
        raises(ValueError, F.encode, x, "float8_e4m3fn", out=FakeCudaArray((8, 4), "|u1"))
        raises(ValueError, F.encode, x, "float8_e4m3fn", out=np.zeros((4, 8), np.uint8))
        raises(ValueError, F.encode, FakeCudaArray((4, 8), strides=(64, 8)), "float8_e4m3fn",
               out=out)
        raises(ValueError, F.encode, x, "float8_e4m3fn")
        raises(TypeError, F.decode, FakeCudaArray((4, 8), typestr="<u2"), "float8_e4m3fn",
               out=y)
        raises(ValueError, F.mx_dequantize, FakeCudaArray((2, 32), typestr="|u1"),
               np.zeros((2, 1), np.uint8), "float4_e2m1fn")
    finally:
        F.lib = real


@case
def device_arrays_without_gpu_raise():
    if gemmkit.cuda_available():
        raise Skip("a GPU is present; device_torch covers it")
    e = raises(gemmkit.GemmkitError, F.encode, FakeCudaArray((4,)), "float8_e4m3fn",
               out=FakeCudaArray((4,), typestr="|u1"))
    assert e.status in (gemmkit.Status.NOT_BUILT, gemmkit.Status.NO_DEVICE), e.status


@case
def device_torch():
    torch = cuda_torch()
    bits = rng.integers(0, 1 << 32, 1 << 16, dtype=np.uint64).astype(np.uint32)
    x = np.concatenate([bits.view(np.float32), rng.standard_normal(4099).astype(np.float32)])
    tx = torch.from_numpy(x).cuda()
    for name in F.FORMATS:
        for sat in (False, True):
            c = F.encode(tx, name, saturate=sat)
            assert c.is_cuda and tuple(c.shape) == x.shape, name
            host = F.encode(x, name, saturate=sat)
            assert np.array_equal(c.cpu().numpy().view(host.dtype), host), (name, sat)
        y = F.decode(c, name)
        assert y.is_cuda and y.dtype == torch.float32
        assert np.array_equal(y.cpu().numpy().view(np.uint32),
                              F.decode(host, name).view(np.uint32)), name
    xb = mx_data(6, 96)
    for name in F.MX_FORMATS:
        c, s = F.mx_quantize(torch.from_numpy(xb).cuda(), name, scale_rule="rceil")
        hc, hs = F.mx_quantize(xb, name, scale_rule="rceil")
        assert np.array_equal(c.cpu().numpy(), hc) and np.array_equal(s.cpu().numpy(), hs), name
        y = F.mx_dequantize(c, s, name)
        assert np.array_equal(y.cpu().numpy(), F.mx_dequantize(hc, hs, name)), name
    # bfloat16 tensors decode through DLPack as their own codes
    tb = torch.tensor([1.5, -2.25, float("inf")], dtype=torch.bfloat16, device="cuda")
    assert F.decode(tb, "bfloat16").cpu().tolist() == [1.5, -2.25, float("inf")]
    # a non-default current stream
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        c = F.encode(tx, "float8_e5m2")
        y = F.decode(c, "float8_e5m2")
    s.synchronize()
    assert np.array_equal(y.cpu().numpy().view(np.uint32),
                          F.decode(F.encode(x, "float8_e5m2"), "float8_e5m2").view(np.uint32))


if __name__ == "__main__":
    run()
