/*
 * test_cuda_sgemm.cu — GPU tests of the CUDA backend through the public API: every registry kernel
 * on awkward shapes (sizes 1..600 that are not multiples of any tile, K = 1, tall and wide), both
 * layouts and all transposition pairs (the dispatcher's workspace path), alpha/beta special cases
 * with NaN-poisoned C, C inside guard zones with ld larger than needed, the default-kernel entry
 * point, the tune cache (every candidate plan of a few shapes run from a cache entry; bad entries
 * and stale files ignored), argument errors (C untouched), contexts and streams, and the checks
 * before queueing (docs/cuda.md, "Errors"): host memory, another device's memory, allocations too
 * short, managed and mapped host memory accepted, graph capture, the GEMMKIT_CUDA_CHECKS=0
 * switch, and a real kernel fault (in forked children) reported as a sticky error of earlier work.
 *
 * Data and checks come from tests/common/ref.h (float64 reference, K-scaled bound with the
 * kernel's input_rounding, sentinels around C, NaN in the ld gaps of A and B). Without a device
 * every case reports "skip". `--small` runs only small shapes, for compute-sanitizer, without the
 * deliberate fault. `--call-cost` runs no test: it prints what the checks cost per call.
 */
#include <cuda.h> /* the driver's pointer-query types, for the allocation-range cases */
#include <cuda_runtime.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "cuda/core/core.h"
#include "cuda/gemm/plan.h"
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

/* A workspace that cannot be allocated: with the device's memory used up (cudaMalloc in halving
 * chunks until not even 64 KiB more fits), a call with both operands transposed on a fresh
 * context, whose workspace holds their copies, returns GK_ERR_OUT_OF_MEMORY naming the workspace
 * and queues nothing (C bit-identical); with the memory given back the same context runs it
 * correctly. The emulated runtime (tests/cuda/emu) has a small device memory, so CI runs it too. */
static void workspace_out_of_memory(void) {
    NEED_DEVICE();
#ifndef GK_CUDA_EMULATED
    if (g_small) T_SKIP("fills the device's memory, which compute-sanitizer needs too");
#endif
    t_gemm_case cs = simple_case(GK_COL_MAJOR, GK_TRANS, GK_TRANS, 200, 150, 120, 1.0f, 0.5f);
    t_rng r = {777};
    t_gemm_data d;
    T_REQUIRE(!t_gemm_data_init(&d, &cs, &r), "out of host memory");
    const size_t ab = (size_t)d.a_len * 4, bb = (size_t)d.b_len * 4, cb = (size_t)d.c_len * 4;
    float *da = NULL, *db = NULL, *dc = NULL, *back = (float *)malloc(cb);
    gk_cuda_ctx *ctx = NULL;
    enum { MAX_HOG = 4096 };
    static void *hog[MAX_HOG], *hog_async[MAX_HOG];
    int nh = 0, nh_async = 0;
    char msg[400];
    if (!back || cudaMalloc(&da, ab) || cudaMalloc(&db, bb) || cudaMalloc(&dc, cb) ||
        cudaMemcpy(da, d.a, ab, cudaMemcpyHostToDevice) ||
        cudaMemcpy(db, d.b, bb, cudaMemcpyHostToDevice) ||
        cudaMemcpy(dc, d.c_buf, cb, cudaMemcpyHostToDevice) || cudaDeviceSynchronize() ||
        gk_cuda_create(&ctx, 0, NULL) != GK_SUCCESS) {
        T_CHECK(0, "setup failed: %s", gk_last_error());
    } else {
#ifndef GK_CUDA_EMULATED
        /* memory the stream-ordered pool kept would serve the workspace */
        cudaMemPool_t pool;
        if (cudaDeviceGetDefaultMemPool(&pool, 0) == cudaSuccess) cudaMemPoolTrimTo(pool, 0);
#endif
        for (size_t chunk = (size_t)1 << 34; chunk >= ((size_t)64 << 10) && nh < MAX_HOG;) {
            if (cudaMalloc(&hog[nh], chunk) == cudaSuccess) {
                nh++;
            } else {
                (void)cudaGetLastError();
                chunk /= 2;
            }
        }
#ifndef GK_CUDA_EMULATED
        /* and what the stream-ordered pool still holds (the workspace comes from it) */
        for (size_t chunk = (size_t)1 << 34; chunk >= ((size_t)64 << 10) && nh_async < MAX_HOG;) {
            if (cudaMallocAsync(&hog_async[nh_async], chunk, 0) == cudaSuccess) {
                nh_async++;
            } else {
                (void)cudaGetLastError();
                chunk /= 2;
            }
        }
        cudaStreamSynchronize(0);
#endif
        const gk_status st =
            gk_cuda_sgemm(ctx, cs.layout, cs.ta, cs.tb, cs.m, cs.n, cs.k, cs.alpha, da, cs.lda, db,
                          cs.ldb, cs.beta, dc + (d.c - d.c_buf), cs.ldc);
        T_CHECK(st == GK_ERR_OUT_OF_MEMORY && strstr(gk_last_error(), "workspace"),
                "device memory used up: status %s (%s)", gk_status_string(st), gk_last_error());
        while (nh > 0)
            cudaFree(hog[--nh]);
        while (nh_async > 0)
            cudaFreeAsync(hog_async[--nh_async], 0);
        T_CHECK(cudaDeviceSynchronize() == cudaSuccess &&
                    cudaMemcpy(back, dc, cb, cudaMemcpyDeviceToHost) == cudaSuccess &&
                    !memcmp(back, d.c0_buf, cb),
                "C changed by the call that could not get its workspace");
        T_CHECK(!run_on_device(ctx, USE_DEFAULT, &d, 0.0, 0, msg, sizeof msg),
                "the same context with memory back: %s", msg);
    }
    while (nh > 0)
        cudaFree(hog[--nh]);
    while (nh_async > 0)
        cudaFreeAsync(hog_async[--nh_async], 0);
    gk_cuda_destroy(ctx);
    cudaFree(da), cudaFree(db), cudaFree(dc);
    free(back);
    t_gemm_data_free(&d);
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

/* Ladder steps 16-20 (wgmma, sm_90 only) on problems the registry-wide cases are too small for:
 * more 128 x 256 tiles than an H100 has SMs (or than it has clusters of two), so the persistent
 * grid walks several tiles per CTA, K over more stages than the ring holds (K = 160 and 129: five
 * 32-float stages), edges in every dimension. The first case's kernel A is read in place (row-major
 * NN, lda = k, 16-byte aligned, k a multiple of 4); the second's has an odd lda, so the launcher
 * copies it; B is always copied transposed. beta = 0 runs on NaN-filled C, beta != 0 reads C; the
 * sentinels around C must survive. */
static void sm90_ladder_steps(void) {
    NEED_DEVICE();
    static const char *const steps[] = {"16_wgmma_tf32", "17_tma_ring", "18_warp_specialized",
                                        "19_persistent", "20_clusters"};
    const int first = kernel_named(steps[0]);
    if (first < 0) T_SKIP("this build's registry has no %s", steps[0]);
    gk_cuda_kernel_info info;
    gk_cuda_kernel_info_get(first, &info);
    if (info.min_sm > g_sm) T_SKIP("needs sm_%d, device is sm_%d", info.min_sm, g_sm);
    t_gemm_case cs[2];
    cs[0] = simple_case(GK_ROW_MAJOR, GK_NO_TRANS, GK_NO_TRANS, g_small ? 300 : 2049,
                        g_small ? 280 : 2100, g_small ? 68 : 160, 1.25f, 0.0f);
    cs[0].lda = cs[0].k;
    cs[1] = simple_case(GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, g_small ? 129 : 2100,
                        g_small ? 257 : 2049, g_small ? 33 : 129, -0.5f, -1.5f);
    for (int c = 0; c < 2; c++) {
        t_rng r = {0xc0ffeeull + (uint64_t)c};
        t_gemm_data d;
        T_REQUIRE(!t_gemm_data_init(&d, &cs[c], &r), "out of host memory");
        for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
            const int id = kernel_named(steps[i]);
            T_CHECK(id >= 0, "the registry has no %s", steps[i]);
            if (id < 0) continue;
            gk_cuda_kernel_info_get(id, &info);
            char msg[400], desc[200];
            t_gemm_data_reset_c(&d);
            const int bad = run_on_device(g_ctx, id, &d, info.input_rounding, 0, msg, sizeof msg);
            t_case_str(&cs[c], desc, sizeof desc);
            T_CHECK(!bad, "%s %s: %s", steps[i], desc, msg);
        }
        t_gemm_data_free(&d);
    }
}

