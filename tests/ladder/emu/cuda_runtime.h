/*
 * cuda_runtime.h (host emulation) — stands in for the CUDA runtime header so the plain-CUDA
 * ladder kernels (no inline PTX) compile with g++ and run on the CPU, where CI has no GPU. It
 * covers only what those kernels use: thread/block indices, __shared__, __syncthreads, float4, uint4,
 * min/max, and launches (test_ladder_emulated.sh rewrites `k<<<g, b, smem, s>>>(args)` into
 * gk_emu_launch(k, g, b, smem, s, args)).
 *
 * Model: the blocks of a grid run one after another; inside a block every CUDA thread is a
 * ucontext fiber and __syncthreads switches back to a scheduler, which resumes each fiber once per
 * barrier phase, in a shuffled order so that a missing barrier or a buffer reused too early shows
 * up as wrong results. __shared__ variables become statics, which is exact while one block runs
 * at a time. A barrier that some threads of a block skip (undefined on a GPU) aborts the run.
 * Warp-level behaviour (coalescing, bank conflicts, timing) is not modelled.
 */
#ifndef GK_TEST_EMU_CUDA_RUNTIME_H
#define GK_TEST_EMU_CUDA_RUNTIME_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <ucontext.h>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(...)

struct dim3 {
    unsigned x, y, z;
    dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct alignas(16) float4 {
    float x, y, z, w;
};
inline float4 make_float4(float a, float b, float c, float d) {
    return {a, b, c, d};
}
struct alignas(16) uint4 {
    unsigned x, y, z, w;
};
inline uint4 make_uint4(unsigned a, unsigned b, unsigned c, unsigned d) {
    return {a, b, c, d};
}

typedef int cudaError_t;
enum { cudaSuccess = 0 };
typedef void *cudaStream_t;
inline cudaError_t cudaGetLastError() {
    return cudaSuccess;
}

inline int64_t min(int64_t a, int64_t b) {
    return a < b ? a : b;
}
inline int min(int a, int b) {
    return a < b ? a : b;
}
inline int64_t max(int64_t a, int64_t b) {
    return a > b ? a : b;
}
inline int max(int a, int b) {
    return a > b ? a : b;
}

inline dim3 threadIdx, blockIdx, blockDim, gridDim;

struct gk_emu_fiber {
    ucontext_t ctx;
    bool done;
    std::vector<char> stack;
};
inline ucontext_t gk_emu_sched;
inline std::vector<gk_emu_fiber> gk_emu_fibers;
inline int gk_emu_cur;
inline std::function<void()> gk_emu_body;

inline void __syncthreads() {
    swapcontext(&gk_emu_fibers[gk_emu_cur].ctx, &gk_emu_sched);
}

inline void gk_emu_trampoline() {
    gk_emu_body();
    gk_emu_fibers[gk_emu_cur].done = true;
}

template <class K, class... A>
void gk_emu_launch(K kernel, dim3 grid, dim3 block, int smem, cudaStream_t, A... args) {
    (void)smem;
    static std::mt19937 order_rng(12345);
    gridDim = grid;
    blockDim = block;
    const unsigned nt = block.x * block.y * block.z;
    if (gk_emu_fibers.size() < nt) gk_emu_fibers.resize(nt);
    gk_emu_body = [&] { kernel(args...); };
    std::vector<unsigned> order(nt);
    for (unsigned t = 0; t < nt; ++t)
        order[t] = t;
    for (unsigned bz = 0; bz < grid.z; ++bz)
        for (unsigned by = 0; by < grid.y; ++by)
            for (unsigned bx = 0; bx < grid.x; ++bx) {
                blockIdx = dim3(bx, by, bz);
                for (unsigned t = 0; t < nt; ++t) {
                    gk_emu_fiber &f = gk_emu_fibers[t];
                    f.stack.resize(1 << 17); /* room for ASan-instrumented frames */
                    f.done = false;
                    getcontext(&f.ctx);
                    f.ctx.uc_stack.ss_sp = f.stack.data();
                    f.ctx.uc_stack.ss_size = f.stack.size();
                    f.ctx.uc_link = &gk_emu_sched;
                    makecontext(&f.ctx, gk_emu_trampoline, 0);
                }
                for (;;) { /* one barrier phase per round */
                    std::shuffle(order.begin(), order.end(), order_rng);
                    unsigned done = 0;
                    for (unsigned t : order) {
                        if (!gk_emu_fibers[t].done) {
                            gk_emu_cur = (int)t;
                            threadIdx =
                                dim3(t % block.x, t / block.x % block.y, t / (block.x * block.y));
                            swapcontext(&gk_emu_sched, &gk_emu_fibers[t].ctx);
                        }
                        done += gk_emu_fibers[t].done;
                    }
                    if (done == nt) break;
                    if (done != 0) {
                        fprintf(stderr, "emulator: __syncthreads skipped by %u of %u threads\n",
                                done, nt);
                        abort();
                    }
                }
            }
}

#endif
