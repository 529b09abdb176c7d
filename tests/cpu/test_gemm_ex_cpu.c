/*
 * test_gemm_ex_cpu.c — gk_gemm_ex on the CPU (docs/cpu.md, "Low precision (BF16/FP16)"): every
 * operand/C type combination under every kernel family, against a float64 reference.
 *
 * Families are forced through gk_set_arch: "amx" and "avx512bf16" (the BF16 kernels; FP16 still
 * converts), "avx512", "avx2", "generic" (BF16 and FP16 converted to float32 on that FP32
 * family), and "auto". A family the CPU lacks reports `skip`. Each (family, atype, ctype) is one
 * case over the same random shapes: sizes 1, primes, K = 1, the micro-tile and block edges, both
 * layouts, all transpositions, padded leading dimensions, alpha/beta in {0, 1, -1, 0.5}, NaN in C
 * with beta = 0, on 1 and 3 threads. Operands are random values representable in their type, so
 * their products are exact in float32 and the rule (harness/rule.h) takes input_rounding 0; a
 * BF16/F16 C adds its own rounding, u_c * |R| (u_c = 2^-8, 2^-11) plus half its smallest
 * subnormal. C's gaps (ldc > minimum) and A and B must come back bit-identical.
 *
 * Also: the argument errors (status, and a message naming the argument, C untouched), the kernel
 * name gk_cpu_gemm_ex_kernel reports under each family, a fork()'s child multiplying with the
 * default kernel (AMX's permission is inherited), and the AMX kernel's body
 * (ukr_amx_body.h) compiled over a plain-C model of the tiles, fed by panels that this file packs
 * from lp.h's layout formulas, so its indexing is checked on every CPU, AMX and AVX-512 or not.
 * The library's packs (lp_pack_avx512.c, compiled with the AVX-512 flags) are compared with those
 * panels bit for bit where gk_cpu_usable_avx512 says they can run, and report skip elsewhere.
 *
 * GK_TEST_SEED=<n> picks the seed, GK_TEST_CASES=<n> the number of shapes.
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "cpu/config/cpu.h"
#include "cpu/kernels/lp.h"
#include "harness/rule.h"
#include "ref.h"

enum { N_FAM = 6, N_TYPE = 3, N_COMBO = N_TYPE * N_TYPE };
static const char *const fams[N_FAM] = {"amx", "avx512bf16", "avx512", "avx2", "generic", "auto"};
static const gk_format types[N_TYPE] = {GK_F32, GK_BF16, GK_F16};
static const char *const tnames[N_TYPE] = {"f32", "bf16", "f16"};

static uint64_t seed = 20261124;
static int64_t n_cases = 48;

typedef struct {
    int64_t runs, fails;
    char first_fail[768];
} result;
static result results[N_FAM][N_COMBO];
static int fam_ok[N_FAM];
static char fam_why[N_FAM][256];

static int esize(gk_format t) {
    return t == GK_F32 ? 4 : 2;
}

/* x rounded to type t (exact values of t as floats) */
static float to_type(gk_format t, float x) {
    if (t == GK_F32) return x;
    uint16_t code;
    float y;
    gk_encode(t, &x, &code, 1, 0);
    gk_decode(t, &code, &y, 1);
    return y;
}
static void store(gk_format t, void *base, int64_t i, float x) {
    if (t == GK_F32) {
        ((float *)base)[i] = x;
    } else {
        uint16_t code;
        gk_encode(t, &x, &code, 1, 0);
        ((uint16_t *)base)[i] = code;
    }
}
static float load(gk_format t, const void *base, int64_t i) {
    if (t == GK_F32) return ((const float *)base)[i];
    float y;
    gk_decode(t, (const uint16_t *)base + i, &y, 1);
    return y;
}

/* Stored element (r, c) of a rows x cols matrix of the given layout. */
static int64_t idx_of(gk_layout l, int64_t r, int64_t c, int64_t ld) {
    return l == GK_ROW_MAJOR ? r * ld + c : r + c * ld;
}

typedef struct {
    gk_layout layout;
    gk_trans ta, tb;
    int64_t m, n, k, lda, ldb, ldc;
    float alpha, beta;
    int nan_c;
} shape;

static int64_t pick_dim(t_rng *r) {
    static const int64_t edges[] = {1,  2,  3,  11,  12,  13,  31,  32,  33,  63,
                                    64, 65, 97, 127, 257, 415, 417, 449, 577, 601};
    switch (t_rng_next(r) % 5) {
    case 0:
        return t_rng_range(r, 1, 5);
    case 1:
    case 2:
        return edges[t_rng_next(r) % (sizeof edges / sizeof *edges)];
    default:
        return t_rng_range(r, 1, 300);
    }
}

