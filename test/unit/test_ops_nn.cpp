// Kernels of the nn family: reduce_prod, class_select, resize, grid_sample, and softmax of a fully masked (all -inf) row.
#include "test_ops_util.hpp"

#include <cmath>
#include <limits>

using namespace mxc;
using namespace mxc::test;

TEST(ops_nn, reduce_prod) {
    auto y = run_op("reduce_prod", {flit({2, 3}, {1, 2, 3, 4, 5, 6})}, attrs({{"axes", std::vector<int64_t>{1}}}));
    EXPECT_EQ(y.s.lens, (std::vector<int64_t>{2, 1}));
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{6, 120}));
    // An empty reduction is the identity 1.
    auto e = run_op("reduce_prod", {flit({2, 0}, {})}, attrs({{"axes", std::vector<int64_t>{1}}}));
    EXPECT_EQ(e.to_doubles(), (std::vector<double>{1, 1}));
}

TEST(ops_nn, class_select_ignores_and_out_of_range) {
    auto x = flit({2, 3}, {0, 1, 2, 3, 4, 5});
    auto y = run_op("class_select", {x, ilit({2}, {2, -1})}, attrs({{"ignore_index", int64_t{-1}}, {"has_ignore", int64_t{1}}}));
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{2, 0}));
    auto z = run_op("class_select", {x, ilit({2}, {1, 5})});
    EXPECT_EQ(z.to_doubles(), (std::vector<double>{1, 0}));
    // Spatial dims: x [1, 2, 2], target [1, 2].
    auto s = run_op("class_select", {flit({1, 2, 2}, {1, 2, 3, 4}), ilit({1, 2}, {1, 0})});
    EXPECT_EQ(s.to_doubles(), (std::vector<double>{3, 2}));
    EXPECT_NE(shape_error("class_select", {shape(dtype::float_type, {2, 3}), shape(dtype::float_type, {2})}).find("int32 or int64"),
              std::string::npos);
    EXPECT_NE(shape_error("class_select", {shape(dtype::float_type, {2, 3}), shape(dtype::int64_type, {3})}).find("must be {2}"),
              std::string::npos);
}

attributes resize_attrs(int64_t len, double scale, const std::string& mode, const std::string& coord,
                        const std::string& nearest = "round_prefer_floor") {
    return attrs({{"axis", int64_t{1}},
                  {"length", len},
                  {"mode", mode},
                  {"coordinate_transformation_mode", coord},
                  {"nearest_mode", nearest},
                  {"scale", scale}});
}

TEST(ops_nn, resize_linear_half_pixel) {
    auto y = run_op("resize", {flit({1, 4}, {0, 1, 2, 3})}, resize_attrs(8, 2.0, "linear", "half_pixel"));
    expect_near(y.to_doubles(), {0, 0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3});
}

TEST(ops_nn, resize_nearest_and_align_corners) {
    auto y = run_op("resize", {flit({1, 2}, {10, 20})}, resize_attrs(4, 2.0, "nearest", "asymmetric", "floor"));
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{10, 10, 20, 20}));
    auto a = run_op("resize", {flit({1, 2}, {0, 3})}, resize_attrs(4, 2.0, "linear", "align_corners"));
    expect_near(a.to_doubles(), {0, 1, 2, 3});
    // Cubic weights sum to 1: a constant stays constant.
    auto c = run_op("resize", {flit({1, 3}, {5, 5, 5})}, resize_attrs(7, 7.0 / 3, "cubic", "half_pixel"));
    expect_near(c.to_doubles(), std::vector<double>(7, 5));
    EXPECT_NE(shape_error("resize", {shape(dtype::float_type, {1, 3})}, attrs({{"mode", std::string("bogus")}})).find("unknown mode"),
              std::string::npos);
}

TEST(ops_nn, grid_sample_modes) {
    auto x = flit({1, 1, 2, 2}, {1, 2, 3, 4});
    auto at = [&](float gx, float gy, int64_t mode, int64_t pad, int64_t align) {
        return run_op("grid_sample", {x, flit({1, 1, 1, 2}, {gx, gy})},
                      attrs({{"mode", mode}, {"padding_mode", pad}, {"align_corners", align}}))
            .to_doubles()[0];
    };
    EXPECT_NEAR(at(0, 0, 1, 0, 0), 2.5, 1e-6);    // the centre: the mean of all four
    EXPECT_NEAR(at(-1, -1, 0, 0, 1), 1, 1e-6);    // a corner, nearest
    EXPECT_NEAR(at(-1, -1, 1, 0, 0), 0.25, 1e-6); // half a pixel outside: zeros padding
    EXPECT_NEAR(at(-1, -1, 1, 1, 0), 1, 1e-6);    // border padding
    EXPECT_NEAR(at(1, -1, 1, 0, 1), 2, 1e-6);     // x is the innermost dim
    EXPECT_NE(shape_error("grid_sample", {shape(dtype::float_type, {1, 1, 2, 2}), shape(dtype::float_type, {1, 1, 1, 3})})
                  .find("grid_sample:"),
              std::string::npos);
}

TEST(ops_nn, softmax_of_a_fully_masked_row) {
    const float inf = std::numeric_limits<float>::infinity();
    auto y = run_op("softmax", {flit({2, 2}, {-inf, -inf, 0, 0})});
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{0, 0, 0.5, 0.5}));
    auto l = run_op("log_softmax", {flit({1, 2}, {-inf, -inf})}).to_doubles();
    EXPECT_TRUE(std::isinf(l[0]) && l[0] < 0);
    // NaN still propagates.
    auto n = run_op("softmax", {flit({1, 2}, {std::nanf(""), 0})}).to_doubles();
    EXPECT_TRUE(std::isnan(n[0]) && std::isnan(n[1]));
}
