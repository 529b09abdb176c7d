/*
 * registry_emu.cpp — the kernel registry of the emulated core test: two real plain-CUDA ladder
 * steps (run through the host emulation) and an entry demanding sm_100, which the emulated sm_90
 * device must refuse with GK_ERR_UNSUPPORTED. Replaces src/cuda/registry.cu in that build only.
 */
#include "cuda/ladder/ladder.h"
#include "cuda/registry.h"

static const gk_kernel_entry entries[] = {
    {"01_naive", "emulated", 50, 0.0, 0, gk_ladder_01_naive, nullptr},
    {"03_smem_tiling", "emulated", 50, 0.0, 0, gk_ladder_03_smem_tiling, nullptr},
    {"99_needs_sm100", "emulated: refused on sm_90", 100, 0.0, 0, gk_ladder_01_naive, nullptr},
};

const gk_kernel_entry *gk_cuda_registry(int *count) {
    *count = (int)(sizeof entries / sizeof entries[0]);
    return entries;
}

/* The emulated default kernel runs no plans (src/cuda/gemm/plan.h): the dispatcher launches it
 * from its registry entry. */
const gk_plan_ops *gk_cuda_plan_ops(void) {
    return nullptr;
}
