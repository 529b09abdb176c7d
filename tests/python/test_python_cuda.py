"""test_python_cuda.py — the binding's GPU path (gemmkit.matmul/gemm on CUDA arrays), run on a
machine with a GPU; every case reports "skip" without one. Arrays come from torch when it is
installed (plain, transposed and sliced tensors, out=, beta, a non-default current stream, the
__dlpack__ route) and otherwise from a minimal __cuda_array_interface__ object over the CUDA
runtime's cudaMalloc/cudaMemcpy (ctypes), so the path is tested even without torch.
The default kernel may multiply in TF32, so results are held to the TF32 bound: this checks the
binding's layouts, strides and streams; kernel accuracy is tests/cuda's job.
"""
import ctypes
import ctypes.util
import glob

import numpy as np

from cases import Skip, case, run
from harness import check_product, rand

import gemmkit

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
    """A float32 matrix in cudaMalloc'ed memory exposing __cuda_array_interface__ (version 3)."""
    rt = None

    def __init__(self, host, view=None):
        host = np.ascontiguousarray(host, dtype=np.float32)
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
        ld = self.base_shape[1] * 4
        ptr = self.ptr.value + r0 * ld + c0 * 4
        shape, strides = ((cols, rows), (4, ld)) if t else ((rows, cols), (ld, 4))
        return {"shape": shape, "strides": strides, "typestr": "<f4", "data": (ptr, False),
                "version": 3, "stream": 1}

    def whole(self):
        """The entire underlying buffer, after the work queued so far."""
        assert self.rt.cudaDeviceSynchronize() == 0
        host = np.empty(self.base_shape, np.float32)
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


if __name__ == "__main__":
    run()
