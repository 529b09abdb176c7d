/*
 * tune_cache.c — reading, looking up and writing the tune cache (tune_cache.h; docs/tuning.md).
 * Everything here is per call: the parsed table belongs to whoever asked (a CUDA context), so
 * concurrent contexts and forked children share nothing.
 */
#include "core/tune_cache.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { LINE_MAX_BYTES = 512, NAME_MAX_BYTES = 256 };
static const char HEADER[] = "gemmkit-tune";

typedef struct section {
    char name[NAME_MAX_BYTES];
    int sm, sms;
    gk_tune_entry *e;
    size_t n, cap;
} section;

typedef struct file {
    section *s;
    size_t n, cap;
} file;

static void say(char *why, size_t whylen, const char *fmt, ...) {
    if (why == NULL || whylen == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
}

static void file_free(file *f) {
    for (size_t i = 0; i < f->n; i++)
        free(f->s[i].e);
    free(f->s);
    f->s = NULL, f->n = f->cap = 0;
}

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap * 2 : 16;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * elem);
    if (q == NULL) return -1;
    *p = q, *cap = c;
    return 0;
}

static int add_entry(section *s, const gk_tune_entry *e) {
    if (grow((void **)&s->e, &s->cap, s->n + 1, sizeof *e)) return -1;
    s->e[s->n++] = *e;
    return 0;
}

static section *find_section(file *f, const gk_tune_device *d) {
    for (size_t i = 0; i < f->n; i++)
        if (f->s[i].sm == d->sm && f->s[i].sms == d->sms && strcmp(f->s[i].name, d->name) == 0)
            return &f->s[i];
    return NULL;
}

static section *add_section(file *f, const char *name, int sm, int sms) {
    if (grow((void **)&f->s, &f->cap, f->n + 1, sizeof *f->s)) return NULL;
    section *s = &f->s[f->n++];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    s->sm = sm, s->sms = sms;
    return s;
}

static int cmp_entry(const void *x, const void *y) {
    const gk_tune_entry *a = x, *b = y;
    if (a->m != b->m) return a->m < b->m ? -1 : 1;
    if (a->n != b->n) return a->n < b->n ? -1 : 1;
    if (a->k != b->k) return a->k < b->k ? -1 : 1;
    return 0;
}

typedef struct ranked {
    gk_tune_entry e;
    size_t pos;
} ranked;

static int cmp_ranked(const void *x, const void *y) {
    const ranked *a = x, *b = y;
    const int c = cmp_entry(&a->e, &b->e);
    return c != 0 ? c : a->pos < b->pos ? -1 : 1;
}

/* Sort by shape; of equal shapes keep the one added last (a later line replaces an earlier). */
static int sort_unique(section *s) {
    if (s->n == 0) return 0;
    ranked *r = malloc(s->n * sizeof *r);
    if (r == NULL) return -1;
    for (size_t i = 0; i < s->n; i++)
        r[i].e = s->e[i], r[i].pos = i;
    qsort(r, s->n, sizeof *r, cmp_ranked);
    size_t out = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (i + 1 < s->n && cmp_entry(&r[i].e, &r[i + 1].e) == 0) continue;
        s->e[out++] = r[i].e;
    }
    s->n = out;
    free(r);
    return 0;
}

/* A whole-line integer field in [lo, hi] at *p; advances *p past it and one separating space. */
static int field(const char **p, int64_t lo, int64_t hi, int64_t *v) {
    const char *s = *p;
    if (*s < '0' || *s > '9') return -1;
    errno = 0;
    char *end;
    const long long x = strtoll(s, &end, 10);
    if (errno || x < lo || x > hi || (*end != ' ' && *end != '\0')) return -1;
    *v = x;
    *p = *end == ' ' ? end + 1 : end;
    return 0;
}

static int keyword(const char **p, const char *kw) {
    const size_t n = strlen(kw);
    if (strncmp(*p, kw, n) != 0) return -1;
    *p += n;
    return 0;
}

