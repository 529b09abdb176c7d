/*
 * ooc_bench.cu — benchmark of the out-of-core GEMM (gk_cuda_sgemm_host, and gk_cuda_gemm_ex_host
 * under --dtype; docs/cuda.md "Out-of-core and multi-GPU"): square column-major C = A B (alpha 1,
 * beta 0) with A, B, C in host memory, page-locked and pageable, against the in-memory
 * gk_cuda_sgemm on device copies (kernel time only: the ceiling an out-of-core call can approach
 * when its copies are hidden) and cuBLAS-Xt (cublasXtSgemm on device 0, host operands, loaded with
 * dlopen like the other cuBLAS peers) in the same run. One warm-up call, then the median of --reps
 * timed calls, wall clock (every call timed is synchronous). Writes CSV to stdout (or --csv FILE):
 *   size,variant,host_memory,seconds,tflops,vs_in_memory,vs_cublasxt_same_memory,max_rel_diff
 * max_rel_diff compares C with the in-memory call's C on 4096 sampled elements.
 * Usage: gk-ooc-bench [--sizes 8192,16384,32768] [--reps 3] [--csv FILE] [--devices N]
 *                     [--xt-block B] [--dtype f32|tf32|bf16|f16|e4m3]
 * (--devices N > 1 also runs gk_cuda_sgemm_host_multi over devices 0..N-1 and cuBLAS-Xt on them;
 * --xt-block sets cuBLAS-Xt's tile side, cublasXtSetBlockDim, instead of its default; --dtype
 * other than f32 makes A and B of that type with a float32 C and runs gk_cuda_gemm_ex_host(_multi)
 * against the in-memory gk_cuda_gemm_ex, variants named with a ":type" suffix, without cuBLAS-Xt,
 * which has no such GEMM.)
 */
#include <algorithm>
#include <chrono>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "gemmkit.h"

