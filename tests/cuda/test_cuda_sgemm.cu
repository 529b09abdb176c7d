/*
 * test_cuda_sgemm.cu — GPU tests of the CUDA backend through the public API: every registry kernel
 * on awkward shapes (sizes 1..600 that are not multiples of any tile, K = 1, tall and wide), both
 * layouts and all transposition pairs (the dispatcher's workspace path), alpha/beta special cases
 * with NaN-poisoned C, C inside guard zones with ld larger than needed, the default-kernel entry
 * point, argument errors (C untouched), contexts and streams.
 *
 * Data and checks come from tests/common/ref.h (float64 reference, K-scaled bound with the
 * kernel's input_rounding, sentinels around C, NaN in the ld gaps of A and B). Without a device
 * every case reports "skip". `--small` runs only small shapes, for compute-sanitizer.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cuda/registry.h"
#include "gemmkit.h"
extern "C" {
#include "ref.h"
}

static int g_small;       /* --small: sanitizer-sized problems only */
static int g_have_device; /* gk_cuda_available() at start */
static gk_cuda_ctx *g_ctx;

#define NEED_DEVICE()                                                                              \
    do {                                                                                           \
        if (!g_have_device) T_SKIP("no CUDA device");                                              \
    } while (0)

/* ---- one problem on the device ------------------------------------------------------------- */

enum { USE_DEFAULT = -1 };

/* Copy the host problem to the device, run kernel `id` (or gk_cuda_sgemm), copy everything back
 * and verify. Returns 0 on success, else writes why into msg. `null_ab` passes NULL for A and B
 * (legal when the call is scale-only). */
static int run_on_device(gk_cuda_ctx *ctx, int id, t_gemm_data *d, double u_in, int null_ab,
                         char *msg, size_t len) {
    const t_gemm_case *cs = &d->cs;
    float *da = NULL, *db = NULL, *dc = NULL;
    const size_t ab = (size_t)d->a_len * 4, bb = (size_t)d->b_len * 4, cb = (size_t)d->c_len * 4;
    int rc = 1;
    cudaError_t err;
    gk_status st;
    if ((err = cudaMalloc(&da, ab)) || (err = cudaMalloc(&db, bb)) || (err = cudaMalloc(&dc, cb)) ||
        (err = cudaMemcpy(da, d->a, ab, cudaMemcpyHostToDevice)) ||
        (err = cudaMemcpy(db, d->b, bb, cudaMemcpyHostToDevice)) ||
        (err = cudaMemcpy(dc, d->c_buf, cb, cudaMemcpyHostToDevice))) {
        snprintf(msg, len, "setup: %s", cudaGetErrorString(err));
        goto out;
    }
    /* a pageable upload may still be in flight when cudaMemcpy returns, and the context's stream
     * may be a non-blocking one that does not wait for it */
    if ((err = cudaDeviceSynchronize())) {
        snprintf(msg, len, "upload: %s", cudaGetErrorString(err));
        goto out;
    }
    {
        float *c = dc + (d->c - d->c_buf);
        const float *a = null_ab ? NULL : da, *b = null_ab ? NULL : db;
        st = id == USE_DEFAULT
                 ? gk_cuda_sgemm(ctx, cs->layout, cs->ta, cs->tb, cs->m, cs->n, cs->k, cs->alpha, a,
                                 cs->lda, b, cs->ldb, cs->beta, c, cs->ldc)
                 : gk_cuda_sgemm_kernel(ctx, id, cs->layout, cs->ta, cs->tb, cs->m, cs->n, cs->k,
                                        cs->alpha, a, cs->lda, b, cs->ldb, cs->beta, c, cs->ldc);
    }
    if (st != GK_SUCCESS) {
        snprintf(msg, len, "status %s: %s", gk_status_string(st), gk_last_error());
        goto out;
    }
    if ((err = cudaDeviceSynchronize()) ||
        (err = cudaMemcpy(d->c_buf, dc, cb, cudaMemcpyDeviceToHost)) ||
        (err = cudaMemcpy(d->a, da, ab, cudaMemcpyDeviceToHost)) ||
        (err = cudaMemcpy(d->b, db, bb, cudaMemcpyDeviceToHost))) {
        snprintf(msg, len, "run: %s", cudaGetErrorString(err));
        goto out;
    }
    rc = t_gemm_data_verify(d, u_in, msg, len);
out:
    cudaFree(da), cudaFree(db), cudaFree(dc);
    return rc;
}

