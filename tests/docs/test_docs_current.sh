#!/usr/bin/env bash
# test_docs_current.sh — the generated tables in README.md, docs/benchmarks.md and docs/ladder.md
# match the committed results under bench/results/ and the kernel registry of this build
# (scripts/gen_docs.py --check). Prints one ok/FAIL/skip line; regenerate with
#   python3 scripts/gen_docs.py --build <build dir>
set -u
build=${GK_BUILD:-build}
case $build in /*) ;; *) build=$PWD/$build ;; esac
root=$(cd "$(dirname "$0")/../.." && pwd)
cli=$build/bin/gemmkit
py=$(command -v python3 || true)
if [ -z "$py" ]; then
    echo "skip docs_current: python3 not found"
    exit 0
fi
if [ ! -x "$cli" ]; then
    echo "skip docs_current: $cli not built"
    exit 0
fi
if ! reg=$("$cli" kernels --json 2>/dev/null); then
    echo "skip docs_current: $cli has no 'kernels --json'"
    exit 0
fi
if ! printf '%s' "$reg" | "$py" -c 'import json, sys; sys.exit(0 if json.load(sys.stdin).get("gpu_built") else 1)'; then
    echo "skip docs_current: CUDA backend not built (the ladder table needs the GPU registry)"
    exit 0
fi
out=$("$py" "$root/scripts/gen_docs.py" --check --build "$build" 2>&1)
rc=$?
if [ "$rc" -eq 0 ]; then
    echo "ok docs_current"
else
    echo "FAIL docs_current: $(printf '%s' "$out" | tr '\n' ' ')"
fi
