#include "test_ops_util.hpp"

#include <cmath>

using namespace mxc;
using namespace mxc::test;

namespace {
// Naive softmax of a standard [A, B, C] tensor along `axis`.
std::vector<double> naive(const std::vector<float>& x, const std::vector<int64_t>& L, int axis, bool log) {
    std::vector<double> y(x.size());
    int64_t stride = 1;
    for (int d = 2; d > axis; --d) stride *= L[d];
    for (std::size_t e = 0; e < x.size(); ++e) {
        int64_t i = (int64_t(e) / stride) % L[axis];
        int64_t base = int64_t(e) - i * stride;
        double sum = 0;
        for (int64_t j = 0; j < L[axis]; ++j) sum += std::exp(double(x[base + j * stride]));
        y[e] = log ? double(x[e]) - std::log(sum) : std::exp(double(x[e])) / sum;
    }
    return y;
}
} // namespace

TEST(ops_softmax, every_axis) {
    std::vector<int64_t> L{2, 3, 4};
    auto x = values(24, 51);
    for (int axis = 0; axis < 3; ++axis)
        for (bool log : {false, true}) {
            SCOPED_TRACE(std::to_string(axis) + (log ? " log" : ""));
            auto y = run_op(log ? "log_softmax" : "softmax", {flit(L, x)}, attrs({{"axis", int64_t{axis}}}));
            expect_near(y.to_doubles(), naive(x, L, axis, log));
        }
    auto y = run_op("softmax", {flit(L, x)}); // default axis -1
    expect_near(y.to_doubles(), naive(x, L, 2, false));
}

TEST(ops_softmax, stable_for_large_inputs) {
    auto y = run_op("softmax", {flit({3}, {1000, 1000, 1000})});
    expect_near(y.to_doubles(), {1.0 / 3, 1.0 / 3, 1.0 / 3});
    auto l = run_op("log_softmax", {flit({2}, {-1000, 0})});
    expect_near(l.to_doubles(), {-1000, 0});
}

TEST(ops_softmax, strided_input_view) {
    auto x = values(6, 3);
    auto y = run_module({flit({2, 3}, x)}, [](module& m, std::vector<instruction*>& p) {
        auto* t = m.add("transpose", {p[0]}, attrs({{"permutation", std::vector<int64_t>{1, 0}}}));
        return m.add("softmax", {t}, attrs({{"axis", int64_t{1}}}));
    });
    // row i of the transposed view is column i of x
    std::vector<double> want;
    for (int i = 0; i < 3; ++i) {
        double s = std::exp(double(x[i])) + std::exp(double(x[3 + i]));
        want.push_back(std::exp(double(x[i])) / s);
        want.push_back(std::exp(double(x[3 + i])) / s);
    }
    expect_near(y.to_doubles(), want);
}

TEST(ops_softmax, shape_errors) {
    EXPECT_EQ(shape_error("softmax", {shape(dtype::float_type, {2, 3})}, attrs({{"axis", int64_t{2}}})),
              "softmax: axis 2 is out of range for {2, 3}");
}
