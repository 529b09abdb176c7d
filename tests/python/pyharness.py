"""pyharness.py — the test protocol (tests/common/check.h) for the Python tests, without pytest:
each case prints "ok NAME", "FAIL NAME: why" or "skip NAME: why"; the exit status is 1 if any
case failed. Also points the binding at the library under test ($GK_BUILD/lib/libgemmkit.so, as
`make test` sets GK_BUILD) and makes `import gemmkit` find python/gemmkit in this checkout.
"""
import os
import subprocess
import sys
import traceback

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
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


def check_product(c, a, b, alpha=1.0, beta=0.0, c0=None, what="", u_in=0.0):
    """Assert c == alpha a @ b + beta c0 within the K-scaled float64 bound (docs/testing.md);
    u_in is the operands' unit roundoff as the multiplier sees them (2**-11 for TF32)."""
    a64, b64 = np.asarray(a, np.float64), np.asarray(b, np.float64)
    ref = alpha * (a64 @ b64)
    scale = abs(alpha) * (np.abs(a64) @ np.abs(b64))
    if beta != 0:
        ref = ref + beta * np.asarray(c0, np.float64)
        scale = scale + np.abs(beta * np.asarray(c0, np.float64))
    k = a64.shape[1]
    unit = (k + 2) * np.finfo(np.float32).eps + 2 * u_in
    bound = unit * scale + np.finfo(np.float32).tiny
    err = np.abs(np.asarray(c, np.float64) - ref)
    bad = ~(err <= bound)
    assert c.shape == ref.shape, f"{what}: shape {c.shape}, want {ref.shape}"
    if bad.any():
        i = np.unravel_index(np.argmax(np.where(bad, err / bound, 0)), bad.shape)
        raise AssertionError(f"{what}: {bad.sum()} of {bad.size} wrong; worst {i}: {c[i]} vs "
                             f"{ref[i]} (bound {bound[i]:.3g})")


def rand(rng, *shape, order="C"):
    return np.asarray(rng.uniform(-1, 1, shape), dtype=np.float32, order=order)
