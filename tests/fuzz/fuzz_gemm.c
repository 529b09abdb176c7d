/*
 * fuzz_gemm.c — libFuzzer target over gemmkit's SGEMM entry points: gk_sgemm, the BLAS drop-ins
 * cblas_sgemm and sgemm_, and what the GPU entry points do without a device. Built by
 * tests/fuzz/fuzz.mk with the library compiled in (clang, ASan + UBSan, no CUDA backend); run by
 * tests/fuzz/test_fuzz.sh (docs/testing.md, "Fuzzing").
 *
 * Each input is one call. Every check that fails prints the call and traps (__builtin_trap), so
 * libFuzzer saves the input as a crash:
 *   - a call the rules make valid computes C within the accuracy rule of docs/testing.md
 *     (harness/rule.h, against the float64 reference of harness/ref.c), where the reference is
 *     NaN or infinite C must be the same; nothing of C's buffer outside its m x n block changes
 *     (position-coded NaN sentinels in the leading-dimension gaps and in guard zones either side);
 *     A and B are never written. A and B are allocated to their exact span with NaN in their gaps,
 *     so a read outside the matrix is an ASan report or a NaN in C; operands the call must not
 *     read (A and B when alpha or k is 0, C's block when beta is 0) may hold NaN and Inf, which
 *     must not reach C;
 *   - an invalid call gets the documented result, worked out here from the rules the docs state,
 *     not from the library's code: gk_sgemm the status of the first bad argument in the order of
 *     gemmkit.h with a gk_last_error() message naming it; cblas_sgemm and sgemm_ one call of the
 *     error handler (the target's own xerbla_ / cblas_xerbla, which replace the library's weak
 *     ones as a program's do) with reference BLAS's argument position; C, A and B bit-identical;
 *   - GPU entry points: this build has no CUDA backend, so gk_cuda_sgemm, gk_cuda_sgemm_kernel and
 *     the context functions must return GK_ERR_NOT_BUILT for any arguments, a NULL or a dummy
 *     context included, and touch nothing. Their argument check is the one gk_sgemm uses,
 *     gk_check_gemm (src/core/internal.h), so it is fuzzed directly: the status, the message and
 *     the column-major normalisation against the rules, and its inline shortcut against the
 *     ordered checks (gk_check_gemm_slow). What needs a context (the kernel's compute capability,
 *     the pointer checks, workspace sizes, launches) needs a device or the CUDA emulation of
 *     tests/cuda/.
 *
 * Input encoding (bytes in order; a missing byte reads as 0, so every input decodes):
 *   entry     1 byte  % 4: gk_sgemm, cblas_sgemm, sgemm_, GPU entry points + gk_check_gemm
 *   layout    1 byte  % 8: 0-2 column-major, 3-5 row-major, 6 near-valid 98..105 (next byte),
 *                          7 any int32 (next 4 bytes); sgemm_ ignores it (column-major)
 *   transa,   1 byte each % 8: 0-2 N, 3-4 T, 5 C, 6 near-valid 108..115, 7 any int32; for sgemm_
 *   transb                the character "NTCntc"[byte % 6] for bytes % 8 < 6, else the next byte
 *   m, n, k   1 byte each % 16: 0-9 small (next byte % 25), 10-11 large (next 2 bytes % 1025,
 *                          shrunk below to 2^20 multiply-adds), 12 zero, 13 negative, 14 huge
 *                          (2^30 .. INT64_MAX, next byte picks), 15 any int64 (next 8 bytes)
 *   lda, ldb, ldc  1 byte each % 16: 0-5 minimum, 6-9 minimum + 1..8, 10 minimum - 1,
 *                          11 minimum - 1 - next byte, 12 zero, 13 negative, 14 huge, 15 any int64
 *   BLAS entries truncate the six sizes to int, as a caller's int arguments would be.
 *   alpha, beta  1 byte each % 16: 0-2 zero, 3-5 one, 6 -1, 7 0.5, 8 NaN, 9 -0, 10-13 uniform in
 *                          [-4, 4) (next 2 bytes), 14 +-1e-40 (subnormal), 15 +-m * 2^e with
 *                          e in [-60, 60] (next 2 bytes)
 *   threads   1 byte  % 4 + 1
 *   family    1 byte  % 4: cpuid choice, generic, avx2, avx512 (skipped if the CPU lacks it)
 *   nulls     1 byte: a NULL when bits 0-2 are all set, b when bits 3-5, c when bits 6-7
 *   poison    1 byte: bit 0 fills what must not be read with NaN/Inf, bit 1 puts a NaN inside A
 *                     or B (the reference follows it)
 *   seed      8 bytes: the operands' random data
 *   GPU       1 byte context (even: NULL, odd: a dummy), 4 bytes kernel id, 4 bytes device
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas/cblas_abi.h"
#include "core/internal.h"
#include "gemmkit.h"
#include "harness/harness.h"
#include "tests/common/blas_handlers.h"

/* Floats of sentinels before and after C's span. */
enum { GUARD = 16 };
/* Largest call the target runs: elements of one operand, multiply-adds. Larger valid calls are
 * only checked for their arguments. */
