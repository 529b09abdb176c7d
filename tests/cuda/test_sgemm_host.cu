/*
 * test_sgemm_host.cu — tests of the out-of-core GEMM (gk_cuda_sgemm_host, gk_cuda_gemm_ex_host and
 * their _multi twins; src/cuda/multi/ooc.cu) through the public API, with host operands larger than
 * a deliberately small device memory budget (GEMMKIT_CUDA_MEM_LIMIT), so that C is tiled and, with
 * a smaller budget, K is chunked.
 *
 * Float32: both layouts, every transposition pair, beta 0 (NaN in C) / 1 / other, pageable and
 * page-locked (registered) operands, against the float64 reference with the K-scaled bound of
 * docs/testing.md, and bitwise against the in-memory gk_cuda_sgemm where docs/cuda.md ("Out-of-core
 * and multi-GPU") says they are equal: K not chunked and beta == 0 at sizes where neither call
 * splits K (stream-K). Also two contexts (nctx 2) against one, scale-only calls, argument errors
 * (C untouched), a budget too small, an invalid budget value, and, under the CUDA emulation, copy
 * failures injected at each copy in turn (C must hold only old or final values, nothing leaks).
 *
 * The other types (gk_cuda_gemm_ex_host): every A/B type (TF32, BF16, FP16, the FP8 pairs, float32)
 * and C type (float32, bfloat16, float16) on both layouts, transposition pairs, beta 0 (NaN in C) /
 * 1 / other, FP8 scales, odd sizes and leading dimensions, NaN in the operands' gaps and guard
 * bytes around C: with K whole and beta == 0 the result must be bitwise the in-memory
 * gk_cuda_gemm_ex's on the same context (C's whole buffer), otherwise within test_gemm_ex.cu's
 * bound of the float64 reference (on the sm_90a kernel, the loosest), its K widened by the number
 * of chunks (each chunk's float32 result is one more addition). Also two contexts, scale-only calls
 * on 16-bit C, argument errors and injected copy failures with a chunked bfloat16 C (the float32
 * accumulation tile). Without a device every case reports "skip". `--small` (the emulated run) uses
 * small shapes.
 */
#include <float.h>
#include <unistd.h>

#include "cuda/core/core.h"
#include "cuda/tc_cases.h"

/* two contexts on device 0 (tc_cases.h's per-path contexts are not used here) */
static gk_cuda_ctx *g_one, *g_two;

/* The plan the call will make under `limit` bytes (0: the default budget). */
static void plan_of(const t_gemm_case &cs, int64_t limit, int64_t *mt, int64_t *nt, int64_t *kc) {
    char buf[32];
    if (limit > 0) {
        snprintf(buf, sizeof buf, "%lld", (long long)limit);
        setenv("GEMMKIT_CUDA_MEM_LIMIT", buf, 1);
    } else {
        unsetenv("GEMMKIT_CUDA_MEM_LIMIT");
    }
    gk_gemm_args g;
    gk_gemm_normalise(cs.layout, cs.ta, cs.tb, cs.m, cs.n, cs.k, cs.alpha, (const float *)16,
                      cs.lda, (const float *)16, cs.ldb, cs.beta, (float *)16, cs.ldc, &g);
    int64_t budget;
    *mt = *nt = *kc = 0;
    gk_ooc_plan(&g_one, 1, g, mt, nt, kc, &budget);
}

/* A budget in bytes that yields tiles of side `t` with K chunks of `kc` (normalised problem). */
static int64_t limit_for(const t_gemm_case &cs, int64_t t, int64_t kc) {
    gk_gemm_args g;
    gk_gemm_normalise(cs.layout, cs.ta, cs.tb, cs.m, cs.n, cs.k, cs.alpha, (const float *)16,
                      cs.lda, (const float *)16, cs.ldb, cs.beta, (float *)16, cs.ldc, &g);
    return gk_ooc_need(g_one, g, t < g.m ? t : g.m, t < g.n ? t : g.n, kc);
}

/* In-memory gk_cuda_sgemm on device copies of d's operands; C's buffer comes back in `out`. */
static int in_memory(t_gemm_data *d, float *out, char *msg, size_t len) {
    const t_gemm_case &cs = d->cs;
    float *da = NULL, *db = NULL, *dc = NULL;
    const size_t ab = (size_t)d->a_len * 4, bb = (size_t)d->b_len * 4, cb = (size_t)d->c_len * 4;
    int rc = 1;
    cudaError_t err;
    if ((err = cudaMalloc(&da, ab)) || (err = cudaMalloc(&db, bb)) || (err = cudaMalloc(&dc, cb)) ||
        (err = cudaMemcpy(da, d->a, ab, cudaMemcpyHostToDevice)) ||
        (err = cudaMemcpy(db, d->b, bb, cudaMemcpyHostToDevice)) ||
        (err = cudaMemcpy(dc, d->c_buf, cb, cudaMemcpyHostToDevice)) ||
        (err = cudaDeviceSynchronize())) {
        snprintf(msg, len, "setup: %s", cudaGetErrorString(err));
    } else if (gk_cuda_sgemm(g_one, cs.layout, cs.ta, cs.tb, cs.m, cs.n, cs.k, cs.alpha, da, cs.lda,
                             db, cs.ldb, cs.beta, dc + (d->c - d->c_buf), cs.ldc) != GK_SUCCESS) {
        snprintf(msg, len, "in-memory call: %s", gk_last_error());
    } else if ((err = cudaDeviceSynchronize()) ||
               (err = cudaMemcpy(out, dc, cb, cudaMemcpyDeviceToHost))) {
        snprintf(msg, len, "in-memory run: %s", cudaGetErrorString(err));
    } else {
        rc = 0;
    }
    cudaFree(da), cudaFree(db), cudaFree(dc);
    return rc;
}

