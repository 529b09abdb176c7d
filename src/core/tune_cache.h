/*
 * tune_cache.h — the tune cache: the file `gemmkit tune` writes with the measured best plan per
 * FP32 GPU problem shape, which every CUDA context reads once when it is created
 * (src/cuda/core/tune.cu). Plain C with no CUDA in it, so the file's rules are tested on machines
 * without a GPU. Format, location and reset: docs/tuning.md.
 *
 * The file is text:
 *     gemmkit-tune 1                      format version (anything else: stale, ignored)
 *     build <id>                          the library build's plan id (other: stale, ignored)
 *     device sm=<cc> sms=<n> name=<name>  starts one device's section
 *     shape <m> <n> <k> plan <kind> <config> <split>   (kernel-contract shape: row-major C m x n)
 * plus blank lines and lines starting with '#'. A file that breaks any rule is ignored as a whole:
 * half-trusting a damaged file could run a plan nobody measured. A plan that parses but cannot run
 * the problem on this build (gk_sgemm_plan_valid) is skipped at lookup, not trusted.
 */
#ifndef GK_CORE_TUNE_CACHE_H
#define GK_CORE_TUNE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GK_TUNE_FORMAT 1
/* Larger files are refused unread: a cache holds a few hundred lines. */
#define GK_TUNE_MAX_BYTES (16u << 20)

typedef struct gk_tune_entry {
    int64_t m, n, k;
    int kind, config, split; /* gk_sgemm_plan (src/cuda/gemm/plan.h) */
} gk_tune_entry;

/* One device's entries, sorted by (m, n, k), no duplicates. */
typedef struct gk_tune_table {
    gk_tune_entry *e;
    size_t n;
} gk_tune_table;

/* Which device's section a table is for. */
typedef struct gk_tune_device {
    const char *name; /* as the CUDA runtime names it; no newline */
    int sm, sms;
} gk_tune_device;

/* The cache's path into buf: GEMMKIT_TUNE_CACHE when set (the empty string or "off": no cache),
 * else $XDG_CACHE_HOME/gemmkit/tune.txt, else $HOME/.cache/gemmkit/tune.txt. 1 when there is a
 * path, 0 when caching is off or no path fits. */
int gk_tune_cache_path(char *buf, size_t n);

/* Parse a whole file's text (len bytes, need not be NUL-terminated) for one device of build
 * `build`. 0: *out holds that device's entries (none if the file has no such section); -1: the
 * file is stale or corrupt, why says which line and what, *out is empty. */
int gk_tune_parse(const char *text, size_t len, const char *build, const gk_tune_device *dev,
                  gk_tune_table *out, char *why, size_t whylen);

/* Read the file at path and parse it as gk_tune_parse. 1: no file (not an error, *out empty). */
int gk_tune_load(const char *path, const char *build, const gk_tune_device *dev,
                 gk_tune_table *out, char *why, size_t whylen);

/* The entry for (m, n, k), or NULL. */
const gk_tune_entry *gk_tune_find(const gk_tune_table *t, int64_t m, int64_t n, int64_t k);

void gk_tune_free(gk_tune_table *t);

/* Merge entries for dev into the file at path: a valid file keeps its other devices' sections
 * and this device's other shapes (new entries replace same-shape ones); a missing, stale or
 * corrupt one is replaced (*replaced set to 1, why says what was wrong). The parent directory is
 * created; the new file is written beside the old and renamed over it, so a reader never sees a
 * half-written file. 0 on success, -1 with why on an I/O error. */
int gk_tune_store(const char *path, const char *build, const gk_tune_device *dev,
                  const gk_tune_entry *entries, size_t n, int *replaced, char *why, size_t whylen);

#ifdef __cplusplus
}
#endif

#endif
