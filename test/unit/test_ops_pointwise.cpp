#include "test_ops_util.hpp"

#include <cmath>

using namespace mxc;
using namespace mxc::test;

namespace {
std::vector<double> unary(const std::string& op, const std::vector<float>& x) {
    return run_op(op, {flit({static_cast<int64_t>(x.size())}, x)}).to_doubles();
}
std::vector<double> binary(const std::string& op, const std::vector<float>& a, const std::vector<float>& b) {
    int64_t n = static_cast<int64_t>(a.size());
    return run_op(op, {flit({n}, a), flit({n}, b)}).to_doubles();
}
std::vector<double> ibinary(const std::string& op, const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
    int64_t n = static_cast<int64_t>(a.size());
    return run_op(op, {ilit({n}, a), ilit({n}, b)}).to_doubles();
}
} // namespace

TEST(ops_pointwise, unary_float) {
    std::vector<float> x{-2.0f, -0.5f, 0.25f, 3.0f};
    std::vector<float> pos{0.5f, 1.0f, 2.0f, 9.0f};
    auto each = [](const std::vector<float>& v, double (*f)(double)) {
        std::vector<double> r;
        for (float e : v) r.push_back(f(e));
        return r;
    };
    expect_near(unary("relu", x), {0, 0, 0.25, 3});
    expect_near(unary("sigmoid", x), each(x, [](double v) { return 1 / (1 + std::exp(-v)); }));
    expect_near(unary("tanh", x), each(x, [](double v) { return std::tanh(v); }));
    expect_near(unary("neg", x), {2, 0.5, -0.25, -3});
    expect_near(unary("abs", x), {2, 0.5, 0.25, 3});
    expect_near(unary("exp", x), each(x, [](double v) { return std::exp(v); }));
    expect_near(unary("log", pos), each(pos, [](double v) { return std::log(v); }));
    expect_near(unary("sqrt", pos), {std::sqrt(0.5), 1, std::sqrt(2.0), 3});
}

TEST(ops_pointwise, binary_float) {
    std::vector<float> a{1, -2, 3, 0.5f}, b{4, 5, -6, 2};
    expect_near(binary("add", a, b), {5, 3, -3, 2.5});
    expect_near(binary("sub", a, b), {-3, -7, 9, -1.5});
    expect_near(binary("mul", a, b), {4, -10, -18, 1});
    expect_near(binary("div", a, b), {0.25, -0.4, -0.5, 0.25});
    expect_near(binary("max", a, b), {4, 5, 3, 2});
    expect_near(binary("min", a, b), {1, -2, -6, 0.5});
    expect_near(binary("pow", {2, 9, 0.5f, -2}, {3, 0.5f, 2, 2}), {8, 3, 0.25, 4});
}

TEST(ops_pointwise, binary_int64) {
    EXPECT_EQ(ibinary("add", {1, -2, 1ll << 40}, {3, 4, 1}), (std::vector<double>{4, 2, double((1ll << 40) + 1)}));
    EXPECT_EQ(ibinary("div", {7, -7, 5, 9}, {2, 2, 0, -1}), (std::vector<double>{3, -3, 0, -9}));
    EXPECT_EQ(ibinary("pow", {2, 3, 2, -1, 1}, {10, 0, -1, -3, -5}), (std::vector<double>{1024, 1, 0, -1, 1}));
    EXPECT_EQ(ibinary("min", {1, 5}, {3, -4}), (std::vector<double>{1, -4}));
    EXPECT_EQ(ibinary("mul", {6, -3}, {7, 5}), (std::vector<double>{42, -15}));
}

TEST(ops_pointwise, clip) {
    auto y = run_op("clip", {flit({4}, {-3, 0.5f, 2, 9}), flit({4}, {-1, -1, -1, -1}), flit({4}, {1, 1, 1, 1})});
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{-1, 0.5, 1, 1}));
}

TEST(ops_pointwise, strided_and_broadcast_inputs) {
    // a^T (a transposed view) + b broadcast along rows.
    auto a = flit({2, 3}, {0, 1, 2, 3, 4, 5});
    auto b = flit({2}, {10, 20});
    auto y = run_module({a, b}, [](module& m, std::vector<instruction*>& p) {
        auto* t = m.add("transpose", {p[0]}, attrs({{"permutation", std::vector<int64_t>{1, 0}}}));
        auto* bb = m.add("multibroadcast", {p[1]}, attrs({{"out_lens", std::vector<int64_t>{3, 2}}}));
        return m.add("add", {t, bb});
    });
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{10, 23, 11, 24, 12, 25}));
}

