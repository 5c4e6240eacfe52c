// The host SIMT emulator of the HIP runtime (--offload-arch emu): the hip sources mxc
// generates (templates/hip, runtime-stub with MXC_TARGET_HIP) compiled by the host C++
// compiler against this header instead of ROCm's, and run on the CPU. A test tool: it models
// what kernels may rely on, and reports what they must not do, instead of being fast.
//
// What is modelled (see the comments of each part):
// - A kernel launch runs its blocks one after another on the calling OS thread. Inside a block
//   every GPU thread is a fiber (ucontext) scheduled round-robin: __syncthreads parks a fiber
//   until every thread of the block arrived; warp operations (__shfl*, __ballot, __any,
//   __all, __syncwarp) park until every lane of the warp arrived, then exchange values.
// - warpSize is 32, or 64 (AMD's wavefront) with MXC_EMU_WARP=64 in the environment.
// - Barrier divergence (a thread exits while others wait at a barrier or a warp operation,
//   reaches one after another thread exited, or waits at a different barrier or warp
//   operation than the others; or nothing can run while threads wait) fails the launch like a
//   GPU fault: one line on stderr, a sticky hipErrorLaunchFailure returned by hipGetLastError /
//   hipStreamSynchronize / every later call (hipDeviceReset clears it). Never a hang.
// - A block of more than 1024 threads (or a zero dimension) is hipErrorInvalidConfiguration.
// - Device memory is host memory; streams execute in order at once; events take real times.
// - Stream capture records launches, copies, memsets and event records into a graph instead
//   of running them; hipGraphLaunch replays the records.
// Header-only: the state is in inline variables, so each library has its own "device".
#pragma once

#define MXC_HIP_EMU 1

// Only C headers and <new>/<type_traits>: the emulator is included by every generated unit,
// and the standard containers would triple their compile time.
#include <math.h>
#include <new>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <type_traits>
#include <ucontext.h>

// ---- Function and variable qualifiers: everything is host code. __shared__ memory is one
// object per OS thread; the blocks running on one OS thread run one after another, so each
// block has it to itself while it runs (its contents at block start are undefined, as on a GPU).
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __shared__ static thread_local
#define __constant__
#define __launch_bounds__(...)

// ---- Errors (HIP's numbering).
enum hipError_t {
    hipSuccess = 0,
    hipErrorInvalidValue = 1,
    hipErrorOutOfMemory = 2,
    hipErrorMemoryAllocation = 2,
    hipErrorNotInitialized = 3,
    hipErrorInvalidConfiguration = 9,
    hipErrorNoDevice = 100,
    hipErrorInvalidDevice = 101,
    hipErrorInvalidResourceHandle = 400,
    hipErrorInvalidHandle = 400,
    hipErrorIllegalState = 401,
    hipErrorNotReady = 600,
    hipErrorLaunchFailure = 719,
    hipErrorStreamCaptureUnsupported = 900,
    hipErrorStreamCaptureInvalidated = 901,
    hipErrorStreamCaptureImplicit = 906,
    hipErrorUnknown = 999,
};

enum hipMemcpyKind {
    hipMemcpyHostToHost = 0,
    hipMemcpyHostToDevice = 1,
    hipMemcpyDeviceToHost = 2,
    hipMemcpyDeviceToDevice = 3,
    hipMemcpyDefault = 4,
};

enum hipStreamCaptureMode { hipStreamCaptureModeGlobal = 0, hipStreamCaptureModeThreadLocal = 1, hipStreamCaptureModeRelaxed = 2 };
enum hipStreamCaptureStatus { hipStreamCaptureStatusNone = 0, hipStreamCaptureStatusActive = 1, hipStreamCaptureStatusInvalidated = 2 };

#define hipStreamDefault 0x0u
#define hipStreamNonBlocking 0x1u
#define hipEventDefault 0x0u
#define hipDeviceScheduleAuto 0x0u

// ---- Launch geometry. threadIdx..gridDim are the running fiber's (set by the scheduler).
struct uint3 {
    unsigned x, y, z;
};
struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};
inline thread_local uint3 threadIdx{0, 0, 0};
inline thread_local uint3 blockIdx{0, 0, 0};
inline thread_local uint3 blockDim{1, 1, 1};
inline thread_local uint3 gridDim{1, 1, 1};

#define hipThreadIdx_x threadIdx.x
#define hipThreadIdx_y threadIdx.y
#define hipThreadIdx_z threadIdx.z
#define hipBlockIdx_x blockIdx.x
#define hipBlockIdx_y blockIdx.y
#define hipBlockIdx_z blockIdx.z
#define hipBlockDim_x blockDim.x
#define hipBlockDim_y blockDim.y
#define hipBlockDim_z blockDim.z
#define hipGridDim_x gridDim.x
#define hipGridDim_y gridDim.y
#define hipGridDim_z gridDim.z
#define HIP_KERNEL_NAME(...) __VA_ARGS__

// Opaque handles.
struct ihipStream_t;
struct ihipEvent_t;
struct ihipGraph_t;
struct ihipGraphExec_t;
struct ihipGraphNode_t;
typedef ihipStream_t* hipStream_t;
typedef ihipEvent_t* hipEvent_t;
typedef ihipGraph_t* hipGraph_t;
typedef ihipGraphExec_t* hipGraphExec_t;
typedef ihipGraphNode_t* hipGraphNode_t;