static void make_shape(int64_t idx, t_rng *r, shape *s) {
    static const float scalars[] = {0.0f, 1.0f, -1.0f, 0.5f};
    memset(s, 0, sizeof *s);
    s->layout = idx % 2 ? GK_ROW_MAJOR : GK_COL_MAJOR;
    s->ta = (idx / 2) % 2 ? GK_TRANS : GK_NO_TRANS;
    s->tb = (idx / 4) % 2 ? GK_TRANS : GK_NO_TRANS;
    int64_t d[3] = {pick_dim(r), pick_dim(r), pick_dim(r)};
    if (idx % 11 == 3) d[2] = 1; /* K = 1 */
    while (d[0] * d[1] * d[2] > 2000000) {
        const int i = (int)(t_rng_next(r) % 3);
        d[i] = t_rng_range(r, 1, d[i] > 48 ? 48 : d[i]);
    }
    s->m = d[0], s->n = d[1], s->k = d[2];
    s->alpha = scalars[idx % 9 == 0 ? 0 : 1 + t_rng_next(r) % 3];
    s->beta = scalars[t_rng_next(r) % 4];
    s->nan_c = s->beta == 0.0f && t_rng_next(r) % 2;
    const int row = s->layout == GK_ROW_MAJOR;
    const int64_t ar = (row == (s->ta == GK_NO_TRANS)) ? s->m : s->k; /* stored rows of A */
    (void)ar;
    int64_t pad[3];
    for (int i = 0; i < 3; i++)
        pad[i] = t_rng_next(r) % 3 == 0 ? 0 : t_rng_range(r, 1, 9);
    s->lda = t_min_ld(s->layout, s->ta, s->m, s->k) + pad[0];
    s->ldb = t_min_ld(s->layout, s->tb, s->k, s->n) + pad[1];
    s->ldc = t_min_ld(s->layout, GK_NO_TRANS, s->m, s->n) + pad[2];
}

/* One shape's data for one (atype, ctype): stored operands, C before, reference. */
typedef struct {
    shape s;
    gk_format at, ct;
    void *a, *b, *c, *c0; /* c0: C's bytes before the call */
    int64_t a_len, b_len, c_len;
    double *r, *sc; /* m x n column-major: reference and scale */
} data;

static int64_t span(gk_layout l, gk_trans t, int64_t opr, int64_t opc, int64_t ld) {
    const int64_t rows = t == GK_NO_TRANS ? opr : opc, cols = t == GK_NO_TRANS ? opc : opr;
    return l == GK_ROW_MAJOR ? (rows - 1) * ld + cols : (cols - 1) * ld + rows;
}

static void data_make(data *d, const shape *s, gk_format at, gk_format ct, t_rng *r) {
    memset(d, 0, sizeof *d);
    d->s = *s, d->at = at, d->ct = ct;
    d->a_len = span(s->layout, s->ta, s->m, s->k, s->lda);
    d->b_len = span(s->layout, s->tb, s->k, s->n, s->ldb);
    d->c_len = span(s->layout, GK_NO_TRANS, s->m, s->n, s->ldc);
    d->a = malloc((size_t)(d->a_len * esize(at)));
    d->b = malloc((size_t)(d->b_len * esize(at)));
    d->c = malloc((size_t)(d->c_len * esize(ct)));
    d->c0 = malloc((size_t)(d->c_len * esize(ct)));
    /* everything, gaps included, random values of the type (gaps then must come back as they
     * were: an over-write shows) */
    for (int64_t i = 0; i < d->a_len; i++)
        store(at, d->a, i, t_rng_float(r));
    for (int64_t i = 0; i < d->b_len; i++)
        store(at, d->b, i, t_rng_float(r));
    for (int64_t i = 0; i < d->c_len; i++)
        store(ct, d->c0, i, t_rng_float(r));
    if (s->nan_c)
        for (int64_t j = 0; j < s->n; j++)
            for (int64_t i = 0; i < s->m; i++)
                store(ct, d->c0, idx_of(s->layout, i, j, s->ldc), NAN);
    d->r = malloc(sizeof(double) * (size_t)(s->m * s->n));
    d->sc = malloc(sizeof(double) * (size_t)(s->m * s->n));
    for (int64_t j = 0; j < s->n; j++)
        for (int64_t i = 0; i < s->m; i++) {
            double sum = 0, abs = 0;
            for (int64_t p = 0; p < s->k; p++) {
                const int64_t ia = s->ta == GK_NO_TRANS ? idx_of(s->layout, i, p, s->lda)
                                                        : idx_of(s->layout, p, i, s->lda);
                const int64_t ib = s->tb == GK_NO_TRANS ? idx_of(s->layout, p, j, s->ldb)
                                                        : idx_of(s->layout, j, p, s->ldb);
                const double x = (double)load(at, d->a, ia) * (double)load(at, d->b, ib);
                sum += x, abs += fabs(x);
            }
            const double c0 =
                s->beta == 0.0f ? 0.0 : load(ct, d->c0, idx_of(s->layout, i, j, s->ldc));
            d->r[i + j * s->m] = (double)s->alpha * sum + (double)s->beta * c0;
            d->sc[i + j * s->m] = fabs((double)s->alpha) * abs + fabs((double)s->beta * c0);
        }
}

