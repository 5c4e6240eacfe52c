// The runtime stub: the C API of a generated library. Included once, at the end of the
// generated model source, which defines before it:
//   MXC_FN(x)                the exported name of API function x (prefix_##x)
//   MXC_TARGET_HIP           (hip builds only)
//   namespace mxc_gen { arena_bytes, weights_bytes, num_inputs, num_outputs, input_infos,
//                       output_infos, weights (host pointer to the blob), run_kernels(...),
//                       build_info, and kernel_table in profiling / debug-trace builds }
// No global mutable state: everything lives in the instance. Nothing aborts or prints.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if !defined(MXC_TARGET_HIP)
#include "runtime-stub/thread_pool.hpp"
#endif

#if defined(MXC_TARGET_HIP)
#include "templates/hip/common.hpp" // zero_words
namespace mxc_rt {
// One run captured as a HIP graph and instantiated: replayed by one hipGraphLaunch on any
// stream. The pointers that the capture baked in are its key: the inputs and outputs as run
// passed them (host pointers when the copies are in the graph, else device pointers).
struct graph_entry {
    hipGraphExec_t exec; // NULL: a free slot
    int copies;          // the graph holds offload mode's copies in and out
    const void* in[mxc_gen::num_inputs + 1];
    void* out[mxc_gen::num_outputs + 1];
    unsigned long long used; // for least-recently-used replacement
};
enum { graph_slots = 4 };
} // namespace mxc_rt
#endif

struct mxc_model {
    char error[512];
    int failed;             // create failed: the instance only reports why
    char* arena;            // 256-byte aligned (device memory for hip)
    int own_arena;
    const char* weights;    // the blob (a device copy for hip)
#if defined(MXC_TARGET_HIP)
    int device;
    int device_pointers;
    hipStream_t stream;     // runs go here unless run_async names another stream
    int own_stream;
    char* staged[mxc_gen::num_inputs + mxc_gen::num_outputs + 1]; // offload copy buffers
    // graphs: 1 while runs replay captured graphs; 0 after no_graph / MXC_NO_GRAPH, or once a
    // capture failed (the kernels are then launched one by one, as with profiling hooks).
    int graphs;
    int graph_copies;          // offload mode: capture the copies too (0 once that failed)
    hipStream_t capture_stream; // private to the instance: nothing else can join a capture
    mxc_rt::graph_entry graph[mxc_rt::graph_slots];
    unsigned long long clock;   // graph_entry::used
    size_t captures, replays, direct_runs; // counters, for tests (<name>_graph_stats)
#else
    mxc_rt::thread_pool* pool; // NULL: one thread (set_num_threads)
#endif
};

namespace mxc_rt {

static mxc_status fail(mxc_model* m, mxc_status s, const char* fmt, ...) {
    if (m) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(m->error, sizeof m->error, fmt, ap);
        va_end(ap);
    }
    return s;
}

static mxc_status check_model(const mxc_model* m) {
    if (!m) return MXC_ERROR_INVALID_ARGUMENT;
    if (m->failed) return fail(const_cast<mxc_model*>(m), MXC_ERROR_INVALID_ARGUMENT,
                               "this instance failed to create and cannot be used");
    return MXC_OK;
}

static mxc_status tensor_info(const mxc_model* m, size_t i, mxc_tensor_info* info, const mxc_tensor_info* table,
                              size_t n, const char* what) {
    if (!m) return MXC_ERROR_INVALID_ARGUMENT;
    mxc_model* mm = const_cast<mxc_model*>(m);
    if (!info) return fail(mm, MXC_ERROR_INVALID_ARGUMENT, "%s_info: info is NULL", what);
    if (i >= n) return fail(mm, MXC_ERROR_INVALID_ARGUMENT, "%s_info: index %zu is out of range (the model has %zu %ss)",
                            what, i, n, what);
    *info = table[i];
    return MXC_OK;
}

#if defined(MXC_TARGET_HIP)
// Makes `device` current for the lifetime of the guard, then restores the caller's device
// (two cheap calls when it already is current).
struct device_guard {
    int previous = -1;
    hipError_t status = hipSuccess;
    explicit device_guard(int device) {
        if (hipGetDevice(&previous) != hipSuccess) previous = -1;
        if (previous == device) previous = -1;
        else status = hipSetDevice(device);
    }
    ~device_guard() {
        if (previous >= 0) (void)hipSetDevice(previous);
    }
};

