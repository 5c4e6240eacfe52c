#include "test_ops_util.hpp"

#include <cmath>

using namespace mxc;
using namespace mxc::test;

TEST(ops_batch_norm, matches_formula) {
    const int64_t N = 2, C = 3, H = 2, W = 2;
    auto x = values(N * C * H * W, 41);
    std::vector<float> scale{1.5f, -2, 0.5f}, bias{0.1f, 0.2f, -0.3f}, mean{0.05f, -0.1f, 0.2f}, var{0.5f, 2, 0.01f};
    auto y = run_op("batch_norm_inference",
                    {flit({N, C, H, W}, x), flit({C}, scale), flit({C}, bias), flit({C}, mean), flit({C}, var)},
                    attrs({{"epsilon", 1e-3}}));
    std::vector<double> want;
    for (int64_t n = 0; n < N; ++n)
        for (int64_t c = 0; c < C; ++c)
            for (int64_t i = 0; i < H * W; ++i)
                want.push_back((x[(n * C + c) * H * W + i] - mean[c]) / std::sqrt(var[c] + 1e-3) * scale[c] + bias[c]);
    expect_near(y.to_doubles(), want, 1e-5);
}

TEST(ops_batch_norm, rank2_and_broadcast_statistics) {
    // x [2, 2]; mean is a broadcast view of a scalar.
    auto y = run_module({flit({2, 2}, {1, 2, 3, 4}), flit({2}, {1, 2}), flit({2}, {0, 1}), flit({1}, {1}), flit({2}, {1, 4})},
                        [](module& m, std::vector<instruction*>& p) {
                            auto* mean = m.add("multibroadcast", {p[3]}, attrs({{"out_lens", std::vector<int64_t>{2}}}));
                            return m.add("batch_norm_inference", {p[0], p[1], p[2], mean, p[4]},
                                         attrs({{"epsilon", 0.0}}));
                        });
    // c0: (x-1)/1*1+0 ; c1: (x-1)/2*2+1
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{0, 2, 2, 4}));
}

TEST(ops_batch_norm, shape_errors) {
    shape x(dtype::float_type, {1, 3, 2}), c(dtype::float_type, {3}), bad(dtype::float_type, {4});
    EXPECT_EQ(shape_error("batch_norm_inference", {x, c, c, bad, c}),
              "batch_norm_inference: mean must be {3} (the channels of x {1, 3, 2}), got {4}");
    EXPECT_NE(shape_error("batch_norm_inference", {x, c, shape(dtype::half_type, {3}), c, c}).find("bias must have the type"),
              std::string::npos);
    EXPECT_NE(shape_error("batch_norm_inference", {shape(dtype::float_type, {3}), c, c, c, c}).find("rank 2"),
              std::string::npos);
}
