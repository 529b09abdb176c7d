/*
 * test_hopper_kernel.cu — the sm_90a tensor-core kernel (src/cuda/hopper/) tested directly through
 * its contract (hopper.h), below the public entry point: every configuration it instantiates
 * (BF16/FP16 with each operand K- or MN-major, TF32, 3xTF32, the three FP8 pairs with and without
 * float32 promotion) on shapes that are not multiples of any tile, K = 1, every output type,
 * alpha/beta with NaN in C when beta = 0, padded leading dimensions, and guard zones around C;
 * each tile width the launcher offers (forced through gk_tc_problem::tile_n, since the launcher's
 * own choice, sm90_plan.h, takes the narrowest for small shapes) and its choice on two larger
 * shapes.
 * Inputs are exact in their format, so the float64 reference uses the same values and the bound
 * only has to cover float32 accumulation (FP8 with fast accumulation: the tensor core's shorter
 * accumulator, docs/cuda.md). Skips everything on a device other than sm_90.
 *
 * `--bench` runs no test: it times the configurations at 4096 and 8192 (median of 20, L2 flushed)
 * for the device log (scripts/device_run.sh).
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "check.h"
#include "cuda/hopper/hopper.h"
#include "formats/scalar.h"

static int g_sm, g_sm_count;

struct tcase {
    gk_format ta, tb, tc;
    int a_mn, b_mn, fast, split3;
    int64_t m, n, k;
    float alpha, beta;
    int scales;
    int c_odd_ld;    /* ldc = n + 3: C not TMA-aligned, the epilogue's direct path */
    int tile_n;      /* gk_tc_problem::tile_n (0: the launcher's choice) */
    int swap, split; /* gk_tc_problem::swap / split (-1: the launcher's choice) */
    int batch_n;     /* gk_tc_problem::batch_n */
    uint64_t seed;   /* nonzero: the operands drawn from this seed (the same for every plan) */
};