#define MAX_SPAN ((int64_t)1 << 21)
#define MAX_MNK ((int64_t)1 << 20)
/* Dimensions of the "large" mode, before the shrink to MAX_MNK. */
enum { LARGE_DIM = 1024, SMALL_DIM = 24 };

enum entry { E_GK, E_CBLAS, E_F77, E_GPU };
static const char *const entry_name[] = {"gk_sgemm", "cblas_sgemm", "sgemm_", "gpu"};

/* ---- input decoding ----------------------------------------------------------------------- */

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static uint8_t u8(reader *r) {
    if (!r->n) return 0;
    r->n--;
    return *r->p++;
}
static uint64_t uN(reader *r, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)u8(r) << (8 * i);
    return v;
}

static const int64_t huge_values[8] = {
    ((int64_t)1 << 30) - 1, (int64_t)1 << 30, INT32_MAX,        (int64_t)1 << 31,
    ((int64_t)1 << 32) + 1, (int64_t)1 << 40, (int64_t)1 << 61, INT64_MAX};
static const int64_t negative_values[8] = {
    -1, -2, -3, -24, INT32_MIN, -((int64_t)1 << 40), INT64_MIN + 1, INT64_MIN};

static int decode_layout(reader *r) {
    const int sel = u8(r) % 8;
    if (sel < 6) return sel < 3 ? GK_COL_MAJOR : GK_ROW_MAJOR;
    if (sel == 6) return GK_ROW_MAJOR - 3 + u8(r) % 8;
    return (int)(int32_t)(uint32_t)uN(r, 4);
}

static int decode_trans(reader *r) {
    const int sel = u8(r) % 8;
    if (sel < 6) return sel < 3 ? GK_NO_TRANS : sel < 5 ? GK_TRANS : GK_CONJ_TRANS;
    if (sel == 6) return GK_NO_TRANS - 3 + u8(r) % 8;
    return (int)(int32_t)(uint32_t)uN(r, 4);
}

static char decode_char(reader *r) {
    const int sel = u8(r) % 8;
    return sel < 6 ? "NTCntc"[sel] : (char)u8(r);
}

/* *large is set when the value came from the large mode (it may be shrunk later). */
static int64_t decode_dim(reader *r, int *large) {
    *large = 0;
    switch (u8(r) % 16) {
    case 10:
    case 11:
        *large = 1;
        return (int64_t)(uN(r, 2) % (LARGE_DIM + 1));
    case 12:
        return 0;
    case 13:
        return negative_values[u8(r) % 8];
    case 14:
        return huge_values[u8(r) % 8];
    case 15:
        return (int64_t)uN(r, 8);
    default:
        return u8(r) % (SMALL_DIM + 1);
    }
}

static int64_t decode_ld(reader *r, int64_t min) {
    switch (u8(r) % 16) {
    case 6:
    case 7:
    case 8:
    case 9:
        return min < INT64_MAX - 9 ? min + 1 + u8(r) % 8 : INT64_MAX;
    case 10:
        return min - 1;
    case 11:
        return min - 1 - u8(r);
    case 12:
        return 0;
    case 13:
        return negative_values[u8(r) % 8];
    case 14:
        return huge_values[u8(r) % 8];
    case 15:
        return (int64_t)uN(r, 8);
    default:
        return min;
    }
}

static float decode_scalar(reader *r) {
    switch (u8(r) % 16) {
    case 0:
    case 1:
    case 2:
        return 0.0f;
    case 3:
    case 4:
    case 5:
        return 1.0f;
    case 6:
        return -1.0f;
    case 7:
        return 0.5f;
    case 8:
        return NAN;
    case 9:
        return -0.0f;
    case 14:
        return u8(r) & 1 ? -1e-40f : 1e-40f;
    case 15: {
        const unsigned v = (unsigned)uN(r, 2);
        return ldexpf((v & 1 ? -1.0f : 1.0f) * (1.0f + (float)((v >> 1) & 127) / 128.0f),
                      (int)((v >> 8) % 121) - 60);
    }
    default:
        return (float)uN(r, 2) / 8192.0f - 4.0f;
    }
}

/* ---- one call ------------------------------------------------------------------------------ */

typedef struct call {
    enum entry entry;
    int layout, ta, tb; /* gemmkit/CBLAS enum values as passed (possibly invalid) */
    char ca, cb;        /* sgemm_'s characters */
    int64_t m, n, k, lda, ldb, ldc;
    float alpha, beta;
    int threads, family;
    int null_a, null_b, null_c, poison, nan_in_ab;
    uint64_t seed;
    int gpu_dummy_ctx, gpu_kernel, gpu_device;
} call;

static const char *const family_name[] = {NULL, "generic", "avx2", "avx512"};

static char desc[512]; /* the current call, printed on a failure */

