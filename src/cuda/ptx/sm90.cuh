/*
 * sm90.cuh — the Hopper (sm_90 / sm_90a) PTX wrappers: mbarriers, TMA tensor loads, the async-proxy
 * fences, register reallocation (setmaxnreg) and the warpgroup matrix instructions (wgmma) with
 * their shared-memory matrix descriptors. Used by src/cuda/hopper/. Everything here assembles
 * only for sm_90a: callers compile their bodies under GK_SM90A (defined below) and leave them
 * empty for the other targets of the build.
 *
 * The semantics cited are those of the PTX ISA, sections "Asynchronous Warpgroup Level Matrix
 * Multiply-Accumulate Instructions" (descriptor format, canonical layouts), "mbarrier" and
 * "cp.async.bulk.tensor".
 */
#ifndef GK_CUDA_PTX_SM90_CUH
#define GK_CUDA_PTX_SM90_CUH

#include <cuda.h> /* CUtensorMap */
#include <cuda_runtime.h>
#include <stdint.h>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GK_SM90A 1
#endif

namespace gk_sm90 {

__device__ __forceinline__ uint32_t smem_addr(const void *p) {
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* A float from shared memory at a 32-bit shared address. Volatile: it stays where it is written
 * relative to the wgmma fences and waits, so a load placed before a stage's wgmmas overlaps them.
 */
__device__ __forceinline__ float lds_f32(uint32_t addr) {
    float v;
    asm volatile("ld.shared.f32 %0, [%1];\n" : "=f"(v) : "r"(addr));
    return v;
}

#ifdef GK_SM90A
/* ---- mbarrier ------------------------------------------------------------------------------ */

__device__ __forceinline__ void mbar_init(uint64_t *bar, uint32_t count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(count));
}

/* Make the initialised barriers visible to the async proxy (TMA) before first use. */
__device__ __forceinline__ void fence_barrier_init() {
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

/* Arrive once and announce `bytes` of TMA transactions that complete this phase. */
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t *bar, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(bar)),
                 "r"(bytes)
                 : "memory");
}

__device__ __forceinline__ void mbar_arrive(uint64_t *bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_addr(bar)) : "memory");
}

/* Block until the phase with the given parity (0/1) of the barrier has completed. */
__device__ __forceinline__ void mbar_wait(uint64_t *bar, uint32_t parity) {
    asm volatile("{\n"
                 ".reg .pred done;\n"
                 "WAIT_%=:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra WAIT_%=;\n"
                 "}\n" ::"r"(smem_addr(bar)),
                 "r"(parity)
                 : "memory");
}

/* ---- TMA --------------------------------------------------------------------------------- */

/* Copy the 2-D box at element coordinates (c0 innermost, c1) of the tensor map into shared memory
 * at dst; completion is signalled on bar as transaction bytes. Out-of-bounds elements are zero. */
__device__ __forceinline__ void tma_load_2d(void *dst, const CUtensorMap *map, uint64_t *bar,
                                            int32_t c0, int32_t c1) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(smem_addr(dst)),
                 "l"((uint64_t)map), "r"(smem_addr(bar)), "r"(c0), "r"(c1)
                 : "memory");
}

/* As tma_load_2d, but the box lands at the same shared-memory offset in every CTA of the cluster
 * named in cta_mask, and each of their barriers at bar's offset receives the bytes. */
__device__ __forceinline__ void tma_load_2d_multicast(void *dst, const CUtensorMap *map,
                                                      uint64_t *bar, int32_t c0, int32_t c1,
                                                      uint16_t cta_mask) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(smem_addr(dst)),
                 "l"((uint64_t)map), "r"(smem_addr(bar)), "r"(c0), "r"(c1), "h"(cta_mask)
                 : "memory");
}

/* ---- clusters ------------------------------------------------------------------------------ */

__device__ __forceinline__ uint32_t cluster_ctarank() {
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}

/* Barrier over every thread of every CTA of the cluster, ordering shared-memory accesses. */
__device__ __forceinline__ void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;\n" ::
                     : "memory");
}

/* Arrive on the barrier at bar's offset in the shared memory of cluster CTA `cta`. Default
 * semantics (release at CTA scope): the arriving warp has already waited for its wgmmas, so no
 * cluster-wide fence is needed, and one would stall the warp for the fence's round trip. */