/* Parse every section of text into f. 0, or -1 with why. */
static int parse_all(const char *text, size_t len, const char *build, file *f, char *why,
                     size_t whylen) {
    char line[LINE_MAX_BYTES];
    section *cur = NULL;
    int have_build = 0;
    size_t pos = 0;
    for (int no = 1; pos < len; no++) {
        size_t end = pos;
        while (end < len && text[end] != '\n')
            end++;
        const size_t n = end - pos;
        if (n >= sizeof line) {
            say(why, whylen, "line %d is longer than %d bytes", no, LINE_MAX_BYTES - 1);
            return -1;
        }
        memcpy(line, text + pos, n);
        line[n] = '\0';
        pos = end + 1;
        if (memchr(line, '\0', n) != NULL || (n > 0 && line[n - 1] == '\r')) {
            say(why, whylen, "line %d holds a NUL or CR byte", no);
            return -1;
        }
        const char *p = line;
        int64_t v[6];
        if (no == 1) {
            if (keyword(&p, HEADER) || keyword(&p, " ") || field(&p, 0, 1 << 20, &v[0]) || *p) {
                say(why, whylen, "line 1 is not '%s N'", HEADER);
                return -1;
            }
            if (v[0] != GK_TUNE_FORMAT) {
                say(why, whylen, "format %" PRId64 ", this library reads format %d (stale)", v[0],
                    GK_TUNE_FORMAT);
                return -1;
            }
            continue;
        }
        if (n == 0 || line[0] == '#') continue;
        if (keyword(&p, "build ") == 0) {
            if (have_build || cur) {
                say(why, whylen, "line %d: a second or late 'build' line", no);
                return -1;
            }
            if (strcmp(p, build) != 0) {
                say(why, whylen, "written by build %s, this library is build %s (stale)", p, build);
                return -1;
            }
            have_build = 1;
        } else if (keyword(&p, "device sm=") == 0) {
            if (!have_build) {
                say(why, whylen, "line %d: 'device' before the 'build' line", no);
                return -1;
            }
            if (field(&p, 1, 1 << 20, &v[0]) || keyword(&p, "sms=") ||
                field(&p, 1, 1 << 20, &v[1]) || keyword(&p, "name=") || *p == '\0' ||
                strlen(p) >= NAME_MAX_BYTES) {
                say(why, whylen, "line %d: want 'device sm=N sms=N name=NAME'", no);
                return -1;
            }
            gk_tune_device d = {p, (int)v[0], (int)v[1]};
            cur = find_section(f, &d);
            if (cur == NULL && (cur = add_section(f, p, (int)v[0], (int)v[1])) == NULL) {
                say(why, whylen, "out of memory");
                return -1;
            }
        } else if (keyword(&p, "shape ") == 0) {
            const int64_t big = (int64_t)1 << 62;
            if (field(&p, 1, big, &v[0]) || field(&p, 1, big, &v[1]) || field(&p, 1, big, &v[2]) ||
                keyword(&p, "plan ") || field(&p, 0, 63, &v[3]) || field(&p, 0, 1 << 16, &v[4]) ||
                field(&p, 0, 1 << 16, &v[5]) || *p) {
                say(why, whylen, "line %d: want 'shape M N K plan KIND CONFIG SPLIT'", no);
                return -1;
            }
            if (cur == NULL) {
                say(why, whylen, "line %d: 'shape' before any 'device' line", no);
                return -1;
            }
            const gk_tune_entry e = {v[0], v[1], v[2], (int)v[3], (int)v[4], (int)v[5]};
            if (add_entry(cur, &e)) {
                say(why, whylen, "out of memory");
                return -1;
            }
        } else {
            say(why, whylen, "line %d is not a build, device, shape or comment line", no);
            return -1;
        }
    }
    if (len == 0) {
        say(why, whylen, "the file is empty");
        return -1;
    }
    if (!have_build) {
        say(why, whylen, "no 'build' line");
        return -1;
    }
    for (size_t i = 0; i < f->n; i++)
        if (sort_unique(&f->s[i])) {
            say(why, whylen, "out of memory");
            return -1;
        }
    return 0;
}

static void take_section(file *f, const gk_tune_device *dev, gk_tune_table *out) {
    section *s = find_section(f, dev);
    if (s == NULL) return;
    out->e = s->e, out->n = s->n;
    s->e = NULL, s->n = s->cap = 0;
}

int gk_tune_parse(const char *text, size_t len, const char *build, const gk_tune_device *dev,
                  gk_tune_table *out, char *why, size_t whylen) {
    out->e = NULL, out->n = 0;
    file f = {0};
    const int r = parse_all(text, len, build, &f, why, whylen);
    if (r == 0) take_section(&f, dev, out);
    file_free(&f);
    return r;
}

