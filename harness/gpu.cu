/*
 * gpu.cu — the GPU harness of gpu.h: hash fill (float32 and the mixed-precision formats), the
 * float64 reference and comparison kernels (whole-matrix for square float32 problems, sampled for
 * any gk_cuda_gemm_ex call), the L2 flush and event timing. The comparisons apply rule.h's bound
 * on the device.
 */
#include "gpu.h"
#include "rule.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
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

__device__ float uniform(uint64_t seed, int64_t i) { /* [-1, 1) */
    return (float)((double)(mix(seed + (uint64_t)i) >> 11) * (2.0 / 9007199254740992.0) - 1.0);
}

__global__ void fill_kernel(float *x, int64_t n, uint64_t seed) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        x[i] = uniform(seed, i);
}

/* ---- mixed-precision formats ---------------------------------------------------------------- */

__device__ void store(void *x, gk_format fmt, int64_t i, float v) {
    switch (fmt) {
    case GK_F32:
    case GK_TF32:
        ((float *)x)[i] = v;
        break;
    case GK_BF16:
        ((__nv_bfloat16 *)x)[i] = __float2bfloat16_rn(v);
        break;
    case GK_F16:
        ((__half *)x)[i] = __float2half_rn(v);
        break;
    case GK_F8_E4M3FN:
        ((__nv_fp8_storage_t *)x)[i] = __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
        break;
    case GK_F8_E5M2:
        ((__nv_fp8_storage_t *)x)[i] = __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E5M2);
        break;
    default:
        break;
    }
}

/* Element i of x decoded: exact, every value of these formats is a float. */
__device__ double load(const void *x, gk_format fmt, int64_t i) {
    switch (fmt) {
    case GK_F32:
    case GK_TF32:
        return ((const float *)x)[i];
    case GK_BF16:
        return __bfloat162float(((const __nv_bfloat16 *)x)[i]);
    case GK_F16:
        return __half2float(((const __half *)x)[i]);
    case GK_F8_E4M3FN:
        return __half2float(
            __half(__nv_cvt_fp8_to_halfraw(((const __nv_fp8_storage_t *)x)[i], __NV_E4M3)));
    case GK_F8_E5M2:
        return __half2float(
            __half(__nv_cvt_fp8_to_halfraw(((const __nv_fp8_storage_t *)x)[i], __NV_E5M2)));
    default:
        return NAN;
    }
}

__global__ void fill_format_kernel(void *x, gk_format fmt, int64_t n, uint64_t seed, float mul) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        store(x, fmt, i, mul * uniform(seed, i));
}

/* Offset of element (r, c) of a stored matrix. */
__host__ __device__ int64_t at(int row_major, int64_t ld, int64_t r, int64_t c) {
    return row_major ? r * ld + c : r + c * ld;
}

/* Sample s of the check: every element in order when `all`, else the corners, then a hash. */
__host__ __device__ void sample_pos(int64_t s, int all, int64_t m, int64_t n, uint64_t seed,
                                    int64_t *i, int64_t *j) {
    if (all) {
        *i = s % m, *j = s / m;
    } else if (s < 4) {
        *i = s & 1 ? m - 1 : 0, *j = s & 2 ? n - 1 : 0;
    } else {
        uint64_t z = seed + 0x9E3779B97F4A7C15ull * (uint64_t)s;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        *i = (int64_t)((z & 0xffffffffull) % (uint64_t)m);
        *j = (int64_t)((z >> 32) % (uint64_t)n);
    }
}

struct sample_out {
    double got, want, scale;
};

/* Warp-wide float64 reference of element (i, j): the warp's lanes split K. All lanes return the
 * result. */
__device__ sample_out reference_element(const gkh_gemm_desc &d, const void *c, int64_t i,
                                        int64_t j) {
    const int row = d.layout == GK_ROW_MAJOR, lane = threadIdx.x & 31;
    const int ta = d.ta != GK_NO_TRANS, tb = d.tb != GK_NO_TRANS;
    double sum = 0.0, mag = 0.0;
    if (d.alpha != 0.0f)
        for (int64_t p = lane; p < d.k; p += 32) {
            const double x = load(d.a, d.atype, ta ? at(row, d.lda, p, i) : at(row, d.lda, i, p));
            const double y = load(d.b, d.btype, tb ? at(row, d.ldb, j, p) : at(row, d.ldb, p, j));
            sum += x * y, mag += fabs(x * y);
        }
    for (int off = 16; off; off >>= 1) {
        sum += __shfl_xor_sync(0xffffffffu, sum, off);
        mag += __shfl_xor_sync(0xffffffffu, mag, off);
    }
    const double s = (double)d.alpha * (d.scale_a ? (double)*d.scale_a : 1.0) *
                     (d.scale_b ? (double)*d.scale_b : 1.0);
    sample_out o;
    o.want = s * sum, o.scale = fabs(s) * mag;
    if (d.beta != 0.0f) {
        const double old = load(d.c0, d.ctype, at(row, d.ldc, i, j));
        o.want += (double)d.beta * old, o.scale += fabs((double)d.beta * old);
    }
    o.got = load(c, d.ctype, at(row, d.ldc, i, j));
    return o;
}

