"""test_python.py — the ctypes binding (python/gemmkit) on the CPU with numpy: shapes, every kind
of stride (zero-copy where a leading dimension describes it, a copy otherwise — counted), operand
transposition, out= and beta semantics, argument errors before any call, library errors as
GemmkitError with status and message, thread control from several Python threads, info(), and
the CUDA-array plumbing that needs no GPU (array-interface parsing; a clean error without one).
"""
import threading

import numpy as np
from numpy.lib.stride_tricks import as_strided

from cases import Skip, case, run, FakeCudaArray
from harness import check_product, rand

import gemmkit
from gemmkit import _cuda, _layout

rng = np.random.default_rng(2024)


class CountCopies:
    """Counts np.ascontiguousarray calls (the binding's only operand copy) inside a with-block."""

    def __enter__(self):
        self.count, self.orig = 0, np.ascontiguousarray

        def counting(*args, **kwargs):
            self.count += 1
            return self.orig(*args, **kwargs)
        np.ascontiguousarray = counting
        return self

    def __exit__(self, *exc):
        np.ascontiguousarray = self.orig


@case
def loads_library_under_test():
    import os
    want = os.path.realpath(os.environ["GEMMKIT_LIBRARY"])
    assert os.path.realpath(gemmkit.library_path) == want, (gemmkit.library_path, want)
    assert gemmkit.version().count(".") == 2, gemmkit.version()


@case
def shapes():
    for m, n, k in [(1, 1, 1), (5, 3, 7), (16, 6, 1), (17, 7, 300), (64, 64, 64), (130, 257, 33),
                    (300, 200, 500), (1, 300, 40), (300, 1, 40)]:
        a, b = rand(rng, m, k), rand(rng, k, n)
        check_product(gemmkit.matmul(a, b), a, b, what=f"{m}x{n}x{k}")


@case
def empty_and_k_zero():
    c = gemmkit.matmul(np.zeros((0, 4), np.float32), np.zeros((4, 3), np.float32))
    assert c.shape == (0, 3)
    c = gemmkit.matmul(np.zeros((4, 0), np.float32), np.zeros((0, 3), np.float32))
    assert c.shape == (4, 3) and not c.any(), "k = 0 must give zeros"
    out = np.full((4, 3), 2.0, np.float32)
    gemmkit.matmul(np.zeros((4, 0), np.float32), np.zeros((0, 3), np.float32), out, beta=1.5)
    assert (out == 3.0).all(), "k = 0 must scale out by beta"


def layouts(m, n):
    """Ways to hold an m x n matrix, each with whether gemmkit can use it without a copy."""
    base = rand(rng, m + 5, n + 7)
    big = rand(rng, 2 * m + 1, 3 * n + 2)
    return [
        ("C", rand(rng, m, n), True),
        ("F", rand(rng, m, n, order="F"), True),
        ("transposed view", rand(rng, n, m).T, True),
        ("row-padded slice", base[2:2 + m, 3:3 + n], True),
        ("column-padded F slice", np.asfortranarray(base)[1:1 + m, 4:4 + n], True),
        ("strided both ways", big[::2, ::3][:m, :n], False),
        ("reversed rows", rand(rng, m, n)[::-1], False),
    ]


@case
def strides_zero_copy_or_copy():
    m, n, k = 19, 23, 29
    for name_a, a, direct_a in layouts(m, k):
        for name_b, b, direct_b in layouts(k, n):
            with CountCopies() as copies:
                c = gemmkit.matmul(a, b)
            check_product(c, a, b, what=f"{name_a} @ {name_b}")
            want = (not direct_a) + (not direct_b)
            assert copies.count == want, f"{name_a} @ {name_b}: {copies.count} copies, want {want}"


@case
def single_row_and_column_views():
    big = rand(rng, 40, 50)
    a = big[3:4, ::2]           # 1 x 25, stride 2: a column-major 1-row operand
    b = big[:25, 7:8]           # 25 x 1 column with row stride 50
    with CountCopies() as copies:
        check_product(gemmkit.matmul(a, b), a, b, what="row @ column")
        check_product(gemmkit.matmul(b, a), b, a, what="column @ row")
    assert copies.count == 0, f"{copies.count} copies for single-row/column views"


