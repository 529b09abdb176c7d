/*
 * test_gemm_scaled.c — gk_gemm_scaled, the block-scaled GEMM on the CPU (include/gemmkit.h above
 * gk_scaling; docs/formats.md, "Block-scaled GEMM"), against a float64 reference computed here
 * from the codes' bit fields and the scales (no library decoder involved), with the accuracy
 * rule of docs/testing.md (harness/rule.h): the float32 bound for K terms, u_in = 2^-24 for
 * BLOCK128 (code * scale is rounded once to float32; MX elements are exact), plus half an ulp of
 * ctype relative to |C| for BF16/F16 results.
 *
 * Covered: every MX format pair and the three BLOCK128 pairs; both layouts, all four
 * transposition pairs, padded leading dimensions (the padding holds NaN codes, so reading it
 * shows); odd shapes (1, primes, K not a multiple of 32 or 128, K = 1, several 128-column blocks
 * of B); alpha/beta cases with NaN in C; float32, bfloat16 and float16 results; MX scales over a
 * spread of exponents, the extreme codes 0 (2^-127) and 254, and the NaN scale; a cross-check
 * with gk_mx_quantize / gk_mx_dequantize in the "TN" layout they produce; and the argument
 * errors (status, a message naming the argument, C untouched), allocation failures included.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "formats/scalar.h"
#include "harness/rule.h"

/* ---- helpers ------------------------------------------------------------------------------- */

