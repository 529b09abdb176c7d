#!/usr/bin/env bash
# test_cblat3.sh — runs netlib's CBLAS Level-3 tester (xscblat3 from Debian's libblas-test) with
# gemmkit's cblas_sgemm preloaded, on the deck tests/blas/scblat3.in (cblas_sgemm only: error
# exits with the reference CBLAS numbering in both layouts, and column- and row-major results for
# sizes 0..33). The tester needs reference CBLAS's RowMajorStrg variable, which only the reference
# BLAS in the testers' directory defines, so that library stands in for the system BLAS and
# gemmkit is preloaded over it. The linker's binding log and GEMMKIT_VERBOSE prove gemmkit ran.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/blas_env.sh"

if [ -z "$gk_blas_dir" ] || [ ! -x "$gk_blas_dir/xscblat3" ]; then
    for t in cblat3_error_exits cblat3_column_major cblat3_row_major cblat3_bound_to_gemmkit; do
        gk_report skip "$t" "netlib CBLAS testers not installed (apt-get install libblas-test)"
    done
    exit 0
fi
[ -n "$gk_lib" ] || { gk_report FAIL cblat3 "no $GK_BUILD/lib/libgemmkit.so; build first"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
GEMMKIT_VERBOSE=1 LD_DEBUG=bindings LD_DEBUG_OUTPUT="$tmp/ld" LD_PRELOAD="$gk_preload" \
    LD_LIBRARY_PATH="$gk_blas_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    "$gk_blas_dir/xscblat3" <"$here/scblat3.in" >out 2>stderr
rc=$?
if [ "$rc" -ne 0 ]; then
    gk_report FAIL cblat3 "xscblat3 exited with $rc; $(tail -n 5 out stderr | tr '\n' ' ')"
    exit 1
fi
status=0
check() { # name, pattern that must appear in the tester's output
    if grep -q "$2" out; then gk_report ok "$1"; else
        gk_report FAIL "$1" "'$2' not in the tester's output: $(grep -E 'sgemm|FAIL|ILLEGAL|XERBLA' out | head -n 3 | tr '\n' ' ')"
        status=1
    fi
}
check cblat3_error_exits "cblas_sgemm  PASSED THE TESTS OF ERROR-EXITS"
check cblat3_column_major "cblas_sgemm  PASSED THE COLUMN-MAJOR COMPUTATIONAL TESTS"
check cblat3_row_major "cblas_sgemm  PASSED THE ROW-MAJOR    COMPUTATIONAL TESTS"

bind_sgemm=$(cat "$tmp"/ld.* | grep -c "xscblat3 .* to .*libgemmkit[^ ]* .*symbol \`cblas_sgemm'")
bind_xerbla=$(cat "$tmp"/ld.* | grep -c "libgemmkit[^ ]* .* to .*xscblat3 .*symbol \`cblas_xerbla'")
if [ "$bind_sgemm" -ge 1 ] && [ "$bind_xerbla" -ge 1 ] && grep -q "gemmkit: cblas_sgemm called" stderr; then
    gk_report ok cblat3_bound_to_gemmkit
else
    gk_report FAIL cblat3_bound_to_gemmkit "cblas_sgemm->gemmkit bindings $bind_sgemm, cblas_xerbla->tester $bind_xerbla, verbose line $(grep -c 'gemmkit: cblas_sgemm called' stderr)"
    status=1
fi
exit $status
