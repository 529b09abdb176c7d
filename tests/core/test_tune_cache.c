/*
 * test_tune_cache.c — the tune cache's file rules (src/core/tune_cache.h, docs/tuning.md), which
 * need no GPU: a valid file gives the right device's entries and lookups; every kind of stale or
 * corrupt file is refused as a whole with a reason naming the line; random damage never crashes
 * the parser; storing merges into a valid file, replaces a bad one, creates the directory and
 * leaves no temporary file; the path follows GEMMKIT_TUNE_CACHE, XDG_CACHE_HOME and HOME.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "core/tune_cache.h"

static const char BUILD[] = "0123abcd";
static const gk_tune_device H100 = {"NVIDIA H100 80GB HBM3", 90, 132};
static const gk_tune_device OTHER = {"NVIDIA A100-SXM4-40GB", 80, 108};

static const char VALID[] = "gemmkit-tune 1\n"
                            "# comment\n"
                            "build 0123abcd\n"
                            "\n"
                            "device sm=80 sms=108 name=NVIDIA A100-SXM4-40GB\n"
                            "shape 64 8192 8192 plan 1 3 4\n"
                            "device sm=90 sms=132 name=NVIDIA H100 80GB HBM3\n"
                            "shape 8192 1 8192 plan 2 0 0\n"
                            "shape 64 8192 8192 plan 1 2 8\n"
                            "shape 512 512 512 plan 0 0 0\n"
                            "shape 64 8192 8192 plan 1 3 6\n"; /* replaces the earlier line */

static char dir[256];

static int parse(const char *text, const gk_tune_device *d, gk_tune_table *t, char *why) {
    return gk_tune_parse(text, strlen(text), BUILD, d, t, why, 256);
}

static void valid_file(void) {
    gk_tune_table t;
    char why[256] = "";
    T_REQUIRE(parse(VALID, &H100, &t, why) == 0, "valid file refused: %s", why);
    T_CHECK(t.n == 3, "H100 section: %zu entries, want 3 (duplicate shape kept?)", t.n);
    const gk_tune_entry *e = gk_tune_find(&t, 64, 8192, 8192);
    T_CHECK(e && e->kind == 1 && e->config == 3 && e->split == 6, "later line did not win");
    e = gk_tune_find(&t, 8192, 1, 8192);
    T_CHECK(e && e->kind == 2, "8192x1x8192 not found");
    T_CHECK(gk_tune_find(&t, 512, 512, 512) != NULL, "512^3 not found");
    T_CHECK(gk_tune_find(&t, 512, 512, 511) == NULL, "found a shape that is not there");
    T_CHECK(gk_tune_find(&t, 1, 1, 1) == NULL, "found 1^3");
    gk_tune_free(&t);
    T_REQUIRE(parse(VALID, &OTHER, &t, why) == 0, "%s", why);
    T_CHECK(t.n == 1 && t.e[0].config == 3, "A100 section wrong");
    gk_tune_free(&t);
    const gk_tune_device same_name_other_sms = {H100.name, 90, 114};
    T_REQUIRE(parse(VALID, &same_name_other_sms, &t, why) == 0, "%s", why);
    T_CHECK(t.n == 0, "a device with other SM count got the H100's entries");
    gk_tune_free(&t);
    /* no trailing newline */
    T_REQUIRE(parse("gemmkit-tune 1\nbuild 0123abcd", &H100, &t, why) == 0, "%s", why);
    T_CHECK(t.n == 0, "entries from nowhere");
}