/* ---- the tune cache (docs/tuning.md) -----------------------------------------------------------
 * Every candidate plan of a few shapes, written to a cache file as that shape's entry, must be
 * the plan a new context runs (gk_cuda_sgemm_choose says where its plan came from) and give the
 * right result, for a row-major call and for the column-major call that maps onto the same
 * kernel problem; an entry whose plan cannot run the shape, a stale file and a forced plan that
 * cannot run are refused without harm. */

static int write_cache(const char *path, const char *build, const gk_tune_entry *e, size_t n) {
    gk_tune_device dev;
    char name[256], why[600];
    int replaced;
    unlink(path);
    if (gk_cuda_tune_device(g_ctx, name, sizeof name, &dev) != GK_SUCCESS) return -1;
    return gk_tune_store(path, build, &dev, e, n, &replaced, why, sizeof why);
}

/* A context created with the cache at path; NULL on failure. */
static gk_cuda_ctx *ctx_with_cache(const char *path) {
    setenv("GEMMKIT_TUNE_CACHE", path, 1);
    gk_cuda_ctx *c = NULL;
    const gk_status st = gk_cuda_create(&c, 0, NULL);
    unsetenv("GEMMKIT_TUNE_CACHE");
    return st == GK_SUCCESS ? c : NULL;
}

static void tune_cache_plans(void) {
    NEED_DEVICE();
    const gk_plan_ops *ops = gk_cuda_plan_ops();
    if (ops == NULL) T_SKIP("this build's default kernel runs no plans");
    char path[] = "/tmp/gk-tune-XXXXXX";
    const int fd = mkstemp(path);
    T_REQUIRE(fd >= 0, "mkstemp: %s", strerror(errno));
    close(fd);
    /* GEMV-like both ways, small M*N with long K, a small square, odd sizes */
    static const int64_t shapes[][3] = {{1, 300, 1000}, {300, 3, 777}, {64, 200, 5000},
                                        {100, 100, 100}, {513, 257, 129}};
    char msg[400], pn[48];
    for (const auto &sh : shapes) {
        gk_rm_problem p = {};
        p.m = sh[0], p.n = sh[1], p.k = sh[2];
        gk_sgemm_plan cand[32];
        int nc = ops->candidates(p, g_sm, g_ctx->sm_count, cand, 32);
        T_CHECK(nc >= 1, "%lldx%lldx%lld: no candidates", (long long)p.m, (long long)p.n,
                (long long)p.k);
        nc = nc < 32 ? nc : 32;
        for (int i = 0; i < nc; i++) {
            ops->name(cand[i], pn, sizeof pn);
            const gk_tune_entry e = {p.m, p.n, p.k, cand[i].kind, cand[i].config, cand[i].split};
            T_REQUIRE(write_cache(path, gk_cuda_tune_build(), &e, 1) == 0, "cannot write %s", path);
            gk_cuda_ctx *c = ctx_with_cache(path);
            T_REQUIRE(c != NULL, "gk_cuda_create: %s", gk_last_error());
            gk_sgemm_plan got;
            const int src = gk_cuda_sgemm_choose(c, *ops, p, NULL, &got);
            T_CHECK(src == GK_PLAN_FROM_CACHE && got.kind == cand[i].kind &&
                        got.config == cand[i].config && got.split == cand[i].split,
                    "%lldx%lldx%lld: cached plan %s not chosen (%s)", (long long)p.m,
                    (long long)p.n, (long long)p.k, pn, gk_cuda_plan_source_name(src));
            /* row-major m x n, and column-major n x m with swapped operands: both are p */
            for (int col = 0; col < 2; col++) {
                t_gemm_case cs = simple_case(col ? GK_COL_MAJOR : GK_ROW_MAJOR, GK_NO_TRANS,
                                             col ? GK_TRANS : GK_NO_TRANS, col ? p.n : p.m,
                                             col ? p.m : p.n, p.k, 1.5f, col ? 0.5f : 0.0f);
                t_rng r = {0x7e57ull + (uint64_t)i};
                t_gemm_data d;
                T_REQUIRE(!t_gemm_data_init(&d, &cs, &r), "out of host memory");
                const int bad = run_on_device(c, USE_DEFAULT, &d, 0.0, 0, msg, sizeof msg);
                T_CHECK(!bad, "%lldx%lldx%lld plan %s %s: %s", (long long)p.m, (long long)p.n,
                        (long long)p.k, pn, col ? "column-major" : "row-major", msg);
                t_gemm_data_free(&d);
            }
            gk_cuda_destroy(c);
        }
    }
    /* a plan that cannot run the shape is skipped at lookup: the heuristic runs */
    const gk_tune_entry bogus = {100, 100, 100, 0, 60000, 0};
    T_REQUIRE(write_cache(path, gk_cuda_tune_build(), &bogus, 1) == 0, "cannot write %s", path);
    gk_cuda_ctx *c = ctx_with_cache(path);
    T_REQUIRE(c != NULL, "gk_cuda_create: %s", gk_last_error());
    T_CHECK(c->tune.n == 1, "the bogus entry was not read");
    gk_rm_problem p = {};
    p.m = p.n = p.k = 100;
    gk_sgemm_plan got, force = {0, 60000, 0};
    T_CHECK(gk_cuda_sgemm_choose(c, *ops, p, NULL, &got) == GK_PLAN_FROM_HEURISTIC,
            "an entry that cannot run was used");
    t_gemm_case cs = simple_case(GK_ROW_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 100, 100, 100, 1, 0);
    t_rng r = {0xb0b0ull};
    t_gemm_data d;
    T_REQUIRE(!t_gemm_data_init(&d, &cs, &r), "out of host memory");
    T_CHECK(!run_on_device(c, USE_DEFAULT, &d, 0.0, 0, msg, sizeof msg), "bogus entry: %s", msg);
    t_gemm_data_free(&d);
    /* a forced plan that cannot run is an argument error naming the plan */
    float *buf = NULL;
    T_REQUIRE(cudaMalloc(&buf, 3 * 100 * 100 * sizeof(float)) == cudaSuccess, "cudaMalloc");
    const gk_status st = gk_cuda_sgemm_run(c, gk_cuda_default_kernel(), "test", GK_ROW_MAJOR,
                                           GK_NO_TRANS, GK_NO_TRANS, 100, 100, 100, 1.0f, buf, 100,
                                           buf + 10000, 100, 0.0f, buf + 20000, 100, &force);
    T_CHECK(st == GK_ERR_INVALID_VALUE && strstr(gk_last_error(), "plan"),
            "forced bad plan: %s (%s)", gk_status_string(st), gk_last_error());
    cudaFree(buf);
    gk_cuda_destroy(c);
    /* a file of another build is stale: no entries */
    T_REQUIRE(write_cache(path, "another-build", &bogus, 1) == 0, "cannot write %s", path);
    c = ctx_with_cache(path);
    T_REQUIRE(c != NULL, "gk_cuda_create: %s", gk_last_error());
    T_CHECK(c->tune.n == 0, "a stale file's entries were read");
    gk_cuda_destroy(c);
    unlink(path);
}