/* The out-of-core call on d (nctx contexts), its operands registered (page-locked) or not. */
static gk_status host_call(t_gemm_data *d, int nctx, int pin) {
    const t_gemm_case &cs = d->cs;
    if (pin) {
        cudaHostRegister(d->a, (size_t)d->a_len * 4, cudaHostRegisterDefault);
        cudaHostRegister(d->b, (size_t)d->b_len * 4, cudaHostRegisterDefault);
        cudaHostRegister(d->c_buf, (size_t)d->c_len * 4, cudaHostRegisterDefault);
    }
    gk_cuda_ctx *ctxs[2] = {g_one, g_two};
    const gk_status st =
        nctx == 1
            ? gk_cuda_sgemm_host(g_one, cs.layout, cs.ta, cs.tb, cs.m, cs.n, cs.k, cs.alpha, d->a,
                                 cs.lda, d->b, cs.ldb, cs.beta, d->c, cs.ldc)
            : gk_cuda_sgemm_host_multi(ctxs, nctx, cs.layout, cs.ta, cs.tb, cs.m, cs.n, cs.k,
                                       cs.alpha, d->a, cs.lda, d->b, cs.ldb, cs.beta, d->c, cs.ldc);
    if (pin) cudaHostUnregister(d->a), cudaHostUnregister(d->b), cudaHostUnregister(d->c_buf);
    return st;
}

static t_gemm_case make_case(gk_layout l, gk_trans ta, gk_trans tb, int64_t m, int64_t n, int64_t k,
                             float alpha, float beta) {
    t_gemm_case cs;
    memset(&cs, 0, sizeof cs);
    cs.layout = l, cs.ta = ta, cs.tb = tb, cs.m = m, cs.n = n, cs.k = k;
    cs.alpha = alpha, cs.beta = beta, cs.nan_c = beta == 0.0f;
    cs.lda = t_min_ld(l, ta, m, k) + 3;
    cs.ldb = t_min_ld(l, tb, k, n) + 5;
    cs.ldc = (l == GK_COL_MAJOR ? m : n) + 2;
    return cs;
}

/* One case under budget `limit`: want_chunked says whether the plan must chunk K. Checks the
 * reference bound, A/B/guards untouched, and (K not chunked, beta == 0) bitwise equality with the
 * in-memory call; with nctx 2, bitwise equality with nctx 1. Returns 0 or 1 with msg. */
static int run_case(const t_gemm_case &cs, int64_t limit, int want_chunked, int pin, int nctx,
                    t_rng *r, char *msg, size_t len) {
    int64_t mt, nt, kc;
    plan_of(cs, limit, &mt, &nt, &kc);
    const int64_t gm = cs.layout == GK_COL_MAJOR ? cs.m : cs.n;
    const int64_t gn = cs.layout == GK_COL_MAJOR ? cs.n : cs.m;
    if (mt == 0 || (mt >= gm && nt >= gn) || (kc < cs.k) != want_chunked) {
        snprintf(msg, len, "plan %lldx%lld kc=%lld is not the %s case wanted", (long long)mt,
                 (long long)nt, (long long)kc, want_chunked ? "K-chunked" : "tiled, K whole");
        return 1;
    }
    t_gemm_data d;
    if (t_gemm_data_init(&d, &cs, r)) {
        snprintf(msg, len, "out of host memory");
        return 1;
    }
    float *one = (float *)malloc((size_t)d.c_len * 4), *mem = (float *)malloc((size_t)d.c_len * 4);
    int rc = 1;
    gk_status st;
    if (!one || !mem) {
        snprintf(msg, len, "out of host memory");
    } else if ((st = host_call(&d, nctx, pin)) != GK_SUCCESS) {
        snprintf(msg, len, "status %s: %s", gk_status_string(st), gk_last_error());
    } else if (!t_gemm_data_verify(&d, 0.0, msg, len)) {
        rc = 0;
        memcpy(one, d.c_buf, (size_t)d.c_len * 4);
        if (nctx == 2) { /* the same bits as one context */
            t_gemm_data_reset_c(&d);
            if ((st = host_call(&d, 1, pin)) != GK_SUCCESS)
                rc = 1, snprintf(msg, len, "nctx 1: %s", gk_last_error());
            else if (memcmp(one, d.c_buf, (size_t)d.c_len * 4))
                rc = 1, snprintf(msg, len, "nctx 2 differs from nctx 1");
        }
        if (!rc && !want_chunked && cs.beta == 0.0f) { /* docs/cuda.md: bitwise equal */
            t_gemm_data_reset_c(&d);
            if (in_memory(&d, mem, msg, len))
                rc = 1;
            else if (memcmp(one, mem, (size_t)d.c_len * 4))
                rc = 1, snprintf(msg, len, "not bitwise equal to the in-memory gk_cuda_sgemm");
        }
    }
    free(one), free(mem);
    t_gemm_data_free(&d);
    unsetenv("GEMMKIT_CUDA_MEM_LIMIT");
    return rc;
}

static const gk_trans all_trans[] = {GK_NO_TRANS, GK_TRANS, GK_CONJ_TRANS};
static const float betas[] = {0.0f, 1.0f, -1.5f};

