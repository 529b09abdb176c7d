#!/usr/bin/env bash
# device_run.sh — the one script to run on a GPU machine (made for the lead's H100 runs): records
# the GPU's state, builds, prints the ptxas resource use of the ladder kernels, runs the GPU tests,
# compute-sanitizer (memcheck + racecheck) on small shapes, `gemmkit ladder` at 4096 and 8192 with
# cuBLAS (and the Triton peer when `import triton` works), and optionally the sweep, the
# mixed-precision part and the CPU side. It never changes GPU settings (no clocks, persistence or
# power limits).
#
#   scripts/device_run.sh [PART ...]    PART: info build ptxas tests sanitizer ladder ladderab cpu
#                                             cpuab makebench sweep tc (= tctests tcsan tcbench)
#                                       default: info build tests ladder ptxas sanitizer cpu
#
# tc (after build): the mixed-precision GEMM, in three parts that can also run alone.
# tctests: its GPU tests (build/tests/cuda/test_gemm_ex, test_gemm_scaled and test_hopper_kernel when built,
# tests/cli/test_cli_dtype.sh, tests/python/test_python_cuda.py). tcsan: compute-sanitizer memcheck
# and racecheck on test_gemm_ex --small and on one small `gemmkit run` per dtype. tcbench:
# `gemmkit bench --dtype` against cuBLASLt: GK_TC_DTYPES (default bf16,f16,tf32,3xtf32,e4m3; FP8
# in the TN layout cuBLASLt takes) at GK_TC_SIZES (default 1024,2048,3072,4096,6144,8192,12288,
# 16384), GK_TC_REPS timed runs each (default 20), plus GK_TC_ARGS; its CSV, JSON and plot are
# copied to $OUT/tc/ and its table to $OUT/tc.txt (printed last, before the summary).
#
# cpuab: `gemmkit bench` on this host's CPU with GK_CPU_BENCH_ARGS (default: --quick --rounds 3),
# plus, for each source tree listed in GK_BASELINE_SRCS (space-separated directories holding
# another revision of this repository, e.g. made with `git archive`), a run with that tree's
# build as the --baseline column, with GK_BASELINE_BENCH_ARGS (default: GK_CPU_BENCH_ARGS plus
# --impls gemmkit).
#
# ladderab: for each tree in GK_BASELINE_SRCS, its CUDA build's `gemmkit ladder` and this tree's,
# alternated for GK_LADDERAB_ROUNDS rounds (default 2) on GK_LADDERAB_KERNELS (default
# 10,11,12,13,14,15) at GK_LADDERAB_SIZES (default 4096,8192): the GPU side of an A/B.
#
# Every step runs under `timeout`, and a global deadline (GK_DEVICE_BUDGET seconds, default 500)
# shrinks or skips the later steps so the whole run ends inside 9 minutes. Results go to $OUT
# (default ./device-out): summary.txt (also printed last), ladder.txt (the ladder table) and
# results.tar.gz (every log, CSV, JSON and plot).
set -u
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-$PWD/device-out}
WORK=$OUT/work
mkdir -p "$WORK/logs"
LOGS=$WORK/logs
BUDGET=${GK_DEVICE_BUDGET:-500}
START=$(date +%s)
JOBS=$(nproc 2>/dev/null || echo 8)
export PATH=$PATH:${CUDA_HOME:-/usr/local/cuda}/bin
PARTS=("$@")
[ ${#PARTS[@]} -eq 0 ] && PARTS=(info build tests ladder ptxas sanitizer cpu)
SUMMARY=()

want() { local p; for p in "${PARTS[@]}"; do [ "$p" = "$1" ] && return 0; done; return 1; }
left() { echo $((BUDGET - ($(date +%s) - START))); }

# step NAME BOX CMD...: runs CMD with stdout+stderr in logs/NAME.log, time-boxed by
# min(BOX, time left - 15 s); sets LAST_STATUS/LAST_SECS for `record`. Returns CMD's status.
step() {
    local name=$1 box=$2 rem t0 rc
    shift 2
    rem=$(($(left) - 15))
    if [ "$rem" -lt 20 ]; then
        LAST_STATUS=skipped LAST_SECS=0
        : >"$LOGS/$name.log"
        return 124
    fi
    [ "$box" -gt "$rem" ] && box=$rem
    echo "== $name (time box ${box}s)" >&2
    t0=$(date +%s)
    timeout --kill-after=10 "$box" "$@" >"$LOGS/$name.log" 2>&1
    rc=$?
    case $rc in 0) LAST_STATUS=ok ;; 124 | 137) LAST_STATUS=TIMEOUT ;; *) LAST_STATUS="FAIL($rc)" ;; esac
    LAST_SECS=$(($(date +%s) - t0))
    return $rc
}
record() {
    local detail=$2
    [ "$LAST_STATUS" = skipped ] && detail="out of time budget"
    SUMMARY+=("$(printf '%-10s %-8s %4ss  %s' "$1" "$LAST_STATUS" "$LAST_SECS" "$detail")")
}

