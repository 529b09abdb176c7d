#!/usr/bin/env bash
# test_fuzz.sh — the libFuzzer target tests/fuzz/fuzz_gemm.c (gk_sgemm, cblas_sgemm, sgemm_, the
# GPU entry points' argument check): builds it with clang (tests/fuzz/fuzz.mk, into
# $GK_BUILD/fuzz/), replays the committed corpus tests/fuzz/corpus/, then fuzzes for
# GK_FUZZ_SECONDS (default 20; e.g. GK_FUZZ_SECONDS=600 for a longer hunt). Prints one line,
# "ok fuzz_gemm", "FAIL fuzz_gemm: why" with the saved input's path, or "skip fuzz_gemm: why"
# when clang cannot link libFuzzer programs. New inputs the run finds go to a temporary
# directory, not to the committed corpus (docs/testing.md, "Fuzzing", says how to grow that).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${GK_BUILD:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
cc=${FUZZ_CC:-clang}
seconds=${GK_FUZZ_SECONDS:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d, (void)n; return 0; }\n' >"$tmp/probe.c"
if ! command -v "$cc" >/dev/null 2>&1; then
    echo "skip fuzz_gemm: $cc not found (libFuzzer needs clang)"
    exit 0
fi
if ! "$cc" -fsanitize=fuzzer,address,undefined "$tmp/probe.c" -o "$tmp/probe" >"$tmp/probe.log" 2>&1; then
    echo "skip fuzz_gemm: $cc cannot link -fsanitize=fuzzer,address,undefined: $(head -n 2 "$tmp/probe.log" | tr '\n' ' ')"
    exit 0
fi

# Outside the calling make's jobserver: this is a make of its own, with its own flags.
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$root" -f tests/fuzz/fuzz.mk -j2 \
    "BUILD=$build" "FUZZ_CC=$cc" fuzz >"$tmp/build.log" 2>&1; then
    echo "FAIL fuzz_gemm: build failed; end of the build log:"
    tail -n 15 "$tmp/build.log" | sed 's/^/    /'
    exit 1
fi

# The first directory receives new inputs; the committed corpus is only read. A failing input is
# kept under $build/fuzz/artifacts for `fuzz_gemm <file>` (GK_FUZZ_PRINT=1 prints the call).
artifacts=$build/fuzz/artifacts
mkdir -p "$tmp/new" "$artifacts"
"$build/fuzz/fuzz_gemm" "$tmp/new" "$root/tests/fuzz/corpus" -max_total_time="$seconds" \
    -max_len=128 -timeout=60 -print_final_stats=1 -artifact_prefix="$artifacts/" \
    >"$tmp/run.log" 2>&1
rc=$?
# The log's statistics as commentary lines (the runner keeps them in the test log).
grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)' "$tmp/run.log" | sed 's/^/# fuzz_gemm: /'
grep -E '^Done [0-9]+ runs' "$tmp/run.log" | sed 's/^/# fuzz_gemm: /'
if [ "$rc" -ne 0 ]; then
    unit=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$tmp/run.log" | tail -n 1)
    why=$(grep -m 1 -E 'fuzz_gemm: FAIL|ERROR: |runtime error' "$tmp/run.log")
    echo "FAIL fuzz_gemm: exit $rc: ${why:-see the log below}; input: ${unit:-none saved}"
    grep -v -E '^#[0-9]+[[:space:]]' "$tmp/run.log" | tail -n 40 | sed 's/^/    /'
    exit 1
fi
echo "ok fuzz_gemm"
