#!/usr/bin/env bash
# test_cli_dtype.sh — the mixed-precision paths of the CLI: `gemmkit run --dtype` and `gemmkit bench
# --dtype`, block-scaled types (e4m3-b128, mxfp8, mxfp6, mxfp6-e3m2, mxfp4) included. Everywhere:
# option handling (bad types, sizes, a CPU request with a type the CPU lacks or --kernel with a
# mixed type are usage errors, status 2; --dtype f32 keeps the CPU's float32 path; bf16/f16 run
# gk_gemm_ex on the CPU, `gemmkit bench --device cpu --dtype` its benchmark), and every block-scaled name parses: on a
# machine without a GPU `gemmkit run` says the GPU is needed (status 1, no crash) and `gemmkit
# bench` that it skips. On a GPU: a small checked run of every dtype in both layouts (PASS, exit
# 0), and a small benchmark whose CSV/JSON hold a row per size, dtype and peer with gemmkit's
# check passed (or the library's n/a) and, where cuBLASLt answered, the peer's too; cuBLASLt's
# per-tensor FP8 must answer wherever its BF16 does (it once failed every call with status 15).
# Without the CUDA backend or a device those cases skip.
set -u
. "$(dirname "$0")/cli_lib.sh"
cli_setup cli_dtype
PY=${GK_PYTHON:-python3}

expect dtype_run_help 0 '--dtype D' -- "$cli" run --help
expect dtype_bench_help 0 'cuBLASLt' -- "$cli" bench --dtype bf16 --help
expect dtype_bench_mentioned 0 'gemmkit bench --dtype' -- "$cli" bench --help
expect dtype_run_bad_type 2 "bad value 'bf17' for --dtype" -- "$cli" run --device gpu --dtype bf17 -m 4 -n 4 -k 4
expect dtype_run_bad_pair 2 "bad value 'e4m3:' for --dtype" -- "$cli" run --device gpu --dtype e4m3: -m 4 -n 4 -k 4
expect dtype_run_bad_out 2 "bad value 'f64' for --out-dtype" -- "$cli" run --device gpu --dtype bf16 --out-dtype f64 -m 4 -n 4 -k 4
expect dtype_run_needs_gpu 2 'GPU only; add --device gpu' -- "$cli" run --dtype e4m3 -m 4 -n 4 -k 4
expect dtype_run_bf16_cpu 0 '^PASS' -- "$cli" run --dtype bf16 -m 33 -n 17 -k 9 --layout row --ta t --beta 0.5
expect dtype_run_fp16_cpu 0 '^PASS' -- "$cli" run --dtype fp16 --out-dtype f32 -m 20 -n 31 -k 40
expect dtype_run_out_bf16_cpu 0 '^PASS' -- "$cli" run --out-dtype bf16 -m 4 -n 4 -k 4
expect dtype_run_pair_needs_gpu 2 'GPU only' -- "$cli" run --dtype bf16:f16 -m 4 -n 4 -k 4
expect dtype_run_no_kernel 2 'does not combine' -- "$cli" run --device gpu --dtype 3xtf32 --kernel 0 -m 4 -n 4 -k 4
expect run_gpu_all_f32_only 2 'does not combine' -- "$cli" run --device gpu:all --dtype bf16 -m 4 -n 4 -k 4
# --device gpu:all (host operands over every GPU): PASS where a device answers, else refused cleanly
"$cli" run --device gpu:all -m 300 -n 200 -k 130 --ta t --beta 0.5 --reps 1 >"$tmp/all.out" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q 'no usable CUDA device\|no CUDA backend' "$tmp/all.out"; then
    echo "skip run_gpu_all: no CUDA device"
elif [ $rc -eq 0 ] && grep -q '^PASS' "$tmp/all.out"; then
    echo "ok run_gpu_all"
else
    echo "FAIL run_gpu_all: exit $rc; output: $(tail -n 3 "$tmp/all.out" | tr '\n' ' ')"
