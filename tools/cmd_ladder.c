/*
 * cmd_ladder.c — `gemmkit ladder`: parses the options of the GPU ladder benchmark and runs it
 * (bench_ladder_run: every CUDA registry kernel and cuBLAS, checked against float64, then timed).
 * With the Triton ladder's rows merged (--triton, --triton-csv) it also prints each Triton step in
 * the row of its CUDA step; bench/triton_peer.py --pair does that from the Triton registry
 * (triton_ladder/registry.py), the one place the pairing lives.
 * A build without the CUDA backend has the command too, and says why it cannot run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "commands.h"

#ifndef GK_HAVE_CUDA
int gk_cmd_ladder(int argc, char **argv) {
    (void)argc, (void)argv;
    fprintf(stderr, "gemmkit ladder: this build has no CUDA backend (nvcc was not found at build "
                    "time); rebuild with nvcc on PATH or CUDA_HOME set\n");
    return 2;
}
#else
static void usage(FILE *f) {
    fprintf(
        f,
        "usage: gemmkit ladder [--sizes 4096,8192] [--sweep] [--kernels LIST] [--reps N]\n"
        "                      [--budget SEC] [--rounds R] [--device N] [--out DIR] [--no-cublas]\n"
        "                      [--triton | --triton-csv FILE] [--no-plot]\n"
        "Checks every CUDA registry kernel (and cuBLAS FP32/TF32) against a float64 GPU\n"
        "reference on n x n x n problems (or M x N x K: --sizes 64x8192x8192,4096), then\n"
        "times it: median of up to N runs\n"
        "(default 30, at least 3, at most SEC seconds each, default 1.5) with L2 flushed\n"
        "between runs. The timed runs are spread over R rounds (default 3) that visit every\n"
        "variant in turn, so all see the GPU in the same thermal state. LIST: names or name\n"
        "prefixes such as the step number 13, comma separated. --sweep: sizes 256..8192.\n"
        "--triton: also run the Triton ladder (bench/triton_peer.py: every step of\n"
        "triton_ladder/, checked and timed the same way; --triton-csv: merge its earlier\n"
        "output instead) and print each Triton step beside its CUDA step.\n"
        "Writes gpu_ladder.csv/.json and plots (bench/plot_gpu.py) under DIR\n"
        "(default: bench-results in the build directory of this binary, e.g.\n"
        "build/bench-results); the table, CSV and JSON give NVML's mean SM clock, board\n"
        "power and TFLOPS per watt. Exit status 1 if a variant fails its check.\n");
}

/* "N" (square) or "MxNxK", comma separated. Each side 1..46340 and the largest matrix of a
 * problem at most 46340^2 elements (its float64 reference must fit in memory). */
static int parse_sizes(const char *s, bench_ladder_opts *o) {
    const long long max_side = 46340, max_elems = max_side * max_side;
    o->nsizes = 0;
    while (*s) {
        long long d[3];
        int nd = 0;
        const char *p = s;
        for (;;) {
            char *end;
            d[nd] = strtoll(p, &end, 10);
            if (end == p || d[nd] < 1 || d[nd] > max_elems) return 0;
            nd++, p = end;
            if (*p != 'x' || nd == 3) break;
            p++;
        }
        if ((nd != 1 && nd != 3) || (*p && *p != ',') || o->nsizes >= BENCH_LADDER_MAX_SIZES)
            return 0;
        const int i = o->nsizes++;
        if (nd == 1) {
            if (d[0] > max_side) return 0;
            o->sizes[i] = d[0];
            o->shapes[i][0] = o->shapes[i][1] = o->shapes[i][2] = 0;
        } else {
            if (d[0] * d[2] > max_elems || d[2] * d[1] > max_elems || d[0] * d[1] > max_elems)
                return 0;
            o->sizes[i] = 0;
            for (int j = 0; j < 3; j++)
                o->shapes[i][j] = d[j];
        }
        s = *p == ',' ? p + 1 : p;
    }
    return o->nsizes > 0;
}

/* Each Triton step in the row of its CUDA step, from the CSV just written (stdout, after the
 * table). Needs Python only, not torch or triton. */
static void print_pairs(const char *out) {
    const char *py = getenv("GK_PYTHON") ? getenv("GK_PYTHON") : "python3";
    char cmd[8192];
    if (snprintf(cmd, sizeof cmd, "%s bench/triton_peer.py --pair '%s/gpu_ladder.csv'", py, out) >=
        (int)sizeof cmd)
        return;
    fflush(stdout);
    printf("\nCUDA and Triton steps side by side (TFLOPS):\n");
    fflush(stdout);
    if (system(cmd) != 0)
        fprintf(stderr, "gemmkit ladder: bench/triton_peer.py --pair failed (run from the source "
                        "tree)\n");
}

int gk_cmd_ladder(int argc, char **argv) {
    static const int64_t sweep[] = {256, 512, 1024, 2048, 3072, 4096, 6144, 8192};
    char out[4096];
    cli_default_out(out, sizeof out);
    bench_ladder_opts o;
    bench_ladder_defaults(&o, out);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const int has_val = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--sizes") && has_val) {
            if (!parse_sizes(argv[++i], &o)) {
                fprintf(stderr, "gemmkit ladder: --sizes wants n or MxNxK items, comma separated, "
                                "1 <= n <= 46340, no matrix over 46340^2 elements\n");
                return 2;
            }
        } else if (!strcmp(a, "--sweep")) {
            o.nsizes = (int)(sizeof sweep / sizeof sweep[0]);
            memcpy(o.sizes, sweep, sizeof sweep);
            memset(o.shapes, 0, sizeof o.shapes);
        } else if (!strcmp(a, "--kernels") && has_val) {
            o.kernels = argv[++i];
        } else if (!strcmp(a, "--reps") && has_val) {
            o.reps = atoi(argv[++i]);
        } else if (!strcmp(a, "--rounds") && has_val) {
            o.rounds = atoi(argv[++i]);
        } else if (!strcmp(a, "--budget") && has_val) {
            o.budget = atof(argv[++i]);
        } else if (!strcmp(a, "--device") && has_val) {
            o.device = atoi(argv[++i]);
        } else if (!strcmp(a, "--out") && has_val) {
            o.out = argv[++i];
        } else if (!strcmp(a, "--no-cublas")) {
            o.cublas = 0;
        } else if (!strcmp(a, "--triton")) {
            o.triton = 1;
        } else if (!strcmp(a, "--triton-csv") && has_val) {
            o.triton_csv = argv[++i];
        } else if (!strcmp(a, "--no-plot")) {
            o.plot = 0;
        } else {
            fprintf(stderr, "gemmkit ladder: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (o.reps < 3 || o.budget <= 0 || o.rounds < 1) {
        fprintf(stderr, "gemmkit ladder: --reps must be >= 3, --budget > 0, --rounds >= 1\n");
        return 2;
    }
    const int rc = bench_ladder_run(&o);
    if (rc != 2 && (o.triton || (o.triton_csv && *o.triton_csv))) print_pairs(o.out);
    return rc;
}
#endif