static uint64_t rng_state = 0x5CA1ED17ull;
static uint64_t rnd(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static int64_t rnd_range(int64_t lo, int64_t hi) { /* inclusive */
    return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}
static double rnd_unit(void) { /* [0, 1) */
    return (double)(rnd() >> 11) * (1.0 / 9007199254740992.0);
}

static const gk_format MX_FORMATS[5] = {GK_F8_E4M3FN, GK_F8_E5M2, GK_F6_E2M3FN, GK_F6_E3M2FN,
                                        GK_F4_E2M1FN};

/* Bit fields of the formats a test decodes: total, exponent and fraction bits, bias, and how the
 * top exponent is used (0: finite, as FP6/FP4; 1: IEEE Inf/NaN; 2: E4M3FN, all-ones is NaN). */
typedef struct fields {
    int nbits, ebits, mbits, bias, top;
} fields;

static fields fields_of(gk_format f) {
    switch (f) {
    case GK_F8_E4M3FN:
        return (fields){8, 4, 3, 7, 2};
    case GK_F8_E5M2:
        return (fields){8, 5, 2, 15, 1};
    case GK_F6_E2M3FN:
        return (fields){6, 2, 3, 1, 0};
    case GK_F6_E3M2FN:
        return (fields){6, 3, 2, 3, 0};
    case GK_F4_E2M1FN:
        return (fields){4, 2, 1, 1, 0};
    case GK_F16:
        return (fields){16, 5, 10, 15, 1};
    default: /* GK_BF16 */
        return (fields){16, 8, 7, 127, 1};
    }
}

/* The value of a code, in float64, from its bit fields. */
static double ref_value(gk_format f, uint32_t code) {
    const fields d = fields_of(f);
    code &= (1u << d.nbits) - 1u;
    const int s = (int)(code >> (d.nbits - 1));
    const int e = (int)(code >> d.mbits) & ((1 << d.ebits) - 1);
    const int m = (int)code & ((1 << d.mbits) - 1);
    const int etop = (1 << d.ebits) - 1, mtop = (1 << d.mbits) - 1;
    if (d.top == 1 && e == etop) return m ? NAN : s ? -INFINITY : INFINITY;
    if (d.top == 2 && e == etop && m == mtop) return NAN;
    const double v = e ? ldexp(1.0 + (double)m / (1 << d.mbits), e - d.bias)
                       : ldexp((double)m, 1 - d.bias - d.mbits);
    return s ? -v : v;
}

/* E8M0: 2^(s - 127), 0xFF NaN. */
static double ref_e8m0(uint8_t s) {
    return s == 0xff ? NAN : ldexp(1.0, (int)s - 127);
}

/* A random finite code. */
static uint8_t rnd_code(gk_format f) {
    const fields d = fields_of(f);
    for (;;) {
        const uint8_t c = (uint8_t)(rnd() & ((1u << d.nbits) - 1u));
        if (isfinite(ref_value(f, c))) return c;
    }
}

/* A code that decodes to NaN where the format has one, else its largest value: what the padding
 * of the operands holds. */
static uint8_t poison_code(gk_format f) {
    return f == GK_F8_E4M3FN ? 0x7f : f == GK_F8_E5M2 ? 0x7f : 0x1f;
}

static int64_t max64(int64_t a, int64_t b) {
    return a > b ? a : b;
}

static int csize(gk_format ct) {
    return ct == GK_F32 ? 4 : 2;
}

/* C element as float64 / stored from float. */
static double c_get(gk_format ct, const void *c, int64_t at) {
    if (ct == GK_F32) return ((const float *)c)[at];
    return ref_value(ct, ((const uint16_t *)c)[at]);
}
static void c_put(gk_format ct, void *c, int64_t at, float v) {
    if (ct == GK_F32)
        ((float *)c)[at] = v;
    else
        ((uint16_t *)c)[at] = (uint16_t)gk_encode_scalar(ct, v, 0);
}
static void c_put_nan(gk_format ct, void *c, int64_t at) {
    if (ct == GK_F32)
        ((uint32_t *)c)[at] = 0x7fc00001u;
    else
        ((uint16_t *)c)[at] = ct == GK_BF16 ? 0x7fc1 : 0x7e01;
}

/* ---- one problem ---------------------------------------------------------------------------- */

/* Scales: MX exponents in [s_lo, s_hi]; BLOCK128 scales 2^[e_lo, e_hi] times a random
 * significand in [1, 2) (so code * scale actually rounds). */
typedef struct gcase {
    gk_scaling scaling;
    gk_format at, bt, ct;
    gk_layout layout;
    gk_trans ta, tb;
    int64_t m, n, k;
    int64_t pad; /* added to each leading dimension */
    float alpha, beta;
    int s_lo, s_hi;
    /* MX NaN scale at a_scale[nan_a] / b_scale[nan_b] (-1: none) */
    int64_t nan_a, nan_b;
} gcase;

static const char *fname(gk_format f) {
    return gk_format_name(f);
}

static void describe(const gcase *g, char *out, size_t cap) {
    snprintf(out, cap, "%s %s x %s -> %s %s %c%c m=%lld n=%lld k=%lld pad=%lld alpha=%g beta=%g",
             g->scaling == GK_SCALING_MX ? "mx" : "block128", fname(g->at), fname(g->bt),
             fname(g->ct), g->layout == GK_ROW_MAJOR ? "row" : "col",
             g->ta == GK_NO_TRANS ? 'N' : 'T', g->tb == GK_NO_TRANS ? 'N' : 'T', (long long)g->m,
             (long long)g->n, (long long)g->k, (long long)g->pad, g->alpha, g->beta);
}

/* Where the stored operands put element (i, kk) of op(A) and (kk, j) of op(B), and (i, j) of C. */
static int64_t a_at(const gcase *g, int64_t lda, int64_t i, int64_t kk) {
    const int row = g->layout == GK_ROW_MAJOR, t = g->ta != GK_NO_TRANS;
    return row ? (t ? kk * lda + i : i * lda + kk) : (t ? i * lda + kk : kk * lda + i);
}
static int64_t b_at(const gcase *g, int64_t ldb, int64_t kk, int64_t j) {
    const int row = g->layout == GK_ROW_MAJOR, t = g->tb != GK_NO_TRANS;
    return row ? (t ? j * ldb + kk : kk * ldb + j) : (t ? kk * ldb + j : j * ldb + kk);
}
static int64_t c_at(const gcase *g, int64_t ldc, int64_t i, int64_t j) {
    return g->layout == GK_ROW_MAJOR ? i * ldc + j : j * ldc + i;
}

/* Minimum leading dimensions and the stored extents (lines of ld elements). */
static void extents(const gcase *g, int64_t mins[3], int64_t lines[3]) {
    const int row = g->layout == GK_ROW_MAJOR;
    const int ta = g->ta != GK_NO_TRANS, tb = g->tb != GK_NO_TRANS;
    mins[0] = row ? (ta ? g->m : g->k) : (ta ? g->k : g->m);
    lines[0] = row ? (ta ? g->k : g->m) : (ta ? g->m : g->k);
    mins[1] = row ? (tb ? g->k : g->n) : (tb ? g->n : g->k);
    lines[1] = row ? (tb ? g->n : g->k) : (tb ? g->k : g->n);
    mins[2] = row ? g->n : g->m;
    lines[2] = row ? g->m : g->n;
}

/* Run one problem against the float64 reference; 1 if it passes (a failure is recorded). */
static int run_case(const gcase *g) {
    char what[256];
    describe(g, what, sizeof what);
    const int mx = g->scaling == GK_SCALING_MX;
    const int64_t m = g->m, n = g->n, k = g->k, group = mx ? 32 : 128;
    const int64_t kb = (k + group - 1) / group;
    int64_t mins[3], lines[3], ld[3];
    extents(g, mins, lines);
    for (int i = 0; i < 3; i++)
        ld[i] = max64(mins[i], 1) + g->pad;
    const int64_t asz = max64(lines[0] * ld[0], 1), bsz = max64(lines[1] * ld[1], 1);
    const int64_t csz_el = max64(lines[2] * ld[2], 1);
    const int64_t sa_n = m * kb, sb_n = (mx ? n : (n + 127) / 128) * kb;
    uint8_t *a = malloc((size_t)asz), *b = malloc((size_t)bsz);
    uint8_t *sa8 = malloc((size_t)max64(sa_n, 1)), *sb8 = malloc((size_t)max64(sb_n, 1));
    float *saf = malloc((size_t)max64(sa_n, 1) * 4), *sbf = malloc((size_t)max64(sb_n, 1) * 4);
    void *c = malloc((size_t)csz_el * 4), *c0 = malloc((size_t)csz_el * 4);
    double *ar = malloc(sizeof(double) * (size_t)max64(m * k, 1));
    double *br = malloc(sizeof(double) * (size_t)max64(k * n, 1));
    int ok = 1;

    /* operands: padding poisoned, then the m x k and k x n elements */
    memset(a, poison_code(g->at), (size_t)asz);
    memset(b, poison_code(g->bt), (size_t)bsz);
    const int e_lo = g->s_lo - 127, e_hi = g->s_hi - 127;
    for (int64_t i = 0; i < sa_n; i++) {
        sa8[i] = (uint8_t)rnd_range(g->s_lo, g->s_hi);
        saf[i] = (float)ldexp(1.0 + rnd_unit(), (int)rnd_range(e_lo, e_hi));
    }
    for (int64_t i = 0; i < sb_n; i++) {
        sb8[i] = (uint8_t)rnd_range(g->s_lo, g->s_hi);
        sbf[i] = (float)ldexp(1.0 + rnd_unit(), (int)rnd_range(e_lo, e_hi));
    }
    if (g->nan_a >= 0 && g->nan_a < sa_n) sa8[g->nan_a] = 0xff;
    if (g->nan_b >= 0 && g->nan_b < sb_n) sb8[g->nan_b] = 0xff;
    for (int64_t i = 0; i < m; i++)
        for (int64_t kk = 0; kk < k; kk++) {
            const uint8_t code = rnd_code(g->at);
            a[a_at(g, ld[0], i, kk)] = code;
            const double s = mx ? ref_e8m0(sa8[i * kb + kk / 32]) : saf[i * kb + kk / 128];
            ar[i * k + kk] = ref_value(g->at, code) * s;
        }
    for (int64_t kk = 0; kk < k; kk++)
        for (int64_t j = 0; j < n; j++) {
            const uint8_t code = rnd_code(g->bt);
            b[b_at(g, ld[1], kk, j)] = code;
            const double s = mx ? ref_e8m0(sb8[j * kb + kk / 32]) : sbf[(j / 128) * kb + kk / 128];
            br[kk * n + j] = ref_value(g->bt, code) * s;
        }
    /* C: every byte a sentinel, the m x n block NaN (beta == 0) or random values */
    memset(c, 0xA5, (size_t)csz_el * 4);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            if (g->beta == 0.0f)
                c_put_nan(g->ct, c, c_at(g, ld[2], i, j));
            else
                c_put(g->ct, c, c_at(g, ld[2], i, j), (float)(4.0 * rnd_unit() - 2.0));
        }
    memcpy(c0, c, (size_t)csz_el * 4);

    const gk_status st = gk_gemm_scaled(
        g->layout, g->ta, g->tb, m, n, k, g->alpha, g->at, a, ld[0], mx ? (void *)sa8 : saf, g->bt,
        b, ld[1], mx ? (void *)sb8 : sbf, g->scaling, g->beta, g->ct, c, ld[2]);
    if (st != GK_SUCCESS) {
        T_CHECK(0, "%s: status %d (%s)", what, (int)st, gk_last_error());
        ok = 0;
        goto done;
    }

    const double u_in = mx ? 0.0 : FLT_EPSILON / 2;
    const double u_c = g->ct == GK_F32 ? 0.0 : g->ct == GK_BF16 ? ldexp(1, -8) : ldexp(1, -11);
    const double abs_c = g->ct == GK_F16 ? ldexp(1, -25) : 0.0;
    const int cs = csize(g->ct);
    for (int64_t i = 0; i < m && ok; i++)
        for (int64_t j = 0; j < n && ok; j++) {
            const int64_t at = c_at(g, ld[2], i, j);
            double r = 0, s = 0;
            if (g->alpha != 0.0f)
                for (int64_t kk = 0; kk < k; kk++) {
                    const double p = ar[i * k + kk] * br[kk * n + j];
                    r += p, s += fabs(p);
                }
            r *= g->alpha, s *= fabs(g->alpha);
            if (g->beta != 0.0f) {
                const double cv = c_get(g->ct, c0, at);
                r += g->beta * cv, s += fabs(g->beta * cv);
            }
            const double got = c_get(g->ct, c, at);
            if (isnan(r)) {
                if (!isnan(got)) {
                    T_CHECK(0, "%s: C(%lld,%lld) = %g, expected NaN", what, (long long)i,
                            (long long)j, got);
                    ok = 0;
                }
                continue;
            }
            const double tol = gkh_bound(k, u_in, s);
            const double bound = tol + u_c * (fabs(r) + tol) + abs_c;
            if (!(fabs(got - r) <= bound)) {
                T_CHECK(0, "%s: C(%lld,%lld) = %.9g, reference %.9g, |err| %.3g > %.3g", what,
                        (long long)i, (long long)j, got, r, fabs(got - r), bound);
                ok = 0;
            }
        }
    /* nothing outside the m x n block of C written */
    for (int64_t t = 0; t < lines[2] && ok; t++)
        for (int64_t e = mins[2]; e < ld[2]; e++)
            if (memcmp((char *)c + (t * ld[2] + e) * cs, (char *)c0 + (t * ld[2] + e) * cs, cs)) {
                T_CHECK(0, "%s: C padding at line %lld, element %lld written", what, (long long)t,
                        (long long)e);
                ok = 0;
                break;
            }
done:
    free(a), free(b), free(sa8), free(sb8), free(saf), free(sbf), free(c), free(c0), free(ar),
        free(br);
    return ok;
}

