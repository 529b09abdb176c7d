/*
 * test_dist.cu — tests of the distributed SGEMM over NCCL (gk_cuda_dist_*; src/cuda/multi/dist.cu,
 * nccl.cu; docs/cuda.md "Distributed SGEMM over NCCL").
 *
 * Without a GPU: NCCL missing (GEMMKIT_NCCL_LIB naming a file that does not exist) is
 * GK_ERR_UNSUPPORTED naming the path; NCCL present loads and makes a unique id (skip when no NCCL
 * is installed); gk_cuda_dist_range; creation and call argument errors (the call's checks through
 * gk_dist_prepare on a made-up grid rank); and the host plan on every small grid, both layouts and
 * every transposition pair: the K panels tile K in order within both operands' blocks, and SUMMA
 * simulated on the CPU from each rank's blocks (the owners and offsets dist.cu uses) gives C within
 * the float64 rule. With GPUs: a 1 x 1 grid (both creation paths) bitwise against gk_cuda_sgemm
 * with the default panel, and within the rule with narrow panels (the pipeline without
 * broadcasts), also through the pack copies a larger grid makes (gk_dist_set_pack_all); with >= 2
 * GPUs the 1 x G, G x 1 and P x Q grids against the rule, one rank per
 * thread. Cases that need what is absent say "skip".
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <string>
#include <thread>
#include <vector>

#include "check.h"
#include "cuda/multi/dist.h"
#include "gemmkit.h"
extern "C" {
#include "ref.h"
}

static int g_devices;
static int g_small; /* --small: smaller GPU shapes (the CPU emulation) */
static int g_nccl;  /* NCCL loads here */
static char g_nccl_why[512];

/* ---- matrices in the caller's terms -----------------------------------------------------------
 */

/* Index of element (i, j) of a stored matrix. */
static int64_t at(gk_layout layout, int64_t ld, int64_t i, int64_t j) {
    return layout == GK_COL_MAJOR ? i + j * ld : i * ld + j;
}

/* One rank's copy of the block rows [r0, r0 + nr) x cols [c0, c0 + nc) of op(X) (X stored with
 * transposition t in `layout`, ld), stored the same way with leading dimension *ld_out (the
 * smallest legal plus `pad`); a NaN fills the gaps. */
static std::vector<float> block_of(const float *x, gk_layout layout, gk_trans t, int64_t ld,
                                   int64_t r0, int64_t nr, int64_t c0, int64_t nc, int64_t pad,
                                   int64_t *ld_out) {
    const int64_t ldl = t_min_ld(layout, t, nr, nc) + pad;
    const int64_t rows = t == GK_NO_TRANS ? nr : nc, cols = t == GK_NO_TRANS ? nc : nr;
    const int64_t span = rows == 0 || cols == 0 ? 1 : gkh_extent(layout, rows, cols, ldl);
    std::vector<float> out((size_t)span, NAN);
    for (int64_t i = 0; i < nr; i++)
        for (int64_t j = 0; j < nc; j++) {
            const int64_t gi = r0 + i, gj = c0 + j;
            out[(size_t)(t == GK_NO_TRANS ? at(layout, ldl, i, j) : at(layout, ldl, j, i))] =
                x[t == GK_NO_TRANS ? at(layout, ld, gi, gj) : at(layout, ld, gj, gi)];
        }
    *ld_out = ldl;
    return out;
}

/* The three blocks of one rank, on the host. */
struct Blocks {
    int64_t r0, ml, c0, nl, ka0, kal, kb0, kbl;
    std::vector<float> a, b, c;
    int64_t lda, ldb, ldc;
};

static Blocks blocks_of(const t_gemm_data &d, int p, int q, int row, int col) {
    const t_gemm_case &cs = d.cs;
    Blocks bl;
    gk_cuda_dist_range(cs.m, p, row, &bl.r0, &bl.ml);
    gk_cuda_dist_range(cs.n, q, col, &bl.c0, &bl.nl);
    gk_cuda_dist_range(cs.k, q, col, &bl.ka0, &bl.kal);
    gk_cuda_dist_range(cs.k, p, row, &bl.kb0, &bl.kbl);
    bl.a = block_of(d.a, cs.layout, cs.ta, cs.lda, bl.r0, bl.ml, bl.ka0, bl.kal, 2, &bl.lda);
    bl.b = block_of(d.b, cs.layout, cs.tb, cs.ldb, bl.kb0, bl.kbl, bl.c0, bl.nl, 1, &bl.ldb);
    bl.c = block_of(d.c, cs.layout, GK_NO_TRANS, cs.ldc, bl.r0, bl.ml, bl.c0, bl.nl, 3, &bl.ldc);
    return bl;
}