@case
def trans_flags():
    m, n, k = 13, 9, 21
    for ta in (False, True):
        for tb in (False, True):
            for order in ("C", "F"):
                a = rand(rng, *((k, m) if ta else (m, k)), order=order)
                b = rand(rng, *((n, k) if tb else (k, n)), order=order)
                c = gemmkit.gemm(a, b, trans_a=ta, trans_b=tb, alpha=-0.5)
                check_product(c, a.T if ta else a, b.T if tb else b, alpha=-0.5,
                              what=f"trans_a={ta} trans_b={tb} {order}")


@case
def out_in_place():
    a, b = rand(rng, 30, 20), rand(rng, 20, 10)
    for order in ("C", "F"):
        out = np.empty((30, 10), np.float32, order=order)
        r = gemmkit.matmul(a, b, out=out)
        assert r is out, "matmul must return out"
        check_product(out, a, b, what=f"out {order}")
    # A padded slice: only the slice is written.
    big = np.full((40, 25), 7.0, np.float32)
    view = big[5:35, 3:13]
    gemmkit.matmul(a, b, out=view)
    check_product(view, a, b, what="out slice")
    mask = np.ones(big.shape, bool)
    mask[5:35, 3:13] = False
    assert (big[mask] == 7.0).all(), "wrote outside the out slice"
    # An out no leading dimension describes goes through a temporary and is still exact.
    big = np.full((60, 30), 7.0, np.float32)
    view = big[::2, ::3]
    gemmkit.matmul(a, b, out=view)
    check_product(view, a, b, what="strided out")
    assert (big[1::2] == 7.0).all(), "wrote outside the strided out"


@case
def beta_semantics():
    a, b = rand(rng, 12, 8), rand(rng, 8, 6)
    c0 = rand(rng, 12, 6)
    c = c0.copy()
    gemmkit.gemm(a, b, c, alpha=2.0, beta=1.0)
    check_product(c, a, b, alpha=2.0, beta=1.0, c0=c0, what="beta=1")
    c = c0.copy(order="F")
    gemmkit.gemm(a, b, c, alpha=0.5, beta=-3.0)
    check_product(c, a, b, alpha=0.5, beta=-3.0, c0=c0, what="beta=-3 F")
    c = np.full((12, 6), np.nan, np.float32)
    gemmkit.gemm(a, b, c, beta=0.0)
    assert not np.isnan(c).any(), "beta=0 must not read C (NaN leaked)"
    check_product(c, a, b, what="beta=0 over NaN")
    c = c0.copy()
    gemmkit.gemm(np.full((12, 8), np.nan, np.float32), b, c, alpha=0.0, beta=2.0)
    assert np.array_equal(c, 2 * c0), "alpha=0 must give beta*C without reading A"
    try:
        gemmkit.matmul(a, b, beta=1.0)
    except ValueError:
        pass
    else:
        raise AssertionError("beta != 0 without out accepted")


@case
def aliasing_out_and_input():
    a = rand(rng, 16, 16)
    b = rand(rng, 16, 16)
    a0 = a.copy()
    gemmkit.matmul(a, b, out=a)
    check_product(a, a0, b, what="out is a")