namespace {

double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/* cuBLAS-Xt through dlopen: the few entry points used, declared by hand (no cuBLAS header). */
struct Xt {
    void *lib = nullptr, *h = nullptr;
    int (*create)(void **) = nullptr;
    int (*destroy)(void *) = nullptr;
    int (*select)(void *, int, int *) = nullptr;
    int (*set_block)(void *, int) = nullptr;
    int (*sgemm)(void *, int, int, size_t, size_t, size_t, const float *, const float *, size_t,
                 const float *, size_t, const float *, float *, size_t) = nullptr;
    std::string why;
    bool load(int ndev, int block) {
        const char *names[] = {"libcublas.so", "libcublas.so.13", "libcublas.so.12"};
        for (const char *n : names)
            if ((lib = dlopen(n, RTLD_NOW | RTLD_LOCAL))) break;
        if (!lib) return why = "libcublas.so not found", false;
        create = (int (*)(void **))dlsym(lib, "cublasXtCreate");
        destroy = (int (*)(void *))dlsym(lib, "cublasXtDestroy");
        select = (int (*)(void *, int, int *))dlsym(lib, "cublasXtDeviceSelect");
        sgemm = (decltype(sgemm))dlsym(lib, "cublasXtSgemm");
        set_block = (int (*)(void *, int))dlsym(lib, "cublasXtSetBlockDim");
        if (!create || !destroy || !select || !sgemm)
            return why = "cublasXt symbols missing", false;
        if (create(&h)) return why = "cublasXtCreate failed", false;
        std::vector<int> ids(ndev);
        for (int i = 0; i < ndev; i++)
            ids[i] = i;
        if (select(h, ndev, ids.data())) return why = "cublasXtDeviceSelect failed", false;
        if (block > 0 && (!set_block || set_block(h, block)))
            return why = "cublasXtSetBlockDim failed", false;
        return true;
    }
    bool run(int64_t n, const float *a, const float *b, float *c) {
        const float one = 1.0f, zero = 0.0f;
        return sgemm(h, 0, 0, n, n, n, &one, a, n, b, n, &zero, c, n) == 0; /* CUBLAS_OP_N */
    }
    ~Xt() {
        if (h) destroy(h);
    }
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/* Values in [-1, 1) for elements [first, first + len), in parallel (tens of GB at the largest
 * size). */
void fill(float *x, int64_t len, uint64_t seed, int64_t first = 0) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < len; i++) {
        uint64_t z = (uint64_t)(first + i) * 0x9e3779b97f4a7c15ull + seed;
        z ^= z >> 31, z *= 0xbf58476d1ce4e5b9ull, z ^= z >> 29;
        x[i] = (float)((double)(z >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
    }
}

/* The same values as codes of `fmt` (esz bytes each), encoded a piece at a time. */
void fill_typed(void *x, gk_format fmt, int esz, int64_t len, uint64_t seed) {
    if (fmt == GK_F32) return fill((float *)x, len, seed);
    const int64_t piece = 1 << 22;
    std::vector<float> tmp((size_t)(len < piece ? len : piece));
    for (int64_t i = 0; i < len; i += piece) {
        const int64_t nb = len - i < piece ? len - i : piece;
        fill(tmp.data(), nb, seed, i);
        gk_encode(fmt, tmp.data(), (char *)x + i * esz, nb, 1);
    }
}

/* --dtype names: the operand type and its bytes per element. */
struct Dtype {
    const char *name;
    gk_format f;
    int size;
};
const Dtype DTYPES[] = {{"f32", GK_F32, 4},
                        {"tf32", GK_TF32, 4},
                        {"bf16", GK_BF16, 2},
                        {"f16", GK_F16, 2},
                        {"e4m3", GK_F8_E4M3FN, 1}};

double max_rel_diff(const float *c, const float *ref, int64_t len) {
    double worst = 0;
    for (int s = 0; s < 4096; s++) {
        const int64_t i = (int64_t)((uint64_t)s * 0x9e3779b97f4a7c15ull % (uint64_t)len);
        const double d = fabs((double)c[i] - ref[i]) / (fabs((double)ref[i]) + 1e-30);
        if (!(d <= worst)) worst = d; /* NaN propagates */
    }
    return worst;
}

} // namespace

int main(int argc, char **argv) {
    std::vector<int64_t> sizes = {8192, 16384, 32768};
    int reps = 3, ndev = 1, xt_block = 0;
    Dtype dt = DTYPES[0];
    FILE *out = stdout;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            sizes.clear();
            for (char *s = strtok(argv[++i], ","); s; s = strtok(NULL, ","))
                sizes.push_back(atoll(s));
        } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--devices") && i + 1 < argc) {
            ndev = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--xt-block") && i + 1 < argc) {
            xt_block = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--dtype") && i + 1 < argc) {
            const char *v = argv[++i];
            bool found = false;
            for (const Dtype &d : DTYPES)
                if (!strcmp(v, d.name)) dt = d, found = true;
            if (!found) {
                fprintf(stderr, "gk-ooc-bench: --dtype %s: not f32, tf32, bf16, f16 or e4m3\n", v);
                return 2;
            }
        } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
            out = fopen(argv[++i], "w");
            if (!out) return perror(argv[i]), 2;
        } else {
            fprintf(stderr,
                    "usage: %s [--sizes N,N,..] [--reps R] [--devices N] [--csv FILE] "
                    "[--xt-block B] [--dtype f32|tf32|bf16|f16|e4m3]\n",
                    argv[0]);
            return 2;
        }
    }
    if (!gk_cuda_available()) {
        fprintf(stderr, "gk-ooc-bench: no CUDA device\n");
        return 1;
    }
    std::vector<gk_cuda_ctx *> ctx(ndev);
    for (int d = 0; d < ndev; d++)
        if (gk_cuda_create(&ctx[d], d, NULL)) {
            fprintf(stderr, "gk_cuda_create(%d): %s\n", d, gk_last_error());
            return 1;
        }
    const bool f32 = dt.f == GK_F32;
    /* the variant names: float32 as before, other types gk_cuda_gemm_ex's with a ":type" suffix */
    const std::string sfx = f32 ? "" : std::string(":") + dt.name;
    const std::string v_mem = (f32 ? "gk_cuda_sgemm_in_memory" : "gk_cuda_gemm_ex_in_memory") + sfx;
    const std::string v_host = (f32 ? "gk_cuda_sgemm_host" : "gk_cuda_gemm_ex_host") + sfx;
    const std::string v_multi =
        (f32 ? "gk_cuda_sgemm_host_multi" : "gk_cuda_gemm_ex_host_multi") + sfx;
    Xt xt;
    const bool have_xt = f32 && xt.load(ndev, xt_block);
    if (!have_xt)
        fprintf(stderr, "gk-ooc-bench: no cuBLAS-Xt peer: %s\n",
                f32 ? xt.why.c_str() : "no cublasXt GEMM for this type");
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    fprintf(out, "# device %s x%d, dtype %s, GEMMKIT_CUDA_MEM_LIMIT=%s, cuBLAS-Xt block %s\n",
            prop.name, ndev, dt.name,
            getenv("GEMMKIT_CUDA_MEM_LIMIT") ? getenv("GEMMKIT_CUDA_MEM_LIMIT") : "(default)",
            xt_block > 0 ? std::to_string(xt_block).c_str() : "(default)");
    fprintf(out, "size,variant,host_memory,seconds,tflops,vs_in_memory,vs_cublasxt_same_memory,"
                 "max_rel_diff\n");
    for (int64_t n : sizes) {
        const int64_t len = n * n;
        const size_t bytes = (size_t)len * 4, ab_bytes = (size_t)len * dt.size;
        /* A and B as codes of the type (float pointers only carry them), C float32 */
        float *pin[3] = {}, *pag[3] = {}, *dev[3] = {};
        std::vector<float> ref;
        bool ok = true;
        for (int i = 0; i < 3 && ok; i++) {
            const size_t b = i < 2 ? ab_bytes : bytes;
            ok = cudaMallocHost(&pin[i], b) == cudaSuccess &&
                 (pag[i] = (float *)malloc(b)) != nullptr;
            if (ok && i < 2)
                fill_typed(pin[i], dt.f, dt.size, len, 1 + i), memcpy(pag[i], pin[i], b);
        }
        const double flops = 2.0 * (double)n * n * n;
        double t_mem = NAN;
        /* in-memory gk_cuda_sgemm: device copies, kernel time only */
        if (ok && cudaMalloc(&dev[0], ab_bytes) == cudaSuccess &&
            cudaMalloc(&dev[1], ab_bytes) == cudaSuccess &&
            cudaMalloc(&dev[2], bytes) == cudaSuccess) {
            cudaMemcpy(dev[0], pin[0], ab_bytes, cudaMemcpyHostToDevice);
            cudaMemcpy(dev[1], pin[1], ab_bytes, cudaMemcpyHostToDevice);
            std::vector<double> ts;
            for (int r = 0; r <= reps; r++) {
                cudaDeviceSynchronize();
                const double t0 = now();
                if (f32)
                    gk_cuda_sgemm(ctx[0], GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, n, n, n, 1.0f,
                                  dev[0], n, dev[1], n, 0.0f, dev[2], n);
                else
                    gk_cuda_gemm_ex(ctx[0], GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, n, n, n, 1.0f,
                                    dt.f, dev[0], n, dt.f, dev[1], n, 0.0f, GK_F32, dev[2], n,
                                    NULL);
                cudaDeviceSynchronize();
                if (r) ts.push_back(now() - t0);
            }
            t_mem = median(ts);
            ref.resize(len);
            cudaMemcpy(ref.data(), dev[2], bytes, cudaMemcpyDeviceToHost);
            fprintf(out, "%lld,%s,device,%.4f,%.2f,1.000,,0\n", (long long)n, v_mem.c_str(), t_mem,
                    flops / t_mem * 1e-12);
        } else {
            fprintf(stderr, "gk-ooc-bench: %lld: no device copies (%s)\n", (long long)n,
                    cudaGetErrorString(cudaGetLastError()));
        }
        for (int i = 0; i < 3; i++)
            cudaFree(dev[i]);
        for (int mem = 0; mem < 2 && ok; mem++) {
            float **h = mem ? pag : pin;
            const char *kind = mem ? "pageable" : "pinned";
            double t_xt = NAN;
            if (have_xt) {
                std::vector<double> ts;
                bool good = true;
                for (int r = 0; r <= reps && good; r++) {
                    const double t0 = now();
                    good = xt.run(n, h[0], h[1], h[2]);
                    if (r) ts.push_back(now() - t0);
                }
                if (good) {
                    t_xt = median(ts);
                    fprintf(out, "%lld,cublasxt,%s,%.4f,%.2f,%.3f,1.000,%.3g\n", (long long)n, kind,
                            t_xt, flops / t_xt * 1e-12, t_mem / t_xt,
                            ref.empty() ? NAN : max_rel_diff(h[2], ref.data(), len));
                }
            }
            for (int multi = 0; multi < (ndev > 1 ? 2 : 1); multi++) {
                std::vector<double> ts;
                gk_status st = GK_SUCCESS;
                for (int r = 0; r <= reps && st == GK_SUCCESS; r++) {
                    memset(h[2], 0xff, bytes); /* NaN: beta 0 must not read it */
                    const double t0 = now();
                    const int nc = multi ? ndev : 1;
                    st = f32 ? gk_cuda_sgemm_host_multi(ctx.data(), nc, GK_COL_MAJOR, GK_NO_TRANS,
                                                        GK_NO_TRANS, n, n, n, 1.0f, h[0], n, h[1],
                                                        n, 0.0f, h[2], n)
                             : gk_cuda_gemm_ex_host_multi(
                                   ctx.data(), nc, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, n, n, n,
                                   1.0f, dt.f, h[0], n, dt.f, h[1], n, 0.0f, GK_F32, h[2], n, NULL);
                    if (r) ts.push_back(now() - t0);
                }
                if (st != GK_SUCCESS) {
                    fprintf(stderr, "%s: %s\n", v_host.c_str(), gk_last_error());
                    continue;
                }
                const double t = median(ts);
                fprintf(out, "%lld,%s,%s,%.4f,%.2f,%.3f,%.3f,%.3g\n", (long long)n,
                        (multi ? v_multi : v_host).c_str(), kind, t, flops / t * 1e-12, t_mem / t,
                        t_xt / t, ref.empty() ? NAN : max_rel_diff(h[2], ref.data(), len));
            }
            fflush(out);
        }
        for (int i = 0; i < 3; i++)
            cudaFreeHost(pin[i]), free(pag[i]);
    }
    for (gk_cuda_ctx *c : ctx)
        gk_cuda_destroy(c);
    if (out != stdout) fclose(out);
    return 0;
}
