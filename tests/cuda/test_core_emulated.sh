#!/usr/bin/env bash
# test_core_emulated.sh — runs the CUDA backend core (src/cuda/core: context, dispatcher, transpose
# and scale kernels, default-kernel choice) with the entry points and engines built on it
# (src/cuda/api, src/cuda/multi) and the GPU test program test_cuda_sgemm.cu on the CPU,
# through the host emulation of the CUDA runtime (tests/cuda/emu, built on tests/ladder/emu), under
# ASan and UBSan. CI has no GPU: this is what checks there the layout/transposition mapping, the
# workspace, beta == 0 with NaN C, guard zones and argument errors of the CUDA path. Two real ladder
# steps (01, 03) serve as kernels (tests/cuda/emu/registry_emu.cpp). Case names get an "emulated_"
# prefix; the real GPU run of the same program is build/tests/cuda/test_cuda_sgemm.
# GK_EMU_TEST names another test program of tests/cuda to run this way (test_gemm_ex_emulated.sh);
# the mixed-precision kernels' inline PTX is replaced by tests/cuda/emu/mixed_emu.cpp, the batched
# grid (src/cuda/gemm/batched.cu) by tests/cuda/emu/batched_emu.cpp, which runs the small-item
# kernel (src/cuda/gemm/batched_small.cu) for real.
set -u
prog=${GK_EMU_TEST:-test_cuda_sgemm}
cd "$(dirname "$0")/../.." || exit 1
CXX=${CXX:-g++}
CC=${CC:-cc}
for tool in "$CXX" "$CC" perl; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "skip emulated_core: $tool not found"
        exit 0
    fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# kernel<<<grid, block, smem, stream>>>(args); -> gk_emu_launch(kernel, grid, block, smem, stream, args);
for f in src/cuda/core/*.cu src/cuda/api/*.cu src/cuda/multi/*.cu \
    src/cuda/mixed/repack.cu src/cuda/mixed/simt.cu src/cuda/gemm/batched_small.cu \
    src/cuda/ladder/01_naive.cu src/cuda/ladder/03_smem_tiling.cu "tests/cuda/$prog.cu"; do
    perl -0pe 's/([A-Za-z_0-9]+(?:<[^<>]*>)?)<<<(.*?)>>>\(([^;]*)\);/gk_emu_launch($1, $2, $3);/g' \
        "$f" >"$work/$(basename "$f" .cu).cpp"
done
# shellcheck disable=SC2054 # the commas belong to -fsanitize=
san=(-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined)
ok=1
# src/formats/gemm_scaled_check.c: the block-scaled GEMM's argument checks (gemm_scaled.cu's);
# src/core/batched_args.c: the batched calls' (sgemm_batched.cu's); src/core/parallel.c: the
# threads the out-of-core engine packs pageable memory on (ooc.cu); src/core/tune_cache.c: the
# tune cache every context reads (tune.cu)
for c in src/core/args.c src/core/batched_args.c src/core/parallel.c src/core/status.c \
    src/core/tune_cache.c \
    src/formats/gemm_scaled_check.c tests/common/ref.c \
    harness/ref.c harness/timer.c; do
    "$CC" "${san[@]}" -std=c11 -D_GNU_SOURCE -I. -Iinclude -Isrc -Itests/common -c "$c" \
        -o "$work/$(basename "$(dirname "$c")")_$(basename "$c").o" >>"$work/build.log" 2>&1 || ok=0
done
[ $ok = 1 ] && "$CXX" "${san[@]}" -std=c++20 -Wno-unknown-pragmas -Itests/cuda/emu -I. -Iinclude -Isrc \
    -Itests -Itests/common "$work"/*.cpp tests/cuda/emu/registry_emu.cpp \
    tests/cuda/emu/mixed_emu.cpp tests/cuda/emu/batched_emu.cpp "$work"/*.o \
    -o "$work/core_emu" >>"$work/build.log" 2>&1 || ok=0
if [ $ok = 0 ]; then
    echo "FAIL emulated_core: build failed:"
    tail -n 20 "$work/build.log" | sed 's/^/    /'
    exit 1
fi

# ASan warns once that it does not fully model swapcontext; that line is noise here.
ASAN_OPTIONS=detect_leaks=1 "$work/core_emu" --small >"$work/out.txt" 2>"$work/err.txt"
rc=$?
sed -E 's/^(ok|FAIL|skip) /\1 emulated_/' "$work/out.txt"
if [ $rc -ne 0 ] && ! grep -q '^FAIL ' "$work/out.txt"; then
    echo "FAIL emulated_core: exited with status $rc:"
    grep -v 'swapcontext' "$work/err.txt" | head -n 25 | sed 's/^/    /'
fi
exit $rc
