// The hip runtime stub on the host SIMT emulator (--offload-arch emu): runs captured as HIP
// graphs and replayed, re-captured when the buffer addresses change (a stale graph would
// read the old buffers: wrong answers), kernel by kernel with no_graph / MXC_NO_GRAPH and with
// profiling hooks, device-pointer mode (the emulator's device memory is host memory) and
// run_async on a caller's stream. The counts come from <name>_graph_stats (profiling builds).
#include "compiler/build_driver.hpp"
#include "compiler/library_api.hpp"
#include "ir/error.hpp"
#include "test/e2e/e2e_util.hpp"

// The caller's streams: made by the emulator's runtime, as a program using the library would.
#include "runtime-stub/emu/hip/hip_runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

using namespace mxc;

namespace {
using options = api_options;

// relu(x + y) for x {2, 3} and y {3} broadcast, and its transpose {3, 2}.
module graph_module() {
    module m;
    auto* x = m.add_param("x", shape(dtype::float_type, {2, 3}));
    auto* y = m.add_param("y", shape(dtype::float_type, {3}));
    auto* yb = m.add("multibroadcast", {y}, {{{"out_lens", std::vector<int64_t>{2, 3}}}});
    auto* r = m.add("relu", {m.add("add", {x, yb})});
    m.add_return({r, m.add("transpose", {r}, {{{"permutation", std::vector<int64_t>{1, 0}}}})});
    return m;
}

// One set of buffers: inputs filled from `seed`, outputs poisoned.
struct io {
    std::vector<float> x = std::vector<float>(6), y = std::vector<float>(3), r = std::vector<float>(6, -99),
                       t = std::vector<float>(6, -99);
    const void* in[2];
    void* out[2];
    explicit io(int seed) {
        fill(seed);
        in[0] = x.data(), in[1] = y.data();
        out[0] = r.data(), out[1] = t.data();
    }
    void fill(int seed) {
        for (int i = 0; i < 6; ++i) x[i] = static_cast<float>((i * 7 + seed * 3) % 11) - 5;
        for (int i = 0; i < 3; ++i) y[i] = static_cast<float>((i + seed) % 5) - 2;
        std::fill(r.begin(), r.end(), -99.f);
        std::fill(t.begin(), t.end(), -99.f);
    }
    void expect_right(const char* what) const {
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 3; ++j) {
                float want = std::max(0.f, x[i * 3 + j] + y[j]);
                EXPECT_EQ(r[i * 3 + j], want) << what << ": r[" << i << "][" << j << "]";
                EXPECT_EQ(t[j * 2 + i], want) << what << ": t[" << j << "][" << i << "]";
            }
    }
};

// graph_module built for the emulator (with profiling hooks) into dir and loaded.
struct graph_lib : library_api {
    int (*run_async)(void*, const void* const*, void* const*, void*) = nullptr;
    int (*graph_stats)(const void*, size_t*, size_t*, size_t*) = nullptr;
    int (*profile)(void*, const void* const*, void* const*, double*, double*) = nullptr;

    explicit graph_lib(const std::string& dir) : library_api(build(dir + "/libg.so"), "g") {
        get(run_async, "run_async");
        get(graph_stats, "graph_stats");
        get(profile, "profile");
    }
    static std::string build(const std::string& path) {
        module m = graph_module();
        build_options o;
        o.target = "hip";
        o.offload_arch = "emu";
        o.profile = true;
        compile_module(m, path, o);
        return path;
    }
    void* make(options o = {}) {
        void* m = nullptr;
        if (create(&m, &o) != 0) throw error(std::string("create: ") + last_error(m));
        return m;
    }
    // captures, replays, runs kernel by kernel
    std::vector<size_t> stats(void* m) {
        size_t c = 0, r = 0, d = 0;
        EXPECT_EQ(graph_stats(m, &c, &r, &d), 0) << last_error(m);
        return {c, r, d};
    }
};

graph_lib& lib() {
    static mxc_test::tmp_dir dir("hiprt");
    static graph_lib l(dir.path); // one emulator build for every test here
    return l;
}

using counts = std::vector<size_t>;
} // namespace

TEST(e2e_hip_runtime, offload_mode_captures_once_per_set_of_host_buffers) {
    auto& L = lib();
    void* m = L.make();
    io a(1), b(2);
    ASSERT_EQ(L.run(m, a.in, a.out), 0) << L.last_error(m);
    a.expect_right("first run");
    EXPECT_EQ(L.stats(m), (counts{1, 1, 0}));
    a.fill(3); // same buffers, new values: the replay reads them again
    ASSERT_EQ(L.run(m, a.in, a.out), 0) << L.last_error(m);
    a.expect_right("replay");
    EXPECT_EQ(L.stats(m), (counts{1, 2, 0}));
    ASSERT_EQ(L.run(m, b.in, b.out), 0) << L.last_error(m); // other host buffers: a new capture
    b.expect_right("other buffers");
    ASSERT_EQ(L.run(m, a.in, a.out), 0) << L.last_error(m); // the first graph is still cached
    a.expect_right("back to the first buffers");
    EXPECT_EQ(L.stats(m), (counts{2, 4, 0}));
    // Profiling times kernel by kernel (events between kernels), outside the graphs.
    double ms[8];
    ASSERT_EQ(L.profile(m, b.in, b.out, nullptr, ms), 0) << L.last_error(m);
    b.expect_right("profiled run");
    EXPECT_EQ(L.stats(m), (counts{2, 4, 1}));
    L.destroy(m);
}