# Steps that are more than one command run as exported functions under `timeout bash -c`.
info_report() {
    date -u; uname -a; echo
    nvidia-smi -q | head -60; echo
    nvidia-smi --format=csv --query-gpu=name,driver_version,pstate,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu,persistence_mode
    echo; nvcc --version | tail -2; echo; lscpu | head -20; echo; free -g
    python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)' ||
        echo "(torch/triton not importable: no Triton peer)"
}
# registers / spills / stack of every ladder kernel for sm_90a (one ptxas -v compile per file,
# in parallel, each time-boxed so a slow file cannot hide the others), demangled, one block per file
ptxas_report() {
    local tmp f
    tmp=$(mktemp -d)
    for f in src/cuda/gemm/*.cu src/cuda/ladder/*.cu; do
        timeout 100 nvcc -Iinclude -Isrc -std=c++17 -O3 -DGK_HAVE_CUDA=1 --expt-relaxed-constexpr \
            -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -c "$f" -o /dev/null \
            >"$tmp/$(basename "$f").log" 2>&1 || echo "error: compile failed or timed out" >>"$tmp/$(basename "$f").log" &
        [ "$(jobs -r | wc -l)" -ge "$JOBS" ] && wait -n
    done
    wait
    for f in src/cuda/gemm/*.cu src/cuda/ladder/*.cu; do
        echo "## $f"
        awk '/Compiling entry function/ { fn = $0; sub(/.*function ./, "", fn); sub(/. for .*/, "", fn) }
             /spill stores/ { s = $0; sub(/^[^0-9]*/, "", s) }
             /Used [0-9]+ registers/ { r = $0; sub(/.*Used /, "", r); print fn ": " r "; " s }
             /error/ { print }' "$tmp/$(basename "$f").log" | c++filt
    done
    rm -rf "$tmp"
}
export -f info_report ptxas_report
export JOBS

if want info; then
    step info 30 bash -c info_report
    record info "$(grep -m1 'Product Name' "$LOGS/info.log" | sed 's/.*: //')"
fi

if want build; then
    # -k: a file broken by work in progress elsewhere must not stop everything else being built
    step build 300 make -k -j"$JOBS" all tests
    record build "$(grep -c -i 'warning' "$LOGS/build.log") warning lines, $(grep -c -E 'error' "$LOGS/build.log") error lines"
fi

