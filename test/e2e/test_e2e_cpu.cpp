// End to end: build small modules into cpu libraries through the compile driver (the CLI's
// code path after import), load them with dlopen, check every C API argument error, run them
// and compare with the reference evaluator.
#include "compiler/build_driver.hpp"
#include "compiler/library_api.hpp"
#include "ir/error.hpp"
#include "ir/eval.hpp"
#include "passes/pass_manager.hpp"
#include "test/e2e/e2e_util.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

using namespace mxc;
namespace fs = std::filesystem;

namespace {
// The C API's types (compiler/library_api.hpp).
enum { ok = 0, invalid_argument = 1 };
using tensor_info = api_tensor_info;
using options = api_options;
using mxc_test::tmp_dir;

// A generated library opened with dlopen, its API looked up by prefix.
struct library : library_api {
    size_t (*workspace_bytes)();

    library(const std::string& path, const std::string& prefix) : library_api(path, prefix) {
        get(workspace_bytes, "workspace_bytes");
    }
};

// The CLI's path after import: the default pass pipeline, then lower/plan/emit/build.
build_stats compile(program& p, const std::string& out, build_options o = {}) {
    run_passes(p, default_pipeline());
    return compile_module(p.main(), out, o);
}

literal random_input(const shape& s, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-2, 2);
    std::vector<float> v(static_cast<std::size_t>(s.elements()));
    for (auto& x : v) x = dist(gen);
    return literal::from<float>(dtype::float_type, s.lens, v);
}

double max_relative_error(const float* got, const literal& want) {
    double worst = 0;
    for (int64_t i = 0; i < want.s.elements(); ++i) {
        double w = want.as<float>()[i], g = got[i];
        if (std::isnan(g) != std::isnan(w)) return INFINITY;
        if (!std::isnan(w)) worst = std::max(worst, std::fabs(g - w) / std::max(1.0, std::fabs(w)));
    }
    return worst;
}

// Runs every input through the library and checks every output against mxc::evaluate.
void expect_matches_reference(library& lib, void* m, const module& ref, unsigned seed) {
    std::map<std::string, literal> inputs;
    std::vector<const void*> in;
    for (std::size_t i = 0; i < lib.num_inputs(m); ++i) {
        tensor_info info{};
        ASSERT_EQ(lib.input_info(m, i, &info), ok);
        auto* p = ref.find_param(info.name);
        ASSERT_NE(p, nullptr) << info.name;
        inputs[info.name] = random_input(p->result, seed + static_cast<unsigned>(i));
        in.push_back(inputs[info.name].data());
    }
    auto want = evaluate(ref, inputs);
    ASSERT_EQ(want.size(), lib.num_outputs(m));
    std::vector<std::vector<float>> out_bufs;
    std::vector<void*> out;
    for (std::size_t j = 0; j < want.size(); ++j) {
        tensor_info info{};
        ASSERT_EQ(lib.output_info(m, j, &info), ok);
        ASSERT_EQ(info.bytes, static_cast<size_t>(want[j].s.bytes()));
        out_bufs.emplace_back(info.bytes / 4, NAN);
    }
    for (auto& b : out_bufs) out.push_back(b.data());
    ASSERT_EQ(lib.run(m, in.data(), out.data()), ok) << lib.last_error(m);
    for (std::size_t j = 0; j < want.size(); ++j)
        EXPECT_LE(max_relative_error(out_bufs[j].data(), want[j]), 1e-5) << "output " << j;
}

shape f32(std::vector<int64_t> lens) { return shape(dtype::float_type, std::move(lens)); }

