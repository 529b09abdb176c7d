/*
 * dist_bench.cu — scaling benchmark of the distributed SGEMM over NCCL (gk_cuda_dist_sgemm,
 * docs/cuda.md "Distributed SGEMM over NCCL"): square column-major C = A B (alpha 1, beta 0) of
 * one size on 1, 2, 4 ... GPUs (up to the visible ones), each on the most square P x Q grid, one
 * host thread per GPU (gk_cuda_dist_create_all). Operands are generated on the devices from a hash
 * of their global indices, so every grid multiplies the same matrices and 64 sampled elements of C
 * are checked against a float64 dot product on the host. One warm-up call, then the median of
 * --reps timed calls, wall clock from a barrier before the call to every device synchronised.
 * Writes CSV to stdout (or --csv FILE):
 *   gpus,grid,size,panel,seconds,tflops,speedup,efficiency,max_rel_err
 * speedup and efficiency are against the 1-GPU row of panel 0 (a 1 x 1 grid: one gk_cuda_sgemm);
 * efficiency = speedup / gpus. With --panel W a second 1-GPU row runs the 1 x 1 grid in panels of
 * W (the panel loop's own cost, no communication). bench/plot_dist.py draws the CSV.
 * Usage: gk-dist-bench [--size N] [--gpus 1,2,4] [--reps R] [--panel W] [--csv FILE]
 * (default size 32768, halved until the 1-GPU problem fits in device 0's free memory.)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime.h>

#include "gemmkit.h"

namespace {

double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/* Element (i, j) of matrix `which` (0: A, 1: B): a hash of its global position, in [-1, 1). */
__host__ __device__ inline float value(int which, int64_t i, int64_t j) {
    uint64_t x = (uint64_t)i * 0x9E3779B97F4A7C15ull ^ (uint64_t)j * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)(which + 1) * 0x165667B19E3779F9ull;
    x ^= x >> 31, x *= 0xBF58476D1CE4E5B9ull, x ^= x >> 29;
    return (float)((double)(x >> 40) / (double)(1ull << 23) - 1.0);
}

/* A local block rows x cols (column-major, ld = rows) starting at global (r0, c0). */
__global__ void fill(float *x, int which, int64_t rows, int64_t cols, int64_t r0, int64_t c0) {
    const int64_t n = rows * cols;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x)
        x[e] = value(which, r0 + e % rows, c0 + e / rows);
}

struct Barrier {
    std::mutex mu;
    std::condition_variable cv;
    int count, waiting = 0, generation = 0;
    explicit Barrier(int n) : count(n) {}
    void wait() {
        std::unique_lock<std::mutex> lk(mu);
        const int gen = generation;
        if (++waiting == count) {
            waiting = 0, generation++;
            cv.notify_all();
        } else {
            cv.wait(lk, [&] { return gen != generation; });
        }
    }
};

struct Rank {
    gk_cuda_dist *dist = nullptr;
    int device = 0;
    int64_t r0 = 0, ml = 0, c0 = 0, nl = 0, ka0 = 0, kal = 0, kb0 = 0, kbl = 0;
    float *a = nullptr, *b = nullptr, *c = nullptr;
};

/* Most square p x q = g with p <= q. */
void grid_of(int g, int *p, int *q) {
    *p = 1;
    for (int f = 1; f * f <= g; f++)
        if (g % f == 0) *p = f;
    *q = g / *p;
}

struct Row {
    int gpus, p, q;
    double seconds, tflops, err;
};