static void data_free(data *d) {
    free(d->a), free(d->b), free(d->c), free(d->c0), free(d->r), free(d->sc);
}

/* Run gk_gemm_ex on d under the current family; "" or why it failed. */
static void run_check(data *d, char *why, size_t len) {
    const shape *s = &d->s;
    const size_t cbytes = (size_t)(d->c_len * esize(d->ct));
    memcpy(d->c, d->c0, cbytes);
    void *a0 = malloc((size_t)(d->a_len * esize(d->at))),
         *b0 = malloc((size_t)(d->b_len * esize(d->at)));
    memcpy(a0, d->a, (size_t)(d->a_len * esize(d->at)));
    memcpy(b0, d->b, (size_t)(d->b_len * esize(d->at)));
    why[0] = '\0';
    gk_status st = gk_gemm_ex(s->layout, s->ta, s->tb, s->m, s->n, s->k, s->alpha, d->at, d->a,
                              s->lda, d->at, d->b, s->ldb, s->beta, d->ct, d->c, s->ldc);
    if (st != GK_SUCCESS) {
        snprintf(why, len, "gk_gemm_ex returned %s: %s", gk_status_string(st), gk_last_error());
    } else if (memcmp(a0, d->a, (size_t)(d->a_len * esize(d->at))) ||
               memcmp(b0, d->b, (size_t)(d->b_len * esize(d->at)))) {
        snprintf(why, len, "A or B was written");
    } else {
        const double uc = d->ct == GK_BF16 ? 1.0 / 256 : d->ct == GK_F16 ? 1.0 / 2048 : 0.0;
        const double sub = d->ct == GK_F16 ? ldexp(1.0, -25) : 0.0;
        int in_block_bad = 0;
        for (int64_t j = 0; j < s->n && !why[0]; j++)
            for (int64_t i = 0; i < s->m && !why[0]; i++) {
                const double got = load(d->ct, d->c, idx_of(s->layout, i, j, s->ldc));
                const double want = d->r[i + j * s->m];
                const double b0 = gkh_bound(s->k, 0.0, d->sc[i + j * s->m]);
                const double bound = b0 + uc * (fabs(want) + b0) + sub;
                if (!(fabs(got - want) <= bound)) {
                    snprintf(why, len, "C(%lld,%lld) = %.9g, want %.9g (err %.3g > bound %.3g)",
                             (long long)i, (long long)j, got, want, fabs(got - want), bound);
                    in_block_bad = 1;
                }
            }
        /* outside the m x n block: bit-identical */
        for (int64_t e = 0; e < d->c_len && !in_block_bad && !why[0]; e++) {
            const int64_t line = e / s->ldc, pos = e % s->ldc;
            const int64_t lim = s->layout == GK_ROW_MAJOR ? s->n : s->m;
            (void)line;
            if (pos < lim) continue;
            if (memcmp((char *)d->c + e * esize(d->ct), (char *)d->c0 + e * esize(d->ct),
                       (size_t)esize(d->ct)))
                snprintf(why, len, "C's gap element %lld was written", (long long)e);
        }
    }
    free(a0), free(b0);
}

static void shape_str(const shape *s, char *out, size_t len) {
    snprintf(out, len, "%s %c%c m=%lld n=%lld k=%lld lda=%lld ldb=%lld ldc=%lld alpha=%g beta=%g%s",
             s->layout == GK_ROW_MAJOR ? "row" : "col", s->ta == GK_NO_TRANS ? 'N' : 'T',
             s->tb == GK_NO_TRANS ? 'N' : 'T', (long long)s->m, (long long)s->n, (long long)s->k,
             (long long)s->lda, (long long)s->ldb, (long long)s->ldc, s->alpha, s->beta,
             s->nan_c ? " nan-c" : "");
}

