/*
 * gemm_scaled.c — gk_gemm_scaled, the block-scaled GEMM on the CPU (include/gemmkit.h, above
 * gk_scaling; docs/formats.md, "Block-scaled GEMM"). Its argument checks are the ones the GPU
 * entry point makes too (formats/gemm_scaled.h); the decoding is the format module's bulk variant
 * of the kernel family in use, the multiplication gk_sgemm.
 *
 * The CPU reference of gk_cuda_gemm_scaled, built from the library's exact pieces: op(A) and
 * op(B) are decoded with their block scales into float32 copies, then multiplied by gk_sgemm.
 * MX elements times their power-of-two scales are float32 values (or past its range, Inf), so
 * the MX copies are exact; a BLOCK128 element is its code's exact value times a float32 scale,
 * one float32 rounding. Each copy keeps the caller's layout and transposition with a compact
 * leading dimension, so it is decoded reading the caller's codes in memory order and gk_sgemm
 * gets the caller's own layout, transpositions, C and ldc. A BF16/F16 C goes through a float32
 * copy (read only when beta != 0), rounded back to nearest even once, as a cast would.
 */
#include "formats/gemm_scaled.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parallel.h"
#include "formats/formats.h"

/* ---- the float32 copies ---------------------------------------------------------------------- */

/* One operand's decoding. `r` runs over op(A)'s rows (i) or op(B)'s columns (j), kk over K; the
 * scale of element (r, kk) is scale[(r / rdiv) * kb + kk / group]. The codes are read in memory
 * order: `lines` lines of `len` codes, line t at codes + t * ld, decoded to dst + t * len. Along
 * K (k_contig: line = r, len = K) or across it (line = kk, len = rows of r). */
typedef struct scaled_operand {
    gk_format fmt;
    const uint8_t *codes;
    int64_t ld;
    int k_contig;
    int64_t lines, len;
    const void *scale;
    int64_t kb, group, rdiv;
    int mx;
    gk_mx_elem p; /* MX only */
    float *dst;
} scaled_operand;

static float scale_f32(const void *s, int64_t i) {
    float x;
    memcpy(&x, (const char *)s + i * 4, sizeof x); /* any alignment, as gk_decode's codes */
    return x;
}

static void decode_line(const scaled_operand *o, const gk_fmt_variant *v, int64_t t) {
    const uint8_t *src = o->codes + t * o->ld;
    float *dst = o->dst + t * o->len;
    const uint8_t *s8 = o->scale;
    if (o->k_contig) { /* r = t: the row of scales at (t / rdiv) * kb, one per group of K */
        const int64_t row = t / o->rdiv * o->kb;
        if (o->mx) {
            v->mx_dequantize_row(&o->p, src, s8 + row, o->len, o->group, dst);
            return;
        }
        v->decode(o->fmt, src, dst, o->len);
        for (int64_t kk = 0; kk < o->len; kk++)
            dst[kk] *= scale_f32(o->scale, row + kk / o->group);
        return;
    }
    const int64_t col = t / o->group; /* kk = t: scale column kk / group, one row per r */
    if (o->mx) {
        for (int64_t r = 0; r < o->len; r++)
            dst[r] = gk_mx_decode_elem(&o->p, src[r], s8[r * o->kb + col]);
        return;
    }
    v->decode(o->fmt, src, dst, o->len);
    for (int64_t r = 0; r < o->len; r++)
        dst[r] *= scale_f32(o->scale, r / o->rdiv * o->kb + col);
}

/* A BF16/F16 C as float32 (compact, same layout): `lines` lines of `len` elements. */
typedef struct c_copy {
    gk_format fmt;
    uint8_t *c;
    int64_t ldc, lines, len;
    float *f;
} c_copy;

/* The work of one parallel step: the operands' lines, then C's lines decoded (decode_c) or
 * encoded back (encode_c). */
typedef struct step {
    const gk_fmt_variant *v;
    const scaled_operand *ops[2];
    int nops;
    const c_copy *cc;
    int decode_c, encode_c;
} step;

