/*
 * test_formats.c — the conversions and MX block scaling (gemmkit.h "@formats-api", rules in
 * docs/formats.md) checked three ways:
 *   - against ml_dtypes through tests/formats/vectors.txt (written by gen_vectors.py): every code
 *     of every format decoded, boundary values and millions of seeded random float32 encoded in
 *     both modes (the random inputs regenerated here with the same splitmix64 stream);
 *   - MX quantize/dequantize against a float64 model of the OCP MX rules written below;
 *   - every bulk variant (AVX-512, AVX2, portable) against scalar.h, bit for bit, also under a
 *     changed floating-point environment (rounding upward, DAZ/FTZ): one case per variant, which
 *     reports skip where the variant's own usable() (the library's dispatch test) says no.
 * Plus packing, the format registry, run-time variant selection and argument errors.
 * tests/formats/test_formats_mldtypes.py checks the same conversions against ml_dtypes directly.
 */
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "check.h"
#include "formats/formats.h"

/* ---- helpers ----------------------------------------------------------------------------------
 */

static uint64_t splitmix64(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* gen_vectors.py's checksum: sum(code_i * (splitmix64_i(CHECK_SEED) | 1)) mod 2^64. */
#define CHECK_SEED 0xC0DE5ull
static uint64_t checksum(const uint32_t *codes, int64_t n) {
    uint64_t s = CHECK_SEED, h = 0;
    for (int64_t i = 0; i < n; i++)
        h += (uint64_t)codes[i] * (splitmix64(&s) | 1u);
    return h;
}

static int code_bytes(gk_format f) {
    return f <= GK_TF32 ? 4 : (f == GK_BF16 || f == GK_F16) ? 2 : 1;
}
static uint32_t code_at(gk_format f, const void *codes, int64_t i) {
    if (code_bytes(f) == 4) return ((const uint32_t *)codes)[i];
    if (code_bytes(f) == 2) return ((const uint16_t *)codes)[i];
    return ((const uint8_t *)codes)[i];
}
static void code_put(gk_format f, void *codes, int64_t i, uint32_t c) {
    if (code_bytes(f) == 4)
        ((uint32_t *)codes)[i] = c;
    else if (code_bytes(f) == 2)
        ((uint16_t *)codes)[i] = (uint16_t)c;
    else
        ((uint8_t *)codes)[i] = (uint8_t)c;
}

static float f32(uint32_t b) {
    return gk_bits_f32(b);
}

/* The variants usable here, the selected one (via gk_encode) included through gk_fmt_variants. */
static int usable(int v) {
    return gk_fmt_variants[v].usable();
}

/* The variant the per-variant cases test (main runs each case once per variant). */
static int cur_variant;
#define SKIP_UNUSABLE()                                                                            \
    do {                                                                                           \
        if (!usable(cur_variant))                                                                  \
            T_SKIP("this CPU/OS cannot run %s", gk_fmt_variants[cur_variant].arch);                \
    } while (0)

/* ---- the committed vectors ---------------------------------------------------------------- */

typedef struct vec_line {
    char kind[16];
    unsigned fmt;
    unsigned long long a, b, c, d, e;
} vec_line;

static vec_line *vec;
static int nvec;

static const char *vectors_path(void) {
    static char path[1024];
    const char *env = getenv("GK_FORMATS_VECTORS");
    if (env) return env;
    /* __FILE__ is this file's path as the Makefile named it (relative to the checkout). */
    snprintf(path, sizeof path, "%s", __FILE__);
    char *slash = strrchr(path, '/');
    snprintf(slash ? slash + 1 : path, sizeof path - (size_t)(slash ? slash + 1 - path : 0),
             "vectors.txt");
    return path;
}

static int load_vectors(void) {
    FILE *f = fopen(vectors_path(), "r");
    if (!f) return 0;
    char line[256];
    int cap = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        if (nvec == cap) {
            cap = cap ? 2 * cap : 4096;
            vec = realloc(vec, (size_t)cap * sizeof *vec);
        }
        vec_line *v = &vec[nvec];
        memset(v, 0, sizeof *v);
        if (sscanf(line, "%15s %u %llx %llx %llx %llx %llx", v->kind, &v->fmt, &v->a, &v->b, &v->c,
                   &v->d, &v->e) >= 3)
            nvec++;
    }
    fclose(f);
    return nvec > 0;
}

/* decode <fmt> <code> <bits>; decodesum <fmt> <n> <sum> */
static void t_decode_vectors(void) {
    T_REQUIRE(load_vectors(), "cannot read %s (set GK_FORMATS_VECTORS)", vectors_path());
    int lines = 0;
    for (int i = 0; i < nvec; i++) {
        const vec_line *v = &vec[i];
        const gk_format f = (gk_format)v->fmt;
        if (strcmp(v->kind, "decode") == 0) {
            lines++;
            const uint32_t got = gk_f32_bits(gk_decode_scalar(f, (uint32_t)v->a));
            T_CHECK(got == v->b, "%s code 0x%llx: 0x%08x, ml_dtypes 0x%08llx", gk_format_name(f),
                    v->a, got, v->b);
            uint8_t c = (uint8_t)v->a;
            for (int k = 0; k < gk_fmt_variant_count; k++) {
                if (!usable(k)) continue;
                float y;
                gk_fmt_variants[k].decode(f, &c, &y, 1);
                T_CHECK(gk_f32_bits(y) == v->b, "%s variant %s code 0x%llx: 0x%08x, want 0x%08llx",
                        gk_format_name(f), gk_fmt_variants[k].arch, v->a, gk_f32_bits(y), v->b);
            }
        } else if (strcmp(v->kind, "decodesum") == 0) {
            lines++;
            const int64_t n = (int64_t)v->a;
            uint16_t *codes = malloc((size_t)n * 2);
            uint32_t *bits = malloc((size_t)n * 4);
            for (int64_t c = 0; c < n; c++)
                codes[c] = (uint16_t)c;
            for (int64_t c = 0; c < n; c++)
                bits[c] = gk_f32_bits(gk_decode_scalar(f, (uint32_t)c));
            T_CHECK(checksum(bits, n) == v->b,
                    "%s: checksum of all decodes differs from ml_dtypes'", gk_format_name(f));
            for (int k = 0; k < gk_fmt_variant_count; k++) {
                if (!usable(k)) continue;
                gk_fmt_variants[k].decode(f, codes, (float *)bits, n);
                T_CHECK(checksum(bits, n) == v->b, "%s variant %s: decode checksum differs",
                        gk_format_name(f), gk_fmt_variants[k].arch);
            }
            free(codes);
            free(bits);
        }
    }
    T_CHECK(lines > 1000, "only %d decode lines in %s", lines, vectors_path());
}