/* A case with the defaults: row-major NN, no padding, alpha 1, beta 0, MX exponents 120..134
 * (BLOCK128 scales 2^-7 .. 2^7), no NaN scale. */
static gcase base(gk_scaling sc, gk_format at, gk_format bt, gk_format ct, int64_t m, int64_t n,
                  int64_t k) {
    gcase g = {sc, at, bt,   ct,   GK_ROW_MAJOR, GK_NO_TRANS, GK_NO_TRANS, m, n,
               k,  0,  1.0f, 0.0f, 120,          134,         -1,          -1};
    return g;
}

/* Exponents that keep every element within about [-2, 2] for float16 results: scale codes
 * 123 - emax .. 127 - emax of the wider of the two formats. */
static void f16_range(gcase *g) {
    const int emax_of[12] = {[GK_F8_E4M3FN] = 8,
                             [GK_F8_E5M2] = 15,
                             [GK_F6_E2M3FN] = 2,
                             [GK_F6_E3M2FN] = 4,
                             [GK_F4_E2M1FN] = 2};
    const int e = emax_of[g->at] > emax_of[g->bt] ? emax_of[g->at] : emax_of[g->bt];
    g->s_lo = 123 - e, g->s_hi = 127 - e;
}

static const gk_trans TR[2] = {GK_NO_TRANS, GK_TRANS};
static const gk_layout LAYOUTS[2] = {GK_ROW_MAJOR, GK_COL_MAJOR};