fi
expect dtype_run_f32_cpu 0 '^PASS' -- "$cli" run --dtype f32 --out-dtype float32 -m 33 -n 17 -k 9
expect dtype_bench_bad_type 2 "bad value 'bf16,int8' for --dtype" -- "$cli" bench --dtype bf16,int8
expect dtype_bench_bad_range 2 "bad value '1024:512:1' for --sizes" -- "$cli" bench --dtype bf16 --sizes 1024:512:1
expect dtype_bench_bad_step 2 "for --sizes" -- "$cli" bench --dtype bf16 --sizes 64:128:0
expect dtype_bench_cpu 0 'gemmkit-ex' -- "$cli" bench --dtype bf16 --device cpu --sizes 48,64 --min-time 0
expect dtype_bench_cpu_fp16 0 'no FP16 GEMM' -- "$cli" bench --device cpu --dtype fp16 --sizes 40 --min-time 0
expect dtype_bench_cpu_bad 2 "bad value 'e4m3' for --dtype" -- "$cli" bench --device cpu --dtype e4m3
expect dtype_bench_unknown 2 "unknown option '--threads'" -- "$cli" bench --dtype bf16 --threads 2
# one size more than BENCH_TC_MAX_SHAPES (bench/bench.h) allows
expect dtype_bench_too_many 2 'for --sizes' -- "$cli" bench --dtype bf16 --sizes 1:257:1
scaled="e4m3-b128 mxfp8 mxfp6 mxfp6-e3m2 mxfp4"
expect dtype_scaled_run_help 0 'e4m3-b128 mxfp8 mxfp6 mxfp6-e3m2 mxfp4' -- "$cli" run --help
expect dtype_scaled_bench_help 0 'mxfp6-e3m2 +OCP MXFP6: float6_e3m2fn' -- "$cli" bench --dtype mxfp4 --help
expect dtype_scaled_bad_name 2 "bad value 'mxfp5' for --dtype" -- "$cli" run --device gpu --dtype mxfp5 -m 4 -n 4 -k 4
expect dtype_scaled_no_pair 2 "bad value 'mxfp8:e4m3' for --dtype" -- "$cli" run --device gpu --dtype mxfp8:e4m3 -m 4 -n 4 -k 4
expect dtype_scaled_needs_gpu 2 'GPU only; add --device gpu' -- "$cli" run --dtype mxfp8 -m 4 -n 4 -k 4
expect dtype_scaled_bench_bad 2 "bad value 'bf16,mxfp8,e4m3-b256' for --dtype" -- "$cli" bench --dtype bf16,mxfp8,e4m3-b256

# Every block-scaled name parses and runs, or says why it cannot here: PASS on a GPU; without one
# (or without the CUDA backend) status 1 naming that, never a crash or a usage error.
why=""
for dt in $scaled; do
    "$cli" run --device gpu --dtype "$dt" -m 8 -n 8 -k 8 --reps 1 >"$tmp/scaled" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q '^PASS' "$tmp/scaled"; then continue; fi
    if [ $rc -eq 1 ] && grep -Eq 'no CUDA backend|no usable CUDA device' "$tmp/scaled"; then continue; fi
    why="$why; $dt: exit $rc: $(tail -n 2 "$tmp/scaled" | tr '\n' ' ')"
done
if [ -z "$why" ]; then echo "ok dtype_scaled_names_run"; else echo "FAIL dtype_scaled_names_run: ${why#; }"; fi
# --fp8-fast-accum has no meaning for gk_cuda_gemm_scaled: a usage error (or, first, no GPU)
"$cli" run --device gpu --dtype mxfp8 --fp8-fast-accum -m 8 -n 8 -k 8 >"$tmp/scaled" 2>&1
rc=$?
if { [ $rc -eq 2 ] && grep -q 'does not apply to block-scaled' "$tmp/scaled"; } ||
    { [ $rc -eq 1 ] && grep -Eq 'no CUDA backend|no usable CUDA device' "$tmp/scaled"; }; then
    echo "ok dtype_scaled_no_fast_accum"
else
    echo "FAIL dtype_scaled_no_fast_accum: exit $rc: $(tail -n 2 "$tmp/scaled" | tr '\n' ' ')"
fi
# the benchmark parses every name, then runs or says it skips
"$cli" bench --dtype "$(echo $scaled | tr ' ' ',')" --sizes 128 --reps 1 --warmup 0 --no-plot \
    --out "$tmp/scaled-bench" >"$tmp/scaled" 2>&1
rc=$?
if { [ $rc -eq 0 ] && grep -Eq 'benchmark is skipped|^mxfp4 ' "$tmp/scaled"; }; then
    echo "ok dtype_scaled_bench_names"
else
    echo "FAIL dtype_scaled_bench_names: exit $rc: $(tail -n 3 "$tmp/scaled" | tr '\n' ' ')"
