# shellcheck shell=bash
# blas_env.sh — sourced by the drop-in tests (tests/blas/test_*.sh, tests/python/test_numpy_preload.sh):
# locates the library under test ($GK_BUILD/lib/libgemmkit.so, as set by `make test`) and the
# Debian netlib BLAS testers, and builds the LD_PRELOAD value that makes a program's BLAS calls
# reach gemmkit. A sanitizer build (make test SANITIZE=1) needs the ASan runtime loaded first.

gk_report() { echo "$1 $2${3:+: $3}"; } # status name [why]

GK_BUILD=${GK_BUILD:-build}
gk_lib=$(readlink -f "$GK_BUILD/lib/libgemmkit.so" 2>/dev/null)
gk_preload=$gk_lib
if [ -n "$gk_lib" ] && readelf -d "$gk_lib" 2>/dev/null | grep -q 'NEEDED.*libasan'; then
    gk_preload="$(${CC:-cc} -print-file-name=libasan.so):$gk_lib"
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
fi

# Debian's libblas-test puts the testers and the reference BLAS (which also carries reference
# CBLAS) in /usr/lib/<multiarch>/blas.
gk_blas_dir=
for d in /usr/lib/*/blas; do
    [ -x "$d/xblat3s" ] && gk_blas_dir=$d && break
done