static void run_all(void) {
    t_rng rng = {seed};
    for (int64_t idx = 0; idx < n_cases; idx++) {
        shape s;
        make_shape(idx, &rng, &s);
        for (int ti = 0; ti < N_TYPE; ti++)
            for (int ci = 0; ci < N_TYPE; ci++) {
                data d;
                data_make(&d, &s, types[ti], types[ci], &rng);
                for (int f = 0; f < N_FAM; f++) {
                    if (!fam_ok[f]) continue;
                    result *res = &results[f][ti * N_TYPE + ci];
                    char why[512];
                    gk_set_arch(fams[f]);
                    gk_set_num_threads(idx % 2 ? 3 : 1);
                    run_check(&d, why, sizeof why);
                    res->runs++;
                    if (why[0] && res->fails++ == 0) {
                        char desc[256];
                        shape_str(&s, desc, sizeof desc);
                        snprintf(res->first_fail, sizeof res->first_fail,
                                 "seed=%" PRIu64 " shape #%lld (%s): %s", seed, (long long)idx,
                                 desc, why);
                    }
                }
                data_free(&d);
            }
    }
    gk_set_arch(NULL);
    gk_set_num_threads(0);
}

static int cur_fam, cur_combo;
static void report(void) {
    if (!fam_ok[cur_fam]) T_SKIP("%s", fam_why[cur_fam]);
    const result *res = &results[cur_fam][cur_combo];
    T_REQUIRE(res->runs == n_cases, "ran %lld of %lld shapes", (long long)res->runs,
              (long long)n_cases);
    T_CHECK(res->fails == 0, "%lld of %lld shapes failed; first: %s", (long long)res->fails,
            (long long)res->runs, res->first_fail);
}

/* ---- the kernel each family reports ------------------------------------------------------- */

static void test_kernel_names(void) {
    const char *reason;
    for (int f = 0; f < N_FAM; f++) {
        if (!fam_ok[f]) continue;
        T_REQUIRE(gk_set_arch(fams[f]) == GK_SUCCESS, "%s: %s", fams[f], gk_last_error());
        const char *bf = gk_cpu_gemm_ex_kernel(GK_BF16, &reason);
        const char *hf = gk_cpu_gemm_ex_kernel(GK_F16, NULL);
        T_CHECK(bf && hf, "%s: no kernel name", fams[f]);
        if (!bf || !hf) continue;
        T_CHECK(strncmp(hf, "convert+", 8) == 0, "%s: f16 runs %s", fams[f], hf);
        if (f == 0) T_CHECK(strcmp(bf, "amx_bf16_32x32") == 0, "amx: bf16 runs %s", bf);
        if (f == 1) T_CHECK(strcmp(bf, "avx512bf16_32x12") == 0, "avx512bf16: bf16 runs %s", bf);
        if (f >= 2 && f <= 4) {
            char want[64];
            snprintf(want, sizeof want, "convert+%s", fams[f]);
            T_CHECK(strncmp(bf, want, strlen(want)) == 0, "%s: bf16 runs %s", fams[f], bf);
        }
        if (f < 5) T_CHECK(strcmp(reason, "gk_set_arch") == 0, "%s: reason %s", fams[f], reason);
    }
    gk_set_arch(NULL);
    T_CHECK(gk_cpu_gemm_ex_kernel(GK_F8_E4M3FN, &reason) == NULL && reason == NULL,
            "e4m3 has a kernel");
    T_CHECK(gk_cpu_gemm_ex_kernel(GK_F32, NULL) != NULL, "f32 has no kernel");
}

/* ---- argument errors -------------------------------------------------------------------- */

static void expect(gk_status got, gk_status want, const char *needle, const char *what) {
    T_CHECK(got == want, "%s: status %s, want %s", what, gk_status_string(got),
            gk_status_string(want));
    T_CHECK(strstr(gk_last_error(), needle) != NULL, "%s: message \"%s\" does not name %s", what,
            gk_last_error(), needle);
}

