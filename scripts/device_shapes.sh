#!/usr/bin/env bash
# device_shapes.sh — the tensor-core shape work in one GPU-machine call (docs/benchmarks.md,
# "Shapes of models"): records the GPU's state (clocks and power limit are read, never set),
# builds the library, CLI and the tensor-core tests for sm_90a only, runs those tests, then
# `gemmkit bench --dtype D --shapes llm` (row-major C = A W^T, cuBLASLt in the same process) for
# each dtype in GK_SHAPES_DTYPES and a device-to-device copy for the bandwidth yardstick.
#
#   scripts/device_shapes.sh [PART ...]   PART: build tests sanitizer bench plans (default:
#                                         build tests bench)
#
# plans: bench/probe/tc_plans.cu (gk-tc-plans), every plan of the kernel forced on BF16 shapes.
#
# Environment: GK_SHAPES_DTYPES (default bf16,e4m3; D:noinv runs D with GEMMKIT_BATCH_INVARIANT=0), GK_SHAPES_REPS (default 10),
# GK_SHAPES_ARGS (more `gemmkit bench` options, e.g. "--shapes FILE"), OUT (results; default
# ./device-out). Prints a summary last.
set -u
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
export PATH=$PATH:${CUDA_HOME:-/usr/local/cuda}/bin
PARTS=("$@")
[ ${#PARTS[@]} -eq 0 ] && PARTS=(build tests bench)
want() { local p; for p in "${PARTS[@]}"; do [ "$p" = "$1" ] && return 0; done; return 1; }
SUMMARY=()
note() { SUMMARY+=("$*"); echo "== $*"; }

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit,temperature.gpu \
    --format=csv >"$OUT/gpu.txt" 2>&1
note "gpu: $(tail -n 1 "$OUT/gpu.txt")"
note "commit: $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo +dirty)"

ARCH='-gencode=arch=compute_90a,code=sm_90a'
TESTS=(build/tests/cuda/test_hopper_kernel build/tests/cuda/test_tc_invariance
    build/tests/cuda/test_gemm_ex build/tests/cuda/test_sm90_plan)
if want build; then
    t0=$(date +%s)
    extra=()
    want plans && extra=(build/bin/gk-tc-plans)
    make -j"$(nproc)" CUDA_ARCH="$ARCH" build/bin/gemmkit "${TESTS[@]}" "${extra[@]}" \
        >"$OUT/build.log" 2>&1
    note "build: status $? in $(($(date +%s) - t0)) s"
fi
if want tests; then
    for t in "${TESTS[@]}"; do
        [ -x "$t" ] || { note "$(basename "$t"): not built"; continue; }
        timeout 300 "$t" >"$OUT/$(basename "$t").log" 2>&1
        rc=$?
        note "$(basename "$t"): status $rc, $(grep -c '^ok ' "$OUT/$(basename "$t").log") ok, $(grep -c '^FAIL ' "$OUT/$(basename "$t").log") FAIL, $(grep -c '^skip ' "$OUT/$(basename "$t").log") skip"
        grep '^FAIL ' "$OUT/$(basename "$t").log" | head -n 8
    done
fi
if want sanitizer; then
    for tool in memcheck racecheck; do
        timeout 300 compute-sanitizer --tool "$tool" build/tests/cuda/test_hopper_kernel \
            >"$OUT/sanitizer_$tool.log" 2>&1
        note "compute-sanitizer $tool test_hopper_kernel: status $?, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer_$tool.log" | tail -n 1)"
    done
fi
if want bench; then
    python3 - >"$OUT/copy_bw.txt" 2>&1 <<'EOF'
import torch
x = torch.empty(2 << 30, dtype=torch.uint8, device="cuda"); y = torch.empty_like(x)
for _ in range(3): y.copy_(x)
e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
ts = []
for _ in range(10):
    e0.record(); y.copy_(x); e1.record(); torch.cuda.synchronize(); ts.append(e0.elapsed_time(e1))
ts.sort(); ms = ts[len(ts) // 2]
print(f"copy_bw_tbs {2 * x.numel() / (ms * 1e-3) / 1e12:.3f}  (2 GiB device-to-device, read + write, median of 10)")
EOF
    note "$(cat "$OUT/copy_bw.txt" | tail -n 1)"
    # a dtype written D:noinv runs with GEMMKIT_BATCH_INVARIANT=0 (the cost of the invariance)
    IFS=, read -r -a dts <<<"${GK_SHAPES_DTYPES:-bf16,e4m3}"
    for spec in "${dts[@]}"; do
        d=${spec%%:*} tag=${spec/:/_} inv=1
        [ "$spec" != "$d" ] && inv=0
        t0=$(date +%s)
        # shellcheck disable=SC2086
        GEMMKIT_BATCH_INVARIANT=$inv timeout 420 build/bin/gemmkit bench --dtype "$d" \
            --layout row --ta n --tb t --shapes llm --reps "${GK_SHAPES_REPS:-10}" --rounds 2 \
            --no-plot --out "$OUT/shapes_$tag" ${GK_SHAPES_ARGS:-} >"$OUT/shapes_$tag.txt" 2>&1
        note "bench $spec: status $? in $(($(date +%s) - t0)) s"
        [ -f "$OUT/shapes_$tag/gpu_tc.csv" ] && cp "$OUT/shapes_$tag/gpu_tc.csv" "$OUT/shapes_$tag.csv"
        [ -f "$OUT/shapes_$tag.csv" ] && python3 bench/shapes_summary.py "$OUT/shapes_$tag.csv" \
            --copy-bw "$OUT/copy_bw.txt" >"$OUT/shapes_${tag}_summary.txt" &&
            head -n 9 "$OUT/shapes_${tag}_summary.txt"
    done
fi
if want plans && [ -x build/bin/gk-tc-plans ]; then
    timeout 300 build/bin/gk-tc-plans 15 >"$OUT/tc_plans.txt" 2>&1
    note "gk-tc-plans: status $?"
fi
printf '%s\n' "${SUMMARY[@]}" >"$OUT/summary.txt"
# everything in one file: the device tool brings back few files
tar -czf "$OUT/results.tar.gz" -C "$OUT" --exclude results.tar.gz . 2>/dev/null
echo "==== summary"
printf '%s\n' "${SUMMARY[@]}"