/* ---- cases ------------------------------------------------------------------------------------
 */

static void t_mx_every_pair(void) {
    int idx = 0;
    for (int x = 0; x < 5; x++)
        for (int y = 0; y < 5; y++, idx++) {
            gcase g = base(GK_SCALING_MX, MX_FORMATS[x], MX_FORMATS[y], GK_F32, 37, 29, 131);
            g.layout = LAYOUTS[idx & 1];
            g.ta = TR[(idx >> 1) & 1], g.tb = TR[(idx >> 2) & 1];
            g.pad = idx % 3;
            g.alpha = 1.5f;
            if (!run_case(&g)) return;
        }
}

static void t_block128_every_pair(void) {
    const gk_format pairs[3][2] = {
        {GK_F8_E4M3FN, GK_F8_E4M3FN}, {GK_F8_E4M3FN, GK_F8_E5M2}, {GK_F8_E5M2, GK_F8_E4M3FN}};
    for (int p = 0; p < 3; p++)
        for (int l = 0; l < 2; l++) {
            /* n = 300: three 128-column blocks of B's scales, the last partial; k = 300: three
             * K blocks, the last partial */
            gcase g = base(GK_SCALING_BLOCK128, pairs[p][0], pairs[p][1], GK_F32, 37, 300, 300);
            g.layout = LAYOUTS[l];
            g.ta = TR[p & 1], g.tb = TR[(p + l) & 1];
            g.alpha = -0.75f;
            if (!run_case(&g)) return;
        }
}

static void t_layouts_transpositions_padding(void) {
    for (int sc = 0; sc < 2; sc++)
        for (int l = 0; l < 2; l++)
            for (int x = 0; x < 2; x++)
                for (int y = 0; y < 2; y++) {
                    const int mx = sc == 0;
                    gcase g = base(mx ? GK_SCALING_MX : GK_SCALING_BLOCK128, GK_F8_E4M3FN,
                                   mx ? GK_F4_E2M1FN : GK_F8_E5M2, GK_F32, 23, 131, 200);
                    g.layout = LAYOUTS[l], g.ta = TR[x], g.tb = TR[y];
                    g.pad = 5;
                    if (!run_case(&g)) return;
                }
}

static void t_odd_shapes(void) {
    static const int64_t shapes[][3] = {{1, 1, 1},   {1, 37, 1},    {37, 1, 131}, {131, 37, 1},
                                        {5, 7, 32},  {5, 7, 33},    {3, 5, 31},   {3, 5, 128},
                                        {3, 5, 129}, {2, 130, 257}, {131, 3, 37}, {1, 1, 300}};
    const int ns = (int)(sizeof shapes / sizeof shapes[0]);
    for (int s = 0; s < ns; s++)
        for (int sc = 0; sc < 2; sc++) {
            const int mx = sc == 0;
            gcase g = base(mx ? GK_SCALING_MX : GK_SCALING_BLOCK128, mx ? GK_F6_E3M2FN : GK_F8_E5M2,
                           mx ? GK_F8_E5M2 : GK_F8_E4M3FN, GK_F32, shapes[s][0], shapes[s][1],
                           shapes[s][2]);
            g.layout = LAYOUTS[s & 1], g.ta = TR[(s >> 1) & 1], g.tb = TR[s % 3 == 0];
            g.pad = s % 2;
            if (!run_case(&g)) return;
        }
}

static void t_alpha_beta(void) {
    static const float ab[][2] = {{1.0f, 0.0f}, {-1.25f, 1.0f}, {2.0f, -0.75f},
                                  {0.0f, 0.5f}, {0.0f, 0.0f},   {0.0f, 1.0f}};
    const gk_format cts[3] = {GK_F32, GK_BF16, GK_F16};
    for (int i = 0; i < 6; i++)
        for (int c = 0; c < 3; c++)
            for (int sc = 0; sc < 2; sc++) {
                const int mx = sc == 0;
                gcase g = base(mx ? GK_SCALING_MX : GK_SCALING_BLOCK128, GK_F8_E4M3FN,
                               mx ? GK_F6_E2M3FN : GK_F8_E4M3FN, cts[c], 19, 21, 70);
                g.alpha = ab[i][0], g.beta = ab[i][1];
                g.layout = LAYOUTS[(i + c) & 1], g.ta = TR[c & 1], g.tb = TR[i & 1];
                g.pad = 2;
                if (cts[c] == GK_F16) {
                    f16_range(&g);
                    if (!mx) g.s_lo = 127 - 10, g.s_hi = 127 - 8;
                }
                if (!run_case(&g)) return;
            }
}

