/*
 * gemm_ex.c — gk_gemm_ex, the CPU GEMM with BF16/FP16/FP32 operands and a FP32/BF16/FP16 C
 * (include/gemmkit.h; docs/cpu.md, "Low precision"), and the choice of its kernel.
 *
 * A call is checked like gk_sgemm (formats first, then gk_check_gemm_sized with the element sizes),
 * normalised to column-major, and run by the packed loop nest of gemm.c with a low-precision
 * kernel from the registry (kernels/lp.h), best first: AMX tiles, AVX512-BF16 dot products, or
 * the convert entry, which decodes BF16/FP16 to float32 while packing (the formats module's bulk
 * decode, then the FP32 family's own pack) and multiplies with the FP32 micro-kernel in use. FP32
 * operands go to the FP32 path. A BF16/FP16 C is accumulated in a float32 copy (read from C only
 * when beta != 0) and rounded to nearest even once, after alpha and beta.
 *
 * Kernel choice, for BF16 operands: gk_set_arch("amx" | "avx512bf16") forces that kernel; a forced
 * FP32 family (gk_set_arch, GEMMKIT_ARCH=generic|avx2|avx512) forces the convert entry on that
 * family; GEMMKIT_ARCH=amx|avx512bf16 picks that kernel when usable; otherwise the first usable
 * entry. FP16 operands always take the convert entry (lp.h says why).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parallel.h"
#include "cpu/config/cpu.h"
#include "cpu/frame/frame.h"
#include "cpu/kernels/lp.h"
#include "cpu/kernels/registry.h"
#include "formats/formats.h"

/* Settings fixed at first use: GEMMKIT_VERBOSE, the block sizes of every low-precision kernel and
 * of the convert entry on every FP32 family, and the convert entry's names. */
static struct {
    int verbose;
    gk_blocking lp_blk[8], cvt_blk[GK_UKR_MAX_KERNELS];
    char cvt_name[GK_UKR_MAX_KERNELS][48];
} st;
static pthread_once_t st_once = PTHREAD_ONCE_INIT;

static void init_state(void) {
    const gk_cpu_features *f = gk_cpu_features_get();
    const char *want = getenv("GEMMKIT_ARCH");
    const int idx = want ? gk_lp_find(want) : -1;
    st.verbose = getenv("GEMMKIT_VERBOSE") && strcmp(getenv("GEMMKIT_VERBOSE"), "0") != 0;
    for (int i = 0; i < gk_lp_count && i < 8; i++) {
        const gk_lp_desc *d = &gk_lp_table[i];
        if (!d->fn) continue;
        gk_blocking b = gk_cpu_blocking_kc(f, d->mr, d->nr, d->psize, d->kc);
        b.kc = gk_ceil_div64(b.kc, d->kgrain) * d->kgrain;
        st.lp_blk[i] = b;
    }
    for (int i = 0; i < gk_ukr_count; i++) {
        st.cvt_blk[i] = gk_cpu_blocking(f, gk_ukr_table[i].mr, gk_ukr_table[i].nr);
        snprintf(st.cvt_name[i], sizeof st.cvt_name[i], "convert+%s", gk_ukr_table[i].name);
    }
    if (st.verbose && want && idx >= 0 && gk_lp_env_choice() < 0)
        fprintf(stderr,
                "gemmkit: GEMMKIT_ARCH=%s is not supported by this CPU/OS; gk_gemm_ex "
                "uses the cpuid choice\n",
                want);
}

static void ensure_state(void) {
    pthread_once(&st_once, init_state);
}