/* Split-K plans forced through a cache entry (stream_k.cu): a long K over few tiles, a thin C cut
 * eight ways, and a C of more tiles than the heuristic ever splits; beta 0 over NaN and beta != 0,
 * each shape called four times in one context (the workspace reused). */
static void split_k_plans(void) {
    NEED_DEVICE();
    const gk_plan_ops *ops = gk_cuda_plan_ops();
    if (ops == NULL) T_SKIP("this build's default kernel runs no plans");
    char path[] = "/tmp/gk-splitk-XXXXXX";
    const int fd = mkstemp(path);
    T_REQUIRE(fd >= 0, "mkstemp: %s", strerror(errno));
    close(fd);
    /* m, n, k, split; config 0 is 64 x 64 (2112^2: 1089 tiles) */
    static const int64_t cases[][4] = {
        {300, 200, 2000, 3}, {64, 960, 4099, 8}, {2112, 2112, 96, 2}};
    char msg[400];
    for (const auto &cs4 : cases) {
        if (g_small && cs4[0] > 1000) continue;
        const gk_tune_entry e = {cs4[0], cs4[1], cs4[2], GK_PLAN_SPLIT_K, 0, (int)cs4[3]};
        T_REQUIRE(write_cache(path, gk_cuda_tune_build(), &e, 1) == 0, "cannot write %s", path);
        gk_cuda_ctx *c = ctx_with_cache(path);
        T_REQUIRE(c != NULL, "gk_cuda_create: %s", gk_last_error());
        for (int rep = 0; rep < 4; rep++) {
            const float beta = rep % 2 ? 0.5f : 0.0f;
            t_gemm_case cs = simple_case(GK_ROW_MAJOR, GK_NO_TRANS, GK_NO_TRANS, cs4[0], cs4[1],
                                         cs4[2], -1.25f, beta);
            cs.nan_c = beta == 0.0f;
            t_rng r = {0x5717ull + (uint64_t)rep};
            t_gemm_data d;
            T_REQUIRE(!t_gemm_data_init(&d, &cs, &r), "out of host memory");
            const int bad = run_on_device(c, USE_DEFAULT, &d, 0.0, 0, msg, sizeof msg);
            T_CHECK(!bad, "%lldx%lldx%lld split %lld, call %d: %s", (long long)cs4[0],
                    (long long)cs4[1], (long long)cs4[2], (long long)cs4[3], rep, msg);
            t_gemm_data_free(&d);
        }
        gk_cuda_destroy(c);
    }
    unlink(path);
}

/* ---- checks before queueing: operands and a broken context (docs/cuda.md, "Errors") ---------
 * Each rejected call must name the argument, leave C bit-identical and leave the context usable
 * (a valid call right after it must give the right result). */

/* Small exact problems: integer-valued operands, so C = A B holds bit for bit in float. */
static void fill_ints(float *x, int64_t len, int mod) {
    for (int64_t i = 0; i < len; i++)
        x[i] = (float)(i % mod - mod / 2);
}

/* 0 if column-major c (m x n, ldc) is exactly op(A) op(B) of the column-major stored a and b. */
static int exact_product(int64_t m, int64_t n, int64_t k, int ta, const float *a, int64_t lda,
                         int tb, const float *b, int64_t ldb, const float *c, int64_t ldc,
                         char *msg, size_t len) {
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double s = 0;
            for (int64_t p = 0; p < k; p++)
                s += (double)(ta ? a[p + i * lda] : a[i + p * lda]) *
                     (tb ? b[j + p * ldb] : b[p + j * ldb]);
            if (c[i + j * ldc] != (float)s) {
                snprintf(msg, len, "C(%lld,%lld) = %g, want %g", (long long)i, (long long)j,
                         (double)c[i + j * ldc], s);
                return 1;
            }
        }
    return 0;
}

/* The shared context still computes correctly (it was not poisoned by what went before). */
static int context_works(char *msg, size_t len) {
    return one(USE_DEFAULT,
               simple_case(GK_COL_MAJOR, GK_NO_TRANS, GK_TRANS, 19, 23, 17, 1.0f, 0.5f), 0.0, 0,
               msg, len);
}

enum { PM = 8, PN = 6, PK = 5 }; /* the small problem: column-major NN, lda = PM, ldb = PK */

/* Device copies of the small problem's A and B and a C of known contents. */
struct small_dev {
    float *a, *b, *c;
    float ha[PM * PK], hb[PK * PN], hc[PM * PN];
};
static int small_dev_init(small_dev *s) {
    fill_ints(s->ha, PM * PK, 7), fill_ints(s->hb, PK * PN, 5);
    for (int i = 0; i < PM * PN; i++)
        s->hc[i] = 1000.0f + (float)i;
    s->a = s->b = s->c = NULL;
    return cudaMalloc(&s->a, sizeof s->ha) || cudaMalloc(&s->b, sizeof s->hb) ||
           cudaMalloc(&s->c, sizeof s->hc) ||
           cudaMemcpy(s->a, s->ha, sizeof s->ha, cudaMemcpyHostToDevice) ||
           cudaMemcpy(s->b, s->hb, sizeof s->hb, cudaMemcpyHostToDevice) ||
           cudaMemcpy(s->c, s->hc, sizeof s->hc, cudaMemcpyHostToDevice) || cudaDeviceSynchronize();
}
/* 1 if the device C still holds what small_dev_init put there. */
static int small_dev_c_untouched(const small_dev *s) {
    float back[PM * PN];
    return cudaDeviceSynchronize() == cudaSuccess &&
           cudaMemcpy(back, s->c, sizeof back, cudaMemcpyDeviceToHost) == cudaSuccess &&
           !memcmp(back, s->hc, sizeof back);
}
static void small_dev_free(small_dev *s) {
    cudaFree(s->a), cudaFree(s->b), cudaFree(s->c);
}

/* Host memory as A, B or C, in both layouts and through both entry points: GK_ERR_INVALID_POINTER
 * naming the argument as the caller passed it. Where the device reads pageable memory (HMM, ATS)
 * the same calls are legal and must compute. A and B are not read when k == 0, so host pointers
 * there are accepted. */
