/*
 * test_sgemm_shapes.cu — the FP32 plan kinds of the production path (src/cuda/gemm/plan.h,
 * select.cu) on the shapes they exist for: GEMV-class (m or n in 1..8, odd and long K), split-K
 * (small m x n, long K), and the tiled plans, through gk_cuda_sgemm in both layouts and all four
 * transposition pairs, with odd leading dimensions, operands one float off 16-byte alignment, and
 * alpha/beta cases including beta = 0 over NaN in C, and the padded copy of a B whose rows
 * cannot take 16-byte copies (`padded_b_copy`). Every plan gk_sgemm_plan_candidates offers
 * (what `gemmkit tune` may store) also runs directly through gk_sgemm_plan_launch, with its
 * scratch and without any, and twice (the results must be bitwise equal: reductions are ordered).
 * `heuristic_picks` checks on the host, without a device, that the heuristic picks GEMV, split-K
 * and tiled plans for the shapes each is for (small thin problems stay tiled: the out-of-core
 * call's edge tiles must give the in-memory call's bits, docs/cuda.md), and that the plan
 * validity checks hold.
 *
 * Data and checks come from tests/common/ref.h (float64 reference, K-scaled bound, sentinels
 * around C). Without a device every device case reports "skip". `--small` runs small shapes only,
 * for compute-sanitizer (memcheck, racecheck).
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cuda/gemm/plan.h"
#include "gemmkit.h"
extern "C" {
#include "ref.h"
}

static int g_small;
static int g_have_device;
static int g_sm, g_sm_count;
static gk_cuda_ctx *g_ctx;

#define NEED_DEVICE()                                                                              \
    do {                                                                                           \
        if (!g_have_device) T_SKIP("no CUDA device");                                              \
    } while (0)

/* Device copies of a case's A, B and C buffers, each starting `off` floats past an allocation
 * (off 1: no operand is 16-byte aligned). */
struct Dev {
    float *a = nullptr, *b = nullptr, *c = nullptr; /* c: the device copy of c_buf */
    float *cm = nullptr;                            /* where C's block starts in it */
    float *base[3] = {nullptr, nullptr, nullptr};
    cudaError_t err = cudaSuccess;
    Dev(const t_gemm_data &d, int off) {
        const int64_t len[3] = {d.a_len, d.b_len, d.c_len};
        const float *src[3] = {d.a, d.b, d.c_buf};
        float **dst[3] = {&a, &b, &c};
        for (int i = 0; i < 3 && err == cudaSuccess; i++) {
            err = cudaMalloc(&base[i], (size_t)(len[i] + off) * sizeof(float));
            if (err == cudaSuccess) {
                *dst[i] = base[i] + off;
                err = cudaMemcpy(*dst[i], src[i], (size_t)len[i] * sizeof(float),
                                 cudaMemcpyHostToDevice);
            }
        }
        if (err == cudaSuccess) err = cudaDeviceSynchronize();
        cm = c + (d.c - d.c_buf);
    }
    ~Dev() {
        for (float *p : base)
            cudaFree(p);
    }
    /* Copy C back into d and verify everything (A, B untouched; guards; the accuracy rule). */
    int verify(t_gemm_data *d, char *msg, size_t len) {
        if ((err = cudaDeviceSynchronize()) ||
            (err = cudaMemcpy(d->c_buf, c, (size_t)d->c_len * sizeof(float),
                              cudaMemcpyDeviceToHost))) {
            snprintf(msg, len, "run: %s", cudaGetErrorString(err));
            return 1;
        }
        return t_gemm_data_verify(d, 0.0, msg, len);
    }
};

