"""test_python_cuda.py — the binding's GPU path (gemmkit.matmul/gemm on CUDA arrays), run on a
machine with a GPU; every case that needs one reports "skip" without it. Arrays come from torch
when it is installed (plain, transposed and sliced tensors, out=, beta, a non-default current
stream, the __dlpack__ route) and otherwise from a minimal __cuda_array_interface__ object over the
CUDA runtime's cudaMalloc/cudaMemcpy (ctypes), so the path is tested even without torch.
The default kernel may multiply in TF32, so float32 results are held to the TF32 bound: this checks
the binding's layouts, strides and streams; kernel accuracy is tests/cuda's job.

Mixed precision (gk_cuda_gemm_ex): every torch dtype the binding takes (bfloat16, float16,
float8_e4m3fn, float8_e5m2 and their FP8 pair, float32 in the tf32 and 3xtf32 modes) against a
float64 product of the decoded inputs, with the result-type defaults, c of another type, beta,
per-tensor scales and transposed views; float16 through __cuda_array_interface__ without torch;
and, on any machine, the exact gk_cuda_gemm_ex / gk_cuda_set_fp32_mode arguments the binding
passes, recorded from a stand-in library.
"""
import ctypes
import ctypes.util
import glob

import numpy as np

from cases import Skip, case, run, FakeCudaArray
from harness import bound, check_product, rand, reference

import gemmkit
from gemmkit import _cuda, _layout

rng = np.random.default_rng(99)
U_TF32 = 2.0 ** -11

try:
    import torch
    HAVE_TORCH = torch.cuda.is_available()
except ImportError:
    torch, HAVE_TORCH = None, False


def need_gpu():
    if not gemmkit.cuda_available():
        raise Skip("no CUDA device, or the library was built without the CUDA backend")


def need_torch():
    need_gpu()
    if not HAVE_TORCH:
        raise Skip("torch with CUDA is not installed")


def check(c_dev, a, b, **kw):
    host = c_dev.cpu().numpy() if torch is not None and isinstance(c_dev, torch.Tensor) \
        else c_dev.to_host()
    check_product(host, a, b, u_in=U_TF32, **kw)


@case
def torch_plain_and_views():
    need_torch()
    a, b = rand(rng, 70, 50), rand(rng, 50, 90)
    ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    check(gemmkit.matmul(ta, tb), a, b, what="contiguous")
    check(gemmkit.matmul(tb.t(), ta.t()), b.T, a.T, what="transposed views")
    big = torch.from_numpy(rand(rng, 80, 70)).cuda()
    check(gemmkit.matmul(big[3:73, 10:60], tb), big.cpu().numpy()[3:73, 10:60], b,
          what="row-padded slice")
    check(gemmkit.matmul(big[::2, ::3][:35, :20], tb[:20]),
          big.cpu().numpy()[::2, ::3][:35, :20], b[:20], what="strided (copied) operand")
    c = gemmkit.gemm(ta, ta, trans_b=True, alpha=0.5)
    check(c, a, a.T, alpha=0.5, what="trans_b")
    assert c.device == ta.device and c.dtype == torch.float32


@case
def torch_out_and_beta():
    need_torch()
    a, b, c0 = rand(rng, 40, 30), rand(rng, 30, 20), rand(rng, 40, 20)
    ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    out = torch.from_numpy(c0).cuda()
    r = gemmkit.gemm(ta, tb, out, alpha=2.0, beta=-1.0)
    assert r is out
    check(out, a, b, alpha=2.0, beta=-1.0, c0=c0, what="beta=-1")
    out_f = torch.from_numpy(c0).cuda().t().contiguous().t()  # column-major storage
    gemmkit.gemm(ta, tb, out_f, beta=1.0)
    check(out_f, a, b, beta=1.0, c0=c0, what="column-major out")
    nan_out = torch.full((40, 20), float("nan"), device="cuda")
    gemmkit.matmul(ta, tb, out=nan_out)
    assert not torch.isnan(nan_out).any().item(), "beta=0 read C"