/* The last case's C as the kernel left it (guards included), for bitwise comparisons. */
static std::vector<uint8_t> g_last_out;

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static double urand() { /* uniform in [-1, 1) */
    g_rng = g_rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(g_rng >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static __host__ __device__ int bytes_of(gk_format f) {
    return f == GK_F32 || f == GK_TF32 ? 4 : f == GK_BF16 || f == GK_F16 ? 2 : 1;
}

/* Store `code` in the element size of f at dst (little-endian, as the GPU reads it). */
static __host__ __device__ void store_code(gk_format f, uint32_t code, void *dst) {
    const int n = bytes_of(f);
    if (n == 4)
        *(uint32_t *)dst = code;
    else if (n == 2)
        *(uint16_t *)dst = (uint16_t)code;
    else
        *(uint8_t *)dst = (uint8_t)code;
}

/* Round x to format f (src/formats/scalar.h: nearest even, TF32 to 10 fraction bits in float32
 * storage) and store its bits at dst; returns the value stored. */
static double put(gk_format f, double x, void *dst) {
    const uint32_t code = gk_encode_scalar(f, (float)x, 0);
    store_code(f, code, dst);
    return gk_decode_scalar(f, code);
}

static double get(gk_format f, const void *src) {
    const int n = bytes_of(f);
    const uint32_t code = n == 4   ? *(const uint32_t *)src
                          : n == 2 ? *(const uint16_t *)src
                                   : *(const uint8_t *)src;
    return gk_decode_scalar(f, code);
}

static const char *fname(gk_format f) {
    switch (f) {
    case GK_F32:
        return "f32";
    case GK_TF32:
        return "tf32";
    case GK_BF16:
        return "bf16";
    case GK_F16:
        return "f16";
    case GK_F8_E4M3FN:
        return "e4m3";
    case GK_F8_E5M2:
        return "e5m2";
    default:
        return "?";
    }
}

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        T_REQUIRE(e_ == cudaSuccess, "%s: %s", #call, cudaGetErrorString(e_));                     \
    } while (0)

static tcase g_case;

/* Operand values: A (m x k) and B (k x n) as doubles, and their stored form. For 3xTF32 the stored
 * rows hold [hi | pad | lo]: hi = tf32(x), lo = tf32(x - hi), low part at column k_lo. */
static void build_operand(const tcase &c, bool is_a, std::vector<double> &val,
                          std::vector<uint8_t> &store, int64_t &ld, int64_t &k_lo) {
    const int64_t rows = is_a ? c.m : c.n, k = c.k;
    const gk_format f = is_a ? c.ta : c.tb;
    const int mn = is_a ? c.a_mn : c.b_mn, eb = bytes_of(f);
    const int64_t align = 16 / eb;
    k_lo = c.split3 ? (k + align - 1) / align * align + align : 0;
    const int64_t line = mn ? rows : (c.split3 ? k_lo + k : k);
    ld = (line + align - 1) / align * align + align; /* padded: the gap must never be read */
    const int64_t lines = mn ? k : rows;
    store.assign((size_t)(ld * lines * eb), 0xFF); /* NaN-ish filler in the gaps */
    val.assign((size_t)(rows * k), 0.0);
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t kk = 0; kk < k; ++kk) {
            const int64_t off = mn ? kk * ld + r : r * ld + kk;
            double x = urand();
            if (c.split3) {
                x *= 1.0 + urand() * 1e-3; /* use all 24 bits */
                const float xf = (float)x;
                const double hi = put(GK_TF32, xf, &store[(size_t)off * 4]);
                put(GK_TF32, xf - (float)hi, &store[(size_t)(off + k_lo) * 4]);
                val[(size_t)(r * k + kk)] = xf;
            } else {
                val[(size_t)(r * k + kk)] = put(f, x, &store[(size_t)off * eb]);
            }
        }
}

static void run_case(void) {
    const tcase &c = g_case;
    if (g_sm != 90) T_SKIP("needs an sm_90 device (found %d)", g_sm);
    if (c.seed) g_rng = c.seed;
    std::vector<double> av, bv;
    std::vector<uint8_t> as, bs;
    int64_t lda, ldb, ka, kb;
    build_operand(c, true, av, as, lda, ka);
    build_operand(c, false, bv, bs, ldb, kb);
    const int cb = bytes_of(c.tc);
    const int64_t ldc = c.c_odd_ld ? c.n + 3 : (c.n + 7) / 8 * 8 + 8, guard = 64;
    const size_t c_elems = (size_t)(c.m * ldc + 2 * guard);
    std::vector<uint8_t> cs(c_elems * cb);
    std::vector<double> c0(c_elems);
    for (size_t i = 0; i < c_elems; ++i)
        c0[i] = c.beta == 0.0f ? NAN : put(c.tc, urand(), &cs[i * cb]);
    if (c.beta == 0.0f)
        for (size_t i = 0; i < c_elems; ++i)
            put(c.tc, NAN, &cs[i * cb]);
    const float sa = c.scales ? 0.75f : 1.0f, sb = c.scales ? 2.5f : 1.0f;

    void *da = nullptr, *db = nullptr, *dc = nullptr;
    float *dscale = nullptr;
    CK(cudaMalloc(&da, as.size()));
    CK(cudaMalloc(&db, bs.size()));
    CK(cudaMalloc(&dc, cs.size()));
    CK(cudaMalloc(&dscale, 8));
    const float sc[2] = {sa, sb};
    CK(cudaMemcpy(da, as.data(), as.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, bs.data(), bs.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dc, cs.data(), cs.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dscale, sc, 8, cudaMemcpyHostToDevice));

    gk_tc_problem p;
    memset(&p, 0, sizeof p); /* batch_variant 0: the invariant plans */
    p.m = c.m, p.n = c.n, p.k = c.k;
    p.ta = c.ta, p.tb = c.tb, p.tc = c.tc;
    p.a = da, p.lda = lda, p.a_mn_major = c.a_mn;
    p.b = db, p.ldb = ldb, p.b_mn_major = c.b_mn;
    p.c = (uint8_t *)dc + guard * cb, p.ldc = ldc;
    p.alpha = c.alpha, p.beta = c.beta;
    p.scale_a = c.scales ? dscale : nullptr, p.scale_b = c.scales ? dscale + 1 : nullptr;
    p.fp8_fast_accum = c.fast;
    p.k_lo = c.split3 ? ka : 0;
    p.tile_n = c.tile_n, p.swap = c.swap, p.split = c.split, p.batch_n = c.batch_n;
    T_REQUIRE(!c.split3 || ka == kb, "3xTF32 test needs equal k_lo");
    T_REQUIRE(gk_hopper_supports(p, g_sm), "gk_hopper_supports rejected the case");
    gk_launch_env env;
    env.stream = 0, env.sm = g_sm, env.sm_count = g_sm_count, env.scratch = nullptr;
    /* the split plan's workspace, with a guard zone behind it that must stay as it was */
    size_t ws_bytes = 0;
    CK(gk_hopper_workspace(p, env, &ws_bytes));
    const size_t ws_guard = 4096;
    if (c.split == 1) T_REQUIRE(ws_bytes > 0, "a forced split plan asked for no workspace");
    if (ws_bytes) {
        CK(cudaMalloc(&env.scratch, ws_bytes + ws_guard));
        CK(cudaMemset(env.scratch, 0x5a, ws_bytes + ws_guard));
    }
    CK(gk_hopper_gemm(p, env));
    CK(cudaDeviceSynchronize());
    std::vector<uint8_t> out(cs.size());
    CK(cudaMemcpy(out.data(), dc, out.size(), cudaMemcpyDeviceToHost));
    if (ws_bytes) {
        std::vector<uint8_t> tail(ws_guard);
        CK(cudaMemcpy(tail.data(), (uint8_t *)env.scratch + ws_bytes, ws_guard,
                      cudaMemcpyDeviceToHost));
        cudaFree(env.scratch);
        for (uint8_t x : tail)
            T_REQUIRE(x == 0x5a, "the split plan wrote past its workspace");
    }
    cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(dscale);
    g_last_out = out;

    /* bound: float32 accumulation, (K + 2) * 2^-23 per unit of sum |a b|; FP8 products are summed
     * by the tensor core in a shorter accumulator (about 2^-13, docs/cuda.md) over each promotion
     * interval of 128 (fast accumulation: over all of K); plus one rounding to the output type */
    const bool fp8 = bytes_of(c.ta) == 1;
    const int64_t span = fp8 ? (c.fast ? c.k : std::min<int64_t>(c.k, 128)) : 0;
    const double acc_bound = (double)(c.k + 2) * ldexp(1.0, -23) + (double)span * ldexp(1.0, -13);
    const double out_u = c.tc == GK_F32    ? ldexp(1.0, -24)
                         : c.tc == GK_BF16 ? ldexp(1.0, -8)
                                           : ldexp(1.0, -11);
    const double alpha = (double)c.alpha * sa * sb;
    double worst = 0.0;
    for (int64_t i = 0; i < c.m; ++i)
        for (int64_t j = 0; j < c.n; ++j) {
            double s = 0.0, sabs = 0.0;
            for (int64_t kk = 0; kk < c.k; ++kk) {
                const double t = av[(size_t)(i * c.k + kk)] * bv[(size_t)(j * c.k + kk)];
                s += t, sabs += fabs(t);
            }
            const size_t idx = (size_t)(guard + i * ldc + j);
            const double cz = c.beta == 0.0f ? 0.0 : (double)c.beta * c0[idx];
            const double ref = alpha * s + cz;
            const double scale = fabs(alpha) * sabs + fabs(cz);
            const double got = get(c.tc, &out[idx * cb]);
            const double bound = acc_bound * scale + out_u * fabs(ref) + 1e-30;
            const double e = fabs(got - ref);
            if (!(e <= bound)) {
                T_CHECK(0, "C(%lld,%lld) = %.9g, reference %.9g (bound %.3g)", (long long)i,
                        (long long)j, got, ref, bound);
                return;
            }
            worst = std::max(worst, e / (scale > 0 ? scale : 1));
        }
    /* nothing written outside the m x n block: the ld gap and the guards keep their values */
    for (size_t idx = 0; idx < c_elems; ++idx) {
        const int64_t r = ((int64_t)idx - guard) / ldc, col = ((int64_t)idx - guard) % ldc;
        const bool inside = (int64_t)idx >= guard && r < c.m && col < c.n;
        if (inside) continue;
        T_REQUIRE(memcmp(&out[idx * cb], &cs[idx * cb], cb) == 0,
                  "C element %zu outside the block "
                  "was written",
                  idx);
    }
}

static void add(const char *label, tcase c) {
    char name[160];
    snprintf(name, sizeof name, "hopper_%s_%s%s%s_%s_%s%s%s_%lldx%lldx%lld_a%g_b%g%s%s", label,
             fname(c.ta), c.a_mn ? "M" : "K", fname(c.tb), c.b_mn ? "N" : "K", fname(c.tc),
             c.fast ? "_fast" : "", c.split3 ? "_3x" : "", (long long)c.m, (long long)c.n,
             (long long)c.k, c.alpha, c.beta, c.scales ? "_scaled" : "",
             c.c_odd_ld ? "_oddldc" : "");
    if (c.tile_n) snprintf(name + strlen(name), sizeof name - strlen(name), "_w%d", c.tile_n);
    if (c.swap >= 0) snprintf(name + strlen(name), sizeof name - strlen(name), "_swap%d", c.swap);
    if (c.split >= 0)
        snprintf(name + strlen(name), sizeof name - strlen(name), "_split%d", c.split);
    g_case = c;
    t_run(name, run_case);
}

/* The last case's C against *g_first_out, bit for bit (skipped where no case ran). */
static const std::vector<uint8_t> *g_first_out;
static void same_bits(void) {
    if (g_sm != 90) T_SKIP("needs an sm_90 device (found %d)", g_sm);
    T_REQUIRE(!g_first_out->empty() && !g_last_out.empty(), "a plan's case did not run");
    size_t diff = 0;
    for (size_t i = 0; i < g_last_out.size(); ++i)
        diff += g_last_out[i] != (*g_first_out)[i];
    T_CHECK(diff == 0, "%zu bytes of C differ from the first plan's", diff);
}

/* A width the launcher does not offer for the problem's types and layouts (192 with an MN-major
 * A) is refused before anything runs. */
static void width_not_offered(void) {
    if (g_sm != 90) T_SKIP("needs an sm_90 device (found %d)", g_sm);
    gk_tc_problem p;
    memset(&p, 0, sizeof p); /* batch_variant 0: the invariant plans */
    p.m = p.n = p.k = 64, p.lda = p.ldb = p.ldc = 64;
    p.ta = p.tb = GK_BF16, p.tc = GK_F32, p.a_mn_major = 1, p.alpha = 1.0f, p.tile_n = 192;
    p.swap = p.split = -1;
    const gk_launch_env env = {0, g_sm, g_sm_count, nullptr};
    const cudaError_t err = gk_hopper_gemm(p, env);
    T_CHECK(err == cudaErrorNotSupported, "returned %s", cudaGetErrorString(err));
}

static tcase mk(gk_format ta, gk_format tb, gk_format tc, int a_mn, int b_mn, int64_t m, int64_t n,
                int64_t k) {
    tcase c;
    c.ta = ta, c.tb = tb, c.tc = tc, c.a_mn = a_mn, c.b_mn = b_mn;
    c.fast = 0, c.split3 = 0, c.m = m, c.n = n, c.k = k, c.alpha = 1.0f, c.beta = 0.0f;
    c.scales = 0, c.c_odd_ld = 0, c.tile_n = 0;
    c.swap = c.split = -1, c.batch_n = 0, c.seed = 0;
    return c;
}

/* ---- --bench ------------------------------------------------------------------------------- */

/* Random values in [-1, 1) in format f (a hash of the index: no host transfer for large sizes). */
__global__ void fill_random(void *dst, gk_format f, int64_t n, uint32_t seed) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        uint32_t h = (uint32_t)i * 2654435761u ^ seed;
        h ^= h >> 16, h *= 0x7feb352du, h ^= h >> 15, h *= 0x846ca68bu, h ^= h >> 16;
        const float x = (float)(h >> 8) * (1.0f / 8388608.0f) - 1.0f;
        /* TF32 operands keep all float32 bits (the tensor core reads the top 19) */
        const gk_format enc = f == GK_TF32 ? GK_F32 : f;
        store_code(f, gk_encode_scalar(enc, x, 0), (uint8_t *)dst + i * bytes_of(f));
    }
}

