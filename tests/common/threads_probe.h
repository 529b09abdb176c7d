/*
 * threads_probe.h — helpers of the CPU threading tests (test_chunks.c, test_ksplit.c): the value of
 * one field of the planner's GEMMKIT_VERBOSE line for a call (the test sets GEMMKIT_VERBOSE before
 * the library's first call), and a thread that spins to compete with the library's threads for the
 * cores, so that work changes hands between runs. Header-only, like check.h.
 */
#ifndef GK_TEST_THREADS_PROBE_H
#define GK_TEST_THREADS_PROBE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Run call(arg) with stderr sent to a temporary file and return what it wrote in text (len
 * bytes at most, terminated); 0 when the call fails (returns 0) or the file cannot be made. */
static inline int t_verbose_text(int (*call)(void *), void *arg, char *text, size_t len) {
    char path[] = "/tmp/gk_verbose_XXXXXX";
    text[0] = '\0';
    const int fd = mkstemp(path);
    if (fd < 0) return 0;
    unlink(path);
    fflush(stderr);
    const int saved = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    const int ok = call(arg);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    const ssize_t got = pread(fd, text, len - 1, 0);
    close(fd);
    text[got > 0 ? got : 0] = '\0';
    return ok;
}

/* The integer after `key` (e.g. "chunks=") in what call(arg) wrote; -1 when the call fails or
 * the key is missing. */
static inline int t_verbose_field(int (*call)(void *), void *arg, const char *key) {
    char text[4096];
    const int ok = t_verbose_text(call, arg, text, sizeof text);
    const char *at = strstr(text, key);
    return ok && at ? atoi(at + strlen(key)) : -1;
}

static atomic_int t_spinning;
static pthread_t t_spinner;

static void *t_spin(void *arg) {
    (void)arg;
    while (atomic_load_explicit(&t_spinning, memory_order_relaxed))
        ;
    return NULL;
}

/* Start the spinning thread; 0 on success. Stop it with t_spin_stop. */
static inline int t_spin_start(void) {
    atomic_store(&t_spinning, 1);
    return pthread_create(&t_spinner, NULL, t_spin, NULL);
}

static inline void t_spin_stop(void) {
    atomic_store(&t_spinning, 0);
    pthread_join(t_spinner, NULL);
}

#endif
