"""test_cuda_contexts.py — the CUDA context cache of the Python binding (python/gemmkit/_cuda.py,
docs/python.md "Contexts"), on any machine: a stand-in library (cases.RecordingLib) records every
gk_cuda_* call, so the cases prove that a second call on the same device and stream reuses the
context, another stream gets another, a forked child makes its own without touching its parent's,
the contexts are destroyed at interpreter exit, and threads sharing a context never use it at the
same time. Nothing is allocated or synchronised per call: a call on a cached context is the GEMM
call alone.
"""
import os
import subprocess
import sys
import threading
import time

from cases import case, run, FakeCudaArray, RecordingLib, ROOT

import gemmkit
from gemmkit import _cuda


class _Swap:
    """The binding on a stand-in library with an empty cache, restored afterwards."""

    def __enter__(self):
        self.saved = _cuda.lib, _cuda.contexts
        self.fake = RecordingLib()
        _cuda.lib, _cuda.contexts = self.fake, _cuda._Contexts()
        return self.fake

    def __exit__(self, *exc):
        _cuda.lib, _cuda.contexts = self.saved


def _arrays(stream=None):
    f32 = lambda p, s=None: FakeCudaArray((4, 4), ptr=p, stream=s)  # noqa: E731
    return f32(0x1000), f32(0x2000), f32(0x3000, stream)


def _names(calls):
    return [c[0] for c in calls]


@case
def second_call_reuses_the_context():
    with _Swap() as fake:
        gemmkit.gemm(*_arrays(0x50))
        gemmkit.gemm(*_arrays(0x50), beta=1.0)
        assert _names(fake.calls) == ["create", "gk_cuda_sgemm", "gk_cuda_sgemm"], fake.calls
        assert fake.calls[0] == ("create", 0, 0x50)


@case
def another_stream_gets_another_context():
    with _Swap() as fake:
        gemmkit.gemm(*_arrays(0x50))
        gemmkit.gemm(*_arrays(0x60))
        gemmkit.gemm(*_arrays(0x50))
        gemmkit.gemm(*_arrays(None))  # the legacy default stream, handle 0
        creates = [c for c in fake.calls if c[0] == "create"]
        assert creates == [("create", 0, 0x50), ("create", 0, 0x60), ("create", 0, 0)], creates
        assert len(_cuda.contexts.by_key) == 3


@case
def float32_mode_is_set_only_when_it_changes():
    with _Swap() as fake:
        gemmkit.gemm(*_arrays(0x50), fp32_mode="3xtf32")
        gemmkit.gemm(*_arrays(0x50), fp32_mode="3xtf32")
        gemmkit.gemm(*_arrays(0x50))
        assert _names(fake.calls) == ["create", "gk_cuda_set_fp32_mode", "gk_cuda_sgemm",
                                      "gk_cuda_sgemm", "gk_cuda_set_fp32_mode",
                                      "gk_cuda_sgemm"], fake.calls
        assert fake.calls[1][1] == 1 and fake.calls[4][1] == 0


@case
def forked_child_makes_its_own():
    with _Swap() as fake:
        gemmkit.gemm(*_arrays(0x50))
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # child: the parent's context must be neither used nor destroyed
            try:
                fake.calls.clear()
                gemmkit.gemm(*_arrays(0x50))
                _cuda.contexts.free()  # what exit does: destroys only the child's own
                os.write(w, repr(_names(fake.calls)).encode())
            finally:
                os._exit(0)
        os.close(w)
        got = os.read(r, 4096).decode()
        os.close(r)
        os.waitpid(pid, 0)
        assert got == repr(["create", "gk_cuda_sgemm", "destroy"]), got
        # the parent still has its context, unchanged
        fake.calls.clear()
        gemmkit.gemm(*_arrays(0x50))
        assert _names(fake.calls) == ["gk_cuda_sgemm"], fake.calls


@case
def exit_destroys_every_context():
    """A separate interpreter: two contexts made, then destroyed by the atexit hook."""
    script = f"""
import sys
sys.path[:0] = [{os.path.join(ROOT, 'python')!r}, {os.path.join(ROOT, 'tests', 'python')!r}]
from cases import FakeCudaArray, RecordingLib
import gemmkit
from gemmkit import _cuda

class Lib(RecordingLib):
    def gk_cuda_destroy(self, ctx):
        print("destroy", flush=True)
        return 0

_cuda.lib = Lib()
for s in (0x50, 0x60, 0x50):
    gemmkit.gemm(FakeCudaArray((2, 2), ptr=0x1000), FakeCudaArray((2, 2), ptr=0x2000),
                 FakeCudaArray((2, 2), ptr=0x3000, stream=s))
print("calls", len(_cuda.lib.calls), flush=True)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=dict(os.environ), timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["calls 5", "destroy", "destroy"], out.stdout


@case
def threads_never_share_a_context_at_once():
    class Lib(RecordingLib):
        def __init__(self):
            super().__init__()
            self.inside, self.overlap = 0, 0

        def gk_cuda_sgemm(self, ctx, *args):
            self.inside += 1
            if self.inside > 1:
                self.overlap += 1
            time.sleep(0.001)  # the GIL is released: another thread could enter here
            self.inside -= 1
            return 0

    saved = _cuda.lib, _cuda.contexts
    _cuda.lib, _cuda.contexts = Lib(), _cuda._Contexts()
    try:
        errors = []

        def work():
            try:
                for _ in range(20):
                    gemmkit.gemm(*_arrays(0x50))
            except Exception as e:  # reported below
                errors.append(e)

        ts = [threading.Thread(target=work) for _ in range(6)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        assert not errors, errors
        assert _cuda.lib.overlap == 0, f"{_cuda.lib.overlap} overlapping uses of one context"
        creates = [c for c in _cuda.lib.calls if c[0] == "create"]
        assert len(creates) == 1, creates
    finally:
        _cuda.lib, _cuda.contexts = saved


if __name__ == "__main__":
    run()