if want tests; then
    step tests 200 env GK_TEST_TIMEOUT=180 GK_TEST_LOG_DIR="$LOGS/tests" GK_BUILD=build GK_PYTHON=python3 \
        bash tests/run.sh build/tests/cuda/* tests/cuda/test_ladder_cli.sh
    record tests "$(tail -1 "$LOGS/tests.log")"
fi

# The Triton peer runs as its own step (autotuning compiles for a while) so that a slow or failing
# Triton cannot cost the ladder results; the ladder merges its CSV. GK_NO_TRITON=1 skips it.
if want ladder && [ "${GK_NO_TRITON:-0}" != 1 ] && python3 -c 'import triton, torch' >/dev/null 2>&1; then
    step triton 150 python3 bench/triton_peer.py --sizes 4096,8192 --csv "$WORK/triton_peer.csv"
    record triton "$(grep -c -E '^[0-9]+,' "$WORK/triton_peer.csv" 2>/dev/null || echo 0) rows"
fi

if want ladder; then
    extra=()
    [ -s "$WORK/triton_peer.csv" ] && extra=(--triton-csv "$WORK/triton_peer.csv")
    step ladder 240 build/bin/gemmkit ladder --sizes 4096,8192 --out "$WORK/ladder" "${extra[@]}"
    rc=$?
    awk '/, sm_[0-9]+a?, [0-9]+ SMs;/ { p = 1 } p' "$LOGS/ladder.log" >"$OUT/ladder.txt"
    record ladder "exit $rc; ${extra[*]:-no triton}; table in ladder.txt"
fi

if want ladderab; then
    read -r -a ab_sizes <<<"${GK_LADDERAB_SIZES:-4096,8192}"
    for src in ${GK_BASELINE_SRCS:-}; do
        tag=$(basename "$src")
        step "buildgpu_$tag" 240 make -C "$src" -j"$JOBS" BUILD=build-baseline-gpu lib cli
        record "buildgpu_$tag" "baseline tree $src with CUDA"
        for r in $(seq "${GK_LADDERAB_ROUNDS:-2}"); do
            for side in baseline this; do
                bin=build/bin/gemmkit
                [ $side = baseline ] && bin=$src/build-baseline-gpu/bin/gemmkit
                step "ladderab_${tag}_${side}_$r" 150 "$bin" ladder --sizes "${ab_sizes[0]}" \
                    --kernels "${GK_LADDERAB_KERNELS:-10,11,12,13,14,15}" --no-plot \
                    --out "$WORK/ladderab-$tag-$side-$r"
                record "ladderab_${tag}_${side}_$r" "exit $?"
            done
        done
    done
fi

if want ptxas; then
    step ptxas 130 bash -c ptxas_report
    record ptxas "$(grep -c 'registers' "$LOGS/ptxas.log") kernels; with spills: $(grep -c -E ' [1-9][0-9]* bytes spill (stores|loads)' "$LOGS/ptxas.log")"
fi

if want sanitizer; then
    san=$(command -v compute-sanitizer || ls /usr/local/cuda*/compute-sanitizer/compute-sanitizer 2>/dev/null | head -1)
    if [ -z "$san" ]; then
        LAST_STATUS=skipped LAST_SECS=0
        SUMMARY+=("$(printf '%-10s %-8s %4ss  %s' sanitizer skipped 0 "compute-sanitizer not found")")
    else
        for tool in memcheck racecheck; do
            step "$tool" 150 "$san" --tool "$tool" --error-exitcode 99 build/tests/cuda/test_cuda_sgemm --small
            record "$tool" "$(grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$LOGS/$tool.log"); $(grep -c '^ok ' "$LOGS/$tool.log") ok, $(grep -c '^FAIL ' "$LOGS/$tool.log") FAIL"
        done
    fi
fi

