/*
 * test_cuda_batched.cu — GPU tests of gk_cuda_sgemm_strided_batched and gk_cuda_sgemm_batched:
 * random batches of small and odd shapes (both layouts, all transpositions, padded leading
 * dimensions, zero strides, misaligned items, batch 0, 1 and many) checked item by item against
 * the float64 reference with C's gaps untouched (tests/common/batched.h); the shapes the benchmark
 * times (many small items, fewer large ones); a batch larger than one grid's gridDim.y; the
 * argument errors, host memory and an allocation too short for the batch. Without a device every
 * case reports "skip". `--small` runs only small shapes (for compute-sanitizer).
 * GK_TEST_SEED=<n> picks the seed.
 */
#include <cuda_runtime.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gemmkit.h"
extern "C" {
#include "batched.h"
}

static int g_small, g_have_device;
static gk_cuda_ctx *g_ctx;
static uint64_t seed = 20261124;

#define NEED_DEVICE()                                                                              \
    do {                                                                                           \
        if (!g_have_device) T_SKIP("no CUDA device");                                              \
    } while (0)

/* Copy d to the device, run the strided or the pointer-array call, copy C back. Returns the
 * call's status (GK_ERR_CUDA with msg set for a CUDA failure of the test itself). */
static gk_status run_on_device(tb_data *d, int pointer_arrays, char *msg, size_t len) {
    const tb_case *c = &d->cs;
    const int64_t nb = c->batch > 0 ? c->batch : 1;
    float *da = NULL, *db = NULL, *dc = NULL;
    void **dp = NULL;
    gk_status st = GK_ERR_CUDA;
    cudaError_t err;
    if ((err = cudaMalloc(&da, d->a_len * 4)) || (err = cudaMalloc(&db, d->b_len * 4)) ||
        (err = cudaMalloc(&dc, d->c_len * 4)) || (err = cudaMalloc(&dp, 3 * nb * sizeof(void *))) ||
        (err = cudaMemcpy(da, d->a, d->a_len * 4, cudaMemcpyHostToDevice)) ||
        (err = cudaMemcpy(db, d->b, d->b_len * 4, cudaMemcpyHostToDevice)) ||
        (err = cudaMemcpy(dc, d->c, d->c_len * 4, cudaMemcpyHostToDevice))) {
        snprintf(msg, len, "CUDA setup: %s", cudaGetErrorString(err));
        goto out;
    }
    if (!pointer_arrays) {
        st = gk_cuda_sgemm_strided_batched(g_ctx, c->layout, c->ta, c->tb, c->m, c->n, c->k,
                                           c->alpha, da, c->lda, c->sa, db, c->ldb, c->sb, c->beta,
                                           dc, c->ldc, c->sc, c->batch);
    } else {
        void **hp = (void **)malloc(3 * nb * sizeof(void *));
        for (int64_t i = 0; i < c->batch; i++) {
            hp[i] = da + d->perm[i] * c->sa;
            hp[nb + i] = db + d->perm[i] * c->sb;
            hp[2 * nb + i] = dc + i * c->sc;
        }
        err = cudaMemcpy(dp, hp, 3 * nb * sizeof(void *), cudaMemcpyHostToDevice);
        free(hp);
        if (err) {
            snprintf(msg, len, "CUDA setup: %s", cudaGetErrorString(err));
            goto out;
        }
        st =
            gk_cuda_sgemm_batched(g_ctx, c->layout, c->ta, c->tb, c->m, c->n, c->k, c->alpha,
                                  (const float *const *)dp, c->lda, (const float *const *)(dp + nb),
                                  c->ldb, c->beta, (float *const *)(dp + 2 * nb), c->ldc, c->batch);
    }
    if (st != GK_SUCCESS) {
        snprintf(msg, len, "%s", gk_last_error());
        goto out;
    }
    if ((err = cudaMemcpy(d->c, dc, d->c_len * 4, cudaMemcpyDeviceToHost))) {
        snprintf(msg, len, "after the call: %s", cudaGetErrorString(err));
        st = GK_ERR_CUDA;
    }
out:
    cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(dp);
    return st;
}

/* Run one case both ways and verify. */
static void check_case(const tb_case *cs, t_rng *r) {
    for (int ptr = 0; ptr < 2; ptr++) {
        tb_data d;
        char desc[256], msg[512] = "";
        tb_str(cs, desc, sizeof desc);
        if (tb_init(&d, cs, r) != 0) {
            t_note(0, __FILE__, __LINE__, "out of host memory");
            tb_free(&d);
            return;
        }
        if (run_on_device(&d, ptr, msg, sizeof msg) != GK_SUCCESS)
            t_note(0, __FILE__, __LINE__, "%s %s: %s", ptr ? "ptr" : "strided", desc, msg);
        else if (tb_verify(&d, ptr, msg, sizeof msg))
            t_note(0, __FILE__, __LINE__, "%s %s (seed %" PRIu64 "): %s", ptr ? "ptr" : "strided",
                   desc, seed, msg);
        tb_free(&d);
    }
}

static void random_small(void) {
    NEED_DEVICE();
    t_rng r = {seed};
    for (int i = 0; i < (g_small ? 40 : 400); i++) {
        const tb_case cs = tb_random(&r, g_small ? 20 : 140, g_small ? 4 : 24);
        check_case(&cs, &r);
    }
}

/* The benchmark's kinds of batch: many tiny items, many small ones, a few large ones; both
 * layouts with transposed operands (the batched transpose into the workspace). */