/* k == 0 and alpha == 0 never read A, B or the scales: NULL is accepted for all of them. */
static void t_scale_only_reads_nothing(void) {
    const gk_format cts[3] = {GK_F32, GK_BF16, GK_F16};
    for (int c = 0; c < 3; c++)
        for (int beta_zero = 0; beta_zero < 2; beta_zero++) {
            uint8_t cbuf[4 * 6];
            const gk_format ct = cts[c];
            for (int e = 0; e < 6; e++) {
                if (beta_zero)
                    c_put_nan(ct, cbuf, e);
                else
                    c_put(ct, cbuf, e, (float)(e + 1));
            }
            const float beta = beta_zero ? 0.0f : -0.5f;
            gk_status st = gk_gemm_scaled(GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 2, 3, 0, 1.0f,
                                          GK_F8_E4M3FN, NULL, 2, NULL, GK_F8_E4M3FN, NULL, 1, NULL,
                                          GK_SCALING_MX, beta, ct, cbuf, 2);
            T_REQUIRE(st == GK_SUCCESS, "%s k=0: status %d (%s)", fname(ct), (int)st,
                      gk_last_error());
            for (int e = 0; e < 6; e++) {
                const double want = beta_zero ? 0.0 : -0.5 * (e + 1);
                T_CHECK(c_get(ct, cbuf, e) == want && !signbit(c_get(ct, cbuf, e)) == !(want < 0),
                        "%s k=0 beta=%g: C[%d] = %g, expected %g", fname(ct), beta, e,
                        c_get(ct, cbuf, e), want);
            }
            st = gk_gemm_scaled(GK_ROW_MAJOR, GK_TRANS, GK_NO_TRANS, 2, 3, 4, 0.0f, GK_F8_E5M2,
                                NULL, 2, NULL, GK_F4_E2M1FN, NULL, 3, NULL, GK_SCALING_MX, 1.0f, ct,
                                cbuf, 3);
            T_REQUIRE(st == GK_SUCCESS, "%s alpha=0: status %d (%s)", fname(ct), (int)st,
                      gk_last_error());
            for (int e = 0; e < 6; e++) /* beta = 1: unchanged */
                T_CHECK(beta_zero ? c_get(ct, cbuf, e) == 0.0
                                  : c_get(ct, cbuf, e) == -0.5 * (e + 1),
                        "%s alpha=0 beta=1 changed C[%d]", fname(ct), e);
        }
}

static void t_ctypes(void) {
    const gk_format cts[2] = {GK_BF16, GK_F16};
    int idx = 0;
    for (int c = 0; c < 2; c++)
        for (int x = 0; x < 5; x++, idx++) {
            gcase g =
                base(GK_SCALING_MX, MX_FORMATS[x], MX_FORMATS[(x + 2) % 5], cts[c], 29, 41, 97);
            g.layout = LAYOUTS[idx & 1], g.ta = TR[(idx >> 1) & 1], g.tb = TR[x & 1];
            g.beta = idx % 2 ? 0.5f : 0.0f;
            g.pad = 1;
            if (cts[c] == GK_F16) f16_range(&g);
            if (!run_case(&g)) return;
        }
    for (int c = 0; c < 2; c++) {
        gcase g = base(GK_SCALING_BLOCK128, GK_F8_E5M2, GK_F8_E4M3FN, cts[c], 40, 140, 260);
        g.beta = 1.0f, g.layout = LAYOUTS[c], g.ta = TR[c];
        if (cts[c] == GK_F16) g.s_lo = 127 - 16, g.s_hi = 127 - 15; /* E5M2 * 2^-16 stays small */
        if (!run_case(&g)) return;
    }
}

/* Large enough that the decoding runs on several threads (where there are several). */
static void t_parallel_decoding(void) {
    for (int sc = 0; sc < 2; sc++)
        for (int c = 0; c < 2; c++) {
            const int mx = sc == 0;
            gcase g = base(mx ? GK_SCALING_MX : GK_SCALING_BLOCK128, GK_F8_E4M3FN, GK_F8_E4M3FN,
                           c ? GK_BF16 : GK_F32, 160, 170, 180);
            g.layout = LAYOUTS[c], g.ta = TR[sc], g.tb = TR[c];
            g.beta = 0.25f;
            if (!run_case(&g)) return;
        }
}

static void t_mx_scale_spread_and_nan(void) {
    /* scales 2^-27 .. 2^27 on a long K */
    gcase g = base(GK_SCALING_MX, GK_F8_E4M3FN, GK_F6_E2M3FN, GK_F32, 7, 9, 32 * 40);
    g.s_lo = 100, g.s_hi = 154;
    if (!run_case(&g)) return;
    /* NaN scale: row 3 of op(A) (its block 1) and column 5 of op(B) (block 0) become NaN */
    for (int l = 0; l < 2; l++) {
        g = base(GK_SCALING_MX, GK_F4_E2M1FN, GK_F8_E5M2, GK_F32, 6, 8, 70);
        const int64_t kb = 3;
        g.nan_a = 3 * kb + 1, g.nan_b = 5 * kb + 0;
        g.layout = LAYOUTS[l], g.ta = TR[l], g.tb = TR[!l];
        if (!run_case(&g)) return; /* the reference is NaN exactly there */
    }
}