// x[2,3,4] + broadcast w[3,4] -> relu -> two outputs: itself and its transpose; plus a
// convolution of a second input with weights.
program mixed_program() {
    program p;
    auto& m = p.main();
    auto* x = m.add_param("x", f32({2, 3, 4}));
    auto* img = m.add_param("image", f32({1, 2, 5, 5}));
    auto* w = m.add_literal(random_input(f32({3, 4}), 7));
    auto* wb = m.add("multibroadcast", {w}, {{{"out_lens", std::vector<int64_t>{2, 3, 4}}}});
    auto* r = m.add("relu", {m.add("add", {x, wb})});
    auto* t = m.add("transpose", {r}, {{{"permutation", std::vector<int64_t>{2, 0, 1}}}});
    auto* k = m.add_literal(random_input(f32({3, 2, 3, 3}), 9));
    auto* c = m.add("convolution", {img, k},
                    {{{"padding", std::vector<int64_t>{1, 1, 1, 1}}, {"stride", std::vector<int64_t>{2, 2}}}});
    // c has two users, so it stays in the arena even after fusion (the workspace tests need one)
    auto* cmax = m.add("reduce_max", {c}, {{{"axes", std::vector<int64_t>{1}}}});
    auto* cmaxb = m.add("multibroadcast", {cmax}, {{{"out_lens", c->result.lens}}});
    m.add_return({r, t, m.add("sub", {m.add("tanh", {c}), cmaxb})});
    return p;
}

std::string build_mixed(const tmp_dir& d, const std::string& file = "libmixed.so") {
    program p = mixed_program();
    std::string out = d.path + "/" + file;
    compile(p, out);
    return out;
}

std::string run_command(const std::string& cmd) {
    std::string out;
    if (FILE* f = popen((cmd + " 2>&1").c_str(), "r")) {
        char buf[512];
        while (std::fgets(buf, sizeof buf, f)) out += buf;
        pclose(f);
    }
    return out;
}
} // namespace

TEST(e2e_cpu, matches_the_reference_evaluator) {
    tmp_dir d;
    auto path = build_mixed(d);
    EXPECT_TRUE(fs::exists(d.path + "/libmixed.h"));
    library lib(path, "mixed");
    void* m = nullptr;
    ASSERT_EQ(lib.create(&m, nullptr), ok) << lib.last_error(m);
    EXPECT_EQ(lib.num_inputs(m), 2u);
    EXPECT_EQ(lib.num_outputs(m), 3u);
    tensor_info info{};
    ASSERT_EQ(lib.input_info(m, 1, &info), ok);
    EXPECT_STREQ(info.name, "image");
    EXPECT_EQ(info.rank, 4u);
    EXPECT_EQ(info.dims[3], 5);
    EXPECT_EQ(info.bytes, 2u * 25 * 4);
    ASSERT_EQ(lib.output_info(m, 1, &info), ok);
    EXPECT_EQ(info.dims[0], 4);
    EXPECT_EQ(info.strides[0], 6);
    program ref = mixed_program();
    for (unsigned seed : {1u, 2u, 3u}) expect_matches_reference(lib, m, ref.main(), seed);
    lib.destroy(m);
}

