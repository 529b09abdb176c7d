/*
 * bench_cpu.c — the CPU benchmark (bench.h: bench_cpu_run, bench_cpu_worker): times gemmkit
 * against OpenBLAS and BLIS (each as shipped and at its best) on square and skinny shapes at 1
 * thread and at all threads, reports GFLOPS, % of the measured FMA peak and gemmkit/peer ratios,
 * and writes CSV, JSON and a plot.
 *
 * Every (shape, implementation) pair runs in a fresh worker process (this binary re-executed with
 * --worker): OpenBLAS fixes its kernel set from OPENBLAS_CORETYPE at load time, libraries keep
 * spinning thread pools and caches warm between calls, and a crash in a peer must not end the
 * run. A worker checks its first result against float64 (sampled) before anything is timed (a
 * result that fails is reported, never timed) and reports how far it is from gemmkit's result.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench.h"
#include "gemmkit.h"
#include "harness/harness.h"
#include "peak.h"
#include "peers.h"

enum { MAX_REPS = 10000 };

typedef struct result {
    int measured; /* a worker reported this cell */
    int reps;     /* timed calls; 0 when the check failed and nothing was timed */
    double median_s, best_s;
    double err_ratio; /* worst sampled |error| / bound against float64; <= 1 passes */
    int64_t failed;   /* sampled elements outside the bound */
    double rel_diff;  /* max|C - C_gemmkit| / max|C_gemmkit|; < 0 for gemmkit itself */
    int rounds;       /* rounds that reported this cell; median_s is the median of theirs */
    double round_median_s[BENCH_MAX_ROUNDS];
} result;

/* The caller's options with bench.h's defaults in the fields left zero / negative. */
static void resolve(const bench_cpu_opts *in, bench_cpu_opts *o) {
    *o = *in;
    int any_impl = 0;
    for (int i = 0; i < BENCH_NUM_IMPLS; i++)
        any_impl |= o->use_impl[i];
    if (!any_impl)
        for (int i = 0; i < BENCH_NUM_IMPLS; i++)
            o->use_impl[i] = 1;
    o->use_impl[bench_impl_baseline()] = o->baseline != NULL;
    if (o->nshapes == 0) {
        for (int64_t n = 64; n <= (o->quick ? 2048 : 4096); n *= 2)
            o->shapes[o->nshapes++] = (bench_shape){n, n, n};
        static const bench_shape skinny[] = {
            {4096, 4096, 64}, {64, 4096, 4096}, {4096, 64, 4096}, {1000, 1000, 1000}};
        for (size_t i = 0; i < sizeof skinny / sizeof skinny[0]; i++)
            o->shapes[o->nshapes++] = skinny[i];
    }
    if (o->nthreads == 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        o->threads[o->nthreads++] = 1;
        if (cores > 1) o->threads[o->nthreads++] = (int)(cores < 1024 ? cores : 1024);
    }
    if (o->min_time < 0) o->min_time = o->quick ? 0.1 : 0.3;
    if (o->rounds < 1) o->rounds = 1;
}

/* ---- worker: one implementation, one shape, every thread count ------------------------------ */

static void fill_nan(float *c, int64_t len) {
    for (int64_t i = 0; i < len; i++)
        c[i] = NAN;
}

/* Normwise difference between two results, robust to entries near zero. */
static double rel_diff(const float *x, const float *ref, int64_t len) {
    double num = 0, den = 0;
    for (int64_t i = 0; i < len; i++) {
        double d = fabs((double)x[i] - (double)ref[i]);
        if (isnan(d)) return NAN;
        if (d > num) num = d;
        if (fabs((double)ref[i]) > den) den = fabs((double)ref[i]);
    }
    return den > 0 ? num / den : num;
}

