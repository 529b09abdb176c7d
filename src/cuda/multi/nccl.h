/*
 * nccl.h — NCCL reached at run time (nccl.cu): the distributed SGEMM (dist.cu) needs NCCL only
 * when it is called, so the library neither links nor includes it. The few types and entry points
 * it uses are declared here with the values of NCCL's public nccl.h (an opaque communicator
 * pointer, int results, the 128-byte unique id passed by value, ncclFloat32 = 7), and resolved
 * from libnccl.so.2 once per process (docs/cuda.md, "Distributed SGEMM over NCCL").
 */
#ifndef GK_CUDA_NCCL_H
#define GK_CUDA_NCCL_H

#include <cuda_runtime.h>
#include <stddef.h>

#include "core/internal.h"

typedef struct gk_nccl_comm_opaque *gk_nccl_comm; /* ncclComm_t */
typedef struct {
    char internal[128]; /* NCCL_UNIQUE_ID_BYTES */
} gk_nccl_id;           /* ncclUniqueId */

enum {
    GK_NCCL_SUCCESS = 0,          /* ncclSuccess */
    GK_NCCL_INVALID_ARGUMENT = 4, /* ncclInvalidArgument */
    GK_NCCL_INVALID_USAGE = 5,    /* ncclInvalidUsage */
    GK_NCCL_FLOAT32 = 7,          /* ncclFloat32 */
    GK_NCCL_MIN_VERSION = 21800   /* 2.18: ncclCommSplit */
};

/* The resolved entry points (NCCL's own signatures, results as int), immutable once published. */
struct gk_nccl {
    int version; /* ncclGetVersion: major * 10000 + minor * 100 + patch */
    int (*get_unique_id)(gk_nccl_id *id);
    int (*comm_init_rank)(gk_nccl_comm *comm, int nranks, gk_nccl_id id, int rank);
    int (*comm_init_all)(gk_nccl_comm *comms, int ndev, const int *devlist);
    int (*comm_split)(gk_nccl_comm comm, int color, int key, gk_nccl_comm *out, void *config);
    int (*comm_destroy)(gk_nccl_comm comm);
    int (*broadcast)(const void *send, void *recv, size_t count, int datatype, int root,
                     gk_nccl_comm comm, cudaStream_t stream);
    const char *(*error_string)(int result);
    const char *(*last_error)(gk_nccl_comm comm);
};

/* The process's NCCL, loaded on first use: GEMMKIT_NCCL_LIB when set (that file only), else
 * libnccl.so.2 on the loader's path, else the copy the nvidia-nccl pip wheels install.
 * GK_ERR_UNSUPPORTED with a message naming what was tried (missing library, missing symbol,
 * version below 2.18); a failed load is retried on the next call, a successful one is kept for the
 * life of the process (NCCL is never unloaded: its threads outlive calls). */
gk_status gk_nccl_load(const char *who, const gk_nccl **out);

/* Record a failed NCCL call: GK_ERR_INVALID_VALUE for NCCL's invalid-argument and invalid-usage
 * results (a device given twice, ranks that disagree), GK_ERR_CUDA for the others, with NCCL's
 * text and its last error message. */
gk_status gk_nccl_fail(const gk_nccl *nc, const char *who, const char *call, int result,
                       gk_nccl_comm comm);

#endif
