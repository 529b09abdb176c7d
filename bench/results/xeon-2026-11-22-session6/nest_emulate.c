/*
 * nest_emulate.c — a diagnostic for the 1-thread large-cube gap: the packed path's loop nest for
 * an n^3 call on one thread (pc over kc, ic over mc, jr over NR, ir over MR) with the library's
 * own micro-kernel and block sizes, on operands that are already in packed layout, so nothing is
 * packed. Alternated with gk_sgemm on the same n, it splits the call's time into what the kernel
 * inside the nest costs and what packing and the frame add.
 *
 *   nest_emulate N ROUNDS [KC MC]    (built against build/lib/libgemmkit.a, see run-nest.sh)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cpu/kernels/ukernel.h"
#include "gemmkit.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    gk_cpu_info info;
    gk_cpu_get_info(&info);
    const gk_ukr_desc *u = &gk_ukr_table[gk_ukr_find(info.arch)];
    const long n = atol(argv[1]);
    const int rounds = atoi(argv[2]) > 63 ? 63 : atoi(argv[2]);
    const long kc = argc > 3 ? atol(argv[3]) : info.kc, mc = argc > 4 ? atol(argv[4]) : info.mc;
    const int mr = u->mr, nr = u->nr;
    const long npb = n / nr, np_a = (n + mr - 1) / mr; /* whole B panels only */
    float *pa = aligned_alloc(64, 4 * (size_t)(np_a * mr * n));
    float *pb = aligned_alloc(64, 4 * (size_t)(npb * nr * n));
    float *c = aligned_alloc(64, 4 * (size_t)(n * n));
    float *a = aligned_alloc(64, 4 * (size_t)(n * n)), *b = aligned_alloc(64, 4 * (size_t)(n * n));
    if (!pa || !pb || !c || !a || !b) return 1;
    for (long i = 0; i < np_a * mr * n; i++)
        pa[i] = (float)(rand() % 7 - 3) * 0.1f;
    for (long i = 0; i < npb * nr * n; i++)
        pb[i] = (float)(rand() % 7 - 3) * 0.1f;
    for (long i = 0; i < n * n; i++)
        c[i] = 0.0f, a[i] = pa[i], b[i] = pb[i];
    gk_set_num_threads(1);
    double te[64], tg[64];
    for (int r = 0; r < rounds; r++) {
        double t = now();
        for (long pc = 0; pc < n; pc += kc) {
            const long kb = n - pc < kc ? n - pc : kc;
            const float *pbk = pb + pc * npb * nr; /* this pc's B block: npb panels of nr x kb */
            for (long ic = 0; ic < n; ic += mc) {
                const long mb = n - ic < mc ? n - ic : mc, npa = (mb + mr - 1) / mr;
                const float *pak = pa + pc * np_a * mr + ic * kb; /* a distinct A block */
                for (long jr = 0; jr < npb; jr++)
                    for (long ir = 0; ir < npa; ir++)
                        u->fn(kb, pak + ir * mr * kb, pbk + jr * nr * kb,
                              c + ic + ir * mr + jr * nr * n, 1, n, 1.0f, pc ? 1.0f : 0.0f,
                              (int)(mb - ir * mr < mr ? mb - ir * mr : mr), nr);
            }
        }
        te[r] = now() - t;
        t = now();
        gk_sgemm(GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
        tg[r] = now() - t;
    }
    qsort(te, (size_t)rounds, sizeof *te, cmp);
    qsort(tg, (size_t)rounds, sizeof *tg, cmp);
    const double fe = 2.0 * (double)n * (double)(npb * nr) * (double)n,
                 fg = 2.0 * (double)n * n * n;
    printf("%s %dx%d kc=%ld mc=%ld n=%ld: nest without packing median %.1f GFLOPS (best %.1f); "
           "gk_sgemm median %.1f (best %.1f)\n",
           info.arch, mr, nr, kc, mc, n, fe / te[rounds / 2] * 1e-9, fe / te[0] * 1e-9,
           fg / tg[rounds / 2] * 1e-9, fg / tg[0] * 1e-9);
    return 0;
}