/* encode <fmt> <x bits> <code> <code saturating> */
static void t_encode_vectors(void) {
    T_REQUIRE(nvec > 0 || load_vectors(), "cannot read %s", vectors_path());
    int lines = 0;
    for (int i = 0; i < nvec; i++) {
        const vec_line *v = &vec[i];
        if (strcmp(v->kind, "encode") != 0) continue;
        lines++;
        const gk_format f = (gk_format)v->fmt;
        const float x = f32((uint32_t)v->a);
        for (int sat = 0; sat <= 1; sat++) {
            const uint32_t want = (uint32_t)(sat ? v->c : v->b);
            const uint32_t got = gk_encode_scalar(f, x, sat);
            T_CHECK(got == want, "%s sat=%d x=%.9g (0x%08llx): 0x%x, expected 0x%x",
                    gk_format_name(f), sat, (double)x, v->a, got, want);
            for (int k = 0; k < gk_fmt_variant_count; k++) {
                if (!usable(k)) continue;
                uint32_t c = 0;
                gk_fmt_variants[k].encode(f, &x, &c, 1, sat);
                c = code_at(f, &c, 0);
                T_CHECK(c == want, "%s variant %s sat=%d x=0x%08llx: 0x%x, expected 0x%x",
                        gk_format_name(f), gk_fmt_variants[k].arch, sat, v->a, c, want);
            }
        }
    }
    T_CHECK(lines > 10000, "only %d encode lines in %s", lines, vectors_path());
}

/* gen_vectors.py's random_inputs. */
static void random_inputs(gk_format f, uint64_t seed, int64_t n, float *x) {
    gk_format_info in;
    gk_format_info_get(f, &in);
    int lo = (int)floor(log2(in.min_subnormal)) - 3 + 127, hi = in.emax + 2 + 127;
    lo = lo < 1 ? 1 : lo;
    hi = hi > 254 ? 254 : hi;
    const uint64_t span = (uint64_t)(hi - lo + 1);
    const int m = in.mantissa_bits;
    const uint32_t cut = m < 22 ? ~((1u << (23 - m - 1)) - 1u) & 0x7fffffu : 0x7fffffu;
    uint64_t s = seed;
    for (int64_t i = 0; i < n; i++) {
        const uint64_t r = splitmix64(&s);
        const uint32_t kind = (uint32_t)(r & 3);
        uint32_t b;
        if (kind < 2) {
            b = (uint32_t)(r >> 32);
        } else {
            uint32_t frac = (uint32_t)(r >> 9) & 0x7fffffu;
            if (kind == 3) frac &= cut;
            b = (uint32_t)((r >> 8) & 1) << 31 | (uint32_t)(lo + (r >> 40) % span) << 23 | frac;
        }
        x[i] = f32(b);
    }
}

/* random <fmt> <seed> <n> <checksum> <checksum saturating> */
static void t_encode_random(void) {
    T_REQUIRE(nvec > 0 || load_vectors(), "cannot read %s", vectors_path());
    int lines = 0;
    for (int i = 0; i < nvec; i++) {
        const vec_line *v = &vec[i];
        if (strcmp(v->kind, "random") != 0) continue;
        lines++;
        const gk_format f = (gk_format)v->fmt;
        const int64_t n = (int64_t)v->b;
        float *x = malloc((size_t)n * 4);
        uint32_t *want = malloc((size_t)n * 4), *got = malloc((size_t)n * 4);
        void *codes = malloc((size_t)n * 4);
        T_REQUIRE(x && want && got && codes, "out of memory");
        random_inputs(f, v->a, n, x);
        for (int sat = 0; sat <= 1; sat++) {
            for (int64_t j = 0; j < n; j++)
                want[j] = gk_encode_scalar(f, x[j], sat);
            T_CHECK(checksum(want, n) == (sat ? v->d : v->c),
                    "%s sat=%d: checksum of %lld encodes differs from ml_dtypes' (run "
                    "test_formats_mldtypes.py for the values)",
                    gk_format_name(f), sat, (long long)n);
            for (int k = 0; k < gk_fmt_variant_count; k++) {
                if (!usable(k)) continue;
                gk_fmt_variants[k].encode(f, x, codes, n, sat);
                int64_t bad = -1;
                for (int64_t j = 0; j < n && bad < 0; j++)
                    if (code_at(f, codes, j) != want[j]) bad = j;
                T_CHECK(bad < 0, "%s variant %s sat=%d x=0x%08x: 0x%x, scalar 0x%x",
                        gk_format_name(f), gk_fmt_variants[k].arch, sat,
                        bad < 0 ? 0 : gk_f32_bits(x[bad]), bad < 0 ? 0 : code_at(f, codes, bad),
                        bad < 0 ? 0 : want[bad]);
            }
        }
        free(x), free(want), free(got), free(codes);
    }
    T_CHECK(lines == 10, "%d random lines in %s, expected 10", lines, vectors_path());
}

/* ---- readable examples (the rules of docs/formats.md, one per line) ------------------------ */

