/*
 * call_ab.c — `gk-call-ab`: the time of one SGEMM call through two libraries loaded side by side
 * in one process (dlopen, RTLD_LOCAL), for A/B comparisons: two builds of libgemmkit.so, or
 * gemmkit against a CBLAS library such as OpenBLAS. Each round times a loop of back-to-back calls
 * per library (one call once a call takes 2 ms), the two loops alternating and their order
 * reversed every other round; the medians over rounds are printed. For tiny shapes a loop of
 * calls divides the clock's own cost (tens of ns, which `gemmkit bench` pays per call) by the
 * loop length, so differences of a few ns stay visible. For large shapes both libraries work on
 * the same buffers, so the physical pages under A, B and C, which change from process to process
 * and with them the cache-set conflicts of a strided operand, are the same for both.
 *
 *   gk-call-ab LIB_A LIB_B [MxNxK[:[r]XY] ...]    default shapes: a tiny set from 1^3 to 32^3
 *
 * LIB is the path of a libgemmkit.so (called through gk_sgemm) or cblas:PATH for a library
 * exporting cblas_sgemm (its 32-bit int sizes). A shape's suffix picks row-major storage (r) and
 * op(A), op(B) (X, Y: N or T); without it, column-major NN. Alpha 1, beta 0, minimal leading
 * dimensions, each library on its default thread count (set GEMMKIT_NUM_THREADS=1 and
 * OPENBLAS_NUM_THREADS=1 for one thread). A diagnostic, not a benchmark of record.
 */
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemmkit.h"
#include "harness/harness.h"

enum { ROUNDS = 21, MAX_SHAPES = 64 };

typedef gk_status (*gk_sgemm_fn)(gk_layout, gk_trans, gk_trans, int64_t, int64_t, int64_t, float,
                                 const float *, int64_t, const float *, int64_t, float, float *,
                                 int64_t);
/* CBLAS's enums have the same values as gemmkit's (102 column-major, 111 no transposition) */
typedef void (*cblas_sgemm_fn)(int, int, int, int, int, int, float, const float *, int,
                               const float *, int, float, float *, int);

typedef struct {
    gk_sgemm_fn gk;
    cblas_sgemm_fn cblas;
} lib;

static const char *const default_shapes[] = {"1x1x1",    "4x4x4",   "8x8x2",    "8x8x8",
                                             "12x12x12", "3x30x10", "16x16x16", "32x32x32"};

static int load(const char *arg, lib *l) {
    const int cblas = strncmp(arg, "cblas:", 6) == 0;
    const char *path = cblas ? arg + 6 : arg;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "gk-call-ab: %s\n", dlerror());
        return 0;
    }
    const char *sym = cblas ? "cblas_sgemm" : "gk_sgemm";
    void *f = dlsym(h, sym);
    if (!f) {
        fprintf(stderr, "gk-call-ab: %s has no %s\n", path, sym);
        return 0;
    }
    if (cblas)
        l->cblas = (cblas_sgemm_fn)f;
    else
        l->gk = (gk_sgemm_fn)f;
    return 1;
}

/* One call's shape, storage and minimal leading dimensions. */
typedef struct {
    int64_t m, n, k, lda, ldb, ldc;
    gk_layout layout;
    gk_trans ta, tb;
} call;

/* ns per call over `reps` back-to-back calls */
static double time_calls(const lib *l, const call *x, const float *a, const float *b, float *c,
                         long reps) {
    const double t0 = gkh_now();
    if (l->gk)
        for (long i = 0; i < reps; i++)
            l->gk(x->layout, x->ta, x->tb, x->m, x->n, x->k, 1.0f, a, x->lda, b, x->ldb, 0.0f, c,
                  x->ldc);
    else
        for (long i = 0; i < reps; i++)
            l->cblas(x->layout, x->ta, x->tb, (int)x->m, (int)x->n, (int)x->k, 1.0f, a, (int)x->lda,
                     b, (int)x->ldb, 0.0f, c, (int)x->ldc);
    return (gkh_now() - t0) / (double)reps * 1e9;
}

