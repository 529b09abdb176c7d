/*
 * core.h — internals of the CUDA backend shared by its files: the context, the error mapping
 * from cudaError_t to gk_status, the device guard, the workspace, and the helper kernels
 * (transpose into the workspace, C = beta * C) that the dispatcher launches around a registry
 * kernel, and the checks made before anything is queued (checks.cu).
 */
#ifndef GK_CUDA_CORE_H
#define GK_CUDA_CORE_H

#include <cuda.h> /* driver API types only: driver functions are reached through cudart */
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"
#include "core/tune_cache.h"

/* The driver's cuPointerGetAttributes, resolved through cudaGetDriverEntryPointByVersion: the
 * library links cudart statically and never libcuda itself. */
typedef CUresult(CUDAAPI *gk_cu_pointer_get_attributes)(unsigned count, CUpointer_attribute *attrs,
                                                        void **data, CUdeviceptr ptr);

/* One context serves one device and one stream. It is not locked: a context must not be used by
 * two threads at once (create one per thread); distinct contexts are independent. */
struct gk_cuda_ctx {
    int device;
    cudaStream_t stream;
    int sm;          /* compute capability * 10 */
    int sm_count;    /* multiprocessors */
    int async_alloc; /* device supports stream-ordered allocation (cudaMallocAsync) */
    float *work;     /* kernel scratch, then transposed copies of A and/or B; grown on demand,
                      * never shrunk; its first GK_SCRATCH_FLAG_BYTES are kept zero */
    size_t work_bytes;
    int checks;          /* check the context and the operands before queueing (checks.cu); off
                          * when GEMMKIT_CUDA_CHECKS=0 at gk_cuda_create */
    int pageable_access; /* the device reads pageable host memory (HMM, ATS) */
    gk_cu_pointer_get_attributes pointer_attributes; /* NULL: no allocation-extent check */
    int fp32_mode; /* gk_fp32_mode of float32 GEMMs (gk_cuda_set_fp32_mode) */
    int tc_path;   /* gk_tc_path: GEMMKIT_CUDA_TC_PATH at gk_cuda_create (docs/cuda.md) */
    int verbose;   /* GEMMKIT_VERBOSE at gk_cuda_create: log each gk_cuda_gemm_ex call's path */
    /* GEMMKIT_BATCH_INVARIANT at gk_cuda_create (default 1; "0" turns it off): the tensor-core
     * kernel's K chunks independent of M (src/cuda/hopper/sm90_plan.h); off, a problem with many
     * tiles keeps K whole and the widest tiles (faster at large M, rows then depend on M) */
    int batch_invariant;
    gk_tune_table tune; /* this device's tune cache entries, read at gk_cuda_create (tune.cu) */
};

/* Which path gk_cuda_gemm_ex may take (gemm_ex.cu): all of them in order (auto), or only the one
 * GEMMKIT_CUDA_TC_PATH names, so that each can be tested on one GPU. */
enum gk_tc_path { GK_TC_AUTO, GK_TC_HOPPER, GK_TC_REPACK, GK_TC_MMA, GK_TC_SIMT };

static inline int64_t gk_round_up(int64_t x, int64_t to) {
    return (x + to - 1) / to * to;
}

/* GEMMKIT_CUDA_TC_PATH's value for a gk_tc_path. */
static inline const char *gk_tc_path_name(int path) {
    static const char *const names[] = {"auto", "hopper", "repack", "mma", "simt"};
    return names[path];
}

/* gk_format_name, or "?" for a value outside gk_format (messages). */
const char *gk_format_label(gk_format f);

/* One mixed-precision or block-scaled call as the caller made it (gemm_ex.cu, gemm_scaled.cu),
 * for their messages and the GEMMKIT_VERBOSE line gk_tc_log writes to stderr:
 *   gemmkit: WHO row|col TT m= n= k= a= b= c=MODE path=PATH DETAIL */
struct gk_tc_call {
    gk_cuda_ctx *ctx;
    const char *who;
    gk_layout layout;
    gk_trans transa, transb;
    int64_t m, n, k;
    gk_format at, bt, ct;
    const char *mode; /* after the types: "", " fp32=3xtf32", " scaling=mx", ... */
};
void gk_tc_log(const gk_tc_call &cl, const char *path, const char *detail);

/* Record a failed CUDA call as GK_ERR_CUDA (GK_ERR_OUT_OF_MEMORY for allocation failures) with
 * CUDA's own text, saying so when the error is a sticky one (the context is unusable), and clear
 * the runtime's non-sticky last error so it cannot be reported twice. */
gk_status gk_cuda_status(const char *who, const char *call, cudaError_t err);

/* 1 for the errors after which the CUDA context stays unusable (a kernel fault: every later call
 * of the process returns the same error), as the runtime's documentation lists them. */
int gk_cuda_is_sticky(cudaError_t err);

/* The checks before a call queues anything (checks.cu): the context is not already in a sticky
 * error state, and each operand the call touches is memory the context's device can access, in
 * an allocation long enough for the extent the call touches. `row_major` names the operands as
 * the caller passed them (the normalised problem swaps A and B). The context's device must be
 * current. */