int bench_cpu_worker(const bench_cpu_opts *opts, const char *name) {
    bench_cpu_opts resolved, *o = &resolved;
    resolve(opts, o);
    bench_impl impl;
    if (!bench_impl_load(bench_impl_find(name), &impl)) {
        printf("missing\t%s\n", impl.missing);
        return 0;
    }
    printf("kernel\t%s\n", impl.kernel);
    fflush(stdout);
    const bench_shape s = o->shapes[0];
    const int64_t la = s.m * s.k, lb = s.k * s.n, lc = s.m * s.n;
    float *a = malloc(sizeof(float) * (size_t)la), *b = malloc(sizeof(float) * (size_t)lb);
    float *c = malloc(sizeof(float) * (size_t)lc), *g = NULL;
    double *times = malloc(sizeof(double) * MAX_REPS);
    int is_gemmkit = !strcmp(name, "gemmkit");
    if (!is_gemmkit) g = malloc(sizeof(float) * (size_t)lc);
    if (!a || !b || !c || !times || (!is_gemmkit && !g)) {
        printf("missing\tout of memory for %lldx%lldx%lld\n", (long long)s.m, (long long)s.n,
               (long long)s.k);
        return 1;
    }
    /* The same data in every worker: the seed depends on the shape only. */
    gkh_rng rng = {(uint64_t)(s.m * 1000003 + s.n * 1009 + s.k) | 1};
    gkh_fill(a, la, &rng);
    gkh_fill(b, lb, &rng);
    if (g) {
        int tmax = 1;
        for (int i = 0; i < o->nthreads; i++)
            tmax = o->threads[i] > tmax ? o->threads[i] : tmax;
        gk_set_num_threads(tmax);
        gk_sgemm(GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, s.m, s.n, s.k, 1.0f, a, s.m, b, s.k, 0.0f,
                 g, s.m);
    }
    for (int ti = 0; ti < o->nthreads; ti++) {
        bench_impl_set_threads(&impl, o->threads[ti]);
        /* The checked call doubles as the first warm-up call; C starts as NaN so a library that
         * skips part of C, or reads C when beta = 0, fails the check. */
        fill_nan(c, lc);
        double w0 = gkh_now();
        bench_impl_sgemm(&impl, s.m, s.n, s.k, a, s.m, b, s.k, c, s.m);
        gkh_check_result r;
        gkh_check_sampled(GK_COL_MAJOR, GK_NO_TRANS, GK_NO_TRANS, s.m, s.n, s.k, 1.0f, a, s.m, b,
                          s.k, 0.0f, NULL, c, s.m, 0.0, gkh_check_samples(s.m, s.n, s.k), rng.s,
                          &r);
        double diff = g ? rel_diff(c, g, lc) : -1.0;
        int reps = 0;
        if (r.failed == 0) {
            while (gkh_now() - w0 < 0.1)
                bench_impl_sgemm(&impl, s.m, s.n, s.k, a, s.m, b, s.k, c, s.m);
            double spent = 0;
            while (reps < MAX_REPS && (reps < 5 || spent < o->min_time)) {
                fill_nan(c, lc);
                double t0 = gkh_now();
                bench_impl_sgemm(&impl, s.m, s.n, s.k, a, s.m, b, s.k, c, s.m);
                times[reps] = gkh_now() - t0;
                spent += times[reps++];
            }
        }
        double med = reps ? gkh_median(times, reps) : 0;
        double best = reps ? times[0] : 0; /* median() sorted the times */
        printf("result\t%d\t%.9g\t%.9g\t%d\t%.6g\t%lld\t%.6g\n", o->threads[ti], med, best, reps,
               r.max_ratio, (long long)r.failed, diff);
        fflush(stdout);
    }
    free(a), free(b), free(c), free(g), free(times);
    return 0;
}

/* ---- parent: spawn workers, collect, report ------------------------------------------------- */

extern char **environ;

/* Start `argv` with stdout on a pipe; env_name is set to env_value, or removed when env_value is
 * NULL. The environment is built before fork: the parent has OpenMP threads, and a forked child
 * of a threaded process should do no more than exec. */
