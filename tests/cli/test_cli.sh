#!/usr/bin/env bash
# test_cli.sh — the `gemmkit` CLI end to end: info/kernels/run/bench exit statuses, that
# `kernels --json` prints the registry schema the doc generator reads, that `run` verifies (PASS on
# correct results, exit 2 on bad arguments with the library's message), that a minimal `bench`
# writes a CSV whose rows passed the float64 check, and that the noise gauge appears exactly when
# two peer columns report the same kernel. Prints ok/FAIL/skip lines.
set -u
. "$(dirname "$0")/cli_lib.sh"
cli_setup cli


expect help 0 'commands:' -- "$cli" --help
expect info 0 'kernel family +(generic|avx2|avx512)' -- "$cli" info
expect info_bad_option 2 'unknown option' -- "$cli" info --nope
expect kernels 0 'kernels|no CUDA backend' -- "$cli" kernels
expect kernels_bad_option 2 'unknown option' -- "$cli" kernels --nope

# kernels --json: exactly the documented keys, a non-empty CPU list with one selected family, and
# a GPU list that is empty without the CUDA backend and otherwise names one default kernel.
"$cli" kernels --json >"$tmp/kernels.json" 2>"$tmp/kernels.err"
rc=$?
why=$("${GK_PYTHON:-python3}" - "$tmp/kernels.json" <<'PY' 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
cpu_keys = {"id", "name", "arch", "mr", "nr", "usable", "selected"}
gpu_keys = {"id", "name", "technique", "min_sm", "tensor_cores", "input_rounding", "default"}
problems = []
if set(d) != {"cpu", "gpu", "gpu_built"} or not isinstance(d["gpu_built"], bool):
    problems.append(f"top-level keys {sorted(d)}")
else:
    if not d["cpu"] or any(set(k) != cpu_keys for k in d["cpu"]):
        problems.append(f"cpu list {d['cpu']}")
    elif sum(k["selected"] is True for k in d["cpu"]) != 1:
        problems.append("not exactly one selected CPU kernel")
    if [k["id"] for k in d["cpu"]] != list(range(len(d["cpu"]))):
        problems.append("CPU ids not 0..n-1")
    if any(set(k) != gpu_keys for k in d["gpu"]):
        problems.append("gpu entry keys")
    elif d["gpu_built"] and sum(k["default"] is True for k in d["gpu"]) != 1:
        problems.append("not exactly one default GPU kernel")
    elif not d["gpu_built"] and d["gpu"]:
        problems.append("GPU kernels listed without the CUDA backend")
    if any(not isinstance(k["input_rounding"], float) for k in d["gpu"]):
        problems.append("input_rounding not a float")
print("; ".join(problems))
PY
)
if [ "$rc" -ne 0 ]; then
    echo "FAIL kernels_json: exit $rc: $(head -c 300 "$tmp/kernels.err")"
elif [ -n "$why" ]; then
    echo "FAIL kernels_json: $why"
else
    echo "ok kernels_json"
fi
expect run_col 0 '^PASS' -- "$cli" run -m 67 -n 45 -k 33 --reps 2
expect run_row_tt_ld 0 '^PASS' -- "$cli" run -m 130 -n 70 -k 257 --layout row --ta t --tb t \
    --lda 140 --ldb 300 --ldc 90 --alpha -0.5 --beta 2 --threads 2 --reps 2
expect run_sampled 0 '1000 of 1048576 elements' -- "$cli" run -m 1024 -n 1024 -k 200 --reps 1
expect run_k0_beta 0 '^PASS' -- "$cli" run -m 20 -n 30 -k 0 --beta 3 --reps 1
expect run_bad_lda 2 'lda=3' -- "$cli" run -m 10 -n 10 -k 10 --lda 3
expect run_missing_size 2 'required' -- "$cli" run -m 10
expect run_bad_value 2 "bad value" -- "$cli" run -m 10 -n x -k 3
expect bench_bad_impl 2 "bad value" -- "$cli" bench --impls nope
expect bench_minimal 0 'results:' -- "$cli" bench --sizes 96,40x50x60 --threads 1 \
    --impls gemmkit,openblas --min-time 0 --no-plot --out "$tmp/res"
# Without --out, results go to the build tree the binary belongs to, never the source tree.
build_dir=$(cd "$(dirname "$cli")/.." && pwd)
(cd "$tmp" && "$build_dir/bin/gemmkit" bench --sizes 40 --threads 1 --impls gemmkit --min-time 0 \
    --no-plot) >"$tmp/default_out.txt" 2>&1
base=$(sed -n 's/^results: \(.*\)\.{csv,json}$/\1/p' "$tmp/default_out.txt")
want=$build_dir/bench-results/
if [ -n "$base" ] && [ "${base#"$want"}" != "$base" ] && [ -f "$base.csv" ]; then
    echo "ok bench_default_out"
    rm -f "$base.csv" "$base.json"
else
    echo "FAIL bench_default_out: results at '$base', expected under $want"
fi
csv=$(ls "$tmp"/res/cpu-*.csv 2>/dev/null | head -n 1)
if [ -z "$csv" ]; then
    echo "FAIL bench_csv: no CSV written"
elif [ "$(grep -c ',gemmkit,.*,pass,' "$csv")" -ne 2 ]; then
    echo "FAIL bench_csv: expected 2 passing gemmkit rows in $csv"
else
    echo "ok bench_csv"
fi
if [ -n "$csv" ] && grep -q ',openblas,' "$csv"; then
    if grep ',openblas,' "$csv" | grep -qv ',pass,'; then
        echo "FAIL bench_peer_checked: an openblas row did not pass the float64 check"
    else
        echo "ok bench_peer_checked"
    fi
else
    echo "skip bench_peer_checked: OpenBLAS (libopenblas.so.0) not loadable here"
fi

# The noise gauge: BLIS as shipped and BLIS at its best report their kernels; the gauge line must
# be printed if and only if the two names agree (up to the " (why)" part).
"$cli" bench --sizes 64,48x40x32 --threads 1 --impls blis,blis-best --min-time 0 --no-plot \
    --out "$tmp/gauge" >"$tmp/gauge.out" 2>&1
k1=$(sed -n 's/^  blis  *\([^ ]*\) (.*/\1/p' "$tmp/gauge.out")
k2=$(sed -n 's/^  blis-best  *\([^ ]*\) (.*/\1/p' "$tmp/gauge.out")
if [ -z "$k1" ] || [ -z "$k2" ]; then
    echo "skip bench_noise_gauge: BLIS not loadable in both forms here"
elif [ "$k1" = "$k2" ] && ! grep -q '^noise gauge: blis and blis-best ran the same kernel; .* 2 shapes' "$tmp/gauge.out"; then
    echo "FAIL bench_noise_gauge: both columns ran $k1 but no gauge line"
elif [ "$k1" != "$k2" ] && grep -q '^noise gauge' "$tmp/gauge.out"; then
    echo "FAIL bench_noise_gauge: $k1 and $k2 differ, yet a gauge line was printed"
else
    echo "ok bench_noise_gauge"
fi