if want cpu; then
    progs=()
    for f in build/tests/*/test_* tests/*/test_*.sh tests/*/test_*.py; do
        case $f in build/tests/cuda/* | tests/cuda/test_ladder_cli.sh | *.d | *.o) ;;
        *) [ -e "$f" ] && progs+=("$f") ;;
        esac
    done
    step cpu_tests 150 env GK_TEST_TIMEOUT=140 GK_TEST_LOG_DIR="$LOGS/cpu-tests" GK_BUILD=build GK_PYTHON=python3 bash tests/run.sh "${progs[@]}"
    record cpu_tests "$(tail -1 "$LOGS/cpu_tests.log")"
    step cpu_bench 120 env GK_PYTHON=python3 build/bin/gemmkit bench --device cpu --quick --out "$WORK/cpu-bench"
    record cpu_bench "see logs/cpu_bench.log"
fi

if want cpuab; then
    read -r -a bench_args <<<"${GK_CPU_BENCH_ARGS:---quick --rounds 3}"
    step cpuab_bench 300 env GK_PYTHON=python3 build/bin/gemmkit bench --device cpu "${bench_args[@]}" --out "$WORK/cpuab"
    record cpuab_bench "see logs/cpuab_bench.log"
    read -r -a ab_args <<<"${GK_BASELINE_BENCH_ARGS:-${bench_args[*]} --impls gemmkit}"
    for src in ${GK_BASELINE_SRCS:-}; do
        tag=$(basename "$src")
        step "build_$tag" 200 make -C "$src" -j"$JOBS" GK_CUDA=0 BUILD=build-baseline cli
        record "build_$tag" "baseline tree $src"
        step "cpuab_$tag" 300 env GK_PYTHON=python3 build/bin/gemmkit bench --device cpu "${ab_args[@]}" \
            --baseline "$src/build-baseline/bin/gemmkit" --no-plot --out "$WORK/cpuab-$tag"
        record "cpuab_$tag" "see logs/cpuab_$tag.log"
    done
fi

if want makebench; then
    # what `make bench` runs (bench/run.sh), with --quick: CPU peers on this host, then the GPU ladder
    step makebench 300 env GK_BUILD=build GK_PYTHON=python3 bash bench/run.sh --quick --out "$WORK/makebench"
    record makebench "exit $?; see logs/makebench.log"
fi

want_tc() { want tc || want "$1"; }

if want_tc tctests; then
    tc_progs=()
    for f in build/tests/cuda/test_gemm_ex build/tests/cuda/test_gemm_scaled build/tests/cuda/test_hopper_kernel \
        tests/cli/test_cli_dtype.sh tests/python/test_python_cuda.py; do
        [ -e "$f" ] && tc_progs+=("$f")
    done
    step tc_tests 200 env GK_TEST_TIMEOUT=180 GK_TEST_LOG_DIR="$LOGS/tc-tests" GK_BUILD=build GK_PYTHON=python3 \
        bash tests/run.sh "${tc_progs[@]}"
    record tc_tests "$(tail -1 "$LOGS/tc_tests.log")"
fi

if want_tc tcsan; then
    san=$(command -v compute-sanitizer || ls /usr/local/cuda*/compute-sanitizer/compute-sanitizer 2>/dev/null | head -1)
    if [ -z "$san" ]; then
        SUMMARY+=("$(printf '%-10s %-8s %4ss  %s' tc_sanitize skipped 0 "compute-sanitizer not found")")
    else
        for tool in memcheck racecheck; do
            if [ -x build/tests/cuda/test_gemm_ex ]; then
                step "tc_$tool" 150 "$san" --tool "$tool" --error-exitcode 99 build/tests/cuda/test_gemm_ex --small
                record "tc_$tool" "$(grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$LOGS/tc_$tool.log"); $(grep -c '^ok ' "$LOGS/tc_$tool.log") ok, $(grep -c '^FAIL ' "$LOGS/tc_$tool.log") FAIL"
            fi
            # one small call per dtype through the CLI: the paths a user reaches, edge tiles included
            step "tc_${tool}_run" 120 bash -c 'rc=0; for dt in bf16 f16 tf32 3xtf32 e4m3 e5m2:e4m3; do
                    "$0" --tool "$1" --error-exitcode 99 build/bin/gemmkit run --device gpu --dtype "$dt" \
                        -m 67 -n 45 -k 129 --reps 1 --beta 0.5 || rc=$?; done; exit $rc' "$san" "$tool"
            record "tc_${tool}_run" "$(grep -c -E 'ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards' "$LOGS/tc_${tool}_run.log") of 6 clean; $(grep -c '^PASS' "$LOGS/tc_${tool}_run.log") PASS"
        done
    fi
fi

if want_tc tcbench; then
    step tc_bench 300 env GK_PYTHON=python3 build/bin/gemmkit bench --dtype "${GK_TC_DTYPES:-bf16,f16,tf32,3xtf32,e4m3}" \
        --sizes "${GK_TC_SIZES:-1024,2048,3072,4096,6144,8192,12288,16384}" --reps "${GK_TC_REPS:-20}" \
        ${GK_TC_ARGS:-} --out "$WORK/tc"
    rc=$?
    awk '/mixed-precision GEMM, alpha 1/ { p = 1 } p' "$LOGS/tc_bench.log" >"$OUT/tc.txt"
    mkdir -p "$OUT/tc" && cp "$WORK"/tc/gpu_tc.* "$OUT/tc/" 2>/dev/null
    record tc_bench "exit $rc; $(grep -c -E '^[a-z0-9:]+ +(f32|bf16|f16) ' "$OUT/tc.txt") rows; table in tc.txt, files in tc/"
fi

if want sweep; then
    step sweep 300 build/bin/gemmkit ladder --sweep --reps 20 --budget 0.3 --out "$WORK/sweep"
    record sweep "$(grep -c -E '^ *[0-9]+ ' "$LOGS/sweep.log") rows; plots in sweep/"
fi

{
    echo "gemmkit device run, $(date -u +%FT%TZ), $(($(date +%s) - START)) s, parts: ${PARTS[*]}"
    printf '%-10s %-8s %5s  %s\n' step status time detail
    printf '%s\n' "${SUMMARY[@]}"
} >"$OUT/summary.txt"
tar -C "$WORK" -czf "$OUT/results.tar.gz" . 2>/dev/null
rm -rf "$WORK"
[ -s "$OUT/ladder.txt" ] && cat "$OUT/ladder.txt"
[ -s "$OUT/tc.txt" ] && cat "$OUT/tc.txt"
cat "$OUT/summary.txt"