TEST(e2e_cpu, every_argument_error_returns_a_status_with_a_message) {
    tmp_dir d;
    library lib(build_mixed(d), "mixed");
    EXPECT_EQ(lib.create(nullptr, nullptr), invalid_argument);
    EXPECT_GT(std::strlen(lib.last_error(nullptr)), 0u);

    auto expect_create_fails = [&](options o, const char* words) {
        void* m = nullptr;
        EXPECT_EQ(lib.create(&m, &o), invalid_argument);
        ASSERT_NE(m, nullptr);
        EXPECT_NE(std::string(lib.last_error(m)).find(words), std::string::npos) << lib.last_error(m);
        const void* in[2] = {nullptr, nullptr};
        void* out[3] = {nullptr, nullptr, nullptr};
        EXPECT_EQ(lib.run(m, in, out), invalid_argument); // a failed instance cannot run
        lib.destroy(m);
    };
    expect_create_fails({1, 0, nullptr, nullptr, 0, 0}, "device");
    expect_create_fails({0, 2, nullptr, nullptr, 0, 0}, "device_pointers");
    int stream_dummy = 0;
    expect_create_fails({0, 0, &stream_dummy, nullptr, 0, 0}, "stream");
    alignas(256) static char small[256];
    size_t need = lib.workspace_bytes();
    ASSERT_GT(need, 0u);
    expect_create_fails({0, 0, nullptr, small, need - 1, 0}, "workspace");
    expect_create_fails({0, 0, nullptr, small + 1, need, 0}, "aligned");
    expect_create_fails({0, 0, nullptr, nullptr, 64, 0}, "workspace");
    expect_create_fails({0, 0, nullptr, nullptr, 0, 2}, "no_graph");

    void* m = nullptr;
    ASSERT_EQ(lib.create(&m, nullptr), ok);
    EXPECT_STREQ(lib.last_error(m), "");
    tensor_info info{};
    EXPECT_EQ(lib.input_info(m, 2, &info), invalid_argument);
    EXPECT_NE(std::string(lib.last_error(m)).find("index 2 is out of range (the model has 2 inputs)"), std::string::npos)
        << lib.last_error(m);
    EXPECT_EQ(lib.output_info(m, 3, &info), invalid_argument);
    EXPECT_NE(std::string(lib.last_error(m)).find("index 3 is out of range (the model has 3 outputs)"), std::string::npos)
        << lib.last_error(m);
    EXPECT_EQ(lib.output_info(m, static_cast<size_t>(-1), &info), invalid_argument);
    EXPECT_EQ(lib.output_info(m, 0, nullptr), invalid_argument);
    EXPECT_NE(std::string(lib.last_error(m)).find("output_info: info is NULL"), std::string::npos) << lib.last_error(m);
    EXPECT_EQ(lib.input_info(m, 0, nullptr), invalid_argument);
    EXPECT_NE(std::string(lib.last_error(m)).find("input_info: info is NULL"), std::string::npos) << lib.last_error(m);
    EXPECT_EQ(lib.input_info(nullptr, 0, &info), invalid_argument);
    EXPECT_EQ(lib.output_info(nullptr, 0, &info), invalid_argument);
    EXPECT_EQ(lib.num_inputs(nullptr), 2u);
    EXPECT_EQ(lib.num_outputs(nullptr), 3u);
    // The dtype and sizes the infos report agree with each other.
    for (size_t j = 0; j < 3; ++j) {
        ASSERT_EQ(lib.output_info(m, j, &info), ok);
        EXPECT_EQ(info.dtype, 0); // MXC_FLOAT32
        size_t n = 1;
        for (size_t k = 0; k < info.rank; ++k) n *= static_cast<size_t>(info.dims[k]);
        EXPECT_EQ(info.bytes, n * sizeof(float)) << info.name;
    }

    std::vector<float> a(24), b(50), o0(24), o1(24), o2(27);
    const void* in[2] = {a.data(), b.data()};
    void* out[3] = {o0.data(), o1.data(), o2.data()};
    EXPECT_EQ(lib.run(nullptr, in, out), invalid_argument);
    EXPECT_EQ(lib.run(m, nullptr, out), invalid_argument);
    EXPECT_NE(std::string(lib.last_error(m)).find("inputs"), std::string::npos);
    EXPECT_EQ(lib.run(m, in, nullptr), invalid_argument);
    const void* in_bad[2] = {a.data(), nullptr};
    EXPECT_EQ(lib.run(m, in_bad, out), invalid_argument);
    EXPECT_NE(std::string(lib.last_error(m)).find("image"), std::string::npos);
    void* out_bad[3] = {o0.data(), nullptr, o2.data()};
    EXPECT_EQ(lib.run(m, in, out_bad), invalid_argument);
    EXPECT_NE(std::string(lib.last_error(m)).find("output 1"), std::string::npos);
    EXPECT_EQ(lib.run(m, in, out), ok);
    EXPECT_STREQ(lib.last_error(m), "");
    lib.destroy(m);
    lib.destroy(nullptr);
}