/* The entry a call with operands `fmt` (GK_BF16 or GK_F16) runs now, and why. */
static int pick_lp(gk_format fmt, const char **reason) {
    ensure_state();
    const char *fp32_reason;
    gk_ukr_now(&fp32_reason);
    const unsigned bit = 1u << fmt;
    const int convert = gk_lp_count - 1;
    const int ov = gk_lp_override_now();
    const int env_lp = gk_lp_env_choice();
    if (ov >= 0) {
        *reason = "gk_set_arch";
        return gk_lp_table[ov].formats & bit ? ov : convert;
    }
    if (strcmp(fp32_reason, "cpuid") != 0) { /* an FP32 family forced: convert on it */
        *reason = fp32_reason;
        return convert;
    }
    if (env_lp >= 0) {
        *reason = "GEMMKIT_ARCH";
        return gk_lp_table[env_lp].formats & bit ? env_lp : convert;
    }
    *reason = "cpuid";
    for (int i = 0; i < gk_lp_count; i++)
        if ((gk_lp_table[i].formats & bit) && gk_lp_table[i].usable()) return i;
    return convert;
}

const char *gk_cpu_gemm_ex_kernel(gk_format atype, const char **reason) {
    const char *why = "cpuid";
    const char *name = NULL;
    if (atype == GK_F32) {
        name = gk_ukr_table[gk_ukr_now(&why)].name;
    } else if (atype == GK_BF16 || atype == GK_F16) {
        const int i = pick_lp(atype, &why);
        name = gk_lp_table[i].fn ? gk_lp_table[i].name : st.cvt_name[gk_ukr_now(NULL)];
    }
    if (reason) *reason = name ? why : NULL;
    return name;
}

/* ---- packing ----------------------------------------------------------------------------------
 */

/* The convert entry's packing: the block decoded to float32 in tmp, in its stored orientation
 * with a compact stride, then packed by the FP32 family's pack. */
typedef struct cvt_ctx {
    gk_format fmt;
    const gk_ukr_desc *u;
    const gk_fmt_variant *v;
} cvt_ctx;

static void cvt_pack(const gk_frame_lp *lp, int is_b, void *dst, int w, int64_t lanes, int64_t kb,
                     int64_t kp, const void *src, int64_t ls, int64_t ps, int64_t npan, void *tmp) {
    (void)is_b, (void)kp;
    const cvt_ctx *x = lp->ctx;
    const uint16_t *s = src;
    float *t = tmp;
    if (ls == 1) { /* lanes contiguous: one run of `lanes` codes per step */
        for (int64_t p = 0; p < kb; p++)
            x->v->decode(x->fmt, s + p * ps, t + p * lanes, lanes);
        x->u->pack(dst, w, lanes, kb, t, 1, lanes, npan);
    } else { /* steps contiguous: one run of kb codes per lane */
        for (int64_t l = 0; l < lanes; l++)
            x->v->decode(x->fmt, s + l * ls, t + l * kb, kb);
        x->u->pack(dst, w, lanes, kb, t, kb, 1, npan);
    }
}

/* A low-precision kernel's packing: its own pack functions on the codes. */
static void lp_pack(const gk_frame_lp *lp, int is_b, void *dst, int w, int64_t lanes, int64_t kb,
                    int64_t kp, const void *src, int64_t ls, int64_t ps, int64_t npan, void *tmp) {
    (void)tmp;
    const gk_lp_desc *d = lp->ctx;
    (is_b ? d->pack_b : d->pack_a)(dst, w, lanes, kb, kp, src, ls, ps, npan);
}

/* ---- C in float32 -----------------------------------------------------------------------------
 */

/* A BF16/F16 C's float32 copy, column-major m x n compact: columns decoded (decode) or encoded
 * back (!decode) on the pool's threads. */
typedef struct c_copy {
    const gk_fmt_variant *v;
    gk_format fmt;
    uint16_t *c;
    int64_t ldc, m, n;
    float *f;
    int decode;
} c_copy;

static void c_copy_task(void *ctx, int id, int nt) {
    const c_copy *x = ctx;
    int64_t lo, hi;
    gk_split(x->n, nt, id, &lo, &hi);
    for (int64_t j = lo; j < hi; j++) {
        if (x->decode)
            x->v->decode(x->fmt, x->c + j * x->ldc, x->f + j * x->m, x->m);
        else
            x->v->encode(x->fmt, x->f + j * x->m, x->c + j * x->ldc, x->m, 0);
    }
}

/* Elements of C per thread below which its copy runs on the calling thread alone. */
#define C_COPY_PER_THREAD ((int64_t)1 << 16)