/* Write a rank's C block back into the global C. */
static void gather(t_gemm_data &d, const Blocks &bl) {
    const t_gemm_case &cs = d.cs;
    for (int64_t i = 0; i < bl.ml; i++)
        for (int64_t j = 0; j < bl.nl; j++)
            d.c[at(cs.layout, cs.ldc, bl.r0 + i, bl.c0 + j)] =
                bl.c[(size_t)at(cs.layout, bl.ldc, i, j)];
}

/* ---- without a GPU -----------------------------------------------------------------------------
 */

/* First case of the program: a successful load is kept for the process's life. */
static void nccl_missing(void) {
    const char *old = getenv("GEMMKIT_NCCL_LIB");
    std::string saved = old ? old : "";
    const char *bad = "/nonexistent/gemmkit-test/libnccl.so.2";
    setenv("GEMMKIT_NCCL_LIB", bad, 1);
    int version = -1;
    const gk_status st = gk_cuda_nccl_version(&version);
    T_CHECK(st == GK_ERR_UNSUPPORTED && strstr(gk_last_error(), bad) != NULL && version == 0,
            "gk_cuda_nccl_version: status %d, version %d: %s", (int)st, version, gk_last_error());
    unsigned char id[GK_CUDA_DIST_ID_BYTES];
    T_CHECK(gk_cuda_dist_unique_id(id) == GK_ERR_UNSUPPORTED &&
                strstr(gk_last_error(), "GEMMKIT_NCCL_LIB") != NULL,
            "gk_cuda_dist_unique_id: %s", gk_last_error());
    gk_cuda_dist *d = (gk_cuda_dist *)&d;
    T_CHECK(gk_cuda_dist_create_all(&d, 1, 1, NULL) == GK_ERR_UNSUPPORTED && d == NULL,
            "gk_cuda_dist_create_all: %s", gk_last_error());
    if (old)
        setenv("GEMMKIT_NCCL_LIB", saved.c_str(), 1);
    else
        unsetenv("GEMMKIT_NCCL_LIB");
}

static void nccl_loads(void) {
    int version = 0;
    const gk_status st = gk_cuda_nccl_version(&version);
    if (st == GK_ERR_UNSUPPORTED) {
        snprintf(g_nccl_why, sizeof g_nccl_why, "%s", gk_last_error());
        T_SKIP("%s", g_nccl_why);
    }
    T_REQUIRE(st == GK_SUCCESS && version >= 21800, "status %d version %d: %s", (int)st, version,
              gk_last_error());
    g_nccl = 1;
    unsigned char id[GK_CUDA_DIST_ID_BYTES] = {0};
    const gk_status sid = gk_cuda_dist_unique_id(id);
    T_REQUIRE(sid == GK_SUCCESS, "gk_cuda_dist_unique_id: %s", gk_last_error());
    int nonzero = 0;
    for (unsigned char x : id)
        nonzero |= x != 0;
    T_CHECK(nonzero, "the unique id is all zero");
    printf("# NCCL %d\n", version);
}

static void ranges(void) {
    const int64_t want[3][2] = {{0, 4}, {4, 3}, {7, 3}};
    for (int i = 0; i < 3; i++) {
        int64_t f = -1, c = -1;
        T_CHECK(gk_cuda_dist_range(10, 3, i, &f, &c) == GK_SUCCESS && f == want[i][0] &&
                    c == want[i][1],
                "range(10, 3, %d) = [%lld, +%lld)", i, (long long)f, (long long)c);
    }
    int64_t f, c;
    T_CHECK(gk_cuda_dist_range(2, 4, 3, &f, &c) == GK_SUCCESS && f == 2 && c == 0,
            "range(2, 4, 3) = [%lld, +%lld)", (long long)f, (long long)c);
    T_CHECK(gk_cuda_dist_range(-1, 2, 0, &f, &c) == GK_ERR_INVALID_SIZE, "n < 0");
    T_CHECK(gk_cuda_dist_range(5, 0, 0, &f, &c) == GK_ERR_INVALID_VALUE &&
                strstr(gk_last_error(), "parts") != NULL,
            "parts 0: %s", gk_last_error());
    T_CHECK(gk_cuda_dist_range(5, 2, 2, &f, &c) == GK_ERR_INVALID_VALUE &&
                strstr(gk_last_error(), "index") != NULL,
            "index 2: %s", gk_last_error());
    T_CHECK(gk_cuda_dist_range(5, 2, 0, NULL, &c) == GK_ERR_NULL_POINTER, "first NULL");
}

#define EXPECT(call, status, word)                                                                 \
    do {                                                                                           \
        const gk_status st_ = (call);                                                              \
        T_CHECK(st_ == (status) && strstr(gk_last_error(), word) != NULL,                          \
                "%s: status %d (want %d), message \"%s\" lacks \"%s\"", #call, (int)st_,           \
                (int)(status), gk_last_error(), word);                                             \
    } while (0)