static mxc_status device_fail(mxc_model* m, hipError_t e, const char* what) {
    return fail(m, e == hipErrorOutOfMemory ? MXC_ERROR_OUT_OF_MEMORY : MXC_ERROR_DEVICE, "%s: %s", what,
                hipGetErrorString(e));
}

static void release(mxc_model* m) {
    device_guard g(m->device);
    for (graph_entry& e : m->graph)
        if (e.exec) (void)hipGraphExecDestroy(e.exec);
    if (m->capture_stream && m->capture_stream != m->stream) (void)hipStreamDestroy(m->capture_stream);
    if (m->stream && m->own_stream) (void)hipStreamDestroy(m->stream);
    if (m->arena && m->own_arena) (void)hipFree(m->arena);
    if (m->weights) (void)hipFree(const_cast<char*>(m->weights));
    for (size_t i = 0; i < mxc_gen::num_inputs + mxc_gen::num_outputs; ++i)
        if (m->staged[i]) (void)hipFree(m->staged[i]);
}

static mxc_status setup(mxc_model* m, const mxc_options& o) {
    int count = 0;
    hipError_t e = hipGetDeviceCount(&count);
    if (e != hipSuccess) return device_fail(m, e, "create: no usable GPU");
    if (o.device < 0 || o.device >= count)
        return fail(m, MXC_ERROR_INVALID_ARGUMENT, "create: device %d does not exist (%d GPUs found)", o.device, count);
    if (o.device_pointers != 0 && o.device_pointers != 1)
        return fail(m, MXC_ERROR_INVALID_ARGUMENT, "create: device_pointers must be 0 or 1, got %d", o.device_pointers);
    m->device = o.device;
    m->device_pointers = o.device_pointers;
    const char* no_graph = getenv("MXC_NO_GRAPH");
    m->graphs = !o.no_graph && !(no_graph && atoi(no_graph) > 0);
    m->graph_copies = 1;
    device_guard g(m->device);
    if (g.status != hipSuccess) return device_fail(m, g.status, "create: cannot select the device");
    if (o.stream) {
        m->stream = static_cast<hipStream_t>(o.stream);
    } else {
        if ((e = hipStreamCreateWithFlags(&m->stream, hipStreamNonBlocking)) != hipSuccess)
            return device_fail(m, e, "create: cannot create a stream");
        m->own_stream = 1;
    }
    if (m->graphs) {
        // The caller's stream may be used by others at the same time: capture on our own.
        if (m->own_stream) m->capture_stream = m->stream;
        else if (hipStreamCreateWithFlags(&m->capture_stream, hipStreamNonBlocking) != hipSuccess)
            m->graphs = 0, m->capture_stream = nullptr;
    }
    if (!m->arena && mxc_gen::arena_bytes > 0) {
        if ((e = hipMalloc(reinterpret_cast<void**>(&m->arena), mxc_gen::arena_bytes)) != hipSuccess)
            return device_fail(m, e, "create: cannot allocate the arena");
        m->own_arena = 1;
        // split-K's tile counters, zero once: every split launch leaves them so (done before
        // create returns: a run on another stream is not ordered after the instance's)
        if (mxc_gen::split_counters >= 0 &&
            ((e = hipMemsetAsync(m->arena + mxc_gen::split_counters, 0, mxc_gen::split_counter_bytes, m->stream)) != hipSuccess ||
             (e = hipStreamSynchronize(m->stream)) != hipSuccess))
            return device_fail(m, e, "create: cannot clear the arena");
    }
    if (mxc_gen::weights_bytes > 0) {
        void* w = nullptr;
        if ((e = hipMalloc(&w, mxc_gen::weights_bytes)) != hipSuccess)
            return device_fail(m, e, "create: cannot allocate the weights");
        m->weights = static_cast<const char*>(w);
        if ((e = hipMemcpy(w, mxc_gen::weights, mxc_gen::weights_bytes, hipMemcpyHostToDevice)) != hipSuccess)
            return device_fail(m, e, "create: cannot copy the weights to the device");
    }
    if (!m->device_pointers) {
        for (size_t i = 0; i < mxc_gen::num_inputs + mxc_gen::num_outputs; ++i) {
            size_t bytes = i < mxc_gen::num_inputs ? mxc_gen::input_infos[i].bytes
                                                   : mxc_gen::output_infos[i - mxc_gen::num_inputs].bytes;
            if ((e = hipMalloc(reinterpret_cast<void**>(&m->staged[i]), bytes ? bytes : 1)) != hipSuccess)
                return device_fail(m, e, "create: cannot allocate the input/output copies");
        }
    }
    return MXC_OK;
}