static void test_errors(void) {
    uint16_t a[64], b[64], c[66];
    for (int i = 0; i < 64; i++)
        a[i] = b[i] = 0x3f80; /* 1.0 */
    for (int i = 0; i < 66; i++)
        c[i] = 0x4000; /* 2.0 */
    uint16_t c_before[66];
    memcpy(c_before, c, sizeof c);
    const gk_layout L = GK_COL_MAJOR;
    const gk_trans N = GK_NO_TRANS;
    expect(gk_gemm_ex(L, N, N, 4, 4, 4, 1, (gk_format)99, a, 4, GK_BF16, b, 4, 0, GK_BF16, c, 4),
           GK_ERR_INVALID_VALUE, "atype", "atype=99");
    expect(gk_gemm_ex(L, N, N, 4, 4, 4, 1, GK_BF16, a, 4, GK_BF16, b, 4, 0, (gk_format)-3, c, 4),
           GK_ERR_INVALID_VALUE, "ctype", "ctype=-3");
    expect(gk_gemm_ex(L, N, N, 4, 4, 4, 1, GK_F8_E4M3FN, a, 4, GK_F8_E4M3FN, b, 4, 0, GK_F32, c, 4),
           GK_ERR_UNSUPPORTED, "atype", "atype=e4m3");
    expect(gk_gemm_ex(L, N, N, 4, 4, 4, 1, GK_BF16, a, 4, GK_F16, b, 4, 0, GK_F32, c, 4),
           GK_ERR_UNSUPPORTED, "btype", "bf16 x f16");
    expect(gk_gemm_ex(L, N, N, 4, 4, 4, 1, GK_BF16, a, 4, GK_BF16, b, 4, 0, GK_TF32, c, 4),
           GK_ERR_UNSUPPORTED, "ctype", "ctype=tf32");
    expect(
        gk_gemm_ex((gk_layout)7, N, N, 4, 4, 4, 1, GK_BF16, a, 4, GK_BF16, b, 4, 0, GK_BF16, c, 4),
        GK_ERR_INVALID_LAYOUT, "layout", "layout=7");
    expect(
        gk_gemm_ex(L, (gk_trans)5, N, 4, 4, 4, 1, GK_BF16, a, 4, GK_BF16, b, 4, 0, GK_BF16, c, 4),
        GK_ERR_INVALID_TRANS, "transa", "transa=5");
    expect(gk_gemm_ex(L, N, N, -1, 4, 4, 1, GK_BF16, a, 4, GK_BF16, b, 4, 0, GK_BF16, c, 4),
           GK_ERR_INVALID_SIZE, "m", "m=-1");
    expect(gk_gemm_ex(L, N, N, 4, 4, 4, 1, GK_BF16, a, 3, GK_BF16, b, 4, 0, GK_BF16, c, 4),
           GK_ERR_INVALID_LD, "lda", "lda=3");
    expect(gk_gemm_ex(L, N, N, 4, 4, 4, 1, GK_BF16, a, 4, GK_BF16, b, 4, 0, GK_BF16, c, 2),
           GK_ERR_INVALID_LD, "ldc", "ldc=2");
    expect(gk_gemm_ex(L, N, N, 4, 4, 4, 1, GK_BF16, NULL, 4, GK_BF16, b, 4, 0, GK_BF16, c, 4),
           GK_ERR_NULL_POINTER, "a", "a=NULL");
    expect(gk_gemm_ex(L, N, N, 4, 4, 4, 1, GK_BF16, a, 4, GK_BF16, b, 4, 0, GK_BF16, NULL, 4),
           GK_ERR_NULL_POINTER, "c", "c=NULL");
    expect(
        gk_gemm_ex(L, N, N, 4, 4, 4, 1, GK_BF16, (char *)a + 1, 4, GK_BF16, b, 4, 0, GK_BF16, c, 4),
        GK_ERR_INVALID_POINTER, "a", "misaligned a");
    expect(
        gk_gemm_ex(L, N, N, 4, 4, 4, 1, GK_BF16, a, 4, GK_BF16, b, 4, 0, GK_F32, (char *)c + 2, 4),
        GK_ERR_INVALID_POINTER, "c", "misaligned float c");
    T_CHECK(memcmp(c, c_before, sizeof c) == 0, "a failed call wrote C");
    /* beta = 0 with k = 0: zeros without reading C; m = 0: nothing, not even C read */
    T_CHECK(gk_gemm_ex(L, N, N, 4, 4, 0, 1, GK_BF16, NULL, 4, GK_BF16, NULL, 4, 0, GK_BF16, c, 4) ==
                GK_SUCCESS,
            "k=0: %s", gk_last_error());
    for (int i = 0; i < 16; i++)
        T_CHECK(c[i] == 0, "k=0 beta=0: C[%d] = 0x%04x", i, c[i]);
    T_CHECK(gk_gemm_ex(L, N, N, 0, 4, 4, 1, GK_BF16, NULL, 1, GK_BF16, NULL, 4, 1, GK_F16, NULL,
                       1) == GK_SUCCESS,
            "m=0: %s", gk_last_error());
}

/* ---- fork: a child of a process that used the kernels uses them again (the AMX permission is
 * the process's and inherited; the pool restarts in the child) -------------------------------- */

