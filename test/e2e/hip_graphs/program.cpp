// A program using a hip library built by mxc (prefix g, header libg.h), for a GPU or the host
// emulator; built and run by hip_graphs.sh. Every result is compared with a plain run in
// offload mode (host buffers): device-pointer mode on two sets of buffers used in turn (each
// set needs its own graph: a stale one reads the other set), kernel by kernel (no_graph),
// run_async on the program's own stream with pinned host memory and with device memory.
// Then the host time per run: graphs against kernel by kernel, synchronous and pipelined.
#include <hip/hip_runtime.h>

#include "libg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vector>

static int failures = 0;

#define CHECK(call)                                                                               \
    do {                                                                                          \
        if (!(call)) {                                                                            \
            fprintf(stderr, "hip_graphs: line %d: %s failed (%s)\n", __LINE__, #call, why(m));    \
            return 1;                                                                             \
        }                                                                                         \
    } while (0)

static const char* why(const mxc_model* m) { return m ? g_last_error(m) : "-"; }

static double now_us() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

struct sizes {
    std::vector<size_t> in, out;
    std::vector<int> out_dtype;
};

// Output j of a run against the reference (float32: relative 1e-5, kernels may sum in another
// order between launches; else bytes).
static void compare(const char* what, const sizes& s, const std::vector<std::vector<char>>& ref,
                    const std::vector<std::vector<char>>& got) {
    for (size_t j = 0; j < ref.size(); ++j) {
        size_t bad = 0;
        if (s.out_dtype[j] == MXC_FLOAT32) {
            const float* a = reinterpret_cast<const float*>(got[j].data());
            const float* b = reinterpret_cast<const float*>(ref[j].data());
            for (size_t k = 0; k < ref[j].size() / 4; ++k)
                if (!(fabs(a[k] - b[k]) <= 1e-5 * fmax(1.0, fabs(b[k])))) bad++;
        } else {
            bad = memcmp(ref[j].data(), got[j].data(), ref[j].size()) != 0;
        }
        if (bad) {
            fprintf(stderr, "hip_graphs: %s: output %zu differs from the offload run (%zu values)\n", what, j, bad);
            failures++;
        }
    }
}

// A set of device buffers holding the inputs; outputs poisoned.
struct device_set {
    std::vector<void*> in, out;
};

static bool make_set(const sizes& s, const std::vector<std::vector<char>>& host_in, device_set& d) {
    for (size_t i = 0; i < s.in.size(); ++i) {
        void* p = nullptr;
        if (hipMalloc(&p, s.in[i] ? s.in[i] : 1) != hipSuccess) return false;
        if (s.in[i] && hipMemcpy(p, host_in[i].data(), s.in[i], hipMemcpyHostToDevice) != hipSuccess) return false;
        d.in.push_back(p);
    }
    for (size_t j = 0; j < s.out.size(); ++j) {
        void* p = nullptr;
        if (hipMalloc(&p, s.out[j] ? s.out[j] : 1) != hipSuccess || hipMemset(p, 0xff, s.out[j]) != hipSuccess) return false;
        d.out.push_back(p);
    }
    return true;
}

static void poison(const sizes& s, const device_set& d) {
    for (size_t j = 0; j < s.out.size(); ++j) (void)hipMemset(d.out[j], 0xff, s.out[j]);
}

static std::vector<std::vector<char>> read_back(const sizes& s, const device_set& d) {
    std::vector<std::vector<char>> r;
    for (size_t j = 0; j < s.out.size(); ++j) {
        r.emplace_back(s.out[j]);
        if (hipMemcpy(r.back().data(), d.out[j], s.out[j], hipMemcpyDeviceToHost) != hipSuccess) failures++;
    }
    return r;
}

int main(int argc, char** argv) {
    int iterations = argc > 1 ? atoi(argv[1]) : 200;
    mxc_model* m = nullptr;
    sizes s;
    std::vector<std::vector<char>> host_in, ref;
    CHECK(g_create(&m, NULL) == MXC_OK);
    for (size_t i = 0; i < g_num_inputs(m); ++i) {
        mxc_tensor_info info;
        CHECK(g_input_info(m, i, &info) == MXC_OK);
        s.in.push_back(info.bytes);
        host_in.emplace_back(info.bytes);
        if (info.dtype == MXC_FLOAT32)
            for (size_t k = 0; k < info.bytes / 4; ++k)
                reinterpret_cast<float*>(host_in.back().data())[k] = static_cast<float>((k * 37 + i * 11) % 97) / 48.f - 1;
    }
    for (size_t j = 0; j < g_num_outputs(m); ++j) {
        mxc_tensor_info info;
        CHECK(g_output_info(m, j, &info) == MXC_OK);
        s.out.push_back(info.bytes);
        s.out_dtype.push_back(info.dtype);
        ref.emplace_back(info.bytes);
    }
    std::vector<const void*> in;
    std::vector<void*> out;
    for (auto& b : host_in) in.push_back(b.data());
    for (auto& b : ref) out.push_back(b.data());
    CHECK(g_run(m, in.data(), out.data()) == MXC_OK); // the reference: offload mode, first run
    {
        std::vector<std::vector<char>> again(ref);
        std::vector<void*> again_out;
        for (auto& b : again) memset(b.data(), 0xff, b.size()), again_out.push_back(b.data());
        CHECK(g_run(m, in.data(), again_out.data()) == MXC_OK); // a replay into other host buffers
        compare("offload mode, other output buffers", s, ref, again);
    }
    g_destroy(m);
    m = nullptr;

    // Device-pointer mode: sets a, b, a (b's graph must not be replayed for a).
    device_set a, b;
    CHECK(make_set(s, host_in, a) && make_set(s, host_in, b));
    mxc_options o;
    memset(&o, 0, sizeof o);
    o.device_pointers = 1;
    mxc_model* dp = nullptr;
    CHECK(g_create(&dp, &o) == MXC_OK);
    m = dp;
    CHECK(g_run(dp, const_cast<const void* const*>(a.in.data()), a.out.data()) == MXC_OK);
    compare("device pointers, set a", s, ref, read_back(s, a));
    CHECK(g_run(dp, const_cast<const void* const*>(b.in.data()), b.out.data()) == MXC_OK);
    compare("device pointers, set b", s, ref, read_back(s, b));
    poison(s, a);
    CHECK(g_run(dp, const_cast<const void* const*>(a.in.data()), a.out.data()) == MXC_OK);
    compare("device pointers, set a again", s, ref, read_back(s, a));

    o.no_graph = 1;
    mxc_model* direct = nullptr;
    CHECK(g_create(&direct, &o) == MXC_OK);
    m = direct;
    poison(s, b);
    CHECK(g_run(direct, const_cast<const void* const*>(b.in.data()), b.out.data()) == MXC_OK);
    compare("device pointers, no_graph", s, ref, read_back(s, b));

    // run_async on the program's stream: pinned host buffers (offload mode), then device ones.
    hipStream_t stream = nullptr;
    CHECK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking) == hipSuccess);
    mxc_model* off = nullptr;
    CHECK(g_create(&off, NULL) == MXC_OK);
    m = off;
    std::vector<const void*> pin_in;
    std::vector<void*> pin_out;
    for (size_t i = 0; i < s.in.size(); ++i) {
        void* p = nullptr;
        CHECK(hipHostMalloc(&p, s.in[i] ? s.in[i] : 1, 0) == hipSuccess);
        memcpy(p, host_in[i].data(), s.in[i]);
        pin_in.push_back(p);
    }
    for (size_t j = 0; j < s.out.size(); ++j) {
        void* p = nullptr;
        CHECK(hipHostMalloc(&p, s.out[j] ? s.out[j] : 1, 0) == hipSuccess);
        memset(p, 0xff, s.out[j]);
        pin_out.push_back(p);
    }
    CHECK(g_run_async(off, pin_in.data(), pin_out.data(), stream) == MXC_OK);
    CHECK(hipStreamSynchronize(stream) == hipSuccess);
    std::vector<std::vector<char>> got;
    for (size_t j = 0; j < s.out.size(); ++j)
        got.emplace_back(static_cast<char*>(pin_out[j]), static_cast<char*>(pin_out[j]) + s.out[j]);
    compare("run_async, pinned host memory", s, ref, got);
    m = dp;
    poison(s, b);
    CHECK(g_run_async(dp, const_cast<const void* const*>(b.in.data()), b.out.data(), stream) == MXC_OK);
    CHECK(hipStreamSynchronize(stream) == hipSuccess);
    compare("run_async, device pointers", s, ref, read_back(s, b));

    // Host time per run on device memory: synchronous runs, then run_async back to back.
    double us[2][2];
    mxc_model* which[2] = {dp, direct};
    for (int k = 0; k < 2; ++k) {
        m = which[k];
        for (int i = 0; i < 10; ++i)
            CHECK(g_run(m, const_cast<const void* const*>(a.in.data()), a.out.data()) == MXC_OK);
        double t = now_us();
        for (int i = 0; i < iterations; ++i)
            CHECK(g_run(m, const_cast<const void* const*>(a.in.data()), a.out.data()) == MXC_OK);
        us[k][0] = (now_us() - t) / iterations;
        t = now_us();
        for (int i = 0; i < iterations; ++i)
            CHECK(g_run_async(m, const_cast<const void* const*>(a.in.data()), a.out.data(), stream) == MXC_OK);
        CHECK(hipStreamSynchronize(stream) == hipSuccess);
        us[k][1] = (now_us() - t) / iterations;
    }
    printf("hip_graphs: run on device memory: graphs %.1f us, kernel by kernel %.1f us (synchronous, %d runs)\n",
           us[0][0], us[1][0], iterations);
    printf("hip_graphs: run_async back to back: graphs %.1f us/run, kernel by kernel %.1f us/run\n", us[0][1],
           us[1][1]);
    compare("after the timed runs", s, ref, read_back(s, a));

    for (auto* p : pin_in) (void)hipHostFree(const_cast<void*>(p));
    for (auto* p : pin_out) (void)hipHostFree(p);
    for (device_set* d : {&a, &b}) {
        for (void* p : d->in) (void)hipFree(p);
        for (void* p : d->out) (void)hipFree(p);
    }
    g_destroy(off);
    g_destroy(dp);
    g_destroy(direct);
    (void)hipStreamDestroy(stream);
    printf("hip_graphs: %s\n", failures ? "FAIL" : "PASS");
    return failures ? 1 : 0;
}