/* ---- the shared problem list: every kernel runs on the same data ----------------------------- */

static float pick(t_rng *r, const float *v, int n) {
    return v[t_rng_range(r, 0, n - 1)];
}

/* A case of the given shape with random layout/transpositions/scalars and ld = minimum + 0..7. */
static t_gemm_case random_case(t_rng *r, int64_t m, int64_t n, int64_t k) {
    static const float alphas[] = {1.0f, -0.5f, 2.5f}, betas[] = {0.0f, 1.0f, -1.5f};
    static const gk_trans trans[] = {GK_NO_TRANS, GK_TRANS};
    t_gemm_case cs;
    memset(&cs, 0, sizeof cs);
    cs.layout = t_rng_range(r, 0, 1) ? GK_ROW_MAJOR : GK_COL_MAJOR;
    cs.ta = trans[t_rng_range(r, 0, 1)], cs.tb = trans[t_rng_range(r, 0, 1)];
    cs.m = m, cs.n = n, cs.k = k;
    cs.alpha = pick(r, alphas, 3), cs.beta = pick(r, betas, 3);
    cs.nan_c = cs.beta == 0.0f;
    cs.lda = t_min_ld(cs.layout, cs.ta, m, k) + t_rng_range(r, 0, 7);
    cs.ldb = t_min_ld(cs.layout, cs.tb, k, n) + t_rng_range(r, 0, 7);
    cs.ldc = (cs.layout == GK_COL_MAJOR ? m : n) + t_rng_range(r, 0, 7);
    return cs;
}

enum { MAX_CASES = 64, MAX_KERNELS = 64 };

static int build_cases(t_gemm_case *out, t_rng *r) {
    /* sizes avoid multiples of 8/16/32/64/128/256 except where a full-tile case is wanted */
    static const int64_t fixed[][3] = {
        {1, 1, 1},     {1, 37, 1},   {33, 1, 65},  {129, 130, 1},   {67, 45, 33},   {17, 9, 300},
        {128, 256, 8}, {600, 3, 77}, {3, 600, 65}, {257, 383, 129}, {256, 128, 64}, {511, 97, 255}};
    int n = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        if (g_small && fixed[i][0] * fixed[i][1] * fixed[i][2] > 70 * 70 * 70) continue;
        out[n++] = random_case(r, fixed[i][0], fixed[i][1], fixed[i][2]);
    }
    if (!g_small)
        for (int i = 0; i < 6; i++)
            out[n++] = random_case(r, t_rng_range(r, 1, 600), t_rng_range(r, 1, 600),
                                   t_rng_range(r, 1, 600));
    /* both layouts x all transposition pairs (CONJ_TRANS must behave as TRANS) */
    static const gk_trans all[] = {GK_NO_TRANS, GK_TRANS, GK_CONJ_TRANS};
    for (int l = 0; l < 2; l++)
        for (int ta = 0; ta < 3; ta++)
            for (int tb = 0; tb < 3; tb++) {
                if ((ta == 2 || tb == 2) && l == 0) continue; /* CONJ once per layout is enough */
                t_gemm_case cs = random_case(r, 45, 67, 33);
                cs.layout = l ? GK_ROW_MAJOR : GK_COL_MAJOR;
                cs.ta = all[ta], cs.tb = all[tb];
                cs.lda = t_min_ld(cs.layout, cs.ta, cs.m, cs.k) + 3;
                cs.ldb = t_min_ld(cs.layout, cs.tb, cs.k, cs.n) + 5;
                cs.ldc = (cs.layout == GK_COL_MAJOR ? cs.m : cs.n) + 2;
                out[n++] = cs;
            }
    return n;
}

static struct {
    int failed, unsupported;
    char why[600];
} g_result[MAX_KERNELS];
static int g_sm;
static int g_current;

