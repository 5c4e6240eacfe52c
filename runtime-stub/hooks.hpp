// Profiling and debug-trace hooks around every kernel call of the generated run function:
//   MXC_KERNEL_BEGIN(i); { ...kernel i... } MXC_KERNEL_END(i, output pointer);
// They are compiled in only when the model source defines MXC_PROFILE (mxc --profile-hooks)
// or MXC_DEBUG_TRACE (mxc --debug-trace); otherwise they expand to nothing and the normal
// library pays nothing. `h` is null in a plain <name>_run, so even a profiling build runs its
// plain path with one branch per kernel.
//   profile: kernel i's start (from the start of the run) and duration in ms, from CPU clocks
//            (cpu) or hipEvents recorded on the stream (hip).
//   trace:   after kernel i, its output copied to the host, printed to stderr when
//            MXC_TRACE_EVAL=1 (name) or =2 (also values and statistics), and handed to an
//            observer (mxc run --io-dump).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if !defined(MXC_TARGET_HIP)
#include <time.h>
#endif

typedef void (*mxc_observer)(void* user, size_t kernel, const void* host_data, size_t bytes);

// What the library knows about each kernel (exported by profiling and debug-trace builds).
typedef struct mxc_kernel_info {
    const char* name;    // the instruction's name in the IR text ("main:@5")
    const char* op;      // "convolution"
    const char* text;    // the instruction as the IR printer writes it
    const char* inputs;  // input shapes, "{1, 3, 224, 224}; {64, 3, 7, 7}"
    const char* output;  // output shape
    double flops;        // arithmetic operations of one call (multiply-add = 2)
    double bytes;        // bytes read and written
    int dtype;           // mxc_dtype of the output
    int64_t elements;    // elements of the output (standard layout)
} mxc_kernel_info;

#if defined(MXC_PROFILE) || defined(MXC_DEBUG_TRACE)
struct mxc_hooks {
    // profile
    double* start_ms;
    double* time_ms;
#if defined(MXC_TARGET_HIP)
    hipEvent_t* events; // 2 per kernel, then one for the start of the run
    hipStream_t stream;
#else
    double run_start;
    double kernel_start;
#endif
    // trace
    int trace;           // MXC_TRACE_EVAL level
    mxc_observer observe;
    void* user;
    char* host;          // hip: a host copy of the output
    size_t host_bytes;
};

namespace mxc_hook {
#if !defined(MXC_TARGET_HIP)
static double now_ms() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}
#endif

static double element(const char* p, int dtype, int64_t i) {
    switch (dtype) {
    case 0: return ((const float*)p)[i];
    case 3: return ((const double*)p)[i];
    case 4: return ((const int8_t*)p)[i];
    case 5: return ((const int16_t*)p)[i];
    case 6: return ((const int32_t*)p)[i];
    case 7: return (double)((const int64_t*)p)[i];
    case 8: case 12: return ((const uint8_t*)p)[i];
    case 9: return ((const uint16_t*)p)[i];
    case 10: return ((const uint32_t*)p)[i];
    case 11: return (double)((const uint64_t*)p)[i];
    case 1: { // IEEE half
        uint16_t h = ((const uint16_t*)p)[i];
        int e = (h >> 10) & 31, f = h & 1023;
        double v = e == 0 ? ldexp(f, -24) : e == 31 ? (f ? NAN : INFINITY) : ldexp(f + 1024, e - 25);
        return (h & 0x8000) ? -v : v;
    }
    case 2: { // bfloat16
        uint32_t u = (uint32_t)((const uint16_t*)p)[i] << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    }
    return 0;
}

static void print_values(const char* p, const mxc_kernel_info& k) {
    int64_t n = k.elements;
    fprintf(stderr, "mxc-trace:   values:");
    for (int64_t i = 0; i < n && i < 5; ++i) fprintf(stderr, " %g", element(p, k.dtype, i));
    if (n > 10) fprintf(stderr, " ...");
    for (int64_t i = n > 10 ? n - 5 : 5; i < n; ++i) fprintf(stderr, " %g", element(p, k.dtype, i));
    double mn = INFINITY, mx = -INFINITY, sum = 0, sq = 0;
    for (int64_t i = 0; i < n; ++i) {
        double v = element(p, k.dtype, i);
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
        sum += v;
        sq += v * v;
    }
    double mean = n ? sum / n : 0, var = n ? sq / n - mean * mean : 0;
    fprintf(stderr, "\nmxc-trace:   min %g max %g mean %g l2 %g std %g\n", n ? mn : 0, n ? mx : 0, mean, sqrt(sq),
            sqrt(var > 0 ? var : 0));
}

static void begin(mxc_hooks* h, size_t i) {
    if (!h->time_ms) return;
#if defined(MXC_TARGET_HIP)
    (void)hipEventRecord(h->events[2 * i], h->stream);
#else
    h->kernel_start = now_ms();
    (void)i;
#endif
}

static void end(mxc_hooks* h, size_t i, const mxc_kernel_info& k, const void* out) {
    if (h->time_ms) {
#if defined(MXC_TARGET_HIP)
        (void)hipEventRecord(h->events[2 * i + 1], h->stream);
#else
        double t = now_ms();
        h->start_ms[i] = h->kernel_start - h->run_start;
        h->time_ms[i] = t - h->kernel_start;
#endif
    }
    if (!h->trace && !h->observe) return;
    size_t bytes = (size_t)k.elements * (k.dtype == 0 || k.dtype == 6 || k.dtype == 10 ? 4
                                         : k.dtype == 3 || k.dtype == 7 || k.dtype == 11 ? 8
                                         : k.dtype == 4 || k.dtype == 8 || k.dtype >= 12 ? 1 : 2);
    const char* p = (const char*)out;
#if defined(MXC_TARGET_HIP)
    if (bytes > h->host_bytes) {
        free(h->host);
        h->host = (char*)malloc(bytes);
        h->host_bytes = h->host ? bytes : 0;
    }
    if (!h->host || hipStreamSynchronize(h->stream) != hipSuccess ||
        hipMemcpy(h->host, out, bytes, hipMemcpyDeviceToHost) != hipSuccess) {
        fprintf(stderr, "mxc-trace: [%zu] %s: cannot copy the output to the host\n", i, k.name);
        return;
    }
    p = h->host;
#endif
    if (h->trace) {
        fprintf(stderr, "mxc-trace: [%zu] %s\n", i, k.text);
        if (h->trace >= 2) print_values(p, k);
    }
    if (h->observe) h->observe(h->user, i, p, bytes);
}
} // namespace mxc_hook

#define MXC_KERNEL_BEGIN(i) \
    if (h) mxc_hook::begin(h, i)
#define MXC_KERNEL_END(i, out) \
    if (h) mxc_hook::end(h, i, kernel_table[i], out)
#else
struct mxc_hooks;
#define MXC_KERNEL_BEGIN(i) ((void)0)
#define MXC_KERNEL_END(i, out) ((void)0)
#endif