static void host_pointers(void) {
    NEED_DEVICE();
    int pageable = 0;
    cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, 0);
    small_dev s;
    T_REQUIRE(!small_dev_init(&s), "device setup failed");
    float *h = (float *)calloc(64 * 64, sizeof(float));
    T_REQUIRE(h != NULL, "out of host memory");
    const int kid = 0; /* for gk_cuda_sgemm_kernel: step 01 runs on every device */
    static const struct {
        const char *name;
        gk_layout layout;
        int kernel_entry; /* 1: gk_cuda_sgemm_kernel */
    } cases[] = {{"a", GK_COL_MAJOR, 0}, {"b", GK_COL_MAJOR, 0}, {"c", GK_COL_MAJOR, 0},
                 {"a", GK_ROW_MAJOR, 0}, {"b", GK_ROW_MAJOR, 1}, {"c", GK_ROW_MAJOR, 1}};
    char msg[400], want[120];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *name = cases[i].name,
                   *who = cases[i].kernel_entry ? "gk_cuda_sgemm_kernel" : "gk_cuda_sgemm";
        const float *a = name[0] == 'a' ? h : s.a, *b = name[0] == 'b' ? h : s.b;
        float *c = name[0] == 'c' ? h : s.c;
        const int row = cases[i].layout == GK_ROW_MAJOR;
        /* row-major: A is PM x PK (lda = PK), B PK x PN (ldb = PN), C PM x PN (ldc = PN) */
        const int64_t lda = row ? PK : PM, ldb = row ? PN : PK, ldc = row ? PN : PM;
        const gk_status st =
            cases[i].kernel_entry
                ? gk_cuda_sgemm_kernel(g_ctx, kid, cases[i].layout, GK_NO_TRANS, GK_NO_TRANS, PM,
                                       PN, PK, 1.0f, a, lda, b, ldb, 0.0f, c, ldc)
                : gk_cuda_sgemm(g_ctx, cases[i].layout, GK_NO_TRANS, GK_NO_TRANS, PM, PN, PK, 1.0f,
                                a, lda, b, ldb, 0.0f, c, ldc);
        if (pageable) {
            T_CHECK(st == GK_SUCCESS && cudaDeviceSynchronize() == cudaSuccess,
                    "host %s with pageable memory access: %s", name, gk_last_error());
        } else {
            snprintf(want, sizeof want, "%s: %s is a host pointer (not device memory)", who, name);
            T_CHECK(st == GK_ERR_INVALID_POINTER && strstr(gk_last_error(), want),
                    "host %s (%s): status %s, message '%s'", name, row ? "row-major" : "col-major",
                    gk_status_string(st), gk_last_error());
            if (name[0] != 'c') T_CHECK(small_dev_c_untouched(&s), "C changed (host %s)", name);
        }
        T_CHECK(!context_works(msg, sizeof msg), "after host %s: %s", name, msg);
    }
    /* k == 0: C = beta C, A and B never read */
    T_CHECK(gk_cuda_sgemm(g_ctx, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, PM, PN, 0, 1.0f, h, PM, h,
                          1, 1.0f, s.c, PM) == GK_SUCCESS &&
                gk_cuda_sgemm(g_ctx, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, PM, PN, 0, 1.0f, h, PM,
                              h, 1, 2.0f, s.c, PM) == GK_SUCCESS,
            "k = 0 with host A and B: %s", gk_last_error());
    T_CHECK(cudaDeviceSynchronize() == cudaSuccess, "k = 0 run failed");
    free(h);
    small_dev_free(&s);
}

/* Memory of device 1 under a context on device 0: refused while peer access is off, accepted and
 * computed once it is enabled (where the two devices can be peers). */
static void other_device_memory(void) {
    NEED_DEVICE();
    int count = 0;
    cudaGetDeviceCount(&count);
    if (count < 2) T_SKIP("needs two devices, this machine has %d", count);
    small_dev s;
    T_REQUIRE(!small_dev_init(&s), "device setup failed");
    float *b1 = NULL;
    T_REQUIRE(cudaSetDevice(1) == cudaSuccess && cudaMalloc(&b1, sizeof s.hb) == cudaSuccess &&
                  cudaMemcpy(b1, s.hb, sizeof s.hb, cudaMemcpyHostToDevice) == cudaSuccess &&
                  cudaDeviceSynchronize() == cudaSuccess && cudaSetDevice(0) == cudaSuccess,
              "setup on device 1 failed");
    char msg[400];
    gk_status st = gk_cuda_sgemm(g_ctx, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, PM, PN, PK, 1.0f,
                                 s.a, PM, b1, PK, 0.0f, s.c, PM);
    T_CHECK(st == GK_ERR_INVALID_POINTER &&
                strstr(gk_last_error(),
                       "gk_cuda_sgemm: b is memory of device 1, the context is on device 0"),
            "device 1's B: status %s, message '%s'", gk_status_string(st), gk_last_error());
    T_CHECK(small_dev_c_untouched(&s), "C changed");
    T_CHECK(!context_works(msg, sizeof msg), "after device 1's B: %s", msg);
    int peer = 0;
    cudaDeviceCanAccessPeer(&peer, 0, 1);
    if (peer && cudaDeviceEnablePeerAccess(1, 0) == cudaSuccess) {
        float hc[PM * PN];
        st = gk_cuda_sgemm(g_ctx, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, PM, PN, PK, 1.0f, s.a, PM,
                           b1, PK, 0.0f, s.c, PM);
        T_CHECK(st == GK_SUCCESS, "with peer access: %s", gk_last_error());
        T_CHECK(cudaDeviceSynchronize() == cudaSuccess &&
                    cudaMemcpy(hc, s.c, sizeof hc, cudaMemcpyDeviceToHost) == cudaSuccess &&
                    !exact_product(PM, PN, PK, 0, s.ha, PM, 0, s.hb, PK, hc, PM, msg, sizeof msg),
                "with peer access: %s", msg);
        cudaDeviceDisablePeerAccess(1);
    }
    cudaSetDevice(1), cudaFree(b1), cudaSetDevice(0);
    small_dev_free(&s);
}

