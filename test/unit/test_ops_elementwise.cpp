// The ops of ir/ops/elementwise.cpp, ir/ops/slice.cpp and ir/ops/tensor_ops.cpp through the
// reference evaluator (the same cpu kernels the generated libraries call).
#include "test_ops_util.hpp"

#include <cmath>
#include <limits>

using namespace mxc;
using namespace mxc::test;

namespace {
std::vector<double> f1(const std::string& op, const std::vector<float>& x) {
    return run_op(op, {flit({static_cast<int64_t>(x.size())}, x)}).to_doubles();
}
std::vector<double> i2(const std::string& op, const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
    int64_t n = static_cast<int64_t>(a.size());
    return run_op(op, {ilit({n}, a), ilit({n}, b)}).to_doubles();
}
literal blit(std::vector<int64_t> lens, const std::vector<bool>& v) {
    std::vector<char> d(v.begin(), v.end());
    return literal(shape(dtype::bool_type, std::move(lens)), std::move(d));
}
literal u8lit(std::vector<int64_t> lens, const std::vector<uint8_t>& v) {
    return literal::from<uint8_t>(dtype::uint8_type, std::move(lens), v);
}
} // namespace

TEST(ops_elementwise, unary_math) {
    std::vector<float> x{-1.5f, -0.5f, 0.5f, 2.5f};
    expect_near(f1("sin", x), {std::sin(-1.5), std::sin(-0.5), std::sin(0.5), std::sin(2.5)});
    expect_near(f1("atan", x), {std::atan(-1.5), std::atan(-0.5), std::atan(0.5), std::atan(2.5)});
    expect_near(f1("ceil", x), {-1, 0, 1, 3});
    expect_near(f1("floor", x), {-2, -1, 0, 2});
    expect_near(f1("round", x), {-2, -0.0, 0, 2}); // halves to even
    expect_near(f1("sign", x), {-1, -1, 1, 1});
    expect_near(f1("reciprocal", x), {-1 / 1.5, -2, 2, 0.4});
    expect_near(f1("softsign", x), {-1.5 / 2.5, -0.5 / 1.5, 0.5 / 1.5, 2.5 / 3.5});
    expect_near(f1("softplus", {-100, 0, 100}), {0, std::log(2.0), 100});
    expect_near(f1("acosh", {1, 2}), {0, std::acosh(2.0)});
}

TEST(ops_elementwise, mod_follows_divisor_fmod_follows_dividend) {
    EXPECT_EQ(i2("mod", {7, -7, 7, -7, 5}, {3, 3, -3, -3, 0}), (std::vector<double>{1, 2, -2, -1, 0}));
    EXPECT_EQ(i2("fmod", {7, -7, 7, -7, 5}, {3, 3, -3, -3, 0}), (std::vector<double>{1, -1, 1, -1, 0}));
    auto y = run_op("mod", {flit({2}, {-4.5f, 4.5f}), flit({2}, {2, -2})}).to_doubles();
    expect_near(y, {1.5, -1.5});
}

TEST(ops_elementwise, bitwise_and_shifts) {
    EXPECT_EQ(i2("bitwise_and", {12, -1}, {10, 5}), (std::vector<double>{8, 5}));
    EXPECT_EQ(i2("bitwise_xor", {12, 3}, {10, 3}), (std::vector<double>{6, 0}));
    auto l = run_op("shift_left", {u8lit({3}, {1, 3, 255}), u8lit({3}, {3, 7, 8})}).to_doubles();
    EXPECT_EQ(l, (std::vector<double>{8, 128, 0}));
    auto r = run_op("shift_right", {u8lit({2}, {200, 7}), u8lit({2}, {3, 1})}).to_doubles();
    EXPECT_EQ(r, (std::vector<double>{25, 3}));
    auto n = run_op("bitwise_not", {blit({2}, {true, false})}).to_doubles();
    EXPECT_EQ(n, (std::vector<double>{0, 1}));
}

TEST(ops_elementwise, comparisons_give_bool) {
    float nan = std::numeric_limits<float>::quiet_NaN();
    auto y = run_op("less", {flit({3}, {1, 2, nan}), flit({3}, {2, 2, 1})});
    EXPECT_EQ(y.s.type, dtype::bool_type);
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{1, 0, 0}));
    EXPECT_EQ(i2("greater_or_equal", {1, 2, 3}, {2, 2, 2}), (std::vector<double>{0, 1, 1}));
    EXPECT_EQ(run_op("equal", {flit({2}, {nan, 1}), flit({2}, {nan, 1})}).to_doubles(), (std::vector<double>{0, 1}));
    EXPECT_NE(shape_error("equal", {shape(dtype::float_type, {2}), shape(dtype::int64_type, {2})}), "");
}

TEST(ops_elementwise, where) {
    auto y = run_op("where", {blit({3}, {true, false, true}), flit({3}, {1, 2, 3}), flit({3}, {-1, -2, -3})});
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{1, -2, 3}));
    EXPECT_NE(shape_error("where", {shape(dtype::float_type, {3}), shape(dtype::float_type, {3}), shape(dtype::float_type, {3})}), "");
}

TEST(ops_elementwise, slice_with_negative_steps) {
    auto x = flit({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7});
    auto y = run_op("slice", {x}, attrs({{"starts", std::vector<int64_t>{1, 3}}, {"steps", std::vector<int64_t>{-1, -2}},
                                         {"out_lens", std::vector<int64_t>{2, 2}}}));
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{7, 5, 3, 1}));
    auto bad = shape_error("slice", {shape(dtype::float_type, {2, 4})},
                           attrs({{"starts", std::vector<int64_t>{0, 3}}, {"steps", std::vector<int64_t>{1, 1}},
                                  {"out_lens", std::vector<int64_t>{2, 2}}}));
    EXPECT_NE(bad.find("slice: axis 1"), std::string::npos) << bad;
}

TEST(ops_elementwise, arg_max_and_min) {
    auto x = flit({2, 3}, {1, 5, 5, 7, -2, 7});
    EXPECT_EQ(run_op("arg_max", {x}, attrs({{"axis", int64_t{1}}})).to_doubles(), (std::vector<double>{1, 0}));
    EXPECT_EQ(run_op("arg_max", {x}, attrs({{"axis", int64_t{1}}, {"select_last", int64_t{1}}})).to_doubles(),
              (std::vector<double>{2, 2}));
    auto y = run_op("arg_min", {x}, attrs({{"axis", int64_t{0}}}));
    EXPECT_EQ(y.s.lens, (std::vector<int64_t>{1, 3}));
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{0, 1, 0}));
}

TEST(ops_elementwise, cumulative) {
    auto x = flit({4}, {1, 2, 3, 4});
    auto run = [&](int64_t excl, int64_t rev, int64_t prod) {
        return run_op("cumulative", {x}, attrs({{"exclusive", excl}, {"reverse", rev}, {"product", prod}})).to_doubles();
    };
    EXPECT_EQ(run(0, 0, 0), (std::vector<double>{1, 3, 6, 10}));
    EXPECT_EQ(run(1, 0, 0), (std::vector<double>{0, 1, 3, 6}));
    EXPECT_EQ(run(0, 1, 0), (std::vector<double>{10, 9, 7, 4}));
    EXPECT_EQ(run(1, 1, 1), (std::vector<double>{24, 12, 4, 1}));
}

TEST(ops_elementwise, gather_elements) {
    auto data = flit({2, 2}, {1, 2, 3, 4});
    auto y = run_op("gather_elements", {data, ilit({2, 2}, {0, 0, -1, 0})}, attrs({{"axis", int64_t{1}}}));
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{1, 1, 4, 3}));
}