static void t_examples(void) {
    static const struct {
        gk_format f;
        float x;
        int sat;
        uint32_t code;
    } ex[] = {
        {GK_F8_E4M3FN, 448.0f, 0, 0x7e},
        {GK_F8_E4M3FN, 464.0f, 0, 0x7e}, /* tie to even: 448 */
        {GK_F8_E4M3FN, 465.0f, 0, 0x7f}, /* beyond: NaN, or 448 saturating */
        {GK_F8_E4M3FN, 465.0f, 1, 0x7e},
        {GK_F8_E4M3FN, -INFINITY, 0, 0xff},
        {GK_F8_E4M3FN, -INFINITY, 1, 0xfe},
        {GK_F8_E4M3FN, 0x1p-9f, 0, 0x01},
        {GK_F8_E4M3FN, 0x1p-10f, 0, 0x00}, /* tie to 0 */
        {GK_F8_E4M3FN, 0x1.8p-10f, 0, 0x01},
        {GK_F8_E4M3FN, -0.0f, 0, 0x80},
        {GK_F8_E5M2, 57344.0f, 0, 0x7b},
        {GK_F8_E5M2, 61440.0f, 0, 0x7c}, /* tie rounds up: Inf */
        {GK_F8_E5M2, 61440.0f, 1, 0x7b},
        {GK_F8_E5M2, NAN, 0, 0x7e},
        {GK_F8_E4M3FNUZ, 240.0f, 0, 0x7f},
        {GK_F8_E4M3FNUZ, 256.0f, 0, 0x80},
        {GK_F8_E4M3FNUZ, -0.0f, 0, 0x00},
        {GK_F8_E4M3FNUZ, -0x1p-20f, 0, 0x00}, /* no -0 */
        {GK_F8_E5M2FNUZ, -INFINITY, 0, 0x80},
        {GK_F8_E5M2FNUZ, -INFINITY, 1, 0xff},
        {GK_F8_E8M0FNU, 3.0f, 0, 0x81},
        {GK_F8_E8M0FNU, 2.9f, 0, 0x80}, /* ties up */
        {GK_F8_E8M0FNU, 0.0f, 0, 0xff},
        {GK_F8_E8M0FNU, 0.0f, 1, 0x00},
        {GK_F8_E8M0FNU, -1.0f, 0, 0xff},
        {GK_F8_E8M0FNU, 0x1p-140f, 0, 0x00},
        {GK_F8_E8M0FNU, 0x1.8p127f, 0, 0xff},
        {GK_F8_E8M0FNU, 0x1.8p127f, 1, 0xfe},
        {GK_F6_E2M3FN, 100.0f, 0, 0x1f},
        {GK_F6_E2M3FN, NAN, 0, 0x20}, /* ml_dtypes' NaN stand-in */
        {GK_F6_E3M2FN, -30.0f, 0, 0x3f},
        {GK_F4_E2M1FN, 5.0f, 0, 0x6}, /* 5: tie between 4, 6 */
        {GK_F4_E2M1FN, 0.25f, 0, 0x0},
        {GK_F4_E2M1FN, 0.75f, 0, 0x2},
        {GK_BF16, 0x1.01p0f, 0, 0x3f80},
        {GK_BF16, 0x1.018p0f, 0, 0x3f81},
        {GK_F16, 65520.0f, 0, 0x7c00},
        {GK_F16, 65519.99f, 0, 0x7bff},
        {GK_F16, 65520.0f, 1, 0x7bff},
        {GK_F16, 0x1p-25f, 0, 0x0000}, /* tie to 0 */
    };
    for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
        const uint32_t got = gk_encode_scalar(ex[i].f, ex[i].x, ex[i].sat);
        T_CHECK(got == ex[i].code, "%s sat=%d x=%a: 0x%x, expected 0x%x", gk_format_name(ex[i].f),
                ex[i].sat, (double)ex[i].x, got, ex[i].code);
    }
}

/* TF32 and F32 against a float64 model: nearest even onto 10 (23) fraction bits. */
static void t_tf32_f32(void) {
    uint64_t s = 99;
    for (int i = 0; i < 1 << 20; i++) {
        const uint32_t b = (uint32_t)(splitmix64(&s) >> 32);
        const float x = f32(b);
        for (int sat = 0; sat <= 1; sat++) {
            const float t = gk_encode_tf32(x, sat);
            if (isnan(x)) {
                T_CHECK(gk_f32_bits(t) == ((b & 0x80000000u) | 0x7fc00000u), "tf32 NaN 0x%08x", b);
                continue;
            }
            const double d = x;
            double want;
            if (isinf(d)) {
                want = d;
            } else {
                int e;
                frexp(d == 0 ? 1 : d, &e);
                const int ee = e - 1 < -126 ? -126 : e - 1;
                const double q = ldexp(1.0, ee - 10);
                want = nearbyint(d / q) * q; /* default rounding: half to even */
                if (d == 0) want = d;
            }
            const double tmax = ldexp(2 - ldexp(1, -10), 127);
            if (fabs(want) > tmax) want = sat ? copysign(tmax, d) : copysign(INFINITY, d);
            T_CHECK((double)t == want && !signbit(t) == !signbit(want),
                    "tf32 sat=%d x=0x%08x: %a, expected %a", sat, b, (double)t, want);
            const float e32 = gk_encode_f32(x, sat);
            const float w32 = (sat && isinf(x)) ? copysignf(3.40282347e38f, x) : x;
            T_CHECK(gk_f32_bits(e32) == gk_f32_bits(w32), "f32 sat=%d x=0x%08x", sat, b);
        }
    }
}

/* ---- bulk variants against scalar.h ----------------------------------------------------- */

/* Both directions for every format through variant k, odd lengths (vector tails) and
 * misaligned pointers. `env`: also under rounding upward and, on x86, DAZ + FTZ. */
static void variants_vs_scalar(int k, int env) {
    const int64_t n = 100003;
    float *x = malloc((size_t)(n + 1) * 4), *y = malloc((size_t)(n + 1) * 4);
    uint8_t *codes = malloc((size_t)(n + 1) * 4 + 8);
    T_REQUIRE(x && y && codes, "out of memory");
    for (int f = 0; f < GK_FORMAT_COUNT; f++) {
        random_inputs((gk_format)f, 1234 + (uint64_t)f, n, x + 1);
        const gk_fmt_variant *v = &gk_fmt_variants[k];
        for (int sat = 0; sat <= 1; sat++) {
            /* x + 1 and codes + 1: not aligned to the vector width */
            v->encode((gk_format)f, x + 1, codes + 1, n, sat);
            int64_t bad = -1;
            uint32_t got = 0, want = 0;
            for (int64_t i = 0; i < n && bad < 0; i++) {
                uint32_t c;
                memcpy(&c, codes + 1 + i * code_bytes((gk_format)f), 4);
                got = code_bytes((gk_format)f) == 4   ? c
                      : code_bytes((gk_format)f) == 2 ? (c & 0xffff)
                                                      : (c & 0xff);
                want = gk_encode_scalar((gk_format)f, x[1 + i], sat);
                if (got != want) bad = i;
            }
            T_CHECK(bad < 0, "%s %s sat=%d env=%d x=0x%08x: 0x%x, scalar 0x%x", v->arch,
                    gk_format_name((gk_format)f), sat, env, bad < 0 ? 0 : gk_f32_bits(x[1 + bad]),
                    got, want);
        }
        /* every code (sub-byte formats: high bits set too, which decode ignores) */
        const int64_t nc = code_bytes((gk_format)f) == 2 ? 65536 : 256;
        for (int64_t c = 0; c < nc; c++)
            code_put((gk_format)f, codes, c, (uint32_t)c);
        if (code_bytes((gk_format)f) == 4) { /* F32/TF32: random bit patterns */
            memcpy(codes, x + 1, (size_t)nc * 4);
        }
        v->decode((gk_format)f, codes, y, nc);
        int64_t bad = -1;
        for (int64_t c = 0; c < nc && bad < 0; c++)
            if (gk_f32_bits(y[c]) !=
                gk_f32_bits(gk_decode_scalar((gk_format)f, code_at((gk_format)f, codes, c))))
                bad = c;
        T_CHECK(bad < 0, "%s decode %s env=%d code 0x%llx", v->arch, gk_format_name((gk_format)f),
                env, (long long)bad);
    }
    free(x), free(y), free(codes);
}

