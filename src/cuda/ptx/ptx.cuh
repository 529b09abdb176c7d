/*
 * ptx.cuh — every inline-PTX wrapper of the CUDA backend, used by the production kernels
 * (src/cuda/gemm/) and ladder steps 10-15: asynchronous global->shared copies (cp.async, sm_80+),
 * explicit vector forms of global/shared loads and stores, the tensor-core instructions of sm_80
 * (cvt.rna.tf32.f32, ldmatrix, mma.sync m16n8k8 TF32 and m16n8k16 BF16/FP16) and a register copy
 * the compiler cannot see through.
 * Writing these in PTX fixes the exact instruction (width, cache operator, predication by
 * src-size) instead of hoping the compiler picks it; shared-memory operands are 32-bit
 * shared-window addresses. Nothing but PTX wrappers lives in this folder.
 */
#ifndef GK_CUDA_PTX_PTX_CUH
#define GK_CUDA_PTX_PTX_CUH

#include <cuda_runtime.h>
#include <stdint.h>

namespace gk_ptx {

/* Shared-window address of a shared-memory pointer (what ld/st.shared and cp.async take). */
__device__ __forceinline__ uint32_t smem_addr(const void *p) {
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* Source of every zero-byte copy. cp.async with src-size 0 reads nothing, but compute-sanitizer
 * checks the whole cp-size at the source address, so a zero-fill must still name 16 readable
 * bytes: this array, never an address computed past a matrix's end (which may lie outside the
 * allocation). One copy per translation unit is fine: its contents are never read. */
static __device__ __align__(16) float cp_async_dummy[4];

/* `real` when it copies `bytes` > 0, else the dummy: a select, not a branch, in the copy loops. */
__device__ __forceinline__ const float *cp_src(const float *real, uint32_t bytes) {
    return bytes ? real : cp_async_dummy;
}

/* Copy `src_bytes` (0 or 4) bytes to shared memory asynchronously, zero-filling the rest of the
 * 4-byte destination: src_bytes == 0 turns an out-of-bounds element into a zero without a branch.
 * Cached in L1 (.ca) because neighbouring threads read the same 32-byte sectors. */
__device__ __forceinline__ void cp_async_4(uint32_t dst, const float *src, uint32_t src_bytes) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src),
                 "r"(src_bytes));
}

/* 16-byte variant (src and dst 16-byte aligned), src_bytes 0 or 16. Partial vectors are not used:
 * compute-sanitizer counts all 16 source bytes, so callers take 16-byte copies only for rows whose
 * length is a multiple of 4 (every vector whole or absent). Bypasses L1 (.cg). */
__device__ __forceinline__ void cp_async_16(uint32_t dst, const float *src, uint32_t src_bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(src_bytes));
}

__device__ __forceinline__ void cp_async_commit() {
    asm volatile("cp.async.commit_group;\n" ::);
}

/* Wait until at most N committed groups are still in flight. */
template <int N> __device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

/* 128-bit read-only (non-coherent, texture path) global load; p must be 16-byte aligned. */
__device__ __forceinline__ float4 ld_global_nc_v4(const float *p) {
    float4 v;
    asm volatile("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];\n"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p));
    return v;
}

__device__ __forceinline__ float ld_global_nc_f32(const float *p) {
    float v;
    asm volatile("ld.global.nc.f32 %0, [%1];\n" : "=f"(v) : "l"(p));
    return v;
}

__device__ __forceinline__ void st_shared_v4(uint32_t addr, float4 v) {
    asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "f"(v.x), "f"(v.y),
                 "f"(v.z), "f"(v.w));
}

/* Not volatile: these only read shared memory written before a barrier, so the compiler may
 * schedule them freely (hoisting them is what register double-buffering relies on); the
 * "memory" clobber of __syncthreads keeps them on the right side of barriers. */
__device__ __forceinline__ float4 ld_shared_v4(uint32_t addr) {
    float4 v;
    asm("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\n"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
        : "r"(addr)
        : "memory");
    return v;
}

/* Round an FP32 value to TF32 (10-bit mantissa, round to nearest, ties away): the operand format
 * of the TF32 mma. Returned as the 32-bit pattern the mma expects. */
__device__ __forceinline__ uint32_t cvt_rna_tf32(float x) {
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
    return r;
}

/* d = a * b + d for one 16x8x8 tile: a is 16x8 (row-major fragment, 4 regs), b is 8x8 (column
 * fragment, 2 regs), d is 16x8 FP32 (4 regs). Fragment layouts: PTX ISA, "mma.m16n8k8 .tf32". */
__device__ __forceinline__ void mma_m16n8k8_tf32(float d[4], const uint32_t a[4],
                                                 const uint32_t b[2]) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* Four (x4) or two (x2) 8x8 matrices of 16-bit elements from shared memory, one 16-byte row per
 * address: lanes 8i..8i+7 give the rows of matrix i, and lane l receives, of each matrix, row
 * l / 4, elements 2 (l % 4) and 2 (l % 4) + 1 (one 32-bit register per matrix). On 32-bit data the
 * same instruction gives lane l element l % 4 of row l / 4: the TF32 mma fragment layout. */
__device__ __forceinline__ void ldmatrix_x4(uint32_t r[4], uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

/* d = a * b + d for one 16x8x16 tile of BF16 (BF16 = true) or FP16 operands with FP32
 * accumulation: a 16x16 (4 regs of two elements), b 16x8 (2 regs), d 16x8 (4 regs). Fragment
 * layouts: PTX ISA, "mma.m16n8k16". */
template <bool BF16>
__device__ __forceinline__ void mma_m16n8k16(float d[4], const uint32_t a[4], const uint32_t b[2]) {
    if (BF16)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* A copy of x the compiler cannot see through (a volatile mov): what is derived from it is
 * computed again rather than kept alive across a main loop where every register is taken (it
 * would be spilled). */
__device__ __forceinline__ int opaque(int x) {
    int y;
    asm volatile("mov.b32 %0, %1;" : "=r"(y) : "r"(x));
    return y;
}

} // namespace gk_ptx

#endif
