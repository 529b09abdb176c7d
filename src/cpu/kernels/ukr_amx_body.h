/*
 * ukr_amx_body.h — the AMX-BF16 micro-kernel (lp.h) written once over four tile operations, so
 * that the library compiles it with the TMUL instructions (ukr_amx_avx512.c) and the tests compile
 * the same body over a plain-C model of the tiles (tests/cpu/test_gemm_ex_cpu.c), which checks its
 * indexing on CPUs without AMX. The includer defines:
 *   GK_AMX_FN             the function's name (and GK_AMX_ATTR, its attributes, may be empty);
 *   GK_AMX_ZERO(t)        tilezero;
 *   GK_AMX_LOAD(t, p, s)  tileloadd: 16 rows of 64 bytes, row r at p + r * s;
 *   GK_AMX_DP(d, a, b)    tdpbf16ps: d[m][n] += sum_r a[m][2r] b[r][2n] + a[m][2r+1] b[r][2n+1];
 *   GK_AMX_STORE(t, p, s) tilestored.
 * Every tile is 16 rows of 64 bytes (16 x 16 float32, or 16 x 32 BF16): the configuration
 * gk_amx_thread_begin loads.
 *
 * The tile is C^T: tile rows are columns j of C, so that a stored row is a contiguous column of
 * column-major C. Tiles 0-3 accumulate the 32 x 32 block (j half, i half); tiles 4-5 hold 16
 * columns of B each, from the rows layout (j rows of 32 k); tiles 6-7 hold 16 rows of A each, from
 * the pairs layout (k pairs by i lanes). One 32-step chunk of k is 4 loads and 4 tdpbf16ps.
 * The accumulators start from C itself where the call allows it (alpha 1, beta 1, whole tile):
 * the sum then rounds in the order C + p1 + p2 + ... rather than (p1 + p2 + ...) + C, within the
 * same bound.
 */
#include <stdint.h>

#define GK_AMX_MR 32
#define GK_AMX_NR 32

GK_AMX_ATTR void GK_AMX_FN(int64_t kc, const float *pa, const float *pb, float *c, int64_t rs_c,
                           int64_t cs_c, float alpha, float beta, int m_valid, int n_valid) {
    const char *a = (const char *)pa, *b = (const char *)pb;
    /* A whole tile of column-major C with alpha 1 and beta 0 or 1 (the frame's later k blocks
     * pass beta 1) lives in the accumulators: C is loaded into them (beta 1) and stored from them,
     * without the float32 staging block and its merge loop. */
    const int direct = m_valid == GK_AMX_MR && n_valid == GK_AMX_NR && rs_c == 1 && alpha == 1.0f &&
                       (beta == 0.0f || beta == 1.0f);
    const int64_t cs = cs_c * (int64_t)sizeof(float);
    if (direct && beta == 1.0f) {
        GK_AMX_LOAD(0, c, cs);
        GK_AMX_LOAD(1, c + 16, cs);
        GK_AMX_LOAD(2, c + 16 * cs_c, cs);
        GK_AMX_LOAD(3, c + 16 * cs_c + 16, cs);
    } else {
        GK_AMX_ZERO(0);
        GK_AMX_ZERO(1);
        GK_AMX_ZERO(2);
        GK_AMX_ZERO(3);
    }
    for (int64_t p = 0; p < kc; p += 32) { /* kc is a multiple of 32 */
        const char *bc = b + p * GK_AMX_NR * 2, *ac = a + p * GK_AMX_MR * 2;
        GK_AMX_LOAD(4, bc, 64);                 /* columns j 0-15: 32 k each */
        GK_AMX_LOAD(5, bc + 16 * 64, 64);       /* columns j 16-31 */
        GK_AMX_LOAD(6, ac, GK_AMX_MR * 4);      /* 16 pairs of k, rows i 0-15 */
        GK_AMX_LOAD(7, ac + 64, GK_AMX_MR * 4); /* rows i 16-31 */
        GK_AMX_DP(0, 4, 6);
        GK_AMX_DP(1, 4, 7);
        GK_AMX_DP(2, 5, 6);
        GK_AMX_DP(3, 5, 7);
    }
    if (direct) { /* tile rows are columns of C: row j at c + j * cs_c */
        GK_AMX_STORE(0, c, cs);
        GK_AMX_STORE(1, c + 16, cs);
        GK_AMX_STORE(2, c + 16 * cs_c, cs);
        GK_AMX_STORE(3, c + 16 * cs_c + 16, cs);
        return;
    }
    /* t[j * MR + i] = (A B)(i, j): column-major with leading dimension MR */
    float t[GK_AMX_MR * GK_AMX_NR] __attribute__((aligned(64)));
    GK_AMX_STORE(0, t, GK_AMX_MR * 4);
    GK_AMX_STORE(1, t + 16, GK_AMX_MR * 4);
    GK_AMX_STORE(2, t + 16 * GK_AMX_MR, GK_AMX_MR * 4);
    GK_AMX_STORE(3, t + 16 * GK_AMX_MR + 16, GK_AMX_MR * 4);
    if (rs_c == 1) { /* columns of C are contiguous: vector loops */
        for (int j = 0; j < n_valid; j++) {
            float *cj = c + j * cs_c;
            const float *tj = t + j * GK_AMX_MR;
            if (beta == 0.0f)
                for (int i = 0; i < m_valid; i++)
                    cj[i] = alpha * tj[i];
            else
                for (int i = 0; i < m_valid; i++)
                    cj[i] = alpha * tj[i] + beta * cj[i];
        }
        return;
    }
    gk_ukr_merge(t, GK_AMX_MR, c, rs_c, cs_c, alpha, beta, m_valid, n_valid);
}