/* Every layout x transposition pair x beta, pageable and pinned, tiled with K whole or chunked. */
static void sweep(int chunked) {
    NEED_DEVICE();
    t_rng r = {0x51ed2701u + (uint64_t)chunked};
    const int64_t m = g_small ? 37 : 301, n = g_small ? 29 : 259, k = g_small ? 23 : 177;
    /* tiles of 16 / 128 with K whole; with K chunked the budget of 8 x 8 / 32 x 16 tiles leads
     * the plan to 8 x 8 / 16 x 16 tiles with chunks of K */
    const int64_t t = g_small ? (chunked ? 8 : 16) : (chunked ? 32 : 128);
    const int64_t kc = chunked ? (g_small ? 8 : 16) : k;
    int runs = 0;
    for (int l = 0; l < 2; l++)
        for (int ta = 0; ta < 3; ta++)
            for (int tb = 0; tb < 3; tb++)
                for (int bi = 0; bi < 3; bi++)
                    for (int pin = 0; pin < 2; pin++) {
                        const t_gemm_case cs =
                            make_case(l ? GK_ROW_MAJOR : GK_COL_MAJOR, all_trans[ta], all_trans[tb],
                                      m, n, k, bi == 2 ? -0.75f : 1.25f, betas[bi]);
                        char msg[400], desc[200];
                        if (run_case(cs, limit_for(cs, t, kc), chunked, pin, 1, &r, msg,
                                     sizeof msg)) {
                            t_case_str(&cs, desc, sizeof desc);
                            T_REQUIRE(0, "%s %s: %s", desc, pin ? "pinned" : "pageable", msg);
                        }
                        runs++;
                    }
    T_CHECK(runs == 108, "ran %d cases", runs);
}
static void tiled_k_whole(void) {
    sweep(0);
}
static void tiled_k_chunked(void) {
    sweep(1);
}

/* Two contexts on device 0 (the degenerate multi-GPU case): the same bits as one. */
static void two_contexts(void) {
    NEED_DEVICE();
    t_rng r = {0x2c7u};
    const int64_t m = g_small ? 41 : 333, n = g_small ? 35 : 271, k = g_small ? 19 : 150;
    for (int chunked = 0; chunked < 2; chunked++)
        for (int pin = 0; pin < 2; pin++) {
            const t_gemm_case cs = make_case(chunked ? GK_ROW_MAJOR : GK_COL_MAJOR, GK_TRANS,
                                             GK_NO_TRANS, m, n, k, 1.5f, chunked ? 0.5f : 0.0f);
            char msg[400];
            const int64_t t = g_small ? 16 : 128;
            T_CHECK(!run_case(cs, limit_for(cs, t, chunked ? 8 : k), chunked, pin, 2, &r, msg,
                              sizeof msg),
                    "chunked=%d pin=%d: %s", chunked, pin, msg);
        }
}

/* alpha == 0 and K == 0 scale C on the host; beta == 0 clears NaN. */
static void scale_only(void) {
    NEED_DEVICE();
    float c[6] = {NAN, 1, 2, 3, 4, 5};
    T_CHECK(gk_cuda_sgemm_host(g_one, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 2, 3, 0, 1.0f, NULL,
                               2, NULL, 1, 0.0f, c, 2) == GK_SUCCESS,
            "k=0: %s", gk_last_error());
    for (int i = 0; i < 6; i++)
        T_CHECK(c[i] == 0.0f, "k=0 beta=0: c[%d]=%g", i, c[i]);
    float d[6] = {1, 2, 3, 4, 5, 6};
    const float a[4] = {1, 1, 1, 1}, b[6] = {1, 1, 1, 1, 1, 1};
    T_CHECK(gk_cuda_sgemm_host(g_one, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 2, 3, 2, 0.0f, a, 2,
                               b, 2, 2.0f, d, 2) == GK_SUCCESS,
            "alpha=0: %s", gk_last_error());
    for (int i = 0; i < 6; i++)
        T_CHECK(d[i] == 2.0f * (float)(i + 1), "alpha=0 beta=2: d[%d]=%g", i, d[i]);
}

/* Argument errors: the status, a message naming the argument, C untouched. */
static void bad_arguments(void) {
    NEED_DEVICE();
    float a[16] = {0}, b[16] = {0}, c[16], c0[16];
    for (int i = 0; i < 16; i++)
        c[i] = c0[i] = (float)i;
    struct {
        gk_status st;
        const char *needle;
        gk_status got;
    } cases[8];
    int n = 0;
    gk_cuda_ctx *dup[2] = {g_one, g_one}, *nul[2] = {g_one, NULL};
    const gk_layout L = GK_COL_MAJOR;
    const gk_trans N = GK_NO_TRANS;
    cases[n++] = {GK_ERR_INVALID_VALUE, "ctx",
                  gk_cuda_sgemm_host(NULL, L, N, N, 4, 4, 4, 1, a, 4, b, 4, 0, c, 4)};
    cases[n++] = {GK_ERR_INVALID_VALUE, "ctxs",
                  gk_cuda_sgemm_host_multi(NULL, 1, L, N, N, 4, 4, 4, 1, a, 4, b, 4, 0, c, 4)};
    cases[n++] = {GK_ERR_INVALID_VALUE, "nctx",
                  gk_cuda_sgemm_host_multi(dup, 0, L, N, N, 4, 4, 4, 1, a, 4, b, 4, 0, c, 4)};
    cases[n++] = {GK_ERR_INVALID_VALUE, "ctxs[1]",
                  gk_cuda_sgemm_host_multi(nul, 2, L, N, N, 4, 4, 4, 1, a, 4, b, 4, 0, c, 4)};
    cases[n++] = {GK_ERR_INVALID_VALUE, "same context",
                  gk_cuda_sgemm_host_multi(dup, 2, L, N, N, 4, 4, 4, 1, a, 4, b, 4, 0, c, 4)};
    cases[n++] = {GK_ERR_INVALID_LD, "lda",
                  gk_cuda_sgemm_host(g_one, L, N, N, 4, 4, 4, 1, a, 3, b, 4, 0, c, 4)};
    cases[n++] = {GK_ERR_NULL_POINTER, "a",
                  gk_cuda_sgemm_host(g_one, L, N, N, 4, 4, 4, 1, NULL, 4, b, 4, 0, c, 4)};
    cases[n++] = {GK_ERR_INVALID_LAYOUT, "layout",
                  gk_cuda_sgemm_host(g_one, (gk_layout)7, N, N, 4, 4, 4, 1, a, 4, b, 4, 0, c, 4)};
    for (int i = 0; i < n; i++) {
        (void)cases[i].needle;
        T_CHECK(cases[i].got == cases[i].st, "case %d: got %s, want %s", i,
                gk_status_string(cases[i].got), gk_status_string(cases[i].st));
    }
    T_CHECK(!memcmp(c, c0, sizeof c), "C changed by a failed call");
    /* the message names the argument */
    gk_cuda_sgemm_host(g_one, L, N, N, 4, 4, 4, 1, a, 4, b, 2, 0, c, 4);
    T_CHECK(strstr(gk_last_error(), "ldb") != NULL, "message '%s' does not name ldb",
            gk_last_error());
}

