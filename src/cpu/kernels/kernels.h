/*
 * kernels.h — the functions the registry (registry.c) lists: micro-kernels, and the small path
 * and block packing built per ISA. Private to src/cpu/kernels; everything else reaches them
 * through gk_ukr_table.
 */
#ifndef GK_CPU_KERNELS_KERNELS_H
#define GK_CPU_KERNELS_KERNELS_H

#include <stdint.h>

#include "cpu/kernels/ukernel.h"

void gk_ukr_generic_8x4(int64_t kc, const float *pa, const float *pb, float *c, int64_t rs_c,
                        int64_t cs_c, float alpha, float beta, int m_valid, int n_valid);
#if defined(__x86_64__)
/* Each assembly kernel has the four operand forms of ukernel.h (ukr_finish_body.h). */
#define GK_UKR_DECLARE_ASM(name)                                                                   \
    void name(int64_t kc, const float *pa, const float *pb, float *c, int64_t rs_c, int64_t cs_c,  \
              float alpha, float beta, int m_valid, int n_valid);                                  \
    void name##_bcols(int64_t kc, const float *pa, const float *b, int64_t ldb, float *c,          \
                      int64_t ldc, float alpha, float beta, int m_valid);                          \
    void name##_acols(int64_t kc, const float *a, int64_t lda, const float *pb, float *c,          \
                      int64_t ldc, float alpha, float beta, int n_valid);                          \
    void name##_abcols(int64_t kc, const float *a, int64_t lda, const float *b, int64_t ldb,       \
                       float *c, int64_t ldc, float alpha, float beta);
GK_UKR_DECLARE_ASM(gk_ukr_avx2_16x6)
GK_UKR_DECLARE_ASM(gk_ukr_avx512_32x12)
#endif

/* The small path compiled per ISA (small_body.h). */
void gk_small_gemm_generic(const struct gk_gemm_args *g, gk_small_form form);
#if defined(__x86_64__)
void gk_small_gemm_avx2(const struct gk_gemm_args *g, gk_small_form form);
void gk_small_gemm_avx512(const struct gk_gemm_args *g, gk_small_form form);
#endif

/* Block packing compiled per ISA (pack_body.h, which documents the layout). */
void gk_pack_generic(float *dst, int w, int64_t lanes, int64_t kb, const float *src, int64_t ls,
                     int64_t ps, int64_t npan);
#if defined(__x86_64__)
void gk_pack_avx2(float *dst, int w, int64_t lanes, int64_t kb, const float *src, int64_t ls,
                  int64_t ps, int64_t npan);
void gk_pack_avx512(float *dst, int w, int64_t lanes, int64_t kb, const float *src, int64_t ls,
                    int64_t ps, int64_t npan);
#endif

#endif
