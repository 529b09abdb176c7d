/*
 * cmd_bench_tc.c — `gemmkit bench --dtype LIST`: the options of the mixed-precision GPU benchmark
 * (bench_tc_run: gemmkit's gk_cuda_gemm_ex, gk_cuda_gemm_scaled and the 3xTF32 SGEMM against
 * cuBLASLt, checked against float64, timed with the L2 flushed, with clock and power). A build
 * without the CUDA backend parses the options too, then says why nothing runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "commands.h"
#include "gemmkit.h"

static void usage(FILE *f) {
    const char *name, *what;
    fprintf(
        f,
        "usage: gemmkit bench --dtype LIST [--out-dtype T] [--layout row|col] [--ta n|t]\n"
        "                     [--tb n|t] [--sizes LIST | --shapes S] [--reps R] [--rounds R]\n"
        "                     [--warmup W]\n"
        "                     [--samples S] [--no-peer] [--fp8-fast-accum] [--seed S]\n"
        "                     [--out DIR] [--no-plot]\n\n"
        "Mixed-precision GEMM on GPU 0, gemmkit against cuBLASLt in the same run. For every\n"
        "size and dtype: random operands (FP8 scaled to its range, with per-tensor scales;\n"
        "block-scaled types quantized from random normal data), both results checked against\n"
        "float64 on sampled elements, then R timed runs each (CUDA events, L2 flushed before\n"
        "each, median reported) spread over rounds that rotate gemmkit and its peers, with\n"
        "NVML's SM clock, power and throttle reasons. Writes gpu_tc.csv/.json and plots\n"
        "(bench/plot_tc.py) under DIR and prints a table with TFLOPS, %% of the datasheet peak\n"
        "at the measured clock and the errors, one row per peer.\n\n"
        "  --dtype LIST     comma-separated: f32 (gk_cuda_sgemm vs cuBLAS FP32), 3xtf32\n"
        "                   (gk_cuda_sgemm in the 3xTF32 mode vs cuBLAS FP32), tf32 (vs cuBLAS\n"
        "                   TF32), bf16, f16, e4m3, e5m2 (vs cuBLASLt in that type), a gk_format\n"
        "                   name (bfloat16, float8_e4m3fn, ...), A:B for different A and B, or\n"
        "                   a block-scaled type (gk_cuda_gemm_scaled vs cuBLASLt per-tensor FP8\n"
        "                   E4M3 with scales 1 on the same codes, cublaslt_fp8; e4m3-b128 also\n"
        "                   vs cuBLASLt's own 1x128 / 128x128 scaling, cublaslt_fp8_b128):\n");
    for (int i = 0; (name = bench_dtype_scaled(i, NULL, &what)); i++)
        fprintf(f, "                     %-11s %s\n", name, what);
    fprintf(
        f,
        "  --out-dtype T    type of C: f32, bf16 or f16 (default: f32 for f32/tf32/3xtf32, the\n"
        "                   operand type for bf16/f16, bf16 for FP8 and block-scaled types)\n"
        "  --layout L       row or col (default col)\n"
        "  --ta, --tb       transpose A / B (default n; FP8 and block-scaled: both operands\n"
        "                   K-major, i.e. col-major --ta t --tb n, row-major --ta n --tb t, the\n"
        "                   only FP8 layout cuBLASLt has)\n"
        "  --sizes LIST     N, MxNxK or LO:HI:STEP (squares), comma-separated (default 1024,\n"
        "                   2048, 3072, 4096, 6144, 8192, 12288, 16384)\n"
        "  --shapes S       llm: M in 1..16384 times the (N, K) of Llama-3.1-8B and\n"
        "                   Qwen2.5-32B linear layers, then squares 1024-16384 (row-major\n"
        "                   C = A W^T: use --layout row --ta n --tb t); or a file of 'M N K' "
        "lines\n"
        "  --reps R         timed runs per implementation and size (default 20)\n"
        "  --rounds R       rounds the runs are spread over (default 2)\n"
        "  --warmup W       untimed calls after the check (default 3)\n"
        "  --samples S      elements of each result checked against float64 (default 2048)\n"
        "  --no-peer        gemmkit only\n"
        "  --fp8-fast-accum FP8 partial sums stay in the tensor core (gemmkit and cuBLASLt;\n"
        "                   block-scaled types: the per-tensor peer only)\n"
        "  --seed S         random seed (default 1)\n"
        "  --out DIR        results directory (default: bench-results in the build directory\n"
        "                   of this binary)\n"
        "  --no-plot        skip the PNG plots\n\n"
        "Exit status: 0 every result passed its check (n/a entries do not count), 1 a check or\n"
        "a call failed, 2 a usage error or an unusable device.\n");
}

/* The lists are split in a copy: the message about a bad one quotes it whole. */
static int add_dtypes(const char *arg, bench_tc_opts *o) {
    char list[1024];
    if ((size_t)snprintf(list, sizeof list, "%s", arg) >= sizeof list) return 0;
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save))
        if (o->ndtypes >= BENCH_TC_MAX_DTYPES || !bench_dtype_parse(tok, &o->dtypes[o->ndtypes++]))
            return 0;
    return o->ndtypes > 0;
}