static FILE *spawn(char *const argv[], const char *env_name, const char *env_value, pid_t *pid) {
    size_t n = 0, len = env_name ? strlen(env_name) : 0;
    while (environ[n])
        n++;
    char **envp = malloc(sizeof(char *) * (n + 2)), *set = NULL;
    if (!envp) return NULL;
    size_t j = 0;
    for (size_t i = 0; i < n; i++)
        if (!env_name || strncmp(environ[i], env_name, len) || environ[i][len] != '=')
            envp[j++] = environ[i];
    if (env_name && env_value && (set = malloc(len + strlen(env_value) + 2)))
        sprintf(set, "%s=%s", env_name, env_value), envp[j++] = set;
    envp[j] = NULL;
    int fd[2];
    FILE *f = NULL;
    fflush(NULL);
    if (pipe(fd) == 0) {
        *pid = fork();
        if (*pid == 0) {
            dup2(fd[1], STDOUT_FILENO);
            close(fd[0]), close(fd[1]);
            execve(argv[0], argv, envp);
            _exit(127);
        }
        close(fd[1]);
        if (*pid > 0)
            f = fdopen(fd[0], "r");
        else
            close(fd[0]);
    }
    free(set), free(envp);
    return f;
}

static int reap(FILE *f, pid_t pid) {
    int status = 0;
    if (f) fclose(f);
    if (waitpid(pid, &status, 0) < 0) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

typedef struct run_state {
    bench_cpu_opts *o;
    char self[PATH_MAX];
    double peak[BENCH_MAX_THREADS];
    const char *peak_isa;
    char kernel[BENCH_NUM_IMPLS][96];
    char missing[BENCH_NUM_IMPLS][192];
    double load_start, load_end; /* 1-minute load average around the run; -1 if unknown */
    result res[BENCH_MAX_SHAPES][BENCH_MAX_THREADS][BENCH_NUM_IMPLS];
} run_state;

/* Other busy processes distort multi-threaded timings badly on small machines, so the load is
 * recorded with the results rather than assumed away. */
static double load_average(void) {
    double v = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &v) != 1) v = -1;
        fclose(f);
    }
    return v;
}

static int thread_index(const bench_cpu_opts *o, int t) {
    for (int i = 0; i < o->nthreads; i++)
        if (o->threads[i] == t) return i;
    return -1;
}

/* Fold one round's report of a cell into it: the round's median is kept for the final median of
 * medians; the best time, the worst check and the total calls span all rounds. */
static void add_round(result *cell, const result *r) {
    if (!cell->measured) {
        *cell = *r;
        cell->rounds = 0;
    } else {
        cell->reps += r->reps;
        if (r->best_s < cell->best_s) cell->best_s = r->best_s;
        if (r->err_ratio > cell->err_ratio || isnan(r->err_ratio)) cell->err_ratio = r->err_ratio;
        if (r->failed > cell->failed) cell->failed = r->failed;
        if (r->rel_diff > cell->rel_diff) cell->rel_diff = r->rel_diff;
    }
    if (r->reps && cell->rounds < BENCH_MAX_ROUNDS)
        cell->round_median_s[cell->rounds++] = r->median_s;
    double tmp[BENCH_MAX_ROUNDS];
    memcpy(tmp, cell->round_median_s, sizeof(double) * (size_t)cell->rounds);
    cell->median_s = cell->rounds ? gkh_median(tmp, cell->rounds) : 0;
}