namespace mxc_emu {

// The vector accesses kernels made in this process (templates/hip/common.hpp's
// check_vector_aligned counts each): a test sees by it which path a kernel took.
inline uint64_t& vector_accesses() {
    static uint64_t n = 0;
    return n;
}

// The warp size of this process: 32, or MXC_EMU_WARP=64 (an AMD wavefront).
inline int& warp_size_ref() {
    static int w = [] {
        const char* e = getenv("MXC_EMU_WARP");
        if (!e || !*e) return 32;
        int v = atoi(e);
        if (v == 32 || v == 64) return v;
        fprintf(stderr, "mxc hip-emu: MXC_EMU_WARP=%s is not 32 or 64; using 32\n", e);
        return 32;
    }();
    return w;
}
// For tests: the warp size of the launches that follow (32 or 64).
inline void set_warp_size(int w) { warp_size_ref() = w == 64 ? 64 : 32; }

// A growable array of trivially copyable values (the standard containers cost compile time).
template <class T> struct list {
    T* data = nullptr;
    size_t size = 0, cap = 0;
    list() = default;
    list(const list&) = delete;
    list& operator=(const list&) = delete;
    ~list() { free(data); }
    bool push(T v) {
        if (size == cap) {
            size_t c = cap ? 2 * cap : 8;
            T* d = static_cast<T*>(realloc(data, c * sizeof(T)));
            if (!d) return false;
            data = d;
            cap = c;
        }
        data[size++] = v;
        return true;
    }
    T& operator[](size_t i) { return data[i]; }
};

// ---- Device state: allocations, the sticky error of a failed kernel, captures in progress.
// A kernel's hipFuncAttributeMaxDynamicSharedMemorySize (hipFuncSetAttribute).
struct func_shared_limit {
    const void* kernel;
    int bytes;
};
struct device_state {
    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    list<void*> allocations;
    hipError_t sticky = hipSuccess; // a kernel failed: the context is unusable (like a GPU fault)
    int capturing = 0;              // streams capturing now
    list<func_shared_limit> shared_limits;
};
inline device_state& device() {
    static device_state d;
    return d;
}
struct lock {
    lock() { pthread_mutex_lock(&device().mu); }
    ~lock() { pthread_mutex_unlock(&device().mu); }
};
inline thread_local hipError_t last_error = hipSuccess; // per host thread, as in HIP

inline hipError_t record(hipError_t e) {
    if (e != hipSuccess) last_error = e;
    return e;
}
inline hipError_t sticky() {
    lock l;
    return device().sticky;
}
inline void fail_device(const char* line) {
    {
        lock l;
        device().sticky = hipErrorLaunchFailure;
    }
    fprintf(stderr, "mxc hip-emu: %s\n", line);
}

// ---- Fibers and the block scheduler (one per OS thread).
struct fiber {
    ucontext_t ctx;
    char* stack = nullptr;
    size_t size = 0;
    unsigned tid = 0;   // the GPU thread it runs (linear index in the block)
    bool fresh = true;  // needs makecontext before it runs
};

enum { max_threads = 1024, max_warp = 64, page = 4096, stack_bytes = 256 * 1024 };
enum thread_status : unsigned char { ts_unstarted, ts_running, ts_barrier, ts_warp, ts_exited };
enum warp_kind { wk_none, wk_shfl, wk_shfl_up, wk_shfl_down, wk_shfl_xor, wk_ballot, wk_any, wk_all, wk_syncwarp };
inline const char* warp_kind_name(int k) {
    static const char* names[] = {"?", "__shfl", "__shfl_up", "__shfl_down", "__shfl_xor", "__ballot", "__any", "__all", "__syncwarp"};
    return names[k];
}

// One warp's pending operation: lanes deposit a value (and the lane to read); the last one to
// arrive computes every lane's result and wakes the others. A lane reads its result before it
// can reach the warp's next operation, so no result is overwritten before it is read.
struct warp_state {
    unsigned lanes, arrived, exited, at_barrier;
    int kind;
    uint64_t value[max_warp][2];
    int src[max_warp];
    uint64_t result[max_warp][2];
    fiber* waiting[max_warp];
};

// The kernel body a block's threads run: the launch's kernel with its arguments.
struct body_ref {
    void (*call)(const void*);
    const void* closure;
};

struct scheduler {
    ucontext_t main;
    list<fiber*> fibers, idle;
    fiber* cur = nullptr;
    // The block being run.
    body_ref body{};
    unsigned n = 0, next = 0, exited = 0, warp = 32;
    uint3 dim{1, 1, 1};
    unsigned char status[max_threads];
    warp_state warps[max_threads / 32];
    fiber* barrier_waiting[max_threads];
    unsigned n_barrier = 0;
    const char* barrier_file = "";
    int barrier_line = 0;
    fiber* runnable[max_threads]; // a ring: each parked fiber is in it at most once
    unsigned run_head = 0, run_count = 0;
    bool failed = false;
    char why[512];
    ~scheduler() {
        for (size_t i = 0; i < fibers.size; ++i) {
            munmap(fibers[i]->stack, fibers[i]->size);
            delete fibers[i];
        }
    }
    void wake(fiber* f) {
        status[f->tid] = ts_running;
        runnable[(run_head + run_count++) % max_threads] = f;
    }
};
inline scheduler& sched() {
    thread_local scheduler* s = new scheduler; // lives as long as its OS thread (never freed)
    return *s;
}

inline uint3 thread_index(const scheduler& s, unsigned t) {
    return {t % s.dim.x, t / s.dim.x % s.dim.y, t / (s.dim.x * s.dim.y)};
}
// "thread (x,y,z)" of linear index t (a temporary for one message).
struct thread_name {
    char text[48];
    thread_name(const scheduler& s, unsigned t) {
        uint3 i = thread_index(s, t);
        snprintf(text, sizeof text, "thread (%u,%u,%u)", i.x, i.y, i.z);
    }
};

// The running thread breaks a rule: the block stops (its fibers are abandoned) and the launch
// fails. Does not return.
[[noreturn]] __attribute__((format(printf, 1, 2))) inline void fail_block(const char* fmt, ...) {
    scheduler& s = sched();
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s.why, sizeof s.why, fmt, ap);
    va_end(ap);
    s.failed = true;
    swapcontext(&s.cur->ctx, &s.main);
    abort(); // never resumed
}

inline void park() {
    scheduler& s = sched();
    swapcontext(&s.cur->ctx, &s.main);
}

inline void thread_exit(scheduler& s, unsigned t);

// ---- Asynchronous copies (templates/hip/async_copy.hpp; NVIDIA's cp.async): per GPU thread, a
// queue of 16-byte copies in commit groups. A copy reads its source when it is issued and
// lands in shared memory only when its thread waits for its group (async_wait, below), the
// latest moment the hardware allows: a kernel that reads a stage before waiting for it, or
// without the barrier after the other threads' waits, reads stale data here. Copies still in
// flight when the thread exits land then.
struct async_record {
    void* dst;
    unsigned group; // the number of groups committed before it was issued
    unsigned size;  // the bytes it writes to shared memory (4, 8 or 16)
    unsigned char data[16];
};
enum { max_async = 256 }; // copies in flight per thread (a k-major SIMT ring's one-element copies: up to 20 x 4 stages)
struct async_state {
    unsigned count, committed;
    async_record q[max_async];
};
inline async_state*& async_states() {
    thread_local async_state* a = nullptr; // max_threads of them, made on the first copy
    return a;
}
inline void async_start(unsigned t) {
    if (async_state* a = async_states()) a[t].count = a[t].committed = 0;
}
// Lands every copy of thread t still in flight (at its exit).
inline void async_land(unsigned t) {
    async_state* a = async_states();
    if (!a) return;
    for (unsigned i = 0; i < a[t].count; ++i) memcpy(a[t].q[i].dst, a[t].q[i].data, a[t].q[i].size);
    a[t].count = 0;
}

// Each fiber runs GPU threads one after another until one parks: a block without barriers
// runs on one fiber (cheap); a parked thread keeps its fiber and the next thread gets another.
inline void fiber_main() {
    for (;;) {
        scheduler& s = sched();
        fiber* self = s.cur;
        while (!s.failed && s.next < s.n) {
            unsigned t = s.next++;
            self->tid = t;
            s.status[t] = ts_running;
            threadIdx = thread_index(s, t);
            async_start(t);
            s.body.call(s.body.closure);
            async_land(t); // copies never waited for still land (when is unspecified on a GPU)
            thread_exit(s, t);
        }
        s.idle.push(self);
        swapcontext(&self->ctx, &s.main);
    }
}