TEST(ops_pointwise, contiguous_packs_a_view) {
    auto y = run_module({flit({2, 3}, {0, 1, 2, 3, 4, 5})}, [](module& m, std::vector<instruction*>& p) {
        auto* t = m.add("transpose", {p[0]}, attrs({{"permutation", std::vector<int64_t>{1, 0}}}));
        return m.add("contiguous", {t});
    });
    EXPECT_TRUE(y.s.standard());
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{0, 3, 1, 4, 2, 5}));
}

TEST(ops_pointwise, convert_between_types) {
    auto to = [](const literal& x, const char* t) {
        return run_op("convert", {x}, attrs({{"target_type", std::string(t)}}));
    };
    auto f = flit({5}, {-2.7f, -0.0f, 0.5f, 3.9f, 70000.0f});
    EXPECT_EQ(to(f, "int64_type").to_doubles(), (std::vector<double>{-2, 0, 0, 3, 70000}));
    EXPECT_EQ(to(f, "bool_type").to_doubles(), (std::vector<double>{1, 0, 1, 1, 1}));
    auto h = to(f, "half_type");
    EXPECT_EQ(h.s.type, dtype::half_type);
    EXPECT_EQ(h.to_doubles(), (std::vector<double>{-2.69921875, 0, 0.5, 3.900390625, INFINITY}));
    auto bf = to(f, "bf16_type");
    EXPECT_EQ(bf.to_doubles()[2], 0.5);
    EXPECT_EQ(to(h, "float_type").to_doubles()[3], 3.900390625);
    EXPECT_EQ(to(ilit({3}, {-1, 0, 300}), "uint8_type").to_doubles(), (std::vector<double>{255, 0, 44}));
    EXPECT_EQ(to(ilit({3}, {-1, 0, 2}), "bool_type").to_doubles(), (std::vector<double>{1, 0, 1}));
    EXPECT_EQ(to(to(ilit({2}, {0, 5}), "bool_type"), "double_type").to_doubles(), (std::vector<double>{0, 1}));
    EXPECT_EQ(shape_error("convert", {shape(dtype::float_type, {2})}, attrs({{"target_type", std::string("str")}})),
              "convert: unknown target_type 'str'");
}

TEST(ops_pointwise, shape_errors) {
    shape a(dtype::float_type, {2, 3}), b(dtype::float_type, {3, 2}), c(dtype::int32_type, {2, 3});
    EXPECT_NE(shape_error("add", {a, b}).find("add: inputs must have the same type and lens"), std::string::npos);
    EXPECT_NE(shape_error("mul", {a, c}).find("mul: inputs must have the same type and lens"), std::string::npos);
    EXPECT_NE(shape_error("clip", {a, a}).find("expects 3 inputs"), std::string::npos);
}

TEST(ops_pointwise, every_op_has_a_float_kernel_and_expr) {
    for (auto* name : {"relu", "sigmoid", "tanh", "neg", "abs", "exp", "log", "sqrt", "add", "sub", "mul", "div", "max",
                       "min", "pow", "clip", "convert", "contiguous"}) {
        auto& d = get_op(name);
        EXPECT_TRUE(d.cpu[0] != nullptr) << name;
        EXPECT_FALSE(d.pointwise_expr.empty()) << name;
    }
}

TEST(ops_pointwise, half_and_bf16_compute_in_float) {
    auto to = [](const literal& x, const char* t) {
        return run_op("convert", {x}, attrs({{"target_type", std::string(t)}}));
    };
    auto a = to(flit({3}, {1.5f, -2.25f, 1000}), "half_type");
    auto b = to(flit({3}, {0.25f, 4, 24}), "half_type");
    auto s = run_op("add", {a, b});
    EXPECT_EQ(s.s.type, dtype::half_type);
    EXPECT_EQ(s.to_doubles(), (std::vector<double>{1.75, 1.75, 1024}));
    auto e = run_op("exp", {to(flit({2}, {0, 1}), "bf16_type")});
    EXPECT_EQ(e.s.type, dtype::bf16_type);
    EXPECT_EQ(e.to_doubles()[0], 1.0);
    EXPECT_NEAR(e.to_doubles()[1], 2.71875, 1e-9); // e rounded to bfloat16
}