/* "MxNxK" with an optional ":[r]XY" (row-major; op(A), op(B) each N or T); 0 if malformed */
static int parse_call(const char *shape, call *x) {
    long long m, n, k;
    int used = 0;
    if (sscanf(shape, "%lldx%lldx%lld%n", &m, &n, &k, &used) != 3 || m < 1 || n < 1 || k < 1 ||
        m > (1LL << 20) || n > (1LL << 20) || k > (1LL << 20) || m * n * k > (1LL << 40))
        return 0;
    const char *sfx = shape + used;
    x->layout = GK_COL_MAJOR, x->ta = GK_NO_TRANS, x->tb = GK_NO_TRANS;
    if (*sfx == ':') {
        sfx++;
        if (*sfx == 'r') x->layout = GK_ROW_MAJOR, sfx++;
        if ((sfx[0] != 'N' && sfx[0] != 'T') || (sfx[1] != 'N' && sfx[1] != 'T') || sfx[2])
            return 0;
        x->ta = sfx[0] == 'T' ? GK_TRANS : GK_NO_TRANS;
        x->tb = sfx[1] == 'T' ? GK_TRANS : GK_NO_TRANS;
    } else if (*sfx) {
        return 0;
    }
    x->m = m, x->n = n, x->k = k;
    /* the stored extent along a row (row-major) or a column (column-major) */
    const int row = x->layout == GK_ROW_MAJOR;
    x->lda = (row != (x->ta == GK_TRANS)) ? k : m;
    x->ldb = (row != (x->tb == GK_TRANS)) ? n : k;
    x->ldc = row ? n : m;
    return 1;
}

static int run_shape(const lib f[2], const char *shape) {
    call x;
    if (!parse_call(shape, &x)) {
        fprintf(stderr,
                "gk-call-ab: shape \"%s\" is not MxNxK[:[r]XY] with each at most 2^20, M*N*K <= "
                "2^40\n",
                shape);
        return 1;
    }
    const long long m = x.m, n = x.n, k = x.k;
    float *a = malloc(sizeof(float) * (size_t)(m * k)),
          *b = malloc(sizeof(float) * (size_t)(k * n));
    float *c = malloc(sizeof(float) * (size_t)(m * n)),
          *c1 = malloc(sizeof(float) * (size_t)(m * n));
    if (!a || !b || !c || !c1) {
        free(a), free(b), free(c), free(c1);
        fprintf(stderr, "gk-call-ab: out of memory\n");
        return 1;
    }
    for (long long i = 0; i < m * k; i++)
        a[i] = (float)rand() / (float)RAND_MAX - 0.5f;
    for (long long i = 0; i < k * n; i++)
        b[i] = (float)rand() / (float)RAND_MAX - 0.5f;
    /* Both libraries must compute the same product: |difference| <= (k + 2) eps sum|a b|, with
     * sum|a b| <= k / 4 for entries in [-0.5, 0.5]. */
    time_calls(&f[0], &x, a, b, c, 1);
    time_calls(&f[1], &x, a, b, c1, 1);
    for (long long i = 0; i < m * n; i++)
        if (!(fabsf(c[i] - c1[i]) <= (float)(k + 2) * FLT_EPSILON * (float)k / 4.0f)) {
            fprintf(stderr, "gk-call-ab: %s: the libraries disagree at element %lld (%g vs %g)\n",
                    shape, i, (double)c[i], (double)c1[i]);
            free(a), free(b), free(c), free(c1);
            return 1;
        }
    /* about 2 ms per loop */
    long reps = 1;
    while (time_calls(&f[0], &x, a, b, c, reps) * (double)reps < 2e6 && reps < (1L << 24))
        reps *= 2;
    double t[2][ROUNDS];
    for (int r = 0; r < ROUNDS; r++)
        for (int q = 0; q < 2; q++) {
            const int i = r % 2 ? 1 - q : q;
            t[i][r] = time_calls(&f[i], &x, a, b, c, reps);
        }
    const double ma = gkh_median(t[0], ROUNDS), mb = gkh_median(t[1], ROUNDS);
    printf("%-16s %10.1f %10.1f %10.1f %10.1f %8.3f\n", shape, ma, t[0][0], mb, t[1][0], mb / ma);
    free(a), free(b), free(c), free(c1);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3 || argv[1][0] == '-') {
        fprintf(stderr,
                "usage: gk-call-ab LIB_A LIB_B [MxNxK[:[r]XY] ...]\n"
                "Per-call time of SGEMM through two libraries in one process, alternated over "
                "%d rounds.\nLIB: the path of a libgemmkit.so, or cblas:PATH for a library "
                "exporting cblas_sgemm.\n",
                ROUNDS);
        return argc >= 2 && (argv[1][0] == '-' && argv[1][1] == 'h') ? 0 : 2;
    }
    lib f[2] = {{0}};
    if (!load(argv[1], &f[0]) || !load(argv[2], &f[1])) return 1;
    printf("A = %s\nB = %s\nns per call, median (min) over %d alternated rounds\n", argv[1],
           argv[2], ROUNDS);
    printf("%-16s %10s %10s %10s %10s %8s\n", "shape", "A median", "A min", "B median", "B min",
           "B/A");
    int bad = 0;
    if (argc > 3)
        for (int i = 3; i < argc; i++)
            bad |= run_shape(f, argv[i]);
    else
        for (size_t i = 0; i < sizeof default_shapes / sizeof *default_shapes; i++)
            bad |= run_shape(f, default_shapes[i]);
    return bad;
}
