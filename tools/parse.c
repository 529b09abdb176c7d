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