/* Runs every kernel on every case once (the float64 reference is computed once per case). */
static void run_all_kernels(void) {
    int count = gk_cuda_kernel_count();
    if (count > MAX_KERNELS) count = MAX_KERNELS;
    t_rng r = {0x9e3779b97f4a7c15ull};
    t_gemm_case cases[MAX_CASES];
    const int ncases = build_cases(cases, &r);
    for (int c = 0; c < ncases; c++) {
        t_gemm_data d;
        if (t_gemm_data_init(&d, &cases[c], &r)) {
            for (int id = 0; id < count; id++)
                if (!g_result[id].failed++) snprintf(g_result[id].why, 600, "out of host memory");
            continue;
        }
        for (int id = 0; id < count; id++) {
            gk_cuda_kernel_info info;
            gk_cuda_kernel_info_get(id, &info);
            if (info.min_sm > g_sm) {
                g_result[id].unsupported = info.min_sm;
                continue;
            }
            char msg[400], desc[200];
            t_gemm_data_reset_c(&d);
            if (run_on_device(g_ctx, id, &d, info.input_rounding, 0, msg, sizeof msg) &&
                !g_result[id].failed++) {
                t_case_str(&cases[c], desc, sizeof desc);
                snprintf(g_result[id].why, sizeof g_result[id].why, "%s: %s", desc, msg);
            }
        }
        t_gemm_data_free(&d);
    }
}

static void kernel_case(void) {
    NEED_DEVICE();
    if (g_result[g_current].unsupported)
        T_SKIP("needs sm_%d, device is sm_%d", g_result[g_current].unsupported, g_sm);
    T_CHECK(!g_result[g_current].failed, "%d case(s) failed; first: %s", g_result[g_current].failed,
            g_result[g_current].why);
}

/* ---- single cases -----------------------------------------------------------------------------
 */

/* Run one case through the default entry point (id USE_DEFAULT) or a kernel. */
static int one(int id, t_gemm_case cs, double u_in, int null_ab, char *msg, size_t len) {
    t_rng r = {0x2545f4914f6cdd1dull ^ (uint64_t)(cs.m * 131 + cs.n * 7 + cs.k)};
    t_gemm_data d;
    if (t_gemm_data_init(&d, &cs, &r)) {
        snprintf(msg, len, "out of host memory");
        return 1;
    }
    int rc = run_on_device(g_ctx, id, &d, u_in, null_ab, msg, len);
    t_gemm_data_free(&d);
    return rc;
}

static t_gemm_case simple_case(gk_layout layout, gk_trans ta, gk_trans tb, int64_t m, int64_t n,
                               int64_t k, float alpha, float beta) {
    t_gemm_case cs;
    memset(&cs, 0, sizeof cs);
    cs.layout = layout, cs.ta = ta, cs.tb = tb;
    cs.m = m, cs.n = n, cs.k = k;
    cs.alpha = alpha, cs.beta = beta;
    cs.nan_c = beta == 0.0f;
    cs.lda = t_min_ld(layout, ta, m, k) + 1;
    cs.ldb = t_min_ld(layout, tb, k, n) + 2;
    cs.ldc = (layout == GK_COL_MAJOR ? m : n) + 3;
    return cs;
}

static void default_kernel_is_fp32(void) {
    NEED_DEVICE();
    const int id = gk_cuda_default_kernel();
    gk_cuda_kernel_info info;
    T_REQUIRE(gk_cuda_kernel_info_get(id, &info) == GK_SUCCESS, "default kernel %d invalid", id);
    T_CHECK(info.input_rounding == 0.0 && !info.tensor_cores, "default kernel %s is not FP32-exact",
            info.name);
}

static void default_entry_point(void) {
    NEED_DEVICE();
    static const gk_trans tr[] = {GK_NO_TRANS, GK_TRANS};
    char msg[400];
    for (int l = 0; l < 2; l++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++) {
                t_gemm_case cs =
                    simple_case(l ? GK_ROW_MAJOR : GK_COL_MAJOR, tr[ta], tr[tb], g_small ? 37 : 301,
                                g_small ? 29 : 259, g_small ? 23 : 177, 1.25f, l ? 0.0f : 0.5f);
                T_CHECK(!one(USE_DEFAULT, cs, 0.0, 0, msg, sizeof msg), "l=%d ta=%d tb=%d: %s", l,
                        ta, tb, msg);
            }
}