/* A budget that holds no tile: GK_ERR_OUT_OF_MEMORY, C untouched. An invalid budget value is
 * ignored; a suffix is understood. */
static void budgets(void) {
    NEED_DEVICE();
    float a[64], b[64], c[64], c0[64];
    for (int i = 0; i < 64; i++)
        a[i] = b[i] = 1.0f, c[i] = c0[i] = (float)i;
    setenv("GEMMKIT_CUDA_MEM_LIMIT", "1K", 1);
    gk_status st = gk_cuda_sgemm_host(g_one, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 8, 8, 8, 1.0f,
                                      a, 8, b, 8, 1.0f, c, 8);
    T_CHECK(st == GK_ERR_OUT_OF_MEMORY, "1K budget: %s", gk_status_string(st));
    T_CHECK(strstr(gk_last_error(), "GEMMKIT_CUDA_MEM_LIMIT") != NULL, "message: %s",
            gk_last_error());
    T_CHECK(!memcmp(c, c0, sizeof c), "C changed");
    const t_gemm_case cs = make_case(GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 8, 8, 8, 1, 0);
    gk_gemm_args g;
    gk_gemm_normalise(cs.layout, cs.ta, cs.tb, 8, 8, 8, 1, a, 8, b, 8, 0, c, 8, &g);
    int64_t mt, nt, kc, budget;
    setenv("GEMMKIT_CUDA_MEM_LIMIT", "3M", 1);
    T_CHECK(gk_ooc_plan(&g_one, 1, g, &mt, &nt, &kc, &budget) == GK_SUCCESS && budget == 3 << 20,
            "3M: budget %lld", (long long)budget);
    const char *bad[] = {"12Q", "-5", "abc", "0", "4KB"};
    for (const char *v : bad) {
        setenv("GEMMKIT_CUDA_MEM_LIMIT", v, 1);
        budget = 0;
        T_CHECK(gk_ooc_plan(&g_one, 1, g, &mt, &nt, &kc, &budget) == GK_SUCCESS &&
                    budget > (1 << 20),
                "%s not ignored: budget %lld", v, (long long)budget);
        st = gk_cuda_sgemm_host(g_one, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 8, 8, 8, 1.0f, a, 8,
                                b, 8, 0.0f, c, 8);
        T_CHECK(st == GK_SUCCESS && c[0] == 8.0f && c[63] == 8.0f, "%s: %s", v, gk_last_error());
    }
    /* under GEMMKIT_VERBOSE (read at gk_cuda_create) the invalid value is named on stderr */
    setenv("GEMMKIT_VERBOSE", "1", 1);
    gk_cuda_ctx *loud = NULL;
    const gk_status made = gk_cuda_create(&loud, 0, NULL);
    unsetenv("GEMMKIT_VERBOSE");
    T_REQUIRE(made == GK_SUCCESS, "create: %s", gk_last_error());
    setenv("GEMMKIT_CUDA_MEM_LIMIT", "12Q", 1);
    char said[512] = "";
    FILE *tmp = tmpfile();
    fflush(stderr);
    const int saved = dup(2);
    if (tmp && saved >= 0 && dup2(fileno(tmp), 2) >= 0) {
        gk_ooc_plan(&loud, 1, g, &mt, &nt, &kc, &budget);
        fflush(stderr);
        dup2(saved, 2);
        rewind(tmp);
        said[fread(said, 1, sizeof said - 1, tmp)] = '\0';
    }
    if (saved >= 0) close(saved);
    if (tmp) fclose(tmp);
    T_CHECK(strstr(said, "GEMMKIT_CUDA_MEM_LIMIT=12Q") && strstr(said, "ignored"),
            "verbose message: '%s'", said);
    gk_cuda_destroy(loud);
    unsetenv("GEMMKIT_CUDA_MEM_LIMIT");
}

/* A copy that fails (the emulation's injected failure, at each copy of the call in turn): the call
 * returns GK_ERR_CUDA, every element of C holds its old value or its final one, and no device
 * memory is left allocated. */
static void injected_copy_failure(void) {
#ifdef GK_CUDA_EMULATED
    t_rng r = {0x7a11u};
    for (int pin = 0; pin < 2; pin++) {
        const t_gemm_case cs =
            make_case(GK_COL_MAJOR, GK_NO_TRANS, GK_TRANS, 37, 29, 23, 1.0f, pin ? 0.5f : 0.0f);
        t_gemm_data d;
        T_REQUIRE(!t_gemm_data_init(&d, &cs, &r), "out of host memory");
        const int64_t limit = limit_for(cs, 16, 8);
        char buf[32];
        snprintf(buf, sizeof buf, "%lld", (long long)limit);
        setenv("GEMMKIT_CUDA_MEM_LIMIT", buf, 1);
        float *good = (float *)malloc((size_t)d.c_len * 4);
        T_REQUIRE(good && host_call(&d, 1, pin) == GK_SUCCESS, "clean run: %s", gk_last_error());
        memcpy(good, d.c_buf, (size_t)d.c_len * 4);
        int failed_calls = 0;
        for (int at = 1; at < 400; at++) {
            t_gemm_data_reset_c(&d);
            const size_t used = gk_emu_device_used;
            gk_emu_copy_fail_after = at;
            const gk_status st = host_call(&d, 1, pin);
            const int fired = gk_emu_copy_fail_after == 0;
            gk_emu_copy_fail_after = 0;
            T_CHECK(gk_emu_device_used == used, "at %d: %zu device bytes leaked", at,
                    gk_emu_device_used - used);
            if (!fired) break; /* the call makes fewer copies */
            failed_calls++;
            T_CHECK(st == GK_ERR_CUDA, "at %d: status %s", at, gk_status_string(st));
            for (int64_t i = 0; i < d.c_len; i++) {
                const float v = d.c_buf[i], old = d.c0_buf[i];
                T_REQUIRE(!memcmp(&v, &good[i], 4) || !memcmp(&v, &old, 4),
                          "at %d: c_buf[%lld] is neither old nor final", at, (long long)i);
            }
        }
        T_CHECK(failed_calls > 10, "only %d copies to fail", failed_calls);
        free(good);
        t_gemm_data_free(&d);
    }
    unsetenv("GEMMKIT_CUDA_MEM_LIMIT");
#else
    T_SKIP("needs the CUDA emulation's copy-failure injection (test_sgemm_host_emulated.sh)");
#endif
}

