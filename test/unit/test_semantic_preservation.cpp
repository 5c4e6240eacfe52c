// Semantic preservation: the reference result of a program is the same before and after the
// default pass pipeline, for every small zoo model (tools/models/zoo.py --small, built here
// with /usr/bin/python3) and for every ONNX conformance node test whose unoptimised program
// imports and evaluates (../shared/onnx-tests; skipped, saying so, when absent).
#include "compiler/onnx_import.hpp"
#include "compiler/onnx_node.hpp"
#include "compiler/session.hpp"
#include "ir/error.hpp"
#include "ir/eval.hpp"
#include "templates/common/math.hpp"
#include "passes/pass_manager.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace mxc;

namespace {

// |a - b| <= atol + rtol * |b| everywhere; returns a message for the first mismatch.
std::string compare(const literal& a, const literal& b, double rtol, double atol) {
    if (a.s.lens != b.s.lens || a.s.type != b.s.type) return "shapes differ: " + to_string(a.s) + " vs " + to_string(b.s);
    auto x = a.to_doubles(), y = b.to_doubles();
    // Fused kernels keep intermediates in float: 16-bit results may move by an ulp or two.
    if (a.s.type == dtype::bf16_type) rtol = std::max(rtol, 1.0 / 64);
    if (a.s.type == dtype::half_type) rtol = std::max(rtol, 1.0 / 512);
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (std::isnan(x[i]) && std::isnan(y[i])) continue;
        if (x[i] == y[i]) continue;
        if (!(std::abs(x[i] - y[i]) <= atol + rtol * std::abs(y[i])))
            return "element " + std::to_string(i) + ": " + std::to_string(x[i]) + " vs " + std::to_string(y[i]);
    }
    return "";
}

std::map<std::string, literal> random_inputs(const module& m, unsigned seed) {
    std::mt19937 rng(seed);
    std::map<std::string, literal> in;
    for (auto* p : m.params()) {
        shape s = p->result.as_standard();
        std::vector<double> v(static_cast<std::size_t>(s.elements()));
        std::uniform_real_distribution<double> real(-1, 1);
        std::uniform_int_distribution<int> small(0, 1); // valid ids and mask values
        for (auto& x : v) x = is_floating(s.type) ? real(rng) : small(rng);
        std::vector<char> bytes(static_cast<std::size_t>(s.bytes()));
        mxc_visit_dtype(static_cast<int>(s.type), [&](auto tag) {
            using T = decltype(tag);
            for (std::size_t i = 0; i < v.size(); ++i)
                reinterpret_cast<T*>(bytes.data())[i] = T(static_cast<mxc_compute_t<T>>(v[i]));
        });
        in.emplace(p->param_name, literal(s, std::move(bytes)));
    }
    return in;
}

// Evaluates before and after the default pipeline; an empty string when they agree.
std::string check_program(program p, const std::map<std::string, literal>& inputs, double rtol, double atol) {
    auto before = evaluate(p.main(), inputs);
    run_passes(p, default_pipeline());
    auto after = evaluate(p.main(), inputs);
    if (before.size() != after.size()) return "output counts differ";
    for (std::size_t i = 0; i < before.size(); ++i)
        if (auto msg = compare(after[i], before[i], rtol, atol); !msg.empty()) return "output " + std::to_string(i) + ": " + msg;
    return "";
}

class zoo_small : public ::testing::TestWithParam<std::string> {};

TEST_P(zoo_small, optimised_equals_unoptimised) {
    std::string name = GetParam();
    if (!fs::exists("/usr/bin/python3")) GTEST_SKIP() << "/usr/bin/python3 (with onnx) is not installed";
    auto dir = fs::temp_directory_path() / ("mxc-zoo-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    auto path = (dir / (name + ".onnx")).string();
    std::string cmd = "/usr/bin/python3 " MXC_SOURCE_DIR "/tools/models/zoo.py " + name + " --small -o " + path;
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    auto p = import_onnx(path);
    fs::remove_all(dir);
    auto inputs = random_inputs(p.main(), 7);
    auto msg = check_program(std::move(p), inputs, 1e-3, 1e-4);
    EXPECT_EQ(msg, "") << name;
}

INSTANTIATE_TEST_SUITE_P(zoo, zoo_small, ::testing::Values("resnet50", "mobilenetv2", "bert-base", "yolo", "unet", "vit-b16"),
                         [](const auto& info) {
                             std::string n = info.param;
                             for (auto& c : n)
                                 if (c == '-') c = '_';
                             return n;
                         });

literal read_tensor(const fs::path& file) {
    std::ifstream f(file, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    onnx::TensorProto t;
    if (!t.ParseFromString(ss.str())) throw error("cannot parse " + file.string());
    return onnx_detail::tensor_to_literal(t, file.string());
}

TEST(conformance, optimised_equals_unoptimised) {
    fs::path root = fs::path(MXC_SOURCE_DIR) / ".." / "shared" / "onnx-tests" / "node";
    if (!fs::exists(root)) GTEST_SKIP() << "no conformance data at " << root;
    int checked = 0, skipped = 0;
    std::vector<std::string> failures;
    for (auto& entry : fs::directory_iterator(root)) {
        auto model = entry.path() / "model.onnx";
        auto data = entry.path() / "test_data_set_0";
        if (!fs::exists(model) || !fs::exists(data)) continue;
        try {
            auto p = import_onnx(model.string());
            std::map<std::string, literal> inputs;
            auto params = p.main().params();
            for (std::size_t i = 0; i < params.size(); ++i)
                inputs.emplace(params[i]->param_name, read_tensor(data / ("input_" + std::to_string(i) + ".pb")));
            evaluate(p.main(), inputs); // the unoptimised program must run: otherwise not a passing test
            auto msg = check_program(std::move(p), inputs, 1e-3, 1e-5);
            if (!msg.empty()) failures.push_back(entry.path().filename().string() + ": " + msg);
            ++checked;
        } catch (const std::exception&) {
            ++skipped;
        }
    }
    std::string all;
    for (auto& f : failures) all += f + "\n";
    EXPECT_TRUE(failures.empty()) << failures.size() << " of " << checked << " tests changed:\n" << all;
    EXPECT_GT(checked, 100);
    std::cout << "[ semantic ] " << checked << " conformance tests checked, " << skipped << " not importable/evaluable\n";
}

// mxc verify's reference runs the program as imported (session_options::optimise false): the
// example CNN's convolutions, bias adds and activations stay separate instructions there, and
// give the outputs of the optimised program.
TEST(verify_reference, runs_the_program_without_the_passes) {
    const std::string model = MXC_SOURCE_DIR "/examples/cnn.onnx";
    session_options o;
    o.target = "ref";
    o.quiet = true;
    auto optimised = open_session(model, o);
    o.optimise = false;
    auto imported = open_session(model, o);
    EXPECT_GT(imported->kernels.size(), optimised->kernels.size() + 4);
    auto in = make_inputs(*imported, {}, true);
    optimised->prepare(in);
    imported->prepare(in);
    optimised->execute();
    imported->execute();
    auto a = optimised->results(), b = imported->results();
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(compare(a[i], b[i], 1e-5, 1e-6), "") << "output " << i;
    o.target = "cpu";
    EXPECT_THROW(open_session(model, o), error);
}

} // namespace