__device__ __forceinline__ void mbar_arrive_cluster(uint64_t *bar, uint32_t cta) {
    asm volatile("{\n.reg .b32 remote;\n"
                 "mapa.shared::cluster.u32 remote, %0, %1;\n"
                 "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(smem_addr(bar)),
                 "r"(cta)
                 : "memory");
}

/* Copy a box of shared memory (laid out as the tensor map's box, swizzle included) to the tensor
 * at element coordinates (c0, c1); the part of the box outside the tensor is not written. Tracked
 * by bulk async-groups of the issuing thread. */
__device__ __forceinline__ void tma_store_2d(const CUtensorMap *map, const void *src, int32_t c0,
                                             int32_t c1) {
    asm volatile(
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(
            (uint64_t)map),
        "r"(smem_addr(src)), "r"(c0), "r"(c1)
        : "memory");
}
__device__ __forceinline__ void bulk_commit() {
    asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}
/* Wait until at most N bulk groups of this thread still read their shared-memory source. */
template <int N> __device__ __forceinline__ void bulk_wait_read() {
    asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}
/* Wait until at most N bulk groups of this thread are incomplete (writes visible). */
template <int N> __device__ __forceinline__ void bulk_wait() {
    asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}

/* Make this thread's ordinary shared-memory writes visible to the async proxy (TMA, wgmma). */
__device__ __forceinline__ void fence_proxy_async_smem() {
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/* Barrier over `threads` threads (a multiple of 32) on hardware barrier `id` (1..15). */
__device__ __forceinline__ void named_barrier(int id, int threads) {
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

/* Fetch a tensor map (a __grid_constant__ kernel parameter) into the TMA unit's cache. */
__device__ __forceinline__ void tma_prefetch_desc(const CUtensorMap *map) {
    asm volatile("prefetch.tensormap [%0];\n" ::"l"((uint64_t)map) : "memory");
}

/* ---- register reallocation ----------------------------------------------------------------- */

template <int N> __device__ __forceinline__ void setmaxnreg_dec() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}
template <int N> __device__ __forceinline__ void setmaxnreg_inc() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}

/* ---- wgmma ------------------------------------------------------------------------------- */

/* Order this thread's register accesses of the accumulators before the next wgmma reads them. */
__device__ __forceinline__ void wgmma_fence() {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
/* Wait until at most N committed wgmma groups of this warpgroup are pending. */
template <int N> __device__ __forceinline__ void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
#endif /* GK_SM90A */

/* Shared-memory matrix descriptor with 128-byte swizzling (PTX ISA, "Matrix Descriptor Format"):
 * start address, leading- and stride-dimension byte offsets, each encoded as (x & 0x3FFFF) >> 4;
 * base offset 0 because every swizzle atom starts on a 1024-byte boundary. */
__device__ __forceinline__ uint64_t desc_sw128(uint32_t saddr, uint32_t lbo, uint32_t sbo) {
    return (uint64_t)((saddr & 0x3FFFF) >> 4) | (uint64_t)((lbo & 0x3FFFF) >> 4) << 16 |
           (uint64_t)((sbo & 0x3FFFF) >> 4) << 32 | (uint64_t)1 << 62;
}

#define GK_WGMMA_REGS_16 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}"
#define GK_WGMMA_OUTS_16(d)                                                                        \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),            \
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),    \
        "+f"(d[14]), "+f"(d[15])
#define GK_WGMMA_REGS_32                                                                           \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, "  \
    "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}"
#define GK_WGMMA_OUTS_32(d)                                                                        \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),            \
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),    \
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), \
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), \
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
#define GK_WGMMA_REGS_64                                                                           \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, "  \
    "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, "   \
    "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, "   \
    "%56, %57, %58, %59, %60, %61, %62, %63}"
#define GK_WGMMA_OUTS_64(d)                                                                        \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),            \
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),    \
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), \
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), \
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), \
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), \
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), \
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), \
        "+f"(d[63])
#define GK_WGMMA_REGS_96                                                                           \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, "  \
    "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, "   \
    "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, "   \
    "%56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, "   \
    "%74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, "   \
    "%92, %93, %94, %95}"
#define GK_WGMMA_OUTS_96(d)                                                                        \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),            \
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),    \
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), \
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), \
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), \
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), \
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), \
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), \
        "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), \
        "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), \
        "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), \
        "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), \
        "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
