/*
 * test_cuda_batched.cu — GPU tests of gk_cuda_sgemm_strided_batched and gk_cuda_sgemm_batched:
 * random batches of small and odd shapes (both layouts, all transpositions, padded leading
 * dimensions, zero strides, misaligned items, batch 0, 1 and many) checked item by item against
 * the float64 reference with C's gaps untouched (tests/common/batched.h); the shapes the benchmark
 * times (many small items, fewer large ones); the small-item kernel's sizes, K and alignments; a
 * batch larger than one grid's gridDim.y; the argument errors, host memory and an allocation too
 * short for the batch. Without a device every case reports "skip". `--small` runs only small
 * shapes and batches (for compute-sanitizer and the CPU emulation).
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

/* The small-item kernel (src/cuda/gemm/batched_small.cu: m and n <= 64 in the kernel's row-major
 * terms, i.e. either way round here): sizes at and around its 16/32/64 buckets and primes, k from 1
 * (one partial chunk) to 1000 (many chunks and a partial last one), every layout and transposition,
 * alpha and beta (beta = 0 over NaN C: tb_init), leading dimensions and strides either multiples of
 * 4 (float4 loads and stores) or odd (misaligned items, scalar paths), each case both strided and
 * through pointer arrays (check_case). */
static void small_items(void) {
    NEED_DEVICE();
    t_rng r = {seed + 3};
    static const int64_t mn[][2] = {{1, 1},   {2, 3},   {5, 7},   {13, 16}, {16, 17}, {17, 31},
                                    {31, 32}, {32, 33}, {37, 64}, {64, 61}, {64, 64}, {47, 3},
                                    {3, 59},  {64, 1},  {8, 40},  {60, 12}};
    static const int64_t ks[] = {1, 4, 29, 64, 1000};
    static const float alphas[] = {1.0f, -0.5f, 2.0f}, betas[] = {0.0f, 1.0f, 0.5f, -1.0f};
    for (const auto &d : mn)
        for (const int64_t k : ks) {
            const int v = (int)t_rng_range(&r, 0, 63);
            tb_case c;
            c.layout = v & 1 ? GK_COL_MAJOR : GK_ROW_MAJOR;
            c.ta = v & 2 ? GK_TRANS : GK_NO_TRANS;
            c.tb = v & 4 ? GK_TRANS : GK_NO_TRANS;
            c.m = d[0], c.n = d[1], c.k = k;
            c.alpha = alphas[v % 3];
            c.beta = betas[(v >> 3) % 4];
            /* aligned: leading dimensions and strides rounded up to multiples of 4 */
            const int aligned = (v >> 5) & 1;
            const int64_t pad = aligned ? 0 : 1 + 2 * (v % 2);
            const int64_t la = t_min_ld(c.layout, c.ta, c.m, c.k),
                          lb = t_min_ld(c.layout, c.tb, c.k, c.n);
            const int64_t lc = t_min_ld(c.layout, GK_NO_TRANS, c.m, c.n);
            c.lda = aligned ? (la + 3) / 4 * 4 : la + pad;
            c.ldb = aligned ? (lb + 3) / 4 * 4 : lb + pad;
            c.ldc = aligned ? (lc + 3) / 4 * 4 : lc + pad;
            const int64_t ea = tb_extent(c.layout, c.ta, c.m, c.k, c.lda);
            const int64_t eb = tb_extent(c.layout, c.tb, c.k, c.n, c.ldb);
            const int64_t ec = tb_extent(c.layout, GK_NO_TRANS, c.m, c.n, c.ldc);
            c.sa = aligned ? (ea + 3) / 4 * 4 : ea + 1;
            c.sb = aligned ? (eb + 3) / 4 * 4 : eb + 3;
            c.sc = aligned ? (ec + 3) / 4 * 4 : ec + 1;
            c.batch = t_rng_range(&r, 2, g_small ? 3 : 9);
            check_case(&c, &r);
        }
}

/* More items than gridDim.y holds (65535): the tiled grid (an item of 65 rows) splits the batch
 * into launches; the small-item kernel (3 x 5) takes them all in its 1-D grid. */
static void batch_beyond_grid(void) {
    NEED_DEVICE();
    if (g_small) T_SKIP("--small");
    t_rng r = {seed + 2};
    const tb_case small = {GK_ROW_MAJOR, GK_NO_TRANS, GK_TRANS, 3,    5, 4, 1.0f, 1.0f, 4, 4, 5,
                           12,           20,          15,       70001};
    const tb_case tiled = {GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 65,  2, 3,   1.0f, 0.5f,
                           65,           3,           65,          195, 6, 130, 70001};
    check_case(&small, &r);
    check_case(&tiled, &r);
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
    T_RUN(small_items);
    T_RUN(batch_beyond_grid);
    T_RUN(errors);
    T_RUN(no_device_reports);
    gk_cuda_destroy(g_ctx);
    return t_finish();
}
