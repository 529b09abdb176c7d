"""test_fork.py — fork() after threaded GEMMs, from Python: the binding (gemmkit.matmul in a
child after the parent used 2 threads, and a multiprocessing pool with the fork start method),
and numpy's `@` with libgemmkit.so preloaded. Each scenario runs in its own interpreter with a
time limit, so a hang fails its case instead of the test run.
"""
import os
import subprocess
import sys

from cases import Skip, case, run  # points GEMMKIT_LIBRARY at the build; preloads ASan if needed

LIB = os.environ["GEMMKIT_LIBRARY"]
HERE = os.path.dirname(os.path.abspath(__file__))
PYTHONPATH = os.path.join(os.path.dirname(os.path.dirname(HERE)), "python")

BINDING = r"""
import os, numpy as np, gemmkit
a = np.random.default_rng(1).random((500, 500), dtype=np.float32)
ref = a.astype(np.float64) @ a.astype(np.float64)
tol = 502 * np.finfo(np.float32).eps * (np.abs(a).astype(np.float64) @ np.abs(a)) + 1e-30
ok = lambda c: bool(np.all(np.abs(c - ref) <= tol))
assert ok(gemmkit.matmul(a, a))
pid = os.fork()
if pid == 0:
    os._exit(0 if ok(gemmkit.matmul(a, a)) and ok(gemmkit.matmul(a, a)) else 3)
_, st = os.waitpid(pid, 0)
assert os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0, "child status %d" % st
assert ok(gemmkit.matmul(a, a)), "parent after the fork"
import multiprocessing as mp
def work(seed):
    x = np.random.default_rng(seed).random((300, 300), dtype=np.float32)
    return float(np.abs(gemmkit.matmul(x, x) - x.astype(np.float64) @ x).max())
with mp.get_context("fork").Pool(2) as pool:
    errs = pool.map(work, range(4))
assert max(errs) < 1e-3, errs
print("done")
"""

NUMPY = r"""
import os, numpy as np
a = np.random.default_rng(2).random((500, 500), dtype=np.float32)
ref = a.astype(np.float64) @ a.astype(np.float64)
ok = lambda c: float(np.abs(c - ref).max()) < 1e-2
assert ok(a @ a)
pid = os.fork()
if pid == 0:
    os._exit(0 if ok(a @ a) else 3)
_, st = os.waitpid(pid, 0)
assert os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0, "child status %d" % st
assert ok(a @ a)
print("done")
"""


def scenario(code, env):
    """Run `code` in a fresh interpreter; a hang or a failure raises with its last words."""
    try:
        p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True, timeout=60)
    except subprocess.TimeoutExpired:
        raise AssertionError("hung (no exit within 60 s)")
    tail = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
    assert p.returncode == 0 and "done" in p.stdout, tail


def base_env():
    try:
        import numpy  # noqa: F401
    except ImportError:
        raise Skip("numpy not importable by %s" % sys.executable)
    if not os.path.exists(LIB):
        raise AssertionError("%s missing; build first" % LIB)
    return dict(os.environ, GEMMKIT_NUM_THREADS="2", PYTHONPATH=PYTHONPATH)


def numpy_takes_shared_cblas():
    import numpy
    try:
        from numpy.core import _multiarray_umath as m
    except ImportError:
        from numpy._core import _multiarray_umath as m
    try:
        nm = subprocess.run(["nm", "-D", "--undefined-only", m.__file__], capture_output=True,
                            text=True).stdout
    except OSError:
        return False
    return any(line.split()[-1] == "cblas_sgemm" for line in nm.splitlines() if line.split())


@case
def fork_binding():
    scenario(BINDING, base_env())


@case
def fork_numpy_preload():
    env = base_env()
    # Only a numpy that takes cblas_sgemm from a shared BLAS can be redirected by a preload
    # (test_numpy_preload.sh checks that gemmkit serves it).
    if not numpy_takes_shared_cblas():
        raise Skip("%s's numpy does not import cblas_sgemm from a shared BLAS (bundled BLAS, "
                   "e.g. a pip wheel); use Debian's python3-numpy" % sys.executable)
    env["LD_PRELOAD"] = ":".join(filter(None, [env.get("LD_PRELOAD"), LIB]))
    scenario(NUMPY, env)


if __name__ == "__main__":
    run()