static void create_errors(void) {
    unsigned char id[GK_CUDA_DIST_ID_BYTES] = {0};
    gk_cuda_dist *d = NULL, *ds[4];
    EXPECT(gk_cuda_dist_create(NULL, 1, 1, 0, id, 0), GK_ERR_INVALID_VALUE, "dist is NULL");
    EXPECT(gk_cuda_dist_create(&d, 0, 1, 0, id, 0), GK_ERR_INVALID_VALUE, "p=0");
    EXPECT(gk_cuda_dist_create(&d, 2, -1, 0, id, 0), GK_ERR_INVALID_VALUE, "q=-1");
    EXPECT(gk_cuda_dist_create(&d, 65536, 65536, 0, id, 0), GK_ERR_INVALID_VALUE, "p * q");
    EXPECT(gk_cuda_dist_create(&d, 2, 2, 4, id, 0), GK_ERR_INVALID_VALUE, "rank=4");
    EXPECT(gk_cuda_dist_create(&d, 2, 2, -1, id, 0), GK_ERR_INVALID_VALUE, "rank=-1");
    EXPECT(gk_cuda_dist_create(&d, 1, 1, 0, NULL, 0), GK_ERR_INVALID_VALUE, "id is NULL");
    EXPECT(gk_cuda_dist_create_all(NULL, 1, 1, NULL), GK_ERR_INVALID_VALUE, "dists is NULL");
    const int dup[2] = {0, 0};
    EXPECT(gk_cuda_dist_create_all(ds, 1, 2, dup), GK_ERR_INVALID_VALUE,
           "devices[0] and devices[1]");
    EXPECT(gk_cuda_dist_unique_id(NULL), GK_ERR_INVALID_VALUE, "id is NULL");
    T_CHECK(gk_cuda_dist_destroy(NULL) == GK_SUCCESS, "destroy(NULL)");
    gk_cuda_dist_info info;
    EXPECT(gk_cuda_dist_info_get(NULL, &info), GK_ERR_INVALID_VALUE, "dist is NULL");
    EXPECT(gk_cuda_dist_set_panel(NULL, 8), GK_ERR_INVALID_VALUE, "dist is NULL");
    EXPECT(gk_cuda_dist_sgemm(NULL, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 4, 4, 4, 1.0f,
                              (const float *)16, 4, (const float *)16, 4, 0.0f, (float *)16, 4),
           GK_ERR_INVALID_VALUE, "dist is NULL");
    if (g_nccl && g_devices == 0)
        EXPECT(gk_cuda_dist_create_all(ds, 1, 1, NULL), GK_ERR_NO_DEVICE, "no CUDA device");
}

/* The call's checks on rank (1, 2) of a 2 x 3 grid: m = 10 gives it rows [5, 10), n = 7 columns
 * [5, 7), k = 9 A's K [6, 9) (over q) and B's K [5, 9) (over p). */