static double bf16_product_error(void) {
    enum { N = 96 };
    static uint16_t a[N * N], b[N * N];
    static float af[N * N], bf[N * N], c[N * N];
    t_rng r = {seed + 11};
    for (int i = 0; i < N * N; i++)
        af[i] = to_type(GK_BF16, t_rng_float(&r)), bf[i] = to_type(GK_BF16, t_rng_float(&r));
    gk_encode(GK_BF16, af, a, N * N, 0);
    gk_encode(GK_BF16, bf, b, N * N, 0);
    if (gk_gemm_ex(GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, N, N, N, 1.0f, GK_BF16, a, N, GK_BF16, b,
                   N, 0.0f, GK_F32, c, N) != GK_SUCCESS)
        return INFINITY;
    double worst = 0; /* error over bound, worst element */
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            double want = 0, s = 0;
            for (int p = 0; p < N; p++)
                want += (double)af[i + p * N] * bf[p + j * N],
                    s += fabs((double)af[i + p * N] * bf[p + j * N]);
            const double q = fabs(c[i + j * N] - want) / gkh_bound(N, 0, s);
            if (!(q <= worst)) worst = q;
        }
    return worst;
}

static void test_fork_child(void) {
    /* QEMU 7.2's user mode aborts a child forked while the parent has threads as soon as the
     * child starts one (qemu_plugin_vcpu_init_hook assertion); the pool restarts in the child. */
    const char *emu = getenv("GK_TEST_EMULATOR");
    if (emu && *emu)
        T_SKIP("under %s, which cannot start threads in a child forked from a threaded process",
               emu);
    gk_set_num_threads(2);
    T_REQUIRE(bf16_product_error() <= 1.0, "parent: wrong product");
    fflush(stdout);
    const pid_t pid = fork();
    T_REQUIRE(pid >= 0, "fork failed");
    if (pid == 0) _exit(bf16_product_error() <= 1.0 ? 0 : 1);
    int status = 0;
    T_REQUIRE(waitpid(pid, &status, 0) == pid, "waitpid failed");
    T_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: status 0x%x (%s kernel)", status,
            gk_cpu_gemm_ex_kernel(GK_BF16, NULL));
    gk_set_num_threads(0);
}

/* ---- the AMX body on a model of the tiles ----------------------------------------------- */

static uint8_t tiles[8][16][64];
static void tile_dp(int d, int a, int b) {
    for (int m = 0; m < 16; m++)
        for (int n = 0; n < 16; n++) {
            float acc;
            memcpy(&acc, &tiles[d][m][4 * n], 4);
            for (int r = 0; r < 16; r++)
                for (int t = 0; t < 2; t++) {
                    uint16_t x, y;
                    memcpy(&x, &tiles[a][m][4 * r + 2 * t], 2);
                    memcpy(&y, &tiles[b][r][4 * n + 2 * t], 2);
                    float fx, fy;
                    gk_decode(GK_BF16, &x, &fx, 1);
                    gk_decode(GK_BF16, &y, &fy, 1);
                    acc += fx * fy;
                }
            memcpy(&tiles[d][m][4 * n], &acc, 4);
        }
}
#define GK_AMX_FN amx_model_32x32
#define GK_AMX_ATTR static
#define GK_AMX_ZERO(t) memset(tiles[t], 0, sizeof tiles[t])
#define GK_AMX_LOAD(t, p, s)                                                                       \
    for (int r_ = 0; r_ < 16; r_++)                                                                \
    memcpy(tiles[t][r_], (const char *)(p) + r_ * (s), 64)
#define GK_AMX_DP(d, a, b) tile_dp(d, a, b)
#define GK_AMX_STORE(t, p, s)                                                                      \
    for (int r_ = 0; r_ < 16; r_++)                                                                \
    memcpy((char *)(p) + r_ * (s), tiles[t][r_], 64)
#include "cpu/kernels/ukr_amx_body.h"

/* lp.h's panel layouts written out in plain C, element by element: npan panels of w lanes of a
 * block of `lanes` lanes and kb steps, zero-padded to kp steps, X(l, p) = src[l * ls + p * ps].
 * rows = 0: the pairs layout, rows = 1: the rows layout. */
static void model_pack(int rows, uint16_t *dst, int w, int64_t lanes, int64_t kb, int64_t kp,
                       const uint16_t *src, int64_t ls, int64_t ps, int64_t npan) {
    memset(dst, 0, sizeof(uint16_t) * (size_t)(npan * w * kp));
    for (int64_t q = 0; q < npan; q++)
        for (int64_t l = 0; l < w && q * w + l < lanes; l++)
            for (int64_t p = 0; p < kb; p++) {
                const int64_t at =
                    rows ? (p / 32) * 32 * w + 32 * l + p % 32 : (p / 2) * 2 * w + 2 * l + p % 2;
                dst[q * w * kp + at] = src[(q * w + l) * ls + p * ps];
            }
}