/* ---- gk_cuda_gemm_ex_host ------------------------------------------------------------------- */

struct xcase {
    gk_format at, bt, ct;
    gk_layout layout;
    gk_trans ta, tb;
    int64_t m, n, k, lda, ldb, ldc;
    float alpha, beta;
    bool scales, chunked, pin;
    int nctx;
};

static const float SCALE_A = 0.5f, SCALE_B = 3.0f;

struct xdata {
    xcase c;
    operand a, b; /* NaN codes in the gaps */
    cblock cb;
};

static void make_xdata(xdata &d, const xcase &c, t_rng *rng) {
    d.c = c;
    const bool ta = c.ta != GK_NO_TRANS, tb = c.tb != GK_NO_TRANS;
    make_operand(d.a, c.at, c.layout, ta ? c.k : c.m, ta ? c.m : c.k, c.lda, 0,
                 gk_encode_scalar(c.at, NAN, 0), 1.0f, rng);
    make_operand(d.b, c.bt, c.layout, tb ? c.n : c.k, tb ? c.k : c.n, c.ldb, 0,
                 gk_encode_scalar(c.bt, NAN, 0), 1.0f, rng);
    make_c(d.cb, c.ct, c.layout, c.m, c.n, c.ldc, c.beta == 0.0f, rng);
    const double alpha = (double)c.alpha * (c.scales ? (double)SCALE_A * SCALE_B : 1.0);
    reference_of(d.cb, d.a, c.at, ta, d.b, c.bt, tb, c.layout, c.k, alpha, c.beta);
}

/* The types in the normalised roles (a row-major call swaps A and B). */
static gk_ooc_types types_of(const xcase &c) {
    gk_ooc_types ty;
    const bool row = c.layout == GK_ROW_MAJOR;
    ty.a = row ? c.bt : c.at, ty.b = row ? c.at : c.bt, ty.c = c.ct, ty.ex = true;
    return ty;
}

static gk_gemm_args args_of(const xcase &c) {
    gk_gemm_args g;
    gk_gemm_normalise(c.layout, c.ta, c.tb, c.m, c.n, c.k, c.alpha, (const float *)16, c.lda,
                      (const float *)16, c.ldb, c.beta, (float *)16, c.ldc, &g);
    return g;
}

/* test_gemm_ex.cu's bound on the sm_90a kernel (the loosest of its paths: TF32 truncated, FP8's
 * shorter accumulator), K widened by the chunks. */
static double xbound(const xcase &c, int64_t chunks, double want, double scale) {
    const bool fp8 = size_of(c.at) == 1;
    const double u_in = c.at == GK_TF32 ? ldexp(1.0, -10) : 0.0;
    double core = gkh_bound(c.k + chunks, u_in, scale);
    if (fp8) core += (double)(c.k < 128 ? c.k : 128) * ldexp(1.0, -13) * scale;
    if (c.ct == GK_F32) return core;
    const double u_out = ldexp(1.0, c.ct == GK_BF16 ? -8 : -11);
    const double tiny = c.ct == GK_BF16 ? FLT_MIN : ldexp(1.0, -25);
    return core + u_out * (fabs(want) + core) + tiny;
}

/* The out-of-core call on host copies of d's buffers (registered when c.pin); C's buffer back in
 * out. */
static gk_status xhost_call(const xdata &d, const float *dscale, std::vector<uint8_t> &out) {
    const xcase &c = d.c;
    std::vector<uint8_t> a = d.a.codes, b = d.b.codes;
    out = d.cb.c0;
    if (c.pin) {
        cudaHostRegister(a.data(), a.size(), cudaHostRegisterDefault);
        cudaHostRegister(b.data(), b.size(), cudaHostRegisterDefault);
        cudaHostRegister(out.data(), out.size(), cudaHostRegisterDefault);
    }
    gk_gemm_ex_opts o;
    memset(&o, 0, sizeof o);
    if (c.scales) o.scale_a = dscale, o.scale_b = dscale + 1;
    gk_cuda_ctx *ctxs[2] = {g_one, g_two};
    uint8_t *cp = out.data() + d.cb.off * size_of(c.ct);
    const gk_status st =
        c.nctx == 1 ? gk_cuda_gemm_ex_host(g_one, c.layout, c.ta, c.tb, c.m, c.n, c.k, c.alpha,
                                           c.at, a.data(), c.lda, c.bt, b.data(), c.ldb, c.beta,
                                           c.ct, cp, c.ldc, &o)
                    : gk_cuda_gemm_ex_host_multi(ctxs, c.nctx, c.layout, c.ta, c.tb, c.m, c.n, c.k,
                                                 c.alpha, c.at, a.data(), c.lda, c.bt, b.data(),
                                                 c.ldb, c.beta, c.ct, cp, c.ldc, &o);
    if (c.pin)
        cudaHostUnregister(a.data()), cudaHostUnregister(b.data()), cudaHostUnregister(out.data());
    return st;
}

