#include "test_ops_util.hpp"

using namespace mxc;
using namespace mxc::test;

namespace {
struct conv2d {
    int64_t N, C, H, W, M, KH, KW, group;
    std::vector<int64_t> pads{0, 0, 0, 0}, stride{1, 1}, dil{1, 1};
};

// The direct formula of a grouped, strided, dilated, padded 2-D convolution.
std::vector<double> naive(const conv2d& c, const std::vector<float>& x, const std::vector<float>& w, int64_t& OH,
                          int64_t& OW) {
    OH = (c.H + c.pads[0] + c.pads[2] - (c.KH - 1) * c.dil[0] - 1) / c.stride[0] + 1;
    OW = (c.W + c.pads[1] + c.pads[3] - (c.KW - 1) * c.dil[1] - 1) / c.stride[1] + 1;
    int64_t cg = c.C / c.group, mg = c.M / c.group;
    std::vector<double> y;
    for (int64_t n = 0; n < c.N; ++n)
        for (int64_t m = 0; m < c.M; ++m)
            for (int64_t oh = 0; oh < OH; ++oh)
                for (int64_t ow = 0; ow < OW; ++ow) {
                    double s = 0;
                    for (int64_t ci = 0; ci < cg; ++ci)
                        for (int64_t kh = 0; kh < c.KH; ++kh)
                            for (int64_t kw = 0; kw < c.KW; ++kw) {
                                int64_t ih = oh * c.stride[0] - c.pads[0] + kh * c.dil[0];
                                int64_t iw = ow * c.stride[1] - c.pads[1] + kw * c.dil[1];
                                if (ih < 0 || ih >= c.H || iw < 0 || iw >= c.W) continue;
                                int64_t ch = (m / mg) * cg + ci;
                                s += double(x[((n * c.C + ch) * c.H + ih) * c.W + iw]) *
                                     double(w[((m * cg + ci) * c.KH + kh) * c.KW + kw]);
                            }
                    y.push_back(s);
                }
    return y;
}

void check(const conv2d& c) {
    auto x = values(c.N * c.C * c.H * c.W, 11), w = values(c.M * (c.C / c.group) * c.KH * c.KW, 12);
    int64_t OH, OW;
    auto want = naive(c, x, w, OH, OW);
    auto y = run_op("convolution", {flit({c.N, c.C, c.H, c.W}, x), flit({c.M, c.C / c.group, c.KH, c.KW}, w)},
                    attrs({{"padding", c.pads}, {"stride", c.stride}, {"dilation", c.dil}, {"group", c.group}}));
    EXPECT_EQ(y.s.lens, (std::vector<int64_t>{c.N, c.M, OH, OW}));
    expect_near(y.to_doubles(), want);
}
} // namespace

TEST(ops_convolution, by_hand_1d) {
    // x = [1 2 3 4], w = [1 0 -1], pad 1 both sides: y = [0-2, 1-3, 2-4, 3-0]
    auto y = run_op("convolution", {flit({1, 1, 4}, {1, 2, 3, 4}), flit({1, 1, 3}, {1, 0, -1})},
                    attrs({{"padding", std::vector<int64_t>{1, 1}}}));
    EXPECT_EQ(y.s.lens, (std::vector<int64_t>{1, 1, 4}));
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{-2, -2, -2, 3}));
}

TEST(ops_convolution, plain) { check({2, 3, 5, 6, 4, 3, 3, 1}); }
TEST(ops_convolution, padded_strided_dilated) {
    conv2d c{1, 2, 7, 6, 3, 3, 2, 1};
    c.pads = {1, 0, 2, 1};
    c.stride = {2, 1};
    c.dil = {1, 2};
    check(c);
}
TEST(ops_convolution, grouped) {
    conv2d c{2, 4, 5, 5, 6, 3, 3, 2};
    c.pads = {1, 1, 1, 1};
    check(c);
}
TEST(ops_convolution, depthwise) {
    conv2d c{1, 3, 4, 4, 3, 2, 2, 3};
    c.stride = {2, 2};
    check(c);
}

TEST(ops_convolution, strided_input_view) {
    // x stored as NHWC and transposed to NCHW: same result as the packed NCHW input.
    conv2d c{1, 2, 3, 4, 2, 2, 2, 1};
    auto xn = values(1 * 3 * 4 * 2, 5), w = values(2 * 2 * 2 * 2, 6);
    std::vector<float> x(xn.size());
    for (int64_t ch = 0; ch < 2; ++ch)
        for (int64_t h = 0; h < 3; ++h)
            for (int64_t ww = 0; ww < 4; ++ww) x[(ch * 3 + h) * 4 + ww] = xn[(h * 4 + ww) * 2 + ch];
    int64_t OH, OW;
    auto want = naive(c, x, w, OH, OW);
    auto y = run_module({flit({1, 3, 4, 2}, xn), flit({2, 2, 2, 2}, w)}, [](module& m, std::vector<instruction*>& p) {
        auto* t = m.add("transpose", {p[0]}, attrs({{"permutation", std::vector<int64_t>{0, 3, 1, 2}}}));
        return m.add("convolution", {t, p[1]});
    });
    expect_near(y.to_doubles(), want);
}

TEST(ops_convolution, shape_errors) {
    shape x(dtype::float_type, {1, 4, 5, 5});
    EXPECT_NE(shape_error("convolution", {x, shape(dtype::float_type, {2, 3, 3, 3})}).find("need 3 input channels"),
              std::string::npos);
    EXPECT_NE(shape_error("convolution", {x, shape(dtype::float_type, {2, 4, 3})}).find("rank"), std::string::npos);
    EXPECT_NE(shape_error("convolution", {x, shape(dtype::float_type, {2, 4, 7, 3})}).find("does not fit"),
              std::string::npos);
    EXPECT_NE(shape_error("convolution", {x, shape(dtype::float_type, {3, 2, 3, 3})}, attrs({{"group", int64_t{2}}}))
                  .find("group 2"),
              std::string::npos);
    EXPECT_NE(shape_error("convolution", {x, shape(dtype::float_type, {2, 4, 3, 3})},
                          attrs({{"stride", std::vector<int64_t>{0, 1}}}))
                  .find("stride {0, 1} must be >= 1"),
              std::string::npos);
    EXPECT_NE(shape_error("convolution", {x, shape(dtype::float_type, {2, 4, 3, 3})},
                          attrs({{"padding", std::vector<int64_t>{1, 1}}}))
                  .find("must have 4 values"),
              std::string::npos);
    EXPECT_NE(shape_error("convolution", {shape(dtype::float_type, {4, 5}), shape(dtype::float_type, {4, 5})})
                  .find("[N, C, spatial...]"),
              std::string::npos);
}