/* One tile of each edge kind through the model's packs and the modelled kernel, both
 * orientations of each operand, against float64, with each (alpha, beta) kind: general (staging
 * block), and the alpha 1, beta 0 / 1 forms that keep whole tiles of C in the accumulators. */
static void test_amx_model(void) {
    t_rng r = {seed + 7};
    const int64_t ks[] = {1, 31, 33, 70};
    const float ab[][2] = {{2.0f, 0.0f}, {1.0f, 0.0f}, {1.0f, 1.0f}, {1.0f, 0.5f}};
    enum { LDC = 40 };
    for (int kk = 0; kk < 4; kk++)
        for (int orient = 0; orient < 4; orient++)
            for (int v = 0; v < 4; v++) {
                const float alpha = ab[v][0], beta = ab[v][1];
                const int64_t k = ks[kk], kp = (k + 31) / 32 * 32;
                const int mv = orient % 2 ? 32 : 19, nv = orient / 2 ? 32 : 7;
                /* A: mv rows x k, stored lanes-contiguous (ls = 1, ps = lda) or steps-contiguous */
                const int a_lc = orient % 2, b_lc = orient / 2;
                const int64_t lda = a_lc ? mv + 3 : k + 2, ldb = b_lc ? nv + 1 : k + 5;
                uint16_t *a = calloc((size_t)(lda * (a_lc ? k : mv)), 2);
                uint16_t *b = calloc((size_t)(ldb * (b_lc ? k : nv)), 2);
                float *av = malloc(sizeof(float) * (size_t)(32 * k)),
                      *bv = malloc(sizeof(float) * (size_t)(32 * k));
                for (int i = 0; i < mv; i++)
                    for (int64_t p = 0; p < k; p++) {
                        const float x = to_type(GK_BF16, t_rng_float(&r));
                        av[i * k + p] = x;
                        store(GK_BF16, a, a_lc ? i + p * lda : i * lda + p, x);
                    }
                for (int j = 0; j < nv; j++)
                    for (int64_t p = 0; p < k; p++) {
                        const float x = to_type(GK_BF16, t_rng_float(&r));
                        bv[j * k + p] = x;
                        store(GK_BF16, b, b_lc ? j + p * ldb : j * ldb + p, x);
                    }
                uint16_t *pa = malloc((size_t)(32 * kp * 2)), *pb = malloc((size_t)(32 * kp * 2));
                model_pack(0, pa, 32, mv, k, kp, a, a_lc ? 1 : lda, a_lc ? lda : 1, 1);
                model_pack(1, pb, 32, nv, k, kp, b, b_lc ? 1 : ldb, b_lc ? ldb : 1, 1);
                /* C: NaN outside the tile (must stay untouched) and where beta 0 must not read */
                float c[LDC * 32], c0[LDC * 32];
                for (int e = 0; e < LDC * 32; e++)
                    c0[e] = c[e] =
                        (beta != 0.0f && e % LDC < mv && e / LDC < nv) ? t_rng_float(&r) : NAN;
                amx_model_32x32(kp, (const float *)pa, (const float *)pb, c, 1, LDC, alpha, beta,
                                mv, nv);
                for (int j = 0; j < 32; j++)
                    for (int i = 0; i < LDC; i++) {
                        const float got = c[i + j * LDC];
                        if (i >= mv || j >= nv) {
                            T_CHECK(isnan(got),
                                    "k=%lld orient=%d ab=%d: C(%d,%d) outside the tile written",
                                    (long long)k, orient, v, i, j);
                            continue;
                        }
                        double want = 0, s = 0;
                        for (int64_t p = 0; p < k; p++)
                            want += (double)av[i * k + p] * bv[j * k + p],
                                s += fabs((double)av[i * k + p] * bv[j * k + p]);
                        const double cij = beta != 0.0f ? c0[i + j * LDC] : 0.0;
                        want = alpha * want + beta * cij;
                        T_CHECK(fabs(got - want) <= gkh_bound(k, 0, fabs(alpha) * s) +
                                                        fabs(beta * cij) * FLT_EPSILON,
                                "k=%lld orient=%d ab=%d: C(%d,%d) = %g, want %g", (long long)k,
                                orient, v, i, j, got, want);
                    }
                free(a), free(b), free(av), free(bv), free(pa), free(pb);
            }
}