static hipError_t copy_in(mxc_model* m, const void* const* inputs, hipStream_t stream) {
    for (size_t i = 0; i < mxc_gen::num_inputs; ++i)
        if (size_t bytes = mxc_gen::input_infos[i].bytes)
            if (hipError_t e = hipMemcpyAsync(m->staged[i], inputs[i], bytes, hipMemcpyHostToDevice, stream)) return e;
    return hipSuccess;
}

static hipError_t copy_out(mxc_model* m, void* const* outputs, hipStream_t stream) {
    for (size_t j = 0; j < mxc_gen::num_outputs; ++j)
        if (size_t bytes = mxc_gen::output_infos[j].bytes)
            if (hipError_t e = hipMemcpyAsync(outputs[j], m->staged[mxc_gen::num_inputs + j], bytes, hipMemcpyDeviceToHost,
                                              stream))
                return e;
    return hipSuccess;
}

// Enqueues one run on `stream` kernel by kernel: with `copies`, inputs and outputs are host
// pointers, copied through the instance's device buffers.
static hipError_t enqueue(mxc_model* m, const void* const* inputs, void* const* outputs, mxc_hooks* h,
                          hipStream_t stream, bool copies, const char** what) {
    const void* in[mxc_gen::num_inputs + 1];
    void* out[mxc_gen::num_outputs + 1];
    for (size_t i = 0; i < mxc_gen::num_inputs; ++i) in[i] = copies ? m->staged[i] : inputs[i];
    for (size_t j = 0; j < mxc_gen::num_outputs; ++j) out[j] = copies ? m->staged[mxc_gen::num_inputs + j] : outputs[j];
    hipError_t e;
    *what = "run: cannot copy an input to the device";
    if (copies && (e = copy_in(m, inputs, stream)) != hipSuccess) return e;
#if defined(MXC_PROFILE) || defined(MXC_DEBUG_TRACE)
    if (h) h->stream = stream;
#endif
    // a caller's workspace may have held anything since the last run: split-K's tile counters
    // are cleared first (the instance's own arena keeps them zero from create on)
    if (mxc_gen::split_counters >= 0 && !m->own_arena)
        mxc::hip::zero_words(m->arena + mxc_gen::split_counters, mxc_gen::split_counter_bytes, stream);
    mxc_gen::run_kernels(m->arena, m->weights, in, out, h, stream);
    *what = "run: a kernel failed to launch";
    if ((e = hipGetLastError()) != hipSuccess) return e;
    *what = "run: cannot copy an output from the device";
    if (copies && (e = copy_out(m, outputs, stream)) != hipSuccess) return e;
    return hipSuccess;
}

// The graph captured for these pointers, if any.
static graph_entry* find_graph(mxc_model* m, const void* const* inputs, void* const* outputs, bool copies) {
    for (graph_entry& g : m->graph) {
        bool hit = g.exec && g.copies == copies;
        for (size_t i = 0; hit && i < mxc_gen::num_inputs; ++i) hit = g.in[i] == inputs[i];
        for (size_t j = 0; hit && j < mxc_gen::num_outputs; ++j) hit = g.out[j] == outputs[j];
        if (hit) {
            g.used = ++m->clock;
            return &g;
        }
    }
    return nullptr;
}

// Captures one run for these pointers on the instance's private stream and instantiates it,
// into the least recently used slot; NULL when that failed (nothing ran).
static graph_entry* capture(mxc_model* m, const void* const* inputs, void* const* outputs, bool copies) {
    hipGraph_t graph = nullptr;
    hipGraphExec_t exec = nullptr;
    const char* what;
    hipError_t e = hipStreamBeginCapture(m->capture_stream, hipStreamCaptureModeThreadLocal);
    if (e == hipSuccess) {
        hipError_t r = enqueue(m, inputs, outputs, nullptr, m->capture_stream, copies, &what);
        e = hipStreamEndCapture(m->capture_stream, &graph); // ends a failed capture as well
        if (r != hipSuccess) e = r;
    }
    if (e == hipSuccess) e = hipGraphInstantiateWithFlags(&exec, graph, 0);
    if (graph) (void)hipGraphDestroy(graph);
    if (e != hipSuccess) {
        (void)hipGetLastError(); // the capture's error is not the run's
        return nullptr;
    }
    graph_entry* g = &m->graph[0];
    for (graph_entry& s : m->graph)
        if (!s.exec || (g->exec && s.used < g->used)) g = &s;
    if (g->exec) (void)hipGraphExecDestroy(g->exec);
    g->exec = exec;
    g->copies = copies;
    for (size_t i = 0; i < mxc_gen::num_inputs; ++i) g->in[i] = inputs[i];
    for (size_t j = 0; j < mxc_gen::num_outputs; ++j) g->out[j] = outputs[j];
    g->used = ++m->clock;
    m->captures++;
    return g;
}

