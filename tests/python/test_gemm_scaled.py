"""test_gemm_scaled.py — gemmkit.gemm_scaled, the block-scaled GEMM from Python (gk_gemm_scaled on
the CPU, gk_cuda_gemm_scaled on CUDA arrays): results against a numpy float64 reference built from
the codes and scales (codes decoded by ml_dtypes where it is importable, else by
gemmkit.formats.decode, which tests/formats checks against ml_dtypes), with the accuracy rule of
docs/testing.md (harness.py) plus half an ulp of a bfloat16/float16 result; every MX format pair
and the BLOCK128 pairs, transpositions, strided and ml_dtypes arrays, NaN in c, the NaN scale,
output types, the gemmkit.formats.mx_quantize output in the "TN" layout, the errors; and the
device path: the exact gk_cuda_gemm_scaled call recorded from a stand-in library, then, with a GPU
and torch, device results against the CPU's reference.
"""
import numpy as np

from cases import Skip, case, run, cuda_torch, FakeCudaArray, RecordingLib

import gemmkit
import harness
from gemmkit import _scaled, formats as F

try:
    import ml_dtypes
except ImportError:
    ml_dtypes = None

rng = np.random.default_rng(1717)
U_IN = {"mx": 0.0, "block128": 2.0 ** -24}  # BLOCK128: code * scale rounded once to float32
U_OUT = {"float32": 0.0, "bfloat16": 2.0 ** -8, "float16": 2.0 ** -11}
BLOCK128_PAIRS = (("float8_e4m3fn", "float8_e4m3fn"), ("float8_e4m3fn", "float8_e5m2"),
                  ("float8_e5m2", "float8_e4m3fn"))


