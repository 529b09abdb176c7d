#!/usr/bin/env bash
# test_numpy_preload.sh — gemmkit as a drop-in under an unmodified numpy: Debian's numpy calls
# cblas_sgemm from libblas.so.3 (OpenBLAS or whichever BLAS the alternatives select); with
# LD_PRELOAD=libgemmkit.so those calls must reach gemmkit and give float32 `@` results within the
# K-scaled float64 bound (docs/testing.md; harness/harness.py), for plain, transposed, sliced and
# batched operands.
# The dynamic linker's binding log and GEMMKIT_VERBOSE's line prove gemmkit served them.
# Then the alternatives route of docs/blas.md without touching the system: a libblas.so.3 shim
# from examples/make_blas_shim.sh, put first with LD_LIBRARY_PATH.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../blas/blas_env.sh"
py=${GK_PYTHON:-/usr/bin/python3}

if ! "$py" -c 'import numpy' 2>/dev/null; then
    gk_report skip numpy_preload "numpy not importable by $py (apt-get install python3-numpy)"
    exit 0
fi
[ -n "$gk_lib" ] || { gk_report FAIL numpy_preload "no $GK_BUILD/lib/libgemmkit.so; build first"; exit 1; }
# Only a numpy that imports cblas_sgemm from a shared BLAS can be redirected. pip wheels bundle
# their own OpenBLAS under renamed symbols (scipy_cblas_sgemm...), which no preload can replace.
umath=$("$py" -c 'import numpy.core._multiarray_umath as m; print(m.__file__)' 2>/dev/null ||
    "$py" -c 'import numpy._core._multiarray_umath as m; print(m.__file__)' 2>/dev/null)
if [ -z "$umath" ] || ! nm -D --undefined-only "$umath" 2>/dev/null | grep -qw cblas_sgemm; then
    for t in numpy_preload_uses_gemmkit numpy_libblas_shim; do
        gk_report skip "$t" "$py's numpy does not import cblas_sgemm from a shared BLAS (bundled BLAS, e.g. a pip wheel); use Debian's python3-numpy"
    done
    exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
GEMMKIT_VERBOSE=1 LD_DEBUG=bindings LD_DEBUG_OUTPUT="$tmp/ld" LD_PRELOAD="$gk_preload" \
    "$py" - "$here/../../harness" >"$tmp/out" 2>"$tmp/err" <<'PY'
import sys

import numpy as np

sys.path.insert(0, sys.argv[1])
from harness import compare, reference

rng = np.random.default_rng(7)

def check(name, a, b):
    c = a @ b
    ref, scale = reference(a, b)
    err, bound, bad = compare(c, ref, scale, a.shape[-1])
    if c.dtype != np.float32:
        print(f"FAIL {name}: result dtype {c.dtype}")
    elif bad.any():
        i = np.unravel_index(np.argmax(np.where(bad, err / bound, 0)), bad.shape)
        print(f"FAIL {name}: {bad.sum()} bad; worst at {i}: {c[i]} vs {ref[i]} (bound {bound[i]:.3g})")
    else:
        print(f"ok {name}")

def r(*shape):
    return rng.uniform(-1, 1, shape).astype(np.float32)

check("numpy_matmul_square", r(256, 256), r(256, 256))
check("numpy_matmul_odd", r(67, 131), r(131, 45))
check("numpy_matmul_transposed_views", r(90, 70).T, r(50, 90).T)
check("numpy_matmul_row_slices", r(64, 100)[:, 3:83], r(120, 33)[10:90])
check("numpy_matmul_batched", r(3, 40, 50), r(3, 50, 30))
check("numpy_dot_large", r(300, 500), r(500, 200))
PY
rc=$?
cat "$tmp/out"
status=0
if [ "$rc" -ne 0 ]; then
    gk_report FAIL numpy_preload "python exited with $rc: $(tail -n 5 "$tmp/err" | tr '\n' ' ')"
    status=1
fi
binds=$(cat "$tmp"/ld.* | grep -c "_multiarray_umath.* to .*libgemmkit[^ ]* .*symbol \`cblas_sgemm'")
if [ "$binds" -ge 1 ] && grep -q "gemmkit: cblas_sgemm called" "$tmp/err"; then
    gk_report ok numpy_preload_uses_gemmkit
else
    gk_report FAIL numpy_preload_uses_gemmkit "cblas_sgemm bindings from numpy to gemmkit: $binds; verbose line: $(grep -c 'gemmkit: cblas_sgemm called' "$tmp/err")"
    status=1
fi

if [ "$gk_preload" != "$gk_lib" ]; then
    gk_report skip numpy_libblas_shim "sanitizer build: the ASan runtime must be preloaded anyway"
    exit $status
fi
if ! bash "$here/../../examples/make_blas_shim.sh" "$(dirname "$gk_lib")" "$tmp/shim" >"$tmp/shim.log" 2>&1; then
    gk_report skip numpy_libblas_shim "no shim for this system's BLAS: $(tail -n 1 "$tmp/shim.log")"
    exit $status
fi
rm -f "$tmp"/ld.*
GEMMKIT_VERBOSE=1 LD_DEBUG=bindings LD_DEBUG_OUTPUT="$tmp/ld" LD_LIBRARY_PATH="$tmp/shim" "$py" -c '
import numpy as np
a = np.arange(12, dtype=np.float32).reshape(3, 4)
b = np.arange(8, dtype=np.float32).reshape(4, 2)
assert ((a @ b) == (a.astype(np.float64) @ b)).all(), a @ b
np.linalg.solve(np.eye(3), np.ones(3))  # LAPACK still served by the full BLAS
' >"$tmp/shim.out" 2>"$tmp/shim.err"
rc=$?
binds=$(cat "$tmp"/ld.* | grep -c "_multiarray_umath.* to .*libgemmkit[^ ]* .*symbol \`cblas_sgemm'")
if [ "$rc" -eq 0 ] && [ "$binds" -ge 1 ] && grep -q "gemmkit: cblas_sgemm called" "$tmp/shim.err"; then
    gk_report ok numpy_libblas_shim
else
    gk_report FAIL numpy_libblas_shim "python rc $rc, cblas_sgemm bindings to gemmkit $binds: $(grep -v '^gemmkit:' "$tmp/shim.err" | tail -n 3 | tr '\n' ' ')"
    status=1
fi
exit $status