#define GK_WGMMA_REGS_128                                                                          \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, "  \
    "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, "   \
    "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, "   \
    "%56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, "   \
    "%74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, "   \
    "%92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, "     \
    "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, "   \
    "%123, %124, %125, %126, %127}"
#define GK_WGMMA_OUTS_128(d)                                                                       \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),            \
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),    \
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), \
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), \
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), \
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), \
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), \
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), \
        "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), \
        "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), \
        "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), \
        "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), \
        "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), \
        "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),          \
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),        \
        "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),        \
        "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),        \
        "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])

/* One wgmma of shape m64 x N x (32 bytes of K): d (N/2 floats per thread) += A (64 x K, descriptor
 * da) * B (K x N, descriptor db), or d = A * B when scale_d == 0. The 16-bit forms take the two
 * transpose immediates (1 = MN-major); TF32 and FP8 exist only K-major. DA/DB/P name the operand
 * numbers after the NACC accumulator registers. */
#define GK_WGMMA_16BIT(NAME, N, NACC, T, DA, DB, P, TRA, TRB)                                      \
    template <int TRANS_A, int TRANS_B>                                                            \
    __device__ __forceinline__ void NAME(float *d, uint64_t da, uint64_t db, int scale_d) {        \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #P ", 0;\n"                              \
                     "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." T "." T                     \
                     " " GK_WGMMA_REGS_##NACC ", %" #DA ", %" #DB ", p, 1, 1, %" #TRA ", %" #TRB   \
                                              ";\n}\n"                                             \
                     : GK_WGMMA_OUTS_##NACC(d)                                                     \
                     : "l"(da), "l"(db), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));                \
    }
#define GK_WGMMA_KMAJOR(NAME, N, NACC, K, TA, TB, DA, DB, P)                                       \
    __device__ __forceinline__ void NAME(float *d, uint64_t da, uint64_t db, int scale_d) {        \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #P ", 0;\n"                              \
                     "wgmma.mma_async.sync.aligned.m64n" #N "k" #K ".f32." TA "." TB               \
                     " " GK_WGMMA_REGS_##NACC ", %" #DA ", %" #DB ", p, 1, 1;\n}\n"                \
                     : GK_WGMMA_OUTS_##NACC(d)                                                     \
                     : "l"(da), "l"(db), "r"(scale_d));                                            \
    }

/* The six wgmmas of one width N, named by operand types and N (wgmma_bf16_n256, ...): NACC = N / 2
 * accumulators, then the operand numbers O0.. of the descriptors, the scale-d flag and the
 * transpose immediates. */
#define GK_WGMMA_WIDTH(N, NACC, O0, O1, O2, O3, O4)                                                \
    GK_WGMMA_16BIT(wgmma_bf16_n##N, N, NACC, "bf16", O0, O1, O2, O3, O4)                           \
    GK_WGMMA_16BIT(wgmma_f16_n##N, N, NACC, "f16", O0, O1, O2, O3, O4)                             \
    GK_WGMMA_KMAJOR(wgmma_tf32_n##N, N, NACC, 8, "tf32", "tf32", O0, O1, O2)                       \
    GK_WGMMA_KMAJOR(wgmma_e4m3_e4m3_n##N, N, NACC, 32, "e4m3", "e4m3", O0, O1, O2)                 \
    GK_WGMMA_KMAJOR(wgmma_e4m3_e5m2_n##N, N, NACC, 32, "e4m3", "e5m2", O0, O1, O2)                 \
    GK_WGMMA_KMAJOR(wgmma_e5m2_e4m3_n##N, N, NACC, 32, "e5m2", "e4m3", O0, O1, O2)

#ifdef GK_SM90A
/* the tile widths of the sm_90a kernel (gemm_sm90.cuh): 32 and 64 for narrow problems (a few
 * tokens as the kernel's N), 128 to 256 for the rest */
GK_WGMMA_WIDTH(32, 16, 16, 17, 18, 19, 20)
GK_WGMMA_WIDTH(64, 32, 32, 33, 34, 35, 36)
GK_WGMMA_WIDTH(128, 64, 64, 65, 66, 67, 68)
GK_WGMMA_WIDTH(192, 96, 96, 97, 98, 99, 100)
GK_WGMMA_WIDTH(256, 128, 128, 129, 130, 131, 132)
#endif

} // namespace gk_sm90

#endif