static void call_errors(void) {
    const gk_dist_grid grid = {2, 3, 1, 2};
    const float *a = (const float *)16, *b = (const float *)16;
    float *c = (float *)16;
    gk_dist_call cl;
    const char *who = "gk_cuda_dist_sgemm";
#define PREP(layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, c, ldc)                               \
    gk_dist_prepare(who, grid, layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, 0.5f, c, ldc, &cl)
    const gk_layout COL = GK_COL_MAJOR, ROW = GK_ROW_MAJOR;
    const gk_trans N = GK_NO_TRANS, T = GK_TRANS;
    T_REQUIRE(PREP(COL, N, N, 10, 7, 9, 1.0f, a, 5, b, 4, c, 5) == GK_SUCCESS, "%s",
              gk_last_error());
    T_CHECK(cl.ml == 5 && cl.nl == 2 && cl.kal == 3 && cl.kbl == 4 && cl.m0 == 5 && cl.n0 == 5 &&
                cl.ka0 == 6 && cl.kb0 == 5 && cl.nm == 2 && cl.im == 1 && cl.nn == 3 &&
                cl.in_ == 2 && cl.a_on_rows,
            "column-major blocks");
    EXPECT(PREP(COL, N, N, 10, 7, 9, 1.0f, a, 4, b, 4, c, 5), GK_ERR_INVALID_LD, "lda=4");
    EXPECT(PREP(COL, N, N, 10, 7, 9, 1.0f, a, 5, b, 3, c, 5), GK_ERR_INVALID_LD, "ldb=3");
    EXPECT(PREP(COL, N, N, 10, 7, 9, 1.0f, a, 5, b, 4, c, 4), GK_ERR_INVALID_LD, "ldc=4");
    T_CHECK(PREP(COL, T, T, 10, 7, 9, 1.0f, a, 3, b, 2, c, 5) == GK_SUCCESS, "TT: %s",
            gk_last_error());
    EXPECT(PREP(COL, T, N, 10, 7, 9, 1.0f, a, 2, b, 4, c, 5), GK_ERR_INVALID_LD, "lda=2");
    /* row-major: A's block 5 x 3 needs lda >= 3, B's 4 x 2 ldb >= 2, C's 5 x 2 ldc >= 2 */
    T_REQUIRE(PREP(ROW, N, N, 10, 7, 9, 1.0f, a, 3, b, 2, c, 2) == GK_SUCCESS, "%s",
              gk_last_error());
    T_CHECK(cl.nm == 3 && cl.im == 2 && cl.nn == 2 && cl.in_ == 1 && !cl.a_on_rows && cl.ml == 2 &&
                cl.nl == 5 && cl.kal == 4 && cl.kbl == 3 && cl.g.a == b && cl.g.b == a,
            "row-major normalisation");
    EXPECT(PREP(ROW, N, N, 10, 7, 9, 1.0f, a, 2, b, 2, c, 2), GK_ERR_INVALID_LD, "lda=2");
    EXPECT(PREP(ROW, N, N, 10, 7, 9, 1.0f, a, 3, b, 2, c, 1), GK_ERR_INVALID_LD, "ldc=1");
    EXPECT(PREP(COL, N, N, 10, 7, 9, 1.0f, NULL, 5, b, 4, c, 5), GK_ERR_NULL_POINTER, "a is NULL");
    EXPECT(PREP(COL, N, N, 10, 7, 9, 1.0f, a, 5, NULL, 4, c, 5), GK_ERR_NULL_POINTER, "b is NULL");
    EXPECT(PREP(COL, N, N, 10, 7, 9, 1.0f, a, 5, b, 4, NULL, 5), GK_ERR_NULL_POINTER, "c is NULL");
    T_CHECK(PREP(COL, N, N, 10, 7, 9, 0.0f, NULL, 5, NULL, 4, c, 5) == GK_SUCCESS,
            "alpha 0 reads neither a nor b: %s", gk_last_error());
    /* m = 1: this rank (row 1) holds no rows of A or C, so it needs neither */
    T_CHECK(PREP(COL, N, N, 1, 7, 9, 1.0f, NULL, 1, b, 4, NULL, 1) == GK_SUCCESS,
            "empty blocks: %s", gk_last_error());
    EXPECT(PREP((gk_layout)5, N, N, 10, 7, 9, 1.0f, a, 5, b, 4, c, 5), GK_ERR_INVALID_LAYOUT,
           "layout=5");
    EXPECT(PREP(COL, (gk_trans)0, N, 10, 7, 9, 1.0f, a, 5, b, 4, c, 5), GK_ERR_INVALID_TRANS,
           "transa=0");
    EXPECT(PREP(COL, N, N, 10, -7, 9, 1.0f, a, 5, b, 4, c, 5), GK_ERR_INVALID_SIZE, "n=-7");
#undef PREP
}

/* Rank of the grid at normalised (part of m, part of n). */
static int rank_at(const gk_dist_call &cl, int q, int im, int in) {
    return cl.a_on_rows ? im * q + in : in * q + im;
}

/* SUMMA on the CPU from the ranks' host blocks, with gk_dist_prepare's calls and
 * gk_dist_panels' owners and offsets (as dist.cu reads them), into each rank's C block. */