@case
def torch_current_stream():
    need_torch()
    a, b = rand(rng, 256, 256), rand(rng, 256, 256)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        ta, tb = torch.from_numpy(a).cuda(non_blocking=True), torch.from_numpy(b).cuda()
        c = gemmkit.matmul(ta, tb)
        d = c * 2  # queued after the GEMM on the same stream
    s.synchronize()
    check(d, a, b, alpha=2.0, what="non-default stream")


@case
def torch_errors():
    need_torch()
    ta = torch.ones((3, 4), device="cuda")
    try:
        gemmkit.matmul(ta, torch.ones((5, 2), device="cuda"))
        raise AssertionError("inner mismatch accepted")
    except ValueError:
        pass
    try:
        gemmkit.matmul(ta, np.ones((4, 2), np.float32))
        raise AssertionError("host/device mix accepted")
    except ValueError:
        pass
    try:
        gemmkit.matmul(ta.double(), torch.ones((4, 2), device="cuda", dtype=torch.float64))
        raise AssertionError("float64 accepted")
    except TypeError:
        pass


class DlpackOnly:
    """Hides a tensor's __cuda_array_interface__ so the binding must use __dlpack__."""

    def __init__(self, t):
        self.t = t

    def __dlpack__(self, stream=None):
        return self.t.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


@case
def torch_through_dlpack():
    need_torch()
    a, b = rand(rng, 33, 17), rand(rng, 17, 9)
    ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    out = torch.empty((33, 9), device="cuda")
    gemmkit.matmul(DlpackOnly(ta), DlpackOnly(tb.t().contiguous().t()), DlpackOnly(out))
    torch.cuda.synchronize()
    check(out, a, b, what="dlpack")


def _cudart():
    names = [ctypes.util.find_library("cudart")] + sorted(
        glob.glob("/usr/local/cuda*/lib64/libcudart.so*"), reverse=True)
    for name in filter(None, names):
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    return None


class DeviceMatrix:
    """A float32 (or float16) matrix in cudaMalloc'ed memory exposing __cuda_array_interface__
    (version 3)."""
    rt = None

    def __init__(self, host, view=None, dtype=np.float32):
        host = np.ascontiguousarray(host, dtype=dtype)
        self.dtype = host.dtype
        self.base_shape = host.shape
        self.ptr = ctypes.c_void_p()
        assert self.rt.cudaMalloc(ctypes.byref(self.ptr), ctypes.c_size_t(host.nbytes)) == 0
        assert self.rt.cudaMemcpy(self.ptr, host.ctypes.data, ctypes.c_size_t(host.nbytes), 1) == 0
        # view: (row offset, col offset, rows, cols, transposed) inside the row-major base
        self.view = view or (0, 0, host.shape[0], host.shape[1], False)

    def __del__(self):
        if self.ptr:
            self.rt.cudaFree(self.ptr)

    @property
    def __cuda_array_interface__(self):
        r0, c0, rows, cols, t = self.view
        item = self.dtype.itemsize
        ld = self.base_shape[1] * item
        ptr = self.ptr.value + r0 * ld + c0 * item
        shape, strides = ((cols, rows), (item, ld)) if t else ((rows, cols), (ld, item))
        return {"shape": shape, "strides": strides, "typestr": self.dtype.str, "data": (ptr, False),
                "version": 3, "stream": 1}

    def whole(self):
        """The entire underlying buffer, after the work queued so far."""
        assert self.rt.cudaDeviceSynchronize() == 0
        host = np.empty(self.base_shape, self.dtype)
        assert self.rt.cudaMemcpy(host.ctypes.data, self.ptr, ctypes.c_size_t(host.nbytes), 2) == 0
        return host

    def to_host(self):
        r0, c0, rows, cols, t = self.view
        sub = self.whole()[r0:r0 + rows, c0:c0 + cols]
        return sub.T if t else sub


