# cpu_pass_lib.sh — sourced by test_avx2_emulated.sh and test_arch_generic.sh, which run the CPU
# test programs a second time in another setting (an emulated CPU without AVX-512, the portable
# kernel family) to catch tests that hold only on the machine at hand.

# The compiled CPU test programs of the build directory $1 (tests/{core,cpu,formats,blas}), minus
# the names given after it, one path a line.
cpu_test_programs() {
    local build=$1 prog name skip
    shift
    for prog in "$build"/tests/{core,cpu,formats,blas}/test_*; do
        [ -x "$prog" ] && [ -f "$prog" ] || continue
        name=$(basename "$prog")
        for skip in "$@"; do [ "$name" = "$skip" ] && continue 2; done
        echo "$prog"
    done
}

# run_pass PREFIX PROGRAM... with RUNNER (an array, may be empty) put before each program and the
# caller's environment: prints each program's ok/FAIL/skip lines with PREFIX added to the case
# names, and a FAIL line for a program that exits non-zero without reporting one (a crash).
# Full output: $GK_TEST_LOG_DIR/PREFIXprogram.log. Returns 1 if anything failed.
run_pass() {
    local prefix=$1 prog name log rc failed=0
    shift
    local log_dir=${GK_TEST_LOG_DIR:-build/test-logs}
    mkdir -p "$log_dir"
    for prog in "$@"; do
        name=$(basename "$prog")
        log="$log_dir/$prefix$name.log"
        "${RUNNER[@]}" "$prog" >"$log" 2>&1
        rc=$?
        sed -nE "s/^(ok|FAIL|skip) /\\1 $prefix/p" "$log"
        if grep -q '^FAIL ' "$log"; then
            failed=1
        elif [ "$rc" -ne 0 ]; then
            echo "FAIL $prefix$name: exited with status $rc; last lines of $log:"
            grep -v "TCG doesn't support requested feature" "$log" | tail -n 15 | sed 's/^/    /'
            failed=1
        fi
    done
    return $failed
}
