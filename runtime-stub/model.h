/* @NAME@: a model compiled by mxc (@TARGET@). The C API of the library beside this header.
 *
 * One instance (mxc_model) owns one arena; instances are independent, so two threads may run
 * two instances at once. One instance must not be used from two threads at the same time.
 * Every function that returns mxc_status checks its arguments; on failure
 * @NAME@_last_error(m) says what went wrong. Nothing in the library aborts or prints.
 */
#ifndef MXC_API_TYPES_DEFINED
#define MXC_API_TYPES_DEFINED
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define MXC_API __attribute__((visibility("default")))
#else
#define MXC_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mxc_model mxc_model;

typedef enum mxc_status {
    MXC_OK = 0,
    MXC_ERROR_INVALID_ARGUMENT = 1,
    MXC_ERROR_OUT_OF_MEMORY = 2,
    MXC_ERROR_DEVICE = 3,
    MXC_ERROR_INTERNAL = 4
} mxc_status;

/* The order of mxc's dtypes. The low-precision types (13 and up) take ONE BYTE per element in
 * every buffer of this API, unpacked: float8 and float4 keep their bit pattern in the low bits,
 * int4/int2 their value sign-extended to int8, uint4/uint2 their value. (ONNX packs 4-bit
 * types two per byte and 2-bit types four per byte; unpack before passing them in.) */
typedef enum mxc_dtype {
    MXC_FLOAT32 = 0,
    MXC_FLOAT16 = 1,
    MXC_BFLOAT16 = 2,
    MXC_FLOAT64 = 3,
    MXC_INT8 = 4,
    MXC_INT16 = 5,
    MXC_INT32 = 6,
    MXC_INT64 = 7,
    MXC_UINT8 = 8,
    MXC_UINT16 = 9,
    MXC_UINT32 = 10,
    MXC_UINT64 = 11,
    MXC_BOOL = 12,
    MXC_FLOAT8E4M3FN = 13,
    MXC_FLOAT8E4M3FNUZ = 14,
    MXC_FLOAT8E5M2 = 15,
    MXC_FLOAT8E5M2FNUZ = 16,
    MXC_FLOAT8E8M0 = 17,
    MXC_FLOAT4E2M1 = 18,
    MXC_INT4 = 19,
    MXC_UINT4 = 20,
    MXC_INT2 = 21,
    MXC_UINT2 = 22
} mxc_dtype;

typedef struct mxc_tensor_info {
    const char* name;
    mxc_dtype dtype;
    size_t rank;
    int64_t dims[8];
    int64_t strides[8]; /* in elements */
    size_t bytes;       /* the size of the buffer the caller passes */
} mxc_tensor_info;

/* Pass NULL to create for all defaults (all zero). */
typedef struct mxc_options {
    int device;          /* GPU number (hip); must be 0 for cpu */
    int device_pointers; /* 0: inputs/outputs are host pointers (copied in and out by run);
                            1: they are device pointers (hip) */
    void* stream;        /* hipStream_t / cudaStream_t to run on; NULL: the instance's own */
    void* workspace;     /* caller memory for the arena (device memory for hip), 256-byte
                            aligned, at least <name>_workspace_bytes(); NULL: allocated */
    size_t workspace_bytes;
    int no_graph;        /* hip: 1 launches the kernels one by one on every run instead of
                            replaying the run captured as a graph (also: environment variable
                            MXC_NO_GRAPH=1); 0 (default): graphs. cpu: ignored. (ABI 2) */
} mxc_options;

#ifdef __cplusplus
}
#endif
#endif /* MXC_API_TYPES_DEFINED */

#ifndef @NAME_UPPER@_MXC_H
#define @NAME_UPPER@_MXC_H

/* Bytes of the arena (working memory) of one instance. */
#define @NAME_UPPER@_WORKSPACE_BYTES ((size_t)@WORKSPACE_BYTES@)
#define @NAME_UPPER@_NUM_INPUTS ((size_t)@NUM_INPUTS@)
#define @NAME_UPPER@_NUM_OUTPUTS ((size_t)@NUM_OUTPUTS@)

#ifdef __cplusplus
extern "C" {
#endif

/* Creates an instance. On failure *out is an instance that only reports the error through
   @NAME@_last_error and must be destroyed, or NULL when even that could not be allocated. */
MXC_API mxc_status @NAME@_create(mxc_model** out, const mxc_options* opts);
MXC_API void @NAME@_destroy(mxc_model* m); /* NULL is fine */
/* cpu: the number of threads run uses (the caller's thread and threads - 1 workers that m
   owns, started here and joined by destroy or the next call); 0: one per core the calling
   thread may run on. Default 1: instances may run side by side on the caller's threads (one
   per thread), where more would oversubscribe the cores; ask for more when one instance runs
   at a time. Results do not depend on the count. Linux: with as many threads as the CPUs the
   calling thread may run on (0, say), worker i is bound to the i-th of them (the caller's
   thread is not bound). Between the kernels of a run, and for up to 200 us after it, the
   workers spin rather than sleep (so that none starts a kernel late); then they block.
   Not while m runs. hip: accepted and ignored. */
MXC_API mxc_status @NAME@_set_num_threads(mxc_model* m, int threads);
MXC_API size_t @NAME@_num_inputs(const mxc_model* m);  /* m may be NULL */
MXC_API size_t @NAME@_num_outputs(const mxc_model* m); /* m may be NULL */
MXC_API mxc_status @NAME@_input_info(const mxc_model* m, size_t i, mxc_tensor_info* info);
MXC_API mxc_status @NAME@_output_info(const mxc_model* m, size_t i, mxc_tensor_info* info);
/* Runs the model: inputs[i] and outputs[j] point at buffers laid out as the infos say; returns
   when the outputs are written. hip: host buffers, or device buffers with
   options.device_pointers = 1. The first run (and the first with a new set of buffer
   addresses: a few sets are kept) records the run as a HIP graph; the others replay it with
   one launch, on the instance's stream (options.stream, or one the instance owns). */
MXC_API mxc_status @NAME@_run(mxc_model* m, const void* const* inputs, void* const* outputs);
/* hip: enqueues the run on `stream` (a hipStream_t / cudaStream_t; NULL: the instance's
   stream) and returns without waiting; synchronise the stream before reading the outputs.
   The inputs must stay unchanged and all buffers alive until then; with host buffers
   (offload mode) the copies are asynchronous only from pinned memory (hipHostMalloc /
   cudaMallocHost); pageable memory makes them wait on the host. Runs of one instance share
   its arena: do not let two of them overlap (enqueue them on one stream, or synchronise in
   between). A status other than MXC_OK may also report an earlier run's failure.
   cpu: `stream` must be NULL; runs synchronously. */
MXC_API mxc_status @NAME@_run_async(mxc_model* m, const void* const* inputs, void* const* outputs, void* stream);
MXC_API size_t @NAME@_workspace_bytes(void);
/* What built this library: the mxc version, the C API (ABI) version, the target and the
   compiler command. Libraries built with --profile-hooks / --debug-trace also export
   @NAME@_num_kernels, @NAME@_kernel_info, @NAME@_graph_stats, @NAME@_profile,
   @NAME@_time_runs and @NAME@_debug_run (see mxc's runtime-stub/tools_api.hpp); mxc perf
   and mxc run use them. */
MXC_API const char* @NAME@_build_info(void);
/* The message of the last failure of m ("" if none); a fixed message when m is NULL. */
MXC_API const char* @NAME@_last_error(const mxc_model* m);

#ifdef __cplusplus
}
#endif
#endif /* @NAME_UPPER@_MXC_H */