/* The file's bytes (malloc'ed, *len set), or NULL: errno ENOENT for no file, why for others. */
static char *read_all(const char *path, size_t *len, char *why, size_t whylen) {
    FILE *fp = fopen(path, "rb");
    if (fp == NULL) {
        if (errno != ENOENT) say(why, whylen, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(GK_TUNE_MAX_BYTES + 1);
    size_t n = buf ? fread(buf, 1, GK_TUNE_MAX_BYTES + 1, fp) : 0;
    const int bad = buf == NULL || ferror(fp) || n > GK_TUNE_MAX_BYTES;
    fclose(fp);
    if (bad) {
        say(why, whylen, "%s: %s", path,
            buf == NULL ? "out of memory" : n > GK_TUNE_MAX_BYTES ? "larger than 16 MiB" : "read error");
        free(buf);
        errno = EIO;
        return NULL;
    }
    *len = n;
    return buf;
}

int gk_tune_load(const char *path, const char *build, const gk_tune_device *dev,
                 gk_tune_table *out, char *why, size_t whylen) {
    out->e = NULL, out->n = 0;
    size_t len = 0;
    errno = 0;
    char *text = read_all(path, &len, why, whylen);
    if (text == NULL) return errno == ENOENT ? 1 : -1;
    const int r = gk_tune_parse(text, len, build, dev, out, why, whylen);
    free(text);
    return r;
}

const gk_tune_entry *gk_tune_find(const gk_tune_table *t, int64_t m, int64_t n, int64_t k) {
    const gk_tune_entry key = {m, n, k, 0, 0, 0};
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        const int c = cmp_entry(&t->e[mid], &key);
        if (c == 0) return &t->e[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

void gk_tune_free(gk_tune_table *t) {
    free(t->e);
    t->e = NULL, t->n = 0;
}

int gk_tune_cache_path(char *buf, size_t n) {
    const char *env = getenv("GEMMKIT_TUNE_CACHE");
    int w;
    if (env != NULL) {
        if (*env == '\0' || strcmp(env, "off") == 0) return 0;
        w = snprintf(buf, n, "%s", env);
    } else {
        const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
        if (xdg != NULL && *xdg == '/') w = snprintf(buf, n, "%s/gemmkit/tune.txt", xdg);
        else if (home != NULL && *home != '\0')
            w = snprintf(buf, n, "%s/.cache/gemmkit/tune.txt", home);
        else return 0;
    }
    return w > 0 && (size_t)w < n;
}

/* mkdir -p of path's directory part. */
static int make_parent(const char *path) {
    char dir[4096];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir) return -1;
    char *slash = strrchr(dir, '/');
    if (slash == NULL || slash == dir) return 0;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(dir, 0755) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(dir, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

static int write_file(const char *path, const char *build, const file *f, char *why,
                      size_t whylen) {
    char tmp[4200];
    if (snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid()) >= (int)sizeof tmp) {
        say(why, whylen, "path too long: %s", path);
        return -1;
    }
    if (make_parent(path) != 0) {
        say(why, whylen, "cannot create the directory of %s: %s", path, strerror(errno));
        return -1;
    }
    FILE *fp = fopen(tmp, "w");
    if (fp == NULL) {
        say(why, whylen, "cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    fprintf(fp, "%s %d\n", HEADER, GK_TUNE_FORMAT);
    fprintf(fp, "# Written by `gemmkit tune` (docs/tuning.md). Delete the file or run\n"
                "# `gemmkit tune --reset` to forget it; GEMMKIT_TUNE_CACHE=off ignores it.\n");
    fprintf(fp, "build %s\n", build);
    for (size_t i = 0; i < f->n; i++) {
        const section *s = &f->s[i];
        fprintf(fp, "device sm=%d sms=%d name=%s\n", s->sm, s->sms, s->name);
        for (size_t j = 0; j < s->n; j++)
            fprintf(fp, "shape %" PRId64 " %" PRId64 " %" PRId64 " plan %d %d %d\n", s->e[j].m,
                    s->e[j].n, s->e[j].k, s->e[j].kind, s->e[j].config, s->e[j].split);
    }
    const int bad = ferror(fp) != 0;
    if (fclose(fp) != 0 || bad || rename(tmp, path) != 0) {
        say(why, whylen, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

int gk_tune_store(const char *path, const char *build, const gk_tune_device *dev,
                  const gk_tune_entry *entries, size_t n, int *replaced, char *why,
                  size_t whylen) {
    *replaced = 0;
    file f = {0};
    size_t len = 0;
    errno = 0;
    char *text = read_all(path, &len, why, whylen);
    if (text == NULL && errno != ENOENT) {
        *replaced = 1; /* unreadable: write a fresh one (why already says why) */
    } else if (text != NULL && parse_all(text, len, build, &f, why, whylen) != 0) {
        file_free(&f);
        *replaced = 1;
    }
    free(text);
    int r = -1;
    section *s = find_section(&f, dev);
    if (s == NULL && (s = add_section(&f, dev->name, dev->sm, dev->sms)) == NULL) {
        say(why, whylen, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        if (add_entry(s, &entries[i])) {
            say(why, whylen, "out of memory");
            goto done;
        }
    if (sort_unique(s)) {
        say(why, whylen, "out of memory");
        goto done;
    }
    char io[512];
    r = write_file(path, build, &f, io, sizeof io);
    if (r != 0) say(why, whylen, "%s", io);
done:
    file_free(&f);
    return r;
}
