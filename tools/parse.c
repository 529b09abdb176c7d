/*
 * parse.c — option-parsing helpers shared by the subcommands (commands.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

int cli_parse_i64(const char *s, int64_t *out) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end) return 0;
    *out = v;
    return 1;
}

int cli_add_shapes(const char *item, bench_shape *shapes, int *n, int max) {
    long long m, nn, k, lo, hi, step;
    char tail;
    if (sscanf(item, "%lld:%lld:%lld%c", &lo, &hi, &step, &tail) == 3) {
        if (lo < 1 || hi < lo || hi > INT_MAX || step < 1) return 0;
        for (long long s = lo; s <= hi; s += step) {
            if (*n >= max) return 0;
            shapes[(*n)++] = (bench_shape){s, s, s};
        }
        return 1;
    }
    if (sscanf(item, "%lldx%lldx%lld%c", &m, &nn, &k, &tail) == 3) {
    } else if (sscanf(item, "%lld%c", &m, &tail) == 1) {
        nn = k = m;
    } else {
        return 0;
    }
    if (m < 1 || nn < 1 || k < 1 || m > INT_MAX || nn > INT_MAX || k > INT_MAX || *n >= max)
        return 0;
    shapes[(*n)++] = (bench_shape){m, nn, k};
    return 1;
}

void cli_default_out(char *out, size_t len) {
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        /* strip "/gemmkit", then "/bin": what remains is the build (or install) directory */
        for (int up = 0; up < 2; up++) {
            char *slash = strrchr(exe, '/');
            if (!slash) break;
            *slash = '\0';
        }
        if (exe[0] && access(exe, W_OK) == 0 &&
            (size_t)snprintf(out, len, "%s/bench-results", exe) < len)
            return;
    }
    snprintf(out, len, "bench-results");
}
