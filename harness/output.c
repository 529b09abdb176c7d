/*
 * output.c — what every results writer of the benchmarks needs (harness.h): the output directory
 * created on demand and strings that are safe inside JSON (library and driver messages may carry
 * quotes or backslashes).
 */
#include "harness.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

int gkh_mkdirs(const char *path) {
    char p[4096];
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof p) {
        errno = len ? ENAMETOOLONG : ENOENT;
        return -1;
    }
    memcpy(p, path, len + 1);
    for (size_t i = 1; i <= len; i++)
        if (i == len || p[i] == '/') {
            p[i] = '\0';
            if (mkdir(p, 0755) != 0 && errno != EEXIST) return -1;
            p[i] = path[i];
        }
    return 0;
}

char *gkh_json_quote(char *out, size_t cap, const char *s) {
    size_t j = 0;
    if (cap < 3) {
        if (cap) out[0] = '\0';
        return out;
    }
    out[j++] = '"';
    for (; *s; s++) {
        const int esc = *s == '"' || *s == '\\';
        if ((unsigned char)*s < 0x20) continue;
        if (j + (size_t)esc + 1 + 2 > cap) break; /* keep room for the closing quote and NUL */
        if (esc) out[j++] = '\\';
        out[j++] = *s;
    }
    out[j++] = '"';
    out[j] = '\0';
    return out;
}