static int simulate(t_gemm_data &d, int p, int q, int64_t width, char *msg, size_t len) {
    const t_gemm_case &cs = d.cs;
    const int nr = p * q;
    std::vector<Blocks> bl;
    std::vector<gk_dist_call> cl((size_t)nr);
    for (int r = 0; r < nr; r++)
        bl.push_back(blocks_of(d, p, q, r / q, r % q));
    for (int r = 0; r < nr; r++) {
        const gk_dist_grid grid = {p, q, r / q, r % q};
        Blocks &b = bl[(size_t)r];
        if (gk_dist_prepare("simulate", grid, cs.layout, cs.ta, cs.tb, cs.m, cs.n, cs.k, cs.alpha,
                            b.a.data(), b.lda, b.b.data(), b.ldb, cs.beta, b.c.data(), b.ldc,
                            &cl[(size_t)r]) != GK_SUCCESS) {
            snprintf(msg, len, "rank %d: %s", r, gk_last_error());
            return 1;
        }
    }
    for (int r = 0; r < nr; r++) {
        const gk_dist_call &me = cl[(size_t)r];
        const gk_gemm_args &g = me.g;
        gk_dist_panels it;
        gk_dist_panels_begin(&it, &me, width);
        gk_dist_panel pn;
        int64_t next = 0;
        for (int64_t t = 0; gk_dist_panels_next(&it, &pn); t++) {
            const gk_gemm_args &ga = cl[(size_t)rank_at(me, q, me.im, pn.a_root)].g;
            const gk_gemm_args &gb = cl[(size_t)rank_at(me, q, pn.b_root, me.in_)].g;
            const gk_dist_call &oa = cl[(size_t)rank_at(me, q, me.im, pn.a_root)];
            const gk_dist_call &ob = cl[(size_t)rank_at(me, q, pn.b_root, me.in_)];
            if (pn.k0 != next || pn.w < 1 || pn.w > width || pn.a_off < 0 ||
                pn.a_off + pn.w > oa.kal || pn.b_off < 0 || pn.b_off + pn.w > ob.kbl ||
                oa.ka0 + pn.a_off != pn.k0 || ob.kb0 + pn.b_off != pn.k0) {
                snprintf(msg, len, "rank %d panel %lld: k0 %lld w %lld a_off %lld b_off %lld", r,
                         (long long)t, (long long)pn.k0, (long long)pn.w, (long long)pn.a_off,
                         (long long)pn.b_off);
                return 1;
            }
            next = pn.k0 + pn.w;
            const float *pa = ga.a + (g.transa ? pn.a_off : pn.a_off * ga.lda);
            const float *pb = gb.b + (g.transb ? pn.b_off * gb.ldb : pn.b_off);
            for (int64_t j = 0; j < me.nl; j++)
                for (int64_t i = 0; i < me.ml; i++) {
                    float s = 0.0f;
                    for (int64_t kk = 0; kk < pn.w; kk++)
                        s += (g.transa ? pa[kk + i * ga.lda] : pa[i + kk * ga.lda]) *
                             (g.transb ? pb[j + kk * gb.ldb] : pb[kk + j * gb.ldb]);
                    float &cij = g.c[i + j * g.ldc];
                    const float c0 = t > 0 ? cij : g.beta == 0.0f ? 0.0f : g.beta * cij;
                    cij = g.alpha * s + c0;
                }
        }
        if (next != cs.k) {
            snprintf(msg, len, "rank %d: panels end at %lld, k = %lld", r, (long long)next,
                     (long long)cs.k);
            return 1;
        }
    }
    for (const Blocks &b : bl)
        gather(d, b);
    return 0;
}

static void plan_simulated(void) {
    const int grids[][2] = {{1, 1}, {1, 2}, {2, 1}, {2, 2}, {2, 3}, {3, 2}, {3, 3}};
    const int64_t shapes[][3] = {{11, 9, 13}, {5, 7, 2}, {1, 4, 6}};
    const int64_t widths[] = {1, 3, 64};
    const gk_trans tr[] = {GK_NO_TRANS, GK_TRANS};
    t_rng rng = {0x5eed0021};
    int cases = 0;
    for (const auto &gr : grids)
        for (const auto &sh : shapes)
            for (int lay = 0; lay < 2; lay++)
                for (gk_trans ta : tr)
                    for (gk_trans tb : tr)
                        for (int64_t w : widths) {
                            t_gemm_case cs = {};
                            cs.layout = lay ? GK_ROW_MAJOR : GK_COL_MAJOR;
                            cs.ta = ta, cs.tb = tb;
                            cs.m = sh[0], cs.n = sh[1], cs.k = sh[2];
                            cs.alpha = 1.25f, cs.beta = w == 3 ? 0.0f : -0.5f;
                            cs.nan_c = cs.beta == 0.0f;
                            cs.lda = t_min_ld(cs.layout, ta, cs.m, cs.k) + 1;
                            cs.ldb = t_min_ld(cs.layout, tb, cs.k, cs.n);
                            cs.ldc = t_min_ld(cs.layout, GK_NO_TRANS, cs.m, cs.n) + 2;
                            t_gemm_data d;
                            T_REQUIRE(t_gemm_data_init(&d, &cs, &rng) == 0, "out of memory");
                            char msg[512] = "";
                            int bad = simulate(d, gr[0], gr[1], w, msg, sizeof msg);
                            if (!bad) bad = t_gemm_data_verify(&d, 0.0, msg, sizeof msg);
                            char cstr[256];
                            t_case_str(&cs, cstr, sizeof cstr);
                            t_gemm_data_free(&d);
                            T_REQUIRE(!bad, "grid %dx%d panel %lld %s: %s", gr[0], gr[1],
                                      (long long)w, cstr, msg);
                            cases++;
                        }
    printf("# %d simulated cases\n", cases);
}

/* ---- on GPUs ----------------------------------------------------------------------------------
 */

/* One rank's device blocks. */
struct DevBlocks {
    float *a = nullptr, *b = nullptr, *c = nullptr;
};

static int to_device(int dev, const std::vector<float> &h, float **out) {
    cudaSetDevice(dev);
    return cudaMalloc(out, h.size() * 4) == cudaSuccess &&
           cudaMemcpy(*out, h.data(), h.size() * 4, cudaMemcpyHostToDevice) == cudaSuccess;
}