/* `--bench [FORMAT [N]]`: every row and size, or only those named (e.g. for ncu). */
static void bench(const char *only, int64_t only_n) {
    if (g_sm != 90) {
        printf("bench: needs sm_90\n");
        return;
    }
    struct row {
        gk_format t;
        int a_mn, b_mn, fast, split3;
    } rows[] = {{GK_BF16, 0, 0, 0, 0},      {GK_BF16, 0, 1, 0, 0},     {GK_BF16, 1, 0, 0, 0},
                {GK_F16, 0, 0, 0, 0},       {GK_TF32, 0, 0, 0, 0},     {GK_TF32, 0, 0, 0, 1},
                {GK_F8_E4M3FN, 0, 0, 0, 0}, {GK_F8_E4M3FN, 0, 0, 1, 0}};
    void *flush;
    const size_t flush_bytes = 256u << 20;
    cudaMalloc(&flush, flush_bytes);
    for (int64_t n : {4096, 8192}) {
        if (only_n && n != only_n) continue;
        const size_t big = (size_t)n * n * 4 * 2;
        void *a, *b, *c;
        cudaMalloc(&a, big), cudaMalloc(&b, big), cudaMalloc(&c, (size_t)n * n * 4);
        for (const row &r : rows) {
            if (only && strcmp(only, fname(r.t))) continue;
            const int64_t elems = (int64_t)n * n * (r.split3 ? 2 : 1);
            fill_random<<<1024, 256>>>(a, r.t, elems, 1u);
            fill_random<<<1024, 256>>>(b, r.t, elems, 2u);
            gk_tc_problem p;
            memset(&p, 0, sizeof p); /* batch_variant 0: the invariant plans */
            p.m = p.n = p.k = n;
            p.ta = p.tb = r.t, p.tc = bytes_of(r.t) == 1 || r.t == GK_TF32 ? GK_F32 : GK_BF16;
            p.a = a, p.b = b, p.c = c, p.lda = p.ldb = r.split3 ? 2 * n : n, p.ldc = n;
            p.a_mn_major = r.a_mn, p.b_mn_major = r.b_mn, p.fp8_fast_accum = r.fast;
            p.k_lo = r.split3 ? n : 0, p.alpha = 1.0f;
            p.swap = p.split = -1;
            gk_launch_env env = {0, g_sm, g_sm_count, nullptr};
            std::vector<float> ms;
            cudaEvent_t e0, e1;
            cudaEventCreate(&e0), cudaEventCreate(&e1);
            for (int it = 0; it < 25; ++it) {
                cudaMemsetAsync(flush, it, flush_bytes);
                cudaEventRecord(e0);
                cudaError_t err = gk_hopper_gemm(p, env);
                cudaEventRecord(e1);
                cudaEventSynchronize(e1);
                if (err != cudaSuccess) {
                    printf("bench error %s\n", cudaGetErrorString(err));
                    break;
                }
                float t;
                cudaEventElapsedTime(&t, e0, e1);
                if (it >= 5) ms.push_back(t);
            }
            std::sort(ms.begin(), ms.end());
            const double med = ms.empty() ? NAN : ms[ms.size() / 2];
            printf("bench %-5s %s%s%s%s n=%-5lld %8.3f ms %7.1f TFLOPS%s\n", fname(r.t),
                   r.a_mn ? "M" : "K", r.b_mn ? "N" : "K", r.fast ? " fast" : "",
                   r.split3 ? " 3x" : "", (long long)n, med,
                   2.0 * n * n * n / (med * 1e-3) / 1e12 / (r.split3 ? 1 : 1),
                   r.split3 ? " (useful: the 3 products count once)" : "");
        }
        cudaFree(a), cudaFree(b), cudaFree(c);
    }
    cudaFree(flush);
}