/* The driver's idea of where the allocation holding p ends, 0 if it has none. */
static uintptr_t allocation_end(const void *p) {
    typedef CUresult(CUDAAPI * query_fn)(unsigned, CUpointer_attribute *, void **, CUdeviceptr);
    void *fn = NULL;
    cudaDriverEntryPointQueryResult found;
    if (cudaGetDriverEntryPointByVersion("cuPointerGetAttributes", &fn, 12000, cudaEnableDefault,
                                         &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess)
        return 0;
    CUdeviceptr start = 0;
    size_t size = 0;
    CUpointer_attribute attrs[2] = {CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                    CU_POINTER_ATTRIBUTE_RANGE_SIZE};
    void *data[2] = {&start, &size};
    if (((query_fn)fn)(2, attrs, data, (CUdeviceptr)(uintptr_t)p) != CUDA_SUCCESS || start == 0)
        return 0;
    return (uintptr_t)(start + size);
}

/* Allocations too short for what the call reads or writes are refused with both extents in the
 * message; an operand that ends exactly at its allocation's end is accepted and computed. */
static void too_small_buffers(void) {
    NEED_DEVICE();
    enum { N = 64, BIG = 4096 };
    float *da = NULL, *db = NULL, *small = NULL, *big = NULL;
    T_REQUIRE(cudaMalloc(&da, N * N * 4) == cudaSuccess &&
                  cudaMalloc(&db, N * N * 4) == cudaSuccess &&
                  cudaMalloc(&small, 4096) == cudaSuccess &&
                  cudaMalloc(&big, BIG * 4) == cudaSuccess && cudaMemset(da, 0, N * N * 4) == 0 &&
                  cudaMemset(db, 0, N * N * 4) == 0 && cudaDeviceSynchronize() == cudaSuccess,
              "cudaMalloc failed");
    const uintptr_t small_end = allocation_end(small), a_end = allocation_end(da);
    if (small_end == 0 || a_end == 0) T_SKIP("the driver gives no allocation ranges");
    char msg[400], want[200];
    const long long c_left = (long long)(small_end - (uintptr_t)small);
    if (c_left >= N * N * 4)
        T_SKIP("the driver reports %lld bytes for a 4096-byte cudaMalloc", c_left);
    /* C: 64 x 64 written into 4096 bytes */
    gk_status st = gk_cuda_sgemm(g_ctx, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, N, N, N, 1.0f, da,
                                 N, db, N, 0.0f, small, N);
    snprintf(want, sizeof want,
             "gk_cuda_sgemm: c: the allocation holding it ends %lld bytes after c, the call "
             "writes up to %d bytes",
             c_left, N * N * 4);
    T_CHECK(st == GK_ERR_INVALID_POINTER && !strcmp(gk_last_error(), want),
            "small C: status %s, message '%s', want '%s'", gk_status_string(st), gk_last_error(),
            want);
    T_CHECK(!context_works(msg, sizeof msg), "after small C: %s", msg);
    /* A: a pointer 100 floats before its allocation's end */
    const float *a_tail = (const float *)(a_end - 400);
    st = gk_cuda_sgemm(g_ctx, GK_ROW_MAJOR, GK_NO_TRANS, GK_NO_TRANS, N, N, N, 1.0f, a_tail, N, db,
                       N, 0.0f, big, N);
    snprintf(want, sizeof want,
             "gk_cuda_sgemm: a: the allocation holding it ends 400 bytes after a, the call reads "
             "up to %d bytes",
             N * N * 4);
    T_CHECK(st == GK_ERR_INVALID_POINTER && !strcmp(gk_last_error(), want),
            "short A: status %s, message '%s', want '%s'", gk_status_string(st), gk_last_error(),
            want);
    T_CHECK(!context_works(msg, sizeof msg), "after short A: %s", msg);
    /* B transposed, ldb > n: it spans (k - 1) ldb + n floats. Placed to end exactly where its
     * allocation ends it is accepted; one float later it is refused. */
    enum { M2 = 40, N2 = 24, K2 = 16, LDB = 30, SPAN = (K2 - 1) * LDB + N2 };
    const uintptr_t big_end = allocation_end(big);
    float *hb = (float *)malloc(SPAN * 4), *ha = (float *)malloc(M2 * K2 * 4),
          *hc = (float *)malloc(M2 * N2 * 4);
    T_REQUIRE(hb && ha && hc, "out of host memory");
    fill_ints(ha, M2 * K2, 7), fill_ints(hb, SPAN, 5);
    float *fit = (float *)(big_end - SPAN * 4), *c2 = big; /* C at the allocation's start */
    T_REQUIRE(big_end != 0 && big_end - (uintptr_t)big >= (uintptr_t)(SPAN + M2 * N2) * 4,
              "allocation range");
    cudaMemcpy(da, ha, M2 * K2 * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(fit, hb, SPAN * 4, cudaMemcpyHostToDevice);
    st = gk_cuda_sgemm(g_ctx, GK_COL_MAJOR, GK_NO_TRANS, GK_TRANS, M2, N2, K2, 1.0f, da, M2, fit,
                       LDB, 0.0f, c2, M2);
    T_CHECK(st == GK_SUCCESS, "B ending at its allocation's end: %s", gk_last_error());
    T_CHECK(cudaDeviceSynchronize() == cudaSuccess &&
                cudaMemcpy(hc, c2, M2 * N2 * 4, cudaMemcpyDeviceToHost) == cudaSuccess &&
                !exact_product(M2, N2, K2, 0, ha, M2, 1, hb, LDB, hc, M2, msg, sizeof msg),
            "B ending at its allocation's end: %s", msg);
    st = gk_cuda_sgemm(g_ctx, GK_COL_MAJOR, GK_NO_TRANS, GK_TRANS, M2, N2, K2, 1.0f, da, M2,
                       fit + 1, LDB, 0.0f, c2, M2);
    snprintf(want, sizeof want,
             "gk_cuda_sgemm: b: the allocation holding it ends %d bytes after b, the call reads "
             "up to %d bytes",
             SPAN * 4 - 4, SPAN * 4);
    T_CHECK(st == GK_ERR_INVALID_POINTER && !strcmp(gk_last_error(), want),
            "B one float short: status %s, message '%s', want '%s'", gk_status_string(st),
            gk_last_error(), want);
    T_CHECK(!context_works(msg, sizeof msg), "after short B: %s", msg);
    free(ha), free(hb), free(hc);
    cudaFree(da), cudaFree(db), cudaFree(small), cudaFree(big);
}

/* Memory the device reaches though it is not device memory: managed memory, page-locked host
 * memory mapped for the device (cudaHostAllocMapped, cudaHostRegisterMapped). Accepted and
 * computed. Host memory registered without the mapped flag is reported as the runtime describes
 * it: accepted if the device reaches it at the same address, else refused naming the argument. */
static void managed_and_mapped_memory(void) {
    NEED_DEVICE();
    static const char *kinds[] = {"managed", "cudaHostAllocMapped", "cudaHostRegisterMapped",
                                  "cudaHostRegister (default flags)"};
    const size_t bytes[3] = {PM * PK * 4, PK * PN * 4, PM * PN * 4};
    char msg[400];
    for (int kind = 0; kind < 4; kind++) {
        float *x[3] = {NULL, NULL, NULL};
        int ok = 1;
        for (int i = 0; i < 3 && ok; i++) {
            if (kind == 0)
                ok = cudaMallocManaged(&x[i], bytes[i], cudaMemAttachGlobal) == cudaSuccess;
            else if (kind == 1)
                ok = cudaHostAlloc(&x[i], bytes[i], cudaHostAllocMapped) == cudaSuccess;
            else
                ok = (x[i] = (float *)aligned_alloc(4096, 4096)) != NULL &&
                     cudaHostRegister(x[i], 4096,
                                      kind == 2 ? cudaHostRegisterMapped
                                                : cudaHostRegisterDefault) == cudaSuccess;
        }
        T_CHECK(ok, "%s: allocation failed", kinds[kind]);
        if (ok) {
            fill_ints(x[0], PM * PK, 7), fill_ints(x[1], PK * PN, 5);
            for (int i = 0; i < PM * PN; i++)
                x[2][i] = NAN;
            const gk_status st = gk_cuda_sgemm(g_ctx, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, PM,
                                               PN, PK, 1.0f, x[0], PM, x[1], PK, 0.0f, x[2], PM);
            if (kind == 3 && st == GK_ERR_INVALID_POINTER) {
                printf("note %s: refused: %s\n", kinds[kind], gk_last_error());
                T_CHECK(strstr(gk_last_error(), "gk_cuda_sgemm: a "), "%s: message '%s'",
                        kinds[kind], gk_last_error());
            } else {
                T_CHECK(st == GK_SUCCESS, "%s: %s", kinds[kind], gk_last_error());
                T_CHECK(cudaDeviceSynchronize() == cudaSuccess &&
                            !exact_product(PM, PN, PK, 0, x[0], PM, 0, x[1], PK, x[2], PM, msg,
                                           sizeof msg),
                        "%s: %s", kinds[kind], msg);
                if (kind == 3) printf("note %s: accepted\n", kinds[kind]);
            }
        }
        for (int i = 0; i < 3; i++) {
            if (x[i] == NULL) continue;
            if (kind == 0)
                cudaFree(x[i]);
            else if (kind == 1)
                cudaFreeHost(x[i]);
            else
                cudaHostUnregister(x[i]), free(x[i]);
        }
        (void)cudaGetLastError();
        T_CHECK(!context_works(msg, sizeof msg), "after %s: %s", kinds[kind], msg);
    }
}

/* The checks must not break capture into a CUDA graph: the stream query they make otherwise would
 * end a capture with an error. */
static void graph_capture(void) {
    NEED_DEVICE();
#ifdef GK_CUDA_EMULATED
    T_SKIP("the emulated runtime has no graphs");
#else
    small_dev s;
    T_REQUIRE(!small_dev_init(&s), "device setup failed");
    cudaStream_t stream;
    T_REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess,
              "cudaStreamCreate failed");
    gk_cuda_ctx *ctx = NULL;
    T_REQUIRE(gk_cuda_create(&ctx, 0, stream) == GK_SUCCESS, "create: %s", gk_last_error());
    /* a first call outside the capture sizes the workspace */
    gk_status st = gk_cuda_sgemm(ctx, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, PM, PN, PK, 1.0f, s.a,
                                 PM, s.b, PK, 0.0f, s.c, PM);
    T_CHECK(st == GK_SUCCESS && cudaStreamSynchronize(stream) == cudaSuccess, "warm-up: %s",
            gk_last_error());
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    cudaError_t e = cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
    T_CHECK(e == cudaSuccess, "cudaStreamBeginCapture: %s", cudaGetErrorString(e));
    st = gk_cuda_sgemm(ctx, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, PM, PN, PK, 1.0f, s.a, PM, s.b,
                       PK, 0.0f, s.c, PM);
    T_CHECK(st == GK_SUCCESS, "call under capture: %s", gk_last_error());
    e = cudaStreamEndCapture(stream, &graph);
    T_CHECK(e == cudaSuccess, "cudaStreamEndCapture: %s", cudaGetErrorString(e));
    if (e == cudaSuccess) {
        float hc[PM * PN];
        char msg[200];
        cudaMemset(s.c, 0xff, sizeof hc);
        e = cudaGraphInstantiate(&exec, graph, 0);
        if (e == cudaSuccess) e = cudaGraphLaunch(exec, stream);
        if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
        if (e == cudaSuccess) e = cudaMemcpy(hc, s.c, sizeof hc, cudaMemcpyDeviceToHost);
        T_CHECK(e == cudaSuccess, "graph launch: %s", cudaGetErrorString(e));
        T_CHECK(e != cudaSuccess ||
                    !exact_product(PM, PN, PK, 0, s.ha, PM, 0, s.hb, PK, hc, PM, msg, sizeof msg),
                "graph result: %s", msg);
    }
    (void)cudaGetLastError();
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
    gk_cuda_destroy(ctx);
    cudaStreamDestroy(stream);
    small_dev_free(&s);
#endif
}

/* GEMMKIT_CUDA_CHECKS=0 at gk_cuda_create turns the checks off for that context: valid calls
 * still compute; in the emulation, whose device reads host memory, a host operand then runs. */
static void checks_opt_out(void) {
    NEED_DEVICE();
    gk_cuda_ctx *ctx = NULL;
    setenv("GEMMKIT_CUDA_CHECKS", "0", 1);
    const gk_status made = gk_cuda_create(&ctx, 0, NULL);
    unsetenv("GEMMKIT_CUDA_CHECKS");
    T_REQUIRE(made == GK_SUCCESS, "create: %s", gk_last_error());
    small_dev s;
    T_REQUIRE(!small_dev_init(&s), "device setup failed");
    char msg[200];
    float hc[PM * PN];
    T_CHECK(gk_cuda_sgemm(ctx, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, PM, PN, PK, 1.0f, s.a, PM,
                          s.b, PK, 0.0f, s.c, PM) == GK_SUCCESS &&
                cudaDeviceSynchronize() == cudaSuccess &&
                cudaMemcpy(hc, s.c, sizeof hc, cudaMemcpyDeviceToHost) == cudaSuccess &&
                !exact_product(PM, PN, PK, 0, s.ha, PM, 0, s.hb, PK, hc, PM, msg, sizeof msg),
            "unchecked valid call: %s %s", gk_last_error(), msg);
#ifdef GK_CUDA_EMULATED
    float host_b[PK * PN];
    memcpy(host_b, s.hb, sizeof host_b);
    T_CHECK(gk_cuda_sgemm(ctx, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, PM, PN, PK, 1.0f, s.a, PM,
                          host_b, PK, 0.0f, s.c, PM) == GK_SUCCESS,
            "unchecked host B refused: %s", gk_last_error());
    /* a sticky error met after the (skipped) checks, here by the workspace allocation of a
     * transposed call, is still named as one */
    gk_emu_sticky = cudaErrorIllegalAddress;
    const gk_status st = gk_cuda_sgemm(ctx, GK_COL_MAJOR, GK_TRANS, GK_TRANS, PM, PN, PK, 1.0f, s.a,
                                       PK, s.b, PN, 0.0f, s.c, PM);
    gk_emu_sticky = cudaSuccess;
    T_CHECK(st == GK_ERR_CUDA && strstr(gk_last_error(), "gk_cuda_sgemm: allocating the workspace "
                                                         "failed: the CUDA context is in an error "
                                                         "state (sticky error from earlier work: "),
            "sticky error at the workspace: status %s, message '%s'", gk_status_string(st),
            gk_last_error());
#endif
    gk_cuda_destroy(ctx);
    small_dev_free(&s);
}

/* ---- a sticky error from earlier work -------------------------------------------------------
 * A kernel fault leaves the process's CUDA context unusable, so each scenario runs in a child
 * forked at the start of main, before this process touches CUDA; the child reports through a
 * pipe: a line "ok", "skip <why>" or "FAIL <why>", then "note ..." lines.
 *   - seen: the application synchronises and sees the fault; every later gemmkit call must say
 *     that the context is already in an error state and that it queued nothing.
 *   - unseen: the fault happens on another stream and nobody synchronises; calls keep coming
 *     until one fails, and that failure must name the sticky error as one of earlier work
 *     (before the driver knows of the fault a call succeeds: its work will never run). */

#ifndef GK_CUDA_EMULATED
__global__ void store_one(float *p) {
    *p = 1.0f;
}
#endif

enum { STICKY_SEEN, STICKY_UNSEEN, STICKY_MODES };
static const char *const sticky_mode_name[STICKY_MODES] = {"seen", "unseen"};
static char g_sticky[STICKY_MODES][2048]; /* each child's report */

/* compute-sanitizer (the --small runs on a GPU) would report the deliberate fault */
static int sticky_wanted(void) {
#ifdef GK_CUDA_EMULATED
    return 1;
#else
    return !g_small;
#endif
}

static void sticky_child(int fd, int mode) {
    char out[sizeof g_sticky[0]];
    int n = 0;
#define REPORT(...) (n += snprintf(out + n, sizeof out - (size_t)n, __VA_ARGS__))
    gk_cuda_ctx *ctx = NULL;
    float *d = NULL;
    cudaStream_t other = NULL;
    char msg[600] = "";
    if (!gk_cuda_available()) {
        REPORT("skip no CUDA device\n");
    } else if (gk_cuda_create(&ctx, 0, NULL) != GK_SUCCESS ||
               cudaMalloc(&d, 3 * 64 * 64 * sizeof(float)) != cudaSuccess ||
               cudaMemset(d, 0, 3 * 64 * 64 * sizeof(float)) != cudaSuccess ||
               cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking) != cudaSuccess) {
        REPORT("FAIL setup: %s\n", gk_last_error());
    } else if (gk_cuda_sgemm(ctx, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 64, 64, 64, 1.0f, d, 64,
                             d + 4096, 64, 0.0f, d + 8192, 64) != GK_SUCCESS ||
               cudaDeviceSynchronize() != cudaSuccess) {
        REPORT("FAIL a valid call before the fault: %s\n", gk_last_error());
    } else if (mode == STICKY_SEEN) {
#ifdef GK_CUDA_EMULATED
        gk_emu_sticky = cudaErrorIllegalAddress;
#else
        store_one<<<1, 1>>>((float *)(uintptr_t)8); /* the null page: an illegal address */
#endif
        const cudaError_t fault = cudaDeviceSynchronize();
        /* what the runtime answers now, for docs/cuda.md */
        cudaStreamCaptureStatus cap;
        cudaPointerAttributes at;
        const cudaError_t e_cap = cudaStreamIsCapturing(other, &cap);
        const cudaError_t e_attr = cudaPointerGetAttributes(&at, d);
        const cudaError_t e_last1 = cudaGetLastError(), e_last2 = cudaGetLastError();
        const gk_status st = gk_cuda_sgemm(ctx, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 64, 64, 64,
                                           1.0f, d, 64, d + 4096, 64, 0.0f, d + 8192, 64);
        snprintf(msg, sizeof msg, "%s", gk_last_error());
        float host[64];
        const gk_status st2 = gk_cuda_sgemm_kernel(ctx, 0, GK_ROW_MAJOR, GK_NO_TRANS, GK_NO_TRANS,
                                                   8, 8, 8, 1.0f, host, 8, d, 8, 0.0f, d + 8192, 8);
        char want[300];
        snprintf(want, sizeof want,
                 "the CUDA context is already in an error state (sticky error from earlier work: "
                 "%s",
                 cudaGetErrorString(fault));
        if (fault == cudaSuccess)
            REPORT("FAIL the faulting kernel did not fail\n");
        else if (st != GK_ERR_CUDA || !strstr(msg, "gk_cuda_sgemm: ") || !strstr(msg, want) ||
                 !strstr(msg, "no work was queued"))
            REPORT("FAIL gk_cuda_sgemm after the fault: status %s, message '%s'\n",
                   gk_status_string(st), msg);
        else if (st2 != GK_ERR_CUDA || !strstr(gk_last_error(), "gk_cuda_sgemm_kernel: ") ||
                 !strstr(gk_last_error(), want))
            REPORT("FAIL gk_cuda_sgemm_kernel (host A) after the fault: status %s, message '%s'\n",
                   gk_status_string(st2), gk_last_error());
        else
            REPORT("ok\n");
        REPORT("note fault: %s; then cudaStreamIsCapturing (another stream) -> %s, "
               "cudaPointerGetAttributes -> %s, cudaGetLastError twice -> %s, %s\n",
               cudaGetErrorName(fault), cudaGetErrorName(e_cap), cudaGetErrorName(e_attr),
               cudaGetErrorName(e_last1), cudaGetErrorName(e_last2));
    } else {
#ifdef GK_CUDA_EMULATED
        gk_emu_sticky = cudaErrorIllegalAddress;
#else
        store_one<<<1, 1, 0, other>>>((float *)(uintptr_t)8);
#endif
        gk_status st = GK_SUCCESS;
        long calls = 0;
        const double t0 = gkh_now();
        while (st == GK_SUCCESS && gkh_now() - t0 < 10.0) {
            st = gk_cuda_sgemm(ctx, GK_COL_MAJOR, GK_NO_TRANS, GK_TRANS, 64, 64, 64, 1.0f, d, 64,
                               d + 4096, 64, 0.0f, d + 8192, 64);
            calls++;
        }
        snprintf(msg, sizeof msg, "%s", gk_last_error());
        if (st == GK_SUCCESS)
            REPORT("FAIL %ld calls in 10 s after the fault all succeeded\n", calls);
        else if (st != GK_ERR_CUDA || !strstr(msg, "gk_cuda_sgemm: ") ||
                 !strstr(msg, "error state (sticky error from earlier work: "))
            REPORT("FAIL call %ld after the fault: status %s, message '%s'\n", calls,
                   gk_status_string(st), msg);
        else
            REPORT("ok\n");
        REPORT("note call %ld after the fault (%.0f us) failed\n", calls, (gkh_now() - t0) * 1e6);
    }
    if (msg[0]) REPORT("note message: %s\n", msg);
#undef REPORT
    for (ssize_t off = 0, w; off < n; off += w)
        if ((w = write(fd, out + off, (size_t)(n - off))) <= 0) break;
}

