/*
 * cmd_tune.c — `gemmkit tune`: measure the candidate plans of the GPU FP32 path for a set of shapes
 * and store the winners in the tune cache the library reads (bench/gpu/tune.cu, docs/tuning.md);
 * also where the cache is (--where) and how to forget it (--reset). --where and --reset need no
 * GPU; a build without the CUDA backend says why it cannot measure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "core/tune_cache.h"
#ifdef GK_HAVE_CUDA
#include "bench/gpu/tune.h"
#endif

static void usage(FILE *f) {
    fprintf(f,
            "usage: gemmkit tune [--sizes LIST] [--reps N] [--rounds R] [--device D]\n"
            "                    [--cache PATH] [--dry-run]\n"
            "       gemmkit tune --where | --reset [--cache PATH]\n"
            "Times every candidate plan of gk_cuda_sgemm (kernel family, tile configuration,\n"
            "K split) on each shape, as a row-major MxNxK call, checks each against float64,\n"
            "and stores the fastest in the tune cache; CUDA contexts created afterwards run\n"
            "the stored plan for exactly that shape (a column-major call m x n x k looks up\n"
            "n x m x k). Other shapes keep the built-in heuristic.\n"
            "  --sizes L   N or MxNxK, comma-separated (default: docs/tuning.md's list)\n"
            "  --reps N    timed calls per candidate and round (default 10); --rounds R (3)\n"
            "  --cache P   the file (default: $GEMMKIT_TUNE_CACHE, else\n"
            "              $XDG_CACHE_HOME/gemmkit/tune.txt, else ~/.cache/gemmkit/tune.txt)\n"
            "  --dry-run   measure and print only\n"
            "  --where     print the cache's path and whether it exists\n"
            "  --reset     delete the cache file\n");
}

int gk_cmd_tune(int argc, char **argv) {
    const char *cache = NULL, *sizes = NULL;
    int where = 0, reset = 0, dry_run = 0, reps = 0, rounds = 0, device = 0;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--cache") && v) {
            cache = v, i++;
        } else if (!strcmp(argv[i], "--sizes") && v) {
            sizes = v, i++;
        } else if (!strcmp(argv[i], "--reps") && v && atoi(v) > 0) {
            reps = atoi(v), i++;
        } else if (!strcmp(argv[i], "--rounds") && v && atoi(v) > 0) {
            rounds = atoi(v), i++;
        } else if (!strcmp(argv[i], "--device") && v && atoi(v) >= 0) {
            device = atoi(v), i++;
        } else if (!strcmp(argv[i], "--where")) {
            where = 1;
        } else if (!strcmp(argv[i], "--reset")) {
            reset = 1;
        } else if (!strcmp(argv[i], "--dry-run")) {
            dry_run = 1;
        } else {
            fprintf(stderr, "gemmkit tune: unknown or incomplete option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    char path[4096];
    int have_path = 1;
    if (cache) snprintf(path, sizeof path, "%s", cache);
    else have_path = gk_tune_cache_path(path, sizeof path);
    if (where || reset) {
        if (!have_path) {
            printf("the tune cache is off (GEMMKIT_TUNE_CACHE is empty or 'off', or no HOME)\n");
            return 0;
        }
        if (reset) {
            if (unlink(path) != 0 && errno != ENOENT) {
                fprintf(stderr, "gemmkit tune: cannot delete %s: %s\n", path, strerror(errno));
                return 1;
            }
            printf("deleted %s\n", path);
        } else {
            printf("%s (%s)\n", path, access(path, F_OK) == 0 ? "exists" : "not written yet");
        }
        return 0;
    }
#ifndef GK_HAVE_CUDA
    (void)sizes, (void)dry_run, (void)reps, (void)rounds, (void)device;
    fprintf(stderr, "gemmkit tune: this build has no CUDA backend (nvcc was not found at build "
                    "time)\n");
    return 2;
#else
    bench_tune_opts o;
    bench_tune_defaults(&o);
    if (sizes) {
        o.nshapes = 0;
        char buf[4096];
        snprintf(buf, sizeof buf, "%s", sizes);
        for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
            if (!cli_add_shapes(t, o.shapes, &o.nshapes, BENCH_MAX_SHAPES)) {
                fprintf(stderr, "gemmkit tune: bad --sizes item '%s'\n", t);
                return 2;
            }
    }
    if (reps) o.reps = reps;
    if (rounds) o.rounds = rounds;
    o.device = device, o.dry_run = dry_run;
    o.cache = have_path ? path : NULL;
    if (!have_path && !dry_run) {
        fprintf(stderr, "gemmkit tune: the tune cache is off; give --cache PATH or --dry-run\n");
        return 2;
    }
    return bench_tune_run(&o);
#endif
}
