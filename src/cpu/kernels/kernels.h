/*
 * kernels.h — the micro-kernel functions the registry (registry.c) lists. Private to
 * src/cpu/kernels; everything else reaches kernels through gk_ukr_table.
 */
#ifndef GK_CPU_KERNELS_KERNELS_H
#define GK_CPU_KERNELS_KERNELS_H

#include <stdint.h>

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

#endif