gk_status gk_cuda_check_call(const gk_cuda_ctx *ctx, const char *who, int row_major,
                             const gk_gemm_args *g);

/* gk_cuda_check_call for operands of other element sizes (bytes per element of the normalised
 * A, B and C), and the check of one more device buffer of `bytes` (a scale factor). */
gk_status gk_cuda_check_call_sized(const gk_cuda_ctx *ctx, const char *who, int row_major,
                                   const gk_gemm_args *g, int a_size, int b_size, int c_size);
gk_status gk_cuda_check_buffer(const gk_cuda_ctx *ctx, const char *who, const char *name,
                               const void *p, int64_t bytes);

/* Make `device` current for the lifetime of the guard and restore the caller's device after, so
 * a gemmkit call never changes which device the calling thread's later CUDA calls go to. */
class gk_device_guard {
  public:
    /* cudaSetDevice even when the device is already the current one: in a thread that has not
     * used CUDA yet cudaGetDevice answers 0 without making device 0's primary context current,
     * and queries that answer for the current context (cudaPointerGetAttributes' devicePointer)
     * would see none. */
    explicit gk_device_guard(int device) {
        err_ = cudaGetDevice(&prev_);
        if (err_ == cudaSuccess) err_ = cudaSetDevice(device);
        changed_ = err_ == cudaSuccess && prev_ != device;
    }
    ~gk_device_guard() {
        if (changed_) cudaSetDevice(prev_);
    }
    cudaError_t error() const { return err_; }
    gk_device_guard(const gk_device_guard &) = delete;
    gk_device_guard &operator=(const gk_device_guard &) = delete;

  private:
    int prev_ = 0;
    bool changed_ = false;
    cudaError_t err_;
};

/* Ensure the context's workspace holds at least `bytes`, ordered on its stream (the previous
 * buffer is released only after work already queued on the stream). */
gk_status gk_cuda_workspace(gk_cuda_ctx *ctx, size_t bytes, const char *who);

/* The kernel gk_cuda_sgemm runs on a device of compute capability `sm` (x10): the default kernel
 * when the device can run it, else the last FP32 (non-tensor-core) kernel it can run; -1 if none.
 */
int gk_cuda_pick_kernel(int sm);

/* The float32 router (kernels.cu), the one rule for where a float32 GEMM (float32 A, B and C, no
 * scales) runs on ctx: in the GK_FP32_3XTF32 mode on tensor cores (*kernel_id =
 * GK_FP32_TENSOR_CORES: gk_cuda_gemm_ex_run with GK_F32 operands), else on the registry kernel
 * gk_cuda_pick_kernel names (*kernel_id, for gk_cuda_sgemm_run), else GK_ERR_UNSUPPORTED ("no FP32
 * kernel supports sm_N"; *kernel_id then means nothing). It decides and runs nothing, so the core
 * calls no entry point: gk_cuda_sgemm_fp32 (src/cuda/api/sgemm.cu) runs its choice for
 * gk_cuda_sgemm and the engines of src/cuda/multi/, and gk_cuda_gemm_ex's own path asks with
 * `tensor_cores` false, after it has declined them for the call, so that nothing comes back to it.
 */
enum { GK_FP32_TENSOR_CORES = -2 };
gk_status gk_cuda_fp32_route(const gk_cuda_ctx *ctx, const char *who, bool tensor_cores,
                             int *kernel_id);

/* gk_cuda_sgemm after its context check (src/cuda/api/sgemm.cu): the float32 router's choice, run;
 * also the float32 tiles of the out-of-core engine and the panels of the distributed one. */
gk_status gk_cuda_sgemm_fp32(gk_cuda_ctx *ctx, const char *who, gk_layout layout, gk_trans transa,
                             gk_trans transb, int64_t m, int64_t n, int64_t k, float alpha,
                             const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                             float *c, int64_t ldc);

/* An SGEMM call after the context check: the argument checks, then registry kernel `kernel_id` on
 * the call (dispatch.cu); `who` names the entry point in messages. The default
 * kernel runs a plan (src/cuda/gemm/plan.h): `force` when not NULL (`gemmkit tune` timing its
 * candidates; one that cannot run the call is GK_ERR_INVALID_VALUE), else the tune cache's entry
 * for the shape when it can run it, else the heuristic's. */
struct gk_sgemm_plan;
gk_status gk_cuda_sgemm_run(gk_cuda_ctx *ctx, int kernel_id, const char *who, gk_layout layout,
                            gk_trans transa, gk_trans transb, int64_t m, int64_t n, int64_t k,
                            float alpha, const float *a, int64_t lda, const float *b, int64_t ldb,
                            float beta, float *c, int64_t ldc,
                            const gk_sgemm_plan *force = nullptr);

/* The plan the default kernel runs for p on ctx (the order of gk_cuda_sgemm_run): force, else the
 * tune cache's entry when it can run p, else the heuristic's; returns where it came from. */
