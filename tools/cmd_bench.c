/*
 * cmd_bench.c — `gemmkit bench`: parses the benchmark's options and runs the CPU benchmark
 * (bench_cpu_run: gemmkit against OpenBLAS and BLIS), the GPU ladder (bench_ladder_run) or both.
 * Also answers the CPU benchmark's worker processes (bench --worker, see bench.h). With --dtype
 * it is the mixed-precision GPU benchmark instead, which has its own options (cmd_bench_tc.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"
#include "commands.h"
#include "gemmkit.h"

/* The command line: the CPU benchmark's options plus which devices to run and the worker mode. */
typedef struct bench_cli {
    int cpu, gpu;
    const char *worker; /* internal: run one implementation on b.shapes[0] */
    bench_cpu_opts b;
    char out_default[4096];
} bench_cli;

static void usage(FILE *f) {
    fprintf(
        f, "usage: gemmkit bench [--device cpu|gpu|all] [--quick] [--threads LIST] [--sizes LIST]\n"
           "                     [--impls LIST] [--min-time S] [--rounds R] [--baseline BIN]\n"
           "                     [--out DIR] [--no-plot]\n\n"
           "CPU: times gemmkit, OpenBLAS and BLIS (as shipped and at their best) on square sizes\n"
           "64..4096 (--quick: ..2048) and skinny 4096x4096x64, 64x4096x4096, 4096x64x4096 plus\n"
           "1000^3, at 1 thread and at all threads; median of >= 5 timed calls after warm-up.\n"
           "Writes cpu-<cpu>-<date>.csv/.json/.png under --out and prints a table last.\n\n"
           "  --device D     cpu (default), gpu (the CUDA ladder harness) or all\n"
           "  --quick        square sizes up to 2048 and a shorter time box per measurement\n"
           "  --threads L    thread counts, e.g. 1,2 (default: 1 and all online cores)\n"
           "  --sizes L      shapes replacing the defaults: N (square) or MxNxK, comma-separated\n"
           "  --impls L      subset of gemmkit,openblas,openblas-best,blis,blis-best\n"
           "  --min-time S   seconds of timed calls per measurement (default 0.3, --quick 0.1)\n"
           "  --rounds R     repeat every measurement R times, implementations interleaved and\n"
           "                 their order reversed each round; report the median of the round\n"
           "                 medians (default 1; use 3 or more on a shared or noisy machine)\n"
           "  --baseline B   add a 'baseline' column: gemmkit as built in the binary B (e.g.\n"
           "                 another revision's build/bin/gemmkit), for A/B comparisons\n"
           "  --out DIR      results directory (default: bench-results in the build\n"
           "                 directory of this binary, e.g. build/bench-results)\n"
           "  --no-plot      skip the PNG (bench/plot.py, needs matplotlib)\n\n"
           "gemmkit bench --device cpu --dtype bf16|f16: the CPU's gk_gemm_ex against its FP32\n"
           "and OpenBLAS's cblas_sbgemm; see gemmkit bench --device cpu --dtype bf16 --help.\n"
           "gemmkit bench --dtype LIST ...: the mixed-precision GPU benchmark against cuBLASLt\n"
           "(BF16, FP16, TF32, 3xTF32, FP8); see gemmkit bench --dtype bf16 --help.\n");
}

/* Split a comma-separated list in place, calling fn on each item; 0 if any item is rejected. */
static int for_each_item(char *list, int (*fn)(const char *, bench_cpu_opts *), bench_cpu_opts *o) {
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save))
        if (!fn(tok, o)) return 0;
    return 1;
}

static int add_shape(const char *s, bench_cpu_opts *o) {
    return cli_add_shapes(s, o->shapes, &o->nshapes, BENCH_MAX_SHAPES);
}

static int add_threads(const char *s, bench_cpu_opts *o) {
    int64_t v;
    if (!cli_parse_i64(s, &v) || v < 1 || v > 1024 || o->nthreads >= BENCH_MAX_THREADS) return 0;
    o->threads[o->nthreads++] = (int)v;
    return 1;
}

static int add_impl(const char *s, bench_cpu_opts *o) {
    int id = bench_impl_find(s);
    if (id < 0) return 0;
    o->use_impl[id] = 1;
    return 1;
}

