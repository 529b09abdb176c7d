#!/usr/bin/env bash
# test_install.sh — `make install` into a temporary prefix, then a user's view of it: the files
# and SONAME, examples/example.c built with `pkg-config --cflags --libs gemmkit` against the
# installed copy and run (shared, then static with `pkg-config --static`), the default BLAS error
# handlers (tests/blas/default_handlers.c), the installed CLI,
# a DESTDIR staging install, and `make uninstall`. Installs the build the tests run on
# ($GK_BUILD) without rebuilding it; works with or without the CUDA backend.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/blas_env.sh"

if ! command -v pkg-config >/dev/null 2>&1; then
    gk_report skip install "pkg-config not installed (apt-get install pkg-config)"
    exit 0
fi
[ -n "$gk_lib" ] || { gk_report FAIL install "no $GK_BUILD/lib/libgemmkit.so; build first"; exit 1; }

# Install exactly the build under test: same build directory and flavour, and `-o all` so the
# install recipe copies what was tested instead of rebuilding sources edited since.
mk=(make -s -C "$root" -o all "BUILD=$GK_BUILD")
san_flags=()
if [ "$gk_preload" != "$gk_lib" ]; then
    mk+=(SANITIZE=1)
    san_flags=(-fsanitize=address,undefined)
elif ! find "$root/$GK_BUILD/obj/src/cuda" -name '*.cu.o' 2>/dev/null | grep -q .; then
    mk+=(GK_CUDA=0)
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
status=0
fail() { gk_report FAIL "$1" "$2"; status=1; }

if ! "${mk[@]}" install PREFIX="$prefix" >"$tmp/install.log" 2>&1; then
    fail install "make install failed: $(tail -n 5 "$tmp/install.log" | tr '\n' ' ')"
    exit 1
fi
gk_report ok install

missing=
for f in include/gemmkit.h lib/libgemmkit.so.0.1.0 lib/libgemmkit.so.0 lib/libgemmkit.so \
    lib/libgemmkit.a lib/pkgconfig/gemmkit.pc bin/gemmkit; do
    [ -e "$prefix/$f" ] || missing="$missing $f"
done
soname=$(readelf -d "$prefix/lib/libgemmkit.so.0.1.0" 2>/dev/null | sed -n 's/.*SONAME.*\[\(.*\)\].*/\1/p')
if [ -n "$missing" ]; then
    fail install_layout "missing:$missing"
elif [ "$soname" != libgemmkit.so.0 ]; then
    fail install_layout "SONAME is '$soname', want libgemmkit.so.0"
elif [ "$(readlink "$prefix/lib/libgemmkit.so")" != libgemmkit.so.0.1.0 ]; then
    fail install_layout "libgemmkit.so -> $(readlink "$prefix/lib/libgemmkit.so")"
else
    gk_report ok install_layout
fi

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
# The example's output must show the exact product, the refused call and the CUDA state.
check_output() { # name, output file
    local why=
    grep -qx "gemmkit 0.1.0" "$2" || why="$why no version line;"
    grep -qx "  58 64" "$2" && grep -qx "  139 154" "$2" || why="$why wrong product;"
    grep -q "^lda=1 is refused: invalid leading dimension (gk_sgemm: lda=1" "$2" || why="$why no refused-lda line;"
    grep -q "^CUDA: " "$2" || why="$why no CUDA line;"
    if [ -n "$why" ]; then fail "$1" "$why output: $(tr '\n' '|' <"$2")"; else gk_report ok "$1"; fi
}

cflags=$(pkg-config --cflags gemmkit) && libs=$(pkg-config --libs gemmkit)
if ! ${CC:-cc} "${san_flags[@]}" "$root/examples/example.c" $cflags $libs -o "$tmp/ex_shared" 2>"$tmp/cc.log"; then
    fail example_shared "build with '$cflags $libs' failed: $(head -n 5 "$tmp/cc.log" | tr '\n' ' ')"
elif ! LD_LIBRARY_PATH=$prefix/lib ldd "$tmp/ex_shared" | grep -q "libgemmkit.so.0 => $prefix/lib/"; then
    fail example_shared "not linked to the installed libgemmkit.so.0: $(ldd "$tmp/ex_shared" | grep gemmkit)"