/* Fork the child for `mode` and collect its report (it must finish within a minute). */
static void run_sticky_child(int mode) {
    char *rep = g_sticky[mode];
    const size_t cap = sizeof g_sticky[mode];
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(rep, cap, "FAIL pipe: %s\n", strerror(errno));
        return;
    }
    fflush(stdout), fflush(stderr);
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        sticky_child(fds[1], mode);
        _exit(0);
    }
    close(fds[1]);
    if (pid < 0) {
        snprintf(rep, cap, "FAIL fork: %s\n", strerror(errno));
        close(fds[0]);
        return;
    }
    size_t got = 0;
    struct pollfd pfd = {fds[0], POLLIN, 0};
    const double deadline = gkh_now() + 60.0;
    for (;;) {
        const double left = deadline - gkh_now();
        if (left <= 0 || poll(&pfd, 1, (int)(left * 1000) + 1) <= 0) {
            kill(pid, SIGKILL);
            snprintf(rep, cap, "FAIL the child did not finish within 60 s\n");
            got = 0;
            break;
        }
        const ssize_t r = read(fds[0], rep + got, cap - 1 - got);
        if (r <= 0) break;
        got += (size_t)r;
    }
    if (got) rep[got] = '\0';
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (rep[0] == '\0')
        snprintf(rep, cap, "FAIL the child reported nothing (wait status %d)\n", status);
}