static void measure(run_state *st, int si, int impl) {
    bench_cpu_opts *o = st->o;
    char shape_arg[96], threads_arg[128] = "", time_arg[32];
    snprintf(shape_arg, sizeof shape_arg, "%lldx%lldx%lld", (long long)o->shapes[si].m,
             (long long)o->shapes[si].n, (long long)o->shapes[si].k);
    for (int i = 0; i < o->nthreads; i++)
        snprintf(threads_arg + strlen(threads_arg), sizeof threads_arg - strlen(threads_arg),
                 "%s%d", i ? "," : "", o->threads[i]);
    snprintf(time_arg, sizeof time_arg, "%g", o->min_time);
    /* The baseline column is the other binary's own gemmkit worker. */
    const int base = impl == bench_impl_baseline();
    char *argv[] = {base ? (char *)o->baseline : st->self,
                    "bench",
                    "--worker",
                    (char *)bench_impl_names[base ? 0 : impl],
                    "--sizes",
                    shape_arg,
                    "--threads",
                    threads_arg,
                    "--min-time",
                    time_arg,
                    NULL};
    /* "As shipped" means OpenBLAS's own cpuid choice even if the user's shell sets the type. */
    const char *env =
        impl == bench_impl_find("openblas-best") ? bench_openblas_best_coretype() : NULL;
    const int openblas = !strncmp(bench_impl_names[impl], "openblas", 8);
    pid_t pid;
    FILE *f = spawn(argv, openblas ? "OPENBLAS_CORETYPE" : NULL, env, &pid);
    if (!f) {
        snprintf(st->missing[impl], sizeof st->missing[impl], "could not start a worker");
        return;
    }
    char line[512];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *tab = strchr(line, '\t');
        if (!tab) continue;
        *tab++ = '\0';
        if (!strcmp(line, "kernel")) {
            snprintf(st->kernel[impl], sizeof st->kernel[impl], "%s%s%s", tab, base ? " in " : "",
                     base ? o->baseline : "");
        } else if (!strcmp(line, "missing")) {
            snprintf(st->missing[impl], sizeof st->missing[impl], "%s", tab);
        } else if (!strcmp(line, "result")) {
            int t, reps;
            long long failed;
            result r = {.measured = 1};
            if (sscanf(tab, "%d\t%lf\t%lf\t%d\t%lf\t%lld\t%lf", &t, &r.median_s, &r.best_s, &reps,
                       &r.err_ratio, &failed, &r.rel_diff) != 7)
                continue;
            r.reps = reps, r.failed = failed;
            int ti = thread_index(o, t);
            if (ti >= 0) add_round(&st->res[si][ti][impl], &r);
        }
    }
    int rc = reap(f, pid);
    if (rc != 0 && !st->missing[impl][0])
        snprintf(st->missing[impl], sizeof st->missing[impl], "worker for %s exited with status %d",
                 shape_arg, rc);
}

static double gflops(const bench_shape *s, const result *r) {
    return r->measured && r->reps && r->median_s > 0
               ? 2.0 * (double)s->m * (double)s->n * (double)s->k / r->median_s * 1e-9
               : 0.0;
}

static void shape_name(const bench_shape *s, char *out, size_t len) {
    snprintf(out, len, "%lldx%lldx%lld", (long long)s->m, (long long)s->n, (long long)s->k);
}

/* "AMD EPYC 7B13 64-Core Processor" -> "amd-epyc-7b13-64-core-processor"; hostname if unknown. */
static void machine_slug(char *out, size_t len) {
    gk_cpu_info ci;
    char src[128] = "";
    if (gk_cpu_get_info(&ci) == GK_SUCCESS && ci.brand[0])
        snprintf(src, sizeof src, "%s", ci.brand);
    else
        gethostname(src, sizeof src - 1);
    size_t j = 0;
    for (size_t i = 0; src[i] && j + 1 < len; i++) {
        char ch = src[i];
        if (ch >= 'A' && ch <= 'Z') ch = (char)(ch - 'A' + 'a');
        int alnum = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
        if (alnum)
            out[j++] = ch;
        else if (j > 0 && out[j - 1] != '-')
            out[j++] = '-';
    }
    while (j > 0 && out[j - 1] == '-')
        j--;
    out[j] = '\0';
    if (!j) snprintf(out, len, "unknown");
}

static int any_check_failed(const run_state *st) {
    for (int s = 0; s < st->o->nshapes; s++)
        for (int t = 0; t < st->o->nthreads; t++)
            for (int i = 0; i < BENCH_NUM_IMPLS; i++)
                if (st->res[s][t][i].measured && st->res[s][t][i].failed) return 1;
    return 0;
}

