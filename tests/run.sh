#!/usr/bin/env bash
# run.sh — runs every test program given on the command line (compiled binaries and test_*.sh /
# test_*.py scripts), echoes their "ok / FAIL / skip" lines, and ends with the totals line
# "N passed, N failed, N skipped". A program that exits non-zero without reporting a failure
# (a crash, a sanitizer report) counts as one failure. Exit status 1 if anything failed.
set -u
passed=0 failed=0 skipped=0
log_dir=${GK_TEST_LOG_DIR:-build/test-logs}
mkdir -p "$log_dir"
for prog in "$@"; do
    name=$(basename "$prog")
    log="$log_dir/$name.log"
    case "$prog" in
    *.py) cmd=("${GK_PYTHON:-/usr/bin/python3}" "$prog") ;;
    *.sh) cmd=(bash "$prog") ;;
    *) cmd=("$prog") ;;
    esac
    echo "== $name"
    timeout "${GK_TEST_TIMEOUT:-1500}" "${cmd[@]}" >"$log" 2>&1
    rc=$?
    grep -E '^(ok|FAIL|skip) ' "$log" || true
    p=$(grep -c '^ok ' "$log")
    f=$(grep -c '^FAIL ' "$log")
    s=$(grep -c '^skip ' "$log")
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "FAIL $name: exited with status $rc; last lines of $log:"
        tail -n 15 "$log" | sed 's/^/    /'
        f=1
    fi
    passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
