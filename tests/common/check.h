/*
 * check.h — the test protocol every gemmkit test binary follows. Each case prints one line:
 *   "ok <name>", "FAIL <name>: <why>" or "skip <name>: <why>";
 * tests/run.sh counts them over all binaries. Header-only so a test is one .c file.
 */
#ifndef GK_TEST_CHECK_H
#define GK_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    int passed, failed, skipped;
    int case_failed, case_skipped;
    char why[512];
} t_state_t;

static t_state_t t_state;

static inline void t_note(int skip, const char *file, int line, const char *fmt, ...) {
    if (skip)
        t_state.case_skipped = 1;
    else
        t_state.case_failed++;
    if (t_state.case_failed > 1) return; /* keep the first failure's message */
    int off = skip ? 0 : snprintf(t_state.why, sizeof t_state.why, "%s:%d: ", file, line);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t_state.why + off, sizeof t_state.why - (size_t)off, fmt, ap);
    va_end(ap);
}

/* Record a failure and continue the case. */
#define T_CHECK(cond, ...)                                                                         \
    do {                                                                                           \
        if (!(cond)) t_note(0, __FILE__, __LINE__, __VA_ARGS__);                                   \
    } while (0)
/* Record a failure and leave the case function. */
#define T_REQUIRE(cond, ...)                                                                       \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            t_note(0, __FILE__, __LINE__, __VA_ARGS__);                                            \
            return;                                                                                \
        }                                                                                          \
    } while (0)
/* Mark the case skipped (a missing device, ISA or package) and leave it. */
#define T_SKIP(...)                                                                                \
    do {                                                                                           \
        t_note(1, __FILE__, __LINE__, __VA_ARGS__);                                                \
        return;                                                                                    \
    } while (0)

static inline void t_run(const char *name, void (*fn)(void)) {
    t_state.case_failed = t_state.case_skipped = 0;
    t_state.why[0] = '\0';
    fn();
    if (t_state.case_failed) {
        t_state.failed++;
        printf("FAIL %s: %s\n", name, t_state.why);
    } else if (t_state.case_skipped) {
        t_state.skipped++;
        printf("skip %s: %s\n", name, t_state.why);
    } else {
        t_state.passed++;
        printf("ok %s\n", name);
    }
    fflush(stdout);
}

#define T_RUN(fn) t_run(#fn, fn)

/* End of main(): exit status 1 if any case failed. */
static inline int t_finish(void) {
    return t_state.failed ? 1 : 0;
}

/* The one option of the GPU test programs: --small (smaller shapes, for compute-sanitizer and
 * the CPU emulation). Returns 1 or 0, or -1 after a usage line for anything else. */
static inline int t_small_option(int argc, char **argv) {
    int small = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--small") != 0) {
            fprintf(stderr, "usage: %s [--small]\n", argv[0]);
            return -1;
        }
        small = 1;
    }
    return small;
}

#endif