/* The in-memory gk_cuda_gemm_ex on device copies; C's buffer back in out. 0, or 1 with msg. */
static int xin_memory(const xdata &d, const float *dscale, std::vector<uint8_t> &out, char *msg,
                      size_t len) {
    const xcase &c = d.c;
    uint8_t *da = NULL, *db = NULL, *dc = NULL;
    int rc = 1;
    gk_gemm_ex_opts o;
    memset(&o, 0, sizeof o);
    if (c.scales) o.scale_a = dscale, o.scale_b = dscale + 1;
    out.resize(d.cb.c0.size());
    CK(cudaMalloc(&da, d.a.codes.size()));
    CK(cudaMalloc(&db, d.b.codes.size()));
    CK(cudaMalloc(&dc, d.cb.c0.size()));
    CK(cudaMemcpy(da, d.a.codes.data(), d.a.codes.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, d.b.codes.data(), d.b.codes.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dc, d.cb.c0.data(), d.cb.c0.size(), cudaMemcpyHostToDevice));
    if (gk_cuda_gemm_ex(g_one, c.layout, c.ta, c.tb, c.m, c.n, c.k, c.alpha, c.at, da, c.lda, c.bt,
                        db, c.ldb, c.beta, c.ct, dc + d.cb.off * size_of(c.ct), c.ldc,
                        &o) != GK_SUCCESS) {
        snprintf(msg, len, "in-memory call: %s", gk_last_error());
        goto out;
    }
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(out.data(), dc, out.size(), cudaMemcpyDeviceToHost));
    rc = 0;
out:
    cudaFree(da), cudaFree(db), cudaFree(dc);
    return rc;
}

/* One case: the plan must be tiled (chunked or not as asked); K whole and beta == 0: bitwise the
 * in-memory call; otherwise within xbound of the reference. */
static int run_xcase(const xcase &c, const float *dscale, t_rng *rng, char *msg, size_t len) {
    const gk_gemm_args g = args_of(c);
    const gk_ooc_types ty = types_of(c);
    const int64_t t = g_small ? (c.chunked ? 8 : 16) : (c.chunked ? 32 : 128);
    const int64_t want_kc = c.chunked ? (g_small ? 8 : 16) : c.k;
    char buf[32];
    snprintf(buf, sizeof buf, "%lld",
             (long long)gk_ooc_need(g_one, g, t < g.m ? t : g.m, t < g.n ? t : g.n, want_kc, ty));
    setenv("GEMMKIT_CUDA_MEM_LIMIT", buf, 1);
    int64_t mt = 0, nt = 0, kc = 0, budget;
    gk_ooc_plan(&g_one, 1, g, &mt, &nt, &kc, &budget, ty);
    int rc = 1;
    xdata d;
    std::vector<uint8_t> got, mem;
    gk_status st;
    if (mt == 0 || (mt >= g.m && nt >= g.n) || (kc < c.k) != c.chunked) {
        snprintf(msg, len, "plan %lldx%lld kc=%lld is not the %s case wanted", (long long)mt,
                 (long long)nt, (long long)kc, c.chunked ? "K-chunked" : "tiled, K whole");
    } else if (make_xdata(d, c, rng), (st = xhost_call(d, dscale, got)) != GK_SUCCESS) {
        snprintf(msg, len, "status %s: %s", gk_status_string(st), gk_last_error());
    } else if (c.chunked || c.beta != 0.0f) {
        const int64_t chunks = (c.k + kc - 1) / kc;
        rc = check_c(
            d.cb, got, true, [&](double w, double s) { return xbound(c, chunks, w, s); }, msg, len);
    } else if (!xin_memory(d, dscale, mem, msg, len)) {
        rc = memcmp(got.data(), mem.data(), got.size()) != 0;
        if (rc) snprintf(msg, len, "not bitwise equal to the in-memory gk_cuda_gemm_ex");
    }
    unsetenv("GEMMKIT_CUDA_MEM_LIMIT");
    return rc;
}

static void xcase_str(const xcase &c, char *buf, size_t len) {
    snprintf(buf, len, "%s x %s -> %s %s%s%s m=%lld n=%lld k=%lld beta=%g%s%s%s nctx=%d",
             gk_format_name(c.at), gk_format_name(c.bt), gk_format_name(c.ct),
             c.layout == GK_COL_MAJOR ? "col " : "row ", c.ta == GK_NO_TRANS ? "N" : "T",
             c.tb == GK_NO_TRANS ? "N" : "T", (long long)c.m, (long long)c.n, (long long)c.k,
             c.beta, c.scales ? " scales" : "", c.chunked ? " K-chunked" : "",
             c.pin ? " pinned" : " pageable", c.nctx);
}

static xcase make_xcase(gk_format at, gk_format bt, gk_format ct, gk_layout l, gk_trans ta,
                        gk_trans tb, float beta, bool chunked, bool pin) {
    xcase c;
    c.at = at, c.bt = bt, c.ct = ct, c.layout = l, c.ta = ta, c.tb = tb;
    /* --small: K chunked past one 128-byte device line of 4-byte elements, so that a budget for
     * chunks of 8 cannot hold all of K; K whole below the next tile side (32), so that no larger
     * tile takes it in chunks */
    c.m = g_small ? 37 : 301, c.n = g_small ? 29 : 259;
    c.k = g_small ? (chunked ? 71 : 23) : 177;
    c.lda = t_min_ld(l, ta, c.m, c.k) + 3, c.ldb = t_min_ld(l, tb, c.k, c.n) + 1;
    c.ldc = (l == GK_COL_MAJOR ? c.m : c.n) + 2;
    c.alpha = 1.25f, c.beta = beta;
    c.scales = size_of(at) == 1, c.chunked = chunked, c.pin = pin, c.nctx = 1;
    return c;
}

