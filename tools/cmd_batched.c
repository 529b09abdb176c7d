/*
 * cmd_batched.c — `gemmkit batched`: the batched SGEMM benchmark (bench/gpu/batched.cu):
 * gk_cuda_sgemm_strided_batched against cublasSgemmStridedBatched on the same data, checked, then
 * timed. A build without the CUDA backend has the command too, and says why it cannot run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

#ifndef GK_HAVE_CUDA
int gk_cmd_batched(int argc, char **argv) {
    (void)argc, (void)argv;
    fprintf(stderr, "gemmkit batched: this build has no CUDA backend (nvcc was not found at build "
                    "time)\n");
    return 2;
}
#else
#include "bench/gpu/batched.h"

static void usage(FILE *f) {
    fprintf(f,
            "usage: gemmkit batched [--shapes BxMxNxK,...] [--reps N] [--rounds R] [--device D]\n"
            "Strided-batched SGEMM, column-major items stored back to back, alpha 1, beta 0:\n"
            "gemmkit (gk_cuda_sgemm_strided_batched) and cuBLAS (cublasSgemmStridedBatched,\n"
            "FP32) on the same buffers; items 0 and B-1 checked against float64, then the\n"
            "median of R rounds of N timed calls each (default 3 x 20), L2 flushed before\n"
            "each. Default shapes: 256x128^3, 64x512^3, 1024x32^3, 64x256^3, 512x64^3.\n");
}

int gk_cmd_batched(int argc, char **argv) {
    bench_batched_opts o;
    bench_batched_defaults(&o);
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--shapes") && v) {
            o.nshapes = 0;
            for (const char *s = v; *s;) {
                long long x[4];
                int used = 0;
                if (o.nshapes >= BENCH_BATCHED_MAX_SHAPES ||
                    sscanf(s, "%lldx%lldx%lldx%lld%n", &x[0], &x[1], &x[2], &x[3], &used) != 4 ||
                    x[0] < 1 || x[1] < 1 || x[2] < 1 || x[3] < 1) {
                    fprintf(stderr, "gemmkit batched: bad --shapes item at '%s'\n", s);
                    return 2;
                }
                for (int j = 0; j < 4; j++)
                    o.shapes[o.nshapes][j] = x[j];
                o.nshapes++;
                s += used;
                if (*s == ',') s++;
            }
            i++;
        } else if (!strcmp(argv[i], "--reps") && v && atoi(v) > 0) {
            o.reps = atoi(v), i++;
        } else if (!strcmp(argv[i], "--rounds") && v && atoi(v) > 0) {
            o.rounds = atoi(v), i++;
        } else if (!strcmp(argv[i], "--device") && v) {
            o.device = atoi(v), i++;
        } else {
            usage(stderr);
            return 2;
        }
    }
    return bench_batched_run(&o);
}
#endif
