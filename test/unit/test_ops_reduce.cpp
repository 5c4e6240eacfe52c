#include "test_ops_util.hpp"

#include <algorithm>
#include <cmath>

using namespace mxc;
using namespace mxc::test;

namespace {
// Naive reduction of a standard [2, 3, 4] tensor over `axes` (keeping dims).
std::vector<double> naive(const std::vector<float>& x, const std::vector<int64_t>& axes, const std::string& kind) {
    const int64_t L[3] = {2, 3, 4};
    int64_t O[3];
    for (int d = 0; d < 3; ++d) O[d] = std::find(axes.begin(), axes.end(), d) != axes.end() ? 1 : L[d];
    std::vector<double> y;
    for (int64_t a = 0; a < O[0]; ++a)
        for (int64_t b = 0; b < O[1]; ++b)
            for (int64_t c = 0; c < O[2]; ++c) {
                double acc = kind == "max" ? -INFINITY : kind == "min" ? INFINITY : 0;
                int64_t n = 0;
                for (int64_t i = 0; i < L[0]; ++i)
                    for (int64_t j = 0; j < L[1]; ++j)
                        for (int64_t k = 0; k < L[2]; ++k) {
                            if ((O[0] > 1 && i != a) || (O[1] > 1 && j != b) || (O[2] > 1 && k != c)) continue;
                            double v = x[(i * 3 + j) * 4 + k];
                            acc = kind == "max" ? std::max(acc, v) : kind == "min" ? std::min(acc, v) : acc + v;
                            ++n;
                        }
                y.push_back(kind == "mean" ? acc / double(n) : acc);
            }
    return y;
}
} // namespace

TEST(ops_reduce, all_kinds_all_axes_sets) {
    auto x = values(24, 31);
    for (std::string kind : {"sum", "mean", "max", "min"})
        for (auto axes : std::vector<std::vector<int64_t>>{{0}, {1}, {2}, {0, 2}, {1, 2}, {0, 1, 2}, {}}) {
            SCOPED_TRACE(kind + " " + to_string(axes));
            auto y = run_op("reduce_" + kind, {flit({2, 3, 4}, x)}, attrs({{"axes", axes}}));
            expect_near(y.to_doubles(), naive(x, axes, kind));
        }
}

TEST(ops_reduce, by_hand_and_int64) {
    auto y = run_op("reduce_sum", {flit({2, 2}, {1, 2, 3, 4})}, attrs({{"axes", std::vector<int64_t>{1}}}));
    EXPECT_EQ(y.s.lens, (std::vector<int64_t>{2, 1}));
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{3, 7}));
    auto m = run_op("reduce_max", {ilit({3}, {-5, 9, 2})}, attrs({{"axes", std::vector<int64_t>{0}}}));
    EXPECT_EQ(m.to_doubles(), (std::vector<double>{9}));
    auto mean = run_op("reduce_mean", {ilit({2}, {3, 4})}, attrs({{"axes", std::vector<int64_t>{0}}}));
    EXPECT_EQ(mean.to_doubles(), (std::vector<double>{3}));
}

TEST(ops_reduce, strided_input_view) {
    // Sum over axis 0 of a transposed [4, 3] view of a [3, 4] tensor = row sums of the tensor.
    auto x = values(12, 8);
    auto y = run_module({flit({3, 4}, x)}, [](module& m, std::vector<instruction*>& p) {
        auto* t = m.add("transpose", {p[0]}, attrs({{"permutation", std::vector<int64_t>{1, 0}}}));
        return m.add("reduce_sum", {t}, attrs({{"axes", std::vector<int64_t>{0}}}));
    });
    std::vector<double> want(3, 0);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j) want[i] += x[i * 4 + j];
    expect_near(y.to_doubles(), want);
}

TEST(ops_reduce, shape_errors) {
    shape x(dtype::float_type, {2, 3});
    EXPECT_EQ(shape_error("reduce_sum", {x}, attrs({{"axes", std::vector<int64_t>{2}}})),
              "reduce_sum: axis 2 is out of range for {2, 3}");
    EXPECT_NE(shape_error("reduce_mean", {x}, attrs({{"axes", std::vector<int64_t>{1, 0}}})).find("sorted"),
              std::string::npos);
}