static void scale_only_paths(void) {
    NEED_DEVICE();
    char msg[400];
    /* k == 0: C = beta C; A and B are never read, so NULL is legal */
    T_CHECK(!one(USE_DEFAULT,
                 simple_case(GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 37, 29, 0, 1.0f, 2.0f), 0.0, 1,
                 msg, sizeof msg),
            "k=0 beta=2: %s", msg);
    /* alpha == 0 and beta == 0 on NaN C: exact zeros */
    T_CHECK(!one(USE_DEFAULT,
                 simple_case(GK_ROW_MAJOR, GK_TRANS, GK_NO_TRANS, 41, 23, 17, 0.0f, 0.0f), 0.0, 1,
                 msg, sizeof msg),
            "alpha=0 beta=0: %s", msg);
    /* alpha == 0, beta == 1: nothing changes */
    T_CHECK(!one(USE_DEFAULT,
                 simple_case(GK_COL_MAJOR, GK_NO_TRANS, GK_TRANS, 19, 5, 3, 0.0f, 1.0f), 0.0, 1,
                 msg, sizeof msg),
            "alpha=0 beta=1: %s", msg);
    /* beta == 0 on NaN C through a real product, every kernel */
    for (int id = 0; id < gk_cuda_kernel_count(); id++) {
        gk_cuda_kernel_info info;
        gk_cuda_kernel_info_get(id, &info);
        if (info.min_sm > g_sm) continue;
        T_CHECK(!one(id,
                     simple_case(GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 70, 66, 9, -1.0f, 0.0f),
                     info.input_rounding, 0, msg, sizeof msg),
                "%s beta=0 NaN C: %s", info.name, msg);
    }
    /* m == 0 / n == 0: success, nothing touched, C may be NULL */
    T_CHECK(gk_cuda_sgemm(g_ctx, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 0, 5, 5, 1.0f, NULL, 1,
                          NULL, 5, 0.0f, NULL, 1) == GK_SUCCESS,
            "m=0: %s", gk_last_error());
    T_CHECK(gk_cuda_sgemm(g_ctx, GK_ROW_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 5, 0, 5, 1.0f, NULL, 5,
                          NULL, 1, 0.0f, NULL, 1) == GK_SUCCESS,
            "n=0: %s", gk_last_error());
}