static int add_sizes(const char *arg, bench_tc_opts *o) {
    char list[1024];
    if ((size_t)snprintf(list, sizeof list, "%s", arg) >= sizeof list) return 0;
    o->nshapes = 0;
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save))
        if (!cli_add_shapes(tok, o->shapes, &o->nshapes, BENCH_TC_MAX_SHAPES)) return 0;
    return o->nshapes > 0;
}

static int parse_trans(const char *s, gk_trans *t) {
    if (!strcmp(s, "n") || !strcmp(s, "N")) return *t = GK_NO_TRANS, 1;
    if (!strcmp(s, "t") || !strcmp(s, "T")) return *t = GK_TRANS, 1;
    return 0;
}

static int parse_int(const char *s, int lo, int hi, int *out) {
    int64_t v;
    if (!cli_parse_i64(s, &v) || v < lo || v > hi) return 0;
    *out = (int)v;
    return 1;
}

/* 0 on success, 1 after --help, 2 on a usage error (message printed). */
static int parse(int argc, char **argv, bench_tc_opts *o, char *out_default, size_t len) {
    cli_default_out(out_default, len);
    bench_tc_defaults(o, out_default);
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
            usage(stdout);
            return 1;
        }
        if (!strcmp(opt, "--no-peer")) {
            o->peer = 0;
            continue;
        }
        if (!strcmp(opt, "--no-plot")) {
            o->plot = 0;
            continue;
        }
        if (!strcmp(opt, "--fp8-fast-accum")) {
            o->fp8_fast_accum = 1;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "gemmkit bench: '%s' needs a value (or is unknown)\n", opt);
            return 2;
        }
        const char *v = argv[++i];
        int ok = 1;
        int64_t x = 0;
        if (!strcmp(opt, "--dtype")) {
            ok = add_dtypes(v, o);
        } else if (!strcmp(opt, "--out-dtype")) {
            ok = bench_format_parse(v, &o->out_type);
            o->out_type_set = 1;
        } else if (!strcmp(opt, "--device")) {
            ok = !strcmp(v, "gpu"); /* the mixed-precision benchmark has no CPU side */
        } else if (!strcmp(opt, "--layout")) {
            ok = !strcmp(v, "row") || !strcmp(v, "col");
            o->layout = !strcmp(v, "row") ? GK_ROW_MAJOR : GK_COL_MAJOR;
        } else if (!strcmp(opt, "--ta") || !strcmp(opt, "--tb")) {
            ok = parse_trans(v, opt[3] == 'a' ? &o->ta : &o->tb);
            o->trans_set = 1;
        } else if (!strcmp(opt, "--sizes")) {
            ok = add_sizes(v, o);
        } else if (!strcmp(opt, "--shapes")) {
            const int n = !strcmp(v, "llm")
                              ? bench_tc_llm_shapes(o->shapes, BENCH_TC_MAX_SHAPES)
                              : bench_tc_shapes_file(v, o->shapes, BENCH_TC_MAX_SHAPES);
            ok = n > 0 && n <= BENCH_TC_MAX_SHAPES;
            if (ok) o->nshapes = n;
        } else if (!strcmp(opt, "--reps")) {
            ok = parse_int(v, 1, 100000, &o->reps);
        } else if (!strcmp(opt, "--rounds")) {
            ok = parse_int(v, 1, BENCH_MAX_ROUNDS, &o->rounds);
        } else if (!strcmp(opt, "--warmup")) {
            ok = parse_int(v, 0, 1000, &o->warmup);
        } else if (!strcmp(opt, "--samples")) {
            ok = cli_parse_i64(v, &x) && x >= 1 && x <= (int64_t)1 << 31;
            o->samples = x;
        } else if (!strcmp(opt, "--seed")) {
            ok = cli_parse_i64(v, &x);
            o->seed = (uint64_t)x;
        } else if (!strcmp(opt, "--out")) {
            o->out = v;
        } else {
            fprintf(stderr, "gemmkit bench: unknown option '%s' (with --dtype)\n", opt);
            return 2;
        }
        if (!ok) {
            fprintf(stderr, "gemmkit bench: bad value '%s' for %s\n", v, opt);
            return 2;
        }
    }
    return 0;
}

int gk_cmd_bench_tc(int argc, char **argv) {
    bench_tc_opts o;
    char out_default[4096];
    const int rc = parse(argc, argv, &o, out_default, sizeof out_default);
    if (rc == 1) return 0;
    if (rc == 2) {
        usage(stderr);
        return 2;
    }
#ifdef GK_HAVE_CUDA
    if (gk_cuda_available()) return bench_tc_run(&o);
#endif
    printf("gpu: no usable CUDA device (or no CUDA backend in this build); the mixed-precision "
           "benchmark is skipped\n");
    return 0;
}