static void describe(const call *c) {
    snprintf(desc, sizeof desc,
             "%s layout=%d ta=%d tb=%d ca=0x%02x cb=0x%02x m=%lld n=%lld k=%lld lda=%lld "
             "ldb=%lld ldc=%lld alpha=%g beta=%g threads=%d family=%s null=%d%d%d poison=%d "
             "nan_in_ab=%d seed=%llu",
             entry_name[c->entry], c->layout, c->ta, c->tb, (unsigned char)c->ca,
             (unsigned char)c->cb, (long long)c->m, (long long)c->n, (long long)c->k,
             (long long)c->lda, (long long)c->ldb, (long long)c->ldc, c->alpha, c->beta, c->threads,
             family_name[c->family] ? family_name[c->family] : "cpuid", c->null_a, c->null_b,
             c->null_c, c->poison, c->nan_in_ab, (unsigned long long)c->seed);
}

__attribute__((format(printf, 1, 2), noreturn)) static void fail(const char *fmt, ...) {
    fprintf(stderr, "fuzz_gemm: FAIL: ");
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n  call: %s\n  gk_last_error: \"%s\"\n", desc, gk_last_error());
    __builtin_trap();
}
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) fail(__VA_ARGS__);                                                            \
    } while (0)

static int is_trans(int t) {
    return t == GK_TRANS || t == GK_CONJ_TRANS;
}

/* The leading dimension's minimum under the rules, for any (even invalid) layout and trans:
 * an invalid layout counts as column-major, an invalid trans as no transposition. */
static int64_t ld_min(int layout, int trans, int64_t op_rows, int64_t op_cols) {
    const int64_t rows = is_trans(trans) ? op_cols : op_rows,
                  cols = is_trans(trans) ? op_rows : op_cols;
    const int64_t need = layout == GK_ROW_MAJOR ? cols : rows;
    return need > 1 ? need : 1;
}

static void shrink_large(int64_t *d[3], const int large[3]) {
    for (;;) {
        __int128 mnk = 1;
        int big = -1;
        for (int i = 0; i < 3; i++) {
            if (*d[i] < 0 || *d[i] > LARGE_DIM) return; /* sizes of other modes stay as decoded */
            mnk *= *d[i];
            if (large[i] && *d[i] > 1 && (big < 0 || *d[i] > *d[big])) big = i;
        }
        if (mnk <= MAX_MNK || big < 0) return;
        *d[big] /= 2;
    }
}

static void decode(const uint8_t *data, size_t size, call *c) {
    reader r = {data, size};
    memset(c, 0, sizeof *c);
    c->entry = (enum entry)(u8(&r) % 4);
    c->layout = decode_layout(&r);
    if (c->entry == E_F77) {
        c->layout = GK_COL_MAJOR;
        c->ca = decode_char(&r);
        c->cb = decode_char(&r);
        c->ta = c->ca == 'N' || c->ca == 'n' ? GK_NO_TRANS : GK_TRANS;
        c->tb = c->cb == 'N' || c->cb == 'n' ? GK_NO_TRANS : GK_TRANS;
    } else {
        c->ta = decode_trans(&r);
        c->tb = decode_trans(&r);
    }
    int large[3];
    c->m = decode_dim(&r, &large[0]);
    c->n = decode_dim(&r, &large[1]);
    c->k = decode_dim(&r, &large[2]);
    shrink_large((int64_t *[3]){&c->m, &c->n, &c->k}, large);
    c->lda = decode_ld(&r, ld_min(c->layout, c->ta, c->m, c->k));
    c->ldb = decode_ld(&r, ld_min(c->layout, c->tb, c->k, c->n));
    c->ldc = decode_ld(&r, ld_min(c->layout, GK_NO_TRANS, c->m, c->n));
    if (c->entry == E_CBLAS || c->entry == E_F77) {
        int64_t *v[6] = {&c->m, &c->n, &c->k, &c->lda, &c->ldb, &c->ldc};
        for (int i = 0; i < 6; i++)
            *v[i] = (int32_t)(uint32_t)*v[i];
    }
    c->alpha = decode_scalar(&r);
    c->beta = decode_scalar(&r);
    c->threads = 1 + u8(&r) % 4;
    c->family = u8(&r) % 4;
    const uint8_t nulls = u8(&r);
    c->null_a = (nulls & 7) == 7;
    c->null_b = (nulls >> 3 & 7) == 7;
    c->null_c = nulls >> 6 == 3;
    const uint8_t poison = u8(&r);
    c->poison = poison & 1;
    c->nan_in_ab = poison >> 1 & 1;
    c->seed = uN(&r, 8) | 1;
    c->gpu_dummy_ctx = u8(&r) & 1;
    c->gpu_kernel = (int)(int32_t)(uint32_t)uN(&r, 4);
    c->gpu_device = (int)(int32_t)(uint32_t)uN(&r, 4);
}

/* ---- the rules ------------------------------------------------------------------------------
 * Written from gemmkit.h and reference BLAS, independently of src/core/args.c. */