static void sticky_error(void) {
    if (!sticky_wanted()) T_SKIP("--small (compute-sanitizer) runs leave out the deliberate fault");
    for (int mode = 0; mode < STICKY_MODES; mode++) {
        const char *rep = g_sticky[mode];
        for (const char *line = strstr(rep, "\nnote "); line; line = strstr(line + 1, "\nnote "))
            printf("note %s: %.*s\n", sticky_mode_name[mode], (int)strcspn(line + 6, "\n"),
                   line + 6);
        if (!strncmp(rep, "skip ", 5)) T_SKIP("%.*s", (int)strcspn(rep + 5, "\n"), rep + 5);
        T_CHECK(!strncmp(rep, "ok\n", 3), "%s: %.*s", sticky_mode_name[mode],
                (int)strcspn(rep, "\n"), rep);
    }
}

/* ---- --call-cost: what the checks cost per call (docs/cuda.md, "Errors") --------------------
 * Host time of each query the checks make, then gk_cuda_sgemm at 64^3 and 4096^3 on two contexts,
 * one with the checks and one created with GEMMKIT_CUDA_CHECKS=0, alternating batches: the host
 * time per call (until the call returns) and the wall time per call (until the GPU finishes the
 * batch). Medians over the batches. Prints a table; no test lines. */

