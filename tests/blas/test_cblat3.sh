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
ctx='sgemm|FAIL|ILLEGAL|XERBLA'
gk_expect_line cblat3_error_exits "cblas_sgemm  PASSED THE TESTS OF ERROR-EXITS" out "$ctx" || status=1
gk_expect_line cblat3_column_major "cblas_sgemm  PASSED THE COLUMN-MAJOR COMPUTATIONAL TESTS" out "$ctx" || status=1
gk_expect_line cblat3_row_major "cblas_sgemm  PASSED THE ROW-MAJOR    COMPUTATIONAL TESTS" out "$ctx" || status=1
gk_expect_bound cblat3_bound_to_gemmkit xscblat3 cblas_sgemm cblas_xerbla "$tmp" stderr || status=1
exit $status