/* Each bad file is refused, nothing returned, and the reason contains `want`. */
static void bad_files(void) {
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"", "empty"},
        {"gemmkit-tune 2\nbuild 0123abcd\n", "stale"},
        {"gemmkit-tune\nbuild 0123abcd\n", "line 1"},
        {"gemmkit-tune 1 extra\nbuild 0123abcd\n", "line 1"},
        {"# comment first\ngemmkit-tune 1\n", "line 1"},
        {"gemmkit-tune 1\nbuild ffff\n", "stale"},
        {"gemmkit-tune 1\ndevice sm=90 sms=132 name=x\n", "line 2"},
        {"gemmkit-tune 1\n# no build line\n", "no 'build'"},
        {"gemmkit-tune 1\nbuild 0123abcd\nbuild 0123abcd\n", "line 3"},
        {"gemmkit-tune 1\nbuild 0123abcd\nshape 1 2 3 plan 0 0 0\n", "line 3"},
        {"gemmkit-tune 1\nbuild 0123abcd\ndevice sm=90 sms=132 name=\n", "line 3"},
        {"gemmkit-tune 1\nbuild 0123abcd\ndevice sm=x sms=132 name=a\n", "line 3"},
        {"gemmkit-tune 1\nbuild 0123abcd\ndevice sm=90 sms=132 name=a\nshape 0 1 1 plan 0 0 0\n",
         "line 4"},
        {"gemmkit-tune 1\nbuild 0123abcd\ndevice sm=90 sms=132 name=a\nshape -1 1 1 plan 0 0 0\n",
         "line 4"},
        {"gemmkit-tune 1\nbuild 0123abcd\ndevice sm=90 sms=132 name=a\nshape 1 1 1 plan 0 0\n",
         "line 4"},
        {"gemmkit-tune 1\nbuild 0123abcd\ndevice sm=90 sms=132 name=a\nshape 1 1 1 plan 0 0 0 7\n",
         "line 4"},
        {"gemmkit-tune 1\nbuild 0123abcd\ndevice sm=90 sms=132 name=a\nshape 1 1 1 plan 99 0 0\n",
         "line 4"},
        {"gemmkit-tune 1\nbuild 0123abcd\ndevice sm=90 sms=132 name=a\n"
         "shape 99999999999999999999 1 1 plan 0 0 0\n",
         "line 4"},
        {"gemmkit-tune 1\nbuild 0123abcd\ndevice sm=90 sms=132 name=a\nshape  1 1 1 plan 0 0 0\n",
         "line 4"},
        {"gemmkit-tune 1\r\nbuild 0123abcd\n", "CR"},
        {"gemmkit-tune 1\nbuild 0123abcd\nwhat is this\n", "line 3"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gk_tune_table t = {(gk_tune_entry *)1, 7};
        char why[256] = "";
        const int r = parse(cases[i].text, &H100, &t, why);
        T_CHECK(r == -1, "case %zu accepted", i);
        T_CHECK(t.e == NULL && t.n == 0, "case %zu: table not emptied", i);
        T_CHECK(strstr(why, cases[i].want) != NULL, "case %zu: reason '%s' lacks '%s'", i, why,
                cases[i].want);
    }
    /* a NUL inside the text, and an overlong line */
    gk_tune_table t;
    char why[256];
    static const char nul[] = "gemmkit-tune 1\nbuild 0123abcd\0\n";
    T_CHECK(gk_tune_parse(nul, sizeof nul - 1, BUILD, &H100, &t, why, sizeof why) == -1,
            "NUL accepted");
    char *longline = malloc(2000);
    T_REQUIRE(longline, "malloc");
    snprintf(longline, 2000, "gemmkit-tune 1\nbuild 0123abcd\n# ");
    memset(longline + strlen(longline), 'x', 1000);
    longline[1999] = '\0';
    T_CHECK(parse(longline, &H100, &t, why) == -1 && strstr(why, "line 3"), "long line: %s", why);
    free(longline);
}

/* Flip, delete and insert random bytes of a valid file: the parser answers 0 or -1, and on 0
 * every entry it returns is in range and sorted. Run under the sanitizers by `make asan`. */