inline fiber* idle_fiber(scheduler& s) {
    if (!s.idle.size) {
        // A stack (lazily committed) with a guard page below it: an overflow faults.
        void* p = mmap(nullptr, stack_bytes + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) return nullptr;
        mprotect(p, page, PROT_NONE);
        fiber* f = new (std::nothrow) fiber;
        if (!f || !s.fibers.push(f) || !s.idle.push(f)) {
            munmap(p, stack_bytes + page);
            return nullptr;
        }
        f->stack = static_cast<char*>(p);
        f->size = stack_bytes + page;
    }
    fiber* f = s.idle[--s.idle.size];
    if (f->fresh) {
        getcontext(&f->ctx);
        f->ctx.uc_stack.ss_sp = f->stack + page;
        f->ctx.uc_stack.ss_size = f->size - page;
        f->ctx.uc_link = &s.main;
        makecontext(&f->ctx, fiber_main, 0);
        f->fresh = false;
    }
    return f;
}

// A thread returned from the kernel. Others waiting for it at a barrier would wait forever.
inline void thread_exit(scheduler& s, unsigned t) {
    s.status[t] = ts_exited;
    ++s.exited;
    warp_state& w = s.warps[t / s.warp];
    ++w.exited;
    if (s.n_barrier)
        fail_block("barrier divergence: %s exited while %u threads wait at __syncthreads (%s:%d)", thread_name(s, t).text,
                   s.n_barrier, s.barrier_file, s.barrier_line);
    if (w.arrived)
        fail_block("warp divergence: %s exited while %u lanes of its warp wait at %s", thread_name(s, t).text, w.arrived,
                   warp_kind_name(w.kind));
}

// __syncthreads: waits until every thread of the block arrived at this barrier.
inline void block_barrier(const char* file, int line) {
    scheduler& s = sched();
    fiber* self = s.cur;
    unsigned t = self->tid;
    warp_state& w = s.warps[t / s.warp];
    if (s.exited)
        fail_block("barrier divergence: %s reached __syncthreads (%s:%d) after %u of the block's threads exited",
                   thread_name(s, t).text, file, line, s.exited);
    if (w.arrived)
        fail_block("divergence: %s reached __syncthreads (%s:%d) while lanes of its warp wait at %s", thread_name(s, t).text,
                   file, line, warp_kind_name(w.kind));
    if (!s.n_barrier) {
        s.barrier_file = file;
        s.barrier_line = line;
    } else if (s.barrier_line != line || strcmp(s.barrier_file, file) != 0) {
        fail_block("barrier divergence: %s reached __syncthreads at %s:%d while %u threads wait at %s:%d",
                   thread_name(s, t).text, file, line, s.n_barrier, s.barrier_file, s.barrier_line);
    }
    if (s.n_barrier + 1 == s.n) { // the last one: release the others
        for (unsigned i = 0; i < s.n_barrier; ++i) s.wake(s.barrier_waiting[i]);
        s.n_barrier = 0;
        for (unsigned i = 0; i * s.warp < s.n; ++i) s.warps[i].at_barrier = 0;
        return;
    }
    s.status[t] = ts_barrier;
    ++w.at_barrier;
    s.barrier_waiting[s.n_barrier++] = self;
    park();
}

// A warp operation of the running lane: deposits `value` (size bytes) and the lane to read
// (src; -1: none), waits for every lane of the warp, then copies its result to `out`.
inline void warp_op(int kind, const void* value, size_t size, int src, void* out) {
    scheduler& s = sched();
    fiber* self = s.cur;
    unsigned t = self->tid, lane = t % s.warp;
    warp_state& w = s.warps[t / s.warp];
    const char* name = warp_kind_name(kind);
    if (w.exited)
        fail_block("warp divergence: %s reached %s after %u lanes of its warp exited", thread_name(s, t).text, name, w.exited);
    if (w.at_barrier)
        fail_block("divergence: %s reached %s while lanes of its warp wait at __syncthreads", thread_name(s, t).text, name);
    if (w.arrived && w.kind != kind)
        fail_block("warp divergence: %s reached %s while lanes of its warp wait at %s", thread_name(s, t).text, name,
                   warp_kind_name(w.kind));
    w.kind = kind;
    memset(w.value[lane], 0, sizeof w.value[lane]);
    memcpy(w.value[lane], value, size);
    w.src[lane] = src;
    w.waiting[lane] = self;
    if (++w.arrived < w.lanes) {
        s.status[t] = ts_warp;
        park();
    } else { // the last lane: compute every lane's result, wake the others
        uint64_t mask = 0;
        for (unsigned l = 0; l < w.lanes; ++l) mask |= (w.value[l][0] & 0xff) ? uint64_t(1) << l : 0;
        uint64_t full = w.lanes == 64 ? ~uint64_t(0) : (uint64_t(1) << w.lanes) - 1;
        for (unsigned l = 0; l < w.lanes; ++l) {
            uint64_t* r = w.result[l];
            r[0] = r[1] = 0;
            if (kind == wk_ballot) r[0] = mask;
            else if (kind == wk_any) r[0] = mask != 0;
            else if (kind == wk_all) r[0] = mask == full;
            else if (kind != wk_syncwarp) {
                int from = w.src[l];
                if (from < 0 || static_cast<unsigned>(from) >= w.lanes)
                    fail_block("%s: lane %u of the warp of %s reads lane %d, which is not in the block (%u lanes)", name, l,
                               thread_name(s, t).text, from, w.lanes);
                r[0] = w.value[from][0];
                r[1] = w.value[from][1];
            }
        }
        for (unsigned l = 0; l < w.lanes; ++l)
            if (l != lane) s.wake(w.waiting[l]);
        w.arrived = 0;
        w.kind = wk_none;
    }
    if (out) memcpy(out, w.result[lane], size);
}

// Runs one block (geometry in blockDim/blockIdx); false (why in s.why) if a thread broke a
// synchronisation rule.
inline bool run_block(scheduler& s, body_ref body, unsigned n) {
    s.body = body;
    s.n = n;
    s.next = 0;
    s.exited = 0;
    s.warp = static_cast<unsigned>(warp_size_ref());
    s.dim = blockDim;
    memset(s.status, ts_unstarted, n);
    for (unsigned i = 0; i * s.warp < n; ++i) {
        warp_state& w = s.warps[i];
        w.lanes = n - i * s.warp < s.warp ? n - i * s.warp : s.warp;
        w.arrived = w.exited = w.at_barrier = 0;
        w.kind = wk_none;
    }
    s.n_barrier = 0;
    s.run_head = s.run_count = 0;
    s.failed = false;
    s.why[0] = 0;
    for (;;) {
        fiber* f;
        if (s.failed) break;
        if (s.run_count) {
            f = s.runnable[s.run_head];
            s.run_head = (s.run_head + 1) % max_threads;
            --s.run_count;
            threadIdx = thread_index(s, f->tid);
        } else if (s.next < s.n) {
            f = idle_fiber(s);
            if (!f) {
                s.failed = true;
                snprintf(s.why, sizeof s.why, "cannot allocate a fiber stack");
                break;
            }
        } else {
            break;
        }
        s.cur = f;
        swapcontext(&s.main, &f->ctx);
    }
    if (!s.failed && s.exited != s.n) { // nothing can run, yet some threads wait: a deadlock
        s.failed = true;
        snprintf(s.why, sizeof s.why, "deadlock: %u threads wait at barriers or warp operations that can never complete",
                 s.n - s.exited);
    }
    if (s.failed) { // abandon every fiber's stack
        s.idle.size = 0;
        for (size_t i = 0; i < s.fibers.size; ++i) {
            s.fibers[i]->fresh = true;
            s.idle.push(s.fibers[i]);
        }
    }
    return !s.failed;
}

