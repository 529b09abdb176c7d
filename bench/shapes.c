/*
 * shapes.c — shape lists of the mixed-precision benchmark (bench.h): the model grid behind
 * `gemmkit bench --dtype ... --shapes llm` and shape files. The grid is the one place these
 * shapes are written; docs/benchmarks.md ("Shapes of models") describes it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"

/* Tokens per call: decode (1-128), prefill and training (256-16384). */
static const int64_t llm_m[] = {1, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384};
/* (N, K) of linear layers, C = A W^T with W N x K: Llama-3.1-8B (fused QKV, attention output,
 * fused gate+up, down) and Qwen2.5-32B (the same four). */
static const int64_t llm_nk[][2] = {{6144, 4096}, {4096, 4096}, {28672, 4096}, {4096, 14336},
                                    {7168, 5120}, {5120, 5120}, {55296, 5120}, {5120, 27648}};
static const int64_t llm_squares[] = {1024, 2048, 3072, 4096, 8192, 16384};

int bench_tc_llm_shapes(bench_shape *out, int max) {
    int n = 0;
    for (size_t j = 0; j < sizeof llm_nk / sizeof llm_nk[0]; j++)
        for (size_t i = 0; i < sizeof llm_m / sizeof llm_m[0]; i++, n++)
            if (n < max) out[n] = (bench_shape){llm_m[i], llm_nk[j][0], llm_nk[j][1]};
    for (size_t i = 0; i < sizeof llm_squares / sizeof llm_squares[0]; i++, n++)
        if (n < max) {
            const int64_t s = llm_squares[i];
            out[n] = (bench_shape){s, s, s};
        }
    return n;
}

int bench_tc_shapes_file(const char *path, bench_shape *out, int max) {
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "gemmkit bench: cannot read shapes file '%s'\n", path);
        return -1;
    }
    char line[256];
    int n = 0, lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        for (char *c = line; *c; c++)
            if (*c == 'x' || *c == 'X' || *c == ',') *c = ' ';
        long long m, nn, k;
        char extra;
        const int got = sscanf(line, "%lld %lld %lld %c", &m, &nn, &k, &extra);
        if (got <= 0) continue; /* blank or comment */
        if (got != 3 || m < 1 || nn < 1 || k < 1) {
            fprintf(stderr, "gemmkit bench: %s:%d: expected 'M N K'\n", path, lineno);
            fclose(f);
            return -1;
        }
        if (n >= max) {
            fprintf(stderr, "gemmkit bench: %s: more than %d shapes\n", path, max);
            fclose(f);
            return -1;
        }
        out[n++] = (bench_shape){m, nn, k};
    }
    fclose(f);
    return n;
}
