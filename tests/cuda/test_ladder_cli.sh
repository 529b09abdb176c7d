#!/usr/bin/env bash
# test_ladder_cli.sh — `gemmkit ladder` end to end: option handling (runs everywhere a CUDA build
# exists) and, on a GPU, a small real run whose CSV/JSON must list every selected variant with a
# passed check and a positive time. Skips without the CUDA backend or without a device.
set -u
BUILD=${GK_BUILD:-build}
GK=$BUILD/bin/gemmkit
PY=${GK_PYTHON:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ ! -x "$GK" ]; then
    for c in options small_run kernel_filter; do echo "skip ladder_$c: $GK not built"; done
    exit 0
fi
if ! "$GK" ladder --help 2>/dev/null | grep -q '^usage: gemmkit ladder'; then
    for c in options small_run kernel_filter; do echo "skip ladder_$c: no CUDA backend in this build"; done
    exit 0
fi

# options: bad input is a usage error (status 2) before any device work
why=""
"$GK" ladder --bogus >/dev/null 2>&1; [ $? -eq 2 ] || why="--bogus not rejected with status 2"
"$GK" ladder --sizes 0 >/dev/null 2>&1; [ $? -eq 2 ] || why="--sizes 0 not rejected"
"$GK" ladder --sizes 12,x >/dev/null 2>&1; [ $? -eq 2 ] || why="--sizes 12,x not rejected"
"$GK" ladder --reps 1 >/dev/null 2>&1; [ $? -eq 2 ] || why="--reps 1 not rejected"
[ -z "$why" ] && echo "ok ladder_options" || echo "FAIL ladder_options: $why"

"$GK" ladder --sizes 256 --reps 3 --budget 0.2 --no-plot --out "$tmp/all" >"$tmp/all.txt" 2>"$tmp/all.err"
rc=$?
if grep -q -i 'no CUDA device' "$tmp/all.err"; then
    echo "skip ladder_small_run: no CUDA device"
    echo "skip ladder_kernel_filter: no CUDA device"
    exit 0
fi

# every registry kernel appears once at n = 256 with an ok check (or n/a for a too-old GPU)
"$PY" - "$tmp/all/gpu_ladder.csv" "$tmp/all/gpu_ladder.json" "$rc" "$GK" >"$tmp/check.txt" 2>&1 <<'PYEOF'
import csv, json, subprocess, sys
path, jpath, rc, gk = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
rows = list(csv.DictReader(open(path)))
json.load(open(jpath))
kern = subprocess.run([gk, "kernels"], capture_output=True, text=True).stdout
names = [r["variant"] for r in rows if r["kind"] == "gemmkit"]
problems = []
if rc != 0:
    problems.append(f"exit status {rc}")
for r in rows:
    if r["check"].startswith("n/a"):
        continue
    if not r["check"].startswith("ok"):
        problems.append(f"{r['variant']}: {r['check']}")
    elif not float(r["ms_median"]) > 0:
        problems.append(f"{r['variant']}: time {r['ms_median']}")
missing = [n for n in names if n not in kern]
if missing:
    problems.append(f"variants not in `gemmkit kernels`: {missing}")
if len(set(names)) != len(names) or not names:
    problems.append(f"gemmkit rows: {names}")
print("; ".join(problems) if problems else "")
sys.exit(1 if problems else 0)
PYEOF
if [ $? -eq 0 ]; then echo "ok ladder_small_run"; else echo "FAIL ladder_small_run: $(head -c 400 "$tmp/check.txt")"; fi

"$GK" ladder --sizes 100 --kernels 01,02_coalesced --no-cublas --reps 3 --budget 0.1 --no-plot \
    --out "$tmp/filt" >/dev/null 2>&1
n=$(grep -c ',gemmkit,' "$tmp/filt/gpu_ladder.csv" 2>/dev/null)
c=$(grep -c ',cublas,' "$tmp/filt/gpu_ladder.csv" 2>/dev/null)
if [ "$n" = 2 ] && [ "$c" = 0 ]; then echo "ok ladder_kernel_filter"; else
    echo "FAIL ladder_kernel_filter: $n gemmkit rows (want 2), $c cublas rows (want 0)"; fi
exit 0
