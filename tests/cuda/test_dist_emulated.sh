#!/usr/bin/env bash
# test_dist_emulated.sh — tests/cuda/test_dist.cu (the distributed SGEMM, src/cuda/multi/dist.cu)
# on the CPU through the host emulation of test_core_emulated.sh, under ASan and UBSan: the
# argument checks, the host plan, and on the emulated device the 1 x 1 grid of
# gk_cuda_dist_create_all, whole (bitwise against gk_cuda_sgemm), in narrow panels (the panel
# loop with its streams, events and cached buffers) and through the owners' pack copies
# (gk_dist_set_pack_all), with nothing to broadcast. NCCL, where installed,
# is the real library: it loads, but its communicators need real devices, so the cases that make
# them report skip here; they run on GPUs (build/tests/cuda/test_dist).
GK_EMU_TEST=test_dist exec bash "$(dirname "$0")/test_core_emulated.sh"