/* Single products whose exact value is known: the extreme scale codes. */
static void t_mx_scale_extremes(void) {
    const struct {
        gk_format at;
        uint8_t a, sa;
        gk_format bt;
        uint8_t b, sb;
        double want;
    } t[] = {
        {GK_F8_E4M3FN, 0x38, 0, GK_F8_E4M3FN, 0x38, 127, ldexp(1, -127)},    /* 1 * 2^-127 * 1 */
        {GK_F8_E4M3FN, 0x01, 0, GK_F4_E2M1FN, 0x2, 127 + 9, ldexp(1, -127)}, /* 2^-9 2^-127 2^9 */
        {GK_F8_E5M2, 0x01, 0, GK_F8_E5M2, 0x3c, 127, ldexp(1, -143)},        /* 2^-16 * 2^-127 */
        {GK_F8_E4M3FN, 0x38, 254, GK_F8_E4M3FN, 0x38, 127, ldexp(1, 127)},
        {GK_F6_E3M2FN, 0x1f, 250, GK_F4_E2M1FN, 0x2, 127, 28 * ldexp(1, 123)}, /* 1.75 2^127 */
        {GK_F8_E5M2, 0x7b, 254, GK_F8_E4M3FN, 0x38, 127, INFINITY}, /* 57344 * 2^127: Inf */
        {GK_F8_E4M3FN, 0x00, 0xff, GK_F8_E4M3FN, 0x38, 127, NAN},   /* 0 * NaN scale */
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        float c = -1.0f;
        const gk_status st = gk_gemm_scaled(GK_ROW_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 1, 1, 1, 1.0f,
                                            t[i].at, &t[i].a, 1, &t[i].sa, t[i].bt, &t[i].b, 1,
                                            &t[i].sb, GK_SCALING_MX, 0.0f, GK_F32, &c, 1);
        T_REQUIRE(st == GK_SUCCESS, "case %zu: status %d (%s)", i, (int)st, gk_last_error());
        T_CHECK(isnan(t[i].want) ? isnan(c) : (double)c == t[i].want,
                "case %zu: %s 0x%02x scale %u x %s 0x%02x scale %u = %a, expected %a", i,
                fname(t[i].at), t[i].a, t[i].sa, fname(t[i].bt), t[i].b, t[i].sb, (double)c,
                t[i].want);
    }
}

/* gk_mx_quantize's output for A (m x k) and for B stored n x k (the "TN" layout) multiplies as
 * it comes, in both layouts: the product is that of gk_mx_dequantize's matrices. */
static void t_mx_quantize_cross_check(void) {
    const int64_t m = 33, n = 45, k = 161, kb = (k + 31) / 32;
    float *xa = malloc(sizeof(float) * m * k), *xb = malloc(sizeof(float) * n * k);
    float *ya = malloc(sizeof(float) * m * k), *yb = malloc(sizeof(float) * n * k);
    uint8_t *ca = malloc(m * k), *cb = malloc(n * k), *sa = malloc(m * kb), *sb = malloc(n * kb);
    float *c = malloc(sizeof(float) * m * n);
    for (int64_t i = 0; i < m * k; i++)
        xa[i] = (float)(ldexp(2 * rnd_unit() - 1, (int)rnd_range(-6, 6)));
    for (int64_t i = 0; i < n * k; i++)
        xb[i] = (float)(ldexp(2 * rnd_unit() - 1, (int)rnd_range(-6, 6)));
    for (int x = 0; x < 5; x++) {
        const gk_format fa = MX_FORMATS[x], fb = MX_FORMATS[(x + 1) % 5];
        T_REQUIRE(gk_mx_quantize(fa, GK_MX_SCALE_FLOOR, m, k, 32, xa, k, ca, k, sa, kb) == 0 &&
                      gk_mx_quantize(fb, GK_MX_SCALE_RCEIL, n, k, 32, xb, k, cb, k, sb, kb) == 0 &&
                      gk_mx_dequantize(fa, m, k, 32, ca, k, sa, kb, ya, k) == 0 &&
                      gk_mx_dequantize(fb, n, k, 32, cb, k, sb, kb, yb, k) == 0,
                  "quantize: %s", gk_last_error());
        for (int l = 0; l < 2; l++) {
            const int row = l == 0;
            /* row-major: A m x k (N), B^T stored n x k (T); column-major: the same arrays are
             * A^T (k x m, T) and B (k x n, N) */
            const gk_status st =
                gk_gemm_scaled(row ? GK_ROW_MAJOR : GK_COL_MAJOR, row ? GK_NO_TRANS : GK_TRANS,
                               row ? GK_TRANS : GK_NO_TRANS, m, n, k, 1.0f, fa, ca, k, sa, fb, cb,
                               k, sb, GK_SCALING_MX, 0.0f, GK_F32, c, row ? n : m);
            T_REQUIRE(st == GK_SUCCESS, "%s x %s: status %d (%s)", fname(fa), fname(fb), (int)st,
                      gk_last_error());
            for (int64_t i = 0; i < m; i++)
                for (int64_t j = 0; j < n; j++) {
                    double r = 0, s = 0;
                    for (int64_t kk = 0; kk < k; kk++) {
                        const double p = (double)ya[i * k + kk] * yb[j * k + kk];
                        r += p, s += fabs(p);
                    }
                    const double got = c[row ? i * n + j : j * m + i];
                    if (!(fabs(got - r) <= gkh_bound(k, 0.0, s))) {
                        T_CHECK(0, "%s x %s %s: C(%lld,%lld) = %.9g, reference %.9g", fname(fa),
                                fname(fb), row ? "row" : "col", (long long)i, (long long)j, got, r);
                        i = m, j = n;
                    }
                }
        }
    }
    free(xa), free(xb), free(ya), free(yb), free(ca), free(cb), free(sa), free(sb), free(c);
}

/* ---- argument errors ---------------------------------------------------------------------- */

typedef struct call {
    gk_layout layout;
    gk_trans ta, tb;
    int64_t m, n, k;
    float alpha;
    gk_format at;
    const void *a;
    int64_t lda;
    const void *sa;
    gk_format bt;
    const void *b;
    int64_t ldb;
    const void *sb;
    gk_scaling scaling;
    float beta;
    gk_format ct;
    void *c;
    int64_t ldc;
} call;

static gk_status run_call(const call *x) {
    return gk_gemm_scaled(x->layout, x->ta, x->tb, x->m, x->n, x->k, x->alpha, x->at, x->a, x->lda,
                          x->sa, x->bt, x->b, x->ldb, x->sb, x->scaling, x->beta, x->ct, x->c,
                          x->ldc);
}