/* Run d's problem on the ranks dists (p x q, one thread each) with panel width `width`; C's
 * blocks are gathered into d.c. */
static int run_grid(t_gemm_data &d, gk_cuda_dist **dists, int p, int q, int64_t width, char *msg,
                    size_t len) {
    const t_gemm_case &cs = d.cs;
    const int nr = p * q;
    std::vector<Blocks> bl;
    std::vector<DevBlocks> db((size_t)nr);
    std::vector<int> dev((size_t)nr);
    int ok = 1;
    for (int r = 0; r < nr; r++) {
        gk_cuda_dist_info info;
        gk_cuda_dist_info_get(dists[r], &info);
        dev[(size_t)r] = info.device;
        gk_cuda_dist_set_panel(dists[r], width);
        bl.push_back(blocks_of(d, p, q, r / q, r % q));
        ok = ok && to_device(info.device, bl.back().a, &db[(size_t)r].a) &&
             to_device(info.device, bl.back().b, &db[(size_t)r].b) &&
             to_device(info.device, bl.back().c, &db[(size_t)r].c);
    }
    std::vector<gk_status> st((size_t)nr, GK_SUCCESS);
    std::vector<std::string> why((size_t)nr);
    if (ok) {
        std::vector<std::thread> th;
        for (int r = 0; r < nr; r++)
            th.emplace_back([&, r] {
                const Blocks &b = bl[(size_t)r];
                const DevBlocks &x = db[(size_t)r];
                st[(size_t)r] =
                    gk_cuda_dist_sgemm(dists[r], cs.layout, cs.ta, cs.tb, cs.m, cs.n, cs.k,
                                       cs.alpha, x.a, b.lda, x.b, b.ldb, cs.beta, x.c, b.ldc);
                if (st[(size_t)r] != GK_SUCCESS) why[(size_t)r] = gk_last_error();
                cudaSetDevice(dev[(size_t)r]);
                if (cudaDeviceSynchronize() != cudaSuccess && st[(size_t)r] == GK_SUCCESS)
                    st[(size_t)r] = GK_ERR_CUDA, why[(size_t)r] = "cudaDeviceSynchronize";
            });
        for (auto &t : th)
            t.join();
    } else {
        snprintf(msg, len, "device setup failed");
    }
    for (int r = 0; r < nr; r++) {
        if (ok && st[(size_t)r] != GK_SUCCESS) {
            snprintf(msg, len, "rank %d: %s", r, why[(size_t)r].c_str());
            ok = 0;
        }
        Blocks &b = bl[(size_t)r];
        cudaSetDevice(dev[(size_t)r]);
        if (ok && cudaMemcpy(b.c.data(), db[(size_t)r].c, b.c.size() * 4, cudaMemcpyDeviceToHost))
            snprintf(msg, len, "copy back"), ok = 0;
        cudaFree(db[(size_t)r].a), cudaFree(db[(size_t)r].b), cudaFree(db[(size_t)r].c);
    }
    if (ok)
        for (const Blocks &b : bl)
            gather(d, b);
    return ok ? 0 : 1;
}

/* gk_cuda_sgemm on device 0 on the 1 x 1 grid's blocks, so that it gets the same leading
 * dimensions and pointer alignments as the distributed call (both can choose the kernel plan):
 * C into out, in c_buf's layout. */
static int single_gpu(const t_gemm_data &d, std::vector<float> &out) {
    const t_gemm_case &cs = d.cs;
    Blocks bl = blocks_of(d, 1, 1, 0, 0);
    DevBlocks x;
    gk_cuda_ctx *ctx = NULL;
    cudaSetDevice(0);
    int ok = gk_cuda_create(&ctx, 0, NULL) == GK_SUCCESS && to_device(0, bl.a, &x.a) &&
             to_device(0, bl.b, &x.b) && to_device(0, bl.c, &x.c);
    ok = ok && gk_cuda_sgemm(ctx, cs.layout, cs.ta, cs.tb, cs.m, cs.n, cs.k, cs.alpha, x.a, bl.lda,
                             x.b, bl.ldb, cs.beta, x.c, bl.ldc) == GK_SUCCESS;
    ok = ok && cudaMemcpy(bl.c.data(), x.c, bl.c.size() * 4, cudaMemcpyDeviceToHost) == cudaSuccess;
    cudaFree(x.a), cudaFree(x.b), cudaFree(x.c);
    gk_cuda_destroy(ctx);
    out.assign(d.c_buf, d.c_buf + d.c_len);
    const size_t off = (size_t)(d.c - d.c_buf);
    for (int64_t i = 0; i < cs.m; i++)
        for (int64_t j = 0; j < cs.n; j++)
            out[off + (size_t)at(cs.layout, cs.ldc, i, j)] =
                bl.c[(size_t)at(cs.layout, bl.ldc, i, j)];
    return ok;
}

