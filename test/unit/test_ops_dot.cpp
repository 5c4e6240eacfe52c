#include "test_ops_util.hpp"

using namespace mxc;
using namespace mxc::test;

namespace {
// Naive batched product of standard a [B, M, K] and b [B, K, N].
std::vector<double> naive_dot(const std::vector<float>& a, const std::vector<float>& b, int64_t B, int64_t M, int64_t K,
                              int64_t N) {
    std::vector<double> y(static_cast<std::size_t>(B * M * N), 0.0);
    for (int64_t q = 0; q < B; ++q)
        for (int64_t i = 0; i < M; ++i)
            for (int64_t j = 0; j < N; ++j) {
                double s = 0;
                for (int64_t k = 0; k < K; ++k) s += double(a[(q * M + i) * K + k]) * double(b[(q * K + k) * N + j]);
                y[(q * M + i) * N + j] = s;
            }
    return y;
}
} // namespace

TEST(ops_dot, by_hand) {
    auto y = run_op("dot", {flit({2, 2}, {1, 2, 3, 4}), flit({2, 3}, {5, 6, 7, 8, 9, 10})});
    EXPECT_EQ(y.s.lens, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{21, 24, 27, 47, 54, 61}));
}

TEST(ops_dot, batched_matches_naive) {
    auto a = values(2 * 3 * 5, 7), b = values(2 * 5 * 4, 9);
    auto y = run_op("dot", {flit({2, 3, 5}, a), flit({2, 5, 4}, b)});
    expect_near(y.to_doubles(), naive_dot(a, b, 2, 3, 5, 4));
}

// One row against a row-major b (templates/cpu/dot.hpp: the classifier path, gemv_cols:
// columns in work items of 512, 8 rows of b by 32 columns in registers, k summed in order),
// with columns past a work item and past the last whole tile, rows past the last 8, batches.
TEST(ops_dot, one_row_matches_naive) {
    auto a = values(3 * 1 * 37, 4), b = values(3 * 37 * 600, 5);
    auto y = run_op("dot", {flit({3, 1, 37}, a), flit({3, 37, 600}, b)});
    expect_near(y.to_doubles(), naive_dot(a, b, 3, 1, 37, 600));
}

TEST(ops_dot, transposed_and_broadcast_inputs) {
    // a given as [K, M] and transposed; b given as [K, N] and broadcast over a batch of 2.
    int64_t M = 3, K = 4, N = 2;
    auto at = values(K * M, 3), b = values(K * N, 4);
    auto y = run_module({flit({K, M}, at), flit({K, N}, b)}, [&](module& m, std::vector<instruction*>& p) {
        auto* t = m.add("transpose", {p[0]}, attrs({{"permutation", std::vector<int64_t>{1, 0}}}));
        auto* ta = m.add("multibroadcast", {t}, attrs({{"out_lens", std::vector<int64_t>{2, M, K}}}));
        auto* bb = m.add("multibroadcast", {p[1]}, attrs({{"out_lens", std::vector<int64_t>{2, K, N}}}));
        auto* bt = m.add("transpose", {bb}, attrs({{"permutation", std::vector<int64_t>{0, 2, 1}}}));
        auto* btt = m.add("transpose", {bt}, attrs({{"permutation", std::vector<int64_t>{0, 2, 1}}}));
        return m.add("dot", {ta, btt});
    });
    std::vector<float> a(static_cast<std::size_t>(M * K));
    for (int64_t i = 0; i < M; ++i)
        for (int64_t k = 0; k < K; ++k) a[i * K + k] = at[k * M + i];
    auto one = naive_dot(a, b, 1, M, K, N);
    one.insert(one.end(), one.begin(), one.end());
    expect_near(y.to_doubles(), one);
}

TEST(ops_dot, int64) {
    auto y = run_op("dot", {ilit({1, 2}, {3, -4}), ilit({2, 1}, {5, 6})});
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{-9}));
}

TEST(ops_dot, shape_errors) {
    shape a(dtype::float_type, {2, 3}), b(dtype::float_type, {4, 5});
    EXPECT_EQ(shape_error("dot", {a, b}), "dot: inner dims differ: {2, 3} x {4, 5}");
    EXPECT_NE(shape_error("dot", {shape(dtype::float_type, {3}), b}).find("rank"), std::string::npos);
    EXPECT_NE(shape_error("dot", {shape(dtype::float_type, {2, 2, 3}), shape(dtype::float_type, {3, 3, 1})})
                  .find("batch dims differ"),
              std::string::npos);
    EXPECT_NE(shape_error("dot", {a, shape(dtype::half_type, {3, 1})}).find("same type"), std::string::npos);
}