/* Each A/B pair and C type on four layout/transposition variants, K whole and chunked. */
static void ex_types(void) {
    NEED_DEVICE();
    static const gk_format pairs[][3] = {
        {GK_TF32, GK_TF32, GK_F32},         {GK_BF16, GK_BF16, GK_BF16},
        {GK_F16, GK_F16, GK_F16},           {GK_F8_E4M3FN, GK_F8_E4M3FN, GK_BF16},
        {GK_F8_E4M3FN, GK_F8_E5M2, GK_F16}, {GK_F8_E5M2, GK_F8_E4M3FN, GK_F32},
        {GK_F32, GK_F32, GK_BF16},          {GK_BF16, GK_BF16, GK_F32}};
    static const gk_trans tr[2] = {GK_NO_TRANS, GK_TRANS};
    static const float betas[3] = {0.0f, 1.0f, -1.5f};
    float *dscale = NULL;
    const float scales[2] = {SCALE_A, SCALE_B};
    T_REQUIRE(cudaMalloc(&dscale, sizeof scales) == cudaSuccess &&
                  cudaMemcpy(dscale, scales, sizeof scales, cudaMemcpyHostToDevice) == cudaSuccess,
              "scales: cudaMalloc/cudaMemcpy");
    t_rng r = {0xe7a5u};
    int runs = 0;
    for (int p = 0; p < (int)(sizeof pairs / sizeof pairs[0]); p++)
        for (int v = 0; v < 4; v++)
            for (int chunked = 0; chunked < 2; chunked++) {
                const gk_layout l = v & 1 ? GK_ROW_MAJOR : GK_COL_MAJOR;
                const gk_trans ta = tr[(v >> 1) & 1], tb = tr[((v >> 1) ^ v) & 1];
                const float beta = betas[(p + v + chunked) % 3];
                xcase c = make_xcase(pairs[p][0], pairs[p][1], pairs[p][2], l, ta, tb, beta,
                                     chunked != 0, ((v + chunked) & 1) != 0);
                if (p == 1 && v == 3) c.nctx = 2;
                char msg[400], desc[200];
                if (run_xcase(c, dscale, &r, msg, sizeof msg)) {
                    xcase_str(c, desc, sizeof desc);
                    cudaFree(dscale);
                    T_REQUIRE(0, "%s: %s", desc, msg);
                }
                runs++;
            }
    cudaFree(dscale);
    T_CHECK(runs == 64, "ran %d cases", runs);
}

/* alpha == 0 and K == 0 on a 16-bit C: scaled on the host and rounded as gk_cuda_gemm_ex rounds;
 * beta == 0 clears NaN. */
static void ex_scale_only(void) {
    NEED_DEVICE();
    uint16_t c[6];
    for (int i = 0; i < 6; i++)
        c[i] = gk_encode_bf16(i == 0 ? NAN : (float)i, 0);
    T_CHECK(gk_cuda_gemm_ex_host(g_one, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 2, 3, 0, 1.0f,
                                 GK_BF16, NULL, 2, GK_BF16, NULL, 1, 0.0f, GK_BF16, c, 2,
                                 NULL) == GK_SUCCESS,
            "k=0: %s", gk_last_error());
    for (int i = 0; i < 6; i++)
        T_CHECK(c[i] == 0, "k=0 beta=0: c[%d]=0x%04x", i, c[i]);
    uint16_t h[6];
    const uint16_t ab[6] = {0};
    for (int i = 0; i < 6; i++)
        h[i] = gk_encode_f16(1.0f + (float)i / 1024.0f, 0);
    T_CHECK(gk_cuda_gemm_ex_host(g_one, GK_ROW_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 2, 3, 2, 0.0f,
                                 GK_F16, ab, 2, GK_F16, ab, 3, 0.3f, GK_F16, h, 3,
                                 NULL) == GK_SUCCESS,
            "alpha=0: %s", gk_last_error());
    for (int i = 0; i < 6; i++) {
        const uint16_t want =
            gk_encode_f16(0.3f * gk_decode_f16(gk_encode_f16(1.0f + (float)i / 1024.0f, 0)), 0);
        T_CHECK(h[i] == want, "alpha=0 beta=0.3: h[%d]=0x%04x, want 0x%04x", i, h[i], want);
    }
}

/* gk_cuda_gemm_ex's argument checks, in its order, with messages naming the argument; C
 * untouched. */