elif ! LD_LIBRARY_PATH=$prefix/lib "$tmp/ex_shared" >"$tmp/out_shared" 2>&1; then
    fail example_shared "exited non-zero: $(tr '\n' '|' <"$tmp/out_shared")"
else
    check_output example_shared "$tmp/out_shared"
fi

# Static: the archive by name (the directory also holds the .so) plus Libs.private.
slibs=$(pkg-config --static --libs gemmkit | sed 's/-lgemmkit\b/-l:libgemmkit.a/')
if ! ${CC:-cc} "${san_flags[@]}" "$root/examples/example.c" $cflags $slibs -o "$tmp/ex_static" 2>"$tmp/cc.log"; then
    fail example_static "build with '$slibs' failed: $(head -n 5 "$tmp/cc.log" | tr '\n' ' ')"
elif readelf -d "$tmp/ex_static" | grep -q 'NEEDED.*libgemmkit'; then
    fail example_static "still needs libgemmkit.so"
elif ! "$tmp/ex_static" >"$tmp/out_static" 2>&1; then
    fail example_static "exited non-zero: $(tr '\n' '|' <"$tmp/out_static")"
else
    check_output example_static "$tmp/out_static"
fi

# The default BLAS error handlers, as a program without its own sees them.
want_handlers=" ** On entry to SGEMM  parameter number 8 had an illegal value
Parameter 4 to routine cblas_sgemm was incorrect
Parameter 4 to routine cblas_sgemm was incorrect
Parameter 9 to routine cblas_sgemm was incorrect
Parameter 2 to routine cblas_sgemm was incorrect
Illegal TransA setting, 5"
if ! ${CC:-cc} "${san_flags[@]}" "$here/default_handlers.c" $cflags $libs -o "$tmp/handlers" 2>"$tmp/cc.log"; then
    fail default_blas_handlers "build failed: $(head -n 5 "$tmp/cc.log" | tr '\n' ' ')"
elif ! LD_LIBRARY_PATH=$prefix/lib "$tmp/handlers" >"$tmp/h.out" 2>"$tmp/h.err"; then
    fail default_blas_handlers "exited non-zero: $(tr '\n' '|' <"$tmp/h.err")"
elif [ "$(cat "$tmp/h.err")" != "$want_handlers" ] || [ "$(cat "$tmp/h.out")" != returned ]; then
    fail default_blas_handlers "stderr: $(tr '\n' '|' <"$tmp/h.err") stdout: $(cat "$tmp/h.out")"
else
    gk_report ok default_blas_handlers
fi

if [ "$("$prefix/bin/gemmkit" --version 2>&1)" = "gemmkit 0.1.0" ]; then
    gk_report ok installed_cli
else
    fail installed_cli "'gemmkit --version' said: $("$prefix/bin/gemmkit" --version 2>&1 | head -n 2)"
fi

# Packagers stage into DESTDIR while the .pc file names the final prefix.
if ! "${mk[@]}" install DESTDIR="$tmp/stage" PREFIX=/opt/gemmkit >"$tmp/stage.log" 2>&1; then
    fail install_destdir "make install DESTDIR failed: $(tail -n 3 "$tmp/stage.log" | tr '\n' ' ')"
elif [ ! -e "$tmp/stage/opt/gemmkit/lib/libgemmkit.so.0.1.0" ] ||
    ! grep -qx 'prefix=/opt/gemmkit' "$tmp/stage/opt/gemmkit/lib/pkgconfig/gemmkit.pc"; then
    fail install_destdir "staged tree or .pc prefix wrong: $(find "$tmp/stage" -type f | head -n 3)"
else
    gk_report ok install_destdir
fi

"${mk[@]}" uninstall PREFIX="$prefix" >"$tmp/uninstall.log" 2>&1
left=$(find "$prefix" \( -type f -o -type l \) | sed "s|$prefix/||" | tr '\n' ' ')
if [ -z "$left" ]; then gk_report ok uninstall; else fail uninstall "left behind: $left"; fi
exit $status
