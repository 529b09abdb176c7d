/*
 * gpu.cu — the GPU harness of gpu.h: hash fill, the float64 reference and comparison kernels,
 * the L2 flush and event timing. The comparison applies rule.h's bound on the device.
 */
#include "gpu.h"
#include "rule.h"

#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

namespace {

__device__ uint64_t mix(uint64_t z) { /* splitmix64 finaliser */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

__global__ void fill_kernel(float *x, int64_t n, uint64_t seed) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        x[i] = (float)((double)(mix(seed + (uint64_t)i) >> 11) * (2.0 / 9007199254740992.0) - 1.0);
}

enum { RT = 16 };

/* 16x16 shared tiles keep the reference at a small fraction of a ladder run even at n = 8192. */
__global__ void reference_kernel(int64_t n, const float *a, const float *b, double *r, double *s) {
    __shared__ float as[RT][RT + 1], bs[RT][RT + 1];
    const int64_t i = blockIdx.x * (int64_t)RT + threadIdx.x,
                  j = blockIdx.y * (int64_t)RT + threadIdx.y;
    double acc = 0.0, mag = 0.0;
    for (int64_t p0 = 0; p0 < n; p0 += RT) {
        const int64_t pa = p0 + threadIdx.y, pb = p0 + threadIdx.x;
        as[threadIdx.y][threadIdx.x] = i < n && pa < n ? a[i + pa * n] : 0.0f;
        bs[threadIdx.y][threadIdx.x] = pb < n && j < n ? b[pb + j * n] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int q = 0; q < RT; q++) {
            const double prod = (double)as[q][threadIdx.x] * (double)bs[threadIdx.y][q];
            acc += prod;
            mag += fabs(prod);
        }
        __syncthreads();
    }
    if (i < n && j < n) r[i + j * n] = acc, s[i + j * n] = mag;
}

/* Counts elements outside the bound and keeps the largest err/bound (as float bits: positive
 * floats order like unsigned integers; NaN counts as +Inf). */
__global__ void compare_kernel(int64_t count, int64_t k, double u_in, const float *c,
                               const double *r, const double *s, unsigned long long *bad,
                               unsigned *worst) {
    unsigned local_bad = 0, local_worst = 0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count;
         i += (int64_t)gridDim.x * blockDim.x) {
        const double err = fabs((double)c[i] - r[i]), bound = gkh_bound(k, u_in, s[i]);
        if (!(err <= bound)) local_bad++;
        const float ratio = isnan(err) ? INFINITY : (float)(err / bound);
        local_worst = max(local_worst, __float_as_uint(ratio));
    }
    local_bad = __reduce_add_sync(0xffffffffu, local_bad);
    local_worst = __reduce_max_sync(0xffffffffu, local_worst);
    if ((threadIdx.x & 31) == 0) {
        if (local_bad) atomicAdd(bad, (unsigned long long)local_bad);
        atomicMax(worst, local_worst);
    }
}

} // namespace

extern "C" void gkh_gpu_fill(float *x, int64_t n, uint64_t seed, int blocks) {
    fill_kernel<<<blocks, 256>>>(x, n, seed);
}

extern "C" cudaError_t gkh_gpu_reference(int64_t n, const float *a, const float *b, double *r,
                                         double *s) {
    dim3 grid((unsigned)((n + RT - 1) / RT), (unsigned)((n + RT - 1) / RT));
    reference_kernel<<<grid, dim3(RT, RT)>>>(n, a, b, r, s);
    return cudaDeviceSynchronize();
}

extern "C" cudaError_t gkh_gpu_compare(int64_t count, int64_t k, double u_in, const float *c,
                                       const double *r, const double *s, int blocks,
                                       unsigned long long *bad, float *worst) {
    unsigned long long *d_bad;
    unsigned *d_worst;
    cudaError_t e = cudaMalloc(&d_bad, sizeof *d_bad + sizeof *d_worst);
    if (e != cudaSuccess) return e;
    d_worst = (unsigned *)(d_bad + 1);
    cudaMemset(d_bad, 0, sizeof *d_bad + sizeof *d_worst);
    compare_kernel<<<blocks, 256>>>(count, k, u_in, c, r, s, d_bad, d_worst);
    unsigned worst_bits = 0;
    *bad = 0;
    cudaMemcpy(bad, d_bad, sizeof *bad, cudaMemcpyDeviceToHost);
    e = cudaMemcpy(&worst_bits, d_worst, sizeof worst_bits, cudaMemcpyDeviceToHost);
    cudaFree(d_bad);
    memcpy(worst, &worst_bits, sizeof *worst);
    return e;
}

extern "C" cudaError_t gkh_l2_flush_init(gkh_l2_flush *f, int l2_bytes) {
    f->bytes = (size_t)l2_bytes * 2 > ((size_t)64 << 20) ? (size_t)l2_bytes * 2 : (size_t)64 << 20;
    f->buf = nullptr;
    return cudaMalloc(&f->buf, f->bytes);
}

extern "C" void gkh_l2_flush_run(const gkh_l2_flush *f, int round) {
    cudaMemsetAsync(f->buf, round & 0xff, f->bytes);
}

extern "C" void gkh_l2_flush_free(gkh_l2_flush *f) {
    cudaFree(f->buf);
    f->buf = nullptr;
}

extern "C" cudaError_t gkh_gpu_timer_create(gkh_gpu_timer *t, int reps) {
    t->reps = reps;
    t->start = (cudaEvent_t *)calloc((size_t)reps, sizeof(cudaEvent_t));
    t->stop = (cudaEvent_t *)calloc((size_t)reps, sizeof(cudaEvent_t));
    if (!t->start || !t->stop) return cudaErrorMemoryAllocation;
    for (int i = 0; i < reps; i++)
        cudaEventCreate(&t->start[i]), cudaEventCreate(&t->stop[i]);
    return cudaDeviceSynchronize();
}

extern "C" cudaError_t gkh_gpu_timer_run(gkh_gpu_timer *t, const gkh_l2_flush *flush,
                                         void (*launch)(void *arg), void *arg) {
    for (int i = 0; i < t->reps; i++) {
        if (flush) gkh_l2_flush_run(flush, i);
        cudaEventRecord(t->start[i]);
        launch(arg);
        cudaEventRecord(t->stop[i]);
    }
    return cudaEventSynchronize(t->stop[t->reps - 1]);
}

extern "C" float gkh_gpu_timer_ms(const gkh_gpu_timer *t, int i) {
    float ms = 0;
    cudaEventElapsedTime(&ms, t->start[i], t->stop[i]);
    return ms;
}

extern "C" void gkh_gpu_timer_destroy(gkh_gpu_timer *t) {
    for (int i = 0; i < t->reps && t->start && t->stop; i++)
        cudaEventDestroy(t->start[i]), cudaEventDestroy(t->stop[i]);
    free(t->start), free(t->stop);
    t->start = t->stop = nullptr;
}