// A capture costs more than a run launched kernel by kernel: when most runs miss the cache
// (pointers that keep changing), capture no more until replays catch up.
static bool thrashing(const mxc_model* m) { return m->captures >= 2 * graph_slots && m->captures * 4 > m->replays; }

// Replays the run as a graph; false (nothing enqueued) when no graph is used this time. In
// offload mode the copies are in the graph (keyed on the host pointers) unless capturing them
// failed or the host pointers keep changing; then they go around one graph of the kernels.
static bool replay(mxc_model* m, const void* const* inputs, void* const* outputs, hipStream_t stream, bool copies,
                   hipError_t* e, const char** what) {
    graph_entry* g = nullptr;
    if (copies && m->graph_copies && !(g = find_graph(m, inputs, outputs, true)))
        if (thrashing(m) || !(g = capture(m, inputs, outputs, true))) m->graph_copies = 0;
    bool around = copies && !g;
    if (!g) {
        const void* in[mxc_gen::num_inputs + 1];
        void* out[mxc_gen::num_outputs + 1];
        for (size_t i = 0; i < mxc_gen::num_inputs; ++i) in[i] = copies ? m->staged[i] : inputs[i];
        for (size_t j = 0; j < mxc_gen::num_outputs; ++j) out[j] = copies ? m->staged[mxc_gen::num_inputs + j] : outputs[j];
        if (!(g = find_graph(m, in, out, false))) {
            if (!copies && thrashing(m)) return false;
            if (!(g = capture(m, in, out, false))) {
                m->graphs = 0; // capture does not work here: launch kernel by kernel from now on
                return false;
            }
        }
    }
    *what = "run: cannot copy an input to the device";
    if (around && (*e = copy_in(m, inputs, stream)) != hipSuccess) return true;
    *what = "run: cannot launch the graph";
    if ((*e = hipGraphLaunch(g->exec, stream)) != hipSuccess) return true;
    *what = "run: cannot copy an output from the device";
    if (around && (*e = copy_out(m, outputs, stream)) != hipSuccess) return true;
    m->replays++;
    return true;
}

// One run on `stream` (NULL: the instance's); `copies`: inputs and outputs are host memory.
// Waits for it unless `sync` is false. Hooks (profiling, tracing) need the kernels one by one.
static mxc_status execute(mxc_model* m, const void* const* inputs, void* const* outputs, mxc_hooks* h,
                          hipStream_t stream, bool copies, bool sync) {
    device_guard g(m->device);
    if (g.status != hipSuccess) return device_fail(m, g.status, "run: cannot select the device");
    if (!stream) stream = m->stream;
    hipError_t e = hipSuccess;
    const char* what = "run";
    if (h || !m->graphs || !replay(m, inputs, outputs, stream, copies, &e, &what)) {
        e = enqueue(m, inputs, outputs, h, stream, copies, &what);
        m->direct_runs++;
    }
    if (e != hipSuccess) return device_fail(m, e, what);
    if (sync && (e = hipStreamSynchronize(stream)) != hipSuccess) return device_fail(m, e, "run");
    return MXC_OK;
}

static mxc_status execute(mxc_model* m, const void* const* inputs, void* const* outputs, mxc_hooks* h) {
    return execute(m, inputs, outputs, h, nullptr, !m->device_pointers, true);
}
#else
static void release(mxc_model* m) {
    if (m->own_arena) free(m->arena);
    delete m->pool;
    m->pool = nullptr;
}