/* Time one grid; 0 on failure (message on stderr). */
int run(int g, int64_t n, int reps, int64_t panel, Row *out) {
    int p, q;
    grid_of(g, &p, &q);
    std::vector<gk_cuda_dist *> ds((size_t)g);
    if (gk_cuda_dist_create_all(ds.data(), p, q, NULL) != GK_SUCCESS) {
        fprintf(stderr, "gk-dist-bench: %d GPUs: %s\n", g, gk_last_error());
        return 0;
    }
    std::vector<Rank> rk((size_t)g);
    int ok = 1;
    for (int r = 0; r < g && ok; r++) {
        Rank &x = rk[(size_t)r];
        x.dist = ds[(size_t)r];
        gk_cuda_dist_info info;
        gk_cuda_dist_info_get(x.dist, &info);
        x.device = info.device;
        gk_cuda_dist_set_panel(x.dist, panel);
        gk_cuda_dist_range(n, p, r / q, &x.r0, &x.ml);
        gk_cuda_dist_range(n, q, r % q, &x.c0, &x.nl);
        gk_cuda_dist_range(n, q, r % q, &x.ka0, &x.kal);
        gk_cuda_dist_range(n, p, r / q, &x.kb0, &x.kbl);
        cudaSetDevice(x.device);
        ok = cudaMalloc(&x.a, (size_t)(x.ml * x.kal + 1) * 4) == cudaSuccess &&
             cudaMalloc(&x.b, (size_t)(x.kbl * x.nl + 1) * 4) == cudaSuccess &&
             cudaMalloc(&x.c, (size_t)(x.ml * x.nl + 1) * 4) == cudaSuccess;
        if (ok) {
            fill<<<1024, 256>>>(x.a, 0, x.ml, x.kal, x.r0, x.ka0);
            fill<<<1024, 256>>>(x.b, 1, x.kbl, x.nl, x.kb0, x.c0);
            ok = cudaDeviceSynchronize() == cudaSuccess;
        }
        if (!ok) fprintf(stderr, "gk-dist-bench: %d GPUs: device memory for rank %d\n", g, r);
    }
    std::vector<double> times;
    if (ok) {
        Barrier bar(g);
        std::vector<int> fails((size_t)g, 0);
        double t0 = 0.0;
        std::vector<std::thread> th;
        for (int r = 0; r < g; r++)
            th.emplace_back([&, r] {
                Rank &x = rk[(size_t)r];
                cudaSetDevice(x.device);
                for (int it = 0; it <= reps; it++) { /* it 0: warm-up */
                    bar.wait();
                    if (r == 0) t0 = now();
                    if (gk_cuda_dist_sgemm(x.dist, GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, n, n, n,
                                           1.0f, x.a, x.ml > 0 ? x.ml : 1, x.b,
                                           x.kbl > 0 ? x.kbl : 1, 0.0f, x.c,
                                           x.ml > 0 ? x.ml : 1) != GK_SUCCESS) {
                        fprintf(stderr, "gk-dist-bench: rank %d: %s\n", r, gk_last_error());
                        fails[(size_t)r] = 1;
                    }
                    if (cudaDeviceSynchronize() != cudaSuccess) fails[(size_t)r] = 1;
                    bar.wait();
                    if (r == 0 && it > 0) times.push_back(now() - t0);
                }
            });
        for (auto &t : th)
            t.join();
        for (int f : fails)
            ok &= !f;
    }
    double err = 0.0;
    for (int s = 0; s < 64 && ok; s++) { /* sampled elements against float64 */
        const int64_t i = (int64_t)((s * 2654435761ull) % (uint64_t)n);
        const int64_t j = (int64_t)((s * 40503ull + 17) % (uint64_t)n);
        double ref = 0.0, mag = 0.0;
        for (int64_t kk = 0; kk < n; kk++) {
            const double t = (double)value(0, i, kk) * (double)value(1, kk, j);
            ref += t, mag += fabs(t);
        }
        for (const Rank &x : rk)
            if (i >= x.r0 && i < x.r0 + x.ml && j >= x.c0 && j < x.c0 + x.nl) {
                float got = 0.0f;
                cudaSetDevice(x.device);
                cudaMemcpy(&got, x.c + (i - x.r0) + (j - x.c0) * x.ml, 4, cudaMemcpyDeviceToHost);
                err = std::max(err, fabs((double)got - ref) / mag);
            }
    }
    for (Rank &x : rk) {
        cudaSetDevice(x.device);
        cudaFree(x.a), cudaFree(x.b), cudaFree(x.c);
        gk_cuda_dist_destroy(x.dist);
    }
    if (!ok || times.empty()) return 0;
    std::sort(times.begin(), times.end());
    out->gpus = g, out->p = p, out->q = q;
    out->seconds = times[times.size() / 2];
    out->tflops = 2.0 * (double)n * (double)n * (double)n / out->seconds / 1e12;
    out->err = err;
    return 1;
}

} // namespace

