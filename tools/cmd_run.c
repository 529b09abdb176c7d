/*
 * cmd_run.c — `gemmkit run`: parses the options of one GEMM (shape, layout, transposition,
 * scalars, device, operand and result types) and runs it through the benchmark library
 * (bench_run_one for float32, bench_tc_run_one for the mixed-precision types of --dtype: random
 * data, a float64 check, timed calls).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "commands.h"
#include "gemmkit.h"

static void usage(FILE *f) {
    fprintf(f,
            "usage: gemmkit run [--device cpu|gpu|gpu:all] -m M -n N -k K [options]\n\n"
            "Runs C = alpha*op(A)*op(B) + beta*C once on random data, checks it against a float64\n"
            "reference (all elements when M*N*K <= 2^27, else 1000 sampled elements incl. the\n"
            "corners; bound ((K+2)*FLT_EPSILON + 2*u_in) * sum|a*b| + FLT_MIN, plus the rounding\n"
            "of a 16-bit C), then times it.\n\n"
            "  --device D         where to run: cpu (default), gpu (device 0, operands in its\n"
            "                     memory), gpu:all (operands in host memory, C's tiles spread\n"
            "                     over every visible GPU: gk_cuda_sgemm_host_multi; float32)\n"
            "  -m, -n, -k         sizes of op(A) (M x K), op(B) (K x N), C (M x N); required\n"
            "  --layout row|col   storage order of all three matrices (default col)\n"
            "  --ta n|t, --tb n|t transpose A / B (default n)\n"
            "  --lda/--ldb/--ldc  leading dimensions (default: the minimum for the layout)\n"
            "  --alpha a --beta b scalars (default 1 and 0)\n"
            "  --threads t        CPU threads (default: gemmkit's default)\n"
            "  --reps r           timed repetitions after the checked call (default 5)\n"
            "  --kernel ID|NAME   gpu: a registry kernel (gemmkit kernels); default gk_cuda_sgemm\n"
            "  --dtype D          cpu: f32, bf16 or f16 (fp16), both operands; anything but f32\n"
            "                     runs gk_gemm_ex\n"
            "  --dtype D          gpu: operand types (default f32: gk_cuda_sgemm as above):\n"
            "                     f32, 3xtf32 (f32 in the 3xTF32 mode), tf32, bf16, f16, e4m3,\n"
            "                     e5m2, a gk_format name (bfloat16, float8_e4m3fn, ...), or A:B\n"
            "                     for different A and B (e4m3:e5m2); FP8 operands get per-tensor\n"
            "                     scales. Anything but f32 runs gk_cuda_gemm_ex; the\n"
            "                     block-scaled types run gk_cuda_gemm_scaled on random normal\n"
            "                     data quantized with their block scales:\n"
            "                    ");
    const char *name;
    for (int i = 0; (name = bench_dtype_scaled(i, NULL, NULL)); i++)
        fprintf(f, " %s", name);
    fprintf(f, "\n"
               "  --out-dtype T      type of C: f32, bf16 or f16 (default: f32 for f32/tf32/\n"
               "                     3xtf32, the operand type for bf16/f16, bf16 for FP8 and\n"
               "                     block-scaled types)\n"
               "  --fp8-fast-accum   gpu, FP8: keep partial sums in the tensor core's accumulator\n"
               "  --seed s           random seed (default 1)\n\n"
               "Exit status: 0 PASS, 1 FAIL or runtime error, 2 usage error.\n");
}

static int parse_f(const char *s, float *out) {
    char *end;
    errno = 0;
    float v = strtof(s, &end);
    if (errno || end == s || *end) return 0;
    *out = v;
    return 1;
}

static int parse_trans(const char *s, gk_trans *t) {
    if (!strcmp(s, "n") || !strcmp(s, "N")) return *t = GK_NO_TRANS, 1;
    if (!strcmp(s, "t") || !strcmp(s, "T")) return *t = GK_TRANS, 1;
    return 0;
}

/* Returns 0 on success, 1 after printing --help, 2 on a usage error (message printed). */
static int parse(int argc, char **argv, bench_run_opts *o) {
    *o = (bench_run_opts){.m = -1,
                          .n = -1,
                          .k = -1,
                          .lda = -1,
                          .ldb = -1,
                          .ldc = -1,
                          .layout = GK_COL_MAJOR,
                          .ta = GK_NO_TRANS,
                          .tb = GK_NO_TRANS,
                          .alpha = 1.0f,
                          .reps = 5,
                          .seed = 1,
                          .dtype = {GK_F32, GK_F32, GK_FP32_SIMT}};
    int out_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
            usage(stdout);
            return 1;
        }
        if (!strcmp(opt, "--fp8-fast-accum")) {
            o->fp8_fast_accum = 1;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "gemmkit run: '%s' needs a value (or is unknown)\n", opt);
            return 2;
        }
        const char *v = argv[++i];
        int64_t x = 0;
        int ok = 1;
        if (!strcmp(opt, "--device")) {
            ok = !strcmp(v, "cpu") || !strcmp(v, "gpu") || !strcmp(v, "gpu:all");
            o->gpu = strcmp(v, "cpu") != 0, o->gpu_all = !strcmp(v, "gpu:all");
        } else if (!strcmp(opt, "-m") || !strcmp(opt, "-n") || !strcmp(opt, "-k")) {
            ok = cli_parse_i64(v, &x) && x >= 0;
            *(opt[1] == 'm' ? &o->m : opt[1] == 'n' ? &o->n : &o->k) = x;
        } else if (!strcmp(opt, "--lda") || !strcmp(opt, "--ldb") || !strcmp(opt, "--ldc")) {
            ok = cli_parse_i64(v, &x) && x >= 1;
            *(opt[4] == 'a' ? &o->lda : opt[4] == 'b' ? &o->ldb : &o->ldc) = x;
        } else if (!strcmp(opt, "--layout")) {
            ok = !strcmp(v, "row") || !strcmp(v, "col");
            o->layout = !strcmp(v, "row") ? GK_ROW_MAJOR : GK_COL_MAJOR;
        } else if (!strcmp(opt, "--ta")) {
            ok = parse_trans(v, &o->ta);
        } else if (!strcmp(opt, "--tb")) {
            ok = parse_trans(v, &o->tb);
        } else if (!strcmp(opt, "--alpha")) {
            ok = parse_f(v, &o->alpha);
        } else if (!strcmp(opt, "--beta")) {
            ok = parse_f(v, &o->beta);
        } else if (!strcmp(opt, "--threads")) {
            ok = cli_parse_i64(v, &x) && x >= 1 && x <= 4096;
            o->threads = (int)x;
        } else if (!strcmp(opt, "--reps")) {
            ok = cli_parse_i64(v, &x) && x >= 1 && x <= 1000000;
            o->reps = (int)x;
        } else if (!strcmp(opt, "--kernel")) {
            o->kernel = v;
        } else if (!strcmp(opt, "--dtype")) {
            ok = bench_dtype_parse(v, &o->dtype);
        } else if (!strcmp(opt, "--out-dtype")) {
            ok = bench_format_parse(v, &o->out);
            out_given = 1;
        } else if (!strcmp(opt, "--seed")) {
            ok = cli_parse_i64(v, &x);
            o->seed = (uint64_t)x;
        } else {
            fprintf(stderr, "gemmkit run: unknown option '%s'\n", opt);
            return 2;
        }
        if (!ok) {
            fprintf(stderr, "gemmkit run: bad value '%s' for %s\n", v, opt);
            return 2;
        }
    }
    if (o->m < 0 || o->n < 0 || o->k < 0) {
        fprintf(stderr, "gemmkit run: -m, -n and -k are required\n");
        return 2;
    }
    if (o->kernel && !o->gpu) {
        fprintf(stderr, "gemmkit run: --kernel selects a CUDA kernel; add --device gpu\n");
        return 2;
    }
    if (!out_given) o->out = bench_dtype_default_out(&o->dtype);
    /* --dtype f32 with a float32 C is today's float32 path; every other type goes mixed */
    o->mixed = o->dtype.a != GK_F32 || o->dtype.b != GK_F32 || o->dtype.fp32_mode != GK_FP32_SIMT ||
               o->out != GK_F32 || o->fp8_fast_accum;
    /* the CPU takes f32, bf16 or f16 operands (both the same) and C (gk_gemm_ex) */
    const int cpu_type = (o->dtype.a == GK_F32 || o->dtype.a == GK_BF16 || o->dtype.a == GK_F16) &&
                         o->dtype.b == o->dtype.a && o->dtype.fp32_mode == GK_FP32_SIMT &&
                         !o->dtype.scaling && !o->fp8_fast_accum &&
                         (o->out == GK_F32 || o->out == GK_BF16 || o->out == GK_F16);
    if (o->mixed && !o->gpu && !cpu_type) {
        fprintf(stderr, "gemmkit run: these types run on the GPU only; add --device gpu (the CPU "
                        "takes f32, bf16 or f16 for --dtype and --out-dtype)\n");
        return 2;
    }
    if (o->gpu_all && (o->mixed || o->kernel)) {
        fprintf(stderr, "gemmkit run: --device gpu:all runs float32 gk_cuda_sgemm_host_multi; it "
                        "does not combine with --kernel, --dtype or --out-dtype\n");
        return 2;
    }
    if (o->mixed && o->kernel) {
        fprintf(stderr, "gemmkit run: --kernel runs a float32 registry kernel; it does not combine "
                        "with --dtype/--out-dtype\n");
        return 2;
    }
    return 0;
}

int gk_cmd_run(int argc, char **argv) {
    bench_run_opts o;
    int prc = parse(argc, argv, &o);
    if (prc == 1) return 0;
    if (prc == 2) {
        usage(stderr);
        return 2;
    }
    if (o.mixed && o.gpu) {
#ifdef GK_HAVE_CUDA
        return bench_tc_run_one(&o);
#else
        fprintf(stderr, "gemmkit run: --dtype: this build has no CUDA backend (no nvcc at build "
                        "time)\n");
        return 1;
#endif
    }
    return bench_run_one(&o);
}