def raises(exc, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except exc as e:
        return e
    raise AssertionError(f"{fn.__name__}: no {exc.__name__}")


def need_ml_dtypes():
    if ml_dtypes is None:
        raise Skip("ml_dtypes is not importable (pip install ml_dtypes)")


def values(codes, fmt):
    """float64 values of uint8 codes."""
    if ml_dtypes is not None:
        return np.ascontiguousarray(codes).view(getattr(ml_dtypes, fmt)).astype(np.float64)
    return F.decode(np.ascontiguousarray(codes), fmt).astype(np.float64)


def random_codes(fmt, shape):
    """uint8 codes of finite values, uniformly over the codes."""
    bits = F.info(fmt).bits
    codes = rng.integers(0, 1 << bits, shape, dtype=np.uint8)
    bad = ~np.isfinite(values(codes, fmt))
    while bad.any():
        codes[bad] = rng.integers(0, 1 << bits, int(bad.sum()), dtype=np.uint8)
        bad = ~np.isfinite(values(codes, fmt))
    return codes


def random_scales(scaling, shape, lo=-7, hi=7):
    """E8M0 bytes 127+lo .. 127+hi (mx), or float32 2^[lo, hi] * [1, 2) (block128)."""
    if scaling == "mx":
        return rng.integers(127 + lo, 127 + hi + 1, shape, dtype=np.uint8)
    return np.ldexp(rng.uniform(1, 2, shape), rng.integers(lo, hi + 1, shape)).astype(np.float32)


def scale_values(s, scaling):
    if scaling == "block128":
        return s.astype(np.float64)
    with np.errstate(invalid="ignore"):
        return np.where(s == 0xFF, np.nan, np.ldexp(1.0, s.astype(np.int64) - 127))


def scaled_ops(a, sa, b, sb, scaling, fa, fb, trans_a, trans_b):
    """op(A) and op(B) in float64, each element times its block's scale."""
    group = 32 if scaling == "mx" else 128
    A = values(a, fa)
    A = A.T if trans_a else A
    B = values(b, fb)
    B = B.T if trans_b else B
    m, k = A.shape
    n = B.shape[1]
    kk = np.arange(k) // group
    A = A * scale_values(sa, scaling)[:, kk]
    rows = np.arange(n) if scaling == "mx" else np.arange(n) // 128
    B = B * scale_values(sb, scaling)[rows][:, kk].T
    return A, B


def check(c, A, B, scaling, alpha=1.0, beta=0.0, c0=None, what="", out=None, fp8_kernel=False):
    """c against alpha A @ B + beta c0: the float32 rule, plus half an ulp of the result type
    (out, by default c's). fp8_kernel: the GPU's block-scaled FP8 kernel may have run, whose
    partial sums over each 128 of K keep about 14 bits (tests/cuda/test_gemm_scaled.cu's rule)."""
    ref, scale = harness.reference(A, B, alpha, beta, c0)
    k = A.shape[1]
    got = np.asarray(c).astype(np.float64)
    nan = np.isnan(ref)
    assert np.array_equal(np.isnan(got), nan), f"{what}: NaN where the reference is not, or not"
    bnd = harness.bound(k, U_IN[scaling], scale)
    if fp8_kernel:
        bnd = bnd + min(k, 128) * 2.0 ** -13 * scale
    bnd = bnd + U_OUT[out or np.asarray(c).dtype.name] * (abs(ref) + bnd) + 2.0 ** -25
    err = np.where(nan, 0, abs(got - ref))
    bad = ~(err <= np.where(nan, 0, bnd))
    if bad.any():
        i = np.unravel_index(np.argmax(np.where(bad, err / bnd, 0)), bad.shape)
        raise AssertionError(f"{what}: {bad.sum()} of {bad.size} wrong; worst {i}: {got[i]} vs "
                             f"{ref[i]} (bound {bnd[i]:.3g})")


def problem(scaling, fa, fb, m, n, k, trans_a=False, trans_b=False, lo=-7, hi=7):
    a = random_codes(fa, (k, m) if trans_a else (m, k))
    b = random_codes(fb, (n, k) if trans_b else (k, n))
    group = 32 if scaling == "mx" else 128
    kb = -(-k // group)
    sa = random_scales(scaling, (m, kb), lo, hi)
    sb = random_scales(scaling, (n if scaling == "mx" else -(-n // 128), kb), lo, hi)
    return a, sa, b, sb


# ---- results ----------------------------------------------------------------------------------

@case
def mx_every_pair():
    for i, fa in enumerate(F.MX_FORMATS):
        for j, fb in enumerate(F.MX_FORMATS):
            ta, tb = bool(i & 1), bool(j & 1)
            a, sa, b, sb = problem("mx", fa, fb, 21, 17, 75, ta, tb)
            c = gemmkit.gemm_scaled(a, sa, b, sb, "mx", a_format=fa, b_format=fb, trans_a=ta,
                                    trans_b=tb, alpha=1.5)
            assert c.dtype == np.float32 and c.shape == (21, 17)
            A, B = scaled_ops(a, sa, b, sb, "mx", fa, fb, ta, tb)
            check(c, A, B, "mx", 1.5, what=f"{fa} x {fb} {ta} {tb}")


@case
def block128_pairs():
    for fa, fb in BLOCK128_PAIRS:
        for ta in (False, True):
            a, sa, b, sb = problem("block128", fa, fb, 19, 300, 260, ta, not ta)
            c = gemmkit.gemm_scaled(a, sa, b, sb, "block128", a_format=fa, b_format=fb,
                                    trans_a=ta, trans_b=not ta, alpha=-0.5)
            A, B = scaled_ops(a, sa, b, sb, "block128", fa, fb, ta, not ta)
            check(c, A, B, "block128", -0.5, what=f"{fa} x {fb} {ta}")


@case
def strided_arrays():
    fa, fb = "float8_e5m2", "float6_e3m2fn"
    big_a = random_codes(fa, (50, 90))
    big_b = np.asfortranarray(random_codes(fb, (70, 40)))
    outer = np.full((40, 60), 7.0, np.float32, order="F")
    views = [(big_a[3:33, 5:75], False), (big_a[5:75, 3:33].T, False),  # sliced / transposed
             (big_a[::2, ::2][:30, :35], False)]                          # no leading dimension
    for a, ta in views:
        m, k = a.shape
        b = big_b[:k, 1:26]
        kb = -(-k // 32)
        sa, sb = random_scales("mx", (m, kb)), random_scales("mx", (25, kb))
        outer[...] = 7.0
        c = outer[2:2 + m, 3:28]  # F-ordered with padding around it
        c0 = c.copy()
        r = gemmkit.gemm_scaled(a, sa, b, sb, "mx", a_format=fa, b_format=fb, c=c, beta=-1.0)
        assert r is c
        A, B = scaled_ops(a, sa, b, sb, "mx", fa, fb, False, False)
        check(c, A, B, "mx", 1.0, -1.0, c0, what=f"a strides {a.strides}")
        mask = np.ones(outer.shape, bool)
        mask[2:2 + m, 3:28] = False
        assert (outer[mask] == 7.0).all(), "c's surroundings written"


@case
def alpha_beta_and_nan():
    fa = fb = "float8_e4m3fn"
    for scaling in ("mx", "block128"):
        a, sa, b, sb = problem(scaling, fa, fb, 9, 11, 140)
        A, B = scaled_ops(a, sa, b, sb, scaling, fa, fb, False, False)
        c = np.full((9, 11), np.nan, np.float32)
        gemmkit.gemm_scaled(a, sa, b, sb, scaling, a_format=fa, b_format=fb, c=c)
        check(c, A, B, scaling, what=f"{scaling} beta=0 over NaN")
        c0 = rng.uniform(-2, 2, (9, 11)).astype(np.float32)
        c = c0.copy()
        gemmkit.gemm_scaled(a, sa, b, sb, scaling, a_format=fa, b_format=fb, c=c, alpha=2.0,
                            beta=1.0)
        check(c, A, B, scaling, 2.0, 1.0, c0, what=f"{scaling} beta=1")
        c = c0.copy()
        gemmkit.gemm_scaled(a, sa, b, sb, scaling, a_format=fa, b_format=fb, c=c, alpha=0.0,
                            beta=0.5)
        assert np.array_equal(c, c0 * np.float32(0.5)), f"{scaling} alpha=0"


@case
def nan_scale():
    fa, fb = "float4_e2m1fn", "float8_e5m2"
    a, sa, b, sb = problem("mx", fa, fb, 6, 8, 70)
    sa[2, 1] = 0xFF
    sb[5, 2] = 0xFF
    c = gemmkit.gemm_scaled(a, sa, b, sb, "mx", a_format=fa, b_format=fb)
    assert np.isnan(c[2]).all() and np.isnan(c[:, 5]).all()
    assert np.isfinite(np.delete(np.delete(c, 2, 0), 5, 1)).all()
    A, B = scaled_ops(a, sa, b, sb, "mx", fa, fb, False, False)
    check(c, A, B, "mx", what="NaN scales")


def out_type(out):
    for scaling, (fa, fb) in (("mx", ("float8_e4m3fn", "float6_e2m3fn")),
                              ("block128", ("float8_e5m2", "float8_e4m3fn"))):
        # float16: scales that keep every element below about 2 (no overflow)
        emax = {"float8_e4m3fn": 8, "float8_e5m2": 15, "float6_e2m3fn": 2}
        e = max(emax[fa], emax[fb])
        lo, hi = (-e - 4, -e) if out == "float16" else (-7, 7)
        a, sa, b, sb = problem(scaling, fa, fb, 13, 33, 100, lo=lo, hi=hi)
        A, B = scaled_ops(a, sa, b, sb, scaling, fa, fb, False, False)
        c = gemmkit.gemm_scaled(a, sa, b, sb, scaling, a_format=fa, b_format=fb, out_dtype=out)
        assert c.dtype.name == out and c.shape == (13, 33), c.dtype
        check(c, A, B, scaling, what=f"{scaling} -> {out}")
        c0 = c.astype(np.float64)
        gemmkit.gemm_scaled(a, sa, b, sb, scaling, a_format=fa, b_format=fb, c=c, beta=0.5,
                            alpha=-1.0)
        check(c, A, B, scaling, -1.0, 0.5, c0, what=f"{out} in place")


@case
def out_float16():
    out_type("float16")


@case
def out_bfloat16():
    need_ml_dtypes()
    out_type("bfloat16")


@case
def ml_dtypes_arrays():
    need_ml_dtypes()
    a, sa, b, sb = problem("mx", "float8_e4m3fn", "float4_e2m1fn", 10, 12, 64)
    A, B = scaled_ops(a, sa, b, sb, "mx", "float8_e4m3fn", "float4_e2m1fn", False, False)
    ma, mb = a.view(ml_dtypes.float8_e4m3fn), b.view(ml_dtypes.float4_e2m1fn)
    c = gemmkit.gemm_scaled(ma, sa.view(ml_dtypes.float8_e8m0fnu), mb, sb, "mx")
    check(c, A, B, "mx", what="ml_dtypes operands and scales")
    c2 = gemmkit.gemm_scaled(ma, sa, b, sb, "mx", a_format="float8_e4m3fn",
                             b_format=ml_dtypes.float4_e2m1fn)
    assert np.array_equal(c, c2)
    e = raises(TypeError, gemmkit.gemm_scaled, ma, sa, mb, sb, "mx", a_format="float8_e5m2")
    assert "a_format" in str(e) and "float8_e4m3fn" in str(e), str(e)


@case
def mx_quantize_output_tn():
    """formats.mx_quantize gives A (m, k) and B stored (n, k) with their scales: passed as they
    come with trans_b=True, the product is mx_dequantize(A) @ mx_dequantize(B).T."""
    x = rng.standard_normal((24, 200)).astype(np.float32)
    y = (rng.standard_normal((31, 200)) * 100).astype(np.float32)
    for fa, fb in zip(F.MX_FORMATS, F.MX_FORMATS[1:] + F.MX_FORMATS[:1]):
        ca, sa = F.mx_quantize(x, fa)
        cb, sb = F.mx_quantize(y, fb, scale_rule="rceil")
        c = gemmkit.gemm_scaled(ca, sa, cb, sb, "mx", a_format=fa, b_format=fb, trans_b=True)
        ya = F.mx_dequantize(ca, sa, fa).astype(np.float64)
        yb = F.mx_dequantize(cb, sb, fb).astype(np.float64)
        harness.check_product(c, ya, yb.T, what=f"{fa} x {fb}")


@case
def errors():
    a, sa, b, sb = problem("mx", "float8_e4m3fn", "float8_e4m3fn", 4, 5, 40)
    kw = dict(a_format="float8_e4m3fn", b_format="float8_e4m3fn")
    gs = gemmkit.gemm_scaled
    e = raises(ValueError, gs, a, sa, b, sb, "mxfp8", **kw)
    assert "scaling" in str(e), str(e)
    e = raises(ValueError, gs, a, sa, b, sb, "mx", b_format="float8_e4m3fn")
    assert "a_format" in str(e), str(e)
    e = raises(TypeError, gs, a.astype(np.float32), sa, b, sb, "mx", **kw)
    assert "gemmkit: a " in str(e), str(e)
    e = raises(ValueError, gs, a, sa, b, sb, "mx", a_format="float9", b_format="float8_e4m3fn")
    assert "float9" in str(e), str(e)
    e = raises(ValueError, gs, a, sa[:, :1], b, sb, "mx", **kw)
    assert "a_scale" in str(e) and "(4, 2)" in str(e), str(e)
    e = raises(ValueError, gs, a, sa, b, sb[:4], "mx", **kw)
    assert "b_scale" in str(e) and "(5, 2)" in str(e), str(e)
    e = raises(TypeError, gs, a, sa.astype(np.float32), b, sb, "mx", **kw)
    assert "a_scale" in str(e), str(e)
    e = raises(TypeError, gs, a, sa, b, sb, "block128", **kw)  # uint8 scales for block128
    assert "a_scale" in str(e) and "float32" in str(e), str(e)
    e = raises(ValueError, gs, a, sa, b[:30], sb, "mx", **kw)
    assert "inner dimensions" in str(e), str(e)
    e = raises(ValueError, gs, a, sa, b, sb, "mx", beta=1.0, **kw)
    assert "beta" in str(e), str(e)
    e = raises(ValueError, gs, a, sa, b, sb, "mx", c=np.zeros((5, 4), np.float32), **kw)
    assert "shape" in str(e), str(e)
    e = raises(TypeError, gs, a, sa, b, sb, "mx", c=np.zeros((4, 5), np.float64), **kw)
    assert "c must be" in str(e), str(e)
    e = raises(ValueError, gs, a, sa, b, sb, "mx", out_dtype="int8", **kw)
    assert "out_dtype" in str(e), str(e)
    e = raises(ValueError, gs, a, sa, b, sb, "mx", c=np.zeros((4, 5), np.float32),
               out_dtype="float16", **kw)
    assert "out_dtype" in str(e), str(e)
    ro = np.zeros((4, 5), np.float32)
    ro.flags.writeable = False
    e = raises(ValueError, gs, a, sa, b, sb, "mx", c=ro, **kw)
    assert "read-only" in str(e), str(e)
    # what the library refuses: formats the scaling does not take
    e = raises(gemmkit.GemmkitError, gs, a, sa, b, sb, "mx", a_format="float8_e4m3fnuz",
               b_format="float8_e4m3fn")
    assert e.status == gemmkit.Status.UNSUPPORTED and "atype=float8_e4m3fnuz" in str(e), str(e)
    fa = np.zeros((4, 1), np.float32)
    e = raises(gemmkit.GemmkitError, gs, a, fa, b, np.zeros((1, 1), np.float32), "block128",
               a_format="float8_e5m2", b_format="float8_e5m2")
    assert e.status == gemmkit.Status.UNSUPPORTED and "float8_e5m2" in str(e), str(e)
    e = raises(gemmkit.GemmkitError, gs, a, fa, b, np.zeros((1, 1), np.float32), "block128",
               a_format="float4_e2m1fn", b_format="float8_e4m3fn")
    assert e.status == gemmkit.Status.UNSUPPORTED and "GK_SCALING_BLOCK128" in str(e), str(e)


# ---- device arrays ----------------------------------------------------------------------------





@case
def device_call_plumbing():
    real, fake = _scaled.lib, RecordingLib()  # the module that makes the device call
    _scaled.lib = fake
    try:
        e4, f4 = F.info("float8_e4m3fn").id, F.info("float4_e2m1fn").id
        a = FakeCudaArray((70, 6), "|u1", ptr=0x1000, stream=0x55)   # op(a) = a.T: 6 x 70
        b = FakeCudaArray((70, 9), "|u1", ptr=0x2000, stream=0x55)
        sa = FakeCudaArray((6, 3), "|u1", ptr=0x3000, stream=0x55)
        sb = FakeCudaArray((9, 3), "|u1", ptr=0x4000, stream=0x55)
        c = FakeCudaArray((6, 9), typestr="<f4", ptr=0x5000, stream=0x55)
        r = gemmkit.gemm_scaled(a, sa, b, sb, "mx", a_format="float8_e4m3fn",
                                b_format="float4_e2m1fn", c=c, trans_a=True, alpha=2.0, beta=0.5)
        assert r is c
        assert fake.calls == [("create", 0, 0x55),
                              ("gk_cuda_gemm_scaled", 101, 112, 111, 6, 9, 70, 2.0, e4, 0x1000, 6,
                               0x3000, f4, 0x2000, 9, 0x4000, 2, 0.5, 0, 0x5000, 9),
                              ("destroy",)], fake.calls
        fake.calls.clear()
        # block128: float32 scales of shapes (m, kb) and (ceil(n / 128), kb); a bfloat16 c
        sa32 = FakeCudaArray((6, 1), typestr="<f4", ptr=0x6000)
        sb32 = FakeCudaArray((1, 1), typestr="<f4", ptr=0x7000)
        cb = FakeCudaArray((6, 9), typestr="<V2", ptr=0x8000)
        b_t = FakeCudaArray((9, 70), "|u1", ptr=0x9000)
        gemmkit.gemm_scaled(a, sa32, b_t, sb32, "block128", a_format="float8_e4m3fn",
                            b_format="float8_e5m2", c=cb, trans_a=True, trans_b=True)
        call = fake.calls[1]
        assert call[:4] == ("gk_cuda_gemm_scaled", 101, 112, 112) and call[16] == 1 and \
            call[18] == F.info("bfloat16").id and call[14] == 70, call
        # mistakes caught before any call
        fake.calls.clear()
        raises(TypeError, gemmkit.gemm_scaled, a, sa32, b, sb, "mx",
               a_format="float8_e4m3fn", b_format="float4_e2m1fn", c=c, trans_a=True)
        raises(ValueError, gemmkit.gemm_scaled, a, sa, b, sb, "mx", a_format="float8_e4m3fn",
               b_format="float4_e2m1fn", c=FakeCudaArray((9, 6), "<f4"), trans_a=True)
        raises(ValueError, gemmkit.gemm_scaled, a, np.zeros((6, 3), np.uint8), b, sb, "mx",
               a_format="float8_e4m3fn", b_format="float4_e2m1fn", c=c, trans_a=True)
        raises(ValueError, gemmkit.gemm_scaled, a, sa, b, sb, "mx", a_format="float8_e4m3fn",
               b_format="float4_e2m1fn", trans_a=True)  # no allocator for a plain CAI array
        raises(TypeError, gemmkit.gemm_scaled, FakeCudaArray((70, 6), "<u2"), sa, b, sb, "mx",
               a_format="float8_e4m3fn", b_format="float4_e2m1fn", c=c, trans_a=True)
        assert not any(x[0] == "gk_cuda_gemm_scaled" for x in fake.calls), fake.calls
    finally:
        _scaled.lib = real


@case
def device_arrays_without_gpu_raise():
    if gemmkit.cuda_available():
        raise Skip("a GPU is present; device_torch covers it")
    e = raises(gemmkit.GemmkitError, gemmkit.gemm_scaled, FakeCudaArray((4, 32), "|u1"),
               FakeCudaArray((4, 1), "|u1"), FakeCudaArray((32, 5), "|u1"),
               FakeCudaArray((5, 1), "|u1"), "mx",
               a_format="float8_e4m3fn", b_format="float8_e4m3fn",
               c=FakeCudaArray((4, 5), "<f4"))
    assert e.status in (gemmkit.Status.NOT_BUILT, gemmkit.Status.NO_DEVICE), e.status


@case
def device_torch():
    torch = cuda_torch()
    dev = lambda x: torch.from_numpy(np.ascontiguousarray(x)).cuda()  # noqa: E731
    cases = [("mx", fa, fb) for fa in F.MX_FORMATS for fb in F.MX_FORMATS] + \
        [("block128", fa, fb) for fa, fb in BLOCK128_PAIRS]
    for i, (scaling, fa, fb) in enumerate(cases):
        ta, tb = bool(i & 1), bool(i & 2)
        a, sa, b, sb = problem(scaling, fa, fb, 130, 200, 300, ta, tb)
        A, B = scaled_ops(a, sa, b, sb, scaling, fa, fb, ta, tb)
        for out in ("float32", "bfloat16"):
            c = gemmkit.gemm_scaled(dev(a), dev(sa), dev(b), dev(sb), scaling, a_format=fa,
                                    b_format=fb, trans_a=ta, trans_b=tb, out_dtype=out)
            assert c.is_cuda and str(c.dtype) == f"torch.{out}", c.dtype
            check(c.float().cpu().numpy(), A, B, scaling, out=out, fp8_kernel=scaling == "block128",
                  what=f"device {scaling} {fa} x {fb} {ta} {tb} -> {out}")
    # torch float8 tensors name their format; E8M0 scales as torch.float8_e8m0fnu where it exists
    a, sa, b, sb = problem("mx", "float8_e4m3fn", "float8_e5m2", 64, 64, 96)
    A, B = scaled_ops(a, sa, b, sb, "mx", "float8_e4m3fn", "float8_e5m2", False, False)
    ta = dev(a).view(torch.float8_e4m3fn)
    tb = dev(b).view(torch.float8_e5m2)
    tsa = dev(sa)
    if hasattr(torch, "float8_e8m0fnu"):
        tsa = tsa.view(torch.float8_e8m0fnu)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        c = gemmkit.gemm_scaled(ta, tsa, tb, dev(sb), "mx")
    s.synchronize()
    check(c.cpu().numpy(), A, B, "mx", what="torch float8 tensors on a side stream")


if __name__ == "__main__":
    run()
