#!/usr/bin/env bash
# test_gemm_ex_emulated.sh — tests/cuda/test_gemm_ex.cu (the mixed-precision entry point on every
# path) on the CPU through the host emulation of test_core_emulated.sh, under ASan and UBSan: the
# dispatcher, the repack/convert/split and SIMT kernels for real, the tensor-core kernels replaced
# by a float64 loop over their contract (tests/cuda/emu/mixed_emu.cpp). So CI, without a GPU,
# checks the mapping of layouts, transpositions and types onto the kernels' problem.
GK_EMU_TEST=test_gemm_ex exec bash "$(dirname "$0")/test_core_emulated.sh"