static mxc_status set_threads(mxc_model* m, int threads) {
    if (threads < 0 || threads > 1024)
        return fail(m, MXC_ERROR_INVALID_ARGUMENT, "set_num_threads: %d threads (want 0 for all cores, or 1 to 1024)",
                    threads);
    if (threads == 0) threads = static_cast<int>(thread_pool::allowed_cpus().size()); // (the ones this thread may use)
    if (threads == 0) threads = static_cast<int>(std::thread::hardware_concurrency());
    if (threads < 1) threads = 1;
    delete m->pool;
    m->pool = nullptr;
    if (threads == 1) return MXC_OK;
    m->pool = new (std::nothrow) thread_pool;
    if (!m->pool) return fail(m, MXC_ERROR_OUT_OF_MEMORY, "set_num_threads: out of memory");
    if (!m->pool->start(threads)) {
        delete m->pool;
        m->pool = nullptr;
        return fail(m, MXC_ERROR_OUT_OF_MEMORY, "set_num_threads: cannot start %d threads (one thread is used)", threads);
    }
    return MXC_OK;
}

static mxc_status setup(mxc_model* m, const mxc_options& o) {
    if (o.device != 0) return fail(m, MXC_ERROR_INVALID_ARGUMENT, "create: device must be 0 for a cpu model, got %d", o.device);
    if (o.device_pointers != 0 && o.device_pointers != 1)
        return fail(m, MXC_ERROR_INVALID_ARGUMENT, "create: device_pointers must be 0 or 1, got %d", o.device_pointers);
    if (o.stream) return fail(m, MXC_ERROR_INVALID_ARGUMENT, "create: a cpu model takes no stream");
    m->weights = mxc_gen::weights;
    if (!m->arena && mxc_gen::arena_bytes > 0) {
        m->arena = static_cast<char*>(aligned_alloc(256, (mxc_gen::arena_bytes + 255) / 256 * 256));
        if (!m->arena) return fail(m, MXC_ERROR_OUT_OF_MEMORY, "create: cannot allocate the arena (%zu bytes)",
                                   mxc_gen::arena_bytes);
        m->own_arena = 1;
    }
    return MXC_OK;
}

static mxc_status execute(mxc_model* m, const void* const* inputs, void* const* outputs, mxc_hooks* h) {
    // the kernels of this run (on this thread) split their work over m's pool
    const mxc::cpu::pool_iface*& current = mxc::cpu::current_pool();
    const mxc::cpu::pool_iface* outer = current;
    current = m->pool ? &m->pool->iface : nullptr;
    mxc_gen::run_kernels(m->arena, m->weights, inputs, outputs, h);
    current = outer;
    return MXC_OK;
}
#endif

} // namespace mxc_rt