// The entry points of --profile-hooks / --debug-trace builds check their arguments like run.
TEST(e2e_cpu, profiling_and_debug_entry_points_check_their_arguments) {
    tmp_dir d;
    program p = mixed_program();
    build_options bo;
    bo.profile = true;
    bo.debug_trace = true;
    compile(p, d.path + "/libtools.so", bo);
    library lib(d.path + "/libtools.so", "tools");
    struct kernel_info {
        const char *name, *op, *text, *inputs, *output;
        double flops, bytes;
        int dtype;
        int64_t elements;
    };
    size_t (*num_kernels)() = nullptr;
    const kernel_info* (*info_of)(size_t) = nullptr;
    int (*profile)(void*, const void* const*, void* const*, double*, double*) = nullptr;
    int (*debug_run)(void*, const void* const*, void* const*, void (*)(void*, size_t, const void*, size_t), void*) = nullptr;
    const char* (*build_info)() = nullptr;
    lib.get(num_kernels, "num_kernels");
    lib.get(info_of, "kernel_info");
    lib.get(profile, "profile");
    lib.get(debug_run, "debug_run");
    lib.get(build_info, "build_info");
    EXPECT_NE(std::string(build_info()).find("profile-hooks; debug-trace"), std::string::npos) << build_info();

    size_t n = num_kernels();
    ASSERT_GT(n, 0u);
    for (size_t i = 0; i < n; ++i) {
        const kernel_info* k = info_of(i);
        ASSERT_NE(k, nullptr);
        EXPECT_TRUE(k->name && k->op && k->text && k->inputs && k->output);
        EXPECT_GE(k->bytes, 0.0);
    }
    EXPECT_EQ(info_of(n), nullptr);
    EXPECT_EQ(info_of(static_cast<size_t>(-1)), nullptr);

    void* m = nullptr;
    ASSERT_EQ(lib.create(&m, nullptr), ok) << lib.last_error(m);
    std::vector<float> a(24), b(50), o0(24), o1(24), o2(27);
    const void* in[2] = {a.data(), b.data()};
    void* out[3] = {o0.data(), o1.data(), o2.data()};
    std::vector<double> start(n), time(n, -1);
    EXPECT_EQ(profile(nullptr, in, out, start.data(), time.data()), invalid_argument);
    EXPECT_EQ(profile(m, nullptr, out, start.data(), time.data()), invalid_argument);
    EXPECT_NE(std::string(lib.last_error(m)).find("inputs is NULL"), std::string::npos) << lib.last_error(m);
    EXPECT_EQ(profile(m, in, nullptr, start.data(), time.data()), invalid_argument);
    EXPECT_EQ(profile(m, in, out, start.data(), nullptr), invalid_argument);
    EXPECT_NE(std::string(lib.last_error(m)).find("profile: time_ms is NULL"), std::string::npos) << lib.last_error(m);
    EXPECT_EQ(profile(m, in, out, nullptr, time.data()), ok) << lib.last_error(m); // start_ms may be NULL
    for (double t : time) EXPECT_GE(t, 0.0);

    EXPECT_EQ(debug_run(nullptr, in, out, nullptr, nullptr), invalid_argument);
    const void* in_bad[2] = {nullptr, b.data()};
    EXPECT_EQ(debug_run(m, in_bad, out, nullptr, nullptr), invalid_argument);
    EXPECT_NE(std::string(lib.last_error(m)).find("input 0 ('x') is NULL"), std::string::npos) << lib.last_error(m);
    EXPECT_EQ(debug_run(m, in, out, nullptr, nullptr), ok) << lib.last_error(m); // no observer is fine
    struct seen_t {
        size_t calls = 0, bad = 0;
    } seen;
    auto observe = [](void* user, size_t kernel, const void* data, size_t bytes) {
        auto* s = static_cast<seen_t*>(user);
        s->calls++;
        if (!data && bytes) s->bad++;
        (void)kernel;
    };
    EXPECT_EQ(debug_run(m, in, out, observe, &seen), ok) << lib.last_error(m);
    EXPECT_EQ(seen.calls, n);
    EXPECT_EQ(seen.bad, 0u);
    lib.destroy(m);
}