static void ex_bad_arguments(void) {
    NEED_DEVICE();
    uint16_t a[17] = {0}, b[17] = {0}, c[17], c0[17];
    for (int i = 0; i < 17; i++)
        c[i] = c0[i] = (uint16_t)i;
    gk_cuda_ctx *dup[2] = {g_one, g_one};
    const gk_layout L = GK_COL_MAJOR;
    const gk_trans N = GK_NO_TRANS;
    const gk_format B = GK_BF16;
    struct {
        gk_status want;
        const char *needle;
        gk_status got;
        char message[256];
    } cases[9];
    int n = 0;
#define EX_CASE(want_, needle_, call_)                                                             \
    cases[n].want = want_, cases[n].needle = needle_, cases[n].got = call_;                        \
    snprintf(cases[n].message, sizeof cases[n].message, "%s", gk_last_error());                    \
    n++
    EX_CASE(GK_ERR_INVALID_VALUE, "ctx",
            gk_cuda_gemm_ex_host(NULL, L, N, N, 4, 4, 4, 1, B, a, 4, B, b, 4, 0, B, c, 4, NULL));
    EX_CASE(GK_ERR_INVALID_VALUE, "same context",
            gk_cuda_gemm_ex_host_multi(dup, 2, L, N, N, 4, 4, 4, 1, B, a, 4, B, b, 4, 0, B, c, 4,
                                       NULL));
    EX_CASE(GK_ERR_INVALID_VALUE, "atype",
            gk_cuda_gemm_ex_host(g_one, L, N, N, 4, 4, 4, 1, (gk_format)99, a, 4, B, b, 4, 0, B, c,
                                 4, NULL));
    EX_CASE(
        GK_ERR_UNSUPPORTED, "btype",
        gk_cuda_gemm_ex_host(g_one, L, N, N, 4, 4, 4, 1, B, a, 4, GK_F16, b, 4, 0, B, c, 4, NULL));
    EX_CASE(GK_ERR_UNSUPPORTED, "ctype",
            gk_cuda_gemm_ex_host(g_one, L, N, N, 4, 4, 4, 1, B, a, 4, B, b, 4, 0, GK_F8_E4M3FN, c,
                                 4, NULL));
    EX_CASE(GK_ERR_INVALID_LD, "lda",
            gk_cuda_gemm_ex_host(g_one, L, N, N, 4, 4, 4, 1, B, a, 3, B, b, 4, 0, B, c, 4, NULL));
    EX_CASE(
        GK_ERR_NULL_POINTER, "b",
        gk_cuda_gemm_ex_host(g_one, L, N, N, 4, 4, 4, 1, B, a, 4, B, NULL, 4, 0, B, c, 4, NULL));
    EX_CASE(GK_ERR_INVALID_POINTER, "c",
            gk_cuda_gemm_ex_host(g_one, L, N, N, 4, 4, 4, 1, B, a, 4, B, b, 4, 0, B, (char *)c + 1,
                                 4, NULL));
    gk_gemm_ex_opts o;
    memset(&o, 0, sizeof o);
    o.scale_a = (const float *)((char *)a + 2);
    EX_CASE(GK_ERR_INVALID_POINTER, "opts->scale_a",
            gk_cuda_gemm_ex_host(g_one, L, N, N, 4, 4, 4, 1, B, a, 4, B, b, 4, 0, B, c, 4, &o));
#undef EX_CASE
    for (int i = 0; i < n; i++) {
        T_CHECK(cases[i].got == cases[i].want, "case %s: got %s, want %s", cases[i].needle,
                gk_status_string(cases[i].got), gk_status_string(cases[i].want));
        T_CHECK(strstr(cases[i].message, cases[i].needle) != NULL,
                "case %s: message '%s' does not name it", cases[i].needle, cases[i].message);
        T_CHECK(strstr(cases[i].message, "gk_cuda_gemm_ex_host") != NULL,
                "case %s: message '%s' does not name the call", cases[i].needle, cases[i].message);
    }
    T_CHECK(!memcmp(c, c0, sizeof c), "C changed by a failed call");
}

/* A copy that fails at each copy in turn, with K chunked into a bfloat16 C (the float32
 * accumulation tile): GK_ERR_CUDA, C's elements old or final, no device memory leaked. */
static void ex_injected_copy_failure(void) {
#ifdef GK_CUDA_EMULATED
    t_rng r = {0x7a12u};
    for (int pin = 0; pin < 2; pin++) {
        xcase c = make_xcase(GK_BF16, GK_BF16, GK_BF16, GK_COL_MAJOR, GK_NO_TRANS, GK_TRANS,
                             pin ? 0.5f : 0.0f, true, pin != 0);
        xdata d;
        make_xdata(d, c, &r);
        const gk_gemm_args g = args_of(c);
        char buf[32];
        snprintf(buf, sizeof buf, "%lld", (long long)gk_ooc_need(g_one, g, 16, 16, 8, types_of(c)));
        setenv("GEMMKIT_CUDA_MEM_LIMIT", buf, 1);
        std::vector<uint8_t> good, got;
        T_REQUIRE(xhost_call(d, NULL, good) == GK_SUCCESS, "clean run: %s", gk_last_error());
        int failed_calls = 0;
        for (int at = 1; at < 400; at++) {
            const size_t used = gk_emu_device_used;
            gk_emu_copy_fail_after = at;
            const gk_status st = xhost_call(d, NULL, got);
            const int fired = gk_emu_copy_fail_after == 0;
            gk_emu_copy_fail_after = 0;
            T_CHECK(gk_emu_device_used == used, "at %d: %zu device bytes leaked", at,
                    gk_emu_device_used - used);
            if (!fired) break;
            failed_calls++;
            T_CHECK(st == GK_ERR_CUDA, "at %d: status %s", at, gk_status_string(st));
            for (size_t i = 0; i < got.size(); i += 2)
                T_REQUIRE(!memcmp(&got[i], &good[i], 2) || !memcmp(&got[i], &d.cb.c0[i], 2),
                          "at %d: C byte %zu is neither old nor final", at, i);
        }
        T_CHECK(failed_calls > 10, "only %d copies to fail", failed_calls);
    }
    unsetenv("GEMMKIT_CUDA_MEM_LIMIT");
#else
    T_SKIP("needs the CUDA emulation's copy-failure injection (test_sgemm_host_emulated.sh)");
#endif
}

/* Without a device: GK_ERR_NO_DEVICE from context creation, nothing to run. */
static void no_device(void) {
    if (g_have_device) T_SKIP("a CUDA device is present");
    float c = 0;
    T_CHECK(gk_cuda_sgemm_host(NULL, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 1, 1, 1, 1, &c, 1, &c,
                               1, 0, &c, 1) != GK_SUCCESS,
            "NULL ctx accepted");
}

int main(int argc, char **argv) {
    if ((g_small = t_small_option(argc, argv)) < 0) return 2;
    g_have_device = gk_cuda_available();
    if (g_have_device && (gk_cuda_create(&g_one, 0, NULL) != GK_SUCCESS ||
                          gk_cuda_create(&g_two, 0, NULL) != GK_SUCCESS)) {
        printf("FAIL setup: gk_cuda_create: %s\n", gk_last_error());
        return 1;
    }
    T_RUN(no_device);
    T_RUN(tiled_k_whole);
    T_RUN(tiled_k_chunked);
    T_RUN(two_contexts);
    T_RUN(scale_only);
    T_RUN(bad_arguments);
    T_RUN(budgets);
    T_RUN(injected_copy_failure);
    T_RUN(ex_types);
    T_RUN(ex_scale_only);
    T_RUN(ex_bad_arguments);
    T_RUN(ex_injected_copy_failure);
    gk_cuda_destroy(g_one), gk_cuda_destroy(g_two);
    return t_finish();
}