typedef struct expect {
    gk_status status;
    const char *arg; /* what the message must name after "<who>: " */
} expect;

/* Bytes of a stored matrix with `inner` contiguous elements per line, `outer` lines ld apart,
 * exceed PTRDIFF_MAX. */
static int overflows(int64_t inner, int64_t outer, int64_t ld) {
    if (inner == 0 || outer == 0) return 0;
    const __int128 elements = (__int128)(outer - 1) * ld + inner;
    return elements > PTRDIFF_MAX / (__int128)sizeof(float);
}

/* gk_sgemm's (and gk_check_gemm's) verdict: the first bad argument in the order layout, transa,
 * transb, m, n, k, lda, ldb, ldc, pointers (c when C has elements, a and b when they are read:
 * C has elements, k > 0 and alpha != 0), byte overflow of a, b, c. */
static expect rule_gk(int layout, int ta, int tb, int64_t m, int64_t n, int64_t k, float alpha,
                      const void *a, int64_t lda, const void *b, int64_t ldb, const void *c,
                      int64_t ldc) {
    const int row = layout == GK_ROW_MAJOR;
    if (layout != GK_ROW_MAJOR && layout != GK_COL_MAJOR)
        return (expect){GK_ERR_INVALID_LAYOUT, "layout="};
    if (ta != GK_NO_TRANS && !is_trans(ta)) return (expect){GK_ERR_INVALID_TRANS, "transa="};
    if (tb != GK_NO_TRANS && !is_trans(tb)) return (expect){GK_ERR_INVALID_TRANS, "transb="};
    if (m < 0) return (expect){GK_ERR_INVALID_SIZE, "m="};
    if (n < 0) return (expect){GK_ERR_INVALID_SIZE, "n="};
    if (k < 0) return (expect){GK_ERR_INVALID_SIZE, "k="};
    if (lda < ld_min(layout, ta, m, k)) return (expect){GK_ERR_INVALID_LD, "lda="};
    if (ldb < ld_min(layout, tb, k, n)) return (expect){GK_ERR_INVALID_LD, "ldb="};
    if (ldc < ld_min(layout, GK_NO_TRANS, m, n)) return (expect){GK_ERR_INVALID_LD, "ldc="};
    const int has_c = m > 0 && n > 0, reads = has_c && k > 0 && alpha != 0.0f;
    if (has_c && !c) return (expect){GK_ERR_NULL_POINTER, "c is NULL"};
    if (reads && !a) return (expect){GK_ERR_NULL_POINTER, "a is NULL"};
    if (reads && !b) return (expect){GK_ERR_NULL_POINTER, "b is NULL"};
    /* stored rows x cols of A is op(A)'s transpose when transposed */
    const int64_t ar = is_trans(ta) ? k : m, ac = is_trans(ta) ? m : k;
    const int64_t br = is_trans(tb) ? n : k, bc = is_trans(tb) ? k : n;
    if (overflows(row ? ac : ar, row ? ar : ac, lda)) return (expect){GK_ERR_OVERFLOW, "a ("};
    if (overflows(row ? bc : br, row ? br : bc, ldb)) return (expect){GK_ERR_OVERFLOW, "b ("};
    if (overflows(row ? n : m, row ? m : n, ldc)) return (expect){GK_ERR_OVERFLOW, "c ("};
    return (expect){GK_SUCCESS, ""};
}

static int lsame(char c, char upper) {
    return c == upper || c == upper + ('a' - 'A');
}

/* Reference SGEMM's INFO (netlib sgemm.f): 0, or the position of the first illegal argument. */
static int rule_f77(char ta, char tb, int m, int n, int k, int lda, int ldb, int ldc) {
    const int nota = lsame(ta, 'N'), notb = lsame(tb, 'N');
    const int nrowa = nota ? m : k, nrowb = notb ? k : n;
    if (!nota && !lsame(ta, 'C') && !lsame(ta, 'T')) return 1;
    if (!notb && !lsame(tb, 'C') && !lsame(tb, 'T')) return 2;
    if (m < 0) return 3;
    if (n < 0) return 4;
    if (k < 0) return 5;
    if (lda < (nrowa > 1 ? nrowa : 1)) return 8;
    if (ldb < (nrowb > 1 ? nrowb : 1)) return 10;
    if (ldc < (m > 1 ? m : 1)) return 13;
    return 0;
}

static char cblas_char(int t) {
    return t == CblasNoTrans ? 'N' : t == CblasTrans ? 'T' : t == CblasConjTrans ? 'C' : 0;
}

/* Reference CBLAS's position for cblas_xerbla: order 1, TransA 2, TransB 3, then the column-major
 * SGEMM check plus one; a row-major call is checked as the column-major call it is (A and B, M
 * and N swapped), and that call's positions are reported. */
