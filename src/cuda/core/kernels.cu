/*
 * kernels.cu — the public view of the kernel registry (count, info), the choice of the kernel
 * gk_cuda_sgemm runs, and the float32 router (gk_cuda_fp32_route), the one place that says where
 * a float32 GEMM goes. The default is looked up by name so reordering or inserting registry
 * entries cannot silently change it; devices too old for it get the best FP32 kernel they can run.
 */
#include <string.h>

#include "cuda/core/core.h"
#include "cuda/registry.h"

/* The production launcher (ladder step 15; its plans in src/cuda/gemm/plan.h and select.cu): per
 * problem, the tile configuration measured best for its size (one large tile shape leaves most
 * SMs idle on small problems), the stream-K schedule where the last wave of tiles would leave SMs
 * idle, split-K where the tiles cannot fill the SMs, and a GEMV-class kernel for a thin side
 * (docs/ladder.md, steps 11 and 15; docs/cuda.md, "Plan kinds"). Tensor-core kernels are never the
 * default because they round the operands to TF32. */
static const char DEFAULT_KERNEL[] = "15_stream_k";

static int is_fp32(const gk_kernel_entry *e) {
    return e->input_rounding == 0.0 && !e->tensor_cores;
}

/* Last FP32 kernel runnable at `sm` (later ladder steps are faster), -1 if none. */
static int last_fp32(int sm) {
    int count;
    const gk_kernel_entry *e = gk_cuda_registry(&count);
    for (int i = count - 1; i >= 0; i--)
        if (is_fp32(&e[i]) && e[i].min_sm <= sm) return i;
    return -1;
}

int gk_cuda_default_kernel(void) {
    int count;
    const gk_kernel_entry *e = gk_cuda_registry(&count);
    for (int i = 0; i < count; i++)
        if (strcmp(e[i].name, DEFAULT_KERNEL) == 0) return i;
    return last_fp32(1 << 30);
}

int gk_cuda_pick_kernel(int sm) {
    int count;
    const gk_kernel_entry *e = gk_cuda_registry(&count);
    const int id = gk_cuda_default_kernel();
    if (id >= 0 && e[id].min_sm <= sm) return id;
    return last_fp32(sm);
}

gk_status gk_cuda_fp32_route(const gk_cuda_ctx *ctx, const char *who, bool tensor_cores,
                             int *kernel_id) {
    /* the mode of gk_cuda_set_fp32_mode: docs/cuda.md, "FP32 accuracy modes" */
    if (tensor_cores && ctx->fp32_mode == GK_FP32_3XTF32) {
        *kernel_id = GK_FP32_TENSOR_CORES;
        return GK_SUCCESS;
    }
    *kernel_id = gk_cuda_pick_kernel(ctx->sm);
    if (*kernel_id < 0)
        return gk_fail(GK_ERR_UNSUPPORTED, "%s: no FP32 kernel supports sm_%d", who, ctx->sm);
    return GK_SUCCESS;
}

int gk_cuda_kernel_count(void) {
    int count;
    gk_cuda_registry(&count);
    return count;
}

gk_status gk_cuda_kernel_info_get(int kernel_id, gk_cuda_kernel_info *info) {
    gk_clear_error();
    int count;
    const gk_kernel_entry *e = gk_cuda_registry(&count);
    if (kernel_id < 0 || kernel_id >= count)
        return gk_fail(GK_ERR_INVALID_VALUE,
                       "gk_cuda_kernel_info_get: kernel_id=%d is not in [0, %d)", kernel_id, count);
    if (info == NULL) return gk_fail(GK_ERR_INVALID_VALUE, "gk_cuda_kernel_info_get: info is NULL");
    info->id = kernel_id;
    info->name = e[kernel_id].name;
    info->technique = e[kernel_id].technique;
    info->min_sm = e[kernel_id].min_sm;
    info->input_rounding = e[kernel_id].input_rounding;
    info->tensor_cores = e[kernel_id].tensor_cores;
    info->is_default = kernel_id == gk_cuda_default_kernel();
    return GK_SUCCESS;
}
