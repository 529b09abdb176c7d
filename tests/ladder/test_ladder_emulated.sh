#!/usr/bin/env bash
# test_ladder_emulated.sh — runs the CUDA ladder steps written in plain CUDA C++ (no inline PTX)
# on the CPU through a host emulation of the CUDA runtime (emu/cuda_runtime.h), under ASan and
# UBSan, so that their index math, edge guards, float4 alignment choice, beta == 0 rule and
# barrier placement are tested on machines without a GPU (CI). It complements, and does not
# replace, the GPU tests in tests/cuda/. Steps that include anything beyond the plain headers
# below (no inline PTX, no cp.async), or use inline asm themselves, are reported as skipped.
set -u
cd "$(dirname "$0")/../.." || exit 1
CXX=${CXX:-g++}
if ! command -v "$CXX" >/dev/null 2>&1; then
    echo "skip emulated_ladder: no C++ compiler ($CXX)"
    exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Headers written in plain CUDA C++, which the emulation compiles: the kernel contract, the ladder's
# declarations and the gemm/ helpers steps 1-9 share (see each header's opening comment).
plain='ladder/ladder\.h|gemm/(kernel|util|copy|epilogue)\.cuh'
steps="" objs=()
for f in src/cuda/ladder/[0-9][0-9]_*.cu; do
    name=$(basename "$f" .cu)
    others=$(grep -E '^#include "' "$f" | grep -vE "\"cuda/($plain)\"")
    if [ -n "$others" ] || grep -qE '\basm\b' "$f"; then
        echo "skip emulated_$name: uses headers or inline PTX the host emulation does not model"
        continue
    fi
    # kernel<<<grid, block, smem, stream>>>(args); -> gk_emu_launch(kernel, grid, ..., args);
    perl -0pe 's/([A-Za-z_0-9]+(?:<[^<>]*>)?)<<<(.*?)>>>\(([^;]*)\);/gk_emu_launch($1, $2, $3);/g' \
        "$f" >"$work/$name.cpp"
    steps="$steps GK_EMU_STEP($name)"
    objs+=("$work/$name.cpp")
done
if [ -z "$steps" ]; then
    echo "skip emulated_ladder: no plain-CUDA ladder step found"
    exit 0
fi

# shellcheck disable=SC2054 # the commas belong to -fsanitize=
flags=(-std=c++20 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined
    -Wno-unknown-pragmas -Itests/ladder/emu -Isrc -Iinclude)
if ! "$CXX" "${flags[@]}" "-DGK_EMU_STEPS=$steps" tests/ladder/emu/ladder_emu.cpp "${objs[@]}" \
    -o "$work/ladder_emu"; then
    echo "FAIL emulated_ladder: the ladder sources do not compile under the host emulation"
    exit 1
fi
# ucontext fibers: ASan warns once that it cannot track stack switches precisely.
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} "$work/ladder_emu"