TEST(e2e_hip_runtime, no_graph_option_and_environment_launch_kernel_by_kernel) {
    auto& L = lib();
    options o{};
    o.no_graph = 1;
    void* m = L.make(o);
    io a(4);
    for (int i = 0; i < 2; ++i) {
        a.fill(4 + i);
        ASSERT_EQ(L.run(m, a.in, a.out), 0) << L.last_error(m);
        a.expect_right("no_graph");
    }
    EXPECT_EQ(L.stats(m), (counts{0, 0, 2}));
    L.destroy(m);
    setenv("MXC_NO_GRAPH", "1", 1);
    m = L.make();
    unsetenv("MXC_NO_GRAPH");
    ASSERT_EQ(L.run(m, a.in, a.out), 0) << L.last_error(m);
    a.expect_right("MXC_NO_GRAPH");
    EXPECT_EQ(L.stats(m), (counts{0, 0, 1}));
    L.destroy(m);
    o.no_graph = 2;
    void* bad = nullptr;
    EXPECT_NE(L.create(&bad, &o), 0);
    EXPECT_NE(std::string(L.last_error(bad)).find("no_graph must be 0 or 1"), std::string::npos) << L.last_error(bad);
    L.destroy(bad);
}

TEST(e2e_hip_runtime, device_pointer_mode_recaptures_when_the_pointers_change) {
    auto& L = lib();
    options o{};
    o.device_pointers = 1; // the emulator's device memory is host memory
    void* m = L.make(o);
    io a(5), b(6);
    ASSERT_EQ(L.run(m, a.in, a.out), 0) << L.last_error(m);
    a.expect_right("buffers a");
    ASSERT_EQ(L.run(m, b.in, b.out), 0) << L.last_error(m);
    b.expect_right("buffers b");
    a.fill(7);
    ASSERT_EQ(L.run(m, a.in, a.out), 0) << L.last_error(m);
    a.expect_right("buffers a again");
    EXPECT_EQ(L.stats(m), (counts{2, 3, 0}));
    // Inputs from one set and outputs to another: a key of its own.
    const void* mixed_in[2] = {a.in[0], b.in[1]};
    void* mixed_out[2] = {b.out[0], a.out[1]};
    ASSERT_EQ(L.run(m, mixed_in, mixed_out), 0) << L.last_error(m);
    for (int i = 0; i < 6; ++i) EXPECT_EQ(b.r[i], std::max(0.f, a.x[i] + b.y[i % 3])) << i;
    EXPECT_EQ(L.stats(m)[0], 3u);
    // Only an input moves: a key of its own too.
    const void* moved_in[2] = {b.in[0], a.in[1]};
    ASSERT_EQ(L.run(m, moved_in, a.out), 0) << L.last_error(m);
    for (int i = 0; i < 6; ++i) EXPECT_EQ(a.r[i], std::max(0.f, b.x[i] + a.y[i % 3])) << i;
    EXPECT_EQ(L.stats(m)[0], 4u);
    // Buffers that change on every run: a few captures, then kernel by kernel, still right.
    // (All kept alive, so that the allocator cannot hand the same addresses out again.)
    std::vector<std::unique_ptr<io>> fresh;
    for (int i = 0; i < 12; ++i) {
        fresh.push_back(std::make_unique<io>(10 + i));
        ASSERT_EQ(L.run(m, fresh.back()->in, fresh.back()->out), 0) << L.last_error(m);
        fresh.back()->expect_right("fresh buffers");
    }
    counts s = L.stats(m);
    EXPECT_LE(s[0], 8u);
    EXPECT_GT(s[2], 0u);
    EXPECT_EQ(s[1] + s[2], 17u);
    L.destroy(m);
}

TEST(e2e_hip_runtime, run_async_on_a_callers_stream) {
    auto& L = lib();
    hipStream_t s = nullptr, own = nullptr;
    ASSERT_EQ(hipStreamCreateWithFlags(&s, hipStreamNonBlocking), hipSuccess);
    ASSERT_EQ(hipStreamCreateWithFlags(&own, hipStreamNonBlocking), hipSuccess);
    for (int device_pointers = 0; device_pointers < 2; ++device_pointers) {
        options o{};
        o.device_pointers = device_pointers;
        o.stream = own; // the instance's stream is the caller's too; captures stay private
        void* m = L.make(o);
        io a(20), b(21);
        ASSERT_EQ(L.run_async(m, a.in, a.out, s), 0) << L.last_error(m);
        ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
        a.expect_right("run_async on a caller's stream");
        ASSERT_EQ(L.run_async(m, b.in, b.out, nullptr), 0) << L.last_error(m); // the instance's stream
        ASSERT_EQ(hipStreamSynchronize(own), hipSuccess);
        b.expect_right("run_async on the instance's stream");
        a.fill(22);
        ASSERT_EQ(L.run(m, a.in, a.out), 0) << L.last_error(m);
        a.expect_right("run after run_async");
        EXPECT_EQ(L.stats(m), (counts{2, 3, 0})) << "device_pointers " << device_pointers;
        EXPECT_NE(L.run_async(m, nullptr, a.out, s), 0);
        L.destroy(m);
    }
    hipStreamDestroy(s);
    hipStreamDestroy(own);
}

