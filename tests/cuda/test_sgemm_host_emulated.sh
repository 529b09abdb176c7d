#!/usr/bin/env bash
# test_sgemm_host_emulated.sh — tests/cuda/test_sgemm_host.cu (the out-of-core SGEMM,
# src/cuda/multi/ooc.cu) on the CPU through the host emulation of test_core_emulated.sh, under ASan
# and UBSan: the tiling and K chunking under a small GEMMKIT_CUDA_MEM_LIMIT, the copies of every
# layout and transposition, pageable staging and pinned copies, two contexts, and a copy failure
# injected at each copy in turn (tests/cuda/emu: gk_emu_copy_fail_after). Copies and events are
# synchronous there, so this checks what is copied where, not the overlap.
GK_EMU_TEST=test_sgemm_host exec bash "$(dirname "$0")/test_core_emulated.sh"