static void c_copy_run(c_copy *x, int decode) {
    x->decode = decode;
    const int64_t per = x->m * x->n / C_COPY_PER_THREAD;
    int t = gk_get_num_threads();
    if ((int64_t)t > per) t = per < 1 ? 1 : (int)per;
    if ((int64_t)t > x->n) t = (int)x->n;
    gk_parallel(t, c_copy_task, x);
}

/* ---- the entry point --------------------------------------------------------------------------
 */

static const char *label(int f) {
    const char *s = gk_format_name((gk_format)f);
    return s ? s : "?";
}

static int is_type(int f) {
    return f == GK_F32 || f == GK_BF16 || f == GK_F16;
}

/* The formats, first: the element sizes of the other checks follow from them. Values are taken
 * as ints, so that a caller's value outside the enum is reported as given. */
static gk_status check_formats(const char *who, int at, int bt, int ct) {
    const char *names[3] = {"atype", "btype", "ctype"};
    const int f[3] = {at, bt, ct};
    for (int i = 0; i < 3; i++)
        if ((unsigned)f[i] >= (unsigned)GK_FORMAT_COUNT)
            return gk_fail(GK_ERR_INVALID_VALUE, "%s: %s=%d is not a gk_format value", who,
                           names[i], f[i]);
    for (int i = 0; i < 3; i++)
        if (!is_type(f[i]))
            return gk_fail(GK_ERR_UNSUPPORTED,
                           "%s: %s=%s is not supported on the CPU (float32, bfloat16 or float16)",
                           who, names[i], label(f[i]));
    if (at != bt)
        return gk_fail(GK_ERR_UNSUPPORTED,
                       "%s: atype=%s with btype=%s is not supported (both the same format)", who,
                       label(at), label(bt));
    return GK_SUCCESS;
}

static gk_status check_aligned(const char *who, const char *name, const void *p, int size) {
    if ((uintptr_t)p % (uintptr_t)size == 0) return GK_SUCCESS;
    return gk_fail(GK_ERR_INVALID_POINTER,
                   "%s: %s (%p) is not aligned to its element size (%d bytes)", who, name, p, size);
}

/* The multiplication of a checked, normalised call into float32 C (g->c, g->ldc); the call as
 * made (layout, transpositions, sizes) for the GEMMKIT_VERBOSE line. */
static gk_status multiply(const gk_gemm_args *g, gk_format atype, gk_layout layout, gk_trans transa,
                          gk_trans transb, int64_t m, int64_t n, int64_t k) {
    static const char who[] = "gk_gemm_ex";
    if (atype == GK_F32) {
        gk_status s = gk_sgemm(GK_COL_MAJOR, g->transa ? GK_TRANS : GK_NO_TRANS,
                               g->transb ? GK_TRANS : GK_NO_TRANS, g->m, g->n, g->k, g->alpha, g->a,
                               g->lda, g->b, g->ldb, g->beta, g->c, g->ldc);
        if (s != GK_SUCCESS) { /* its own allocations: say whose call it was */
            char msg[256];
            snprintf(msg, sizeof msg, "%s", gk_last_error());
            gk_fail(s, "%s: %s", who, msg);
        }
        return s;
    }
    const char *reason;
    const int li = pick_lp(atype, &reason);
    const gk_lp_desc *d = &gk_lp_table[li];
    gk_ukr_desc u;
    gk_frame_lp lp = {.esize = 2, .psize = d->psize, .kgrain = d->kgrain};
    gk_blocking blk;
    cvt_ctx cx;
    const char *name;
    if (d->fn) { /* a kernel on the codes */
        memset(&u, 0, sizeof u);
        u.name = d->name, u.arch = d->arch, u.mr = d->mr, u.nr = d->nr, u.fn = d->fn;
        lp.pack = lp_pack, lp.ctx = d;
        lp.thread_begin = d->thread_begin, lp.thread_end = d->thread_end;
        blk = st.lp_blk[li];
        name = d->name;
    } else { /* convert: the FP32 family's kernel, without its in-place forms (they read floats) */
        const int fi = gk_ukr_now(NULL);
        u = gk_ukr_table[fi];
        u.bcols = NULL, u.acols = NULL, u.abcols = NULL;
        cx = (cvt_ctx){.fmt = atype, .u = &gk_ukr_table[fi], .v = gk_fmt_variant_now()};
        lp.pack = cvt_pack, lp.ctx = &cx;
        blk = st.cvt_blk[fi];
        name = st.cvt_name[fi];
    }
    gk_packed_plan pk;
    const int threads = gk_plan_packed(g, &u, &blk, gk_get_num_threads(), &pk);
    pk.kc = gk_ceil_div64(pk.kc, d->kgrain) * d->kgrain;
    lp.tmp_floats = d->fn ? 0 : (pk.mc > pk.nc ? pk.mc : pk.nc) * pk.kc;
    if (__builtin_expect(st.verbose, 0)) {
        fprintf(stderr, "gemmkit: gk_gemm_ex %s operands: kernel %s (%s)\n", label(atype), name,
                reason);
        gk_plan_log(who, layout, transa, transb, m, n, k,
                    (gk_plan){.path = GK_PATH_PACKED, .threads = threads}, &pk);
    }
    return gk_frame_gemm_lp(g, &u, &lp, &pk, threads);
}

