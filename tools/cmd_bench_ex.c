/*
 * cmd_bench_ex.c — `gemmkit bench --device cpu --dtype bf16|f16`: the options of the CPU
 * low-precision benchmark (bench/cpu/bench_ex.c): gk_gemm_ex against gemmkit's FP32 and OpenBLAS's
 * cblas_sbgemm where it exists.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

static void usage(FILE *f) {
    fprintf(f,
            "usage: gemmkit bench --device cpu --dtype bf16|f16 [--sizes LIST] [--threads LIST]\n"
            "                     [--min-time S] [--csv FILE]\n\n"
            "Times gk_gemm_ex (row-major NN squares, C float32) against gemmkit's float32\n"
            "gk_sgemm on the same values and OpenBLAS's cblas_sbgemm (bf16, when the linked\n"
            "OpenBLAS exports it), each result checked on sampled elements against float64.\n\n"
            "  --dtype bf16|f16   operand type (fp16 is f16)\n"
            "  --sizes LIST       comma-separated square sizes (default 1024,2048,4096)\n"
            "  --threads LIST     comma-separated thread counts (default: gemmkit's default)\n"
            "  --min-time S       seconds of timed calls per measurement (default 0.5)\n"
            "  --csv FILE         also write the results as CSV\n");
}

static int parse_list(const char *s, int64_t *out, int max, int *n, int64_t lo) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s", s);
    *n = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int64_t v;
        if (*n >= max || !cli_parse_i64(tok, &v) || v < lo || v > 65536) return 0;
        out[(*n)++] = v;
    }
    return *n > 0;
}

int gk_cmd_bench_ex(int argc, char **argv) {
    bench_cpu_ex_opts o = {.fmt = GK_BF16,
                           .nsizes = 3,
                           .sizes = {1024, 2048, 4096},
                           .nthreads = 1,
                           .threads = {0},
                           .min_time = 0.5};
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
            usage(stdout);
            return 0;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "gemmkit bench: '%s' needs a value (or is unknown)\n", opt);
            usage(stderr);
            return 2;
        }
        const char *v = argv[++i];
        int ok = 1;
        if (!strcmp(opt, "--device")) {
            ok = !strcmp(v, "cpu");
        } else if (!strcmp(opt, "--dtype")) {
            ok = bench_format_parse(v, &o.fmt) && (o.fmt == GK_BF16 || o.fmt == GK_F16);
        } else if (!strcmp(opt, "--sizes")) {
            ok = parse_list(v, o.sizes, BENCH_MAX_SHAPES, &o.nsizes, 1);
        } else if (!strcmp(opt, "--threads")) {
            int64_t t[BENCH_MAX_THREADS];
            ok = parse_list(v, t, BENCH_MAX_THREADS, &o.nthreads, 1);
            for (int j = 0; ok && j < o.nthreads; j++)
                o.threads[j] = (int)t[j];
        } else if (!strcmp(opt, "--min-time")) {
            char *end;
            o.min_time = strtod(v, &end);
            ok = end != v && !*end && o.min_time >= 0;
        } else if (!strcmp(opt, "--csv")) {
            o.csv = v;
        } else {
            fprintf(stderr, "gemmkit bench: unknown option '%s' (with --device cpu --dtype)\n",
                    opt);
            usage(stderr);
            return 2;
        }
        if (!ok) {
            fprintf(stderr, "gemmkit bench: bad value '%s' for %s\n", v, opt);
            usage(stderr);
            return 2;
        }
    }
    return bench_cpu_ex_run(&o);
}