static t_gemm_case gpu_case(gk_layout layout, gk_trans ta, gk_trans tb, int64_t m, int64_t n,
                            int64_t k, float beta) {
    t_gemm_case cs = {};
    cs.layout = layout, cs.ta = ta, cs.tb = tb, cs.m = m, cs.n = n, cs.k = k;
    cs.alpha = 0.75f, cs.beta = beta, cs.nan_c = beta == 0.0f;
    cs.lda = t_min_ld(layout, ta, m, k) + 5;
    cs.ldb = t_min_ld(layout, tb, k, n) + 3;
    cs.ldc = t_min_ld(layout, GK_NO_TRANS, m, n) + 1;
    return cs;
}

/* The cases of one grid: odd shapes, both layouts, transposition pairs, beta 0 (NaN C) and not,
 * panel widths; bitwise against gk_cuda_sgemm where `bitwise` (1 x 1, default panel). */
static void grid_cases(gk_cuda_dist **dists, int p, int q, const int64_t *widths, int nw,
                       int bitwise) {
    const int64_t shapes[][3] = {{257, 131, 389}, {64, 1000, 77}, {1, 33, 512}};
    const int64_t small[][3] = {{37, 19, 53}, {1, 9, 16}}; /* --small: the CPU emulation */
    const gk_trans tr[] = {GK_NO_TRANS, GK_TRANS};
    t_rng rng = {0xd157};
    const int64_t(*list)[3] = g_small ? small : shapes;
    for (int si = 0; si < (g_small ? 2 : 3); si++)
        for (int lay = 0; lay < 2; lay++)
            for (gk_trans ta : tr)
                for (gk_trans tb : tr)
                    for (int wi = 0; wi < nw; wi++) {
                        const float beta = (wi + lay) % 2 ? -1.5f : 0.0f;
                        const int64_t *sh = list[si];
                        t_gemm_case cs = gpu_case(lay ? GK_ROW_MAJOR : GK_COL_MAJOR, ta, tb, sh[0],
                                                  sh[1], sh[2], beta);
                        t_gemm_data d;
                        T_REQUIRE(t_gemm_data_init(&d, &cs, &rng) == 0, "out of memory");
                        char msg[512] = "";
                        std::vector<float> want; /* before the call: it reads C */
                        const int cmp = bitwise && widths[wi] == 0;
                        int bad = cmp && !single_gpu(d, want);
                        if (bad) snprintf(msg, sizeof msg, "gk_cuda_sgemm: %s", gk_last_error());
                        if (!bad) bad = run_grid(d, dists, p, q, widths[wi], msg, sizeof msg);
                        if (!bad) bad = t_gemm_data_verify(&d, 0.0, msg, sizeof msg);
                        if (!bad && cmp && memcmp(want.data(), d.c_buf, (size_t)d.c_len * 4) != 0) {
                            snprintf(msg, sizeof msg, "not bitwise equal to gk_cuda_sgemm");
                            bad = 1;
                        }
                        char cstr[256];
                        t_case_str(&cs, cstr, sizeof cstr);
                        t_gemm_data_free(&d);
                        T_REQUIRE(!bad, "grid %dx%d panel %lld %s: %s", p, q, (long long)widths[wi],
                                  cstr, msg);
                    }
}

#define NEED_GPUS(n)                                                                               \
    do {                                                                                           \
        if (!g_nccl) T_SKIP("NCCL not available: %s", g_nccl_why);                                 \
        if (g_devices < (n)) T_SKIP("needs %d CUDA device(s), %d visible", n, g_devices);          \
    } while (0)
/* Under the CUDA emulation (test_dist_emulated.sh) NCCL is real but the devices are not: only the
 * 1 x 1 grid of gk_cuda_dist_create_all, which makes no communicator, can run there. */
#ifdef GK_CUDA_EMULATED
#define NEED_COMMUNICATORS() T_SKIP("the CUDA emulation's devices cannot hold NCCL communicators")
#else
#define NEED_COMMUNICATORS() (void)0
#endif

static void one_gpu_grid(void) {
    NEED_GPUS(1);
    gk_cuda_dist *d = NULL;
    T_REQUIRE(gk_cuda_dist_create_all(&d, 1, 1, NULL) == GK_SUCCESS, "%s", gk_last_error());
    gk_cuda_dist_info info;
    T_CHECK(gk_cuda_dist_info_get(d, &info) == GK_SUCCESS && info.p == 1 && info.q == 1 &&
                info.rank == 0 && info.device == 0 && info.ctx != NULL,
            "info");
    const int64_t widths[] = {0, 64, 7};
    grid_cases(&d, 1, 1, widths, 3, 1);
    /* the panels through the pack copies and buffers a larger grid uses (nothing to broadcast) */
    gk_dist_set_pack_all(d, 1);
    grid_cases(&d, 1, 1, widths + 1, 2, 0);
    T_CHECK(gk_cuda_dist_destroy(d) == GK_SUCCESS, "destroy: %s", gk_last_error());
}