static void t_argument_errors(void) {
    static uint8_t a[64 * 64], b[64 * 64], s8[64];
    static float sf[64];
    float c[16 * 16], c_before[16 * 16];
    for (int i = 0; i < 256; i++)
        c[i] = (float)i;
    memcpy(c_before, c, sizeof c);
    /* a valid MX call: row-major 4 x 5 x 40 */
    const call ok = {GK_ROW_MAJOR,
                     GK_NO_TRANS,
                     GK_NO_TRANS,
                     4,
                     5,
                     40,
                     1.0f,
                     GK_F8_E4M3FN,
                     a,
                     40,
                     s8,
                     GK_F8_E4M3FN,
                     b,
                     5,
                     s8,
                     GK_SCALING_MX,
                     0.5f,
                     GK_F32,
                     c,
                     5};
    T_REQUIRE(run_call(&ok) == GK_SUCCESS, "the valid call failed: %s", gk_last_error());
    memcpy(c_before, c, sizeof c);

    struct {
        const char *what;
        call x;
        gk_status want;
        const char *name; /* in the message */
    } t[40];
    int nt = 0;
#define BAD(desc, field, value, status, text)                                                      \
    do {                                                                                           \
        t[nt].what = desc, t[nt].x = ok, t[nt].x.field = value, t[nt].want = status;               \
        t[nt].name = text, nt++;                                                                   \
    } while (0)
    BAD("scaling 0", scaling, (gk_scaling)0, GK_ERR_INVALID_VALUE, "scaling=0");
    BAD("scaling 3", scaling, (gk_scaling)3, GK_ERR_INVALID_VALUE, "scaling=3");
    BAD("atype 99", at, (gk_format)99, GK_ERR_INVALID_VALUE, "atype=99");
    BAD("btype -1", bt, (gk_format)-1, GK_ERR_INVALID_VALUE, "btype=-1");
    BAD("ctype 12", ct, (gk_format)12, GK_ERR_INVALID_VALUE, "ctype=12");
    BAD("atype e4m3fnuz", at, GK_F8_E4M3FNUZ, GK_ERR_UNSUPPORTED, "atype=float8_e4m3fnuz");
    BAD("btype bf16", bt, GK_BF16, GK_ERR_UNSUPPORTED, "btype=bfloat16");
    BAD("btype e8m0", bt, GK_F8_E8M0FNU, GK_ERR_UNSUPPORTED, "btype=float8_e8m0fnu");
    BAD("ctype e4m3", ct, GK_F8_E4M3FN, GK_ERR_UNSUPPORTED, "ctype=float8_e4m3fn");
    BAD("ctype tf32", ct, GK_TF32, GK_ERR_UNSUPPORTED, "ctype=tfloat32");
    BAD("layout 0", layout, (gk_layout)0, GK_ERR_INVALID_LAYOUT, "layout=0");
    BAD("transa 0", ta, (gk_trans)0, GK_ERR_INVALID_TRANS, "transa=0");
    BAD("transb 114", tb, (gk_trans)114, GK_ERR_INVALID_TRANS, "transb=114");
    BAD("m -1", m, -1, GK_ERR_INVALID_SIZE, "m=-1");
    BAD("n -1", n, -1, GK_ERR_INVALID_SIZE, "n=-1");
    BAD("k -1", k, -1, GK_ERR_INVALID_SIZE, "k=-1");
    BAD("lda 39", lda, 39, GK_ERR_INVALID_LD, "lda=39");
    BAD("ldb 4", ldb, 4, GK_ERR_INVALID_LD, "ldb=4");
    BAD("ldc 4", ldc, 4, GK_ERR_INVALID_LD, "ldc=4");
    BAD("a NULL", a, NULL, GK_ERR_NULL_POINTER, "a is NULL");
    BAD("b NULL", b, NULL, GK_ERR_NULL_POINTER, "b is NULL");
    BAD("c NULL", c, NULL, GK_ERR_NULL_POINTER, "c is NULL");
    BAD("a_scale NULL", sa, NULL, GK_ERR_INVALID_POINTER, "a_scale is NULL");
    BAD("b_scale NULL", sb, NULL, GK_ERR_INVALID_POINTER, "b_scale is NULL");
    BAD("lda overflows", lda, INT64_MAX / 2, GK_ERR_OVERFLOW, "a (");
#undef BAD
    /* BLOCK128 takes only FP8, and not two E5M2 */
    t[nt].what = "block128 fp6", t[nt].x = ok, t[nt].x.scaling = GK_SCALING_BLOCK128;
    t[nt].x.sa = t[nt].x.sb = sf, t[nt].x.at = GK_F6_E2M3FN, t[nt].want = GK_ERR_UNSUPPORTED;
    t[nt].name = "atype=float6_e2m3fn", nt++;
    t[nt].what = "block128 e5m2 pair", t[nt].x = ok, t[nt].x.scaling = GK_SCALING_BLOCK128;
    t[nt].x.sa = t[nt].x.sb = sf, t[nt].x.at = t[nt].x.bt = GK_F8_E5M2;
    t[nt].want = GK_ERR_UNSUPPORTED, t[nt].name = "atype=btype=float8_e5m2", nt++;
    /* the float32 copy of op(A), 2^31 x 2^31 floats, overflows (A itself is never read) */
    t[nt].what = "copy overflows", t[nt].x = ok, t[nt].x.m = (int64_t)1 << 31;
    t[nt].x.k = (int64_t)1 << 31, t[nt].x.lda = (int64_t)1 << 31, t[nt].x.n = 1;
    t[nt].x.ldb = 1, t[nt].x.ldc = 1, t[nt].want = GK_ERR_OVERFLOW, t[nt].name = "op(A)", nt++;

    for (int i = 0; i < nt; i++) {
        const gk_status st = run_call(&t[i].x);
        T_CHECK(st == t[i].want, "%s: status %d, expected %d (%s)", t[i].what, (int)st,
                (int)t[i].want, gk_last_error());
        T_CHECK(strstr(gk_last_error(), t[i].name) && strstr(gk_last_error(), "gk_gemm_scaled"),
                "%s: message \"%s\" does not name \"%s\"", t[i].what, gk_last_error(), t[i].name);
        T_CHECK(memcmp(c, c_before, sizeof c) == 0, "%s: C was written", t[i].what);
    }

    /* what is not an error: NULL scales or operands that are not read, m or n == 0 */
    call x = ok;
    x.alpha = 0.0f, x.a = x.b = x.sa = x.sb = NULL;
    T_CHECK(run_call(&x) == GK_SUCCESS, "alpha=0 with NULL a, b, scales: %s", gk_last_error());
    x = ok, x.m = 0, x.c = NULL, x.sa = x.sb = NULL, x.ldc = 5;
    T_CHECK(run_call(&x) == GK_SUCCESS, "m=0 with NULL c and scales: %s", gk_last_error());
    T_CHECK(strcmp(gk_last_error(), "") == 0, "a successful call leaves a message: %s",
            gk_last_error());
}

