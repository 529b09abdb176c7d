/*
 * cmd_kernels.c — `gemmkit kernels`: the CPU micro-kernel registry (gk_cpu_kernel_count /
 * gk_cpu_kernel_info_get) and the CUDA kernel registry (gk_cuda_kernel_count /
 * gk_cuda_kernel_info_get) as the library reports them, so this list can never drift from the
 * code. --json prints both in the schema the doc generator reads:
 *   {"cpu": [{"id", "name", "arch", "mr", "nr", "usable", "selected"}, ...],
 *    "gpu": [{"id", "name", "technique", "min_sm", "tensor_cores", "input_rounding",
 *             "default"}, ...],
 *    "gpu_built": true|false}
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "gemmkit.h"
#include "harness/harness.h"

static void usage(FILE *f) {
    fprintf(f,
            "usage: gemmkit kernels [--json]\n\n"
            "Lists the CPU micro-kernel families of this build (id, name, ISA family, micro-tile\n"
            "MR x NR, whether this CPU can run it, which one calls use now) and the CUDA SGEMM\n"
            "kernels: id (for gemmkit run --kernel and gk_cuda_sgemm_kernel), name, minimum\n"
            "compute capability, whether it uses tensor cores, its operand unit roundoff u_in\n"
            "(0: FP32 products, 4.9e-04: TF32), the technique the step adds, and which one\n"
            "gk_cuda_sgemm runs by default. --json: the same as one JSON object.\n");
}

/* 1 when the library has the CUDA backend; the registry is readable without a device. */
static int cuda_built(void) {
    gk_cuda_kernel_info ki;
    return gk_cuda_kernel_count() > 0 || gk_cuda_kernel_info_get(0, &ki) != GK_ERR_NOT_BUILT;
}

static int fail(const char *what, int id, gk_status st) {
    fprintf(stderr, "gemmkit kernels: %s kernel %d: %s (%s)\n", what, id, gk_status_string(st),
            gk_last_error());
    return 1;
}

static void json_str(const char *s) {
    char q[512];
    fputs(gkh_json_quote(q, sizeof q, s ? s : ""), stdout);
}

static const char *json_bool(int v) {
    return v ? "true" : "false";
}

/* A double that reads back exactly and always as a JSON number with a fraction ("0.0"). */
static void json_double(double v) {
    char b[40];
    snprintf(b, sizeof b, "%.17g", v);
    fputs(b, stdout);
    if (!strpbrk(b, ".eEn")) fputs(".0", stdout);
}

static int print_json(void) {
    printf("{\"cpu\": [");
    for (int id = 0; id < gk_cpu_kernel_count(); id++) {
        gk_cpu_kernel_info ki;
        gk_status st = gk_cpu_kernel_info_get(id, &ki);
        if (st != GK_SUCCESS) return fail("CPU", id, st);
        printf("%s\n  {\"id\": %d, \"name\": ", id ? "," : "", ki.id);
        json_str(ki.name);
        printf(", \"arch\": ");
        json_str(ki.arch);
        printf(", \"mr\": %d, \"nr\": %d, \"usable\": %s, \"selected\": %s}", ki.mr, ki.nr,
               json_bool(ki.usable), json_bool(ki.selected));
    }
    printf("],\n \"gpu\": [");
    const int built = cuda_built();
    for (int id = 0; built && id < gk_cuda_kernel_count(); id++) {
        gk_cuda_kernel_info ki;
        gk_status st = gk_cuda_kernel_info_get(id, &ki);
        if (st != GK_SUCCESS) return fail("CUDA", id, st);
        printf("%s\n  {\"id\": %d, \"name\": ", id ? "," : "", ki.id);
        json_str(ki.name);
        printf(", \"technique\": ");
        json_str(ki.technique);
        printf(", \"min_sm\": %d, \"tensor_cores\": %s, \"input_rounding\": ", ki.min_sm,
               json_bool(ki.tensor_cores));
        json_double(ki.input_rounding);
        printf(", \"default\": %s}", json_bool(ki.is_default));
    }
    printf("],\n \"gpu_built\": %s}\n", json_bool(built));
    return 0;
}

static int print_text(void) {
    const int ncpu = gk_cpu_kernel_count();
    printf("CPU micro-kernels (GEMMKIT_ARCH / gk_set_arch pick the family)\n");
    printf("%-3s %-20s %-8s %-7s %-6s %s\n", "id", "name", "arch", "MRxNR", "usable", "selected");
    for (int id = 0; id < ncpu; id++) {
        gk_cpu_kernel_info ki;
        gk_status st = gk_cpu_kernel_info_get(id, &ki);
        if (st != GK_SUCCESS) return fail("CPU", id, st);
        char tile[16];
        snprintf(tile, sizeof tile, "%dx%d", ki.mr, ki.nr);
        printf("%-3d %-20s %-8s %-7s %-6s %s\n", ki.id, ki.name, ki.arch, tile,
               ki.usable ? "yes" : "no", ki.selected ? "*" : "");
    }
    printf("%d CPU kernels\n\nCUDA kernels\n", ncpu);
    if (!cuda_built()) {
        printf("this build has no CUDA backend (nvcc was not found at build time): no kernels\n");
        return 0;
    }
    const int count = gk_cuda_kernel_count();
    printf("%-3s %-28s %-6s %-3s %-8s %-7s %s\n", "id", "name", "min_sm", "tc", "u_in", "default",
           "technique");
    for (int id = 0; id < count; id++) {
        gk_cuda_kernel_info ki;
        gk_status st = gk_cuda_kernel_info_get(id, &ki);
        if (st != GK_SUCCESS) return fail("CUDA", id, st);
        printf("%-3d %-28s sm_%-3d %-3s %-8.2g %-7s %s\n", ki.id, ki.name, ki.min_sm,
               ki.tensor_cores ? "yes" : "no", ki.input_rounding, ki.is_default ? "*" : "",
               ki.technique);
    }
    printf("%d CUDA kernels; CUDA device %s\n", count,
           gk_cuda_available() ? "available" : "not available on this machine");
    return 0;
}

int gk_cmd_kernels(int argc, char **argv) {
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--json")) {
            json = 1;
            continue;
        }
        fprintf(stderr, "gemmkit kernels: unknown option '%s'\n", argv[i]);
        usage(stderr);
        return 2;
    }
    return json ? print_json() : print_text();
}