static void random_damage(void) {
    uint64_t s = 0x9e3779b97f4a7c15ull;
    const size_t n = sizeof VALID - 1;
    char buf[sizeof VALID + 8];
    int accepted = 0;
    for (int it = 0; it < 20000; it++) {
        memcpy(buf, VALID, n);
        size_t len = n;
        for (int e = 0; e < 1 + it % 3; e++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            const size_t at = (size_t)(s >> 33) % len;
            const char c = (char)(s >> 20);
            const int op = (int)((s >> 8) % 3);
            if (op == 0) buf[at] = c;
            else if (op == 1 && len > 1) memmove(buf + at, buf + at + 1, --len - at);
            else if (len < sizeof buf) memmove(buf + at + 1, buf + at, len++ - at), buf[at] = c;
        }
        gk_tune_table t;
        char why[256];
        const int r = gk_tune_parse(buf, len, BUILD, &H100, &t, why, sizeof why);
        T_REQUIRE(r == 0 || r == -1, "iteration %d: returned %d", it, r);
        if (r != 0) continue;
        accepted++;
        for (size_t i = 0; i < t.n; i++) {
            T_CHECK(t.e[i].m >= 1 && t.e[i].n >= 1 && t.e[i].k >= 1 && t.e[i].kind >= 0 &&
                        t.e[i].kind <= 63,
                    "iteration %d: entry %zu out of range", it, i);
            T_CHECK(i == 0 || t.e[i - 1].m < t.e[i].m ||
                        (t.e[i - 1].m == t.e[i].m && t.e[i - 1].n < t.e[i].n) ||
                        (t.e[i - 1].m == t.e[i].m && t.e[i - 1].n == t.e[i].n &&
                         t.e[i - 1].k < t.e[i].k),
                    "iteration %d: not sorted and unique", it);
        }
        gk_tune_free(&t);
    }
    T_CHECK(accepted > 0, "no damaged file was accepted: the mutations never hit a comment?");
}

static int write_text(const char *path, const char *text, size_t len) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    const int ok = fwrite(text, 1, len, f) == len;
    return fclose(f) == 0 && ok ? 0 : -1;
}

static int count_files(const char *d) {
    DIR *dp = opendir(d);
    if (!dp) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(dp));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(dp);
    return n;
}

