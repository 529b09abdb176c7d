"""test_cuda_call_path.py — the per-call path of gemmkit.gemm on torch tensors
(python/gemmkit/_cuda.py, docs/python.md "Per-call overhead"), on any machine: stand-in tensors
with torch.Tensor's attributes, a stand-in `torch` module answering the current stream, and
cases.RecordingLib for the library. The cases prove that the stream comes from torch's raw
current-stream query for the tensors' device (and from torch.cuda.current_stream where that query
is absent), that the leading dimensions and transpositions follow the tensors' strides, that
every argument error is still raised before anything is queued, and that the library's device
check is asked only until a context exists.
"""
import sys
import types

from cases import case, run, RecordingLib

import gemmkit
from gemmkit import _cuda, _layout


def raises(exc, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except exc as e:
        return e
    raise AssertionError(f"{fn.__name__}{args} did not raise {exc.__name__}")


class _Dtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"torch.{self.name}"


F32, F64 = _Dtype("float32"), _Dtype("float64")


class _Device:
    def __init__(self, index):
        self.type, self.index = "cuda", index


class Tensor:
    """A CUDA tensor as the binding sees it: the attributes it reads, nothing else."""
    __module__ = "torch"

    def __init__(self, shape, stride=None, ptr=0x10000, device=0, dtype=F32, cuda=True,
                 requires_grad=False):
        self.shape, self.dtype, self.is_cuda, self.requires_grad = shape, dtype, cuda, requires_grad
        self._stride = stride or (shape[1], 1)
        self._ptr, self._device = ptr, device
        self.device = _Device(device if cuda else None)

    def data_ptr(self):
        return self._ptr

    def stride(self):
        return self._stride

    def get_device(self):
        return self._device if self.is_cuda else -1

    def element_size(self):
        return 4


class _Swap:
    """The binding on a RecordingLib and a stand-in torch module, restored afterwards."""

    def __init__(self, raw=True):
        self.asked = []
        torch = types.ModuleType("torch")
        stream = lambda device: 0x7000 + device  # noqa: E731

        def current_stream(device=None):
            self.asked.append(("current_stream", device))
            return types.SimpleNamespace(cuda_stream=stream(device))

        def raw_stream(device):
            self.asked.append(("raw", device))
            return stream(device)
        torch.cuda = types.SimpleNamespace(current_stream=current_stream)
        torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=raw_stream) if raw else \
            types.SimpleNamespace()
        self.torch = torch

    def __enter__(self):
        self.saved = (_cuda.lib, _cuda.contexts, _cuda._torch_stream, sys.modules.get("torch"))
        self.fake = RecordingLib()
        _cuda.lib, _cuda.contexts, _cuda._torch_stream = self.fake, _cuda._Contexts(), None
        sys.modules["torch"] = self.torch
        return self

    def __exit__(self, *exc):
        _cuda.lib, _cuda.contexts, _cuda._torch_stream, torch = self.saved
        if torch is None:
            sys.modules.pop("torch", None)
        else:
            sys.modules["torch"] = torch


@case
def stream_from_the_raw_query():
    with _Swap() as s:
        a, b = Tensor((6, 4), ptr=0x1000, device=1), Tensor((4, 5), ptr=0x2000, device=1)
        c = Tensor((6, 5), ptr=0x3000, device=1)
        assert gemmkit.gemm(a, b, c, alpha=2.0) is c
        R, N = _layout.ROW, _layout.NO_TRANS
        assert s.fake.calls == [("create", 1, 0x7001),
                                ("gk_cuda_sgemm", R, N, N, 6, 5, 4, 2.0, 0x1000, 4, 0x2000, 5,
                                 0.0, 0x3000, 5)], s.fake.calls
        assert s.asked == [("raw", 1)], s.asked


@case
def stream_without_the_raw_query():
    with _Swap(raw=False) as s:
        gemmkit.gemm(Tensor((2, 2)), Tensor((2, 2)), Tensor((2, 2)))
        gemmkit.gemm(Tensor((2, 2)), Tensor((2, 2)), Tensor((2, 2)))
        assert s.fake.calls[0] == ("create", 0, 0x7000), s.fake.calls
        assert s.asked == [("current_stream", 0)] * 2, s.asked


@case
def strides_make_the_layout():
    with _Swap() as s:
        # b a transposed view (column-major, ld 8); c column-major (ld 6)
        b = Tensor((4, 5), stride=(1, 8), ptr=0x2000)
        c = Tensor((6, 5), stride=(1, 6), ptr=0x3000)
        gemmkit.gemm(Tensor((4, 6), ptr=0x1000), b, c, trans_a=True, beta=1.0)
        want = ("gk_cuda_sgemm", _layout.COL, _layout.NO_TRANS, _layout.NO_TRANS, 6, 5, 4, 1.0,
                0x1000, 6, 0x2000, 8, 1.0, 0x3000, 6)
        assert s.fake.calls[1] == want, s.fake.calls


@case
def errors_before_any_call():
    with _Swap() as s:
        a, c = Tensor((3, 4)), Tensor((3, 2))
        e = raises(ValueError, gemmkit.gemm, a, Tensor((4, 2), cuda=False), c)
        assert "b is a host array" in str(e), e
        raises(ValueError, gemmkit.gemm, a, Tensor((4, 2)), Tensor((3, 2), cuda=False))
        e = raises(TypeError, gemmkit.gemm, a, Tensor((4, 2), dtype=F64), c)
        assert "b has dtype torch.float64" in str(e), e
        e = raises(RuntimeError, gemmkit.gemm, Tensor((3, 4), requires_grad=True),
                   Tensor((4, 2)), c)
        assert "a requires grad" in str(e), e
        raises(ValueError, gemmkit.gemm, a, Tensor((5, 2)), c)  # inner dimensions
        raises(ValueError, gemmkit.gemm, a, Tensor((4, 2)), Tensor((2, 3)))  # c's shape
        raises(ValueError, gemmkit.gemm, a, Tensor((4, 2), device=1), c)  # devices
        raises(ValueError, gemmkit.gemm, a, Tensor((4, 2)), Tensor((3, 2), stride=(4, 2)))
        raises(ValueError, gemmkit.gemm, a, Tensor((4, 2)), c, fp32_mode="fast")
        assert s.fake.calls == [], s.fake.calls


@case
def device_check_only_until_a_context_exists():
    class Lib(RecordingLib):
        def gk_cuda_available(self):
            self.calls.append(("available",))
            return 1

    with _Swap() as s:
        _cuda.lib = s.fake = Lib()
        for _ in range(3):
            gemmkit.gemm(Tensor((2, 2)), Tensor((2, 2)), Tensor((2, 2)))
        assert [x[0] for x in s.fake.calls] == ["available", "create"] + ["gk_cuda_sgemm"] * 3, \
            s.fake.calls


if __name__ == "__main__":
    run()