/* One case through gk_cuda_sgemm with operands `off` floats off alignment. 0 when it passes. */
static int run_api(const t_gemm_case &cs, int off, t_rng *r, char *msg, size_t len) {
    t_gemm_data d;
    if (t_gemm_data_init(&d, &cs, r)) {
        snprintf(msg, len, "out of host memory");
        return 1;
    }
    int rc = 1;
    {
        Dev dev(d, off);
        if (dev.err) {
            snprintf(msg, len, "setup: %s", cudaGetErrorString(dev.err));
        } else {
            const gk_status st =
                gk_cuda_sgemm(g_ctx, cs.layout, cs.ta, cs.tb, cs.m, cs.n, cs.k, cs.alpha, dev.a,
                              cs.lda, dev.b, cs.ldb, cs.beta, dev.cm, cs.ldc);
            if (st != GK_SUCCESS)
                snprintf(msg, len, "status %s: %s", gk_status_string(st), gk_last_error());
            else
                rc = dev.verify(&d, msg, len);
        }
    }
    if (rc) {
        char desc[200];
        t_case_str(&cs, desc, sizeof desc);
        const size_t used = strlen(msg);
        snprintf(msg + used, len - used, " [%s, offset %d]", desc, off);
    }
    t_gemm_data_free(&d);
    return rc;
}

static t_gemm_case make_case(gk_layout l, gk_trans ta, gk_trans tb, int64_t m, int64_t n, int64_t k,
                             float alpha, float beta, int ld_pad) {
    t_gemm_case cs;
    memset(&cs, 0, sizeof cs);
    cs.layout = l, cs.ta = ta, cs.tb = tb, cs.m = m, cs.n = n, cs.k = k;
    cs.alpha = alpha, cs.beta = beta, cs.nan_c = beta == 0.0f;
    cs.lda = t_min_ld(l, ta, m, k) + ld_pad;
    cs.ldb = t_min_ld(l, tb, k, n) + 2 * ld_pad;
    cs.ldc = (l == GK_COL_MAJOR ? m : n) + 3 * ld_pad;
    return cs;
}

static const float alphas[] = {1.0f, -0.5f, 2.5f}, betas[] = {0.0f, 1.0f, -1.5f};
static const gk_trans trans[] = {GK_NO_TRANS, GK_TRANS};

/* Shapes x (layout, transpositions, scalars, ld padding, alignment) drawn in turn. */
static void run_shapes(const int64_t (*shapes)[3], int count, uint64_t seed) {
    t_rng r = {seed};
    char msg[600];
    int failed = 0;
    for (int i = 0; i < count; i++) {
        const gk_layout l = i % 2 ? GK_ROW_MAJOR : GK_COL_MAJOR;
        const t_gemm_case cs =
            make_case(l, trans[(i / 2) % 2], trans[(i / 4) % 2], shapes[i][0], shapes[i][1],
                      shapes[i][2], alphas[i % 3], betas[i % 3], i % 3 == 2 ? 0 : 1 + 2 * (i % 4));
        if (run_api(cs, i % 2, &r, msg, sizeof msg) && !failed++) T_CHECK(0, "%s", msg);
    }
    T_CHECK(!failed, "%d of %d shapes failed", failed, count);
}

/* m or n in 1..8: the GEMV-class kernel, both thin sides, odd K, long K. */
static void gemv_shapes(void) {
    NEED_DEVICE();
    static const int64_t full[][3] = {
        {1, 8192, 4099},  {8192, 1, 4099}, {2, 3001, 2001}, {3001, 2, 2001}, {3, 1031, 999},
        {1031, 3, 999},   {4, 777, 20011}, {777, 4, 20011}, {5, 4097, 333},  {4097, 5, 333},
        {6, 129, 1},      {129, 6, 1},     {7, 2048, 1025}, {2048, 7, 1025}, {8, 1000, 20000},
        {1000, 8, 20000}, {1, 1, 20000},   {8, 8, 4093},    {1, 9, 7},       {9, 1, 7}};
    static const int64_t small[][3] = {{1, 300, 257}, {300, 1, 257}, {3, 77, 1031}, {77, 3, 1031},
                                       {8, 130, 65},  {130, 8, 65},  {5, 9, 13},    {1, 1, 1}};
    if (g_small)
        run_shapes(small, (int)(sizeof small / sizeof small[0]), 0x6e37ull);
    else
        run_shapes(full, (int)(sizeof full / sizeof full[0]), 0x6e37ull);
}

