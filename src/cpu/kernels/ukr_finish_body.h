/*
 * ukr_finish_body.h — the four public entry points of an assembly micro-kernel (ukr_avx2.c,
 * ukr_avx512.c), written once and included after the kernel file defines MR, NR, GK_UKR_NAME
 * and its static tile routines, one per operand form (A packed or in place x B packed or in
 * place):
 *
 *   tile_xy(kc, a, lda_bytes, b, ldb_bytes, c, ldc_bytes, ab, beta_used)
 *
 * x = p: A packed (lda_bytes unused), c: A(i, p) at a + i + p*lda;
 * y = p: B packed (ldb_bytes unused), c: B(p, j) at b + p + j*ldb.
 * Each computes a whole MR x NR tile and finishes it into column-major C (ab = {alpha, beta}, C
 * read only when beta_used). The packed-B forms also come narrower, tile_pp_n1/tile_cp_n1 for
 * the first NARROW1 columns and _n2 for NARROW2, and the packed-A forms in half height
 * (tile_pp_h, tile_pc_h, tile_pp_h_n1/_n2: rows 0..MR/2-1), so edge tiles multiply no more of
 * the zero padding than a narrower or half tile must. A tile whose computed part is exactly its
 * valid part, with unit row stride, is finished straight from the registers; any other goes
 * through a local tile (alpha = 1, beta = 0) and the shared merge, which touches only the valid
 * part. The contracts are in ukernel.h.
 */

#define GK_UKR_CAT_(a, b) a##b
#define GK_UKR_CAT(a, b) GK_UKR_CAT_(a, b)

static const float gk_ukr_one_zero[2] = {1.0f, 0.0f};

typedef void (*gk_tile_fn)(int64_t kc, const float *a, int64_t lda_bytes, const float *b,
                           int64_t ldb_bytes, float *c, int64_t ldc_bytes, const float *ab,
                           int64_t beta_used);

/* The smallest packed-B tile routine that covers m_valid x n_valid, and its height and width.
 * A in place always has all MR rows. */
static gk_tile_fn smallest(int m_valid, int n_valid, int a_in_place, int *height, int *width) {
    const int half = !a_in_place && m_valid <= MR / 2;
    *height = half ? MR / 2 : MR;
    if (n_valid <= NARROW1)
        return *width = NARROW1, a_in_place ? tile_cp_n1 : half ? tile_pp_h_n1 : tile_pp_n1;
    if (n_valid <= NARROW2)
        return *width = NARROW2, a_in_place ? tile_cp_n2 : half ? tile_pp_h_n2 : tile_pp_n2;
    return *width = NR, a_in_place ? tile_cp : half ? tile_pp_h : tile_pp;
}

/* A tile with B packed and A packed (lda == 0) or in place (lda > 0), finished into
 * C(m_valid x n_valid). */
static void tile_packed_b(int64_t kc, const float *a, int64_t lda, const float *pb, float *c,
                          int64_t rs_c, int64_t cs_c, float alpha, float beta, int m_valid,
                          int n_valid) {
    int h, w;
    const gk_tile_fn t = smallest(m_valid, n_valid, lda != 0, &h, &w);
    const int64_t lda_bytes = lda * (int64_t)sizeof(float);
    if (m_valid == h && n_valid == w && rs_c == 1) {
        const float ab[2] = {alpha, beta};
        t(kc, a, lda_bytes, pb, 0, c, cs_c * (int64_t)sizeof(float), ab, beta != 0.0f);
        return;
    }
    _Alignas(64) float tile[MR * NR];
    t(kc, a, lda_bytes, pb, 0, tile, MR * (int64_t)sizeof(float), gk_ukr_one_zero, 0);
    gk_ukr_merge(tile, MR, c, rs_c, cs_c, alpha, beta, m_valid, n_valid);
}

void GK_UKR_NAME(int64_t kc, const float *pa, const float *pb, float *c, int64_t rs_c, int64_t cs_c,
                 float alpha, float beta, int m_valid, int n_valid) {
    tile_packed_b(kc, pa, 0, pb, c, rs_c, cs_c, alpha, beta, m_valid, n_valid);
}

void GK_UKR_CAT(GK_UKR_NAME, _bcols)(int64_t kc, const float *pa, const float *b, int64_t ldb,
                                     float *c, int64_t ldc, float alpha, float beta, int m_valid) {
    const int64_t ldb_bytes = ldb * (int64_t)sizeof(float);
    const int half = m_valid <= MR / 2;
    const gk_tile_fn t = half ? tile_pc_h : tile_pc;
    if (m_valid == (half ? MR / 2 : MR)) {
        const float ab[2] = {alpha, beta};
        t(kc, pa, 0, b, ldb_bytes, c, ldc * (int64_t)sizeof(float), ab, beta != 0.0f);
        return;
    }
    _Alignas(64) float tile[MR * NR];
    t(kc, pa, 0, b, ldb_bytes, tile, MR * (int64_t)sizeof(float), gk_ukr_one_zero, 0);
    gk_ukr_merge(tile, MR, c, 1, ldc, alpha, beta, m_valid, NR);
}

void GK_UKR_CAT(GK_UKR_NAME, _acols)(int64_t kc, const float *a, int64_t lda, const float *pb,
                                     float *c, int64_t ldc, float alpha, float beta, int n_valid) {
    tile_packed_b(kc, a, lda, pb, c, 1, ldc, alpha, beta, MR, n_valid);
}

void GK_UKR_CAT(GK_UKR_NAME, _abcols)(int64_t kc, const float *a, int64_t lda, const float *b,
                                      int64_t ldb, float *c, int64_t ldc, float alpha, float beta) {
    const float ab[2] = {alpha, beta};
    tile_cc(kc, a, lda * (int64_t)sizeof(float), b, ldb * (int64_t)sizeof(float), c,
            ldc * (int64_t)sizeof(float), ab, beta != 0.0f);
}
