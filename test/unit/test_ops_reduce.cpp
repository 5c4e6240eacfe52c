#include "test_ops_util.hpp"
#include "templates/cpu/reduce.hpp"
#include "test/unit/pool_case.hpp"
#include "test/unit/with_threads.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

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

// Runs of contiguous elements (the reduced axes last, x packed: mxc_reduce_run, 16 partial
// values from 32 elements on, a serial sum below): right against a sum in double for every
// kind, runs of 31 (serial), 32 and 49 (lanes and a tail), 210 (two axes); a NaN is skipped by
// max and min whichever lane holds it; and on 3 threads the same bits as on one.
TEST(ops_reduce, runs_in_lanes) {
    for (auto lens : std::vector<std::vector<int64_t>>{{6, 31}, {5, 32}, {5, 3, 7, 7}, {2, 3, 14, 15}}) {
        const bool planes = lens.size() == 4;
        const std::vector<int64_t> axes = planes ? std::vector<int64_t>{2, 3} : std::vector<int64_t>{1};
        const int64_t count = planes ? lens[2] * lens[3] : lens[1];
        int64_t n = 1;
        for (int64_t l : lens) n *= l;
        auto x = values(n, 77);
        if (count >= 40) x[size_t(count + 33)] = NAN, x[size_t(2 * count)] = NAN; // lanes 1 and 0 of two runs
        for (std::string kind : {"sum", "mean", "max", "min"}) {
            SCOPED_TRACE(kind + " " + to_string(lens));
            auto y = run_op("reduce_" + kind, {flit(lens, x)}, attrs({{"axes", axes}})).to_doubles();
            ASSERT_EQ(int64_t(y.size()), n / count);
            for (int64_t o = 0; o < n / count; ++o) {
                double acc = kind == "max" ? -INFINITY : kind == "min" ? INFINITY : 0;
                bool nan = false;
                for (int64_t r = 0; r < count; ++r) {
                    const double v = x[size_t(o * count + r)];
                    nan |= std::isnan(v);
                    acc = kind == "max" ? std::max(acc, std::isnan(v) ? acc : v)
                        : kind == "min" ? std::min(acc, std::isnan(v) ? acc : v)
                                        : acc + v;
                }
                if (kind == "mean") acc /= double(count);
                if (nan && (kind == "sum" || kind == "mean")) {
                    EXPECT_TRUE(std::isnan(y[size_t(o)])) << "output " << o;
                    continue;
                }
                EXPECT_NEAR(y[size_t(o)], acc, 1e-5 * (1 + std::fabs(acc))) << "output " << o;
            }
        }
    }
    // threads: 3000 runs of 64 (the pool takes pieces of whole runs)
    const std::vector<int64_t> lens{3000, 64};
    const auto x = values(3000 * 64, 5);
    const mxc_desc xd = mxc_test::desc_of(lens), od = mxc_test::desc_of({3000, 1});
    const int64_t ip[1] = {1};
    std::vector<float> one(3000), three(3000);
    for (auto* y : {&one, &three}) {
        const void* in[1] = {x.data()};
        const mxc_kargs k = {1, in, &xd, y->data(), &od, ip, 1, nullptr, 0, nullptr};
        mxc_test::with_threads(y == &one ? 1 : 3, [&] { mxc::cpu::reduce_sum<float>(k); });
    }
    EXPECT_EQ(std::memcmp(one.data(), three.data(), sizeof(float) * one.size()), 0);
    double acc = 0;
    for (int64_t r = 0; r < 64; ++r) acc += x[size_t(2999 * 64 + r)];
    EXPECT_NEAR(three[2999], acc, 1e-5 * (1 + std::fabs(acc)));
}

TEST(ops_reduce, shape_errors) {
    shape x(dtype::float_type, {2, 3});
    EXPECT_EQ(shape_error("reduce_sum", {x}, attrs({{"axes", std::vector<int64_t>{2}}})),
              "reduce_sum: axis 2 is out of range for {2, 3}");
    EXPECT_NE(shape_error("reduce_mean", {x}, attrs({{"axes", std::vector<int64_t>{1, 0}}})).find("sorted"),
              std::string::npos);
}