static void write_csv(const run_state *st, const char *path) {
    const bench_cpu_opts *o = st->o;
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "gemmkit bench: cannot write %s: %s\n", path, strerror(errno));
        return;
    }
    fprintf(f, "shape,m,n,k,threads,impl,kernel,gflops,pct_peak,median_ms,best_ms,reps,"
               "err_ratio,check,rel_diff_vs_gemmkit,gemmkit_over_impl,rounds\n");
    for (int s = 0; s < o->nshapes; s++)
        for (int t = 0; t < o->nthreads; t++)
            for (int i = 0; i < BENCH_NUM_IMPLS; i++) {
                const result *r = &st->res[s][t][i];
                if (!r->measured) continue;
                char sn[64];
                shape_name(&o->shapes[s], sn, sizeof sn);
                double gf = gflops(&o->shapes[s], r), gk = gflops(&o->shapes[s], &st->res[s][t][0]);
                fprintf(f, "%s,%lld,%lld,%lld,%d,%s,\"%s\",%.3f,%.2f,%.5f,%.5f,%d,%.4g,%s,", sn,
                        (long long)o->shapes[s].m, (long long)o->shapes[s].n,
                        (long long)o->shapes[s].k, o->threads[t], bench_impl_names[i],
                        st->kernel[i], gf, st->peak[t] > 0 ? 100.0 * gf / st->peak[t] : 0.0,
                        r->median_s * 1e3, r->best_s * 1e3, r->reps, r->err_ratio,
                        r->failed ? "FAIL" : "pass");
                if (r->rel_diff >= 0) fprintf(f, "%.3g", r->rel_diff);
                fprintf(f, ",");
                if (gf > 0 && gk > 0) fprintf(f, "%.3f", gk / gf);
                fprintf(f, ",%d\n", r->rounds);
            }
    fclose(f);
}

/* A JSON string literal: library messages (dlerror text) may contain quotes or backslashes. */
static void json_str(FILE *f, const char *s) {
    char q[2 * 192 + 3]; /* room for the longest field, st->missing */
    fputs(gkh_json_quote(q, sizeof q, s), f);
}

static void write_json(const run_state *st, const char *path, const char *stamp) {
    const bench_cpu_opts *o = st->o;
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "gemmkit bench: cannot write %s: %s\n", path, strerror(errno));
        return;
    }
    gk_cpu_info ci;
    gk_cpu_get_info(&ci);
    char host[128] = "";
    gethostname(host, sizeof host - 1);
    fprintf(f, "{\n  \"date\": \"%s\",\n  \"host\": ", stamp);
    json_str(f, host);
    fprintf(f, ",\n  \"gemmkit\": \"%s\",\n  \"cpu\": {\"vendor\": ", gk_version());
    json_str(f, ci.vendor);
    fprintf(f, ", \"brand\": ");
    json_str(f, ci.brand);
    fprintf(f, ", \"avx2\": %d, \"fma\": %d, \"avx512f\": %d, \"online_cores\": %ld},\n",
            ci.has_avx2, ci.has_fma, ci.has_avx512f, sysconf(_SC_NPROCESSORS_ONLN));
    fprintf(f,
            "  \"method\": {\"statistic\": \"median of the per-round medians\", \"rounds\": %d, "
            "\"min_reps\": 5, \"min_time_s\": %g, \"warmup_s\": 0.1, \"alpha\": 1, \"beta\": 0, "
            "\"layout\": \"col-major NN\"},\n",
            o->rounds, o->min_time);
    fprintf(f, "  \"load_average_1min\": {\"start\": %.2f, \"end\": %.2f},\n", st->load_start,
            st->load_end);
    fprintf(f, "  \"peak\": [");
    for (int t = 0; t < o->nthreads; t++)
        fprintf(f, "%s{\"threads\": %d, \"isa\": \"%s\", \"gflops\": %.2f}", t ? ", " : "",
                o->threads[t], st->peak_isa, st->peak[t]);
    fprintf(f, "],\n  \"impls\": [\n");
    int first = 1;
    for (int i = 0; i < BENCH_NUM_IMPLS; i++) {
        if (!o->use_impl[i]) continue;
        fprintf(f, "%s    {\"name\": \"%s\", \"kernel\": ", first ? "" : ",\n",
                bench_impl_names[i]);
        json_str(f, st->kernel[i]);
        fprintf(f, ", \"missing\": ");
        json_str(f, st->missing[i]);
        fprintf(f, "}");
        first = 0;
    }
    fprintf(f, "\n  ],\n  \"results\": [\n");
    first = 1;
    for (int s = 0; s < o->nshapes; s++)
        for (int t = 0; t < o->nthreads; t++)
            for (int i = 0; i < BENCH_NUM_IMPLS; i++) {
                const result *r = &st->res[s][t][i];
                if (!r->measured) continue;
                double gf = gflops(&o->shapes[s], r);
                char diff[32] = "null"; /* JSON has no NaN; gemmkit has no difference to itself */
                if (r->rel_diff >= 0) snprintf(diff, sizeof diff, "%.3g", r->rel_diff);
                fprintf(f,
                        "%s    {\"m\": %lld, \"n\": %lld, \"k\": %lld, \"threads\": %d, "
                        "\"impl\": \"%s\", \"gflops\": %.3f, \"pct_peak\": %.2f, "
                        "\"median_ms\": %.5f, \"best_ms\": %.5f, \"reps\": %d, "
                        "\"err_ratio\": %.4g, \"check\": \"%s\", \"rel_diff_vs_gemmkit\": %s, "
                        "\"rounds\": %d}",
                        first ? "" : ",\n", (long long)o->shapes[s].m, (long long)o->shapes[s].n,
                        (long long)o->shapes[s].k, o->threads[t], bench_impl_names[i], gf,
                        st->peak[t] > 0 ? 100.0 * gf / st->peak[t] : 0.0, r->median_s * 1e3,
                        r->best_s * 1e3, r->reps, isfinite(r->err_ratio) ? r->err_ratio : 1e300,
                        r->failed ? "FAIL" : "pass", diff, r->rounds);
                first = 0;
            }
    fprintf(f, "\n  ]\n}\n");
    fclose(f);
}

