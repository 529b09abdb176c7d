#!/usr/bin/env bash
# test_batched_emulated.sh — tests/cuda/test_cuda_batched.cu (gk_cuda_sgemm_strided_batched and
# gk_cuda_sgemm_batched) on the CPU through the host emulation of test_core_emulated.sh, under ASan
# and UBSan, with each item run by ladder step 03 (tests/cuda/emu/batched_emu.cpp). So CI, without a
# GPU, checks the batched dispatcher's mapping of layouts, transpositions, strides and pointer
# arrays onto the kernel's problem, its workspace and its argument errors.
GK_EMU_TEST=test_cuda_batched exec bash "$(dirname "$0")/test_core_emulated.sh"
