/*
 * ukernel.h — the one micro-kernel contract of the CPU path and the registry of kernels.
 *
 * A micro-kernel computes one MR x NR tile of C:
 *
 *     C[0:m_valid, 0:n_valid] = alpha * (Ap * Bp) + beta * C[0:m_valid, 0:n_valid]
 *
 *   kc      >= 1, the shared dimension of this block.
 *   pa      packed A micro-panel: kc columns of MR floats, pa[p * MR + i] = A(i, p); rows past the
 *           matrix edge are zero. 64-byte aligned in the frame (kernels must not rely on it).
 *   pb      packed B micro-panel: kc rows of NR floats, pb[p * NR + j] = B(p, j); zero padded.
 *   c       top-left element of the tile; element (i, j) is c[i * rs_c + j * cs_c].
 *   beta    BLAS rule: beta == 0 overwrites C without reading it (NaN/Inf in C never leak).
 *   m_valid, n_valid   1..MR and 1..NR: only this part of the tile is read or written.
 *
 * A tile with rs_c == 1 whose valid part is exactly what the kernel computes (a full tile, or an
 * edge matching one of its narrower or half-height routines) is written straight to C; every
 * other case spills the registers to a local buffer and merges the valid part (gk_ukr_merge), so
 * such edge tiles cost one extra copy and never touch memory outside the valid part.
 *
 * A kernel may also offer a B-columns variant (gk_ukr_bcols_fn, optional): the same tile with B
 * read in place from NR whole columns of a column-major matrix, B(p, j) = b[p + j * ldb], instead
 * of a packed panel, and C column-major (rs_c = 1, cs_c = ldc) with all NR columns valid. The
 * frame uses it to skip packing B, a transpose, where each B panel serves few A panels.
 *
 * Likewise an A-columns variant (gk_ukr_acols_fn, optional) reads A in place from MR whole rows of
 * a column-major matrix, A(i, p) = a[i + p * lda] (one column of the tile is MR contiguous
 * floats), with B packed, C column-major and any n_valid; and an A-and-B-columns variant
 * (gk_ukr_abcols_fn) reads both in place for a whole MR x NR tile. The frame uses them where
 * packing A would cost more than it saves: small calls whose A block stays in cache anyway. A
 * partial A panel is always packed: reading MR rows in place could pass the end of the matrix.
 */
#ifndef GK_CPU_KERNELS_UKERNEL_H
#define GK_CPU_KERNELS_UKERNEL_H

#include <stdint.h>

typedef void (*gk_ukr_fn)(int64_t kc, const float *pa, const float *pb, float *c, int64_t rs_c,
                          int64_t cs_c, float alpha, float beta, int m_valid, int n_valid);

typedef void (*gk_ukr_bcols_fn)(int64_t kc, const float *pa, const float *b, int64_t ldb, float *c,
                                int64_t ldc, float alpha, float beta, int m_valid);

typedef void (*gk_ukr_acols_fn)(int64_t kc, const float *a, int64_t lda, const float *pb, float *c,
                                int64_t ldc, float alpha, float beta, int n_valid);

typedef void (*gk_ukr_abcols_fn)(int64_t kc, const float *a, int64_t lda, const float *b,
                                 int64_t ldb, float *c, int64_t ldc, float alpha, float beta);

/* Most entries the registry may hold (per-kernel tables elsewhere are sized by it). */
#define GK_UKR_MAX_KERNELS 8

/* Largest MR * NR of any kernel: sizes the local tile buffers. */
#define GK_UKR_MAX_TILE (32 * 16)

struct gk_gemm_args;

/* The unpacked small-matrix path (small_body.h, one build per ISA) runs a call without packing,
 * in the form the planner (frame/plan.h) chose:
 *   GK_SMALL_TILES          register tiles of up to two vectors by GK_VNB columns over all of k;
 *   GK_SMALL_AXPYS          C scaled by beta, then axpys down the columns of plain A;
 *   GK_SMALL_DOTS           C scaled by beta, then dot products with the rows of op(A) (A
 *                           transposed);
 *   GK_SMALL_SWAPPED_DOTS / GK_SMALL_SWAPPED_AXPYS   the same vector forms on
 *                           C^T = op(B)^T op(A)^T, for C of at most two rows and plain A.
 * Requires m, n, k >= 1 and alpha != 0. */
typedef enum gk_small_form {
    GK_SMALL_TILES,
    GK_SMALL_AXPYS,
    GK_SMALL_DOTS,
    GK_SMALL_SWAPPED_DOTS,
    GK_SMALL_SWAPPED_AXPYS
} gk_small_form;

typedef void (*gk_small_fn)(const struct gk_gemm_args *g, gk_small_form form);

/* The register tiles copy a transposed A to the stack, packed in panels of GK_SMALL_ROW_ALIGN
 * rows (the tallest tile: two AVX-512 vectors) into GK_SMALL_ABUF floats (32 KiB): the planner
 * sends such calls to the tiles only when the copy fits. */
#define GK_SMALL_ABUF 8192
#define GK_SMALL_ROW_ALIGN 32

typedef struct gk_ukr_desc {
    const char *name; /* "avx2_16x6" */
    const char *arch; /* kernel family: "generic", "avx2", "avx512" */
    int mr, nr;
    gk_ukr_fn fn;
    int (*usable)(void);     /* cpuid predicate: 1 when this CPU and OS can run it */
    gk_small_fn small;       /* unpacked small path for the same ISA */
    gk_ukr_bcols_fn bcols;   /* B-columns variant, or NULL */
    gk_ukr_acols_fn acols;   /* A-columns variant, or NULL */
    gk_ukr_abcols_fn abcols; /* A-and-B-columns variant (NULL unless acols and bcols are set) */
    /* block packing for the same ISA (pack_body.h) */
    void (*pack)(float *dst, int w, int64_t lanes, int64_t kb, const float *src, int64_t ls,
                 int64_t ps, int64_t npan);
} gk_ukr_desc;

/* The registry, best first: the dispatcher takes the first usable entry; gk_cpu_get_info and
 * the tests read the same table. The last entry is always the portable generic kernel. */
extern const gk_ukr_desc gk_ukr_table[];
extern const int gk_ukr_count;

/* Index of the entry whose arch is `name`, or -1. */
int gk_ukr_find(const char *name);

/* Reference micro-kernel for any mr x nr (portable C, plain loops): the generic kernel and the
 * oracle the kernel tests compare against. */
void gk_ukr_ref(int mr, int nr, int64_t kc, const float *pa, const float *pb, float *c,
                int64_t rs_c, int64_t cs_c, float alpha, float beta, int m_valid, int n_valid);

/* Merge a computed tile t (column-major, leading dimension ldt, holding A*B without alpha) into
 * the valid part of C with the contract's alpha/beta rule. */
static inline void gk_ukr_merge(const float *t, int ldt, float *c, int64_t rs_c, int64_t cs_c,
                                float alpha, float beta, int m_valid, int n_valid) {
    for (int j = 0; j < n_valid; j++) {
        float *cj = c + j * cs_c;
        const float *tj = t + j * ldt;
        if (beta == 0.0f)
            for (int i = 0; i < m_valid; i++)
                cj[i * rs_c] = alpha * tj[i];
        else
            for (int i = 0; i < m_valid; i++)
                cj[i * rs_c] = alpha * tj[i] + beta * cj[i * rs_c];
    }
}

#endif