/* Each float32 copy failing to allocate gives GK_ERR_OUT_OF_MEMORY naming it, with C untouched
 * and nothing leaked: in a child process whose address space is limited to what it has plus
 * 40 MiB, so that a 64 MiB copy cannot be had. The child's exit status is the first failing
 * check (0: all passed). */
static int oom_child(void) {
    const int64_t big = 4096;
    uint8_t *codes = calloc((size_t)(big * big), 1), *scales = malloc((size_t)(big * big / 32));
    uint16_t *c = malloc((size_t)(big * big) * 2), *c_before = malloc((size_t)(big * big) * 2);
    if (!codes || !scales || !c || !c_before) return 10;
    memset(scales, 127, (size_t)(big * big / 32));
    for (int64_t i = 0; i < big * big; i++)
        c[i] = (uint16_t)i;
    memcpy(c_before, c, (size_t)(big * big) * 2);
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f || fscanf(f, "%ld", &pages) != 1) return 11;
    fclose(f);
    const rlim_t limit = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)40 << 20);
    const struct rlimit rl = {limit, limit};
    if (setrlimit(RLIMIT_AS, &rl) != 0) return 12;
    /* m, n, k and ctype: op(A), then op(B), then C's copy is the 64 MiB one */
    const struct {
        int64_t m, n, k;
        gk_format ct;
        const char *what;
    } t[3] = {{big, 1, big, GK_F32, "op(A)"},
              {1, big, big, GK_F32, "op(B)"},
              {big, big, 1, GK_BF16, "of C"}};
    for (int i = 0; i < 3; i++) {
        const gk_status st =
            gk_gemm_scaled(GK_ROW_MAJOR, GK_NO_TRANS, GK_NO_TRANS, t[i].m, t[i].n, t[i].k, 1.0f,
                           GK_F8_E4M3FN, codes, t[i].k, scales, GK_F8_E4M3FN, codes, t[i].n, scales,
                           GK_SCALING_MX, 0.5f, t[i].ct, c, t[i].n);
        if (st != GK_ERR_OUT_OF_MEMORY) return 20 + i;
        if (!strstr(gk_last_error(), t[i].what) || !strstr(gk_last_error(), "gk_gemm_scaled"))
            return 30 + i;
        if (memcmp(c, c_before, (size_t)(big * big) * 2)) return 40 + i;
    }
    return 0;
}

static void t_out_of_memory(void) {
#if defined(__SANITIZE_ADDRESS__)
    T_SKIP("AddressSanitizer's own allocator cannot run under the address-space limit");
#endif
    /* Under QEMU (GK_TEST_EMULATOR, tests/cpu/test_avx2_emulated.sh) the limit would bind the
     * emulator's own reservations, and QEMU 7.2 aborts a child forked from a threaded process
     * once the child starts a thread. */
    const char *emu = getenv("GK_TEST_EMULATOR");
    if (emu && *emu)
        T_SKIP("under %s: its own memory would count against the limit, and its forked children "
               "cannot start threads",
               emu);
    fflush(stdout);
    const pid_t pid = fork();
    T_REQUIRE(pid >= 0, "fork failed");
    if (pid == 0) _exit(oom_child());
    int status = 0;
    T_REQUIRE(waitpid(pid, &status, 0) == pid, "waitpid failed");
    T_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
            "the child failed check %d (10-12: set-up; 2x: status, 3x: message, 4x: C written; "
            "x = op(A), op(B), C)",
            WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int main(void) {
    T_RUN(t_mx_every_pair);
    T_RUN(t_block128_every_pair);
    T_RUN(t_layouts_transpositions_padding);
    T_RUN(t_odd_shapes);
    T_RUN(t_alpha_beta);
    T_RUN(t_scale_only_reads_nothing);
    T_RUN(t_ctypes);
    T_RUN(t_parallel_decoding);
    T_RUN(t_mx_scale_spread_and_nan);
    T_RUN(t_mx_scale_extremes);
    T_RUN(t_mx_quantize_cross_check);
    T_RUN(t_argument_errors);
    T_RUN(t_out_of_memory);
    return t_finish();
}