static void t_variants_portable(void) {
    T_CHECK(strcmp(gk_fmt_variants[gk_fmt_variant_count - 1].arch, "generic") == 0 &&
                usable(gk_fmt_variant_count - 1),
            "the portable variant is missing");
}

static void t_variant_vs_scalar(void) {
    SKIP_UNUSABLE();
    variants_vs_scalar(cur_variant, 0);
}

/* The same under a floating-point environment a caller may have set: the results are defined
 * on bit patterns and must not move. */
static void t_variant_fp_env(void) {
    SKIP_UNUSABLE();
    const int round = fegetround();
    fesetround(FE_UPWARD);
#if defined(__x86_64__)
    const unsigned csr = _mm_getcsr();
    _mm_setcsr(csr | 0x8040); /* FTZ | DAZ */
#endif
    variants_vs_scalar(cur_variant, 1);
#if defined(__x86_64__)
    _mm_setcsr(csr);
#endif
    fesetround(round);
}

/* The public calls follow gk_set_arch: "generic" forces the portable loops. */
static void t_variant_selection(void) {
    gk_cpu_kernel_info ki;
    const char *want = NULL;
    for (int i = 0; i < gk_cpu_kernel_count(); i++)
        if (gk_cpu_kernel_info_get(i, &ki) == GK_SUCCESS && ki.selected) want = ki.arch;
    T_REQUIRE(want, "no CPU kernel family selected");
    T_CHECK(strcmp(gk_fmt_variant_now()->arch, want) == 0, "variant %s, GEMM family %s",
            gk_fmt_variant_now()->arch, want);
    T_REQUIRE(gk_set_arch("generic") == GK_SUCCESS, "gk_set_arch(generic): %s", gk_last_error());
    T_CHECK(strcmp(gk_fmt_variant_now()->arch, "generic") == 0, "after gk_set_arch(generic): %s",
            gk_fmt_variant_now()->arch);
    const float x[3] = {1.0f, 465.0f, -0.0f};
    uint8_t c[3];
    T_CHECK(gk_encode(GK_F8_E4M3FN, x, c, 3, 0) == GK_SUCCESS && c[0] == 0x38 && c[1] == 0x7f &&
                c[2] == 0x80,
            "generic gk_encode");
    T_REQUIRE(gk_set_arch(NULL) == GK_SUCCESS, "gk_set_arch(NULL): %s", gk_last_error());
    T_CHECK(strcmp(gk_fmt_variant_now()->arch, want) == 0, "after auto: %s",
            gk_fmt_variant_now()->arch);
}

/* ---- registry ------------------------------------------------------------------------------ */

static void t_format_info(void) {
    static const char *const names[GK_FORMAT_COUNT] = {
        "float32",        "tfloat32",      "bfloat16",        "float16",
        "float8_e4m3fn",  "float8_e5m2",   "float8_e4m3fnuz", "float8_e5m2fnuz",
        "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn",   "float4_e2m1fn"};
    static const double maxv[GK_FORMAT_COUNT] = {3.4028234663852886e38,
                                                 0x1.ffcp127,
                                                 0x1.fep127,
                                                 65504,
                                                 448,
                                                 57344,
                                                 240,
                                                 57344,
                                                 0x1p127,
                                                 7.5,
                                                 28,
                                                 6};
    for (int f = 0; f < GK_FORMAT_COUNT; f++) {
        gk_format_info in;
        T_REQUIRE(gk_format_info_get((gk_format)f, &in) == GK_SUCCESS, "%s", gk_last_error());
        T_CHECK(strcmp(in.name, names[f]) == 0 && gk_format_name((gk_format)f) == in.name,
                "fmt %d name %s", f, in.name);
        T_CHECK(in.max_finite == maxv[f], "%s max %g", in.name, in.max_finite);
        T_CHECK(gk_decode_scalar((gk_format)f, in.max_code) == in.max_finite, "%s max_code",
                in.name);
        T_CHECK(gk_encode_scalar((gk_format)f, (float)in.max_finite, 0) == in.max_code,
                "%s encode(max)", in.name);
        T_CHECK(gk_encode_scalar((gk_format)f, INFINITY, 1) == in.max_code, "%s encode(Inf, sat)",
                in.name);
        if (f > GK_TF32)
            T_CHECK(gk_encode_scalar((gk_format)f, NAN, 0) == in.nan_code, "%s nan_code 0x%x",
                    in.name, in.nan_code);
        T_CHECK(in.has_nan == (f < GK_F6_E2M3FN) &&
                    in.has_inf == (f <= GK_F8_E5M2 && f != GK_F8_E4M3FN),
                "%s has_nan %d has_inf %d", in.name, in.has_nan, in.has_inf);
        T_CHECK(in.bits == (f == GK_F32          ? 32
                            : f == GK_TF32       ? 19
                            : f <= GK_F16        ? 16
                            : f <= GK_F8_E8M0FNU ? 8
                            : f <= GK_F6_E3M2FN  ? 6
                                                 : 4),
                "%s bits %d", in.name, in.bits);
        T_CHECK(ldexp(1.0, in.emax) <= in.max_finite && in.max_finite < ldexp(1.0, in.emax + 1),
                "%s emax %d", in.name, in.emax);
        T_CHECK(in.min_subnormal <= in.min_normal && in.min_normal > 0, "%s min", in.name);
        gk_mx_elem p = {0};
        T_CHECK(in.mx_element == gk_mx_elem_params((gk_format)f, &p), "%s mx_element", in.name);
        if (in.mx_element) T_CHECK(p.emax == in.emax, "%s MX emax %d", in.name, p.emax);
    }
    gk_format_info in;
    T_CHECK(gk_format_name((gk_format)GK_FORMAT_COUNT) == NULL &&
                gk_format_name((gk_format)-1) == NULL,
            "gk_format_name of a bad value");
    T_CHECK(gk_format_info_get((gk_format)12, &in) == GK_ERR_INVALID_VALUE &&
                strstr(gk_last_error(), "fmt=12"),
            "bad fmt: %s", gk_last_error());
    T_CHECK(gk_format_info_get(GK_F16, NULL) == GK_ERR_NULL_POINTER &&
                strstr(gk_last_error(), "info"),
            "NULL info: %s", gk_last_error());
}