gk_status gk_gemm_ex(gk_layout layout, gk_trans transa, gk_trans transb, int64_t m, int64_t n,
                     int64_t k, float alpha, gk_format atype, const void *a, int64_t lda,
                     gk_format btype, const void *b, int64_t ldb, float beta, gk_format ctype,
                     void *c, int64_t ldc) {
    static const char who[] = "gk_gemm_ex";
    gk_clear_error();
    gk_status s = check_formats(who, (int)atype, (int)btype, (int)ctype);
    if (s != GK_SUCCESS) return s;
    const int osz = atype == GK_F32 ? 4 : 2, csz = ctype == GK_F32 ? 4 : 2;
    gk_gemm_args g;
    s = gk_check_gemm_sized(who, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                            ldc, osz, osz, csz, &g);
    if (s != GK_SUCCESS) return s;
    if (g.m == 0 || g.n == 0) return GK_SUCCESS;
    const int scale_only = gk_gemm_is_scale_only(&g);
    if (!scale_only &&
        ((s = check_aligned(who, "a", a, osz)) || (s = check_aligned(who, "b", b, osz))))
        return s;
    if ((s = check_aligned(who, "c", c, csz))) return s;
    ensure_state();

    if (ctype == GK_F32) {
        if (scale_only) {
            gk_frame_scale(&g);
            return GK_SUCCESS;
        }
        return multiply(&g, atype, layout, transa, transb, m, n, k);
    }
    if (scale_only && beta == 1.0f) return GK_SUCCESS;
    /* BF16/F16 C: a float32 copy, m x n compact */
    int64_t bytes;
    if (__builtin_mul_overflow(g.m, g.n, &bytes) ||
        __builtin_mul_overflow(bytes, (int64_t)sizeof(float), &bytes) || (uint64_t)bytes > SIZE_MAX)
        return gk_fail(GK_ERR_OVERFLOW, "%s: the float32 copy of C (%lld x %lld) overflows", who,
                       (long long)m, (long long)n);
    float *cf = malloc((size_t)bytes);
    if (!cf)
        return gk_fail(GK_ERR_OUT_OF_MEMORY,
                       "%s: cannot allocate the float32 copy of C (%lld bytes)", who,
                       (long long)bytes);
    c_copy cc = {.v = gk_fmt_variant_now(),
                 .fmt = ctype,
                 .c = (uint16_t *)g.c,
                 .ldc = g.ldc,
                 .m = g.m,
                 .n = g.n,
                 .f = cf};
    if (beta != 0.0f) c_copy_run(&cc, 1);
    gk_gemm_args gf = g;
    gf.c = cf, gf.ldc = g.m;
    if (scale_only)
        gk_frame_scale(&gf);
    else
        s = multiply(&gf, atype, layout, transa, transb, m, n, k);
    if (s == GK_SUCCESS) c_copy_run(&cc, 0);
    free(cf);
    return s;
}
