#!/usr/bin/env bash
# test_gemm_scaled_emulated.sh — tests/cuda/test_gemm_scaled.cu (the block-scaled GEMM on every
# path) on the CPU through the host emulation of test_core_emulated.sh, under ASan and UBSan: the
# dispatcher (src/cuda/api/gemm_scaled.cu), the repack (code conversion, block scales) and
# scale-transpose kernels and the SIMT kernel for real, the tensor-core kernels replaced by a
# float64 loop over their contract with its block scales (tests/cuda/emu/mixed_emu.cpp). So CI,
# without a GPU, checks the mapping of layouts, transpositions, formats and scale layouts onto the
# kernels' problem.
here=$(dirname "$0")
if [ ! -f "$here/../../src/cuda/api/gemm_scaled.cu" ]; then
    echo "skip emulated_gemm_scaled: src/cuda/api/gemm_scaled.cu (gk_cuda_gemm_scaled) is missing"
    exit 0
fi
GK_EMU_TEST=test_gemm_scaled exec bash "$here/test_core_emulated.sh"