/* The library's packs against model_pack, bit for bit: both layouts, both orientations of the
 * stored operand, panel widths of the kernels that use them (32 for AMX, 32 and 12 for
 * AVX512-BF16), partial last panels, odd and even kb, padding kp > kb, several panels per call.
 * The packs are compiled with the AVX-512 flags (the compiler may vectorise them with those
 * instructions), so they run only where the library itself would call them. */
static void test_lp_packs(void) {
    if (!gk_cpu_usable_avx512())
        T_SKIP("this CPU/OS cannot run avx512, for which lp_pack_avx512.c is compiled (the AMX "
               "model above runs on this file's packs instead)");
    t_rng r = {seed + 13};
    static const int widths[] = {32, 12};
    static const int64_t kbs[] = {1, 2, 31, 32, 33, 70};
    for (int rows = 0; rows < 2; rows++)
        for (int wi = 0; wi < 2; wi++)
            for (int ki = 0; ki < 6; ki++)
                for (int lc = 0; lc < 2; lc++) {
                    const int w = widths[wi];
                    const int64_t kb = kbs[ki], grain = rows ? 32 : 2;
                    const int64_t kp = (kb + grain - 1) / grain * grain + (ki % 2 ? grain : 0);
                    const int64_t lanes = 2 * w + 5, npan = 3; /* the last panel partial */
                    const int64_t ld = lc ? lanes + 3 : kb + 1;
                    const int64_t ls = lc ? 1 : ld, ps = lc ? ld : 1;
                    const size_t n = (size_t)(ld * (lc ? kb : lanes)), np = (size_t)(npan * w * kp);
                    uint16_t *src = malloc(2 * n), *want = malloc(2 * np), *got = malloc(2 * np);
                    T_REQUIRE(src && want && got, "out of memory");
                    for (size_t e = 0; e < n; e++)
                        src[e] = (uint16_t)(t_rng_next(&r) | 1); /* never zero, as padding is */
                    model_pack(rows, want, w, lanes, kb, kp, src, ls, ps, npan);
                    memset(got, 0xa5, 2 * np); /* padding must be written, not left */
                    (rows ? gk_lp_pack_rows : gk_lp_pack_pairs)(got, w, lanes, kb, kp, src, ls, ps,
                                                                npan);
                    size_t bad = 0;
                    while (bad < np && got[bad] == want[bad])
                        bad++;
                    T_CHECK(bad == np,
                            "%s w=%d kb=%lld kp=%lld %s: element %zu is 0x%04x, want 0x%04x",
                            rows ? "rows" : "pairs", w, (long long)kb, (long long)kp,
                            lc ? "lanes contiguous" : "steps contiguous", bad,
                            bad < np ? got[bad] : 0, bad < np ? want[bad] : 0);
                    free(src), free(want), free(got);
                    if (t_state.case_failed) return;
                }
}

int main(void) {
    const char *env = getenv("GK_TEST_SEED");
    if (env && *env) seed = strtoull(env, NULL, 0);
    env = getenv("GK_TEST_CASES");
    if (env && *env) n_cases = strtoll(env, NULL, 0);
    printf("# seed=%" PRIu64 " shapes=%lld (set GK_TEST_SEED / GK_TEST_CASES to change)\n", seed,
           (long long)n_cases);
    for (int f = 0; f < N_FAM; f++) {
        const gk_status st = gk_set_arch(fams[f]);
        fam_ok[f] = st == GK_SUCCESS || st != GK_ERR_UNSUPPORTED; /* other errors fail below */
        if (!fam_ok[f])
            snprintf(fam_why[f], sizeof fam_why[f], "this CPU lacks %s: %s", fams[f],
                     gk_last_error());
    }
    gk_set_arch(NULL);
    const char *reason;
    const char *kb = gk_cpu_gemm_ex_kernel(GK_BF16, &reason);
    printf("# bf16 kernel by default: %s (%s); f16: %s\n", kb, reason,
           gk_cpu_gemm_ex_kernel(GK_F16, NULL));
    T_RUN(test_errors);
    T_RUN(test_kernel_names);
    T_RUN(test_amx_model);
    T_RUN(test_lp_packs);
    T_RUN(test_fork_child);
    run_all();
    for (cur_fam = 0; cur_fam < N_FAM; cur_fam++)
        for (cur_combo = 0; cur_combo < N_COMBO; cur_combo++) {
            char name[96];
            snprintf(name, sizeof name, "gemm_ex_%s_%s_to_%s", fams[cur_fam],
                     tnames[cur_combo / N_TYPE], tnames[cur_combo % N_TYPE]);
            t_run(name, report);
        }
    return t_finish();
}