static void load_and_store(void) {
    char path[400], why[256] = "";
    gk_tune_table t;
    snprintf(path, sizeof path, "%s/a/b/tune.txt", dir);
    T_CHECK(gk_tune_load(path, BUILD, &H100, &t, why, sizeof why) == 1 && t.n == 0,
            "a missing file is not 'no file'");
    /* store creates the directories */
    const gk_tune_entry e1[] = {{512, 512, 512, 0, 2, 0}, {8192, 1, 8192, 2, 0, 0}};
    int replaced = -1;
    T_REQUIRE(gk_tune_store(path, BUILD, &H100, e1, 2, &replaced, why, sizeof why) == 0,
              "store: %s", why);
    T_CHECK(replaced == 0, "a missing file counted as replaced");
    /* a second device and an overriding entry merge in */
    const gk_tune_entry e2[] = {{512, 512, 512, 0, 1, 1}};
    T_REQUIRE(gk_tune_store(path, BUILD, &OTHER, e1, 1, &replaced, why, sizeof why) == 0, "%s",
              why);
    T_REQUIRE(gk_tune_store(path, BUILD, &H100, e2, 1, &replaced, why, sizeof why) == 0, "%s", why);
    T_REQUIRE(gk_tune_load(path, BUILD, &H100, &t, why, sizeof why) == 0, "reload: %s", why);
    T_CHECK(t.n == 2, "H100 has %zu entries, want 2", t.n);
    const gk_tune_entry *e = gk_tune_find(&t, 512, 512, 512);
    T_CHECK(e && e->config == 1 && e->split == 1, "the newer 512^3 entry did not replace");
    gk_tune_free(&t);
    T_REQUIRE(gk_tune_load(path, BUILD, &OTHER, &t, why, sizeof why) == 0, "%s", why);
    T_CHECK(t.n == 1 && t.e[0].config == 2, "the other device's section was lost");
    gk_tune_free(&t);
    char parent[400];
    snprintf(parent, sizeof parent, "%s/a/b", dir);
    T_CHECK(count_files(parent) == 1, "a temporary file was left behind");
    /* the same file read by a library of another build is stale */
    T_CHECK(gk_tune_load(path, "other", &H100, &t, why, sizeof why) == -1 && strstr(why, "stale"),
            "another build's file accepted: %s", why);
    /* storing over a corrupt file replaces it with a valid one */
    T_REQUIRE(write_text(path, "garbage\n", 8) == 0, "write");
    T_CHECK(gk_tune_load(path, BUILD, &H100, &t, why, sizeof why) == -1, "garbage accepted");
    T_REQUIRE(gk_tune_store(path, BUILD, &H100, e1, 2, &replaced, why, sizeof why) == 0, "%s", why);
    T_CHECK(replaced == 1, "a corrupt file was not reported as replaced");
    T_REQUIRE(gk_tune_load(path, BUILD, &H100, &t, why, sizeof why) == 0, "%s", why);
    T_CHECK(t.n == 2, "replaced file has %zu entries", t.n);
    gk_tune_free(&t);
    /* an oversized file is refused unread */
    char *big = calloc(GK_TUNE_MAX_BYTES + 2, 1);
    T_REQUIRE(big, "calloc");
    memcpy(big, "gemmkit-tune 1\nbuild 0123abcd\n", 30);
    memset(big + 30, '#', GK_TUNE_MAX_BYTES - 29);
    T_REQUIRE(write_text(path, big, GK_TUNE_MAX_BYTES + 1) == 0, "write big");
    free(big);
    T_CHECK(gk_tune_load(path, BUILD, &H100, &t, why, sizeof why) == -1 && strstr(why, "16 MiB"),
            "oversized file: %s", why);
    /* a directory that cannot be created: an error, not a crash */
    char blocked[400];
    snprintf(blocked, sizeof blocked, "%s/a/b/tune.txt/x/tune.txt", dir);
    T_CHECK(gk_tune_store(blocked, BUILD, &H100, e1, 2, &replaced, why, sizeof why) == -1,
            "store under a regular file succeeded");
    unlink(path);
}

static void cache_path(void) {
    char p[300];
    setenv("GEMMKIT_TUNE_CACHE", "/x/y.txt", 1);
    T_CHECK(gk_tune_cache_path(p, sizeof p) && strcmp(p, "/x/y.txt") == 0, "env path: %s", p);
    setenv("GEMMKIT_TUNE_CACHE", "off", 1);
    T_CHECK(!gk_tune_cache_path(p, sizeof p), "off did not turn the cache off");
    setenv("GEMMKIT_TUNE_CACHE", "", 1);
    T_CHECK(!gk_tune_cache_path(p, sizeof p), "empty did not turn the cache off");
    unsetenv("GEMMKIT_TUNE_CACHE");
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    T_CHECK(gk_tune_cache_path(p, sizeof p) && strcmp(p, "/xdg/gemmkit/tune.txt") == 0, "%s", p);
    setenv("XDG_CACHE_HOME", "relative", 1); /* the XDG spec: relative values are ignored */
    setenv("HOME", "/home/u", 1);
    T_CHECK(gk_tune_cache_path(p, sizeof p) && strcmp(p, "/home/u/.cache/gemmkit/tune.txt") == 0,
            "%s", p);
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HOME");
    T_CHECK(!gk_tune_cache_path(p, sizeof p), "a path without HOME");
    char tiny[8];
    setenv("GEMMKIT_TUNE_CACHE", "/a/long/path.txt", 1);
    T_CHECK(!gk_tune_cache_path(tiny, sizeof tiny), "a path that does not fit was returned");
    unsetenv("GEMMKIT_TUNE_CACHE");
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/gk-tune-test-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    T_RUN(valid_file);
    T_RUN(bad_files);
    T_RUN(random_damage);
    T_RUN(load_and_store);
    T_RUN(cache_path);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return t_finish();
}
