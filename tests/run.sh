#!/usr/bin/env bash
# run.sh — runs every test program given on the command line (compiled binaries and test_*.sh /
# test_*.py scripts), echoes their "ok / FAIL / skip" lines, and ends with the totals line
# "N passed, N failed, N skipped". A program that exits non-zero without reporting a failure
# (a crash, a sanitizer report) counts as one failure. Exit status 1 if anything failed.
#
# GK_TEST_JOBS programs run at once (default 2, and 1 where an NVIDIA device node exists: the GPU
# tests assume the device to themselves, e.g. workspace_out_of_memory fills its memory). Output
# keeps the command line's order: a program's block ("== name (seconds)", then its lines) is
# printed once it and every program before it have finished. Logs: $GK_TEST_LOG_DIR/<name>.log
# (<dir>_<name>.log where two programs share a name), and times.txt there, slowest first.
set -u
log_dir=${GK_TEST_LOG_DIR:-build/test-logs}
if [ -n "${GK_TEST_JOBS:-}" ]; then
    jobs=$GK_TEST_JOBS
elif [ -e /dev/nvidia0 ]; then
    jobs=1
else
    jobs=2
fi
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
mkdir -p "$log_dir"
state=$(mktemp -d) || exit 1
trap 'rm -rf "$state"' EXIT
# Background programs ignore SIGINT in a script: stop the running ones (timeout passes the signal
# on to its program) before leaving.
trap 'for f in "$state"/*.pid; do [ -e "$f" ] && kill -TERM "$(cat "$f")" 2>/dev/null; done; exit 130' INT TERM

progs=("$@")
n=${#progs[@]}
declare -A uses=()
for prog in "${progs[@]}"; do
    b=$(basename "$prog")
    uses[$b]=$((${uses[$b]:-0} + 1))
done
names=() logs=()
for prog in "${progs[@]}"; do
    b=$(basename "$prog")
    [ "${uses[$b]}" -gt 1 ] && b="$(basename "$(dirname "$prog")")_$b"
    names+=("$b")
    logs+=("$log_dir/$b.log")
done

# Run program i in the background; $state/i holds "exit-status seconds" when it is done.
start() {
    local i=$1 prog=${progs[$1]} cmd
    case "$prog" in
    *.py) cmd=("${GK_PYTHON:-/usr/bin/python3}" "$prog") ;;
    *.sh) cmd=(bash "$prog") ;;
    *) cmd=("$prog") ;;
    esac
    (
        t0=$(date +%s%N)
        timeout "${GK_TEST_TIMEOUT:-1500}" "${cmd[@]}" >"${logs[i]}" 2>&1 &
        echo $! >"$state/$i.pid"
        wait $!
        rc=$?
        rm -f "$state/$i.pid"
        t1=$(date +%s%N)
        { echo "$rc $(((t1 - t0) / 1000000))" >"$state/$i.tmp" && mv "$state/$i.tmp" "$state/$i"; } 2>/dev/null
    ) &
}

passed=0 failed=0 skipped=0
next=0 shown=0
: >"$state/times"
while [ "$shown" -lt "$n" ]; do
    # keep `jobs` programs running: those started and not yet finished
    running=0
    for ((i = shown; i < next; i++)); do [ -e "$state/$i" ] || running=$((running + 1)); done
    while [ "$running" -lt "$jobs" ] && [ "$next" -lt "$n" ]; do
        start "$next"
        next=$((next + 1)) running=$((running + 1))
    done
    if [ ! -e "$state/$shown" ]; then
        sleep 0.2
        continue
    fi
    read -r rc ms <"$state/$shown"
    name=${names[shown]} log=${logs[shown]}
    secs=$((ms / 1000)).$((ms % 1000 / 100))
    echo "== $name ($secs s)"
    echo "$secs $name" >>"$state/times"
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
    shown=$((shown + 1))
done
sort -rn "$state/times" >"$log_dir/times.txt"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