/* gk_cuda_dist_create from a unique id on one GPU (ncclCommInitRank of one rank). */
static void one_gpu_by_id(void) {
    NEED_GPUS(1);
    NEED_COMMUNICATORS();
    unsigned char id[GK_CUDA_DIST_ID_BYTES];
    T_REQUIRE(gk_cuda_dist_unique_id(id) == GK_SUCCESS, "%s", gk_last_error());
    gk_cuda_dist *d = NULL;
    T_REQUIRE(gk_cuda_dist_create(&d, 1, 1, 0, id, 0) == GK_SUCCESS, "%s", gk_last_error());
    const int64_t widths[] = {0, 100};
    grid_cases(&d, 1, 1, widths, 2, 1);
    T_CHECK(gk_cuda_dist_destroy(d) == GK_SUCCESS, "destroy: %s", gk_last_error());
}

/* 1 x G, G x 1 and, when G has a factorisation, P x Q, over every visible GPU. */
static void multi_gpu_grids(void) {
    NEED_GPUS(2);
    NEED_COMMUNICATORS();
    const int g = g_devices;
    int p = 1;
    for (int f = 2; f * f <= g; f++)
        if (g % f == 0) p = f;
    const int grids[][2] = {{1, g}, {g, 1}, {p, g / p}};
    const int64_t widths[] = {0, 1, 50};
    for (int i = 0; i < (p > 1 ? 3 : 2); i++) {
        std::vector<gk_cuda_dist *> ds((size_t)g, nullptr);
        T_REQUIRE(gk_cuda_dist_create_all(ds.data(), grids[i][0], grids[i][1], NULL) == GK_SUCCESS,
                  "grid %dx%d: %s", grids[i][0], grids[i][1], gk_last_error());
        grid_cases(ds.data(), grids[i][0], grids[i][1], widths, 3, 0);
        for (gk_cuda_dist *d : ds)
            T_CHECK(gk_cuda_dist_destroy(d) == GK_SUCCESS, "destroy: %s", gk_last_error());
        printf("# grid %dx%d checked\n", grids[i][0], grids[i][1]);
    }
}

/* One thread per GPU, each creating its rank from the shared unique id (ncclCommInitRank +
 * ncclCommSplit), on a 1 x G grid (or 2 x G/2 when G is even and > 2). */
static void multi_gpu_by_id(void) {
    NEED_GPUS(2);
    NEED_COMMUNICATORS();
    const int g = g_devices, p = g > 2 && g % 2 == 0 ? 2 : 1, q = g / p;
    unsigned char id[GK_CUDA_DIST_ID_BYTES];
    T_REQUIRE(gk_cuda_dist_unique_id(id) == GK_SUCCESS, "%s", gk_last_error());
    std::vector<gk_cuda_dist *> ds((size_t)g, nullptr);
    std::vector<gk_status> st((size_t)g);
    std::vector<std::string> why((size_t)g);
    std::vector<std::thread> th;
    for (int r = 0; r < g; r++)
        th.emplace_back([&, r] {
            st[(size_t)r] = gk_cuda_dist_create(&ds[(size_t)r], p, q, r, id, r);
            if (st[(size_t)r] != GK_SUCCESS) why[(size_t)r] = gk_last_error();
        });
    for (auto &t : th)
        t.join();
    for (int r = 0; r < g; r++)
        T_REQUIRE(st[(size_t)r] == GK_SUCCESS, "rank %d: %s", r, why[(size_t)r].c_str());
    const int64_t widths[] = {0, 33};
    grid_cases(ds.data(), p, q, widths, 2, 0);
    for (gk_cuda_dist *d : ds)
        T_CHECK(gk_cuda_dist_destroy(d) == GK_SUCCESS, "destroy: %s", gk_last_error());
}

int main(int argc, char **argv) {
    if ((g_small = t_small_option(argc, argv)) < 0) return 2;
    if (cudaGetDeviceCount(&g_devices) != cudaSuccess) {
        (void)cudaGetLastError();
        g_devices = 0;
    }
    snprintf(g_nccl_why, sizeof g_nccl_why, "not probed");
    T_RUN(nccl_missing);
    T_RUN(nccl_loads);
    T_RUN(ranges);
    T_RUN(create_errors);
    T_RUN(call_errors);
    T_RUN(plan_simulated);
    T_RUN(one_gpu_grid);
    T_RUN(one_gpu_by_id);
    T_RUN(multi_gpu_grids);
    T_RUN(multi_gpu_by_id);
    return t_finish();
}