/* Bad arguments: the status and message of the shared check, and C bit-identical afterwards. */
static void bad_arguments(void) {
    NEED_DEVICE();
    enum { M = 8, N = 6, K = 5, LEN = 64 };
    float *da = NULL, *db = NULL, *dc = NULL, host[LEN], back[LEN];
    for (int i = 0; i < LEN; i++)
        host[i] = (float)i + 0.5f;
    T_REQUIRE(cudaMalloc(&da, LEN * 4) == cudaSuccess && cudaMalloc(&db, LEN * 4) == cudaSuccess &&
                  cudaMalloc(&dc, LEN * 4) == cudaSuccess,
              "cudaMalloc failed");
    cudaMemcpy(dc, host, sizeof host, cudaMemcpyHostToDevice);
    const gk_layout CM = GK_COL_MAJOR;
    const gk_trans NT = GK_NO_TRANS;
    struct {
        gk_layout l;
        gk_trans ta, tb;
        int64_t m, n, k, lda, ldb, ldc;
        int null_c;
        gk_status want;
        const char *names;
    } bad[] = {
        {(gk_layout)0, NT, NT, M, N, K, M, K, M, 0, GK_ERR_INVALID_LAYOUT, "layout"},
        {CM, (gk_trans)7, NT, M, N, K, M, K, M, 0, GK_ERR_INVALID_TRANS, "transa"},
        {CM, NT, (gk_trans)110, M, N, K, M, K, M, 0, GK_ERR_INVALID_TRANS, "transb"},
        {CM, NT, NT, -1, N, K, M, K, M, 0, GK_ERR_INVALID_SIZE, "m="},
        {CM, NT, NT, M, -2, K, M, K, M, 0, GK_ERR_INVALID_SIZE, "n="},
        {CM, NT, NT, M, N, -3, M, K, M, 0, GK_ERR_INVALID_SIZE, "k="},
        {CM, NT, NT, M, N, K, M - 1, K, M, 0, GK_ERR_INVALID_LD, "lda"},
        {CM, NT, NT, M, N, K, M, K - 1, M, 0, GK_ERR_INVALID_LD, "ldb"},
        {CM, NT, NT, M, N, K, M, K, M - 1, 0, GK_ERR_INVALID_LD, "ldc"},
        {GK_ROW_MAJOR, NT, NT, M, N, K, K, N, N - 1, 0, GK_ERR_INVALID_LD, "ldc"},
        {CM, GK_TRANS, NT, M, N, K, K - 1, K, M, 0, GK_ERR_INVALID_LD, "lda"},
        {CM, NT, NT, M, N, K, M, K, M, 1, GK_ERR_NULL_POINTER, "c is NULL"},
        {CM, NT, NT, M, N, INT64_MAX / 2, M, INT64_MAX / 2, M, 0, GK_ERR_OVERFLOW, "a ("},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gk_status st = gk_cuda_sgemm(g_ctx, bad[i].l, bad[i].ta, bad[i].tb, bad[i].m, bad[i].n,
                                     bad[i].k, 1.0f, da, bad[i].lda, db, bad[i].ldb, 0.0f,
                                     bad[i].null_c ? NULL : dc, bad[i].ldc);
        T_CHECK(st == bad[i].want, "case %zu: status %s, want %s (%s)", i, gk_status_string(st),
                gk_status_string(bad[i].want), gk_last_error());
        T_CHECK(strstr(gk_last_error(), "gk_cuda_sgemm") && strstr(gk_last_error(), bad[i].names),
                "case %zu: message '%s' does not name '%s'", i, gk_last_error(), bad[i].names);
    }
    cudaDeviceSynchronize();
    cudaMemcpy(back, dc, sizeof back, cudaMemcpyDeviceToHost);
    T_CHECK(!memcmp(back, host, sizeof host), "C was modified by a rejected call");
    /* a good call afterwards clears the message */
    T_CHECK(gk_cuda_sgemm(g_ctx, CM, NT, NT, M, N, K, 1.0f, da, M, db, K, 0.0f, dc, M) ==
                    GK_SUCCESS &&
                gk_last_error()[0] == '\0',
            "good call after errors: %s", gk_last_error());
    cudaDeviceSynchronize();
    cudaFree(da), cudaFree(db), cudaFree(dc);
}

static void context_and_ids(void) {
    NEED_DEVICE();
    int count = 0;
    cudaGetDeviceCount(&count);
    gk_cuda_ctx *c = (gk_cuda_ctx *)1;
    T_CHECK(gk_cuda_create(&c, -1, NULL) == GK_ERR_INVALID_VALUE && c == NULL,
            "device -1 accepted");
    T_CHECK(gk_cuda_create(&c, count, NULL) == GK_ERR_INVALID_VALUE, "device=count accepted");
    T_CHECK(strstr(gk_last_error(), "device"), "message '%s' does not name device",
            gk_last_error());
    T_CHECK(gk_cuda_create(NULL, 0, NULL) == GK_ERR_INVALID_VALUE, "NULL ctx out accepted");
    T_CHECK(gk_cuda_destroy(NULL) == GK_SUCCESS, "destroy(NULL) failed");
    const int n = gk_cuda_kernel_count();
    T_CHECK(n > 0, "empty registry");
    float x = 0;
    T_CHECK(gk_cuda_sgemm_kernel(g_ctx, -1, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 1, 1, 1, 1.0f,
                                 &x, 1, &x, 1, 0.0f, &x, 1) == GK_ERR_INVALID_VALUE,
            "kernel -1 accepted");
    T_CHECK(gk_cuda_sgemm_kernel(g_ctx, n, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 1, 1, 1, 1.0f,
                                 &x, 1, &x, 1, 0.0f, &x, 1) == GK_ERR_INVALID_VALUE,
            "kernel count accepted");
    T_CHECK(strstr(gk_last_error(), "kernel_id"), "message '%s'", gk_last_error());
    T_CHECK(gk_cuda_sgemm(NULL, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 1, 1, 1, 1.0f, &x, 1, &x, 1,
                          0.0f, &x, 1) == GK_ERR_INVALID_VALUE,
            "NULL ctx accepted");
    gk_cuda_kernel_info info;
    T_CHECK(gk_cuda_kernel_info_get(n, &info) == GK_ERR_INVALID_VALUE, "info of id=count");
    for (int id = 0; id < n; id++) {
        T_CHECK(gk_cuda_kernel_info_get(id, &info) == GK_SUCCESS && info.id == id && info.name &&
                    info.technique && info.min_sm >= 50,
                "info %d", id);
        /* a kernel too new for the device is refused before anything is launched */
        if (info.min_sm > g_sm)
            T_CHECK(gk_cuda_sgemm_kernel(g_ctx, id, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 1, 1, 1,
                                         1.0f, &x, 1, &x, 1, 0.0f, &x, 1) == GK_ERR_UNSUPPORTED,
                    "kernel %s (sm_%d) on sm_%d: %s", info.name, info.min_sm, g_sm,
                    gk_last_error());
    }
}