TEST(e2e_cpu, two_instances_run_from_two_threads) {
    tmp_dir d;
    library lib(build_mixed(d), "mixed");
    program ref = mixed_program();
    void* a = nullptr;
    void* b = nullptr;
    ASSERT_EQ(lib.create(&a, nullptr), ok);
    ASSERT_EQ(lib.create(&b, nullptr), ok);
    std::thread ta([&] { for (unsigned s = 0; s < 20; ++s) expect_matches_reference(lib, a, ref.main(), 100 + s); });
    std::thread tb([&] { for (unsigned s = 0; s < 20; ++s) expect_matches_reference(lib, b, ref.main(), 200 + s); });
    ta.join();
    tb.join();
    lib.destroy(a);
    lib.destroy(b);
}

// run_async exists for every target; a cpu model takes no stream and runs synchronously.
TEST(e2e_cpu, run_async_without_a_stream_is_run) {
    tmp_dir d;
    library lib(build_mixed(d), "mixed");
    int (*run_async)(void*, const void* const*, void* const*, void*) = nullptr;
    lib.get(run_async, "run_async");
    void* m = nullptr;
    ASSERT_EQ(lib.create(&m, nullptr), ok) << lib.last_error(m);
    std::vector<std::vector<float>> in_bufs, a_bufs, b_bufs;
    std::vector<const void*> in;
    std::vector<void*> a, b;
    for (size_t i = 0; i < lib.num_inputs(m); ++i) {
        tensor_info info{};
        ASSERT_EQ(lib.input_info(m, i, &info), ok);
        in_bufs.emplace_back(info.bytes / sizeof(float));
        for (size_t k = 0; k < in_bufs.back().size(); ++k) in_bufs.back()[k] = 0.25f * static_cast<float>(k % 13) - 1;
    }
    for (auto& v : in_bufs) in.push_back(v.data());
    for (size_t j = 0; j < lib.num_outputs(m); ++j) {
        tensor_info info{};
        ASSERT_EQ(lib.output_info(m, j, &info), ok);
        a_bufs.emplace_back(info.bytes / sizeof(float), -7.f);
        b_bufs.emplace_back(info.bytes / sizeof(float), 9.f);
    }
    for (auto& v : a_bufs) a.push_back(v.data());
    for (auto& v : b_bufs) b.push_back(v.data());
    ASSERT_EQ(lib.run(m, in.data(), a.data()), ok) << lib.last_error(m);
    ASSERT_EQ(run_async(m, in.data(), b.data(), nullptr), ok) << lib.last_error(m);
    EXPECT_EQ(a_bufs, b_bufs);
    int not_a_stream = 0;
    EXPECT_EQ(run_async(m, in.data(), b.data(), &not_a_stream), invalid_argument);
    EXPECT_NE(std::string(lib.last_error(m)).find("takes no stream"), std::string::npos) << lib.last_error(m);
    EXPECT_EQ(run_async(m, nullptr, b.data(), nullptr), invalid_argument);
    lib.destroy(m);
}

TEST(e2e_cpu, caller_workspace) {
    tmp_dir d;
    library lib(build_mixed(d), "mixed");
    size_t need = lib.workspace_bytes();
    void* ws = std::aligned_alloc(256, (need + 255) / 256 * 256);
    std::memset(ws, 0xff, need); // garbage NaNs: the plan must not read before it writes
    options o{0, 0, nullptr, ws, need, 0};
    void* m = nullptr;
    ASSERT_EQ(lib.create(&m, &o), ok) << lib.last_error(m);
    program ref = mixed_program();
    expect_matches_reference(lib, m, ref.main(), 5);
    lib.destroy(m);
    std::free(ws);
}

