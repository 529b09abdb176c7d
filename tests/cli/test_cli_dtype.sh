#!/usr/bin/env bash
# test_cli_dtype.sh — the mixed-precision paths of the CLI: `gemmkit run --dtype` and `gemmkit bench
# --dtype`. Everywhere: option handling (bad types, sizes, a CPU or --kernel request with a
# mixed type are usage errors, status 2; --dtype f32 keeps the CPU's float32 path). On a GPU: a
# small checked run of every dtype in both layouts (PASS, exit 0), and a small benchmark whose
# CSV/JSON hold a row per size and dtype with gemmkit's check passed (or the library's n/a) and,
# where cuBLASLt answered, the peer's too. Without the CUDA backend or a device those cases skip.
set -u
cli=${GK_BUILD:-build}/bin/gemmkit
PY=${GK_PYTHON:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ ! -x "$cli" ]; then
    echo "FAIL cli_dtype_exists: $cli not built"
    exit 1
fi

# expect NAME STATUS PATTERN -- COMMAND...: exit status must be STATUS and output match PATTERN.
expect() {
    local name=$1 want=$2 pat=$3
    shift 4
    "$@" >"$tmp/out" 2>&1
    local rc=$?
    if [ "$rc" -ne "$want" ]; then
        echo "FAIL $name: exit $rc, expected $want; output: $(tail -n 3 "$tmp/out" | tr '\n' ' ')"
    elif ! grep -Eq -- "$pat" "$tmp/out"; then
        echo "FAIL $name: output lacks /$pat/: $(tail -n 3 "$tmp/out" | tr '\n' ' ')"
    else
        echo "ok $name"
    fi
}

expect dtype_run_help 0 '--dtype D' -- "$cli" run --help
expect dtype_bench_help 0 'cuBLASLt' -- "$cli" bench --dtype bf16 --help
expect dtype_bench_mentioned 0 'gemmkit bench --dtype' -- "$cli" bench --help
expect dtype_run_bad_type 2 "bad value 'bf17' for --dtype" -- "$cli" run --device gpu --dtype bf17 -m 4 -n 4 -k 4
expect dtype_run_bad_pair 2 "bad value 'e4m3:' for --dtype" -- "$cli" run --device gpu --dtype e4m3: -m 4 -n 4 -k 4
expect dtype_run_bad_out 2 "bad value 'f64' for --out-dtype" -- "$cli" run --device gpu --dtype bf16 --out-dtype f64 -m 4 -n 4 -k 4
expect dtype_run_needs_gpu 2 'GPU only; add --device gpu' -- "$cli" run --dtype bf16 -m 4 -n 4 -k 4
expect dtype_run_out_needs_gpu 2 'GPU only' -- "$cli" run --out-dtype bf16 -m 4 -n 4 -k 4
expect dtype_run_no_kernel 2 'does not combine' -- "$cli" run --device gpu --dtype 3xtf32 --kernel 0 -m 4 -n 4 -k 4
expect dtype_run_f32_cpu 0 '^PASS' -- "$cli" run --dtype f32 --out-dtype float32 -m 33 -n 17 -k 9
expect dtype_bench_bad_type 2 "bad value 'bf16,int8' for --dtype" -- "$cli" bench --dtype bf16,int8
expect dtype_bench_bad_range 2 "bad value '1024:512:1' for --sizes" -- "$cli" bench --dtype bf16 --sizes 1024:512:1
expect dtype_bench_bad_step 2 "for --sizes" -- "$cli" bench --dtype bf16 --sizes 64:128:0
expect dtype_bench_cpu 2 "bad value 'cpu' for --device" -- "$cli" bench --dtype bf16 --device cpu
expect dtype_bench_unknown 2 "unknown option '--threads'" -- "$cli" bench --dtype bf16 --threads 2
expect dtype_bench_too_many 2 'for --sizes' -- "$cli" bench --dtype bf16 --sizes 1:65:1

# On the GPU: does this build and machine run the mixed-precision GEMM at all?
"$cli" run --device gpu --dtype bf16 -m 8 -n 8 -k 8 --reps 1 >"$tmp/probe" 2>&1
if grep -Eq 'no CUDA backend|no usable CUDA device' "$tmp/probe"; then
    why=$(grep -Eo 'no CUDA backend|no usable CUDA device' "$tmp/probe" | head -1)
    for c in run_all_types bench_small; do echo "skip dtype_$c: $why"; done
    exit 0
fi

# every dtype, both layouts, awkward sizes, beta != 0 into C, and non-default transpositions
why=""
for dt in f32 3xtf32 tf32 bf16 f16 e4m3 e5m2:e4m3 e4m3:e5m2; do
    for layout in col row; do
        args=(run --device gpu --dtype "$dt" --layout "$layout" -m 67 -n 45 -k 129 --reps 2)
        "$cli" "${args[@]}" --ta t --beta 0.5 >"$tmp/run" 2>&1
        rc=$?
        [ $rc -eq 0 ] && grep -q '^PASS' "$tmp/run" ||
            why="$why; $dt $layout: exit $rc $(grep -E 'check:|failed' "$tmp/run" | head -1)"
    done
done
"$cli" run --device gpu --dtype bf16 --out-dtype f32 -m 130 -n 1 -k 257 >"$tmp/run" 2>&1 ||
    why="$why; bf16 -> f32 130x1x257: $(tail -1 "$tmp/run")"
if [ -z "$why" ]; then echo "ok dtype_run_all_types"; else echo "FAIL dtype_run_all_types: ${why#; }"; fi

"$cli" bench --dtype bf16,e4m3,3xtf32 --sizes 256,96x80x200 --reps 3 --rounds 2 --warmup 1 \
    --no-plot --out "$tmp/tc" >"$tmp/bench.txt" 2>"$tmp/bench.err"
rc=$?
"$PY" - "$tmp/tc/gpu_tc.csv" "$tmp/tc/gpu_tc.json" "$rc" >"$tmp/check.txt" 2>&1 <<'PYEOF'
import csv, json, sys
path, jpath, rc = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = list(csv.DictReader(open(path)))
doc = json.load(open(jpath))
problems = []
if rc != 0:
    problems.append(f"exit status {rc}")
if len(rows) != 6 or len(doc["results"]) != 6:
    problems.append(f"{len(rows)} CSV rows, {len(doc['results'])} JSON results (want 6)")
for r in rows:
    what = f"{r['dtype']} {r['m']}x{r['n']}x{r['k']}"
    if r["gk_check"] != "ok" and not r["gk_check"].startswith("n/a"):
        problems.append(f"{what}: gemmkit {r['gk_check']}")
    if r["gk_check"] == "ok" and not float(r["gk_ms_median"]) > 0:
        problems.append(f"{what}: gemmkit time {r['gk_ms_median']}")
    if r["peer_check"] != "ok" and not r["peer_check"].startswith("n/a"):
        problems.append(f"{what}: peer {r['peer_check']}")
    if r["dtype"] == "e4m3" and r["trans"] != "TN":
        problems.append(f"{what}: FP8 default layout {r['trans']}, want TN")
print("; ".join(problems))
sys.exit(1 if problems else 0)
PYEOF
if [ $? -eq 0 ]; then echo "ok dtype_bench_small"; else
    echo "FAIL dtype_bench_small: $(head -c 600 "$tmp/check.txt") $(tail -n 3 "$tmp/bench.err" | tr '\n' ' ')"; fi
exit 0
