/*
 * dtype.c — what the mixed-precision GPU commands (`gemmkit run` and `gemmkit bench` with --dtype;
 * bench.h) need in every build, CUDA or not: the types' parsing and naming, and the benchmark's
 * defaults. The formats are the library's one list (gk_format, named by gk_format_name); the short
 * names are aliases of six of its entries, "3xtf32" is float32 operands in the GK_FP32_3XTF32
 * mode, which is a mode, not a format, and the block-scaled names (gk_cuda_gemm_scaled) pair a
 * gk_scaling with an element format for both operands.
 */
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"

/* Short names; a format's first entry is the name it prints as ("fp16" is a second spelling). */
static const struct {
    const char *alias;
    gk_format fmt;
} aliases[] = {{"f32", GK_F32},        {"tf32", GK_TF32},    {"bf16", GK_BF16}, {"f16", GK_F16},
               {"e4m3", GK_F8_E4M3FN}, {"e5m2", GK_F8_E5M2}, {"fp16", GK_F16}};

static const char *const THREE_TF32 = "3xtf32";

/* The block-scaled types: parser, names and the CLI's help read this one list. */
static const struct {
    const char *name;
    gk_scaling scaling;
    gk_format elem;
    const char *what;
} scaled[] = {
    {"e4m3-b128", GK_SCALING_BLOCK128, GK_F8_E4M3FN,
     "float8_e4m3fn, float32 scales per 1x128 of A, 128x128 of B"},
    {"mxfp8", GK_SCALING_MX, GK_F8_E4M3FN, "OCP MXFP8: float8_e4m3fn, an E8M0 scale per 32 of K"},
    {"mxfp6", GK_SCALING_MX, GK_F6_E2M3FN, "OCP MXFP6: float6_e2m3fn, an E8M0 scale per 32 of K"},
    {"mxfp6-e3m2", GK_SCALING_MX, GK_F6_E3M2FN,
     "OCP MXFP6: float6_e3m2fn, an E8M0 scale per 32 of K"},
    {"mxfp4", GK_SCALING_MX, GK_F4_E2M1FN, "OCP MXFP4: float4_e2m1fn, an E8M0 scale per 32 of K"},
};

const char *bench_dtype_scaled(int i, bench_dtype *d, const char **what) {
    if (i < 0 || (size_t)i >= sizeof scaled / sizeof scaled[0]) return NULL;
    if (d) *d = (bench_dtype){scaled[i].elem, scaled[i].elem, GK_FP32_SIMT, scaled[i].scaling};
    if (what) *what = scaled[i].what;
    return scaled[i].name;
}

int bench_format_parse(const char *s, gk_format *out) {
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (!strcmp(s, aliases[i].alias)) return *out = aliases[i].fmt, 1;
    for (int f = 0; f < GK_FORMAT_COUNT; f++) {
        const char *name = gk_format_name((gk_format)f);
        if (name && !strcmp(s, name)) return *out = (gk_format)f, 1;
    }
    return 0;
}

const char *bench_format_short(gk_format fmt) {
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (aliases[i].fmt == fmt) return aliases[i].alias;
    const char *name = gk_format_name(fmt);
    return name ? name : "?";
}

int bench_dtype_parse(const char *s, bench_dtype *out) {
    *out = (bench_dtype){GK_F32, GK_F32, GK_FP32_SIMT, 0};
    if (!strcmp(s, THREE_TF32)) return out->fp32_mode = GK_FP32_3XTF32, 1;
    const char *name;
    for (int i = 0; (name = bench_dtype_scaled(i, NULL, NULL)); i++)
        if (!strcmp(s, name)) return bench_dtype_scaled(i, out, NULL), 1;
    const char *colon = strchr(s, ':');
    if (!colon) return bench_format_parse(s, &out->a) && (out->b = out->a, 1);
    char first[64];
    if ((size_t)(colon - s) >= sizeof first) return 0;
    memcpy(first, s, (size_t)(colon - s));
    first[colon - s] = '\0';
    return bench_format_parse(first, &out->a) && bench_format_parse(colon + 1, &out->b);
}

void bench_dtype_name(const bench_dtype *d, char *out, size_t len) {
    for (size_t i = 0; d->scaling && i < sizeof scaled / sizeof scaled[0]; i++)
        if (scaled[i].scaling == d->scaling && scaled[i].elem == d->a && d->a == d->b) {
            snprintf(out, len, "%s", scaled[i].name);
            return;
        }
    if (d->a == GK_F32 && d->b == GK_F32 && d->fp32_mode == GK_FP32_3XTF32)
        snprintf(out, len, "%s", THREE_TF32);
    else if (d->a == d->b)
        snprintf(out, len, "%s", bench_format_short(d->a));
    else
        snprintf(out, len, "%s:%s", bench_format_short(d->a), bench_format_short(d->b));
}

gk_format bench_dtype_default_out(const bench_dtype *d) {
    if (d->scaling || bench_dtype_is_fp8(d)) return GK_BF16;
    return d->a == GK_BF16 || d->a == GK_F16 ? d->a : GK_F32;
}

int bench_dtype_is_fp8(const bench_dtype *d) {
    return d->a == GK_F8_E4M3FN || d->a == GK_F8_E5M2 || d->b == GK_F8_E4M3FN || d->b == GK_F8_E5M2;
}

void bench_tc_defaults(bench_tc_opts *o, const char *out) {
    static const int64_t sizes[] = {1024, 2048, 3072, 4096, 6144, 8192, 12288, 16384};
    *o = (bench_tc_opts){.layout = GK_COL_MAJOR,
                         .ta = GK_NO_TRANS,
                         .tb = GK_NO_TRANS,
                         .reps = 20,
                         .rounds = 2,
                         .warmup = 3,
                         .peer = 1,
                         .samples = 2048,
                         .plot = 1,
                         .out = out,
                         .seed = 1};
    o->nshapes = (int)(sizeof sizes / sizeof sizes[0]);
    for (int i = 0; i < o->nshapes; i++)
        o->shapes[i] = (bench_shape){sizes[i], sizes[i], sizes[i]};
}
