/*
 * status.c — status names and the per-thread detail message behind gk_last_error().
 * The message lives in thread-local storage so concurrent callers never see each other's errors.
 */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_error[512];
#if !defined(__STDC_NO_ATOMICS__)
atomic_int gk_error_seen;
#endif

const char *gk_status_string(gk_status status) {
    switch (status) {
    case GK_SUCCESS:
        return "success";
    case GK_ERR_INVALID_LAYOUT:
        return "invalid layout";
    case GK_ERR_INVALID_TRANS:
        return "invalid transposition";
    case GK_ERR_INVALID_SIZE:
        return "invalid size";
    case GK_ERR_INVALID_LD:
        return "invalid leading dimension";
    case GK_ERR_NULL_POINTER:
        return "null pointer";
    case GK_ERR_OVERFLOW:
        return "size overflow";
    case GK_ERR_OUT_OF_MEMORY:
        return "out of memory";
    case GK_ERR_INVALID_VALUE:
        return "invalid value";
    case GK_ERR_UNSUPPORTED:
        return "unsupported";
    case GK_ERR_NOT_BUILT:
        return "CUDA backend not built";
    case GK_ERR_NO_DEVICE:
        return "no CUDA device";
    case GK_ERR_CUDA:
        return "CUDA error";
    case GK_ERR_INTERNAL:
        return "internal error";
    case GK_ERR_INVALID_POINTER:
        return "invalid pointer";
    }
    return "unknown status";
}

const char *gk_last_error(void) {
    return last_error;
}

const char *gk_version(void) {
#define GK_STR2(x) #x
#define GK_STR(x) GK_STR2(x)
    return GK_STR(GEMMKIT_VERSION_MAJOR) "." GK_STR(GEMMKIT_VERSION_MINOR) "." GK_STR(
        GEMMKIT_VERSION_PATCH);
}

void gk_clear_error_now(void) {
    last_error[0] = '\0';
}

gk_status gk_fail(gk_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
#if !defined(__STDC_NO_ATOMICS__)
    if (!atomic_load_explicit(&gk_error_seen, memory_order_relaxed))
        atomic_store_explicit(&gk_error_seen, 1, memory_order_relaxed);
#endif
    return status;
}
