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
void gk_ukr_avx2_16x6(int64_t kc, const float *pa, const float *pb, float *c, int64_t rs_c,
                      int64_t cs_c, float alpha, float beta, int m_valid, int n_valid);
void gk_ukr_avx2_16x6_bcols(int64_t kc, const float *pa, const float *b, int64_t ldb, float *c,
                            int64_t ldc, float alpha, float beta, int m_valid);
void gk_ukr_avx512_32x12(int64_t kc, const float *pa, const float *pb, float *c, int64_t rs_c,
                         int64_t cs_c, float alpha, float beta, int m_valid, int n_valid);
void gk_ukr_avx512_32x12_bcols(int64_t kc, const float *pa, const float *b, int64_t ldb, float *c,
                               int64_t ldc, float alpha, float beta, int m_valid);
#endif

#endif
