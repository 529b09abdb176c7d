#!/usr/bin/env python3
"""python_call_overhead.py — what one `gemmkit.gemm(a, a, c)` call on CUDA arrays costs the host.

Times --calls back-to-back calls (no synchronisation between them; best of --repeat runs) and
prints microseconds per call. Two things are chosen:

  --arrays cai         objects with __cuda_array_interface__ (as cupy/numba present them; no GPU
                       needed, the pointers are never read)
  --arrays fake-torch  stand-ins with torch.Tensor's attributes (type from module "torch") and a
                       minimal `torch` module in place of torch that answers the current stream
  --arrays torch       real torch CUDA tensors; torch.matmul(a, a, out=c) is timed beside it
  --lib noop           the binding's library swapped for Python functions that return success at
                       once: the binding's own Python work alone (any machine)
  --lib real           libgemmkit itself (needs a GPU and CUDA arrays on it): the whole host
                       cost, the GPU work queued on the current stream and synchronised once after
                       each run, so the rate is bounded by whichever side is slower

This is the measure of issue 18's "the Python and C paths cost the same" (docs/python.md,
"Contexts"). The noop library's calls are Python calls, not ctypes ones: `--lib real` adds
ctypes' argument conversion and the C side, which this script also reports as "ctypes floor"
(gk_cuda_sgemm on a NULL context, which returns at once) where the library loads.
"""
import argparse
import os
import sys
import time
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))


class NoopLib:
    """Every gk_cuda_* function the CUDA path calls, returning GK_SUCCESS at once."""

    def gk_cuda_available(self):
        return 1

    def __getattr__(self, name):  # made once per name, as ctypes does
        fn = lambda *args: 0  # noqa: E731
        setattr(self, name, fn)
        return fn


class CaiArray:
    def __init__(self, n, ptr):
        self.__cuda_array_interface__ = {"shape": (n, n), "typestr": "<f4", "version": 3,
                                         "data": (ptr, False), "strides": None, "stream": None}


class _FakeDtype:
    itemsize = 4

    def __str__(self):
        return "torch.float32"


class _FakeDevice:
    type, index = "cuda", 0


class FakeTensor:
    """A float32 n x n "CUDA tensor" with the attributes the binding reads."""
    __module__ = "torch"
    dtype, device, is_cuda, requires_grad = _FakeDtype(), _FakeDevice(), True, False

    def __init__(self, n, ptr):
        self.shape, self._stride, self._ptr = (n, n), (n, 1), ptr

    def data_ptr(self):
        return self._ptr

    def stride(self):
        return self._stride

    def element_size(self):
        return 4

    def get_device(self):
        return 0


def _stub_torch():
    """A `torch` module with just the current-stream queries (torch without a GPU refuses them)."""
    torch = types.ModuleType("torch")
    stream = types.SimpleNamespace(cuda_stream=0)
    torch.cuda = types.SimpleNamespace(current_stream=lambda device=None: stream)
    torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda index: 0)
    sys.modules["torch"] = torch


def per_call(fn, calls, repeat, sync):
    best = float("inf")
    for _ in range(repeat):
        sync()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        sync()
        best = min(best, time.perf_counter() - t0)
    return best / calls * 1e6


def ctypes_floor(calls, repeat):
    """gk_cuda_sgemm through ctypes on a NULL context: the argument conversion and the call,
    nothing else (the library answers INVALID_VALUE at once)."""
    from gemmkit._lib import lib
    f = lib.gk_cuda_sgemm
    return per_call(lambda: f(None, 101, 111, 111, 64, 64, 64, 1.0, 4096, 64, 4096, 64, 0.0, 8192,
                              64), calls, repeat, lambda: None)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--arrays", choices=("cai", "fake-torch", "torch"), default="cai")
    p.add_argument("--lib", choices=("noop", "real"), default="noop")
    p.add_argument("--n", type=int, default=64, help="the matrices are n x n (default 64)")
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--profile", action="store_true", help="cProfile one run of --calls calls")
    args = p.parse_args()

    sync = lambda: None  # noqa: E731
    torch = None
    if args.arrays == "torch":
        import torch
        a = torch.randn(args.n, args.n, device="cuda")
        c = torch.empty_like(a)
        sync = torch.cuda.synchronize
    elif args.arrays == "fake-torch":
        _stub_torch()
        a, c = FakeTensor(args.n, 0x10000), FakeTensor(args.n, 0x20000)
    else:
        a, c = CaiArray(args.n, 0x10000), CaiArray(args.n, 0x20000)

    import gemmkit
    from gemmkit import _cuda
    if args.lib == "noop":
        _cuda.lib, _cuda.contexts = NoopLib(), _cuda._Contexts()
    elif not gemmkit.cuda_available():
        sys.exit("python_call_overhead.py: --lib real needs a CUDA device")

    call = lambda: gemmkit.gemm(a, a, c)  # noqa: E731
    call()  # the context is created here, outside the timing
    if args.profile:
        import cProfile
        import pstats
        prof = cProfile.Profile()
        prof.runcall(lambda: [call() for _ in range(args.calls)])
        pstats.Stats(prof).sort_stats("tottime").print_stats(15)
    print(f"gemmkit.gemm   {args.arrays:10s} lib={args.lib:4s} n={args.n}: "
          f"{per_call(call, args.calls, args.repeat, sync):7.2f} us/call")
    if torch is not None:
        ref = lambda: torch.matmul(a, a, out=c)  # noqa: E731
        ref()
        print(f"torch.matmul   torch      out=c    n={args.n}: "
              f"{per_call(ref, args.calls, args.repeat, sync):7.2f} us/call")
    try:
        floor = ctypes_floor(args.calls, args.repeat)
        print(f"ctypes floor   gk_cuda_sgemm(NULL ctx):  {floor:7.2f} us/call")
    except (ImportError, AttributeError) as e:
        print(f"ctypes floor   unavailable: {e}")


if __name__ == "__main__":
    main()
