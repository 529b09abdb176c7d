/*
 * ukr_finish_body.h — the two public entry points of an assembly micro-kernel (ukr_avx2.c,
 * ukr_avx512.c), written once and included after the kernel file defines MR, NR, GK_UKR_NAME,
 * GK_UKR_BCOLS_NAME and its two static tile routines:
 *
 *   tile_packed(kc, pa, pb, c, ldc_bytes, ab, beta_used)           B packed (ukernel.h)
 *   tile_cols(kc, pa, b, ldb_bytes, c, ldc_bytes, ab, beta_used)   B read in place
 *
 * which compute a whole MR x NR tile and finish it into column-major C (ab = {alpha, beta}, C
 * read only when beta_used). A full unit-stride tile is finished straight from the registers;
 * any other goes through a local tile (alpha = 1, beta = 0) and the shared merge, which touches
 * only the valid part.
 */

void GK_UKR_NAME(int64_t kc, const float *pa, const float *pb, float *c, int64_t rs_c, int64_t cs_c,
                 float alpha, float beta, int m_valid, int n_valid) {
    if (m_valid == MR && n_valid == NR && rs_c == 1) {
        const float ab[2] = {alpha, beta};
        tile_packed(kc, pa, pb, c, cs_c * (int64_t)sizeof(float), ab, beta != 0.0f);
        return;
    }
    static const float one_zero[2] = {1.0f, 0.0f};
    _Alignas(64) float t[MR * NR];
    tile_packed(kc, pa, pb, t, MR * (int64_t)sizeof(float), one_zero, 0);
    gk_ukr_merge(t, MR, c, rs_c, cs_c, alpha, beta, m_valid, n_valid);
}

void GK_UKR_BCOLS_NAME(int64_t kc, const float *pa, const float *b, int64_t ldb, float *c,
                       int64_t ldc, float alpha, float beta, int m_valid) {
    if (m_valid == MR) {
        const float ab[2] = {alpha, beta};
        tile_cols(kc, pa, b, ldb * (int64_t)sizeof(float), c, ldc * (int64_t)sizeof(float), ab,
                  beta != 0.0f);
        return;
    }
    static const float one_zero[2] = {1.0f, 0.0f};
    _Alignas(64) float t[MR * NR];
    tile_cols(kc, pa, b, ldb * (int64_t)sizeof(float), t, MR * (int64_t)sizeof(float), one_zero, 0);
    gk_ukr_merge(t, MR, c, 1, ldc, alpha, beta, m_valid, NR);
}