static int rule_cblas(const call *c) {
    const char ta = cblas_char(c->ta), tb = cblas_char(c->tb);
    if (c->layout != CblasColMajor && c->layout != CblasRowMajor) return 1;
    if (!ta) return 2;
    if (!tb) return 3;
    const int info = c->layout == CblasColMajor ? rule_f77(ta, tb, (int)c->m, (int)c->n, (int)c->k,
                                                           (int)c->lda, (int)c->ldb, (int)c->ldc)
                                                : rule_f77(tb, ta, (int)c->n, (int)c->m, (int)c->k,
                                                           (int)c->ldb, (int)c->lda, (int)c->ldc);
    return info ? info + 1 : 0;
}

/* ---- buffers ------------------------------------------------------------------------------- */

static float qnan_sentinel(int64_t idx) {
    const uint32_t bits = 0x7fc00000u | (uint32_t)(idx & 0x3fffff);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* A stored operand: `inner` contiguous elements per line, `outer` lines ld apart. */
typedef struct operand {
    float *p;    /* what the call gets (NULL when asked) */
    float *buf;  /* allocation */
    float *copy; /* its contents before the call */
    int64_t len; /* floats in buf */
    int64_t off; /* p - buf */
    int64_t inner, outer, ld;
} operand;

static int64_t extent(int64_t inner, int64_t outer, int64_t ld) {
    return inner == 0 || outer == 0 ? 0 : (outer - 1) * ld + inner;
}

/* `full`: allocate the whole span (the call uses it), with `guard` sentinels either side; else a
 * few floats the call must not touch. Elements get random values in [-1, 1), or with `poison`
 * (elements the call must not read) NaN and infinities; gaps and guards get position-coded NaN,
 * and an unused dummy is all infinities under `poison`. */
static void operand_make(operand *o, int64_t inner, int64_t outer, int64_t ld, int full, int guard,
                         int null, gkh_rng *rng, int poison) {
    memset(o, 0, sizeof *o);
    o->inner = inner, o->outer = outer, o->ld = ld;
    const int64_t span = full ? extent(inner, outer, ld) : 4;
    o->off = guard;
    o->len = span + 2 * guard;
    if (o->len == 0) o->len = 1; /* malloc(0) may be NULL; keep a real pointer */
    o->buf = malloc((size_t)o->len * sizeof(float));
    o->copy = malloc((size_t)o->len * sizeof(float));
    if (!o->buf || !o->copy) abort();
    for (int64_t i = 0; i < o->len; i++) {
        const int64_t e = i - guard;
        const int element = full && e >= 0 && e < span && e % ld < inner;
        if (!element)
            o->buf[i] = qnan_sentinel(i);
        else if (!poison)
            o->buf[i] = gkh_rng_float(rng);
        else
            o->buf[i] = (gkh_rng_next(rng) & 1)   ? NAN
                        : (gkh_rng_next(rng) & 1) ? INFINITY
                                                  : -INFINITY;
    }
    if (!full && poison) /* the dummy of an unread operand */
        for (int64_t i = 0; i < o->len; i++)
            o->buf[i] = INFINITY;
    memcpy(o->copy, o->buf, (size_t)o->len * sizeof(float));
    o->p = null ? NULL : o->buf + o->off;
}

static void operand_free(operand *o) {
    free(o->buf);
    free(o->copy);
}

static int operand_intact(const operand *o) {
    return memcmp(o->buf, o->copy, (size_t)o->len * sizeof(float)) == 0;
}

/* ---- checks -------------------------------------------------------------------------------- */

/* gk_check_gemm, called as the GPU entry points call it (and gk_sgemm), against the rules: status,
 * message, normalisation; its inline shortcut against the ordered checks. */
static void check_arg_check(const call *c, const char *who, const float *a, const float *b,
                            float *cp) {
    const expect want = rule_gk(c->layout, c->ta, c->tb, c->m, c->n, c->k, c->alpha, a, c->lda, b,
                                c->ldb, cp, c->ldc);
    gk_gemm_args fast, slow;
    memset(&fast, 0xa5, sizeof fast);
    memset(&slow, 0x5a, sizeof slow);
    gk_clear_error_now();
    const gk_status s =
        gk_check_gemm(who, (gk_layout)c->layout, (gk_trans)c->ta, (gk_trans)c->tb, c->m, c->n, c->k,
                      c->alpha, a, c->lda, b, c->ldb, c->beta, cp, c->ldc, &fast);
    CHECK(s == want.status, "gk_check_gemm returned %d, the rules say %d (%s)", (int)s,
          (int)want.status, want.arg);
    char named[64];
    snprintf(named, sizeof named, "%s: %s", who, want.arg);
    if (s != GK_SUCCESS)
        CHECK(strstr(gk_last_error(), named) != NULL, "gk_check_gemm's message lacks \"%s\"",
              named);
    const gk_status s2 =
        gk_check_gemm_slow(who, (gk_layout)c->layout, (gk_trans)c->ta, (gk_trans)c->tb, c->m, c->n,
                           c->k, c->alpha, a, c->lda, b, c->ldb, c->beta, cp, c->ldc, &slow);
    CHECK(s2 == s, "gk_check_gemm_slow returned %d, the inline check %d", (int)s2, (int)s);
    if (s != GK_SUCCESS) return;
    /* Column-major as given; row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T. */
    const int row = c->layout == GK_ROW_MAJOR;
    gk_gemm_args want_g;
    want_g.m = row ? c->n : c->m, want_g.n = row ? c->m : c->n, want_g.k = c->k;
    want_g.transa = is_trans(row ? c->tb : c->ta), want_g.transb = is_trans(row ? c->ta : c->tb);
    want_g.a = row ? b : a, want_g.lda = row ? c->ldb : c->lda;
    want_g.b = row ? a : b, want_g.ldb = row ? c->lda : c->ldb;
    want_g.c = cp, want_g.ldc = c->ldc;
    const gk_gemm_args *got[2] = {&fast, &slow};
    for (int i = 0; i < 2; i++) {
        const gk_gemm_args *g = got[i];
        CHECK(g->m == want_g.m && g->n == want_g.n && g->k == want_g.k &&
                  g->transa == want_g.transa && g->transb == want_g.transb && g->a == want_g.a &&
                  g->b == want_g.b && g->c == want_g.c && g->lda == want_g.lda &&
                  g->ldb == want_g.ldb && g->ldc == want_g.ldc &&
                  memcmp(&g->alpha, &c->alpha, sizeof(float)) == 0 &&
                  memcmp(&g->beta, &c->beta, sizeof(float)) == 0,
              "%s normalised to m=%lld n=%lld k=%lld ta=%d tb=%d lda=%lld ldb=%lld ldc=%lld",
              i ? "gk_check_gemm_slow" : "gk_check_gemm", (long long)g->m, (long long)g->n,
              (long long)g->k, g->transa, g->transb, (long long)g->lda, (long long)g->ldb,
              (long long)g->ldc);
    }
}

/* Without the CUDA backend every GPU function answers GK_ERR_NOT_BUILT and touches nothing. */
static void check_gpu(const call *c, const float *a, const float *b, float *cp) {
    static char dummy[64]; /* never dereferenced as a context in this build */
    gk_cuda_ctx *ctx = c->gpu_dummy_ctx ? (gk_cuda_ctx *)(void *)dummy : NULL;
    CHECK(gk_cuda_available() == 0, "gk_cuda_available() != 0 without the CUDA backend");
    CHECK(gk_cuda_kernel_count() == 0, "gk_cuda_kernel_count() != 0 without the CUDA backend");
    gk_status s = gk_cuda_sgemm(ctx, (gk_layout)c->layout, (gk_trans)c->ta, (gk_trans)c->tb, c->m,
                                c->n, c->k, c->alpha, a, c->lda, b, c->ldb, c->beta, cp, c->ldc);
    CHECK(s == GK_ERR_NOT_BUILT && strstr(gk_last_error(), "gk_cuda_sgemm"),
          "gk_cuda_sgemm returned %d", (int)s);
    s = gk_cuda_sgemm_kernel(ctx, c->gpu_kernel, (gk_layout)c->layout, (gk_trans)c->ta,
                             (gk_trans)c->tb, c->m, c->n, c->k, c->alpha, a, c->lda, b, c->ldb,
                             c->beta, cp, c->ldc);
    CHECK(s == GK_ERR_NOT_BUILT && strstr(gk_last_error(), "gk_cuda_sgemm_kernel"),
          "gk_cuda_sgemm_kernel returned %d", (int)s);
    gk_cuda_ctx *made = (gk_cuda_ctx *)(void *)dummy;
    s = gk_cuda_create(c->gpu_dummy_ctx ? &made : NULL, c->gpu_device, NULL);
    CHECK(s == GK_ERR_NOT_BUILT && made == (c->gpu_dummy_ctx ? NULL : (gk_cuda_ctx *)(void *)dummy),
          "gk_cuda_create returned %d", (int)s);
    CHECK(gk_cuda_set_stream(ctx, dummy) == GK_ERR_NOT_BUILT, "gk_cuda_set_stream");
    gk_cuda_kernel_info info;
    CHECK(gk_cuda_kernel_info_get(c->gpu_kernel, c->gpu_dummy_ctx ? &info : NULL) ==
              GK_ERR_NOT_BUILT,
          "gk_cuda_kernel_info_get");
    CHECK(gk_cuda_destroy(ctx) == GK_ERR_NOT_BUILT, "gk_cuda_destroy");
}

/* C's block within the rule against the float64 reference; NaN and infinities must match. */
static void check_result(const call *c, const operand *oa, const operand *ob, const operand *oc,
                         int row) {
    const int64_t m = c->m, n = c->n, k = c->k;
    double *r = malloc((size_t)(m * n) * sizeof *r), *s = malloc((size_t)(m * n) * sizeof *s);
    if (!r || !s) abort();
    /* k == 0 scales C by beta: alpha (even NaN) plays no part */
    const float alpha = k == 0 ? 0.0f : c->alpha;
    gkh_ref_gemm(row ? GK_ROW_MAJOR : GK_COL_MAJOR, is_trans(c->ta) ? GK_TRANS : GK_NO_TRANS,
                 is_trans(c->tb) ? GK_TRANS : GK_NO_TRANS, m, n, k, alpha, oa->copy + oa->off,
                 c->lda, ob->copy + ob->off, c->ldb, c->beta, oc->copy + oc->off, c->ldc, r, s);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            const double got = row ? oc->p[i * c->ldc + j] : oc->p[i + j * c->ldc];
            const double want = r[i + j * m];
            const double bound = gkh_bound(k, 0.0, s[i + j * m]);
            int good;
            if (isnan(want))
                good = isnan(got);
            else if (isinf(want))
                good = got == want;
            else
                good = fabs(got - want) <= bound;
            CHECK(good, "C(%lld,%lld) = %.9g, reference %.9g (bound %.3g)", (long long)i,
                  (long long)j, got, want, bound);
        }
    free(r);
    free(s);
}

