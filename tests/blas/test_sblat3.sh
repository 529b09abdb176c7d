#!/usr/bin/env bash
# test_sblat3.sh — runs netlib's Fortran Level-3 BLAS tester (xblat3s from Debian's libblas-test)
# with gemmkit's sgemm_ preloaded over the system BLAS, on the deck tests/blas/sblat3.in (SGEMM
# only: error exits plus every transposition / alpha / beta for sizes 0..33, checked by the tester
# against its own reference). It also proves the calls went to gemmkit: the dynamic linker's
# binding log shows sgemm_ bound to libgemmkit and gemmkit's xerbla_ call bound to the tester's
# own handler, and GEMMKIT_VERBOSE shows gemmkit's log line.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/blas_env.sh"

if [ -z "$gk_blas_dir" ]; then
    for t in sblat3_error_exits sblat3_computational sblat3_bound_to_gemmkit; do
        gk_report skip "$t" "netlib BLAS testers not installed (apt-get install libblas-test)"
    done
    exit 0
fi
[ -n "$gk_lib" ] || { gk_report FAIL sblat3 "no $GK_BUILD/lib/libgemmkit.so; build first"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
GEMMKIT_VERBOSE=1 LD_DEBUG=bindings LD_DEBUG_OUTPUT="$tmp/ld" LD_PRELOAD="$gk_preload" \
    "$gk_blas_dir/xblat3s" <"$here/sblat3.in" >stdout 2>stderr
rc=$?
out=sblat3.out # named in the deck
if [ "$rc" -ne 0 ] || [ ! -s "$out" ]; then
    gk_report FAIL sblat3 "xblat3s exited with $rc; stderr: $(tail -n 5 stderr | tr '\n' ' ')"
    exit 1
fi
status=0
ctx='SGEMM|FAIL|ILLEGAL'
gk_expect_line sblat3_error_exits "SGEMM  PASSED THE TESTS OF ERROR-EXITS" "$out" "$ctx" || status=1
gk_expect_line sblat3_computational "SGEMM  PASSED THE COMPUTATIONAL TESTS" "$out" "$ctx" || status=1
gk_expect_bound sblat3_bound_to_gemmkit xblat3s sgemm_ xerbla_ "$tmp" stderr || status=1
exit $status