// ---- Dynamic shared memory (extern __shared__ on a GPU; templates/hip/common.hpp's
// dynamic_shared): one buffer per OS thread, as large as the running launch asked for, its
// contents at kernel start undefined (filled with 0xff bytes: half and float NaNs).
// Limits as on the GPU with the most of it among mxc's targets (sm_90: 227 KiB per block):
// past 48 KiB, a launch gets only what its kernel was allowed beforehand with
// hipFuncSetAttribute(kernel, hipFuncAttributeMaxDynamicSharedMemorySize, bytes).
enum : size_t { default_dynamic_shared = 48 * 1024, max_shared_per_block = 227 * 1024 };
struct dynamic_shared_buffer {
    unsigned char* data = nullptr;
    size_t cap = 0, size = 0;
};
inline dynamic_shared_buffer& dynamic_shared_of_thread() {
    thread_local dynamic_shared_buffer b; // lives as long as its OS thread (never freed)
    return b;
}
// The running kernel's dynamic shared memory (null when its launch asked for none).
inline unsigned char* dynamic_shared() {
    dynamic_shared_buffer& b = dynamic_shared_of_thread();
    return b.size ? b.data : nullptr;
}
inline bool dynamic_shared_start(size_t bytes) {
    dynamic_shared_buffer& b = dynamic_shared_of_thread();
    if (bytes > b.cap) {
        void* p = aligned_alloc(256, (bytes + 255) / 256 * 256);
        if (!p) return false;
        free(b.data);
        b.data = static_cast<unsigned char*>(p);
        b.cap = (bytes + 255) / 256 * 256;
    }
    b.size = bytes;
    if (bytes) memset(b.data, 0xff, bytes);
    return true;
}
// Kernel's entry in the device's limits (null: never set); under the device lock.
inline func_shared_limit* shared_limit_of(const void* kernel) {
    list<func_shared_limit>& limits = device().shared_limits;
    for (size_t i = 0; i < limits.size; ++i)
        if (limits[i].kernel == kernel) return &limits[i];
    return nullptr;
}
// hipErrorInvalidValue where the GPU would refuse `bytes` of dynamic shared memory for kernel.
inline hipError_t check_dynamic_shared(const void* kernel, size_t bytes) {
    if (bytes <= default_dynamic_shared) return hipSuccess;
    lock l;
    const func_shared_limit* f = shared_limit_of(kernel);
    return f && bytes <= size_t(f->bytes) ? hipSuccess : hipErrorInvalidValue;
}

// One kernel launch: validates the configuration like a GPU, then runs every block.
inline hipError_t run_kernel(const char* name, dim3 grid, dim3 block, size_t shared, body_ref body) {
    if (hipError_t e = sticky()) return e;
    uint64_t threads = uint64_t(block.x) * block.y * block.z;
    if (!block.x || !block.y || !block.z || block.x > 1024 || block.y > 1024 || block.z > 64 || threads > max_threads ||
        !grid.x || !grid.y || !grid.z || grid.x > 0x7fffffffu || grid.y > 65535 || grid.z > 65535)
        return record(hipErrorInvalidConfiguration);
    if (!dynamic_shared_start(shared)) return record(hipErrorOutOfMemory);
    scheduler& s = sched();
    uint3 saved_t = threadIdx, saved_b = blockIdx, saved_bd = blockDim, saved_g = gridDim;
    blockDim = {block.x, block.y, block.z};
    gridDim = {grid.x, grid.y, grid.z};
    hipError_t result = hipSuccess;
    for (unsigned z = 0; z < grid.z && !result; ++z)
        for (unsigned y = 0; y < grid.y && !result; ++y)
            for (unsigned x = 0; x < grid.x && !result; ++x) {
                blockIdx = {x, y, z};
                if (!run_block(s, body, static_cast<unsigned>(threads))) {
                    char line[700];
                    snprintf(line, sizeof line, "%s failed in block (%u,%u,%u): %s", name, x, y, z, s.why);
                    fail_device(line);
                    result = hipErrorLaunchFailure;
                }
            }
    threadIdx = saved_t;
    blockIdx = saved_b;
    blockDim = saved_bd;
    gridDim = saved_g;
    dynamic_shared_start(0);
    return result;
}

} // namespace mxc_emu

// warpSize: read-only for kernels (a reference to the emulator's setting).
inline const int& warpSize = mxc_emu::warp_size_ref();

// ---- Block barrier and warp operations (HIP's unsynchronised forms, full warps: every lane
// of the warp must take part). Lane indices follow HIP's definitions with `width`.
inline void __syncthreads(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    mxc_emu::block_barrier(file, line);
}
inline void __syncwarp(uint64_t = ~uint64_t(0)) { mxc_emu::warp_op(mxc_emu::wk_syncwarp, "", 1, -1, nullptr); }
inline unsigned __lane_id() { return mxc_emu::sched().cur->tid % mxc_emu::sched().warp; }

namespace mxc_emu {
template <class T> inline T shuffle(int kind, T v, int src) {
    static_assert(sizeof(T) <= 16 && std::is_trivially_copyable<T>::value, "warp shuffles move at most 16 trivially copyable bytes");
    T r;
    warp_op(kind, &v, sizeof(T), src, &r);
    return r;
}
} // namespace mxc_emu

template <class T> inline T __shfl(T v, int src_lane, int width = warpSize) {
    int self = static_cast<int>(__lane_id());
    return mxc_emu::shuffle(mxc_emu::wk_shfl, v, (src_lane & (width - 1)) + (self & ~(width - 1)));
}
template <class T> inline T __shfl_up(T v, unsigned delta, int width = warpSize) {
    int self = static_cast<int>(__lane_id());
    int index = self - static_cast<int>(delta);
    if (index < (self & ~(width - 1))) index = self;
    return mxc_emu::shuffle(mxc_emu::wk_shfl_up, v, index);
}
template <class T> inline T __shfl_down(T v, unsigned delta, int width = warpSize) {
    int self = static_cast<int>(__lane_id());
    int index = self + static_cast<int>(delta);
    if ((self & (width - 1)) + static_cast<int>(delta) >= width) index = self;
    return mxc_emu::shuffle(mxc_emu::wk_shfl_down, v, index);
}
template <class T> inline T __shfl_xor(T v, int lane_mask, int width = warpSize) {
    int self = static_cast<int>(__lane_id());
    int index = self ^ lane_mask;
    if (index >= ((self + width) & ~(width - 1))) index = self;
    return mxc_emu::shuffle(mxc_emu::wk_shfl_xor, v, index);
}
inline unsigned long long __ballot(int pred) {
    uint64_t p = pred != 0, r = 0;
    mxc_emu::warp_op(mxc_emu::wk_ballot, &p, sizeof p, -1, &r);
    return r;
}
inline int __any(int pred) {
    uint64_t p = pred != 0, r = 0;
    mxc_emu::warp_op(mxc_emu::wk_any, &p, sizeof p, -1, &r);
    return static_cast<int>(r);
}
inline int __all(int pred) {
    uint64_t p = pred != 0, r = 0;
    mxc_emu::warp_op(mxc_emu::wk_all, &p, sizeof p, -1, &r);
    return static_cast<int>(r);
}

