"""harness.py — the Python copy of the harness (harness/harness.h): the float64 reference, the
accuracy rule (harness/rule.h, docs/testing.md) and random operands, for the Python tests
(tests/python/) and the Triton peer (bench/triton_peer.py).

Element (i, j) passes when
    |C_ij - R_ij| <= ((K + 2) * FLT_EPSILON + 2 * u_in) * S_ij + FLT_MIN,
    S_ij = |alpha| * sum_k |a_ik b_kj| + |beta c0_ij|,
u_in being the operands' unit roundoff as the multiplier sees them (0 for FP32, 2**-11 for TF32);
NaN never passes. The functions take numpy arrays or torch tensors alike (the Triton peer checks
on the GPU), and numpy is imported only when rand() needs it.

Home: harness/, next to the C harness, not python/gemmkit/: it is workshop, not product (the
installed binding carries no test code), and importing anything from the gemmkit package loads
libgemmkit, which the Triton peer does not need. Callers put this directory on sys.path.
"""

EPS = 2.0 ** -23   # FLT_EPSILON
TINY = 2.0 ** -126  # FLT_MIN


def _f64(x):
    """x in float64: a torch tensor stays on its device, anything else becomes a numpy array."""
    if hasattr(x, "double"):
        return x.double()
    import numpy as np
    return np.asarray(x, np.float64)


def reference(a, b, alpha=1.0, beta=0.0, c0=None):
    """R = alpha a @ b + beta c0 and its scale S, in float64 (products of floats are exact in
    double). c0 is read only when beta != 0 (BLAS semantics)."""
    a64, b64 = _f64(a), _f64(b)
    ref = alpha * (a64 @ b64)
    scale = abs(alpha) * (abs(a64) @ abs(b64))
    if beta != 0:
        c64 = _f64(c0)
        ref = ref + beta * c64
        scale = scale + abs(beta * c64)
    return ref, scale


def bound(k, u_in, scale):
    """The largest |C - R| the rule accepts for elements of scale S with inner dimension k."""
    return ((k + 2) * EPS + 2 * u_in) * scale + TINY


def compare(c, ref, scale, k, u_in=0.0):
    """(|C - R|, the bound, mask of failing elements) for a result c against reference()."""
    bnd = bound(k, u_in, scale)
    err = abs(_f64(c) - ref)
    return err, bnd, ~(err <= bnd)


def check_product(c, a, b, alpha=1.0, beta=0.0, c0=None, what="", u_in=0.0):
    """Assert c == alpha a @ b + beta c0 within the rule; the message names the worst element."""
    import numpy as np
    ref, scale = reference(a, b, alpha, beta, c0)
    assert c.shape == ref.shape, f"{what}: shape {c.shape}, want {ref.shape}"
    err, bnd, bad = compare(c, ref, scale, np.shape(a)[-1], u_in)
    if bad.any():
        i = np.unravel_index(np.argmax(np.where(bad, err / bnd, 0)), bad.shape)
        raise AssertionError(f"{what}: {bad.sum()} of {bad.size} wrong; worst {i}: {c[i]} vs "
                             f"{ref[i]} (bound {bnd[i]:.3g})")


def rand(rng, *shape, order="C"):
    """float32 operands uniform in [-1, 1) from a numpy Generator, in C or F order."""
    import numpy as np
    return np.asarray(rng.uniform(-1, 1, shape), dtype=np.float32, order=order)
