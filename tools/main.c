/*
 * main.c — `gemmkit`, the command-line front end: dispatches to one subcommand per file
 * (commands.h); the work itself is done by the benchmark library (bench/bench.h) and the library.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "gemmkit.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} commands[] = {
    {"info", gk_cmd_info, "CPU features, chosen kernel, block sizes, threads; CUDA devices"},
    {"run", gk_cmd_run, "one GEMM of a given shape/layout/type on cpu or gpu, verified and timed"},
    {"bench", gk_cmd_bench,
     "benchmark against OpenBLAS/BLIS (cpu), cuBLAS (gpu), cuBLASLt (gpu, --dtype)"},
    {"ladder", gk_cmd_ladder, "run every CUDA ladder kernel plus cuBLAS: check, time, plot"},
    {"kernels", gk_cmd_kernels, "list the CPU and CUDA kernel registries (--json)"},
    {"quant", gk_cmd_quant, "show values in every number format: bits, value, rounding error"},
    {"batched", gk_cmd_batched, "strided-batched SGEMM on the GPU against cuBLAS: check, time"},
    {"tune", gk_cmd_tune, "time the GPU FP32 plans per shape and store the winners (tune cache)"},
};

static void usage(FILE *f) {
    fprintf(f, "usage: gemmkit <command> [options]   (gemmkit <command> --help)\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\ngemmkit %s\n", gk_version());
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("gemmkit %s\n", gk_version());
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "gemmkit: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