/* Totals of the sampled check, reduced with atomics: the worst ratio and its sample as one
 * 64-bit key (ratio's float bits above the sample index; positive floats order like integers). */
struct check_totals {
    unsigned long long failed, worst_key;
    unsigned max_err_bits;
};

__global__ void check_kernel(gkh_gemm_desc d, const void *c, double u_in, double u_out,
                             int64_t samples, int all, uint64_t seed, check_totals *t) {
    const int64_t warps = (int64_t)gridDim.x * (blockDim.x / 32);
    for (int64_t s = blockIdx.x * (int64_t)(blockDim.x / 32) + threadIdx.x / 32; s < samples;
         s += warps) {
        int64_t i, j;
        sample_pos(s, all, d.m, d.n, seed, &i, &j);
        const sample_out o = reference_element(d, c, i, j);
        if ((threadIdx.x & 31) == 0) {
            const double err = fabs(o.got - o.want);
            const double bound = gkh_bound(d.k, u_in, o.scale) + u_out * fabs(o.want);
            if (!(err <= bound)) atomicAdd(&t->failed, 1ull);
            const float ratio = isnan(err) ? INFINITY : (float)(err / bound);
            const float rel = isnan(err) ? INFINITY : o.scale > 0 ? (float)(err / o.scale) : 0.0f;
            atomicMax(&t->worst_key,
                      (unsigned long long)__float_as_uint(ratio) << 32 | (unsigned long long)s);
            atomicMax(&t->max_err_bits, __float_as_uint(rel));
        }
    }
}

__global__ void detail_kernel(gkh_gemm_desc d, const void *c, int64_t i, int64_t j,
                              sample_out *out) {
    const sample_out o = reference_element(d, c, i, j);
    if (threadIdx.x == 0) *out = o;
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

extern "C" void gkh_gpu_fill_format(void *x, gk_format fmt, int64_t n, uint64_t seed, float mul,
                                    int blocks) {
    fill_format_kernel<<<blocks, 256>>>(x, fmt, n, seed, mul);
}

extern "C" double gkh_format_u_out(gk_format fmt) {
    return fmt == GK_BF16 ? 0x1p-8 : fmt == GK_F16 ? 0x1p-11 : 0.0;
}

extern "C" double gkh_gemm_ex_u_in(gk_format atype, gk_format btype, int fp32_mode,
                                   int fp8_fast_accum, int64_t k) {
    (void)fp32_mode; /* 3xTF32 is held to the float32 bound, like the SIMT kernels */
    const int fp8 = atype == GK_F8_E4M3FN || atype == GK_F8_E5M2 || btype == GK_F8_E4M3FN ||
                    btype == GK_F8_E5M2;
    if (fp8) return fp8_fast_accum ? (double)k * 0x1p-14 : 0x1p-7;
    return atype == GK_TF32 || btype == GK_TF32 ? 0x1p-11 : 0.0;
}

extern "C" cudaError_t gkh_gpu_check_sampled(const gkh_gemm_desc *d, const void *c, double u_in,
                                             int64_t samples, uint64_t seed, int blocks,
                                             gkh_gpu_check *out) {
    *out = gkh_gpu_check{};
    if (d->m == 0 || d->n == 0) return cudaSuccess;
    if (samples > 0xffffffffll) samples = 0xffffffffll; /* the index shares a 64-bit key */
    const int all = d->m * d->n <= samples;
    if (all) samples = d->m * d->n;
    check_totals *t;
    sample_out *detail;
    cudaError_t e = cudaMalloc(&t, sizeof *t + sizeof *detail);
    if (e != cudaSuccess) return e;
    detail = (sample_out *)(t + 1);
    cudaMemset(t, 0, sizeof *t);
    check_kernel<<<blocks, 256>>>(*d, c, u_in, gkh_format_u_out(d->ctype), samples, all, seed, t);
    check_totals h = {};
    if ((e = cudaMemcpy(&h, t, sizeof h, cudaMemcpyDeviceToHost)) == cudaSuccess) {
        int64_t i, j;
        sample_pos((int64_t)(h.worst_key & 0xffffffffull), all, d->m, d->n, seed, &i, &j);
        detail_kernel<<<1, 32>>>(*d, c, i, j, detail);
        sample_out o = {};
        e = cudaMemcpy(&o, detail, sizeof o, cudaMemcpyDeviceToHost);
        const unsigned ratio_bits = (unsigned)(h.worst_key >> 32);
        float ratio, err;
        memcpy(&ratio, &ratio_bits, sizeof ratio);
        memcpy(&err, &h.max_err_bits, sizeof err);
        out->checked = samples, out->failed = (int64_t)h.failed;
        out->max_ratio = ratio, out->max_err = err;
        out->worst_i = i, out->worst_j = j, out->worst_got = o.got, out->worst_want = o.want;
    }
    cudaFree(t);
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
