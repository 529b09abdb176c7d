/*
 * cmd_kernels.c — `gemmkit kernels`: the CUDA kernel registry as the library reports it
 * (gk_cuda_kernel_count / gk_cuda_kernel_info_get), so this list can never drift from the code.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "gemmkit.h"

static void usage(FILE *f) {
    fprintf(f, "usage: gemmkit kernels\n\n"
               "Lists the CUDA SGEMM kernels of this build: id (for gemmkit run --kernel and\n"
               "gk_cuda_sgemm_kernel), name, minimum compute capability, whether it uses tensor\n"
               "cores, its operand unit roundoff u_in (0: FP32 products, 4.9e-04: TF32) and the\n"
               "technique the step adds.\n");
}

int gk_cmd_kernels(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
        fprintf(stderr, "gemmkit kernels: unknown option '%s'\n", argv[i]);
        usage(stderr);
        return 2;
    }
    int count = gk_cuda_kernel_count();
    gk_cuda_kernel_info ki;
    if (count == 0 && gk_cuda_kernel_info_get(0, &ki) == GK_ERR_NOT_BUILT) {
        printf("this build has no CUDA backend (nvcc was not found at build time): no kernels\n");
        return 0;
    }
    printf("%-3s %-28s %-6s %-3s %-8s %s\n", "id", "name", "min_sm", "tc", "u_in", "technique");
    for (int id = 0; id < count; id++) {
        gk_status st = gk_cuda_kernel_info_get(id, &ki);
        if (st != GK_SUCCESS) {
            fprintf(stderr, "gemmkit kernels: kernel %d: %s (%s)\n", id, gk_status_string(st),
                    gk_last_error());
            return 1;
        }
        printf("%-3d %-28s sm_%-3d %-3s %-8.2g %s\n", ki.id, ki.name, ki.min_sm,
               ki.tensor_cores ? "yes" : "no", ki.input_rounding, ki.technique);
    }
    printf("%d kernels; CUDA device %s\n", count,
           gk_cuda_available() ? "available" : "not available on this machine");
    return 0;
}