// ---- Atomics (atomic read-modify-write on host memory; return the old value).
namespace mxc_emu {
template <class T, class F> inline T atomic_rmw(T* address, F f) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "atomics on 4- and 8-byte types");
    using U = typename std::conditional<sizeof(T) == 4, uint32_t, uint64_t>::type;
    U* u = reinterpret_cast<U*>(address);
    U old = __atomic_load_n(u, __ATOMIC_RELAXED);
    for (;;) {
        T o, n;
        memcpy(&o, &old, sizeof o);
        n = f(o);
        U nu;
        memcpy(&nu, &n, sizeof nu);
        if (__atomic_compare_exchange_n(u, &old, nu, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) return o;
    }
}
} // namespace mxc_emu
#define MXC_EMU_ATOMIC(name, expr)                                                                                     \
    inline int name(int* a, int v) { return mxc_emu::atomic_rmw(a, [&](int o) { return expr; }); }                   \
    inline unsigned name(unsigned* a, unsigned v) { return mxc_emu::atomic_rmw(a, [&](unsigned o) { return expr; }); } \
    inline unsigned long long name(unsigned long long* a, unsigned long long v) {                                      \
        return mxc_emu::atomic_rmw(a, [&](unsigned long long o) { return expr; });                                     \
    }                                                                                                                  \
    inline long long name(long long* a, long long v) { return mxc_emu::atomic_rmw(a, [&](long long o) { return expr; }); }
#define MXC_EMU_ATOMIC_FP(name, expr)                                                                         \
    inline float name(float* a, float v) { return mxc_emu::atomic_rmw(a, [&](float o) { return expr; }); }  \
    inline double name(double* a, double v) { return mxc_emu::atomic_rmw(a, [&](double o) { return expr; }); }
MXC_EMU_ATOMIC(atomicAdd, o + v)
MXC_EMU_ATOMIC_FP(atomicAdd, o + v)
MXC_EMU_ATOMIC(atomicSub, o - v)
MXC_EMU_ATOMIC_FP(atomicSub, o - v)
MXC_EMU_ATOMIC(atomicMax, o < v ? v : o)
MXC_EMU_ATOMIC_FP(atomicMax, o < v ? v : o)
MXC_EMU_ATOMIC(atomicMin, v < o ? v : o)
MXC_EMU_ATOMIC_FP(atomicMin, v < o ? v : o)
MXC_EMU_ATOMIC(atomicExch, ((void)o, v))
MXC_EMU_ATOMIC_FP(atomicExch, ((void)o, v))
MXC_EMU_ATOMIC(atomicAnd, o & v)
MXC_EMU_ATOMIC(atomicOr, o | v)
MXC_EMU_ATOMIC(atomicXor, o ^ v)
#undef MXC_EMU_ATOMIC
#undef MXC_EMU_ATOMIC_FP
inline int atomicCAS(int* a, int cmp, int v) { return mxc_emu::atomic_rmw(a, [&](int o) { return o == cmp ? v : o; }); }
inline unsigned atomicCAS(unsigned* a, unsigned cmp, unsigned v) {
    return mxc_emu::atomic_rmw(a, [&](unsigned o) { return o == cmp ? v : o; });
}
inline unsigned long long atomicCAS(unsigned long long* a, unsigned long long cmp, unsigned long long v) {
    return mxc_emu::atomic_rmw(a, [&](unsigned long long o) { return o == cmp ? v : o; });
}
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

// ---- Device functions of HIP's math and integer intrinsics that host code lacks.
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a < b ? b : a; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a < b ? b : a; }
inline long min(long a, long b) { return a < b ? a : b; }
inline long max(long a, long b) { return a < b ? b : a; }
inline unsigned long min(unsigned long a, unsigned long b) { return a < b ? a : b; }
inline unsigned long max(unsigned long a, unsigned long b) { return a < b ? b : a; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a < b ? b : a; }
inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long max(unsigned long long a, unsigned long long b) { return a < b ? b : a; }
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __powf(float x, float y) { return powf(x, y); }
inline float __fdividef(float x, float y) { return x / y; }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x ? __builtin_clz(static_cast<unsigned>(x)) : 32; }
inline int __clzll(long long x) { return x ? __builtin_clzll(static_cast<unsigned long long>(x)) : 64; }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline float __int_as_float(int x) { float f; memcpy(&f, &x, 4); return f; }
inline int __float_as_int(float x) { int i; memcpy(&i, &x, 4); return i; }
inline float __uint_as_float(unsigned x) { float f; memcpy(&f, &x, 4); return f; }
inline unsigned __float_as_uint(float x) { unsigned i; memcpy(&i, &x, 4); return i; }
inline double __longlong_as_double(long long x) { double d; memcpy(&d, &x, 8); return d; }
inline long long __double_as_longlong(double x) { long long i; memcpy(&i, &x, 8); return i; }
template <class T> inline T __ldg(const T* p) { return *p; }

// ---- Runtime objects. Every operation on a stream runs at once, in order; a capturing
// stream records it into its graph instead.
namespace mxc_emu {
// An operation on a stream (a launch, a copy...): run now, or kept in a graph and run later.
struct task {
    const char* what; // "kernel NAME", "memcpy", "memset", "event record", "graph launch"
    int refs = 1;     // shared by the graph and its executable copies
    explicit task(const char* w) : what(w) {}
    virtual ~task() = default;
    virtual hipError_t run() = 0;
};
template <class F> struct task_of : task {
    F f;
    task_of(const char* w, F fn) : task(w), f(static_cast<F&&>(fn)) {}
    hipError_t run() override { return f(); }
};
inline void release(task* t) {
    if (--t->refs == 0) delete t;
}
inline double now_ms() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
} // namespace mxc_emu

struct ihipEvent_t {
    double ms = 0;
    bool recorded = false;
};
struct ihipGraphNode_t {
    mxc_emu::task* op;
};
struct ihipGraph_t {
    mxc_emu::list<ihipGraphNode_t*> nodes;
    ~ihipGraph_t() {
        for (size_t i = 0; i < nodes.size; ++i) {
            mxc_emu::release(nodes[i]->op);
            delete nodes[i];
        }
    }
};
struct ihipGraphExec_t {
    mxc_emu::list<mxc_emu::task*> steps;
    ~ihipGraphExec_t() {
        for (size_t i = 0; i < steps.size; ++i) mxc_emu::release(steps[i]);
    }
};
struct ihipStream_t {
    unsigned flags = 0;
    hipStreamCaptureStatus capture = hipStreamCaptureStatusNone;
    hipGraph_t graph = nullptr; // the graph being captured
};