static void range_of(int64_t lines, int id, int nt, int64_t *lo, int64_t *hi) {
    const int64_t chunk = gk_ceil_div64(lines, nt);
    *lo = gk_min64(chunk * id, lines);
    *hi = gk_min64(*lo + chunk, lines);
}

static void step_task(void *ctx, int id, int nt) {
    const step *s = ctx;
    int64_t lo, hi;
    for (int i = 0; i < s->nops; i++) {
        range_of(s->ops[i]->lines, id, nt, &lo, &hi);
        for (int64_t t = lo; t < hi; t++)
            decode_line(s->ops[i], s->v, t);
    }
    if (s->cc && (s->decode_c || s->encode_c)) {
        const c_copy *cc = s->cc;
        range_of(cc->lines, id, nt, &lo, &hi);
        for (int64_t t = lo; t < hi; t++) {
            uint8_t *c = cc->c + t * cc->ldc * 2;
            float *f = cc->f + t * cc->len;
            if (s->decode_c)
                s->v->decode(cc->fmt, c, f, cc->len);
            else
                s->v->encode(cc->fmt, f, c, cc->len, 0);
        }
    }
}

/* Elements below which a step runs on the calling thread alone (waking workers costs more). */
#define PARALLEL_MIN_ELEMS ((int64_t)1 << 15)

static void run_step(const step *s, int64_t elems) {
    gk_parallel(elems < PARALLEL_MIN_ELEMS ? 1 : gk_get_num_threads(), step_task, (void *)s);
}

/* rows * cols floats, or NULL with *st set (overflow or allocation failure). */
static float *alloc_floats(const char *who, const char *what, int64_t rows, int64_t cols,
                           gk_status *st) {
    int64_t bytes;
    if (__builtin_mul_overflow(rows, cols, &bytes) ||
        __builtin_mul_overflow(bytes, (int64_t)sizeof(float), &bytes) || bytes > PTRDIFF_MAX ||
        (uint64_t)bytes > SIZE_MAX) {
        *st = gk_fail(GK_ERR_OVERFLOW,
                      "%s: the float32 copy of %s (%lld x %lld) overflows the "
                      "address space",
                      who, what, (long long)rows, (long long)cols);
        return NULL;
    }
    float *p = malloc((size_t)bytes);
    if (!p)
        *st =
            gk_fail(GK_ERR_OUT_OF_MEMORY, "%s: cannot allocate the float32 copy of %s (%lld bytes)",
                    who, what, (long long)bytes);
    return p;
}

/* C = beta * C (alpha == 0 or k == 0): C read only when beta != 0, rounded once to ctype. */
static void scale_c(gk_layout layout, int64_t m, int64_t n, float beta, gk_format ctype, void *c,
                    int64_t ldc) {
    if (beta == 1.0f) return;
    const int row = layout == GK_ROW_MAJOR;
    const int64_t lines = row ? m : n, len = row ? n : m;
    for (int64_t t = 0; t < lines; t++) {
        if (ctype == GK_F32) {
            float *ct = (float *)c + t * ldc;
            for (int64_t e = 0; e < len; e++)
                ct[e] = beta == 0.0f ? 0.0f : beta * ct[e];
        } else {
            uint16_t *ct = (uint16_t *)c + t * ldc;
            for (int64_t e = 0; e < len; e++) {
                uint16_t code;
                memcpy(&code, &ct[e], sizeof code);
                const float y = beta == 0.0f ? 0.0f : beta * gk_decode_scalar(ctype, code);
                code = (uint16_t)gk_encode_scalar(ctype, y, 0);
                memcpy(&ct[e], &code, sizeof code);
            }
        }
    }
}