/* Small m x n with long K: split-K, prime and odd sizes. */
static void split_k_shapes(void) {
    NEED_DEVICE();
    static const int64_t full[][3] = {{64, 3000, 20000}, {3000, 64, 20000}, {61, 1009, 8191},
                                      {1009, 61, 8191},  {97, 2003, 4099},  {2003, 97, 4099},
                                      {128, 1024, 6151}, {9, 9, 30011},     {211, 223, 5003}};
    static const int64_t small[][3] = {{33, 70, 1031}, {70, 33, 1031}, {9, 17, 2053}};
    if (g_small)
        run_shapes(small, (int)(sizeof small / sizeof small[0]), 0x5b17ull);
    else
        run_shapes(full, (int)(sizeof full / sizeof full[0]), 0x5b17ull);
}

/* Both layouts x all four transposition pairs on one shape of each plan kind, odd ld, both
 * alignments, beta 0 over NaN and beta != 0. */
static void layouts_and_transpositions(void) {
    NEED_DEVICE();
    static const int64_t full[][3] = {
        {5, 1003, 2001}, {1003, 5, 2001}, {45, 700, 3001}, {301, 259, 177}};
    static const int64_t small[][3] = {{5, 103, 201}, {103, 5, 201}, {33, 45, 1031}, {37, 29, 23}};
    const int64_t(*shapes)[3] = g_small ? small : full;
    t_rng r = {0x7a11ull};
    char msg[600];
    int failed = 0, runs = 0;
    for (int s = 0; s < 4; s++)
        for (int l = 0; l < 2; l++)
            for (int ta = 0; ta < 2; ta++)
                for (int tb = 0; tb < 2; tb++, runs++) {
                    const t_gemm_case cs =
                        make_case(l ? GK_ROW_MAJOR : GK_COL_MAJOR, trans[ta], trans[tb],
                                  shapes[s][0], shapes[s][1], shapes[s][2], alphas[runs % 3],
                                  betas[runs % 3], 1 + runs % 5);
                    if (run_api(cs, runs % 2, &r, msg, sizeof msg) && !failed++)
                        T_CHECK(0, "%s", msg);
                }
    T_CHECK(!failed, "%d of %d runs failed", failed, runs);
}

/* Operands off alignment by one float and leading dimensions that are not multiples of 4, with
 * the same shapes also aligned: the vector paths must fall back, not misread. */
static void unaligned_operands(void) {
    NEED_DEVICE();
    static const int64_t shapes[][3] = {
        {3, 515, 1027}, {515, 3, 1027}, {40, 300, 2049}, {130, 131, 67}};
    t_rng r = {0xa119ull};
    char msg[600];
    int failed = 0;
    for (int s = 0; s < 4; s++)
        for (int off = 0; off < 2; off++)
            for (int pad = 0; pad < 2; pad++) {
                const t_gemm_case cs =
                    make_case(GK_ROW_MAJOR, GK_NO_TRANS, GK_NO_TRANS, shapes[s][0], shapes[s][1],
                              shapes[s][2], 1.5f, pad ? 0.0f : -1.0f, pad);
                if (run_api(cs, off, &r, msg, sizeof msg) && !failed++) T_CHECK(0, "%s", msg);
            }
    T_CHECK(!failed, "%d runs failed", failed);
}

/* The heuristic on the host: the plan kind each shape class is meant to get on an H100 (sm_90,
 * 132 SMs); every candidate valid, the pick first; invalid plans refused. */
/* A kernel B the tiled kernels cannot read with 16-byte copies (column-major A with an odd m or
 * lda, a misaligned pointer; row-major B likewise) is copied into padded rows once the kernel
 * has PAD_B_MIN_ROWS rows (dispatch.cu): the copy and the edge vectors over its padding. */
