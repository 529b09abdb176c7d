/*
 * nccl.cu — loads NCCL at run time for the distributed SGEMM (dist.cu) and maps its results onto
 * gk_status. The table of entry points is published once through an atomic pointer: no lock, so
 * concurrent first calls each may load (dlopen is reference-counted; the loser frees its table)
 * and a fork() in the middle of a load leaves the child nothing held. gk_cuda_nccl_version is the
 * public probe.
 */
#include <dlfcn.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>

#include "cuda/multi/nccl.h"

namespace {

std::atomic<const gk_nccl *> g_nccl{nullptr};

/* Where pip's nvidia-nccl wheels (a dependency of the CUDA builds of torch) put the library,
 * under the Python prefixes a process can name without running Python. */
const char *const WHEEL_TAIL[] = {"/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2",
                                  "/lib/python3*/dist-packages/nvidia/nccl/lib/libnccl.so.2"};

void *open_from_wheels(char *path, size_t len) {
    char prefixes[6][512];
    int np = 0;
    const char *envs[] = {"VIRTUAL_ENV", "CONDA_PREFIX"};
    for (const char *e : envs) {
        const char *v = getenv(e);
        if (v != NULL && *v != '\0') snprintf(prefixes[np++], sizeof prefixes[0], "%s", v);
    }
    const char *home = getenv("HOME");
    if (home != NULL && *home != '\0') {
        snprintf(prefixes[np++], sizeof prefixes[0], "%s/.local", home);
        snprintf(prefixes[np++], sizeof prefixes[0], "%s/.pyenv/versions/*", home);
    }
    snprintf(prefixes[np++], sizeof prefixes[0], "/usr/local");
    snprintf(prefixes[np++], sizeof prefixes[0], "/usr");
    for (int i = 0; i < np; i++)
        for (const char *tail : WHEEL_TAIL) {
            char pattern[1024];
            snprintf(pattern, sizeof pattern, "%s%s", prefixes[i], tail);
            glob_t gl;
            if (glob(pattern, 0, NULL, &gl) != 0) continue;
            void *lib = NULL;
            for (size_t j = 0; j < gl.gl_pathc && lib == NULL; j++)
                if ((lib = dlopen(gl.gl_pathv[j], RTLD_NOW | RTLD_LOCAL)) != NULL)
                    snprintf(path, len, "%s", gl.gl_pathv[j]);
            globfree(&gl);
            if (lib != NULL) return lib;
        }
    return NULL;
}

template <class F> int resolve(void *lib, const char *name, F *out) {
    *out = (F)dlsym(lib, name);
    return *out != NULL;
}

} // namespace

gk_status gk_nccl_load(const char *who, const gk_nccl **out) {
    *out = g_nccl.load(std::memory_order_acquire);
    if (*out != NULL) return GK_SUCCESS;
    const char *env = getenv("GEMMKIT_NCCL_LIB");
    char path[1024] = "libnccl.so.2";
    void *lib = NULL;
    if (env != NULL && *env != '\0') {
        snprintf(path, sizeof path, "%s", env);
        if ((lib = dlopen(env, RTLD_NOW | RTLD_LOCAL)) == NULL) {
            const char *e = dlerror();
            return gk_fail(GK_ERR_UNSUPPORTED, "%s: NCCL is not available: GEMMKIT_NCCL_LIB=%s: %s",
                           who, env, e ? e : "cannot be loaded");
        }
    } else if ((lib = dlopen(path, RTLD_NOW | RTLD_LOCAL)) == NULL) {
        const char *e = dlerror();
        char why[512];
        snprintf(why, sizeof why, "%s", e ? e : "libnccl.so.2 not found");
        if ((lib = open_from_wheels(path, sizeof path)) == NULL)
            return gk_fail(GK_ERR_UNSUPPORTED,
                           "%s: NCCL is not available: %s, nor in a pip nvidia-nccl wheel; install "
                           "NCCL (libnccl.so.2) or set GEMMKIT_NCCL_LIB to its path",
                           who, why);
    }
    gk_nccl *nc = (gk_nccl *)calloc(1, sizeof *nc);
    if (nc == NULL) {
        dlclose(lib);
        return gk_fail(GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", who);
    }
    int (*get_version)(int *) = NULL;
    const char *missing = NULL;
#define GK_RESOLVE(name, field)                                                                    \
    if (missing == NULL && !resolve(lib, name, field)) missing = name
    GK_RESOLVE("ncclGetVersion", &get_version);
    GK_RESOLVE("ncclGetUniqueId", &nc->get_unique_id);
    GK_RESOLVE("ncclCommInitRank", &nc->comm_init_rank);
    GK_RESOLVE("ncclCommInitAll", &nc->comm_init_all);
    GK_RESOLVE("ncclCommSplit", &nc->comm_split);
    GK_RESOLVE("ncclCommDestroy", &nc->comm_destroy);
    GK_RESOLVE("ncclBroadcast", &nc->broadcast);
    GK_RESOLVE("ncclGetErrorString", &nc->error_string);
    GK_RESOLVE("ncclGetLastError", &nc->last_error);
#undef GK_RESOLVE
    /* no NCCL call before this one has started a thread, so unloading is still safe */
    if (missing != NULL || get_version(&nc->version) != GK_NCCL_SUCCESS ||
        nc->version < GK_NCCL_MIN_VERSION) {
        const int version = nc->version;
        free(nc);
        dlclose(lib);
        if (missing != NULL)
            return gk_fail(GK_ERR_UNSUPPORTED,
                           "%s: NCCL at %s lacks %s (NCCL 2.18 or later is needed)", who, path,
                           missing);
        return gk_fail(GK_ERR_UNSUPPORTED,
                       "%s: NCCL at %s is version %d; 2.18 or later is needed (ncclCommSplit)", who,
                       path, version);
    }
    const gk_nccl *expected = NULL;
    if (!g_nccl.compare_exchange_strong(expected, nc, std::memory_order_acq_rel)) {
        free(nc); /* another thread published first; our dlopen reference is harmless */
        *out = expected;
        return GK_SUCCESS;
    }
    *out = nc;
    return GK_SUCCESS;
}

gk_status gk_nccl_fail(const gk_nccl *nc, const char *who, const char *call, int result,
                       gk_nccl_comm comm) {
    const char *last = nc->last_error(comm);
    const gk_status st = result == GK_NCCL_INVALID_ARGUMENT || result == GK_NCCL_INVALID_USAGE
                             ? GK_ERR_INVALID_VALUE
                             : GK_ERR_CUDA;
    return gk_fail(st, "%s: %s failed: %s%s%s", who, call, nc->error_string(result),
                   last != NULL && *last != '\0' ? ": " : "", last != NULL ? last : "");
}

gk_status gk_cuda_nccl_version(int *version) {
    gk_clear_error();
    if (version == NULL)
        return gk_fail(GK_ERR_INVALID_VALUE, "gk_cuda_nccl_version: version is NULL");
    *version = 0;
    const gk_nccl *nc;
    const gk_status st = gk_nccl_load("gk_cuda_nccl_version", &nc);
    if (st != GK_SUCCESS) return st;
    *version = nc->version;
    return GK_SUCCESS;
}