// Storage sharing end to end (after the default pipeline, so with fusion): convolutions at
// batch 1 written straight into their slices of a channel concat (which then has no kernel),
// a param copied into its slice, a value in two slices, a concat of concats, a pointwise
// kernel in place of the concat and a convolution with a residual in place of it.
program sharing_program() {
    program p;
    auto& m = p.main();
    auto* img = m.add_param("image", f32({1, 2, 8, 8}));
    auto conv = [&](instruction* x, int64_t out_ch, unsigned seed) {
        auto* k = m.add_literal(random_input(f32({out_ch, x->result.lens[1], 3, 3}), seed));
        return m.add("convolution", {x, k}, {{{"padding", std::vector<int64_t>{1, 1, 1, 1}}}});
    };
    auto* a = m.add("relu", {conv(img, 4, 1)});
    auto* b = m.add("tanh", {m.add("neg", {conv(img, 2, 2)})});
    auto* c1 = m.add("concat", {a, b, img}, {{{"axis", int64_t{1}}}}); // 8 channels
    auto* d = m.add("sigmoid", {conv(c1, 4, 3)});
    auto* c2 = m.add("concat", {c1, d, d}, {{{"axis", int64_t{1}}}}); // 16 channels, d twice
    auto* e = m.add("add", {m.add("relu", {c2}), m.add("neg", {c2})}); // in place of c2
    auto* k1 = conv(e, 16, 4);
    auto* r = m.add("add", {conv(k1, 16, 5), e}); // a residual: in place of e
    m.add_return({conv(r, 3, 6), m.add("sigmoid", {k1})});
    return p;
}

TEST(e2e_cpu, in_place_and_concat_slices_match_the_reference) {
    tmp_dir d;
    program p = sharing_program();
    std::string out = d.path + "/libshare.so";
    auto st = compile(p, out);
    int in_place = 0, slices = 0;
    for (auto& b : st.plan.buffers) {
        in_place += b.in_place_of >= 0;
        slices += b.slice_of >= 0;
    }
    EXPECT_GE(in_place, 2);
    EXPECT_GE(slices, 4);
    library lib(out, "share");
    size_t need = lib.workspace_bytes();
    void* ws = std::aligned_alloc(256, (need + 255) / 256 * 256);
    std::memset(ws, 0xff, need); // NaNs: reading a slice that was never written shows
    options o{0, 0, nullptr, ws, need, 0};
    void* m = nullptr;
    ASSERT_EQ(lib.create(&m, &o), ok) << lib.last_error(m);
    program ref = sharing_program();
    for (unsigned s = 0; s < 3; ++s) expect_matches_reference(lib, m, ref.main(), 40 + s);
    lib.destroy(m);
    std::free(ws);
}

TEST(e2e_cpu, two_instances_with_their_own_workspaces_run_from_two_threads) {
    tmp_dir d;
    program p = sharing_program();
    std::string out = d.path + "/libshare2.so";
    compile(p, out);
    library lib(out, "share2");
    program ref = sharing_program();
    size_t need = lib.workspace_bytes();
    std::vector<void*> ws, models;
    for (int i = 0; i < 2; ++i) {
        ws.push_back(std::aligned_alloc(256, (need + 255) / 256 * 256));
        options o{0, 0, nullptr, ws.back(), need, 0};
        void* m = nullptr;
        ASSERT_EQ(lib.create(&m, &o), ok) << lib.last_error(m);
        models.push_back(m);
    }
    std::thread ta([&] { for (unsigned s = 0; s < 20; ++s) expect_matches_reference(lib, models[0], ref.main(), 300 + s); });
    std::thread tb([&] { for (unsigned s = 0; s < 20; ++s) expect_matches_reference(lib, models[1], ref.main(), 400 + s); });
    ta.join();
    tb.join();
    for (auto* m : models) lib.destroy(m);
    for (auto* w : ws) std::free(w);
}

TEST(e2e_cpu, exports_only_the_c_api_and_needs_only_the_c_runtime) {
    tmp_dir d;
    auto path = build_mixed(d);
    std::istringstream syms(run_command("nm -D --defined-only " + path));
    int api = 0;
    for (std::string line; std::getline(syms, line);) {
        auto name = line.substr(line.rfind(' ') + 1);
        EXPECT_EQ(name.rfind("mixed_", 0), 0u) << "unexpected export: " << line;
        ++api;
    }
    EXPECT_EQ(api, 12); // the C API of runtime-stub/model.h, build_info, set_num_threads and run_async included
    std::istringstream deps(run_command("ldd " + path));
    for (std::string line; std::getline(deps, line);) {
        bool allowed = false;
        for (const char* ok_lib : {"linux-vdso", "libstdc++", "libm.so", "libgcc_s", "libc.so", "ld-linux"})
            allowed |= line.find(ok_lib) != std::string::npos;
        EXPECT_TRUE(allowed) << line;
    }
}