extern "C" {

MXC_API mxc_status MXC_FN(create)(mxc_model** out, const mxc_options* opts) {
    if (!out) return MXC_ERROR_INVALID_ARGUMENT;
    *out = static_cast<mxc_model*>(calloc(1, sizeof(mxc_model)));
    mxc_model* m = *out;
    if (!m) return MXC_ERROR_OUT_OF_MEMORY;
    mxc_options o;
    memset(&o, 0, sizeof o);
    if (opts) o = *opts;
    mxc_status s = MXC_OK;
    if (o.workspace) {
        if (o.workspace_bytes < mxc_gen::arena_bytes)
            s = mxc_rt::fail(m, MXC_ERROR_INVALID_ARGUMENT, "create: the workspace has %zu bytes, the model needs %zu",
                             o.workspace_bytes, mxc_gen::arena_bytes);
        else if (reinterpret_cast<uintptr_t>(o.workspace) % 256 != 0)
            s = mxc_rt::fail(m, MXC_ERROR_INVALID_ARGUMENT, "create: the workspace must be 256-byte aligned");
        m->arena = static_cast<char*>(o.workspace);
    } else if (o.workspace_bytes) {
        s = mxc_rt::fail(m, MXC_ERROR_INVALID_ARGUMENT, "create: workspace_bytes is set but workspace is NULL");
    }
    if (s == MXC_OK && o.no_graph != 0 && o.no_graph != 1)
        s = mxc_rt::fail(m, MXC_ERROR_INVALID_ARGUMENT,
                         "create: no_graph must be 0 or 1, got %d (an mxc_options from before ABI 2, without no_graph?)",
                         o.no_graph);
    if (s == MXC_OK) s = mxc_rt::setup(m, o);
    if (s != MXC_OK) {
        mxc_rt::release(m);
        m->arena = nullptr;
        m->own_arena = 0;
        m->failed = 1;
    }
    return s;
}

MXC_API void MXC_FN(destroy)(mxc_model* m) {
    if (!m) return;
    if (!m->failed) mxc_rt::release(m);
    free(m);
}

MXC_API mxc_status MXC_FN(set_num_threads)(mxc_model* m, int threads) {
    if (mxc_status s = mxc_rt::check_model(m)) return s;
#if defined(MXC_TARGET_HIP)
    (void)threads;
    return MXC_OK;
#else
    return mxc_rt::set_threads(m, threads);
#endif
}

MXC_API size_t MXC_FN(num_inputs)(const mxc_model*) { return mxc_gen::num_inputs; }
MXC_API size_t MXC_FN(num_outputs)(const mxc_model*) { return mxc_gen::num_outputs; }
MXC_API size_t MXC_FN(workspace_bytes)(void) { return mxc_gen::arena_bytes; }

MXC_API mxc_status MXC_FN(input_info)(const mxc_model* m, size_t i, mxc_tensor_info* info) {
    return mxc_rt::tensor_info(m, i, info, mxc_gen::input_infos, mxc_gen::num_inputs, "input");
}

MXC_API mxc_status MXC_FN(output_info)(const mxc_model* m, size_t i, mxc_tensor_info* info) {
    return mxc_rt::tensor_info(m, i, info, mxc_gen::output_infos, mxc_gen::num_outputs, "output");
}

// Checks the arguments of run (and of the profiling / debug entry points).
static mxc_status check_run(mxc_model* m, const void* const* inputs, void* const* outputs) {
    if (mxc_status s = mxc_rt::check_model(m)) return s;
    m->error[0] = 0;
    if (mxc_gen::num_inputs && !inputs) return mxc_rt::fail(m, MXC_ERROR_INVALID_ARGUMENT, "run: inputs is NULL");
    if (mxc_gen::num_outputs && !outputs) return mxc_rt::fail(m, MXC_ERROR_INVALID_ARGUMENT, "run: outputs is NULL");
    for (size_t i = 0; i < mxc_gen::num_inputs; ++i)
        if (!inputs[i] && mxc_gen::input_infos[i].bytes)
            return mxc_rt::fail(m, MXC_ERROR_INVALID_ARGUMENT, "run: input %zu ('%s') is NULL", i, mxc_gen::input_infos[i].name);
    for (size_t j = 0; j < mxc_gen::num_outputs; ++j)
        if (!outputs[j] && mxc_gen::output_infos[j].bytes)
            return mxc_rt::fail(m, MXC_ERROR_INVALID_ARGUMENT, "run: output %zu ('%s') is NULL", j, mxc_gen::output_infos[j].name);
    return MXC_OK;
}

MXC_API mxc_status MXC_FN(run)(mxc_model* m, const void* const* inputs, void* const* outputs) {
    if (mxc_status s = check_run(m, inputs, outputs)) return s;
#if defined(MXC_DEBUG_TRACE)
    const char* level = getenv("MXC_TRACE_EVAL");
    if (level && atoi(level) > 0) {
        mxc_hooks h;
        memset(&h, 0, sizeof h);
        h.trace = atoi(level);
        mxc_status s = mxc_rt::execute(m, inputs, outputs, &h);
        free(h.host);
        return s;
    }
#endif
    return mxc_rt::execute(m, inputs, outputs, nullptr);
}

MXC_API mxc_status MXC_FN(run_async)(mxc_model* m, const void* const* inputs, void* const* outputs, void* stream) {
    if (mxc_status s = check_run(m, inputs, outputs)) return s;
#if defined(MXC_TARGET_HIP)
    return mxc_rt::execute(m, inputs, outputs, nullptr, static_cast<hipStream_t>(stream), !m->device_pointers, false);
#else
    if (stream) return mxc_rt::fail(m, MXC_ERROR_INVALID_ARGUMENT, "run_async: a cpu model takes no stream (pass NULL)");
    return mxc_rt::execute(m, inputs, outputs, nullptr);
#endif
}

MXC_API const char* MXC_FN(build_info)(void) { return mxc_gen::build_info; }

MXC_API const char* MXC_FN(last_error)(const mxc_model* m) {
    if (!m) return "the model handle is NULL (create failed to allocate, or NULL was passed)";
    return m->error;
}

} // extern "C"

#if defined(MXC_PROFILE) || defined(MXC_DEBUG_TRACE)
#include "runtime-stub/tools_api.hpp"
#endif
