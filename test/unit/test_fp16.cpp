// --fp16 (passes/convert_fp16.cpp): fp32 accumulation and statistics in the f16 kernels,
// compile-time rounding of weights, the float32 API, the accuracy criterion of issue 6 on a
// small network, and overflow showing as inf.
#include "passes/pass_manager.hpp"
#include "test_ops_util.hpp"

#include <cmath>
#include <cstring>

using namespace mxc;
using namespace mxc::test;

namespace {
// Runs `build` in a program with float32 params for `inputs`, after `passes`.
literal run_with(const std::vector<std::string>& passes, const std::vector<literal>& inputs, const module_builder& build,
                 program* keep = nullptr) {
    program p;
    auto feed = build_module(p.main(), inputs, build);
    run_passes(p, passes);
    auto r = evaluate(p.main(), feed).at(0);
    if (keep) *keep = std::move(p);
    return r;
}

int count_type(const module& m, dtype t) {
    int n = 0;
    for (auto& ins : m.instructions) n += !ins.is_return() && ins.result.type == t;
    return n;
}

std::vector<float> filled(int64_t n, float v) { return std::vector<float>(static_cast<std::size_t>(n), v); }
} // namespace

// 4096 ones summed in f16 would stop at 2048 (2049 is not an f16 value): the kernels must
// accumulate in float. dot and convolution take the cpu GEMM path for half.
TEST(fp16, dot_and_convolution_accumulate_in_fp32) {
    program p;
    auto y = run_with({"convert-fp16"}, {flit({2, 4096}, filled(2 * 4096, 1))}, [](module& m, auto& ps) {
        return m.add("dot", {ps[0], m.add_literal(flit({4096, 16}, filled(4096 * 16, 1)))});
    }, &p);
    EXPECT_GT(count_type(p.main(), dtype::half_type), 0);
    for (double v : y.to_doubles()) ASSERT_EQ(v, 4096);
    auto c = run_with({"convert-fp16"}, {flit({1, 4096, 2, 2}, filled(4096 * 4, 1))}, [](module& m, auto& ps) {
        return m.add("convolution", {ps[0], m.add_literal(flit({8, 4096, 1, 1}, filled(8 * 4096, 1)))});
    });
    for (double v : c.to_doubles()) ASSERT_EQ(v, 4096);
}

// softmax, layer_norm and reduce_mean take f16 in and out and compute their statistics in float.
TEST(fp16, statistics_in_fp32) {
    auto s = run_with({"convert-fp16"}, {flit({1, 4096}, filled(4096, 0))},
                      [](module& m, auto& ps) { return m.add("softmax", {ps[0]}, attrs({{"axis", int64_t{1}}})); });
    for (double v : s.to_doubles()) ASSERT_EQ(v, 1.0 / 4096);
    auto r = run_with({"convert-fp16"}, {flit({1, 4096}, filled(4096, 1))},
                      [](module& m, auto& ps) { return m.add("reduce_mean", {ps[0]}, attrs({{"axes", std::vector<int64_t>{1}}})); });
    EXPECT_EQ(r.to_doubles().at(0), 1.0);
    std::vector<float> x(4096);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = i % 2 ? 1001.0f : 999.0f; // mean 1000, variance 1
    program p;
    auto n = run_with({"convert-fp16"}, {flit({1, 4096}, x)},
                      [](module& m, auto& ps) { return m.add("layer_norm", {ps[0]}, attrs({{"axis", int64_t{1}}})); }, &p);
    EXPECT_EQ(count_type(p.main(), dtype::float_type), 2); // the param and the output's convert
    auto nv = n.to_doubles();
    for (std::size_t i = 0; i < nv.size(); ++i) ASSERT_NEAR(nv[i], i % 2 ? 1.0 : -1.0, 1e-2) << i;
}