@case
def cuda_array_interface_without_torch():
    need_gpu()
    DeviceMatrix.rt = DeviceMatrix.rt or _cudart()
    if DeviceMatrix.rt is None:
        raise Skip("libcudart.so not found")
    a, b, c0 = rand(rng, 50, 40), rand(rng, 40, 30), rand(rng, 50, 30)
    da, db, dc = DeviceMatrix(a), DeviceMatrix(b), DeviceMatrix(c0)
    gemmkit.gemm(da, db, dc, alpha=1.5, beta=0.5)
    check(dc, a, b, alpha=1.5, beta=0.5, c0=c0, what="CAI contiguous")
    # B^T through a transposed view of a padded buffer; C a padded sub-block.
    bt_host = rand(rng, 30 + 3, 40 + 5)
    dbt = DeviceMatrix(bt_host, view=(1, 2, 30, 40, True))  # shape (40, 30) = bt_host[1:31,2:42].T
    big_c = np.full((60, 40), 7.0, np.float32)
    dcc = DeviceMatrix(big_c, view=(4, 3, 50, 30, False))
    gemmkit.matmul(da, dbt, out=dcc)
    check(dcc, a, bt_host[1:31, 2:42].T, what="CAI transposed view, padded out")
    outside = np.ones(big_c.shape, bool)
    outside[4:54, 3:33] = False
    assert (dcc.whole()[outside] == 7.0).all(), "wrote outside the out block"
    try:
        gemmkit.matmul(da, db)  # no out: a generic CAI object cannot be allocated
        raise AssertionError("allocation for a generic CAI object accepted")
    except ValueError:
        pass


# ---- mixed precision ------------------------------------------------------------------------

# The bound of harness/gpu.h's mixed-precision rule: u_in per operand type, u_out per result type.
U_IN = {"bfloat16": 0.0, "float16": 0.0, "float8_e4m3fn": 2.0 ** -7, "float8_e5m2": 2.0 ** -7,
        "tf32": 2.0 ** -11, "3xtf32": 0.0}
U_OUT = {"float32": 0.0, "bfloat16": 2.0 ** -8, "float16": 2.0 ** -11}
FP8_MAX = {"float8_e4m3fn": 448.0, "float8_e5m2": 57344.0}


def check_mixed(c, a, b, u_in, what, alpha=1.0, beta=0.0, c0=None, sa=1.0, sb=1.0):
    """c (any torch dtype) against the float64 product of the decoded a and b (scaled by sa, sb):
    |c - R| <= bound(k, u_in, S) + u_out |R|."""
    dec = lambda t: t.float().double().cpu()  # noqa: E731  (float8 widens through float32)
    ref, scale = reference(dec(a) * sa, dec(b) * sb, alpha, beta, None if c0 is None else dec(c0))
    got = dec(c)
    u_out = U_OUT[str(c.dtype).rsplit(".", 1)[-1]]
    err = (got - ref).abs()
    bnd = bound(a.shape[-1], u_in, scale) + u_out * ref.abs()
    bad = ~(err <= bnd)
    if bad.any():
        i = int(torch.argmax(torch.where(bad, err / bnd, torch.zeros_like(err))))
        r, col = divmod(i, got.shape[1])
        raise AssertionError(f"{what}: {int(bad.sum())} of {bad.numel()} outside the bound; "
                             f"worst ({r}, {col}): {float(got[r, col])} vs {float(ref[r, col])} "
                             f"(bound {float(bnd[r, col]):.3g})")


def torch_operand(dtype, *shape, device="cuda"):
    """Uniform [-1, 1) operands in a torch dtype; FP8 ones scaled to the format's range, with the
    inverse scale they need as a one-element device tensor (None for the others)."""
    x = torch.rand(*shape, dtype=torch.float64, device=device) * 2 - 1
    if dtype in FP8_MAX:
        top = FP8_MAX[dtype] * 0.98  # inside the range: conversion never saturates
        return (x * top).to(getattr(torch, dtype)), torch.tensor([1 / top], dtype=torch.float32,
                                                                 device=device)
    return x.to(getattr(torch, dtype)), None


SHAPES = [(1, 1, 1), (67, 45, 129), (128, 256, 64), (200, 130, 1000)]