/* bench/plot.py next to the working directory (make bench runs from the repository root) or
 * relative to the binary (<repo>/<build>/bin/gemmkit). */
static void plot(const run_state *st, const char *csv, const char *png) {
    char script[PATH_MAX + 32];
    snprintf(script, sizeof script, "bench/plot.py");
    if (access(script, R_OK)) {
        snprintf(script, sizeof script, "%s", st->self);
        char *slash = strrchr(script, '/');
        if (slash) *slash = '\0';
        strncat(script, "/../../bench/plot.py", sizeof script - strlen(script) - 1);
    }
    if (access(script, R_OK)) {
        fprintf(stderr, "gemmkit bench: bench/plot.py not found; no plot\n");
        return;
    }
    const char *py = getenv("GK_PYTHON");
    char *argv[] = {(char *)(py && *py ? py : "/usr/bin/python3"), script, (char *)csv, (char *)png,
                    NULL};
    pid_t pid;
    FILE *f = spawn(argv, NULL, NULL, &pid);
    char line[512];
    while (f && fgets(line, sizeof line, f))
        fputs(line, stderr);
    if (f && reap(f, pid) != 0) fprintf(stderr, "gemmkit bench: plotting failed; no PNG\n");
}

/* 1 when peer columns i and j ran the same kernel (their reports agree up to the " (why)" part,
 * e.g. BLIS's "zen3 (cpuid)" and "zen3 (context lookup)"); gemmkit and the baseline are A/B
 * columns by design and never count. */
static int same_kernel(const run_state *st, int i, int j) {
    const int base = bench_impl_baseline();
    if (i == 0 || j == 0 || i == base || j == base || !st->kernel[i][0]) return 0;
    const char *pi = strstr(st->kernel[i], " ("), *pj = strstr(st->kernel[j], " (");
    const size_t li = pi ? (size_t)(pi - st->kernel[i]) : strlen(st->kernel[i]);
    const size_t lj = pj ? (size_t)(pj - st->kernel[j]) : strlen(st->kernel[j]);
    return li == lj && !strncmp(st->kernel[i], st->kernel[j], li);
}

/* Two columns that run the same kernel time the same code, so the spread of their ratio over a
 * table's shapes is what this run's noise alone does to a ratio: a gemmkit/peer ratio inside it
 * says nothing either way. Printed under each table where such a pair exists. */