static int call_cost(void) {
    if (!gk_cuda_available()) {
        printf("no CUDA device\n");
        return 1;
    }
    gk_cuda_ctx *ctx[2] = {NULL, NULL}; /* [0]: checks on, [1]: off */
    if (gk_cuda_create(&ctx[0], 0, NULL) != GK_SUCCESS) return printf("%s\n", gk_last_error()), 1;
    setenv("GEMMKIT_CUDA_CHECKS", "0", 1);
    gk_status st = gk_cuda_create(&ctx[1], 0, NULL);
    unsetenv("GEMMKIT_CUDA_CHECKS");
    if (st != GK_SUCCESS) return printf("%s\n", gk_last_error()), 1;
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    printf("device: %s\n", prop.name);

    /* the queries, one at a time */
    typedef CUresult(CUDAAPI * query_fn)(unsigned, CUpointer_attribute *, void **, CUdeviceptr);
    void *fn = NULL;
    cudaDriverEntryPointQueryResult found;
    cudaGetDriverEntryPointByVersion("cuPointerGetAttributes", &fn, 12000, cudaEnableDefault,
                                     &found);
    /* what the runtime and the driver say about each kind of memory */
    {
        enum { BYTES = 4096 };
        void *p[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
        static const char *kind[6] = {"cudaMalloc 4096",          "cudaMalloc 1000",
                                      "cudaMallocAsync 4096",     "cudaMallocManaged 4096",
                                      "cudaHostAllocMapped 4096", "cudaHostRegister 4096"};
        cudaMalloc(&p[0], BYTES), cudaMalloc(&p[1], 1000);
        cudaMallocAsync(&p[2], BYTES, 0), cudaStreamSynchronize(0);
        cudaMallocManaged(&p[3], BYTES, cudaMemAttachGlobal);
        cudaHostAlloc(&p[4], BYTES, cudaHostAllocMapped);
        p[5] = aligned_alloc(4096, BYTES);
        cudaHostRegister(p[5], BYTES, cudaHostRegisterDefault);
        for (int i = 0; i < 6; i++) {
            cudaPointerAttributes at;
            CUdeviceptr start = 0;
            size_t size = 0;
            CUpointer_attribute attrs[2] = {CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                            CU_POINTER_ATTRIBUTE_RANGE_SIZE};
            void *data[2] = {&start, &size};
            const cudaError_t e = cudaPointerGetAttributes(&at, p[i]);
            const CUresult r =
                fn ? ((query_fn)fn)(2, attrs, data, (CUdeviceptr)(uintptr_t)p[i]) : (CUresult)-1;
            printf("memory %-26s attributes %s type %d device %d devicePointer %s; range %d: "
                   "start %+lld, size %zu\n",
                   kind[i], cudaGetErrorName(e), (int)at.type, at.device,
                   at.devicePointer == p[i] ? "= p"
                   : at.devicePointer       ? "!= p"
                                            : "NULL",
                   (int)r, (long long)((uintptr_t)start - (uintptr_t)p[i]), size);
        }
        cudaFree(p[0]), cudaFree(p[1]), cudaFreeAsync(p[2], 0), cudaFree(p[3]);
        cudaFreeHost(p[4]), cudaHostUnregister(p[5]), free(p[5]);
        cudaDeviceSynchronize();
    }
    float *dev = NULL, host[16];
    cudaMalloc(&dev, 4096);
    enum { Q = 20000, QREPS = 5 };
    static const char *qname[] = {"cudaStreamIsCapturing", "cudaStreamQuery (idle stream)",
                                  "cudaPointerGetAttributes (device memory)",
                                  "cudaPointerGetAttributes (host memory)",
                                  "cuPointerGetAttributes (range start, size)"};
    for (int q = 0; q < 5; q++) {
        double t[QREPS];
        for (int r = 0; r < QREPS; r++) {
            const double t0 = gkh_now();
            for (int i = 0; i < Q; i++) {
                cudaStreamCaptureStatus cap;
                cudaPointerAttributes at;
                CUdeviceptr start;
                size_t size;
                CUpointer_attribute attrs[2] = {CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                                CU_POINTER_ATTRIBUTE_RANGE_SIZE};
                void *data[2] = {&start, &size};
                switch (q) {
                case 0:
                    cudaStreamIsCapturing(NULL, &cap);
                    break;
                case 1:
                    cudaStreamQuery(NULL);
                    break;
                case 2:
                    cudaPointerGetAttributes(&at, dev);
                    break;
                case 3:
                    cudaPointerGetAttributes(&at, host);
                    break;
                case 4:
                    if (fn) ((query_fn)fn)(2, attrs, data, (CUdeviceptr)(uintptr_t)dev);
                    break;
                }
            }
            t[r] = (gkh_now() - t0) / (double)Q * 1e9;
        }
        printf("query %-44s %8.1f ns\n", qname[q], gkh_median(t, QREPS));
    }
    cudaFree(dev);

    printf("%-6s %-8s %14s %14s\n", "size", "checks", "host us/call", "wall us/call");
    static const int sizes[2] = {64, 4096};
    for (int si = 0; si < 2; si++) {
        const int64_t n = sizes[si];
        const int batch = n == 64 ? 200 : 10, reps = n == 64 ? 41 : 11;
        float *a = NULL, *b = NULL, *c = NULL;
        const size_t bytes = (size_t)(n * n) * sizeof(float);
        if (cudaMalloc(&a, bytes) || cudaMalloc(&b, bytes) || cudaMalloc(&c, bytes)) return 1;
        cudaMemset(a, 0, bytes), cudaMemset(b, 0, bytes), cudaMemset(c, 0, bytes);
        double host_t[2][64], wall_t[2][64];
        for (int r = -2; r < reps; r++) /* two warm-up rounds */
            for (int o = 0; o < 2; o++) {
                const int which = (r + o) & 1; /* alternate which context goes first */
                cudaDeviceSynchronize();
                const double t0 = gkh_now();
                for (int i = 0; i < batch; i++)
                    if (gk_cuda_sgemm(ctx[which], GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, n, n, n,
                                      1.0f, a, n, b, n, 0.0f, c, n) != GK_SUCCESS)
                        return printf("%s\n", gk_last_error()), 1;
                const double t1 = gkh_now();
                cudaDeviceSynchronize();
                const double t2 = gkh_now();
                if (r >= 0) {
                    host_t[which][r] = (t1 - t0) / batch * 1e6;
                    wall_t[which][r] = (t2 - t0) / batch * 1e6;
                }
            }
        for (int w = 0; w < 2; w++)
            printf("%-6lld %-8s %14.2f %14.2f\n", (long long)n, w ? "off" : "on",
                   gkh_median(host_t[w], reps), gkh_median(wall_t[w], reps));
        cudaFree(a), cudaFree(b), cudaFree(c);
    }
    gk_cuda_destroy(ctx[0]), gk_cuda_destroy(ctx[1]);
    return 0;
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
        else if (!strcmp(argv[i], "--call-cost"))
            return call_cost();
        else {
            fprintf(stderr, "usage: %s [--small | --call-cost]\n", argv[0]);
            return 2;
        }
    }
    /* before this process touches CUDA: the child's fault must not reach our context */
    if (sticky_wanted())
        for (int mode = 0; mode < STICKY_MODES; mode++)
            run_sticky_child(mode);
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
    T_RUN(workspace_out_of_memory);
    T_RUN(stream_k_schedule);
    T_RUN(sm90_ladder_steps);
    T_RUN(tune_cache_plans);
    T_RUN(split_k_plans);
    T_RUN(host_pointers);
    T_RUN(other_device_memory);
    T_RUN(too_small_buffers);
    T_RUN(managed_and_mapped_memory);
    T_RUN(graph_capture);
    T_RUN(checks_opt_out);
    T_RUN(sticky_error);
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