/* A context on user streams: work lands on that stream, the workspace survives a stream change,
 * and the caller's current device is unchanged afterwards. */
static void streams_and_device(void) {
    NEED_DEVICE();
    cudaStream_t s1, s2;
    T_REQUIRE(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking) == cudaSuccess &&
                  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking) == cudaSuccess,
              "cudaStreamCreate failed");
    int before = -1, after = -2;
    cudaGetDevice(&before);
    gk_cuda_ctx *ctx = NULL;
    T_REQUIRE(gk_cuda_create(&ctx, 0, s1) == GK_SUCCESS, "create: %s", gk_last_error());
    char msg[400];
    t_gemm_case cs = simple_case(GK_ROW_MAJOR, GK_TRANS, GK_TRANS, 95, 77, 61, 1.0f, 0.0f);
    t_rng r = {12345};
    t_gemm_data d;
    T_REQUIRE(!t_gemm_data_init(&d, &cs, &r), "out of host memory");
    T_CHECK(!run_on_device(ctx, USE_DEFAULT, &d, 0.0, 0, msg, sizeof msg), "stream 1: %s", msg);
    T_CHECK(gk_cuda_set_stream(ctx, s2) == GK_SUCCESS, "set_stream: %s", gk_last_error());
    t_gemm_data_reset_c(&d);
    T_CHECK(!run_on_device(ctx, USE_DEFAULT, &d, 0.0, 0, msg, sizeof msg), "stream 2: %s", msg);
    T_CHECK(gk_cuda_set_stream(ctx, NULL) == GK_SUCCESS, "set_stream(NULL): %s", gk_last_error());
    t_gemm_data_reset_c(&d);
    T_CHECK(!run_on_device(ctx, USE_DEFAULT, &d, 0.0, 0, msg, sizeof msg), "default stream: %s",
            msg);
    t_gemm_data_free(&d);
    T_CHECK(gk_cuda_destroy(ctx) == GK_SUCCESS, "destroy: %s", gk_last_error());
    cudaGetDevice(&after);
    T_CHECK(before == after, "current device changed from %d to %d", before, after);
    cudaStreamDestroy(s1), cudaStreamDestroy(s2);
}

/* Id of the registry kernel called `name`, -1 if there is none. */
static int kernel_named(const char *name) {
    gk_cuda_kernel_info info;
    for (int id = 0; id < gk_cuda_kernel_count(); id++)
        if (gk_cuda_kernel_info_get(id, &info) == GK_SUCCESS && !strcmp(info.name, name)) return id;
    return -1;
}

/* Step 15's stream-K schedule on problems where it splits tiles along K (on H100 the autotune
 * table gives them 128x256 tiles, one block per SM): 3100 x 3100 x 500 has 325 tiles, so whole-tile
 * blocks run the first two waves and the 61 tiles of the last, partial wave are shared by all
 * SMs; 1100 x 2000 x 601 has 72 tiles, every one shared; 1030 x 1030 x 401 (also the --small case,
 * for compute-sanitizer) has 45. K is not a multiple of the k-tile and edge tiles are partial.
 * Each problem runs twice with beta = 0 on NaN-filled C: both results must pass the reference
 * check and be bitwise equal (the tile counters reset themselves and partial sums are added in a
 * fixed order). */