TEST(e2e_cpu, same_input_gives_identical_sources) {
    tmp_dir d;
    auto emit = [&](const std::string& dir) {
        program p = mixed_program();
        build_options o;
        o.name = "same";
        o.emit_src = d.path + "/" + dir;
        compile(p, d.path + "/lib" + dir + ".so", o);
    };
    emit("one");
    emit("two");
    for (auto* f : {"model.cpp", "weights.cpp", "weights.bin", "mxc_model.h", "exports.map", "build.sh"}) {
        std::ifstream a(d.path + "/one/" + f, std::ios::binary), b(d.path + "/two/" + f, std::ios::binary);
        std::string sa((std::istreambuf_iterator<char>(a)), {}), sb((std::istreambuf_iterator<char>(b)), {});
        EXPECT_FALSE(sa.empty()) << f;
        EXPECT_EQ(sa, sb) << f;
    }
    EXPECT_TRUE(fs::exists(d.path + "/one/runtime-stub/runtime.hpp"));
    EXPECT_TRUE(fs::exists(d.path + "/one/templates/cpu/pointwise.hpp"));
}

TEST(e2e_cpu, a_c_program_links_two_models) {
    if (run_command("command -v cc").empty()) GTEST_SKIP() << "no C compiler (cc) to build the C program";
    tmp_dir d;
    build_mixed(d, "libfirst.so");
    {
        program p;
        auto& m = p.main();
        m.add_return({m.add("relu", {m.add_param("v", f32({4}))})});
        compile(p, d.path + "/libsecond.so");
    }
    std::ofstream(d.path + "/main.c") << R"(#include "libfirst.h"
#include "libsecond.h"
#include <stdio.h>
int main(void) {
    mxc_model* m = NULL;
    if (second_create(&m, NULL) != MXC_OK) return 1;
    float v[4] = {-1, 2, -3, 4}, r[4];
    const void* in[1] = {v};
    void* out[1] = {r};
    if (second_run(m, in, out) != MXC_OK) return 2;
    second_destroy(m);
    if (first_num_inputs(NULL) != FIRST_NUM_INPUTS || first_workspace_bytes() != FIRST_WORKSPACE_BYTES) return 3;
    printf("%g %g %g %g\n", r[0], r[1], r[2], r[3]);
    return 0;
}
)";
    std::string cmd = "cd " + d.path + " && cc -std=c99 -Wall -Werror -o main main.c -L. -lfirst -lsecond -Wl,-rpath," +
                      d.path + " && ./main";
    EXPECT_EQ(run_command(cmd), "0 2 0 4\n");
}

TEST(e2e_cpu, a_failed_build_leaves_nothing_at_the_output) {
    tmp_dir d;
    const char* old = std::getenv("CXX");
    std::string saved = old ? old : "";
    setenv("CXX", "false", 1);
    program p = mixed_program();
    std::string out = d.path + "/libbad.so";
    try {
        compile(p, out);
        ADD_FAILURE() << "the build should fail";
    } catch (const error& e) {
        EXPECT_NE(std::string(e.what()).find("failed"), std::string::npos) << e.what();
    }
    if (old) setenv("CXX", saved.c_str(), 1);
    else unsetenv("CXX");
    EXPECT_FALSE(fs::exists(out));
    EXPECT_FALSE(fs::exists(d.path + "/libbad.h"));
    EXPECT_TRUE(fs::is_empty(d.path)); // no temporary file either
}