/* ---- packing ------------------------------------------------------------------------------- */

static void t_pack(void) {
    const uint8_t c4[3] = {0x1, 0x2, 0x3};
    uint8_t p[8], u[64];
    memset(p, 0xAA, sizeof p);
    T_REQUIRE(gk_pack(GK_F4_E2M1FN, c4, p, 3) == GK_SUCCESS, "%s", gk_last_error());
    T_CHECK(p[0] == 0x21 && p[1] == 0x03 && p[2] == 0xAA, "FP4 pack: %02x %02x %02x", p[0], p[1],
            p[2]);
    const uint8_t c6[5] = {0x01, 0x02, 0x03, 0x3f, 0x25};
    T_REQUIRE(gk_pack(GK_F6_E2M3FN, c6, p, 5) == GK_SUCCESS, "%s", gk_last_error());
    /* stream: 000001 010000? little-endian: w = 1 | 2<<6 | 3<<12 | 63<<18 = 0xFC3081 */
    T_CHECK(p[0] == 0x81 && p[1] == 0x30 && p[2] == 0xFC && p[3] == 0x25 && p[4] == 0xAA,
            "FP6 pack: %02x %02x %02x %02x %02x", p[0], p[1], p[2], p[3], p[4]);
    T_CHECK(gk_packed_bytes(GK_F6_E3M2FN, 5) == 4 && gk_packed_bytes(GK_F4_E2M1FN, 3) == 2 &&
                gk_packed_bytes(GK_F8_E4M3FN, 3) == -1 && gk_packed_bytes(GK_F4_E2M1FN, -1) == -1,
            "gk_packed_bytes");
    uint64_t s = 5;
    static const gk_format fs[3] = {GK_F4_E2M1FN, GK_F6_E2M3FN, GK_F6_E3M2FN};
    for (int fi = 0; fi < 3; fi++)
        for (int n = 0; n <= 40; n++) {
            uint8_t c[64], q[64];
            const uint8_t mask = fs[fi] == GK_F4_E2M1FN ? 0xf : 0x3f;
            for (int i = 0; i < n; i++)
                c[i] = (uint8_t)splitmix64(&s); /* high bits ignored */
            memset(q, 0xAA, sizeof q);
            T_REQUIRE(gk_pack(fs[fi], c, q, n) == GK_SUCCESS, "%s", gk_last_error());
            const int64_t nb = gk_packed_bytes(fs[fi], n);
            T_CHECK(q[nb] == 0xAA, "%s n=%d wrote past %lld bytes", gk_format_name(fs[fi]), n,
                    (long long)nb);
            const int bits = fs[fi] == GK_F4_E2M1FN ? 4 : 6;
            if (n && (n * bits) % 8)
                T_CHECK((q[nb - 1] >> ((n * bits) % 8)) == 0, "%s n=%d: tail bits not zero",
                        gk_format_name(fs[fi]), n);
            for (int i = 0; i < n; i++) { /* element i at stream bits [i*b, i*b+b) */
                const int bit = i * bits;
                const unsigned w = q[bit / 8] | (bit / 8 + 1 < nb ? q[bit / 8 + 1] << 8 : 0);
                T_CHECK(((w >> (bit % 8)) & mask) == (c[i] & mask), "%s n=%d element %d",
                        gk_format_name(fs[fi]), n, i);
            }
            memset(u, 0xAA, sizeof u);
            T_REQUIRE(gk_unpack(fs[fi], q, u, n) == GK_SUCCESS, "%s", gk_last_error());
            for (int i = 0; i < n; i++)
                T_CHECK(u[i] == (c[i] & mask), "%s n=%d unpack %d", gk_format_name(fs[fi]), n, i);
            T_CHECK(u[n] == 0xAA, "unpack wrote past n");
        }
}

/* ---- MX: a float64 model of OCP MX v1.0 and the other scale rules ------------------------------
 */

typedef struct mx_model {
    gk_format f;
    int nbits, mbits, bias, emax;
    uint32_t max_mag;
    double maxv;
} mx_model;

static const mx_model models[5] = {
    {GK_F8_E4M3FN, 8, 3, 7, 8, 0x7e, 448}, {GK_F8_E5M2, 8, 2, 15, 15, 0x7b, 57344},
    {GK_F6_E2M3FN, 6, 3, 1, 2, 0x1f, 7.5}, {GK_F6_E3M2FN, 6, 2, 3, 4, 0x1f, 28},
    {GK_F4_E2M1FN, 4, 1, 1, 2, 0x7, 6},
};

/* Value of a magnitude code, from the bit layout alone. */
static double model_value(const mx_model *m, uint32_t k) {
    const uint32_t e = k >> m->mbits, fr = k & ((1u << m->mbits) - 1u);
    return e == 0 ? ldexp(fr, 1 - m->bias - m->mbits)
                  : ldexp((double)((1u << m->mbits) + fr), (int)e - m->bias - m->mbits);
}

/* The scale exponent by rule, or 128 for the NaN scale. */
static int model_scale(const mx_model *m, int rule, double amax) {
    if (isnan(amax) || isinf(amax)) return 128;
    if (amax == 0) return -127;
    int ex;
    const double fr = frexp(amax, &ex); /* amax = fr * 2^ex, fr in [0.5, 1) */
    const int E = ex - 1;               /* floor(log2(amax)) */
    int e = E - m->emax;
    if (rule == GK_MX_SCALE_CEIL) e += fr != 0.5;
    if (rule == GK_MX_SCALE_EVEN) /* amax to mbits+1 significant bits, ties away */
        e += floor(ldexp(fr, m->mbits + 1) + 0.5) == ldexp(1.0, m->mbits + 1);
    if (rule == GK_MX_SCALE_RCEIL) { /* smallest e with amax <= maxv * 2^e */
        e = E - m->emax - 1;
        while (ldexp(m->maxv, e) < amax)
            e++;
    }
    return e < -127 ? -127 : e;
}