@case
def torch_16bit_types():
    need_torch()
    for dt in ("bfloat16", "float16"):
        for m, n, k in SHAPES:
            a, _ = torch_operand(dt, m, k)
            b, _ = torch_operand(dt, k, n)
            c = gemmkit.matmul(a, b)
            assert c.dtype == a.dtype and c.shape == (m, n), (c.dtype, c.shape)
            check_mixed(c, a, b, U_IN[dt], f"{dt} {m}x{n}x{k}")
        # float32 result, transposed views, alpha/beta into a 16-bit C
        a, _ = torch_operand(dt, 96, 40)
        b, _ = torch_operand(dt, 72, 96)
        c32 = torch.empty((40, 72), dtype=torch.float32, device="cuda")
        gemmkit.gemm(a, b, c32, trans_a=True, trans_b=True, alpha=0.5)
        check_mixed(c32, a.t(), b.t(), U_IN[dt], f"{dt} -> float32, both transposed", alpha=0.5)
        c0, _ = torch_operand(dt, 40, 72)
        c16 = c0.clone()
        gemmkit.gemm(a, b, c16, trans_a=True, trans_b=True, alpha=2.0, beta=-1.0)
        check_mixed(c16, a.t(), b.t(), U_IN[dt], f"{dt} beta", alpha=2.0, beta=-1.0, c0=c0)


@case
def torch_fp8_types():
    need_torch()
    if not hasattr(torch, "float8_e4m3fn"):
        raise Skip("this torch has no float8 dtypes")
    for da, db in (("float8_e4m3fn", "float8_e4m3fn"), ("float8_e4m3fn", "float8_e5m2"),
                   ("float8_e5m2", "float8_e4m3fn")):
        for m, n, k in SHAPES:
            # K-major operands (a row-major, b given as the transpose of a row-major n x k), the
            # layout FP8 tensor cores read, and the plain row-major b the library must repack
            a, sa = torch_operand(da, m, k)
            bt, sb = torch_operand(db, n, k)
            for b, how in ((bt.t(), "b K-major"), (bt.t().contiguous(), "b row-major")):
                c = gemmkit.matmul(a, b, scale_a=sa, scale_b=sb)
                assert c.dtype == torch.bfloat16, c.dtype
                check_mixed(c, a, b, U_IN[da], f"{da} x {db} {m}x{n}x{k} {how}",
                            sa=float(sa), sb=float(sb))
        c32 = torch.empty((m, n), dtype=torch.float32, device="cuda")
        gemmkit.matmul(a, bt.t(), out=c32, scale_a=sa, scale_b=sb, alpha=3.0)
        check_mixed(c32, a, bt.t(), U_IN[da], f"{da} x {db} -> float32", alpha=3.0,
                    sa=float(sa), sb=float(sb))
    # without scales the codes multiply as they are: values in [-1, 1), so that the sums stay
    # inside float16's range (codes across E4M3's range would overflow it, correctly, to Inf)
    a = (torch.rand(33, 70, device="cuda") * 2 - 1).to(torch.float8_e4m3fn)
    b = (torch.rand(70, 20, device="cuda") * 2 - 1).to(torch.float8_e4m3fn)
    c = gemmkit.matmul(a, b, out=torch.empty((33, 20), dtype=torch.float16, device="cuda"))
    check_mixed(c, a, b, U_IN["float8_e4m3fn"], "float8 unscaled -> float16")


@case
def torch_fp32_modes():
    need_torch()
    for mode in ("tf32", "3xtf32", "simt"):
        for m, n, k in SHAPES:
            a, _ = torch_operand("float32", m, k)
            b, _ = torch_operand("float32", k, n)
            c = gemmkit.matmul(a, b, fp32_mode=mode)
            assert c.dtype == torch.float32
            u_in = U_IN["tf32"] if mode == "tf32" else U_TF32 if mode == "simt" else 0.0
            check_mixed(c, a, b, u_in, f"float32 fp32_mode={mode} {m}x{n}x{k}")