TEST(e2e_cpu, a_missing_compiler_is_one_clear_error) {
    tmp_dir d;
    const char* old = std::getenv("CXX");
    std::string saved = old ? old : "";
    setenv("CXX", "/nonexistent/mxc-test-cxx", 1);
    program p = mixed_program();
    try {
        compile(p, d.path + "/libx.so");
        ADD_FAILURE() << "the build should fail";
    } catch (const error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot run '/nonexistent/mxc-test-cxx'"), std::string::npos) << e.what();
    }
    if (old) setenv("CXX", saved.c_str(), 1);
    else unsetenv("CXX");
    EXPECT_TRUE(fs::is_empty(d.path));
}

namespace {
// Products by constant matrices, which the cpu build stores as the GEMM's packed panels
// (codegen/dot_weights_strips.cpp): a partial last strip read by gemm_tail (50 = 3 x 16 + 2
// columns), one padded past its 5 real columns (21), K deeper than one depth slice (300 >
// 256), b broadcast over a batch, a fused bias and relu, single rows in five batches (folded
// into rows), one matrix read by two products and by a single row, which keeps the
// streaming kernel and its b as it is (so the panels are a copy: stored once for both), and
// one also read by an add (copied too, the original left for the add).
program strips_program() {
    program p;
    auto& m = p.main();
    auto* x1 = m.add_param("x1", f32({1, 20, 37}));
    auto* w1 = m.add_literal(random_input(f32({1, 37, 50}), 21));
    auto* x2 = m.add_param("x2", f32({2, 9, 300}));
    auto* w2 = m.add_literal(random_input(f32({300, 21}), 22));
    auto* w2b = m.add("multibroadcast", {w2}, {{{"out_lens", std::vector<int64_t>{2, 300, 21}}}});
    auto* x3 = m.add_param("x3", f32({24, 64}));
    auto* w3 = m.add_literal(random_input(f32({64, 48}), 23));
    auto* bias = m.add_literal(random_input(f32({48}), 24));
    auto* biasb = m.add("multibroadcast", {bias}, {{{"out_lens", std::vector<int64_t>{24, 48}}}});
    auto* y3 = m.add("relu", {m.add("add", {m.add("dot", {x3, w3}), biasb})});
    auto* x4 = m.add_param("x4", f32({5, 1, 33}));
    auto* w4 = m.add_literal(random_input(f32({33, 40}), 25));
    auto* w4b = m.add("multibroadcast", {w4}, {{{"out_lens", std::vector<int64_t>{5, 33, 40}}}});
    auto* x5 = m.add_param("x5", f32({12, 64}));
    auto* y5 = m.add("dot", {x5, w3}); // w3 again
    auto* x6 = m.add_param("x6", f32({16, 16}));
    auto* w6 = m.add_literal(random_input(f32({16, 16}), 26));
    auto* y6 = m.add("add", {m.add("dot", {x6, w6}), w6});
    auto* x7 = m.add_param("x7", f32({1, 64}));
    auto* y7 = m.add("dot", {x7, w3});
    m.add_return({m.add("dot", {x1, w1}), m.add("dot", {x2, w2b}), y3, m.add("dot", {x4, w4b}), y5, y6, y7});
    return p;
}
} // namespace

TEST(e2e_cpu, products_by_constant_matrices_read_them_as_packed_panels) {
    tmp_dir d;
    program p = strips_program();
    std::string out = d.path + "/libstrips.so";
    build_options o;
    o.emit_src = d.path + "/src";
    compile(p, out, o);
    std::string src;
    for (auto& f : fs::directory_iterator(o.emit_src))
        if (f.path().extension() == ".cpp") {
            std::ifstream in(f.path());
            src += std::string(std::istreambuf_iterator<char>(in), {});
        }
    std::size_t marked = 0;
    for (std::size_t at = src.find("<float, true>("); at != std::string::npos; at = src.find("<float, true>(", at + 1)) ++marked;
    EXPECT_EQ(marked, 6u) << "every product but the single row";
    library lib(out, "strips");
    void* m = nullptr;
    ASSERT_EQ(lib.create(&m, nullptr), ok) << lib.last_error(m);
    program ref = strips_program();
    for (unsigned s = 0; s < 3; ++s) expect_matches_reference(lib, m, ref.main(), 60 + s);
    lib.destroy(m);
}