enum { GK_PLAN_FROM_HEURISTIC, GK_PLAN_FROM_CACHE, GK_PLAN_FORCED };
struct gk_rm_problem;
struct gk_plan_ops;
int gk_cuda_sgemm_choose(const gk_cuda_ctx *ctx, const gk_plan_ops &ops, const gk_rm_problem &p,
                         const gk_sgemm_plan *force, gk_sgemm_plan *plan);
const char *gk_cuda_plan_source_name(int source);

/* The tune cache (tune.cu, docs/tuning.md). The build id a cache file must carry: a hash of the
 * library version and the plan vocabulary (tile configurations, plan kinds), so a file written
 * by a build whose plan numbers mean something else is stale. */
const char *gk_cuda_tune_build(void);
/* Fill ctx->tune from the cache file for ctx's device; a missing file is no cache, a bad one is
 * ignored (said on stderr under GEMMKIT_VERBOSE). Never fails the context. */
void gk_cuda_tune_load(gk_cuda_ctx *ctx);
/* The device as the tune cache names it (name into buf, n >= 256 bytes). */
gk_status gk_cuda_tune_device(const gk_cuda_ctx *ctx, char *buf, size_t n, gk_tune_device *dev);

/* gk_cuda_gemm_ex after the context check (src/cuda/api/gemm_ex.cu), for the entry points that
 * share it: float32 calls the router sends to tensor cores run through it with GK_F32 operands. */
gk_status gk_cuda_gemm_ex_run(gk_cuda_ctx *ctx, const char *who, gk_layout layout, gk_trans transa,
                              gk_trans transb, int64_t m, int64_t n, int64_t k, float alpha,
                              gk_format atype, const void *a, int64_t lda, gk_format btype,
                              const void *b, int64_t ldb, float beta, gk_format ctype, void *c,
                              int64_t ldc, const gk_gemm_ex_opts *opts);

/* The checks gk_cuda_gemm_ex makes before the BLAS ones (gemm_ex.cu), for the entry points that
 * mirror it (gk_cuda_gemm_ex_host): the formats (values taken as ints), and one pointer's
 * alignment to its element size. */
gk_status gk_gemm_ex_check_formats(const char *who, int atype, int btype, int ctype);
gk_status gk_gemm_ex_check_aligned(const char *who, const char *name, const void *p, int size);

/* Out-of-core GEMM (ooc.cu). The element types of a call in its normalised (column-major) roles:
 * a, b the normalised A and B (the caller's B and A in a row-major call), c C's; ex: tiles
 * computed by gk_cuda_gemm_ex's path (gk_cuda_gemm_ex_host), else by gk_cuda_sgemm's
 * (gk_cuda_sgemm_host: the defaults). */
struct gk_ooc_types {
    gk_format a = GK_F32, b = GK_F32, c = GK_F32;
    bool ex = false;
};
/* The plan the entry points make for the normalised call g on these contexts under
 * GEMMKIT_CUDA_MEM_LIMIT (or its default): tile mt x nt, K chunk kc (== k when K is not chunked),
 * and the per-context budget in bytes. Tests use it to know which case a shape exercises. */
gk_status gk_ooc_plan(gk_cuda_ctx *const *ctxs, int nctx, const gk_gemm_args &g, int64_t *mt,
                      int64_t *nt, int64_t *kc, int64_t *budget_bytes,
                      const gk_ooc_types &ty = gk_ooc_types());
/* Device bytes one context of that call needs for tiles mt x nt and K chunks of kc (what the
 * plan compares with the budget). */
int64_t gk_ooc_need(const gk_cuda_ctx *ctx, const gk_gemm_args &g, int64_t mt, int64_t nt,
                    int64_t kc, const gk_ooc_types &ty = gk_ooc_types());

/* dst (cols x rows, row-major, leading dimension ld_dst) = transpose of src (rows x cols,
 * row-major, leading dimension ld_src). Returns the launch error. */
cudaError_t gk_cuda_transpose(const float *src, int64_t rows, int64_t cols, int64_t ld_src,
                              float *dst, int64_t ld_dst, cudaStream_t stream);

/* C (column-major m x n, ldc) = beta * C; beta == 0 stores zeros without reading C. */
cudaError_t gk_cuda_scale(float *c, int64_t m, int64_t n, int64_t ldc, float beta,
                          cudaStream_t stream);

/* The same two over a batch of count items (gk_batch_items, src/cuda/gemm/batched.h): item i of
 * the transpose is read at src.at(i) and written at dst + i * dst_stride; item i of C is c.at(i).
 */
template <class T> struct gk_batch_items;
cudaError_t gk_cuda_transpose_batched(gk_batch_items<const float> src, int64_t rows, int64_t cols,
                                      int64_t ld_src, float *dst, int64_t dst_stride,
                                      int64_t ld_dst, int64_t count, cudaStream_t stream);
cudaError_t gk_cuda_scale_batched(gk_batch_items<float> c, int64_t m, int64_t n, int64_t ldc,
                                  float beta, int64_t count, cudaStream_t stream);

#endif