/* Element code of x / 2^e: nearest (ties to the even code), clamped to max, sign kept. */
static uint32_t model_elem(const mx_model *m, double x, int e) {
    const double v = fabs(ldexp(x, -e));
    uint32_t k = 0;
    if (v >= m->maxv) {
        k = m->max_mag;
    } else {
        while (model_value(m, k + 1) <= v)
            k++;
        const double lo = model_value(m, k), hi = model_value(m, k + 1);
        if (v - lo > hi - v || (v - lo == hi - v && (k & 1))) k++;
    }
    return (signbit(x) ? 1u << (m->nbits - 1) : 0u) | k;
}

/* A row of `cols` values of a chosen character: each block gets a different one. */
static void mx_fill(float *x, int64_t cols, int64_t block, uint64_t *s) {
    for (int64_t j0 = 0, b = 0; j0 < cols; j0 += block, b++) {
        const int kind = (int)(splitmix64(s) % 9);
        const int base = (int)(splitmix64(s) % 60) - 30;
        const int wide = (int)(splitmix64(s) % 278) - 150; /* any float32 binade */
        for (int64_t j = j0; j < cols && j < j0 + block; j++) {
            const uint64_t r = splitmix64(s);
            const double u = (double)(r >> 11) * 0x1p-53 * 2 - 1;
            const double sign = (r >> 8) & 1 ? -1 : 1;
            double v;
            if (kind == 0) /* zeros */
                v = 0;
            else if (kind == 1) /* float32 subnormals */
                v = ldexp(u, -140 + (int)(r % 8));
            else if (kind == 2) /* near FLT_MAX */
                v = ldexp(u, 120 + (int)(r % 8));
            else if (kind == 3) /* powers of two */
                v = ldexp(sign, base + (int)(r % 5));
            else if (kind == 4) /* an Inf first (half of these blocks) */
                v = (j == j0 && (r & 1)) ? (r & 2 ? INFINITY : -INFINITY) : u;
            else if (kind == 5) /* a NaN second */
                v = (j == j0 + 1) ? NAN : u * 100;
            else if (kind == 6) /* anywhere in float32's range */
                v = ldexp(u, wide);
            else /* ordinary */
                v = ldexp(u, base);
            x[j] = (float)v;
        }
    }
}

static void t_mx_model(void) {
    static const int64_t colss[] = {1, 5, 31, 32, 33, 64, 100};
    static const int64_t blocks[] = {32, 16, 7, 1};
    uint64_t s = 77;
    long checked = 0;
    for (int mi = 0; mi < 5; mi++) {
        const mx_model *m = &models[mi];
        for (int rule = 0; rule <= 3; rule++)
            for (size_t ci = 0; ci < sizeof colss / sizeof colss[0]; ci++)
                for (size_t bi = 0; bi < sizeof blocks / sizeof blocks[0]; bi++) {
                    const int64_t rows = 7, cols = colss[ci], block = blocks[bi];
                    const int64_t nb = (cols + block - 1) / block;
                    const int64_t ldx = cols + 3, ldc = cols + 1, lds = nb + 2, ldy = cols + 2;
                    float *x = calloc((size_t)(rows * ldx), 4),
                          *y = calloc((size_t)(rows * ldy), 4);
                    uint8_t *c = calloc((size_t)(rows * ldc), 1),
                            *sc = calloc((size_t)(rows * lds), 1);
                    for (int64_t r = 0; r < rows; r++)
                        mx_fill(x + r * ldx, cols, block, &s);
                    T_REQUIRE(gk_mx_quantize(m->f, (gk_mx_scale_rule)rule, rows, cols, block, x,
                                             ldx, c, ldc, sc, lds) == GK_SUCCESS,
                              "%s", gk_last_error());
                    T_REQUIRE(gk_mx_dequantize(m->f, rows, cols, block, c, ldc, sc, lds, y, ldy) ==
                                  GK_SUCCESS,
                              "%s", gk_last_error());
                    for (int64_t r = 0; r < rows; r++)
                        for (int64_t b = 0; b < nb; b++) {
                            const int64_t j0 = b * block,
                                          len = cols - j0 < block ? cols - j0 : block;
                            double amax = 0;
                            for (int64_t j = j0; j < j0 + len; j++) {
                                const double a = fabs((double)x[r * ldx + j]);
                                amax = isnan(a) || a > amax ? a : amax;
                                if (isnan(a)) break;
                            }
                            const int e = model_scale(m, rule, amax);
                            const uint32_t want_s = e == 128 ? 0xff : (uint32_t)(e + 127);
                            T_CHECK(sc[r * lds + b] == want_s,
                                    "%s rule %d cols %lld block %lld: row %lld block %lld amax %a: "
                                    "scale 0x%02x, model 0x%02x",
                                    gk_format_name(m->f), rule, (long long)cols, (long long)block,
                                    (long long)r, (long long)b, amax, sc[r * lds + b], want_s);
                            for (int64_t j = j0; j < j0 + len; j++) {
                                const uint32_t got = c[r * ldc + j];
                                const float yj = y[r * ldy + j];
                                checked++;
                                if (e == 128) {
                                    T_CHECK(got == 0 && isnan(yj), "%s NaN block: code 0x%x y %g",
                                            gk_format_name(m->f), got, (double)yj);
                                    continue;
                                }
                                const uint32_t want = model_elem(m, x[r * ldx + j], e);
                                T_CHECK(got == want, "%s rule %d x=%a e=%d: code 0x%x, model 0x%x",
                                        gk_format_name(m->f), rule, (double)x[r * ldx + j], e, got,
                                        want);
                                const uint32_t k = want & ((1u << (m->nbits - 1)) - 1u);
                                const double wy = ldexp(model_value(m, k), e) *
                                                  ((want >> (m->nbits - 1)) ? -1 : 1);
                                T_CHECK((double)yj == wy && !signbit(yj) == !signbit(wy),
                                        "%s dequantize code 0x%x e=%d: %a, model %a",
                                        gk_format_name(m->f), want, e, (double)yj, wy);
                            }
                        }
                    /* nothing written outside the cols / blocks of each row */
                    for (int64_t r = 0; r < rows; r++) {
                        for (int64_t j = cols; j < ldc; j++)
                            T_CHECK(c[r * ldc + j] == 0, "code written past cols");
                        for (int64_t j = nb; j < lds; j++)
                            T_CHECK(sc[r * lds + j] == 0, "scale written past the blocks");
                        for (int64_t j = cols; j < ldy; j++)
                            T_CHECK(y[r * ldy + j] == 0, "y written past cols");
                    }
                    free(x), free(y), free(c), free(sc);
                }
    }
    T_CHECK(checked > 100000, "only %ld elements checked", checked);
}