def raises(exc, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except exc as e:
        return e
    raise AssertionError(f"{fn.__name__}{args}: no {exc.__name__}")


@case
def argument_errors():
    a, b = rand(rng, 4, 5), rand(rng, 5, 3)
    raises(ValueError, gemmkit.matmul, a, rand(rng, 4, 3))                 # inner mismatch
    raises(ValueError, gemmkit.matmul, a[0], b)                            # 1-D
    raises(TypeError, gemmkit.matmul, a.astype(np.float64), b)             # dtype
    raises(ValueError, gemmkit.matmul, a, b, np.empty((4, 4), np.float32))  # out shape
    raises(ValueError, gemmkit.matmul, a, b, np.empty((4, 3), np.float64))  # out dtype
    ro = np.zeros((4, 3), np.float32)
    ro.flags.writeable = False
    raises(ValueError, gemmkit.matmul, a, b, ro)
    assert not ro.any(), "read-only out was written"
    check_product(gemmkit.matmul(a.tolist(), b.tolist()), a, b, what="lists")


@case
def library_errors_carry_status_and_message():
    e = raises(gemmkit.GemmkitError, gemmkit.set_num_threads, -1)
    assert e.status == gemmkit.Status.INVALID_VALUE and "-1" in e.message, (e.status, e.message)
    e = raises(gemmkit.GemmkitError, gemmkit.set_arch, "no-such-arch")
    assert e.status == gemmkit.Status.INVALID_VALUE and e.message, (e.status, e.message)
    # A view whose extent overflows the address space: gemmkit refuses it before touching memory.
    base = np.zeros(8, np.float32)
    huge = as_strided(base, shape=(3, 2), strides=(2 ** 62, 4))
    e = raises(gemmkit.GemmkitError, gemmkit.matmul, huge, rand(rng, 2, 2))
    assert e.status == gemmkit.Status.OVERFLOW and "overflows" in e.message, (e.status, e.message)
    assert str(e).startswith("OVERFLOW: "), str(e)


@case
def thread_control():
    default = gemmkit.get_num_threads()
    assert default >= 1
    try:
        gemmkit.set_num_threads(1)
        assert gemmkit.get_num_threads() == 1
        assert gemmkit.info()["cpu"]["threads"] == 1
        a, b = rand(rng, 200, 150), rand(rng, 150, 100)
        check_product(gemmkit.matmul(a, b), a, b, what="1 thread")
        gemmkit.set_num_threads(3)
        assert gemmkit.get_num_threads() == 3
        check_product(gemmkit.matmul(a, b), a, b, what="3 threads")
    finally:
        gemmkit.set_num_threads(0)
    assert gemmkit.get_num_threads() == default, "set_num_threads(0) did not restore the default"


@case
def concurrent_python_threads():
    errors = []

    def worker(seed):
        r = np.random.default_rng(seed)
        try:
            for i in range(20):
                m, n, k = (int(v) for v in r.integers(1, 90, 3))
                a, b = rand(r, m, k), rand(r, k, n)
                check_product(gemmkit.gemm(a.T.copy(), b, trans_a=True), a, b,
                              what=f"thread {seed} call {i}")
                if i % 5 == 0:  # per-thread error messages must not mix
                    e = raises(gemmkit.GemmkitError, gemmkit.set_num_threads, -seed)
                    assert f"-{seed}" in e.message, e.message
        except Exception as e:  # reported by the main thread
            errors.append(f"{type(e).__name__}: {e}")
    threads = [threading.Thread(target=worker, args=(s,)) for s in range(1, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


@case
def info_fields():
    i = gemmkit.info()
    assert i["version"] == gemmkit.version()
    cpu = i["cpu"]
    assert cpu["arch"] in ("generic", "avx2", "avx512"), cpu["arch"]
    assert cpu["mr"] > 0 and cpu["nr"] > 0 and cpu["kc"] > 0, cpu
    assert cpu["threads"] == gemmkit.get_num_threads()
    assert isinstance(i["cuda_available"], bool)




@case
def cuda_interface_parsing():
    v = _cuda._View(FakeCudaArray((6, 4)), "a")
    assert v.strides == (16, 4) and v.ptr == 0x10000 and v.device == 0, vars(v)
    op = v.operand()
    assert _layout.operand_args(op, _layout.ROW, False) == (_layout.NO_TRANS, 4)
    assert _layout.operand_args(op, _layout.COL, False) == (_layout.TRANS, 4)
    # A transposed, row-padded device view: column-major with ld from the strides.
    op = _cuda._View(FakeCudaArray((6, 4), strides=(4, 40)), "a").operand()
    assert _layout.operand_args(op, _layout.ROW, True) == (_layout.NO_TRANS, 10)
    op = _cuda._View(FakeCudaArray((6, 4), strides=(8, 40)), "a").operand()
    assert _layout.operand_args(op, _layout.ROW, False) is None
    raises(TypeError, _cuda._View, FakeCudaArray((2, 2), typestr="<f8"), "a")
    assert _cuda._stream_handle(_cuda._View(FakeCudaArray((1, 1), stream=1), "c")) == 0
    assert _cuda._stream_handle(_cuda._View(FakeCudaArray((1, 1), stream=0xabc0), "c")) == 0xabc0


class DlpackWrapper:
    """A numpy array presented through DLPack, to check the DLTensor parsing on the host."""

    def __init__(self, x):
        self.x = x

    def __dlpack__(self, stream=None):
        return self.x.__dlpack__()

    def __dlpack_device__(self):
        return (2, 0)  # claims CUDA so the binding treats it as a device array


@case
def dlpack_parsing():
    if not hasattr(np.ndarray, "__dlpack__"):
        raise Skip("numpy without __dlpack__ (< 1.22)")
    x = rand(rng, 7, 9)[:, 1:6]
    w = DlpackWrapper(x)
    assert _cuda.is_device_array(w) and not _cuda.is_device_array(x)
    v = _cuda._View(w, "a")
    assert v.shape == (7, 5) and v.strides == (36, 4) and v.ptr == x.ctypes.data, vars(v)
    assert _layout.operand_args(v.operand(), _layout.ROW, False) == (_layout.NO_TRANS, 9)


class RecordingCudaLib:
    """Stands in for the library's gk_cuda_* functions to see exactly what the binding passes."""

    def __init__(self):
        self.calls = []

    def gk_cuda_available(self):
        return 1

    def gk_cuda_create(self, ctx_ref, device, stream):
        self.calls.append(("create", device, stream.value or 0))
        return 0

    def gk_cuda_sgemm(self, ctx, *args):
        self.calls.append(("sgemm",) + args)
        return 0

    def gk_cuda_destroy(self, ctx):
        self.calls.append(("destroy",))
        return 0


@case
def cuda_call_plumbing():
    real, fake, contexts = _cuda.lib, RecordingCudaLib(), _cuda.contexts
    _cuda.lib, _cuda.contexts = fake, _cuda._Contexts()  # contexts of the stand-in only
    try:
        # a: 6x4 row-major; b: 4x5 given as a transposed view (column-major, ld 8);
        # c: 6x5 in a row-padded buffer (ld 7) on a user stream.
        a = FakeCudaArray((6, 4), ptr=0x1000)
        b = FakeCudaArray((4, 5), strides=(4, 32), ptr=0x2000)
        c = FakeCudaArray((6, 5), strides=(28, 4), ptr=0x3000, stream=0x5550)
        assert gemmkit.gemm(a, b, c, alpha=2.0, beta=0.5) is c
        assert fake.calls[0] == ("create", 0, 0x5550), fake.calls[0]
        want = ("sgemm", _layout.ROW, _layout.NO_TRANS, _layout.TRANS, 6, 5, 4, 2.0, 0x1000, 4,
                0x2000, 8, 0.5, 0x3000, 7)
        assert fake.calls[1] == want, f"{fake.calls[1]} != {want}"
        assert len(fake.calls) == 2, fake.calls  # the context is kept (test_cuda_contexts.py)
        # trans_a with a column-major output: a is stored 4x6 row-major; read column-major it
        # is the 6x4 matrix op(a) = a.T itself, so it goes in untransposed.
        fake.calls.clear()
        c_f = FakeCudaArray((6, 5), strides=(4, 24), ptr=0x4000)
        gemmkit.gemm(FakeCudaArray((4, 6), ptr=0x1000), b, c_f, trans_a=True)
        want = ("sgemm", _layout.COL, _layout.NO_TRANS, _layout.NO_TRANS, 6, 5, 4, 1.0, 0x1000, 6,
                0x2000, 8, 0.0, 0x4000, 6)
        assert fake.calls[1] == want, f"{fake.calls[1]} != {want}"
        for bad_c, exc in ((FakeCudaArray((6, 5), readonly=True), ValueError),
                           (FakeCudaArray((5, 6)), ValueError),
                           (FakeCudaArray((6, 5), strides=(40, 8)), ValueError),
                           (np.zeros((6, 5), np.float32), ValueError)):
            raises(exc, gemmkit.gemm, a, b, bad_c)
        raises(ValueError, gemmkit.gemm, a, b)  # nothing to allocate a generic CAI output with
    finally:
        _cuda.lib, _cuda.contexts = real, contexts


@case
def cuda_arrays_without_gpu_raise():
    if gemmkit.cuda_available():
        raise Skip("a GPU is present; tests/python/test_python_cuda.py covers it")
    e = raises(gemmkit.GemmkitError, gemmkit.matmul, FakeCudaArray((2, 2)), FakeCudaArray((2, 2)),
               FakeCudaArray((2, 2)))
    assert e.status in (gemmkit.Status.NOT_BUILT, gemmkit.Status.NO_DEVICE), e.status
    assert e.message, "no message from the library"


if __name__ == "__main__":
    run()