// Weights round to nearest even at compile time; one that does not fit keeps its user in f32.
TEST(fp16, weights_round_to_nearest_even) {
    program p;
    run_with({"convert-fp16"}, {flit({4}, filled(4, 1))}, [](module& m, auto& ps) {
        auto* w = m.add_literal(flit({4}, {65519.0f, 1.00048828125f, 1.00146484375f, 3e-8f}));
        auto* a = m.add("mul", {ps[0], w});
        auto* big = m.add_literal(flit({4}, {65520.0f, 1, 1, 1}));
        return m.add("mul", {a, big});
    }, &p);
    const instruction* half_weight = nullptr;
    const instruction* last_mul = nullptr;
    for (auto& ins : p.main().instructions) {
        if (ins.is_literal() && ins.result.type == dtype::half_type) half_weight = &ins;
        if (ins.op == "mul") last_mul = &ins;
    }
    ASSERT_NE(half_weight, nullptr);
    std::vector<uint16_t> bits(4);
    std::memcpy(bits.data(), half_weight->lit.data(), 8);
    EXPECT_EQ(bits, (std::vector<uint16_t>{0x7bff, 0x3c00, 0x3c02, 0x0001}));
    ASSERT_NE(last_mul, nullptr);
    EXPECT_EQ(last_mul->result.type, dtype::float_type); // 65520 would be inf in f16
}

// A small network: the f16 run meets issue 6's criterion (nRMS <= 1e-2) against float32,
// differs from it (it did run in f16), and keeps the float32 API.
TEST(fp16, network_meets_the_criterion) {
    auto build = [](module& m, std::vector<instruction*>& ps) {
        auto* w1 = m.add_literal(flit({64, 64}, values(64 * 64, 7)));
        auto* b1 = m.add("multibroadcast", {m.add_literal(flit({64}, values(64, 8)))},
                         attrs({{"out_lens", std::vector<int64_t>{8, 64}}}));
        auto* h = m.add("relu", {m.add("add", {m.add("dot", {ps[0], w1}), b1})});
        auto* w2 = m.add_literal(flit({64, 10}, values(64 * 10, 9)));
        return m.add("softmax", {m.add("dot", {h, w2})}, attrs({{"axis", int64_t{1}}}));
    };
    auto x = flit({8, 64}, values(8 * 64, 3));
    program p16;
    auto ref = run_with(default_pipeline(false), {x}, build).to_doubles();
    auto got = run_with(default_pipeline(true), {x}, build, &p16);
    EXPECT_EQ(got.s.type, dtype::float_type);
    EXPECT_EQ(p16.main().params().at(0)->result.type, dtype::float_type);
    EXPECT_GT(count_type(p16.main(), dtype::half_type), 3);
    auto g = got.to_doubles();
    double se = 0, maxb = 0;
    for (std::size_t i = 0; i < g.size(); ++i) {
        se += (g[i] - ref[i]) * (g[i] - ref[i]);
        maxb = std::max(maxb, std::fabs(ref[i]));
    }
    double nrms = std::sqrt(se / static_cast<double>(g.size())) / maxb;
    EXPECT_LE(nrms, 1e-2);
    EXPECT_GT(nrms, 0); // rounded to f16 somewhere
}

// Activations beyond 65504 become inf (IEEE), where float32 is finite: verify reports them.
TEST(fp16, overflow_is_inf) {
    auto build = [](module& m, std::vector<instruction*>& ps) {
        auto* k = m.add("multibroadcast", {m.add_literal(flit({}, {1000.0f}))}, attrs({{"out_lens", std::vector<int64_t>{3}}}));
        return m.add("mul", {m.add("mul", {ps[0], k}), k});
    };
    auto x = flit({3}, {1.0f, 0.01f, -2.0f});
    auto y32 = run_with(default_pipeline(false), {x}, build).to_doubles();
    auto y16 = run_with(default_pipeline(true), {x}, build).to_doubles();
    EXPECT_EQ(y32, (std::vector<double>{1e6, 1e4, -2e6}));
    EXPECT_TRUE(std::isinf(y16[0]) && y16[0] > 0);
    EXPECT_NEAR(y16[1], 1e4, 10);
    EXPECT_TRUE(std::isinf(y16[2]) && y16[2] < 0);
}