/* Everything of C's buffer outside the m x n block is as before. */
static void check_outside_block(const operand *oc) {
    for (int64_t i = 0; i < oc->len; i++) {
        const int64_t e = i - oc->off;
        const int element =
            e >= 0 && e < extent(oc->inner, oc->outer, oc->ld) && e % oc->ld < oc->inner;
        if (!element)
            CHECK(memcmp(&oc->buf[i], &oc->copy[i], sizeof(float)) == 0,
                  "C's buffer changed outside the block at offset %lld from C", (long long)e);
    }
}

/* GK_FUZZ_PRINT=1 prints each call before it runs: what a crash report (a sanitizer's, say)
 * does not say, e.g. `GK_FUZZ_PRINT=1 fuzz_gemm crash-...`. */
static int print_calls;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    const char *v = getenv("GK_FUZZ_PRINT");
    print_calls = v && *v && strcmp(v, "0") != 0;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    call c;
    decode(data, size, &c);
    describe(&c);
    if (print_calls) fprintf(stderr, "fuzz_gemm: %s\n", desc);
    const int row = c.layout == GK_ROW_MAJOR;

    /* The outcome the rules give: an error (handler call or status), C untouched, or computed. */
    int f77_want = 0, cblas_want = 0;
    expect gk_want = {GK_SUCCESS, ""};
    if (c.entry == E_F77)
        f77_want =
            rule_f77(c.ca, c.cb, (int)c.m, (int)c.n, (int)c.k, (int)c.lda, (int)c.ldb, (int)c.ldc);
    if (c.entry == E_CBLAS) cblas_want = rule_cblas(&c);
    /* Pointer rules first need to know which pointers are NULL: a placeholder stands for "set". */
    static const float placeholder;
    const float *pa = c.null_a ? NULL : &placeholder, *pb = c.null_b ? NULL : &placeholder;
    const float *pc = c.null_c ? NULL : &placeholder;
    int quick = 0; /* BLAS quick return */
    if (c.entry == E_GK || c.entry == E_GPU) {
        gk_want =
            rule_gk(c.layout, c.ta, c.tb, c.m, c.n, c.k, c.alpha, pa, c.lda, pb, c.ldb, pc, c.ldc);
    } else if (!f77_want && !cblas_want) {
        /* The drop-ins then run reference SGEMM's quick return, else gk_sgemm column-major. */
        quick = c.m == 0 || c.n == 0 || ((c.alpha == 0.0f || c.k == 0) && c.beta == 1.0f);
        gk_want = row ? rule_gk(GK_COL_MAJOR, c.tb, c.ta, c.n, c.m, c.k, c.alpha, pb, c.ldb, pa,
                                c.lda, pc, c.ldc)
                      : rule_gk(GK_COL_MAJOR, c.ta, c.tb, c.m, c.n, c.k, c.alpha, pa, c.lda, pb,
                                c.ldb, pc, c.ldc);
    }
    const int invalid = f77_want || cblas_want || gk_want.status != GK_SUCCESS;
    const int has_c = !invalid && !quick && c.m > 0 && c.n > 0 && c.entry != E_GPU;
    const int reads_ab = has_c && c.k > 0 && c.alpha != 0.0f;

    /* Stored shapes: inner (contiguous) and outer extents in the caller's layout. */
    const int ta = is_trans(c.ta), tb = is_trans(c.tb);
    const int64_t ar = ta ? c.k : c.m, ac = ta ? c.m : c.k, br = tb ? c.n : c.k,
                  bc = tb ? c.k : c.n;
    if (has_c) {
        const int64_t spans[3] = {reads_ab ? extent(row ? ac : ar, row ? ar : ac, c.lda) : 0,
                                  reads_ab ? extent(row ? bc : br, row ? br : bc, c.ldb) : 0,
                                  extent(row ? c.n : c.m, row ? c.m : c.n, c.ldc)};
        int too_large = reads_ab && (double)c.m * (double)c.n * (double)c.k > (double)MAX_MNK;
        for (int i = 0; i < 3; i++)
            too_large |= spans[i] > MAX_SPAN;
        if (too_large) { /* valid, but too large to run here: its argument check only */
            if (c.entry == E_GK) check_arg_check(&c, "gk_sgemm", pa, pb, (float *)pc);
            return 0;
        }
    }

    gkh_rng rng = {c.seed};
    operand oa, ob, oc;
    operand_make(&oa, row ? ac : ar, row ? ar : ac, c.lda, reads_ab, 0, c.null_a, &rng,
                 c.poison && !reads_ab);
    operand_make(&ob, row ? bc : br, row ? br : bc, c.ldb, reads_ab, 0, c.null_b, &rng,
                 c.poison && !reads_ab);
    operand_make(&oc, row ? c.n : c.m, row ? c.m : c.n, c.ldc, has_c, GUARD, c.null_c, &rng,
                 c.poison && c.beta == 0.0f);
    if (reads_ab && c.nan_in_ab) { /* a NaN inside A or B: the reference carries it too */
        operand *o = gkh_rng_next(&rng) & 1 ? &oa : &ob;
        const int64_t e = (int64_t)(gkh_rng_next(&rng) % (uint64_t)(o->inner * o->outer));
        o->buf[e / o->inner * o->ld + e % o->inner] = NAN;
        memcpy(o->copy, o->buf, (size_t)o->len * sizeof(float));
    }

    if (c.entry == E_GK || c.entry == E_GPU)
        check_arg_check(&c, c.entry == E_GPU ? "gk_cuda_sgemm" : "gk_sgemm", oa.p, ob.p, oc.p);

    CHECK(gk_set_num_threads(c.threads) == GK_SUCCESS, "gk_set_num_threads(%d)", c.threads);
    if (gk_set_arch(family_name[c.family]) != GK_SUCCESS) {
        CHECK(gk_set_arch(NULL) == GK_SUCCESS, "gk_set_arch(NULL)");
    }
    blas_handlers_reset();
    switch (c.entry) {
    case E_GK: {
        const gk_status s = gk_sgemm((gk_layout)c.layout, (gk_trans)c.ta, (gk_trans)c.tb, c.m, c.n,
                                     c.k, c.alpha, oa.p, c.lda, ob.p, c.ldb, c.beta, oc.p, c.ldc);
        CHECK(s == gk_want.status, "gk_sgemm returned %d (%s), the rules say %d (%s)", (int)s,
              gk_status_string(s), (int)gk_want.status, gk_want.arg);
        if (s == GK_SUCCESS) {
            CHECK(gk_last_error()[0] == '\0', "a successful gk_sgemm left a message");
        } else {
            char named[64];
            snprintf(named, sizeof named, "gk_sgemm: %s", gk_want.arg);
            CHECK(strstr(gk_last_error(), named), "gk_sgemm's message lacks \"%s\"", named);
        }
        break;
    }
    case E_CBLAS:
        cblas_sgemm((enum CBLAS_ORDER)c.layout, (enum CBLAS_TRANSPOSE)c.ta,
                    (enum CBLAS_TRANSPOSE)c.tb, (int)c.m, (int)c.n, (int)c.k, c.alpha, oa.p,
                    (int)c.lda, ob.p, (int)c.ldb, c.beta, oc.p, (int)c.ldc);
        CHECK(f77_calls == 0, "cblas_sgemm called xerbla_");
        CHECK(c_calls == (cblas_want != 0) && c_info == cblas_want,
              "cblas_xerbla called %d times with %d; the rules say %d", c_calls, c_info,
              cblas_want);
        if (cblas_want) CHECK(strcmp(c_rout, "cblas_sgemm") == 0, "cblas_xerbla rout %s", c_rout);
        break;
    case E_F77: {
        const int m = (int)c.m, n = (int)c.n, k = (int)c.k;
        const int lda = (int)c.lda, ldb = (int)c.ldb, ldc = (int)c.ldc;
        sgemm_(&c.ca, &c.cb, &m, &n, &k, &c.alpha, oa.p, &lda, ob.p, &ldb, &c.beta, oc.p, &ldc, 1,
               1);
        CHECK(c_calls == 0, "sgemm_ called cblas_xerbla");
        CHECK(f77_calls == (f77_want != 0) && f77_info == f77_want,
              "xerbla_ called %d times with %d; the rules say %d", f77_calls, f77_info, f77_want);
        if (f77_want) CHECK(strcmp(f77_name, "SGEMM ") == 0, "xerbla_ srname '%s'", f77_name);
        break;
    }
    case E_GPU:
        check_gpu(&c, oa.p, ob.p, oc.p);
        break;
    }

    CHECK(operand_intact(&oa), "A was written");
    CHECK(operand_intact(&ob), "B was written");
    if (has_c) {
        check_outside_block(&oc);
        check_result(&c, &oa, &ob, &oc, row);
    } else {
        CHECK(operand_intact(&oc), "C was written by a call that must not touch it");
    }
    operand_free(&oa);
    operand_free(&ob);
    operand_free(&oc);
    return 0;
}