@case
def torch_mixed_errors():
    need_torch()
    a, _ = torch_operand("bfloat16", 8, 4)
    h, _ = torch_operand("float16", 4, 8)
    e = raises_(gemmkit.GemmkitError, gemmkit.matmul, a, h)  # bf16 x f16: the library's refusal
    assert e.status == gemmkit.Status.UNSUPPORTED and "btype" in e.message, (e.status, e.message)
    raises_(ValueError, gemmkit.matmul, a, a.t(), fp32_mode="3xtf32")
    raises_(ValueError, gemmkit.matmul, a, a.t(), fp32_mode="fast")
    raises_(TypeError, gemmkit.matmul, a, a.t(), scale_a=0.5)  # a host number is no device scale
    raises_(ValueError, gemmkit.matmul, a, a.t(),
            scale_a=torch.ones(2, dtype=torch.float32, device="cuda"))
    raises_(TypeError, gemmkit.matmul, a.double(), a.t().double())
    raises_(RuntimeError, gemmkit.matmul, a.float().requires_grad_(), a.t().float())


@case
def float16_through_array_interface():
    need_gpu()
    DeviceMatrix.rt = DeviceMatrix.rt or _cudart()
    if DeviceMatrix.rt is None:
        raise Skip("libcudart.so not found")
    a, b = rand(rng, 37, 50).astype(np.float16), rand(rng, 50, 21).astype(np.float16)
    c0 = rand(rng, 37, 21).astype(np.float16)
    da, db = DeviceMatrix(a, dtype=np.float16), DeviceMatrix(b, dtype=np.float16)
    dc = DeviceMatrix(c0, dtype=np.float16)
    gemmkit.gemm(da, db, dc, alpha=1.5, beta=0.5)
    ref, scale = reference(a.astype(np.float64), b.astype(np.float64), 1.5, 0.5,
                           c0.astype(np.float64))
    got = dc.to_host().astype(np.float64)
    bnd = bound(50, 0.0, scale) + U_OUT["float16"] * np.abs(ref)
    assert (np.abs(got - ref) <= bnd).all(), f"float16 CAI: max err/bound " \
        f"{float(np.max(np.abs(got - ref) / bnd)):.3g}"


