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

// The implicit GEMM (M >= 4 and C * KH * KW >= 4) packs its im2col panel run by run along
// output rows (templates/cpu/convolution.hpp, conv_pack_b::pack2d): rows wider and narrower
// than a block of 64 columns, runs that start in the left padding or end in the right one,
// rows wholly in the padding, strides and dilations that skip input columns, and more than
// one depth slice (C * KH * KW > 256).
TEST(ops_convolution, gemm_im2col_runs) {
    conv2d wide{1, 3, 5, 70, 5, 3, 3, 1};
    wide.pads = {1, 2, 1, 2};
    check(wide);
    conv2d narrow{2, 4, 6, 3, 6, 3, 3, 1};
    narrow.pads = {2, 1, 0, 1};
    check(narrow);
    conv2d strided{1, 5, 9, 11, 4, 3, 3, 1};
    strided.pads = {1, 1, 2, 2};
    strided.stride = {2, 3};
    check(strided);
    conv2d dilated{1, 4, 8, 9, 4, 3, 2, 1};
    dilated.pads = {2, 3, 2, 1};
    dilated.dil = {2, 3};
    check(dilated);
    conv2d padding_rows{1, 2, 2, 5, 4, 2, 2, 1};
    padding_rows.pads = {3, 4, 3, 4}; // output rows and columns that read only padding
    check(padding_rows);
    conv2d deep{1, 40, 6, 7, 8, 3, 3, 1}; // 360 im2col rows: two depth slices
    deep.pads = {1, 1, 1, 1};
    check(deep);
    conv2d strided_1x1{1, 8, 9, 9, 8, 1, 1, 1}; // ResNet's downsampling: 1x1, stride 2
    strided_1x1.stride = {2, 2};
    check(strided_1x1);
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

namespace {
// Direct formula for any spatial rank: x [N, C, sp...], w [M, C/group, k...], standard layout.
std::vector<double> naive_nd(const std::vector<int64_t>& xl, const std::vector<float>& x, const std::vector<int64_t>& wl,
                             const std::vector<float>& w, const std::vector<int64_t>& pads,
                             const std::vector<int64_t>& stride, const std::vector<int64_t>& dil, int64_t group,
                             std::vector<int64_t>& ol) {
    const std::size_t s = xl.size() - 2;
    ol = {xl[0], wl[0]};
    for (std::size_t d = 0; d < s; ++d)
        ol.push_back((xl[2 + d] + pads[d] + pads[s + d] - (wl[2 + d] - 1) * dil[d] - 1) / stride[d] + 1);
    auto count = [](const std::vector<int64_t>& l, std::size_t from) {
        int64_t n = 1;
        for (std::size_t i = from; i < l.size(); ++i) n *= l[i];
        return n;
    };
    const int64_t osp = count(ol, 2), ksp = count(wl, 2), xsp = count(xl, 2), cg = wl[1], mg = wl[0] / group;
    std::vector<double> y;
    for (int64_t n = 0; n < ol[0]; ++n)
        for (int64_t m = 0; m < ol[1]; ++m)
            for (int64_t o = 0; o < osp; ++o) {
                double acc = 0;
                for (int64_t c = 0; c < cg; ++c)
                    for (int64_t kk = 0; kk < ksp; ++kk) {
                        int64_t orest = o, krest = kk, xi = 0, xmul = 1;
                        bool in = true;
                        for (std::size_t d = s; d-- > 0;) {
                            int64_t od = orest % ol[2 + d], kd = krest % wl[2 + d];
                            orest /= ol[2 + d];
                            krest /= wl[2 + d];
                            int64_t p = od * stride[d] - pads[d] + kd * dil[d];
                            in = in && p >= 0 && p < xl[2 + d];
                            xi += p * xmul;
                            xmul *= xl[2 + d];
                        }
                        if (!in) continue;
                        int64_t ch = (m / mg) * cg + c;
                        acc += double(x[(n * xl[1] + ch) * xsp + xi]) * double(w[(m * cg + c) * ksp + kk]);
                    }
                y.push_back(acc);
            }
    return y;
}

void check_nd(std::vector<int64_t> xl, std::vector<int64_t> wl, std::vector<int64_t> pads, std::vector<int64_t> stride,
              std::vector<int64_t> dil, int64_t group) {
    auto count = [](const std::vector<int64_t>& l) {
        int64_t n = 1;
        for (auto v : l) n *= v;
        return n;
    };
    auto x = values(count(xl), 13), w = values(count(wl), 14);
    std::vector<int64_t> ol;
    auto want = naive_nd(xl, x, wl, w, pads, stride, dil, group, ol);
    auto y = run_op("convolution", {flit(xl, x), flit(wl, w)},
                    attrs({{"padding", pads}, {"stride", stride}, {"dilation", dil}, {"group", group}}));
    EXPECT_EQ(y.s.lens, ol);
    expect_near(y.to_doubles(), want);
}
} // namespace

TEST(ops_convolution, one_d) { check_nd({2, 2, 9}, {4, 1, 3}, {2, 1}, {2}, {2}, 2); }
TEST(ops_convolution, three_d) { check_nd({1, 2, 4, 5, 6}, {3, 2, 2, 3, 2}, {1, 0, 1, 0, 1, 1}, {1, 2, 2}, {2, 1, 1}, 1); }
TEST(ops_convolution, large_padding_and_stride) { check_nd({1, 1, 3, 3}, {1, 1, 2, 2}, {3, 2, 3, 4}, {3, 2}, {1, 3}, 1); }