static void print_noise_gauge(const run_state *st, int t) {
    const bench_cpu_opts *o = st->o;
    for (int i = 1; i < BENCH_NUM_IMPLS; i++)
        for (int j = i + 1; j < BENCH_NUM_IMPLS; j++) {
            if (!o->use_impl[i] || !o->use_impl[j] || !same_kernel(st, i, j)) continue;
            double r[BENCH_MAX_SHAPES];
            int n = 0;
            for (int s = 0; s < o->nshapes; s++) {
                const result *a = &st->res[s][t][i], *b = &st->res[s][t][j];
                const double ga = a->failed ? 0 : gflops(&o->shapes[s], a);
                const double gb = b->failed ? 0 : gflops(&o->shapes[s], b);
                if (ga > 0 && gb > 0) r[n++] = ga / gb;
            }
            if (n == 0) continue;
            const double med = gkh_median(r, n); /* sorts r: the range is its ends */
            printf("noise gauge: %s and %s ran the same kernel; %s/%s over these %d shapes: "
                   "%.2f-%.2f (median %.2f)\n",
                   bench_impl_names[i], bench_impl_names[j], bench_impl_names[i],
                   bench_impl_names[j], n, r[0], r[n - 1], med);
        }
}

static void print_table(const run_state *st) {
    const bench_cpu_opts *o = st->o;
    printf("\nCPU SGEMM, column-major NN, alpha=1 beta=0: GFLOPS (median of >= 5 timed calls");
    if (o->rounds > 1) printf("; median over %d interleaved rounds", o->rounds);
    printf(")\n");
    for (int i = 0; i < BENCH_NUM_IMPLS; i++) {
        if (!o->use_impl[i]) continue;
        printf("  %-14s %s%s%s\n", bench_impl_names[i], st->kernel[i],
               st->kernel[i][0] && st->missing[i][0] ? "; " : "", st->missing[i]);
    }
    printf("  load average (1 min) %.2f at start, %.2f at end, on %ld online cores\n",
           st->load_start, st->load_end, sysconf(_SC_NPROCESSORS_ONLN));
    if (st->load_start >= 0.5 * (double)sysconf(_SC_NPROCESSORS_ONLN))
        printf("  WARNING: other processes were busy during this run (load above); timings, "
               "above all multi-threaded ones, understate every column\n");
    printf("  gk/x = gemmkit GFLOPS / that column's GFLOPS (> 1: gemmkit faster); FAIL = result "
           "outside the float64 bound, not timed\n");
    for (int t = 0; t < o->nthreads; t++) {
        printf("\nthreads=%d, measured %s FMA peak %.1f GFLOPS\n%-16s %8s %6s", o->threads[t],
               st->peak_isa, st->peak[t], "shape", "gemmkit", "%peak");
        for (int i = 1; i < BENCH_NUM_IMPLS; i++)
            if (o->use_impl[i]) printf(" | %13s %5s", bench_impl_names[i], "gk/x");
        printf("\n");
        for (int s = 0; s < o->nshapes; s++) {
            char sn[64], cell[32];
            shape_name(&o->shapes[s], sn, sizeof sn);
            const result *g = &st->res[s][t][0];
            double gk = gflops(&o->shapes[s], g);
            printf("%-16s", sn);
            if (!o->use_impl[0] || !g->measured)
                printf(" %8s %6s", "-", "-");
            else if (g->failed)
                printf(" %8s %6s", "FAIL", "-");
            else
                printf(" %8.1f %5.1f%%", gk, st->peak[t] > 0 ? 100 * gk / st->peak[t] : 0.0);
            for (int i = 1; i < BENCH_NUM_IMPLS; i++) {
                if (!o->use_impl[i]) continue;
                const result *r = &st->res[s][t][i];
                double gf = gflops(&o->shapes[s], r);
                if (!r->measured)
                    printf(" | %13s %5s", "-", "-");
                else if (r->failed)
                    printf(" | %13s %5s", "FAIL", "-");
                else {
                    double x = gk > 0 && gf > 0 ? gk / gf : 0.0;
                    snprintf(cell, sizeof cell, x < 10 ? "%.2f" : x < 100 ? "%.1f" : "%.0f", x);
                    printf(" | %13.1f %5s", gf, gk > 0 ? cell : "-");
                }
            }
            printf("\n");
        }
        print_noise_gauge(st, t);
    }
}