static void padded_b_copy(void) {
    NEED_DEVICE();
    struct Pad {
        gk_layout l;
        int64_t m, n, k;
        int ld_pad, off;
    };
    static const Pad pads[] = {{GK_COL_MAJOR, 301, 2100, 300, 0, 0},
                               {GK_COL_MAJOR, 300, 2050, 257, 1, 0},
                               {GK_COL_MAJOR, 300, 2049, 130, 0, 1},
                               {GK_ROW_MAJOR, 2100, 303, 200, 0, 0},
                               {GK_ROW_MAJOR, 2051, 5, 300, 0, 0},
                               {GK_COL_MAJOR, 1, 2100, 64, 0, 0}};
    t_rng r = {0x9addull};
    char msg[600];
    int failed = 0;
    for (int i = 0; i < (int)(sizeof pads / sizeof pads[0]); i++) {
        const Pad &q = pads[i];
        const t_gemm_case cs = make_case(q.l, GK_NO_TRANS, i % 2 ? GK_TRANS : GK_NO_TRANS, q.m, q.n,
                                         q.k, alphas[i % 3], betas[i % 3], q.ld_pad);
        if (run_api(cs, q.off, &r, msg, sizeof msg) && !failed++) T_CHECK(0, "%s", msg);
    }
    T_CHECK(!failed, "%d runs failed", failed);
}

static void heuristic_picks(void) {
    struct Want {
        int64_t m, n, k;
        int kind;
    };
    static const Want want[] = {
        {1, 8192, 8192, GK_PLAN_GEMV},      {8192, 1, 8192, GK_PLAN_GEMV},
        {8, 4096, 4096, GK_PLAN_GEMV},      {4096, 8, 4096, GK_PLAN_GEMV},
        {64, 8192, 8192, GK_PLAN_SPLIT_K},  {8192, 64, 8192, GK_PLAN_SPLIT_K},
        {64, 3000, 20000, GK_PLAN_SPLIT_K}, {4096, 4096, 4096, GK_PLAN_TILED},
        {8192, 8192, 64, GK_PLAN_TILED},    {8192, 8192, 8192, GK_PLAN_TILED},
        {3100, 3100, 500, GK_PLAN_TILED},   {1100, 2000, 601, GK_PLAN_TILED},
        {2048, 2048, 2048, GK_PLAN_TILED},  {9, 9, 16, GK_PLAN_TILED},
        {128, 3, 177, GK_PLAN_TILED},       {5, 45, 177, GK_PLAN_TILED}};
    /* under stream-K the big tile takes over from the size table's smaller ones once its grid
     * covers the SMs (select.cu): 3072^2 runs 128x256 tiles, 1000^2 keeps the table's */
    gk_rm_problem sq;
    memset(&sq, 0, sizeof sq);
    sq.m = sq.n = sq.k = 3072, sq.alpha = 1.0f, sq.lda = sq.ldb = sq.ldc = 3072;
    gk_sgemm_plan pl = gk_sgemm_plan_pick(sq, 90, 132);
    T_CHECK(pl.kind == GK_PLAN_TILED && pl.config == 4 && pl.split == 0,
            "3072^3: picked kind %d config %d split %d, want tiled/4", pl.kind, pl.config, pl.split);
    sq.m = sq.n = sq.k = sq.lda = sq.ldb = sq.ldc = 1000;
    pl = gk_sgemm_plan_pick(sq, 90, 132);
    T_CHECK(pl.kind == GK_PLAN_TILED && pl.config == 2, "1000^3: picked kind %d config %d",
            pl.kind, pl.config);
    for (const Want &w : want) {
        gk_rm_problem p;
        memset(&p, 0, sizeof p);
        p.m = w.m, p.n = w.n, p.k = w.k, p.alpha = 1.0f;
        p.lda = w.k, p.ldb = w.n, p.ldc = w.n;
        const gk_sgemm_plan pl = gk_sgemm_plan_pick(p, 90, 132);
        char name[32];
        T_CHECK(pl.kind == w.kind, "%lldx%lldx%lld: picked %s", (long long)w.m, (long long)w.n,
                (long long)w.k, gk_sgemm_plan_name(pl, name, sizeof name));
        T_CHECK(gk_sgemm_plan_valid(pl, p, 90, 132), "%lldx%lldx%lld: pick %s not valid",
                (long long)w.m, (long long)w.n, (long long)w.k,
                gk_sgemm_plan_name(pl, name, sizeof name));
        gk_sgemm_plan c[128];
        const int n = gk_sgemm_plan_candidates(p, 90, 132, c, 128);
        T_CHECK(n >= 1 && n <= 128, "%lld candidates", (long long)n);
        T_CHECK(n >= 1 && c[0].kind == pl.kind && c[0].config == pl.config &&
                    c[0].split == pl.split,
                "the pick is not the first candidate");
        for (int i = 0; i < n && i < 128; i++)
            T_CHECK(gk_sgemm_plan_valid(c[i], p, 90, 132), "candidate %s not valid",
                    gk_sgemm_plan_name(c[i], name, sizeof name));
        gk_sgemm_plan few[2];
        T_CHECK(gk_sgemm_plan_candidates(p, 90, 132, few, 2) == n, "count depends on cap");
    }
    gk_rm_problem p;
    memset(&p, 0, sizeof p);
    p.m = 100, p.n = 100, p.k = 1000, p.lda = 1000, p.ldb = 100, p.ldc = 100;
    const gk_sgemm_plan bad[] = {{GK_PLAN_GEMV, 0, 0},
                                 {GK_PLAN_TILED, 99, 0},
                                 {GK_PLAN_TILED, 0, 7},
                                 {GK_PLAN_SPLIT_K, 0, 1},
                                 {GK_PLAN_SPLIT_K, 0, 10000},
                                 {GK_PLAN_KINDS, 0, 0},
                                 {-1, 0, 0}};
    for (const gk_sgemm_plan &b : bad)
        T_CHECK(!gk_sgemm_plan_valid(b, p, 90, 132), "plan {%d,%d,%d} accepted", b.kind, b.config,
                b.split);
    T_CHECK(!gk_sgemm_plan_valid({GK_PLAN_TILED, 0, 0}, p, 70, 132), "sm_70 accepted");
    char name[32];
    T_CHECK(!strcmp(gk_sgemm_plan_name({GK_PLAN_SPLIT_K, 3, 4}, name, sizeof name), "splitk/3x4"),
            "name %s", name);
    T_CHECK(!strcmp(gk_sgemm_plan_name({GK_PLAN_TILED, 2, 1}, name, sizeof name), "tiled-dp/2"),
            "name %s", name);
    T_CHECK(!strcmp(gk_sgemm_plan_name({GK_PLAN_GEMV, 0, 0}, name, sizeof name), "gemv"), "name %s",
            name);
}