// Split-K products (two, one after the other, sharing the fix-up counters at the start of the
// GEMM scratch: templates/hip/gemm.hpp, gemm_fixup_out) in a caller's workspace that holds
// garbage before every run: each run clears the counters first, and each product leaves them
// zero for the next. y = (x . w1) . w2, x {4, 512}, w1 {512, 256}, w2 {256, 32}: few tiles,
// deep K, so the rule splits both (the build's comments say so).
namespace {
std::vector<float> split_values(size_t n, int seed) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = float(int((i * 7 + size_t(seed) * 5) % 13) - 6) / 8.0f;
    return v;
}
std::vector<float> matmul(const std::vector<float>& a, const std::vector<float>& b, int64_t m, int64_t k, int64_t n) {
    std::vector<float> c(size_t(m * n));
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            double s = 0;
            for (int64_t q = 0; q < k; ++q) s += double(a[size_t(i * k + q)]) * double(b[size_t(q * n + j)]);
            c[size_t(i * n + j)] = float(s);
        }
    return c;
}
size_t occurrences(const std::string& path, const std::string& what) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string s = ss.str();
    size_t n = 0;
    for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
    return n;
}
} // namespace

TEST(e2e_hip_runtime, split_k_counters_are_zero_before_every_run) {
    const auto w1 = split_values(512 * 256, 1), w2 = split_values(256 * 32, 2);
    module m;
    auto* x = m.add_param("x", shape(dtype::float_type, {4, 512}));
    auto* h = m.add("dot", {x, m.add_literal(literal::from(dtype::float_type, {512, 256}, w1))});
    m.add_return({m.add("dot", {h, m.add_literal(literal::from(dtype::float_type, {256, 32}, w2))})});
    mxc_test::tmp_dir dir("hipsplit");
    build_options o;
    o.target = "hip";
    o.offload_arch = "emu";
    o.emit_src = dir.path + "/src";
    compile_module(m, dir.path + "/libs.so", o);
    const std::string src = dir.path + "/src/model.hip";
    ASSERT_EQ(occurrences(src, "split-K: "), 2u) << "both products split";
    ASSERT_EQ(occurrences(src, "static const int64_t split_counters = "), 1u) << "the counters' place in the arena";
    ASSERT_EQ(occurrences(src, "static const int64_t split_counters = -1;"), 0u) << "the counters' place in the arena";
    ASSERT_EQ(occurrences(src, "hipMemsetAsync("), 0u) << "a kernel, not a memset node";

    library_api L(dir.path + "/libs.so", "s");
    size_t (*workspace_bytes)() = nullptr;
    L.get(workspace_bytes, "workspace_bytes");
    const size_t need = workspace_bytes();
    void* ws = nullptr;
    ASSERT_EQ(hipMalloc(&ws, need), hipSuccess);
    options opt{};
    opt.workspace = ws;
    opt.workspace_bytes = need;
    // three runs of instance `inst`, each checked against the double reference; `poison`: the
    // workspace is overwritten before each (what another model sharing it left behind)
    auto runs = [&](void* inst, int seed, bool poison) {
        for (int run = 0; run < 3; ++run) {
            SCOPED_TRACE("run " + std::to_string(run) + (poison ? " (workspace)" : " (own arena)"));
            if (poison) ASSERT_EQ(hipMemset(ws, 0xff, need), hipSuccess);
            const auto xv = split_values(4 * 512, seed + run);
            const auto want = matmul(matmul(xv, w1, 4, 512, 256), w2, 4, 256, 32);
            std::vector<float> y(4 * 32, -99.0f);
            const void* in[] = {xv.data()};
            void* out[] = {y.data()};
            ASSERT_EQ(L.run(inst, in, out), 0) << L.last_error(inst);
            for (size_t i = 0; i < y.size(); ++i) ASSERT_NEAR(y[i], want[i], 1e-3f * (1.0f + std::fabs(want[i]))) << "element " << i;
        }
    };
    void* inst = nullptr;
    ASSERT_EQ(L.create(&inst, &opt), 0) << L.last_error(inst);
    runs(inst, 3, true);
    L.destroy(inst);
    // the instance's own arena (not zeroed by hipMalloc: the emulator fills it with 0xa5 bytes)
    // is cleared once, at create, and every run leaves the counters zero for the next
    ASSERT_EQ(L.create(&inst, nullptr), 0) << L.last_error(inst);
    runs(inst, 7, false);
    L.destroy(inst);
    (void)hipFree(ws);
}