/* Returns 0 on success, 1 after --help, 2 on a usage error (message printed). */
static int parse(int argc, char **argv, bench_cli *o) {
    *o = (bench_cli){.cpu = 1, .b = {.plot = 1, .min_time = -1, .rounds = 1}};
    cli_default_out(o->out_default, sizeof o->out_default);
    o->b.out_dir = o->out_default;
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
            usage(stdout);
            return 1;
        }
        if (!strcmp(opt, "--quick")) {
            o->b.quick = 1;
            continue;
        }
        if (!strcmp(opt, "--no-plot")) {
            o->b.plot = 0;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "gemmkit bench: '%s' needs a value (or is unknown)\n", opt);
            return 2;
        }
        char *v = argv[++i];
        int ok = 1;
        if (!strcmp(opt, "--device")) {
            ok = !strcmp(v, "cpu") || !strcmp(v, "gpu") || !strcmp(v, "all");
            o->cpu = strcmp(v, "gpu") != 0;
            o->gpu = strcmp(v, "cpu") != 0;
        } else if (!strcmp(opt, "--threads")) {
            ok = for_each_item(v, add_threads, &o->b);
        } else if (!strcmp(opt, "--sizes")) {
            ok = for_each_item(v, add_shape, &o->b);
        } else if (!strcmp(opt, "--impls")) {
            ok = for_each_item(v, add_impl, &o->b);
        } else if (!strcmp(opt, "--min-time")) {
            char *end;
            o->b.min_time = strtod(v, &end);
            ok = end != v && !*end && o->b.min_time >= 0 && o->b.min_time <= 60;
        } else if (!strcmp(opt, "--rounds")) {
            int64_t r = 0;
            ok = cli_parse_i64(v, &r) && r >= 1 && r <= BENCH_MAX_ROUNDS;
            o->b.rounds = (int)r;
        } else if (!strcmp(opt, "--baseline")) {
            ok = access(v, X_OK) == 0;
            o->b.baseline = v;
        } else if (!strcmp(opt, "--out")) {
            o->b.out_dir = v;
        } else if (!strcmp(opt, "--worker")) {
            ok = bench_impl_find(v) >= 0 && bench_impl_find(v) != bench_impl_baseline();
            o->worker = v;
        } else {
            fprintf(stderr, "gemmkit bench: unknown option '%s'\n", opt);
            return 2;
        }
        if (!ok) {
            fprintf(stderr, "gemmkit bench: bad value '%s' for %s\n", v, opt);
            return 2;
        }
    }
    const int base = bench_impl_baseline();
    if (o->b.use_impl[base] && !o->b.baseline) {
        fprintf(stderr, "gemmkit bench: the baseline column needs --baseline BIN\n");
        return 2;
    }
    return 0;
}

static int run_gpu(const bench_cpu_opts *b) {
#ifdef GK_HAVE_CUDA
    if (gk_cuda_available()) {
        /* The ladder has its own size and time options; the run shares --out and --no-plot. */
        bench_ladder_opts lo;
        bench_ladder_defaults(&lo, b->out_dir);
        lo.plot = b->plot;
        return bench_ladder_run(&lo);
    }
#else
    (void)b;
#endif
    printf("\ngpu: no usable CUDA device (or no CUDA backend in this build); GPU benchmark "
           "skipped\n");
    return 0;
}

int gk_cmd_bench(int argc, char **argv) {
    int cpu = 0; /* --device cpu with --dtype: the CPU's gk_gemm_ex, else the GPU's */
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--device") && !strcmp(argv[i + 1], "cpu")) cpu = 1;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--dtype"))
            return cpu ? gk_cmd_bench_ex(argc, argv) : gk_cmd_bench_tc(argc, argv);
    bench_cli *o = calloc(1, sizeof *o);
    if (!o) return 1;
    int rc = parse(argc, argv, o);
    if (rc == 1)
        rc = 0;
    else if (rc == 2)
        usage(stderr);
    else if (o->worker)
        rc = bench_cpu_worker(&o->b, o->worker);
    else {
        if (o->cpu) rc = bench_cpu_run(&o->b);
        if (o->gpu) {
            int g = run_gpu(&o->b);
            if (!rc) rc = g;
        }
    }
    free(o);
    return rc;
}