int bench_cpu_run(const bench_cpu_opts *opts) {
    run_state *st = calloc(1, sizeof *st);
    if (!st) return 1;
    bench_cpu_opts resolved, *o = &resolved;
    resolve(opts, o);
    st->o = o;
    ssize_t n = readlink("/proc/self/exe", st->self, sizeof st->self - 1);
    if (n <= 0) {
        fprintf(stderr, "gemmkit bench: cannot locate this executable (/proc/self/exe)\n");
        free(st);
        return 1;
    }
    st->self[n] = '\0';
    if (gkh_mkdirs(o->out_dir)) {
        fprintf(stderr, "gemmkit bench: cannot create %s: %s\n", o->out_dir, strerror(errno));
        free(st);
        return 1;
    }
    st->load_start = load_average();
    for (int t = 0; t < o->nthreads; t++) {
        st->peak[t] = gk_peak_gflops(o->threads[t], &st->peak_isa);
        fprintf(stderr, "bench: FMA peak (%s) at %d thread%s: %.1f GFLOPS\n", st->peak_isa,
                o->threads[t], o->threads[t] > 1 ? "s" : "", st->peak[t]);
    }
    for (int s = 0; s < o->nshapes; s++) {
        double t0 = gkh_now();
        /* Rounds interleave the implementations, in reversed order every other round, so a slow
         * phase of a shared machine falls on all of them rather than on one column. */
        for (int round = 0; round < o->rounds; round++)
            for (int j = 0; j < BENCH_NUM_IMPLS; j++) {
                const int i = round % 2 ? BENCH_NUM_IMPLS - 1 - j : j;
                if (o->use_impl[i] && !(st->missing[i][0] && !st->kernel[i][0])) measure(st, s, i);
            }
        char sn[64];
        shape_name(&o->shapes[s], sn, sizeof sn);
        fprintf(stderr, "bench: [%d/%d] %s done in %.1f s; GFLOPS at %d thread(s):", s + 1,
                o->nshapes, sn, gkh_now() - t0, o->threads[o->nthreads - 1]);
        for (int i = 0; i < BENCH_NUM_IMPLS; i++) {
            const result *r = &st->res[s][o->nthreads - 1][i];
            if (!o->use_impl[i]) continue;
            if (!r->measured)
                fprintf(stderr, " %s -", bench_impl_names[i]);
            else if (r->failed)
                fprintf(stderr, " %s FAIL", bench_impl_names[i]);
            else
                fprintf(stderr, " %s %.1f", bench_impl_names[i], gflops(&o->shapes[s], r));
        }
        fprintf(stderr, "\n");
    }

    st->load_end = load_average();
    /* Peak again at the end, keeping the higher: a transient disturbance during one measurement
     * must not inflate every "% of peak" figure. */
    for (int t = 0; t < o->nthreads; t++) {
        double again = gk_peak_gflops(o->threads[t], &st->peak_isa);
        if (again > st->peak[t]) st->peak[t] = again;
    }
    char slug[96], stamp[32], stamp_iso[32], base[PATH_MAX], csv[PATH_MAX + 8], json[PATH_MAX + 8],
        png[PATH_MAX + 8];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    strftime(stamp_iso, sizeof stamp_iso, "%Y-%m-%dT%H:%M:%SZ", &tm);
    machine_slug(slug, sizeof slug);
    snprintf(base, sizeof base, "%s/cpu-%s-%s", o->out_dir, slug, stamp);
    snprintf(csv, sizeof csv, "%s.csv", base);
    snprintf(json, sizeof json, "%s.json", base);
    snprintf(png, sizeof png, "%s.png", base);
    write_csv(st, csv);
    write_json(st, json, stamp_iso);
    if (o->plot) plot(st, csv, png);
    printf("\nresults: %s.{csv,json%s}\n", base, o->plot ? ",png" : "");
    print_table(st);
    int rc = any_check_failed(st);
    if (rc) printf("\nsome results failed the float64 check (FAIL above)\n");
    free(st);
    return rc;
}
