#!/usr/bin/env bash
# test_avx2_emulated.sh — the CPU test programs on a CPU without AVX-512, on any development
# machine: they run under QEMU's user-mode emulator (qemu-x86_64 from Debian's qemu-user) as an
# AVX2 + FMA CPU, `-cpu Haswell` (GK_QEMU_CPU picks another model: EPYC-Milan is a Zen 3 with its
# 512 KiB L2 and 32 MiB L3). QEMU 7.2's TCG runs AVX2 and FMA and has no AVX-512, so a test that
# calls AVX-512 code without the library's usability check dies with SIGILL here, and one whose
# shapes assume this machine's kernel family or caches fails. Case names get a "haswell_" prefix
# (the model's name in lower case); logs are $GK_TEST_LOG_DIR/haswell_<program>.log.
#
# First the emulated CPU is checked: `gemmkit info` under it must report AVX2 and FMA and no
# AVX-512, and the AVX2 micro-kernel must then pass test_ukernels while the AVX-512 one reports
# skip (so AVX2 code really ran). Then every CPU test program runs except these, which call no
# ISA-specific code directly (the library's dispatch picks their kernels) and would take minutes
# under TCG or hit the emulator's fork defect below: test_alloc_fail, test_parallel, test_fork,
# test_chunks, test_concurrency, test_reproducible. test_gemm_ex_cpu, test_sgemm_random and
# test_sgemm_batched run fewer random shapes (GK_TEST_CASES). docs/testing.md says what this costs.
#
# The programs see GK_TEST_EMULATOR, naming the emulator: cases that meet its known defects report
# skip (QEMU 7.2 aborts a child forked from a threaded process once the child starts a thread, and
# its VMASKMOVPS faults on masked-off lanes that lie on an inaccessible page).
# skip when qemu-x86_64 is missing (scripts/deps.sh installs qemu-user as root) or cannot emulate
# AVX2, or when this is not an x86-64 machine.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/cpu/cpu_pass_lib.sh
build=${GK_BUILD:-build}
cpu=${GK_QEMU_CPU:-Haswell}
prefix="$(echo "$cpu" | tr 'A-Z-' 'a-z_')_"
name=${prefix}emulated

if [ "$(uname -m)" != x86_64 ]; then
    echo "skip $name: not an x86-64 machine"
    exit 0
fi
qemu=$(command -v qemu-x86_64 || command -v qemu-x86_64-static)
if [ -z "$qemu" ]; then
    echo "skip $name: qemu-x86_64 not found (Debian: apt-get install qemu-user)"
    exit 0
fi
if [ ! -x "$build/bin/gemmkit" ] || [ ! -x "$build/tests/cpu/test_ukernels" ]; then
    echo "skip $name: $build/bin/gemmkit or the CPU tests are not built (make all tests)"
    exit 0
fi
if grep -qa __asan_init "$build/bin/gemmkit"; then
    echo "skip $name: a sanitizer build (SANITIZE=1): ASan's shadow memory does not fit under the emulator"
    exit 0
fi
version=$("$qemu" --version | sed -n '1s/.*version \([0-9.]*\).*/\1/p')
export GK_TEST_EMULATOR="qemu-x86_64 $version -cpu $cpu"
RUNNER=("$qemu" -cpu "$cpu")

info=$("${RUNNER[@]}" "$build/bin/gemmkit" info 2>/dev/null)
rc=$?
isa=$(grep -m1 '^ *ISA' <<<"$info")
echo "# $GK_TEST_EMULATOR:$isa"
if [ $rc -ne 0 ]; then # SIGILL here: the library itself runs an instruction this CPU lacks
    echo "FAIL ${prefix}emulated_cpu: gemmkit info exits with status $rc under $GK_TEST_EMULATOR"
    exit 1
fi
case "$isa" in
*avx2=yes\ fma=yes\ avx512f=no*) ;;
*avx512f=yes*)
    echo "FAIL ${prefix}emulated_cpu: the emulated CPU reports AVX-512 ($isa): this pass would test nothing"
    exit 1
    ;;
*)
    echo "skip $name: $GK_TEST_EMULATOR does not run gemmkit as an AVX2+FMA CPU (got \"$isa\"; QEMU 7.2 or later does)"
    exit 0
    ;;
esac

failed=0
run_pass "$prefix" "$build/tests/cpu/test_ukernels" || failed=1
ulog="${GK_TEST_LOG_DIR:-build/test-logs}/${prefix}test_ukernels.log"
if grep -q '^ok ukr_avx2_16x6_edges' "$ulog" && grep -q '^skip ukr_avx512_32x12_edges' "$ulog"; then
    echo "ok ${prefix}emulated_cpu (AVX2 kernels ran, AVX-512 ones skipped)"
else
    echo "FAIL ${prefix}emulated_cpu: test_ukernels did not pass the AVX2 kernel and skip the AVX-512 one under $GK_TEST_EMULATOR"
    failed=1
fi
mapfile -t progs < <(cpu_test_programs "$build" test_ukernels test_alloc_fail test_parallel test_fork \
    test_chunks test_concurrency test_reproducible)
for prog in "${progs[@]}"; do
    case "$prog" in
    */test_gemm_ex_cpu) cases=16 ;;
    */test_sgemm_random | */test_sgemm_batched) cases=60 ;;
    *) cases= ;;
    esac
    if [ -n "$cases" ]; then
        GK_TEST_CASES=$cases run_pass "$prefix" "$prog" || failed=1
    else
        run_pass "$prefix" "$prog" || failed=1
    fi
done
exit $failed