/* Every candidate plan of a few shapes, run directly on the kernel-contract problem (row-major,
 * non-transposed, so the case's own buffers are the problem), with its scratch and without, and
 * twice with scratch: each result within the accuracy rule, the two bitwise equal. */
static void plan_candidates(void) {
    NEED_DEVICE();
    static const int64_t full[][3] = {
        {5, 3001, 1999}, {3001, 3, 1999}, {64, 1000, 4100}, {200, 333, 1500}};
    static const int64_t small[][3] = {{5, 131, 300}, {131, 3, 300}, {33, 40, 1031}, {70, 90, 67}};
    const int64_t(*shapes)[3] = g_small ? small : full;
    t_rng r = {0xc4d1ull};
    char msg[600], name[32];
    int failed = 0, runs = 0;
    for (int s = 0; s < 4; s++) {
        const t_gemm_case cs =
            make_case(GK_ROW_MAJOR, GK_NO_TRANS, GK_NO_TRANS, shapes[s][0], shapes[s][1],
                      shapes[s][2], 0.75f, s % 2 ? 0.5f : 0.0f, s % 2);
        t_gemm_data d;
        T_REQUIRE(!t_gemm_data_init(&d, &cs, &r), "out of host memory");
        Dev dev(d, 0);
        T_REQUIRE(dev.err == cudaSuccess, "setup: %s", cudaGetErrorString(dev.err));
        gk_rm_problem p;
        p.m = cs.m, p.n = cs.n, p.k = cs.k, p.alpha = cs.alpha, p.beta = cs.beta;
        p.a = dev.a, p.lda = cs.lda, p.b = dev.b, p.ldb = cs.ldb, p.c = dev.cm;
        p.ldc = cs.ldc;
        gk_sgemm_plan c[128];
        int n = gk_sgemm_plan_candidates(p, g_sm, g_sm_count, c, 128);
        if (n > 128) n = 128;
        float *first = (float *)malloc((size_t)d.c_len * sizeof(float));
        T_REQUIRE(first != NULL, "out of host memory");
        for (int i = 0; i < n; i++)
            for (int pass = 0; pass < 3; pass++, runs++) { /* scratch, scratch again, none */
                const size_t bytes = gk_sgemm_plan_scratch(c[i], p, g_sm, g_sm_count);
                void *scratch = NULL;
                cudaError_t err = cudaSuccess;
                if (bytes && pass < 2 && !(err = cudaMalloc(&scratch, bytes)))
                    err = cudaMemset(scratch, 0, bytes < 4096 ? bytes : 4096);
                t_gemm_data_reset_c(&d);
                if (!err)
                    err = cudaMemcpy(dev.c, d.c_buf, (size_t)d.c_len * sizeof(float),
                                     cudaMemcpyHostToDevice);
                gk_launch_env env;
                env.stream = 0, env.sm = g_sm, env.sm_count = g_sm_count, env.scratch = scratch;
                if (!err) err = gk_sgemm_plan_launch(c[i], p, env);
                int bad = 0;
                if (err) {
                    snprintf(msg, sizeof msg, "%s", cudaGetErrorString(err));
                    bad = 1;
                } else {
                    bad = dev.verify(&d, msg, sizeof msg);
                }
                if (!bad && pass == 0) memcpy(first, d.c_buf, (size_t)d.c_len * sizeof(float));
                if (!bad && pass == 1 && memcmp(first, d.c_buf, (size_t)d.c_len * sizeof(float)))
                    bad = 1, snprintf(msg, sizeof msg, "two runs differ bitwise");
                cudaFree(scratch);
                if (bad && !failed++)
                    T_CHECK(0, "%lldx%lldx%lld plan %s (%s): %s", (long long)cs.m, (long long)cs.n,
                            (long long)cs.k, gk_sgemm_plan_name(c[i], name, sizeof name),
                            pass < 2 ? "with scratch" : "no scratch", msg);
            }
        free(first);
        t_gemm_data_free(&d);
    }
    T_CHECK(!failed, "%d of %d runs failed", failed, runs);
}