/* Worked examples of docs/formats.md: the spec rule and the alternatives on one block. */
static void t_mx_examples(void) {
    float x[32];
    uint8_t c[32], s;
    for (int i = 0; i < 32; i++)
        x[i] = (float)(i - 16) / 16.0f;
    x[5] = 500.0f; /* amax 500 = 1.953 * 2^8 */
    static const struct {
        gk_format f;
        int rule;
        uint8_t scale, code5;
    } ex[] = {
        {GK_F8_E4M3FN, GK_MX_SCALE_FLOOR, 127, 0x7e}, /* X = 1: 500 clamps to 448 */
        {GK_F8_E4M3FN, GK_MX_SCALE_CEIL, 128, 0x78},  /* X = 2: 250 -> 256 */
        {GK_F8_E4M3FN, GK_MX_SCALE_EVEN, 128, 0x78},  /* 500 rounds to 512 first */
        {GK_F8_E4M3FN, GK_MX_SCALE_RCEIL, 128, 0x78}, /* 500 / 448 > 1 */
        {GK_F4_E2M1FN, GK_MX_SCALE_FLOOR, 133, 0x7},  /* X = 64: 7.8 clamps to 6 */
        {GK_F4_E2M1FN, GK_MX_SCALE_RCEIL, 134, 0x6},  /* 500/6 = 83.3 -> X = 128: 3.9 -> 4 */
        {GK_F4_E2M1FN, GK_MX_SCALE_EVEN, 134, 0x6},   /* 500 -> 512 at 2 bits */
    };
    for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
        T_REQUIRE(gk_mx_quantize(ex[i].f, (gk_mx_scale_rule)ex[i].rule, 1, 32, 32, x, 32, c, 32, &s,
                                 1) == GK_SUCCESS,
                  "%s", gk_last_error());
        T_CHECK(s == ex[i].scale && c[5] == ex[i].code5, "%s rule %d: scale %u code 0x%x",
                gk_format_name(ex[i].f), ex[i].rule, s, c[5]);
    }
    /* FP4, amax 5 = 1.25 * 2^2 (max 6 = 1.5 * 2^2): only CEIL doubles the scale, which RCEIL
     * shows is not needed; amax 4, a power of two: all four agree */
    uint8_t s2[4];
    for (int a = 4; a <= 5; a++) {
        for (int i = 0; i < 32; i++)
            x[i] = i == 3 ? (float)a : 0.5f;
        for (int rule = 0; rule < 4; rule++)
            gk_mx_quantize(GK_F4_E2M1FN, (gk_mx_scale_rule)rule, 1, 32, 32, x, 32, c, 32, &s2[rule],
                           1);
        T_CHECK(s2[0] == 127 && s2[1] == (a == 5 ? 128 : 127) && s2[2] == 127 && s2[3] == 127,
                "amax %d FP4 scales %u %u %u %u", a, s2[0], s2[1], s2[2], s2[3]);
    }
}

/* MX rows through one variant against scalar.h's element functions. */
static void t_mx_variant(void) {
    SKIP_UNUSABLE();
    const gk_fmt_variant *v = &gk_fmt_variants[cur_variant];
    const int64_t cols = 1000, block = 32, nb = (cols + block - 1) / block;
    float *x = malloc((size_t)cols * 4), *y = malloc((size_t)cols * 4);
    uint8_t *c = malloc((size_t)cols), *sc = malloc((size_t)nb);
    uint64_t s = 9;
    for (int rep = 0; rep < 20; rep++) {
        mx_fill(x, cols, block, &s);
        for (int mi = 0; mi < 5; mi++) {
            gk_mx_elem p;
            gk_mx_elem_params(models[mi].f, &p);
            for (int rule = 0; rule < 4; rule++) {
                v->mx_quantize_row(&p, rule, x, cols, block, c, sc);
                v->mx_dequantize_row(&p, c, sc, cols, block, y);
                for (int64_t j = 0; j < cols; j++) {
                    const uint8_t sj = sc[j / block];
                    const uint8_t want = sj == 0xff ? 0 : gk_mx_encode_elem(&p, x[j], sj);
                    const float wy = gk_mx_decode_elem(&p, want, sj);
                    T_CHECK(c[j] == want && gk_f32_bits(y[j]) == gk_f32_bits(wy),
                            "%s %s rule %d x=%a scale 0x%x: code 0x%x (scalar 0x%x), y %a (%a)",
                            v->arch, gk_format_name(models[mi].f), rule, (double)x[j], sj, c[j],
                            want, (double)y[j], (double)wy);
                    if (c[j] != want) break;
                }
            }
        }
    }
    free(x), free(y), free(c), free(sc);
}

/* ---- argument errors: status and a message naming the argument ------------------------------ */

#define T_ERR(call, st, name)                                                                      \
    T_CHECK((call) == (st) && strstr(gk_last_error(), name), "%s: status/message \"%s\"", #call,   \
            gk_last_error())