static void benchmark_shapes(void) {
    NEED_DEVICE();
    if (g_small) T_SKIP("--small");
    t_rng r = {seed + 1};
    static const int64_t shapes[][2] = {{300, 32}, {200, 64}, {24, 256}, {3, 512}};
    for (const auto &s : shapes)
        for (int t = 0; t < 2; t++) {
            const int64_t e = s[1];
            const tb_case cs = {t ? GK_COL_MAJOR : GK_ROW_MAJOR,
                                t ? GK_TRANS : GK_NO_TRANS,
                                t ? GK_NO_TRANS : GK_TRANS,
                                e,
                                e,
                                e,
                                1.0f,
                                t ? 0.5f : 0.0f,
                                e,
                                e,
                                e,
                                e * e,
                                e * e,
                                e * e,
                                s[0]};
            check_case(&cs, &r);
        }
}

/* More items than gridDim.y holds (65535): the launcher splits the batch. */
static void batch_beyond_grid(void) {
    NEED_DEVICE();
    if (g_small) T_SKIP("--small");
    t_rng r = {seed + 2};
    const tb_case cs = {GK_ROW_MAJOR, GK_NO_TRANS, GK_TRANS, 3,    5, 4, 1.0f, 1.0f, 4, 4, 5,
                        12,           20,          15,       70001};
    check_case(&cs, &r);
}

static void errors(void) {
    NEED_DEVICE();
    float *d = NULL, host[64] = {0};
    const float **dp = NULL;
    T_REQUIRE(cudaMalloc(&d, 64 * 4) == cudaSuccess && cudaMalloc(&dp, 6 * sizeof(void *)) == 0,
              "cudaMalloc");
    const gk_layout R = GK_ROW_MAJOR;
    const gk_trans N = GK_NO_TRANS;
    TB_EXPECT(
        gk_cuda_sgemm_strided_batched(NULL, R, N, N, 2, 2, 2, 1, d, 2, 4, d, 2, 4, 0, d, 2, 4, 1),
        GK_ERR_INVALID_VALUE, "ctx is NULL");
    TB_EXPECT(gk_cuda_sgemm_strided_batched(g_ctx, R, N, N, 2, 2, 2, 1, d, 2, 4, d, 2, 4, 0, d + 32,
                                            2, 4, -1),
              GK_ERR_INVALID_VALUE, "batch=-1");
    TB_EXPECT(gk_cuda_sgemm_strided_batched(g_ctx, R, N, N, 2, 2, 2, 1, NULL, 2, 4, NULL, 2, 4, 0,
                                            NULL, 2, 4, 0),
              GK_SUCCESS, "");
    TB_EXPECT(gk_cuda_sgemm_strided_batched(g_ctx, R, N, N, 2, 2, 2, 1, d, 2, 4, d, 2, 4, 0, d + 32,
                                            2, 3, 2),
              GK_ERR_INVALID_VALUE, "stride_c=3");
    TB_EXPECT(gk_cuda_sgemm_strided_batched(g_ctx, R, N, N, 2, 2, 2, 1, d, 2, -1, d, 2, 4, 0,
                                            d + 32, 2, 4, 2),
              GK_ERR_INVALID_VALUE, "stride_a=-1");
    /* host memory is refused unless the device reads pageable memory (HMM, ATS) */
    int pageable = 0;
    cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, 0);
    if (!pageable)
        TB_EXPECT(gk_cuda_sgemm_strided_batched(g_ctx, R, N, N, 2, 2, 2, 1, host, 2, 4, d, 2, 4, 0,
                                                d + 32, 2, 4, 2),
                  GK_ERR_INVALID_POINTER, "host pointer");
    /* the batch's last item past the allocation's end: 16 items of 4 floats from d + 32 */
    TB_EXPECT(gk_cuda_sgemm_strided_batched(g_ctx, R, N, N, 2, 2, 2, 1, d, 2, 0, d, 2, 0, 0, d + 32,
                                            2, 4, 16),
              GK_ERR_INVALID_POINTER, "allocation");
    TB_EXPECT(gk_cuda_sgemm_batched(g_ctx, R, N, N, 2, 2, 2, 1, dp, 2, dp, 2, 0, (float *const *)dp,
                                    2, -2),
              GK_ERR_INVALID_VALUE, "batch=-2");
    TB_EXPECT(gk_cuda_sgemm_batched(g_ctx, R, N, N, 2, 2, 2, 1, NULL, 2, dp, 2, 0,
                                    (float *const *)dp, 2, 2),
              GK_ERR_NULL_POINTER, "a (the array");
    const float *hp[2] = {d, d};
    if (!pageable)
        TB_EXPECT(gk_cuda_sgemm_batched(g_ctx, R, N, N, 2, 2, 2, 1, hp, 2, dp, 2, 0,
                                        (float *const *)dp, 2, 2),
                  GK_ERR_INVALID_POINTER, "host pointer");
    cudaFree(d), cudaFree(dp);
}

static void no_device_reports(void) {
    if (g_have_device) T_SKIP("a device answers");
    gk_cuda_ctx *ctx = NULL;
    T_CHECK(gk_cuda_create(&ctx, 0, NULL) != GK_SUCCESS, "gk_cuda_create succeeded without device");
}

int main(int argc, char **argv) {
    if ((g_small = t_small_option(argc, argv)) < 0) return 2;
    const char *env = getenv("GK_TEST_SEED");
    if (env && *env) seed = strtoull(env, NULL, 0);
    printf("# seed=%" PRIu64 "\n", seed);
    g_have_device = gk_cuda_available();
    if (g_have_device && gk_cuda_create(&g_ctx, 0, NULL) != GK_SUCCESS) {
        printf("FAIL setup: gk_cuda_create: %s\n", gk_last_error());
        return 1;
    }
    T_RUN(random_small);
    T_RUN(benchmark_shapes);
    T_RUN(batch_beyond_grid);
    T_RUN(errors);
    T_RUN(no_device_reports);
    gk_cuda_destroy(g_ctx);
    return t_finish();
}