int main(int argc, char **argv) {
    int64_t n = 32768, panel = 0;
    int reps = 5, size_given = 0;
    std::string gpus_arg, csv;
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (a == "--size" && v)
            n = atoll(v), size_given = 1, i++;
        else if (a == "--gpus" && v)
            gpus_arg = v, i++;
        else if (a == "--reps" && v)
            reps = atoi(v), i++;
        else if (a == "--panel" && v)
            panel = atoll(v), i++;
        else if (a == "--csv" && v)
            csv = v, i++;
        else {
            fprintf(stderr, "usage: gk-dist-bench [--size N] [--gpus 1,2,4] [--reps R] "
                            "[--panel W] [--csv FILE]\n");
            return 2;
        }
    }
    int visible = 0;
    if (cudaGetDeviceCount(&visible) != cudaSuccess || visible == 0) {
        fprintf(stderr, "gk-dist-bench: no CUDA device\n");
        return 1;
    }
    int version = 0;
    if (gk_cuda_nccl_version(&version) != GK_SUCCESS) {
        fprintf(stderr, "gk-dist-bench: %s\n", gk_last_error());
        return 1;
    }
    std::vector<int> counts;
    if (gpus_arg.empty()) {
        for (int g = 1; g <= visible; g *= 2)
            counts.push_back(g);
        if (counts.back() != visible) counts.push_back(visible);
    } else {
        for (const char *s = gpus_arg.c_str(); *s;) {
            const int g = atoi(s);
            if (g >= 1 && g <= visible)
                counts.push_back(g);
            else
                fprintf(stderr, "gk-dist-bench: %d GPUs: only %d visible; skipped\n", g, visible);
            while (*s && *s != ',')
                s++;
            if (*s) s++;
        }
    }
    if (n < 1 || reps < 1 || panel < 0 || counts.empty()) {
        fprintf(stderr, "gk-dist-bench: nothing to run (size, reps, panel or GPU counts)\n");
        return 2;
    }
    /* the 1-GPU problem (three n x n matrices) must fit, with a quarter left for workspace */
    size_t free_b = 0, total = 0;
    cudaSetDevice(0);
    cudaMemGetInfo(&free_b, &total);
    while (!size_given && n > 1024 && 3.0 * 4.0 * (double)n * (double)n > 0.75 * (double)free_b)
        n /= 2;
    FILE *f = csv.empty() ? stdout : fopen(csv.c_str(), "w");
    if (f == NULL) {
        fprintf(stderr, "gk-dist-bench: cannot write %s\n", csv.c_str());
        return 1;
    }
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    fprintf(stderr, "gk-dist-bench: %s x %d visible, NCCL %d, size %lld, panel %lld%s\n", prop.name,
            visible, version, (long long)n, (long long)panel, panel == 0 ? " (default)" : "");
    fprintf(f, "gpus,grid,size,panel,seconds,tflops,speedup,efficiency,max_rel_err\n");
    double base = 0.0;
    int rc = 0;
    for (int g : counts)
        /* the 1-GPU baseline is always the plain call (a 1 x 1 grid with the default width); with
         * --panel a second 1-GPU row shows what the panel loop itself costs */
        for (int64_t w : g == 1 && panel > 0 ? std::vector<int64_t>{0, panel}
                                             : std::vector<int64_t>{g == 1 ? 0 : panel}) {
            Row row;
            if (!run(g, n, reps, w, &row)) {
                rc = 1;
                continue;
            }
            if (g == 1 && w == 0) base = row.tflops;
            const double speedup = base > 0.0 ? row.tflops / base : NAN;
            fprintf(f, "%d,%dx%d,%lld,%lld,%.6f,%.3f,%.3f,%.3f,%.2e\n", g, row.p, row.q,
                    (long long)n, (long long)w, row.seconds, row.tflops, speedup, speedup / g,
                    row.err);
            fflush(f);
        }
    if (f != stdout) fclose(f);
    return rc;
}