static void t_errors(void) {
    float x[4] = {1, 2, 3, 4};
    uint8_t c[8] = {0}, s[4] = {0};
    T_ERR(gk_encode((gk_format)99, x, c, 1, 0), GK_ERR_INVALID_VALUE, "fmt=99");
    T_ERR(gk_encode(GK_F8_E4M3FN, x, c, -1, 0), GK_ERR_INVALID_SIZE, "n=-1");
    T_ERR(gk_encode(GK_F8_E4M3FN, NULL, c, 1, 0), GK_ERR_NULL_POINTER, "x is NULL");
    T_ERR(gk_encode(GK_F8_E4M3FN, x, NULL, 1, 0), GK_ERR_NULL_POINTER, "codes is NULL");
    T_ERR(gk_encode(GK_F8_E4M3FN, x, c, 1, 2), GK_ERR_INVALID_VALUE, "saturate=2");
    T_ERR(gk_encode(GK_F8_E4M3FN, x, c, INT64_MAX, 0), GK_ERR_OVERFLOW, "n=");
    T_ERR(gk_decode((gk_format)-1, c, x, 1), GK_ERR_INVALID_VALUE, "fmt=-1");
    T_ERR(gk_decode(GK_F16, NULL, x, 1), GK_ERR_NULL_POINTER, "codes is NULL");
    T_ERR(gk_decode(GK_F16, c, NULL, 1), GK_ERR_NULL_POINTER, "y is NULL");
    T_CHECK(gk_encode(GK_F16, NULL, NULL, 0, 0) == GK_SUCCESS && gk_last_error()[0] == '\0',
            "n = 0 with NULL pointers");
    T_ERR(gk_pack(GK_F8_E4M3FN, c, s, 2), GK_ERR_INVALID_VALUE, "fmt=4");
    T_ERR(gk_pack(GK_F4_E2M1FN, NULL, s, 2), GK_ERR_NULL_POINTER, "codes is NULL");
    T_ERR(gk_unpack(GK_F6_E2M3FN, s, NULL, 2), GK_ERR_NULL_POINTER, "codes is NULL");
    T_ERR(gk_unpack(GK_F6_E2M3FN, NULL, c, 2), GK_ERR_NULL_POINTER, "packed is NULL");
    T_ERR(gk_unpack(GK_F6_E2M3FN, s, c, -3), GK_ERR_INVALID_SIZE, "n=-3");

    const gk_format e = GK_F8_E4M3FN;
    const gk_mx_scale_rule r = GK_MX_SCALE_FLOOR;
    T_ERR(gk_mx_quantize(GK_F8_E4M3FNUZ, r, 1, 4, 32, x, 4, c, 4, s, 1), GK_ERR_INVALID_VALUE,
          "elem=6");
    T_ERR(gk_mx_quantize(e, (gk_mx_scale_rule)7, 1, 4, 32, x, 4, c, 4, s, 1), GK_ERR_INVALID_VALUE,
          "rule=7");
    T_ERR(gk_mx_quantize(e, r, -1, 4, 32, x, 4, c, 4, s, 1), GK_ERR_INVALID_SIZE, "rows=-1");
    T_ERR(gk_mx_quantize(e, r, 1, -4, 32, x, 4, c, 4, s, 1), GK_ERR_INVALID_SIZE, "cols=-4");
    T_ERR(gk_mx_quantize(e, r, 1, 4, 0, x, 4, c, 4, s, 1), GK_ERR_INVALID_VALUE, "block=0");
    T_ERR(gk_mx_quantize(e, r, 2, 4, 32, x, 3, c, 4, s, 1), GK_ERR_INVALID_LD, "ldx=3");
    T_ERR(gk_mx_quantize(e, r, 2, 4, 32, x, 4, c, 2, s, 1), GK_ERR_INVALID_LD, "ldcodes=2");
    T_ERR(gk_mx_quantize(e, r, 2, 8, 2, x, 8, c, 8, s, 3), GK_ERR_INVALID_LD, "ldscales=3");
    T_ERR(gk_mx_quantize(e, r, 1, 4, 32, NULL, 4, c, 4, s, 1), GK_ERR_NULL_POINTER, "x is NULL");
    T_ERR(gk_mx_quantize(e, r, 1, 4, 32, x, 4, NULL, 4, s, 1), GK_ERR_NULL_POINTER,
          "codes is NULL");
    T_ERR(gk_mx_quantize(e, r, 1, 4, 32, x, 4, c, 4, NULL, 1), GK_ERR_NULL_POINTER,
          "scales is NULL");
    T_ERR(gk_mx_quantize(e, r, INT64_MAX / 2, 4, 32, x, INT64_MAX / 4, c, 4, s, 1), GK_ERR_OVERFLOW,
          "x (rows=");
    T_ERR(gk_mx_dequantize(GK_F16, 1, 4, 32, c, 4, s, 1, x, 4), GK_ERR_INVALID_VALUE, "elem=3");
    T_ERR(gk_mx_dequantize(e, 2, 4, 32, c, 3, s, 1, x, 4), GK_ERR_INVALID_LD, "ldcodes=3");
    T_ERR(gk_mx_dequantize(e, 2, 4, 32, c, 4, s, 0, x, 4), GK_ERR_INVALID_LD, "ldscales=0");
    T_ERR(gk_mx_dequantize(e, 2, 4, 32, c, 4, s, 1, x, 1), GK_ERR_INVALID_LD, "ldy=1");
    T_ERR(gk_mx_dequantize(e, 1, 4, 32, c, 4, s, 1, NULL, 4), GK_ERR_NULL_POINTER, "y is NULL");
    T_CHECK(gk_mx_quantize(e, r, 0, 4, 32, NULL, 4, NULL, 4, NULL, 1) == GK_SUCCESS,
            "rows = 0 with NULL pointers: %s", gk_last_error());
    T_CHECK(x[0] == 1 && c[0] == 0 && s[0] == 0, "an argument error wrote an output");
}

int main(void) {
    T_RUN(t_decode_vectors);
    T_RUN(t_encode_vectors);
    T_RUN(t_encode_random);
    T_RUN(t_examples);
    T_RUN(t_tf32_f32);
    T_RUN(t_variants_portable);
    for (cur_variant = 0; cur_variant < gk_fmt_variant_count; cur_variant++) {
        char name[96];
        snprintf(name, sizeof name, "t_variant_%s_vs_scalar", gk_fmt_variants[cur_variant].arch);
        t_run(name, t_variant_vs_scalar);
        snprintf(name, sizeof name, "t_variant_%s_fp_env", gk_fmt_variants[cur_variant].arch);
        t_run(name, t_variant_fp_env);
    }
    T_RUN(t_variant_selection);
    T_RUN(t_format_info);
    T_RUN(t_pack);
    T_RUN(t_mx_model);
    T_RUN(t_mx_examples);
    for (cur_variant = 0; cur_variant < gk_fmt_variant_count; cur_variant++) {
        char name[96];
        snprintf(name, sizeof name, "t_mx_variant_%s", gk_fmt_variants[cur_variant].arch);
        t_run(name, t_mx_variant);
    }
    T_RUN(t_errors);
    free(vec);
    return t_finish();
}