def raises_(exc, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except exc as e:
        return e
    raise AssertionError(f"{fn.__name__}{args} did not raise {exc.__name__}")




class RecordingCudaLib:
    """Stands in for the library's gk_cuda_* functions to see exactly what the binding passes."""

    def __init__(self):
        self.calls = []

    def gk_cuda_available(self):
        return 1

    def gk_cuda_create(self, ctx_ref, device, stream):
        self.calls.append(("create", device, stream.value or 0))
        return 0

    def gk_cuda_set_fp32_mode(self, ctx, mode):
        self.calls.append(("fp32_mode", mode))
        return 0

    def gk_cuda_sgemm(self, ctx, *args):
        self.calls.append(("sgemm",) + args)
        return 0

    def gk_cuda_gemm_ex(self, ctx, *args):
        opts = _cuda._GemmExOpts.from_address(args[-1])
        self.calls.append(("gemm_ex",) + args[:-1] +
                          ((opts.scale_a or 0, opts.scale_b or 0, opts.fp8_fast_accum),))
        return 0

    def gk_cuda_destroy(self, ctx):
        self.calls.append(("destroy",))
        return 0


@case
def mixed_call_plumbing():
    """Runs on any machine: the gk_format values, leading dimensions in elements of the type,
    and modes the binding passes for each dtype."""
    for name, fmt in _cuda.FORMATS.items():
        assert gemmkit.lib.gk_format_name(fmt).decode() == name, (name, fmt)
    real, fake, contexts = _cuda.lib, RecordingCudaLib(), _cuda.contexts
    _cuda.lib, _cuda.contexts = fake, _cuda._Contexts()  # contexts of the stand-in only
    R, C, N, T = _layout.ROW, _layout.COL, _layout.NO_TRANS, _layout.TRANS
    try:
        # bfloat16 ("<V2" as torch and ml_dtypes write it): a 6x4 row-major; b 4x5 a transposed
        # view (column-major, ld 8 elements); c 6x5 float32 row-padded (ld 7) on a user stream
        a = FakeCudaArray((6, 4), "<V2", ptr=0x1000)
        b = FakeCudaArray((4, 5), "<V2", strides=(2, 16), ptr=0x2000)
        c = FakeCudaArray((6, 5), "<f4", strides=(28, 4), ptr=0x3000, stream=0x5550)
        assert gemmkit.gemm(a, b, c, alpha=2.0, beta=0.5) is c
        want = ("gemm_ex", R, N, T, 6, 5, 4, 2.0, 2, 0x1000, 4, 2, 0x2000, 8, 0.5, 0, 0x3000, 7,
                (0, 0, 0))
        assert fake.calls[0] == ("create", 0, 0x5550) and fake.calls[1] == want, fake.calls
        # float16 with a float16 column-major c
        fake.calls.clear()
        c16 = FakeCudaArray((6, 5), "<f2", strides=(2, 12), ptr=0x4000)
        gemmkit.gemm(FakeCudaArray((6, 4), "<f2", ptr=0x1000),
                     FakeCudaArray((4, 5), "<f2", ptr=0x2000), c16)
        want = ("gemm_ex", C, T, T, 6, 5, 4, 1.0, 3, 0x1000, 4, 3, 0x2000, 5, 0.0, 3, 0x4000, 6,
                (0, 0, 0))
        assert fake.calls[1] == want, f"{fake.calls[1]} != {want}"
        # float32 modes: 3xtf32 sets the context's mode and stays on gk_cuda_sgemm; tf32 passes
        # the operands as GK_TF32 to gk_cuda_gemm_ex. The context of stream 0 exists already
        # (cached): no create, and its mode is set back to simt when a call wants simt.
        f32 = lambda p: FakeCudaArray((3, 3), "<f4", ptr=p)  # noqa: E731
        fake.calls.clear()
        gemmkit.gemm(f32(0x1000), f32(0x2000), f32(0x3000), fp32_mode="3xtf32")
        assert [x[0] for x in fake.calls] == ["fp32_mode", "sgemm"], fake.calls
        assert fake.calls[0] == ("fp32_mode", 1)
        fake.calls.clear()
        gemmkit.gemm(f32(0x1000), f32(0x2000), f32(0x3000), fp32_mode="tf32")
        assert fake.calls[1][:2] == ("gemm_ex", R) and fake.calls[1][8] == 1 and \
            fake.calls[1][11] == 1 and fake.calls[1][15] == 0, fake.calls[1]
        fake.calls.clear()
        gemmkit.gemm(f32(0x1000), f32(0x2000), f32(0x3000), fp32_mode="simt")
        assert [x[0] for x in fake.calls] == ["sgemm"], fake.calls
        # scales: one-element float32 device arrays; FP8 through the interface is refused
        fake.calls.clear()
        s1, s2 = FakeCudaArray((1,), "<f4", ptr=0x7000), FakeCudaArray((1,), "<f4", ptr=0x7004)
        gemmkit.gemm(f32(0x1000), f32(0x2000), f32(0x3000), scale_a=s1, scale_b=s2,
                     fp8_fast_accum=True)
        assert fake.calls[0][0] == "gemm_ex" and fake.calls[0][-1] == (0x7000, 0x7004, 1), \
            fake.calls
        raises_(TypeError, gemmkit.gemm, FakeCudaArray((2, 2), "<V1"),
                FakeCudaArray((2, 2), "<V1"), f32(0x3000))
        raises_(ValueError, gemmkit.gemm, a, b, c, scale_a=FakeCudaArray((2,), "<f4"))
        raises_(ValueError, gemmkit.gemm, a, b, c, fp32_mode="3xtf32")  # bfloat16 operands
        raises_(ValueError, gemmkit.gemm, a, b)  # a generic bfloat16 array has no allocator
    finally:
        _cuda.lib, _cuda.contexts = real, contexts
    raises_(ValueError, gemmkit.matmul, np.ones((2, 2), np.float32), np.ones((2, 2), np.float32),
            fp32_mode="tf32")  # the keywords are the GPU's


if __name__ == "__main__":
    run()
