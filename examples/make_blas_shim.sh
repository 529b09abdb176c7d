#!/usr/bin/env bash
# make_blas_shim.sh — builds a libblas.so.3 "shim" that makes every program linked to the system
# BLAS (numpy, R, Octave, ...) use gemmkit's sgemm_/cblas_sgemm while all other BLAS routines
# still come from a full BLAS (OpenBLAS, BLIS). The shim has no code: it only lists libgemmkit
# first and the full BLAS second among its dependencies, so the dynamic linker finds gemmkit's
# SGEMM symbols first. Install it with update-alternatives (docs/blas.md) or try it per program
# with LD_LIBRARY_PATH=<outdir>.
#
#   examples/make_blas_shim.sh <gemmkit libdir> <outdir> [full BLAS library]
#
# Without the third argument the full BLAS is the one behind the current libblas.so.3
# alternative: libopenblas.so.0 for OpenBLAS, libblis.so.4 for BLIS.
set -eu
[ $# -ge 2 ] || { sed -n '2,13p' "$0"; exit 2; }
gk_libdir=$(cd "$1" && pwd)
outdir=$2
[ -e "$gk_libdir/libgemmkit.so.0" ] || { echo "make_blas_shim: no libgemmkit.so.0 in $gk_libdir" >&2; exit 1; }

full=${3:-}
if [ -z "$full" ]; then
    multiarch=$(${CC:-cc} -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
    current=$(readlink -f "/usr/lib/$multiarch/libblas.so.3")
    if readelf -d "$current" | grep -q 'NEEDED.*\[libopenblas.so.0\]'; then
        full=$(dirname "$current")/../libopenblas.so.0
        [ -e "$full" ] || full=/usr/lib/$multiarch/libopenblas.so.0
    elif [ -e "$(dirname "$current")/libblis.so.4" ]; then
        full=$(dirname "$current")/libblis.so.4
    else
        echo "make_blas_shim: cannot tell which full BLAS is behind $current; pass it as the third argument" >&2
        exit 1
    fi
fi
full=$(readlink -f "$full")
if readelf -d "$full" | grep -q 'SONAME.*\[libblas.so.3\]'; then
    echo "make_blas_shim: $full calls itself libblas.so.3; pass the library it is built from (e.g. libopenblas.so.0)" >&2
    exit 1
fi

mkdir -p "$outdir"
echo 'void gemmkit_blas_shim(void) {}' >"$outdir/shim.c"
# --no-as-needed keeps both dependencies although the shim calls neither; their order is the
# lookup order. The rpaths let the shim find them wherever it is installed.
${CC:-cc} -shared -fPIC -o "$outdir/libblas.so.3" -Wl,-soname,libblas.so.3 "$outdir/shim.c" \
    -Wl,--no-as-needed "$gk_libdir/libgemmkit.so.0" "$full" \
    -Wl,-rpath,"$gk_libdir" -Wl,-rpath,"$(dirname "$full")"
rm -f "$outdir/shim.c"
echo "make_blas_shim: $outdir/libblas.so.3 -> gemmkit ($gk_libdir) for SGEMM, $full for the rest"
