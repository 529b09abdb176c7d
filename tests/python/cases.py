"""cases.py — the test protocol (tests/common/check.h) for the Python tests, without pytest:
each case prints "ok NAME", "FAIL NAME: why" or "skip NAME: why"; the exit status is 1 if any
case failed. Importing it points the binding at the library under test
($GK_BUILD/lib/libgemmkit.so, as `make test` sets GK_BUILD) and makes `import gemmkit` find
python/gemmkit and `import harness` find harness/harness.py (reference and accuracy rule) in this
checkout.
"""
import os
import subprocess
import sys
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path[:0] = [os.path.join(ROOT, "python"), os.path.join(ROOT, "harness")]
_build = os.environ.get("GK_BUILD", "build")
os.environ.setdefault("GEMMKIT_LIBRARY", os.path.join(
    _build if os.path.isabs(_build) else os.path.join(ROOT, _build), "lib", "libgemmkit.so"))


def _rerun_under_asan():
    """A sanitizer build (make test SANITIZE=1) can only be loaded by a process that starts with
    the ASan runtime, so the test re-executes itself with it preloaded."""
    if os.environ.get("GK_ASAN_RERUN"):
        return
    try:
        dyn = subprocess.run(["readelf", "-d", os.environ["GEMMKIT_LIBRARY"]],
                             capture_output=True, text=True).stdout
        if "libasan" not in dyn:
            return
        asan = subprocess.run([os.environ.get("CC", "cc"), "-print-file-name=libasan.so"],
                              capture_output=True, text=True).stdout.strip()
    except OSError:
        return
    preload = ":".join(filter(None, [asan, os.environ.get("LD_PRELOAD")]))
    env = dict(os.environ, LD_PRELOAD=preload, GK_ASAN_RERUN="1",
               ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "detect_leaks=0"))
    sys.stdout.flush()
    os.execve(sys.executable, [sys.executable] + sys.argv, env)


_rerun_under_asan()


class Skip(Exception):
    pass


def cuda_torch():
    """torch, for a case on torch CUDA tensors; Skip where gemmkit has no CUDA device (or no CUDA
    backend), torch is missing or has no CUDA."""
    import gemmkit
    if not gemmkit.cuda_available():
        raise Skip("no CUDA device, or the library was built without the CUDA backend")
    try:
        import torch
    except ImportError:
        raise Skip("torch is not installed")
    if not torch.cuda.is_available():
        raise Skip("torch has no CUDA")
    return torch


_cases = []


def case(fn):
    _cases.append(fn)
    return fn


def run():
    failed = 0
    for fn in _cases:
        try:
            fn()
            print(f"ok {fn.__name__}")
        except Skip as e:
            print(f"skip {fn.__name__}: {e}")
        except Exception as e:  # an assertion or an unexpected error: both fail the case
            failed += 1
            where = traceback.extract_tb(e.__traceback__)[-1]
            why = str(e) or type(e).__name__
            print(f"FAIL {fn.__name__}: {os.path.basename(where.filename)}:{where.lineno}: "
                  f"{type(e).__name__}: {why}")
        sys.stdout.flush()
    sys.exit(1 if failed else 0)


# ---- stand-ins for device arrays and the CUDA library (the plumbing tests) ------------------------

class FakeCudaArray:
    """Just enough __cuda_array_interface__ for the binding's parsing; the pointer is never
    dereferenced (the calls go to a RecordingLib, or fail before any GPU work)."""

    def __init__(self, shape, typestr="<f4", strides=None, ptr=0x10000, readonly=False,
                 stream=None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "version": 3,
                                         "data": (ptr, readonly), "strides": strides,
                                         "stream": stream}


class RecordingLib:
    """Stands in for the library's gk_cuda_* functions to see exactly what the binding passes."""

    def __init__(self):
        self.calls = []

    def gk_cuda_available(self):
        return 1

    def gk_cuda_create(self, ctx_ref, device, stream):
        self.calls.append(("create", device, stream.value or 0))
        return 0

    def gk_cuda_destroy(self, ctx):
        self.calls.append(("destroy",))
        return 0

    def __getattr__(self, name):
        def record(ctx, *args):
            self.calls.append((name,) + args)
            return 0
        return record