gk_status gk_gemm_scaled(gk_layout layout, gk_trans transa, gk_trans transb, int64_t m, int64_t n,
                         int64_t k, float alpha, gk_format atype, const void *a, int64_t lda,
                         const void *a_scale, gk_format btype, const void *b, int64_t ldb,
                         const void *b_scale, gk_scaling scaling, float beta, gk_format ctype,
                         void *c, int64_t ldc) {
    static const char who[] = "gk_gemm_scaled";
    gk_clear_error();
    gk_status st = gk_check_scaled_formats(who, (int)scaling, (int)atype, (int)btype, (int)ctype);
    if (st != GK_SUCCESS) return st;
    const int csz = ctype == GK_F32 ? 4 : 2;
    gk_gemm_args g;
    st = gk_check_gemm_sized(who, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                             ldc, 1, 1, csz, &g);
    if (st != GK_SUCCESS) return st;
    if (m == 0 || n == 0) return GK_SUCCESS;
    if (gk_gemm_is_scale_only(&g)) {
        scale_c(layout, m, n, beta, ctype, c, ldc);
        return GK_SUCCESS;
    }
    st = gk_check_scale_arrays(who, scaling, m, n, k, a_scale, b_scale);
    if (st != GK_SUCCESS) return st;

    const int row = layout == GK_ROW_MAJOR;
    const int ta = transa != GK_NO_TRANS, tb = transb != GK_NO_TRANS;
    const int mx = scaling == GK_SCALING_MX;
    const int64_t group = mx ? 32 : 128, kb = gk_scaled_blocks(k, group);
    /* op(A)(i, kk) is contiguous along K for row-major A or column-major A^T; op(B)(kk, j) for
     * column-major B or row-major B^T. */
    scaled_operand op[2] = {
        {.fmt = atype, .codes = a, .ld = lda, .k_contig = row != ta, .scale = a_scale, .rdiv = 1},
        {.fmt = btype,
         .codes = b,
         .ld = ldb,
         .k_contig = row == tb,
         .scale = b_scale,
         .rdiv = mx ? 1 : 128}};
    const int64_t rs[2] = {m, n};
    for (int i = 0; i < 2; i++) {
        op[i].lines = op[i].k_contig ? rs[i] : k;
        op[i].len = op[i].k_contig ? k : rs[i];
        op[i].kb = kb, op[i].group = group, op[i].mx = mx;
        if (mx) gk_mx_elem_params(op[i].fmt, &op[i].p);
    }
    c_copy cc = {.fmt = ctype, .c = c, .ldc = ldc, .lines = row ? m : n, .len = row ? n : m};

    float *bufs[3] = {NULL, NULL, NULL};
    bufs[0] = alloc_floats(who, "op(A)", m, k, &st);
    if (bufs[0]) bufs[1] = alloc_floats(who, "op(B)", k, n, &st);
    if (bufs[1] && ctype != GK_F32) bufs[2] = alloc_floats(who, "C", m, n, &st);
    if (!bufs[1] || (ctype != GK_F32 && !bufs[2])) {
        free(bufs[0]), free(bufs[1]);
        return st;
    }
    op[0].dst = bufs[0], op[1].dst = bufs[1], cc.f = bufs[2];

    const gk_fmt_variant *v = gk_fmt_variant_now();
    const int decode_c = ctype != GK_F32 && beta != 0.0f;
    const step decode = {v, {&op[0], &op[1]}, 2, &cc, decode_c, 0};
    run_step(&decode, m * k + k * n + (decode_c ? m * n : 0));

    float *cf = ctype == GK_F32 ? (float *)c : cc.f;
    const int64_t ldcf = ctype == GK_F32 ? ldc : cc.len;
    st = gk_sgemm(layout, transa, transb, m, n, k, alpha, op[0].dst, op[0].len, op[1].dst,
                  op[1].len, beta, cf, ldcf);
    if (st != GK_SUCCESS) { /* its own allocations: say whose call it was */
        char msg[256];
        snprintf(msg, sizeof msg, "%s", gk_last_error());
        gk_fail(st, "%s: %s", who, msg);
    } else if (ctype != GK_F32) {
        const step encode = {v, {NULL, NULL}, 0, &cc, 0, 1};
        run_step(&encode, m * n);
    }
    free(bufs[0]), free(bufs[1]), free(bufs[2]);
    return st;
}