namespace mxc_emu {
inline ihipStream_t& null_stream() {
    static ihipStream_t s;
    return s;
}
inline ihipStream_t& stream_of(hipStream_t s) { return s ? *s : null_stream(); }

// Work on the null stream, or a synchronous call, while a stream captures (global mode):
// CUDA/HIP refuse it, as it would make the legacy stream depend on the capture.
inline hipError_t check_no_capture() {
    lock l;
    return device().capturing ? hipErrorStreamCaptureImplicit : hipSuccess;
}

// Runs `op` on stream s now, or records it when s is capturing.
template <class F> inline hipError_t submit(hipStream_t s, const char* what, F op) {
    ihipStream_t& st = stream_of(s);
    if (st.capture == hipStreamCaptureStatusActive) {
        ihipGraphNode_t* node = new (std::nothrow) ihipGraphNode_t;
        task* t = node ? new (std::nothrow) task_of<F>(what, static_cast<F&&>(op)) : nullptr;
        if (!t || !st.graph->nodes.push(node)) {
            delete t;
            delete node;
            return record(hipErrorOutOfMemory);
        }
        node->op = t;
        return hipSuccess;
    }
    if (st.capture == hipStreamCaptureStatusInvalidated) return record(hipErrorStreamCaptureInvalidated);
    if (!s && check_no_capture()) return record(hipErrorStreamCaptureImplicit);
    if (hipError_t e = sticky()) return e;
    return record(op());
}

// A launch: the kernel with its arguments (converted to the parameter types and copied, as the
// GPU runtime copies them at launch) in a lambda's captures, and the geometry.
template <class Call> struct kernel_run {
    const char* name;
    dim3 grid, block;
    size_t shared;
    Call call;
    hipError_t operator()() {
        body_ref b{[](const void* c) { (*static_cast<const Call*>(c))(); }, &call};
        return run_kernel(name, grid, block, shared, b);
    }
};
template <class Call> inline void launch_call(const char* name, const void* kernel, dim3 grid, dim3 block, size_t shared,
                                              hipStream_t stream, Call call) {
    if (hipError_t e = check_dynamic_shared(kernel, shared)) { // as the GPU refuses the launch
        record(e);
        return;
    }
    submit(stream, name, kernel_run<Call>{name, grid, block, shared, static_cast<Call&&>(call)});
}
template <class... D> inline void launch_converted(const char* name, void (*kernel)(D...), dim3 grid, dim3 block,
                                                   size_t shared, hipStream_t stream, D... d) {
    launch_call(name, reinterpret_cast<const void*>(kernel), grid, block, shared, stream, [kernel, d...] { kernel(d...); });
}
template <class... P, class... A>
inline void launch(const char* name, void (*kernel)(P...), dim3 grid, dim3 block, size_t shared, hipStream_t stream,
                   A&&... args) {
    static_assert(sizeof...(P) == sizeof...(A), "hipLaunchKernelGGL: the kernel takes a different number of arguments");
    launch_converted<typename std::decay<P>::type...>(name, kernel, grid, block, shared, stream,
                                                      static_cast<typename std::decay<P>::type>(static_cast<A&&>(args))...);
}
} // namespace mxc_emu

// hipLaunchKernelGGL(kernel, grid, block, dynamic_shared_bytes, stream, args...)
#define hipLaunchKernelGGL(kernel, grid, block, shared, stream, ...) \
    ::mxc_emu::launch("kernel " #kernel, kernel, dim3(grid), dim3(block), (shared), (stream), ##__VA_ARGS__)

// ---- Errors.
inline hipError_t hipGetLastError() {
    if (hipError_t e = mxc_emu::sticky()) return e;
    hipError_t e = mxc_emu::last_error;
    mxc_emu::last_error = hipSuccess;
    return e;
}
inline hipError_t hipPeekAtLastError() {
    if (hipError_t e = mxc_emu::sticky()) return e;
    return mxc_emu::last_error;
}
inline const char* hipGetErrorName(hipError_t e) {
    switch (e) {
    case hipSuccess: return "hipSuccess";
    case hipErrorInvalidValue: return "hipErrorInvalidValue";
    case hipErrorOutOfMemory: return "hipErrorOutOfMemory";
    case hipErrorNotInitialized: return "hipErrorNotInitialized";
    case hipErrorInvalidConfiguration: return "hipErrorInvalidConfiguration";
    case hipErrorNoDevice: return "hipErrorNoDevice";
    case hipErrorInvalidDevice: return "hipErrorInvalidDevice";
    case hipErrorInvalidHandle: return "hipErrorInvalidHandle";
    case hipErrorIllegalState: return "hipErrorIllegalState";
    case hipErrorNotReady: return "hipErrorNotReady";
    case hipErrorLaunchFailure: return "hipErrorLaunchFailure";
    case hipErrorStreamCaptureUnsupported: return "hipErrorStreamCaptureUnsupported";
    case hipErrorStreamCaptureInvalidated: return "hipErrorStreamCaptureInvalidated";
    case hipErrorStreamCaptureImplicit: return "hipErrorStreamCaptureImplicit";
    default: return "hipErrorUnknown";
    }
}
inline const char* hipGetErrorString(hipError_t e) {
    switch (e) {
    case hipSuccess: return "no error";
    case hipErrorInvalidValue: return "invalid argument";
    case hipErrorOutOfMemory: return "out of memory";
    case hipErrorInvalidConfiguration: return "invalid configuration argument";
    case hipErrorNoDevice: return "no ROCm-capable device is detected";
    case hipErrorInvalidDevice: return "invalid device ordinal";
    case hipErrorInvalidHandle: return "invalid resource handle";
    case hipErrorIllegalState: return "the operation is not valid in this state";
    case hipErrorNotReady: return "device not ready";
    case hipErrorLaunchFailure: return "unspecified launch failure (hip-emu: see its line on stderr)";
    case hipErrorStreamCaptureUnsupported: return "operation not permitted when stream is capturing";
    case hipErrorStreamCaptureInvalidated: return "operation failed due to a previous error during capture";
    case hipErrorStreamCaptureImplicit: return "operation would make the legacy stream depend on a capturing blocking stream";
    default: return hipGetErrorName(e);
    }
}

// ---- Device management: one device, 0.
struct hipDeviceProp_t {
    char name[256];
    size_t totalGlobalMem;
    size_t sharedMemPerBlock;
    int warpSize;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    int multiProcessorCount;
    int major, minor;
    char gcnArchName[256];
};
inline hipError_t hipGetDeviceCount(int* count) {
    if (!count) return mxc_emu::record(hipErrorInvalidValue);
    *count = 1;
    return hipSuccess;
}
inline hipError_t hipGetDevice(int* device) {
    if (!device) return mxc_emu::record(hipErrorInvalidValue);
    *device = 0;
    return hipSuccess;
}
inline hipError_t hipSetDevice(int device) { return device == 0 ? hipSuccess : mxc_emu::record(hipErrorInvalidDevice); }
inline hipError_t hipGetDeviceProperties(hipDeviceProp_t* p, int device) {
    if (!p) return mxc_emu::record(hipErrorInvalidValue);
    if (device != 0) return mxc_emu::record(hipErrorInvalidDevice);
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "mxc host SIMT emulator");
    snprintf(p->gcnArchName, sizeof p->gcnArchName, "emu");
    p->totalGlobalMem = size_t(16) << 30;
    p->sharedMemPerBlock = 64 * 1024;
    p->warpSize = warpSize;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = p->maxThreadsDim[1] = 1024;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 0x7fffffff;
    p->maxGridSize[1] = p->maxGridSize[2] = 65535;
    p->multiProcessorCount = 1;
    return hipSuccess;
}
// Kernel attributes: only the dynamic shared memory a kernel may take (see dynamic_shared).
enum hipFuncAttribute { hipFuncAttributeMaxDynamicSharedMemorySize = 8 };
inline hipError_t hipFuncSetAttribute(const void* kernel, hipFuncAttribute attr, int value) {
    if (!kernel || attr != hipFuncAttributeMaxDynamicSharedMemorySize || value < 0 ||
        size_t(value) > mxc_emu::max_shared_per_block)
        return mxc_emu::record(hipErrorInvalidValue);
    mxc_emu::lock l;
    if (mxc_emu::func_shared_limit* f = mxc_emu::shared_limit_of(kernel)) {
        f->bytes = value;
        return hipSuccess;
    }
    return mxc_emu::device().shared_limits.push({kernel, value}) ? hipSuccess : mxc_emu::record(hipErrorOutOfMemory);
}