int main(int argc, char **argv) {
    int dev = 0;
    if (cudaGetDevice(&dev) == cudaSuccess) {
        cudaDeviceProp prop;
        if (cudaGetDeviceProperties(&prop, dev) == cudaSuccess)
            g_sm = prop.major * 10 + prop.minor, g_sm_count = prop.multiProcessorCount;
    }
    cudaGetLastError();
    if (argc > 1 && !strcmp(argv[1], "--bench")) {
        bench(argc > 2 ? argv[2] : nullptr, argc > 3 ? atoll(argv[3]) : 0);
        return 0;
    }
    const gk_format outs[3] = {GK_F32, GK_BF16, GK_F16};
    /* 16-bit: every majorness pair on an edge shape, every output type */
    for (gk_format t : {GK_BF16, GK_F16})
        for (int am = 0; am < 2; ++am)
            for (int bm = 0; bm < 2; ++bm)
                add("mn", mk(t, t, GK_F32, am, bm, 200, 300, 150));
    for (gk_format o : outs)
        for (int odd = 0; odd < 2; ++odd) {
            tcase c = mk(GK_BF16, GK_BF16, o, 0, 1, 129, 257, 64);
            c.c_odd_ld = odd;
            add("out", c);
            c.n = 264; /* row end on a 16-byte boundary: TMA stores the last tile column too */
            add("out", c);
        }
    /* shapes: one element, K = 1, primes, more than one tile of each, a long K */
    const int64_t shapes[][3] = {
        {1, 1, 1}, {7, 5, 1}, {131, 263, 97}, {256, 512, 64}, {389, 97, 1031}};
    for (const auto &s : shapes)
        add("shape", mk(GK_BF16, GK_BF16, GK_F32, 0, 0, s[0], s[1], s[2]));
    /* alpha/beta */
    {
        tcase c = mk(GK_BF16, GK_BF16, GK_F32, 0, 1, 150, 270, 40);
        c.alpha = -0.5f, c.beta = 1.0f;
        add("ab", c);
        c.tc = GK_BF16, c.beta = 0.25f;
        add("ab", c);
        c.alpha = 2.0f, c.beta = 0.0f, c.tc = GK_F16;
        add("ab", c);
    }
    /* TF32 and 3xTF32 */
    add("tf32", mk(GK_TF32, GK_TF32, GK_F32, 0, 0, 190, 333, 77));
    {
        tcase c = mk(GK_TF32, GK_TF32, GK_F32, 0, 0, 190, 333, 300);
        c.split3 = 1;
        add("3xtf32", c);
    }
    /* FP8: the three pairs, promoted and fast, scales, each output type */
    const gk_format f8[3][2] = {
        {GK_F8_E4M3FN, GK_F8_E4M3FN}, {GK_F8_E4M3FN, GK_F8_E5M2}, {GK_F8_E5M2, GK_F8_E4M3FN}};
    for (const auto &pr : f8)
        for (int fast = 0; fast < 2; ++fast) {
            tcase c = mk(pr[0], pr[1], GK_F32, 0, 0, 200, 300, 520);
            c.fast = fast, c.scales = 1, c.alpha = 1.5f;
            add("fp8", c);
        }
    for (gk_format o : outs) {
        tcase c = mk(GK_F8_E4M3FN, GK_F8_E4M3FN, o, 0, 0, 130, 140, 33);
        c.beta = 0.5f;
        add("fp8out", c);
    }
    /* every tile width the launcher offers (gemm_sm90.cu): partial tiles in both directions,
     * each output type through the TMA store (its boxes per width), and the direct stores with
     * beta (odd ldc) */
    {
        struct family {
            gk_format t;
            int a_mn, b_mn, widths[3];
        } fams[] = {{GK_BF16, 0, 0, {256, 192, 128}}, {GK_F16, 0, 0, {256, 192, 128}},
                    {GK_BF16, 0, 1, {256, 192, 128}}, {GK_F16, 0, 1, {256, 192, 128}},
                    {GK_TF32, 0, 0, {256, 192, 128}}, {GK_F8_E4M3FN, 0, 0, {256, 192, 128}}};
        for (const family &f : fams)
            for (int w : f.widths) {
                if (!w) continue;
                for (gk_format o : outs) {
                    tcase c = mk(f.t, f.t, o, f.a_mn, f.b_mn, 300, 520, 200);
                    c.tile_n = w;
                    add("width", c);
                }
                tcase c = mk(f.t, f.t, GK_BF16, f.a_mn, f.b_mn, 257, 450, 70);
                c.tile_n = w, c.c_odd_ld = 1, c.beta = -1.0f;
                add("width", c);
            }
        for (const auto &pr : f8) { /* the other FP8 pairs at the narrow width */
            tcase c = mk(pr[0], pr[1], GK_F32, 0, 0, 200, 300, 300);
            c.tile_n = 128;
            add("width", c);
        }
        tcase c = mk(GK_TF32, GK_TF32, GK_F32, 0, 0, 190, 333, 300);
        c.split3 = 1;
        for (int w : {192, 128}) {
            c.tile_n = w;
            add("width_3xtf32", c);
        }
    }
    /* the launcher's own choice on sizes where it keeps wider tiles (on 132 SMs: 256 at 2000,
     * 192 at 3000; tests/cuda/test_sm90_plan.c) */
    for (int64_t sz : {2000, 3000})
        add("pick", mk(GK_BF16, GK_BF16, GK_BF16, 0, 0, sz, sz, 48));
    /* the plans of sm90_plan.h on one problem: swapped or not, narrow or wide tiles, K chunks
     * summed in the tile or split over CTAs and reduced; each within the bound, and all with the
     * same bits (batch invariance rests on that: the launcher picks among them by M). K long
     * enough for several chunks of the non-batch dimension; M within a narrow tile. */
    {
        struct shape {
            gk_format t;
            int split3, b_mn;
            int64_t m, n, k;
        } shapes[] = {{GK_BF16, 0, 0, 13, 300, 1600},     {GK_F16, 0, 0, 64, 520, 1100},
                      {GK_BF16, 0, 1, 40, 700, 2000},     {GK_BF16, 0, 0, 100, 257, 1500},
                      {GK_TF32, 0, 0, 29, 333, 900},      {GK_TF32, 1, 0, 17, 280, 700},
                      {GK_F8_E4M3FN, 0, 0, 50, 300, 2100}};
        for (const shape &sh : shapes) {
            /* the batch (the caller's M) is the kernel's m: chunks follow n */
            struct variant {
                int swap, split, tile_n;
            } vs[] = {{0, 0, 0}, {0, 1, 0}, {1, 0, 0}, {1, 1, 0}, {1, -1, 64}, {0, 0, 128}};
            std::vector<uint8_t> first;
            for (const variant &v : vs) {
                if (bytes_of(sh.t) == 1 && v.split == 1) continue; /* FP8 keeps K whole */
                tcase c = mk(sh.t, sh.t, sh.t == GK_BF16 ? GK_BF16 : GK_F32, 0, sh.b_mn, sh.m, sh.n,
                             sh.k);
                c.split3 = sh.split3, c.swap = v.swap, c.split = v.split, c.tile_n = v.tile_n;
                c.seed = 0x243F6A8885A308D3ull + (uint64_t)sh.n;
                c.tc = sh.t == GK_F16 ? GK_F16 : c.tc;
                g_last_out.clear();
                add("plan", c);
                if (first.empty()) {
                    first = g_last_out;
                    continue;
                }
                char what[112];
                snprintf(what, sizeof what, "hopper_plan_bits_%s_%lldx%lldx%lld_swap%d_split%d_w%d",
                         fname(sh.t), (long long)sh.m, (long long)sh.n, (long long)sh.k, v.swap,
                         v.split, v.tile_n);
                g_first_out = &first;
                t_run(what, same_bits);
            }
        }
    }
    T_RUN(width_not_offered);
    return t_finish();
}
