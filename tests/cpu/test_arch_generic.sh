#!/usr/bin/env bash
# test_arch_generic.sh — the CPU test programs again with GEMMKIT_ARCH=generic, the portable kernel
# family a CPU without AVX2 gets: every call that takes the library's default family (the planner's
# shapes, the "auto" low-precision kernel, the format conversions that follow gk_set_arch) then
# meets the 8 x 4 micro-tile and its blocking instead of this machine's. Case names get a
# "generic_" prefix; logs are $GK_TEST_LOG_DIR/generic_<program>.log. Left out: test_ukernels,
# test_small, test_sgemm_random and test_reproducible, which run every family the CPU has
# whatever the default (generic included) and so would repeat themselves, and test_parallel (the
# thread pool, no kernel).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/cpu/cpu_pass_lib.sh
build=${GK_BUILD:-build}
if [ ! -x "$build/tests/cpu/test_ukernels" ]; then
    echo "skip arch_generic: the CPU tests are not built in $build (make tests)"
    exit 0
fi
export GEMMKIT_ARCH=generic
RUNNER=()
mapfile -t progs < <(cpu_test_programs "$build" test_ukernels test_small test_sgemm_random \
    test_reproducible test_parallel)
failed=0
for prog in "${progs[@]}"; do
    case "$prog" in
    */test_gemm_ex_cpu) GK_TEST_CASES=16 run_pass generic_ "$prog" || failed=1 ;;
    *) run_pass generic_ "$prog" || failed=1 ;;
    esac
done
exit $failed