// Clears the sticky error of a failed kernel (allocations stay).
inline hipError_t hipDeviceReset() {
    mxc_emu::lock l;
    mxc_emu::device().sticky = hipSuccess;
    mxc_emu::last_error = hipSuccess;
    return hipSuccess;
}
inline hipError_t hipDeviceSynchronize() {
    if (hipError_t e = mxc_emu::check_no_capture()) return mxc_emu::record(e);
    return mxc_emu::sticky();
}

// ---- Memory: device memory is 256-byte aligned host memory, filled with 0xa5 bytes when
// allocated (a GPU's is not zero either: code that reads what it never wrote gets garbage).
inline hipError_t hipMalloc(void** p, size_t bytes) {
    if (!p) return mxc_emu::record(hipErrorInvalidValue);
    *p = nullptr;
    if (hipError_t e = mxc_emu::sticky()) return e;
    if (bytes == 0) return hipSuccess;
    void* m = aligned_alloc(256, (bytes + 255) / 256 * 256);
    mxc_emu::lock l;
    if (!m || !mxc_emu::device().allocations.push(m)) {
        free(m);
        return mxc_emu::record(hipErrorOutOfMemory);
    }
    memset(m, 0xa5, bytes);
    *p = m;
    return hipSuccess;
}
template <class T> inline hipError_t hipMalloc(T** p, size_t bytes) { return hipMalloc(reinterpret_cast<void**>(p), bytes); }
inline hipError_t hipFree(void* p) {
    if (!p) return hipSuccess;
    {
        mxc_emu::lock l;
        auto& a = mxc_emu::device().allocations;
        size_t i = 0;
        while (i < a.size && a[i] != p) ++i;
        if (i == a.size) return mxc_emu::record(hipErrorInvalidValue); // not from hipMalloc
        a[i] = a[--a.size];
    }
    free(p);
    return hipSuccess;
}
inline hipError_t hipHostMalloc(void** p, size_t bytes, unsigned = 0) { return hipMalloc(p, bytes); }
inline hipError_t hipHostFree(void* p) { return hipFree(p); }
inline hipError_t hipMemcpyAsync(void* dst, const void* src, size_t bytes, hipMemcpyKind, hipStream_t stream = nullptr) {
    if (bytes && (!dst || !src)) return mxc_emu::record(hipErrorInvalidValue);
    return mxc_emu::submit(stream, "memcpy", [=] {
        if (bytes) memmove(dst, src, bytes);
        return hipSuccess;
    });
}
inline hipError_t hipMemcpy(void* dst, const void* src, size_t bytes, hipMemcpyKind kind) {
    return hipMemcpyAsync(dst, src, bytes, kind, nullptr);
}
inline hipError_t hipMemsetAsync(void* dst, int value, size_t bytes, hipStream_t stream = nullptr) {
    if (bytes && !dst) return mxc_emu::record(hipErrorInvalidValue);
    return mxc_emu::submit(stream, "memset", [=] {
        if (bytes) memset(dst, value, bytes);
        return hipSuccess;
    });
}
inline hipError_t hipMemset(void* dst, int value, size_t bytes) { return hipMemsetAsync(dst, value, bytes, nullptr); }

// ---- Streams.
inline hipError_t hipStreamCreateWithFlags(hipStream_t* s, unsigned flags) {
    if (!s) return mxc_emu::record(hipErrorInvalidValue);
    *s = new (std::nothrow) ihipStream_t;
    if (!*s) return mxc_emu::record(hipErrorOutOfMemory);
    (*s)->flags = flags;
    return hipSuccess;
}
inline hipError_t hipStreamCreate(hipStream_t* s) { return hipStreamCreateWithFlags(s, hipStreamDefault); }
inline hipError_t hipStreamDestroy(hipStream_t s) {
    if (!s) return mxc_emu::record(hipErrorInvalidHandle);
    if (s->capture != hipStreamCaptureStatusNone) {
        mxc_emu::lock l;
        --mxc_emu::device().capturing;
    }
    delete s->graph;
    delete s;
    return hipSuccess;
}
inline hipError_t hipStreamSynchronize(hipStream_t s) {
    ihipStream_t& st = mxc_emu::stream_of(s);
    if (st.capture == hipStreamCaptureStatusActive) {
        st.capture = hipStreamCaptureStatusInvalidated;
        return mxc_emu::record(hipErrorStreamCaptureUnsupported);
    }
    if (!s && mxc_emu::check_no_capture()) return mxc_emu::record(hipErrorStreamCaptureImplicit);
    return mxc_emu::sticky();
}
inline hipError_t hipStreamQuery(hipStream_t s) { return hipStreamSynchronize(s); }
inline hipError_t hipStreamWaitEvent(hipStream_t, hipEvent_t e, unsigned = 0) {
    return e ? hipSuccess : mxc_emu::record(hipErrorInvalidHandle);
}

// ---- Events: a record takes the time when the stream reaches it (at once, or at replay).
inline hipError_t hipEventCreate(hipEvent_t* e) {
    if (!e) return mxc_emu::record(hipErrorInvalidValue);
    *e = new (std::nothrow) ihipEvent_t;
    return *e ? hipSuccess : mxc_emu::record(hipErrorOutOfMemory);
}
inline hipError_t hipEventCreateWithFlags(hipEvent_t* e, unsigned) { return hipEventCreate(e); }
inline hipError_t hipEventDestroy(hipEvent_t e) {
    if (!e) return mxc_emu::record(hipErrorInvalidHandle);
    delete e;
    return hipSuccess;
}
inline hipError_t hipEventRecord(hipEvent_t e, hipStream_t s = nullptr) {
    if (!e) return mxc_emu::record(hipErrorInvalidHandle);
    return mxc_emu::submit(s, "event record", [e] {
        e->ms = mxc_emu::now_ms();
        e->recorded = true;
        return hipSuccess;
    });
}
inline hipError_t hipEventSynchronize(hipEvent_t e) {
    if (!e) return mxc_emu::record(hipErrorInvalidHandle);
    return mxc_emu::sticky();
}
inline hipError_t hipEventQuery(hipEvent_t e) { return hipEventSynchronize(e); }
inline hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop) {
    if (!ms) return mxc_emu::record(hipErrorInvalidValue);
    if (!start || !stop || !start->recorded || !stop->recorded) return mxc_emu::record(hipErrorInvalidHandle);
    *ms = static_cast<float>(stop->ms - start->ms);
    return hipSuccess;
}