/* One GEMV whose A has more than 2^31 elements (65537 x 32771, n = 1): 64-bit indexing. */
static void over_2g_elements(void) {
    NEED_DEVICE();
    if (g_small) T_SKIP("not with --small");
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    if (free_b < ((size_t)12 << 30)) T_SKIP("needs 12 GB of device memory");
    t_rng r = {0xb16ull};
    char msg[600];
    const t_gemm_case cs =
        make_case(GK_ROW_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 65537, 1, 32771, 1.0f, 0.0f, 0);
    T_CHECK(!run_api(cs, 0, &r, msg, sizeof msg), "%s", msg);
}

int main(int argc, char **argv) {
    g_small = t_small_option(argc, argv);
    if (g_small < 0) return 2;
    g_have_device = gk_cuda_available();
    if (g_have_device) {
        if (gk_cuda_create(&g_ctx, 0, NULL) != GK_SUCCESS) {
            printf("FAIL setup: gk_cuda_create: %s\n", gk_last_error());
            return 1;
        }
        int major = 0, minor = 0;
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
        cudaDeviceGetAttribute(&g_sm_count, cudaDevAttrMultiProcessorCount, 0);
        g_sm = major * 10 + minor;
        if (g_sm < 80) g_have_device = 0; /* the FP32 production kernels need sm_80 */
    }
    T_RUN(heuristic_picks);
    T_RUN(padded_b_copy);
    T_RUN(gemv_shapes);
    T_RUN(split_k_shapes);
    T_RUN(layouts_and_transpositions);
    T_RUN(unaligned_operands);
    T_RUN(plan_candidates);
    T_RUN(over_2g_elements);
    if (g_ctx) gk_cuda_destroy(g_ctx);
    return t_finish();
}