static void stream_k_schedule(void) {
    NEED_DEVICE();
    const int id = kernel_named("15_stream_k");
    if (id < 0) T_SKIP("this build's registry has no 15_stream_k");
    gk_cuda_kernel_info info;
    gk_cuda_kernel_info_get(id, &info);
    if (info.min_sm > g_sm) T_SKIP("needs sm_%d, device is sm_%d", info.min_sm, g_sm);
    static const int64_t shapes[][3] = {{3100, 3100, 500}, {1100, 2000, 601}, {1030, 1030, 401}};
    char msg[400];
    for (int i = g_small ? 2 : 0; i < 3; i++) {
        t_gemm_case cs = simple_case(i == 1 ? GK_COL_MAJOR : GK_ROW_MAJOR, GK_NO_TRANS,
                                     i == 1 ? GK_TRANS : GK_NO_TRANS, shapes[i][0], shapes[i][1],
                                     shapes[i][2], 0.75f, 0.0f);
        t_rng r = {0x5eedull + (uint64_t)i};
        t_gemm_data d;
        T_REQUIRE(!t_gemm_data_init(&d, &cs, &r), "out of host memory");
        const size_t bytes = (size_t)d.c_len * sizeof(float);
        float *first = (float *)malloc(bytes);
        T_REQUIRE(first != NULL, "out of host memory");
        int ok = !run_on_device(g_ctx, id, &d, 0.0, 0, msg, sizeof msg);
        T_CHECK(ok, "%lldx%lldx%lld run 1: %s", (long long)cs.m, (long long)cs.n, (long long)cs.k,
                msg);
        memcpy(first, d.c_buf, bytes);
        t_gemm_data_reset_c(&d);
        ok = !run_on_device(g_ctx, id, &d, 0.0, 0, msg, sizeof msg);
        T_CHECK(ok, "%lldx%lldx%lld run 2: %s", (long long)cs.m, (long long)cs.n, (long long)cs.k,
                msg);
        T_CHECK(memcmp(first, d.c_buf, bytes) == 0, "%lldx%lldx%lld: two runs differ bitwise",
                (long long)cs.m, (long long)cs.n, (long long)cs.k);
        free(first);
        t_gemm_data_free(&d);
    }
}

/* Without a device the backend must say so rather than crash; with one, nothing to test here. */
static void no_device_reports(void) {
    if (g_have_device) T_SKIP("a CUDA device is present");
    gk_cuda_ctx *c = (gk_cuda_ctx *)1;
    T_CHECK(gk_cuda_create(&c, 0, NULL) == GK_ERR_NO_DEVICE, "create: %s", gk_last_error());
    T_CHECK(c == NULL, "ctx not cleared");
    T_CHECK(gk_last_error()[0] != '\0', "no message");
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--small"))
            g_small = 1;
        else {
            fprintf(stderr, "usage: %s [--small]\n", argv[0]);
            return 2;
        }
    }
    g_have_device = gk_cuda_available();
    if (g_have_device) {
        if (gk_cuda_create(&g_ctx, 0, NULL) != GK_SUCCESS) {
            printf("FAIL setup: gk_cuda_create: %s\n", gk_last_error());
            return 1;
        }
        int major = 0, minor = 0;
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
        g_sm = major * 10 + minor;
        run_all_kernels();
    }
    T_RUN(no_device_reports);
    T_RUN(context_and_ids);
    T_RUN(default_kernel_is_fp32);
    T_RUN(default_entry_point);
    T_RUN(scale_only_paths);
    T_RUN(bad_arguments);
    T_RUN(streams_and_device);
    T_RUN(stream_k_schedule);
    const int n = gk_cuda_kernel_count() < MAX_KERNELS ? gk_cuda_kernel_count() : MAX_KERNELS;
    for (g_current = 0; g_current < n; g_current++) {
        gk_cuda_kernel_info info;
        char name[96];
        gk_cuda_kernel_info_get(g_current, &info);
        snprintf(name, sizeof name, "kernel_%s%s", info.name, g_small ? "_small" : "");
        t_run(name, kernel_case);
    }
    gk_cuda_destroy(g_ctx);
    return t_finish();
}