// ---- Stream capture and graphs.
inline hipError_t hipStreamBeginCapture(hipStream_t s, hipStreamCaptureMode = hipStreamCaptureModeGlobal) {
    if (!s) return mxc_emu::record(hipErrorStreamCaptureUnsupported); // the null stream cannot capture
    if (s->capture != hipStreamCaptureStatusNone) return mxc_emu::record(hipErrorIllegalState);
    s->graph = new (std::nothrow) ihipGraph_t;
    if (!s->graph) return mxc_emu::record(hipErrorOutOfMemory);
    s->capture = hipStreamCaptureStatusActive;
    mxc_emu::lock l;
    ++mxc_emu::device().capturing;
    return hipSuccess;
}
inline hipError_t hipStreamIsCapturing(hipStream_t s, hipStreamCaptureStatus* status) {
    if (!status) return mxc_emu::record(hipErrorInvalidValue);
    *status = mxc_emu::stream_of(s).capture;
    return hipSuccess;
}
// Ends the capture; the graph holds what was recorded (an invalidated capture gives none).
inline hipError_t hipStreamEndCapture(hipStream_t s, hipGraph_t* graph) {
    if (!graph) return mxc_emu::record(hipErrorInvalidValue);
    *graph = nullptr;
    if (!s || s->capture == hipStreamCaptureStatusNone) return mxc_emu::record(hipErrorIllegalState);
    {
        mxc_emu::lock l;
        --mxc_emu::device().capturing;
    }
    bool valid = s->capture == hipStreamCaptureStatusActive;
    s->capture = hipStreamCaptureStatusNone;
    if (!valid) {
        delete s->graph;
        s->graph = nullptr;
        return mxc_emu::record(hipErrorStreamCaptureInvalidated);
    }
    *graph = s->graph;
    s->graph = nullptr;
    return hipSuccess;
}
inline hipError_t hipGraphGetNodes(hipGraph_t g, hipGraphNode_t* nodes, size_t* count) {
    if (!g || !count) return mxc_emu::record(hipErrorInvalidValue);
    if (nodes)
        for (size_t i = 0; i < *count && i < g->nodes.size; ++i) nodes[i] = g->nodes[i];
    *count = g->nodes.size;
    return hipSuccess;
}
inline hipError_t hipGraphInstantiate(hipGraphExec_t* exec, hipGraph_t g, hipGraphNode_t* error_node = nullptr,
                                      char* log = nullptr, size_t log_size = 0) {
    (void)error_node;
    if (log && log_size) log[0] = 0;
    if (!exec || !g) return mxc_emu::record(hipErrorInvalidValue);
    *exec = new (std::nothrow) ihipGraphExec_t;
    if (!*exec) return mxc_emu::record(hipErrorOutOfMemory);
    for (size_t i = 0; i < g->nodes.size; ++i) { // the recorded operations, shared
        mxc_emu::task* t = g->nodes[i]->op;
        if (!(*exec)->steps.push(t)) {
            delete *exec;
            *exec = nullptr;
            return mxc_emu::record(hipErrorOutOfMemory);
        }
        ++t->refs;
    }
    return hipSuccess;
}
inline hipError_t hipGraphInstantiateWithFlags(hipGraphExec_t* exec, hipGraph_t g, unsigned long long) {
    return hipGraphInstantiate(exec, g);
}
// Replays the recorded operations, in order, on `s` (recorded again if s is capturing).
inline hipError_t hipGraphLaunch(hipGraphExec_t exec, hipStream_t s) {
    if (!exec) return mxc_emu::record(hipErrorInvalidHandle);
    return mxc_emu::submit(s, "graph launch", [exec] {
        for (size_t i = 0; i < exec->steps.size; ++i)
            if (hipError_t e = exec->steps[i]->run()) return e;
        return hipSuccess;
    });
}
inline hipError_t hipGraphExecDestroy(hipGraphExec_t exec) {
    if (!exec) return mxc_emu::record(hipErrorInvalidHandle);
    delete exec;
    return hipSuccess;
}
inline hipError_t hipGraphDestroy(hipGraph_t g) {
    if (!g) return mxc_emu::record(hipErrorInvalidHandle);
    delete g;
    return hipSuccess;
}

// ---- The matrix-unit APIs of templates/hip/mma.hpp (emulated wmma and MFMA).
#include "runtime-stub/emu/mma.hpp"

// ---- Asynchronous copies for templates/hip/async_copy.hpp (see async_record above): on,
// as on NVIDIA sm_80+, unless the emulator stands for an AMD GPU (-DMXC_EMU_MMA=mfma) or
// -DMXC_EMU_NO_ASYNC_COPY.
#if !defined(MXC_EMU_MMA_MFMA) && !defined(MXC_EMU_NO_ASYNC_COPY)
#define MXC_EMU_ASYNC_COPY 1
#endif
namespace mxc_emu {
// One copy of `size` bytes (4, 8 or 16) to shared dst, the first `bytes` of them read from src now.
inline void async_copy(void* dst, const void* src, int size, int bytes) {
    scheduler& s = sched();
    async_state*& a = async_states();
    if (!a) {
        a = new (std::nothrow) async_state[max_threads];
        if (!a) fail_block("cannot allocate the asynchronous copy queues");
        for (unsigned t = 0; t < max_threads; ++t) a[t].count = a[t].committed = 0;
    }
    async_state& st = a[s.cur->tid];
    if ((size != 4 && size != 8 && size != 16) || bytes < 0 || bytes > size)
        fail_block("asynchronous copy of %d bytes (0 to %d)", bytes, size);
    if (reinterpret_cast<uintptr_t>(dst) % unsigned(size) != 0 || (bytes > 0 && reinterpret_cast<uintptr_t>(src) % unsigned(size) != 0))
        fail_block("asynchronous copy of %d bytes from %p to %p: not aligned to %d bytes", bytes, src, dst, size);
    if (st.count == max_async) fail_block("more than %d asynchronous copies in flight in one thread", int(max_async));
    async_record& r = st.q[st.count++];
    r.dst = dst;
    r.group = st.committed;
    r.size = unsigned(size);
    memset(r.data, 0, 16);
    if (bytes) memcpy(r.data, src, size_t(bytes));
}
inline void async_commit() {
    if (async_state* a = async_states()) ++a[sched().cur->tid].committed;
}
// Lands this thread's copies until at most n committed groups are in flight; copies not yet
// committed stay in flight, as with cp.async.wait_group.
inline void async_wait(int n) {
    async_state* a = async_states();
    if (!a) return;
    async_state& st = a[sched().cur->tid];
    const unsigned limit = st.committed > unsigned(n) ? st.committed - unsigned(n) : 0; // groups below it land
    unsigned kept = 0;
    for (unsigned i = 0; i < st.count; ++i) {
        async_record& r = st.q[i];
        if (r.group < limit) memcpy(r.dst, r.data, r.size);
        else st.q[kept++] = r;
    }
    st.count = kept;
}
} // namespace mxc_emu