fi

# On the GPU: does this build and machine run the mixed-precision GEMM at all?
"$cli" run --device gpu --dtype bf16 -m 8 -n 8 -k 8 --reps 1 >"$tmp/probe" 2>&1
if grep -Eq 'no CUDA backend|no usable CUDA device' "$tmp/probe"; then
    why=$(grep -Eo 'no CUDA backend|no usable CUDA device' "$tmp/probe" | head -1)
    for c in run_all_types bench_small; do echo "skip dtype_$c: $why"; done
    exit 0
fi

# every dtype, both layouts, awkward sizes, beta != 0 into C, and non-default transpositions
why=""
for dt in f32 3xtf32 tf32 bf16 f16 e4m3 e5m2:e4m3 e4m3:e5m2 $scaled; do
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

"$cli" bench --dtype bf16,e4m3,3xtf32,e4m3-b128,mxfp4 --sizes 256,96x80x200 --reps 3 --rounds 2 \
    --warmup 1 --no-plot --out "$tmp/tc" >"$tmp/bench.txt" 2>"$tmp/bench.err"
rc=$?
"$PY" - "$tmp/tc/gpu_tc.csv" "$tmp/tc/gpu_tc.json" "$rc" >"$tmp/check.txt" 2>&1 <<'PYEOF'
import csv, json, sys
path, jpath, rc = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = list(csv.DictReader(open(path)))
doc = json.load(open(jpath))
problems = []
if rc != 0:
    problems.append(f"exit status {rc}")
# one row per size, dtype and peer: e4m3-b128 has two peers
want = 2 * 6
if len(rows) != want or len(doc["results"]) != want:
    problems.append(f"{len(rows)} CSV rows, {len(doc['results'])} JSON results (want {want})")
peers = {}
for r, j in zip(rows, doc["results"]):
    what = f"{r['dtype']} {r['m']}x{r['n']}x{r['k']} vs {r['peer']}"
    peers.setdefault((r["dtype"], r["m"]), []).append((r["peer"], r["peer_check"]))
    if r["gk_check"] != "ok" and not r["gk_check"].startswith("n/a"):
        problems.append(f"{what}: gemmkit {r['gk_check']}")
    if r["gk_check"] == "ok" and not float(r["gk_ms_median"]) > 0:
        problems.append(f"{what}: gemmkit time {r['gk_ms_median']}")
    if r["peer_check"] != "ok" and not r["peer_check"].startswith("n/a"):
        problems.append(f"{what}: peer {r['peer_check']}")
    if r["peer_check"] == "ok" and not r["peer_algo"]:
        problems.append(f"{what}: no peer_algo for a peer that ran")
    if r["dtype"] in ("e4m3", "e4m3-b128", "mxfp4") and r["trans"] != "TN":
        problems.append(f"{what}: FP8 default layout {r['trans']}, want TN")
    scaling = {"e4m3-b128": "block128", "mxfp4": "mx"}.get(r["dtype"], "none")
    if j.get("scaling") != scaling or j.get("peer") != r["peer"]:
        problems.append(f"{what}: JSON scaling {j.get('scaling')} peer {j.get('peer')}")
for (dtype, m), ps in peers.items():
    names = [p for p, _ in ps]
    expect = {"e4m3-b128": ["cublaslt_fp8", "cublaslt_fp8_b128"], "mxfp4": ["cublaslt_fp8"]}
    if dtype in expect and names != expect[dtype]:
        problems.append(f"{dtype} {m}: peers {names}, want {expect[dtype]}")
# cuBLASLt's per-tensor FP8 runs wherever its BF16 does (16-byte aligned sizes: 256, not 96x80x200)
check = {d: ps[0][1] for (d, m), ps in peers.items() if m == "256"}
if check.get("bf16") == "ok":
    for d in ("e4m3", "e4m3-b128", "mxfp4"):
        if check.get(d) != "ok":
            problems.append(f"{d} 256: cuBLASLt per-tensor FP8 peer {check.get(d)} while BF16 ran")
print("; ".join(problems))
sys.exit(1 if problems else 0)
PYEOF
if [ $? -eq 0 ]; then echo "ok dtype_bench_small"; else
    echo "FAIL dtype_bench_small: $(head -c 600 "$tmp/check.txt") $(tail -n 3 "$tmp/bench.err" | tr '\n' ' ')"; fi
exit 0
