#include "test_ops_util.hpp"

#include <algorithm>
#include <cmath>

using namespace mxc;
using namespace mxc::test;

namespace {
struct pool2d {
    int64_t N, C, H, W;
    std::string mode;
    std::vector<int64_t> lengths, pads{0, 0, 0, 0}, stride{1, 1}, dil{1, 1};
    int64_t ceil_mode = 0, count_include_pad = 0;
};

// The ONNX reference semantics: the input is padded (with -inf for max, 0 for average with
// count_include_pad, "missing" otherwise); windows are clipped to the padded input.
std::vector<double> naive(const pool2d& p, const std::vector<float>& x, std::vector<int64_t>& out) {
    const int64_t PH = p.H + p.pads[0] + p.pads[2], PW = p.W + p.pads[1] + p.pads[3];
    auto osize = [&](int64_t padded, int64_t in, int64_t pb, int64_t k, int64_t s, int64_t d) {
        double q = double(padded - ((k - 1) * d + 1)) / double(s);
        int64_t o = (p.ceil_mode ? int64_t(std::ceil(q)) : int64_t(std::floor(q))) + 1;
        if (p.ceil_mode && (o - 1) * s >= in + pb) --o;
        return o;
    };
    const int64_t OH = osize(PH, p.H, p.pads[0], p.lengths[0], p.stride[0], p.dil[0]);
    const int64_t OW = osize(PW, p.W, p.pads[1], p.lengths[1], p.stride[1], p.dil[1]);
    out = {p.N, p.C, OH, OW};
    std::vector<double> y;
    for (int64_t n = 0; n < p.N; ++n)
        for (int64_t c = 0; c < p.C; ++c)
            for (int64_t oh = 0; oh < OH; ++oh)
                for (int64_t ow = 0; ow < OW; ++ow) {
                    double best = -INFINITY, sum = 0;
                    int64_t count = 0;
                    for (int64_t kh = 0; kh < p.lengths[0]; ++kh)
                        for (int64_t kw = 0; kw < p.lengths[1]; ++kw) {
                            int64_t ph = oh * p.stride[0] + kh * p.dil[0], pw = ow * p.stride[1] + kw * p.dil[1];
                            if (ph >= PH || pw >= PW) continue; // outside the padded input
                            int64_t ih = ph - p.pads[0], iw = pw - p.pads[1];
                            bool in = ih >= 0 && ih < p.H && iw >= 0 && iw < p.W;
                            if (!in) {
                                if (p.count_include_pad) ++count;
                                continue;
                            }
                            double v = x[((n * p.C + c) * p.H + ih) * p.W + iw];
                            best = std::max(best, v);
                            sum += v;
                            ++count;
                        }
                    y.push_back(p.mode == "max" ? best : sum / double(count));
                }
    return y;
}

attributes pool_attrs(const pool2d& p) {
    return attrs({{"mode", p.mode},
                  {"padding", p.pads},
                  {"stride", p.stride},
                  {"lengths", p.lengths},
                  {"dilation", p.dil},
                  {"ceil_mode", p.ceil_mode},
                  {"count_include_pad", p.count_include_pad}});
}

void check(const pool2d& p) {
    auto x = values(p.N * p.C * p.H * p.W, 21);
    std::vector<int64_t> out;
    auto want = naive(p, x, out);
    auto y = run_op("pooling", {flit({p.N, p.C, p.H, p.W}, x)}, pool_attrs(p));
    EXPECT_EQ(y.s.lens, out);
    expect_near(y.to_doubles(), want);
}
} // namespace

TEST(ops_pooling, max_by_hand) {
    auto y = run_op("pooling", {flit({1, 1, 3, 3}, {1, 5, 2, 7, 3, 0, 4, 8, 6})},
                    attrs({{"lengths", std::vector<int64_t>{2, 2}}}));
    EXPECT_EQ(y.s.lens, (std::vector<int64_t>{1, 1, 2, 2}));
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{7, 5, 8, 8}));
}

TEST(ops_pooling, average_by_hand_with_padding) {
    // 1-D [1 2 3], window 2, pad 1 each side: windows {pad,1} {2,3}... with stride 2:
    // positions -1..0 and 1..2 and 3 out; exclude pad: [1, 2.5]; include pad: [0.5, 2.5]
    auto x = flit({1, 1, 3}, {1, 2, 3});
    auto a = attrs({{"mode", std::string("average")},
                    {"lengths", std::vector<int64_t>{2}},
                    {"padding", std::vector<int64_t>{1, 1}},
                    {"stride", std::vector<int64_t>{2}}});
    EXPECT_EQ(run_op("pooling", {x}, a).to_doubles(), (std::vector<double>{1, 2.5}));
    a.set("count_include_pad", int64_t{1});
    EXPECT_EQ(run_op("pooling", {x}, a).to_doubles(), (std::vector<double>{0.5, 2.5}));
}

TEST(ops_pooling, max_padded_strided) {
    check({2, 3, 6, 7, "max", {3, 2}, {1, 0, 1, 1}, {2, 2}});
}
TEST(ops_pooling, average_exclude_pad) { check({1, 2, 5, 5, "average", {3, 3}, {1, 1, 1, 1}, {2, 2}}); }
TEST(ops_pooling, average_include_pad) {
    pool2d p{1, 2, 5, 5, "average", {3, 3}, {1, 2, 0, 1}, {2, 1}};
    p.count_include_pad = 1;
    check(p);
}
TEST(ops_pooling, ceil_mode) {
    pool2d p{1, 1, 6, 6, "average", {3, 3}, {0, 0, 0, 0}, {2, 2}};
    p.ceil_mode = 1;
    check(p); // out 3x3 instead of 2x2; the last window is cut at the border
    p.mode = "max";
    p.count_include_pad = 1;
    p.pads = {1, 1, 1, 1};
    check(p);
}
TEST(ops_pooling, ceil_mode_drops_a_window_starting_in_the_padding) {
    // 1-D length 4, window 2, stride 2, pad 1+1: ceil gives 4 windows, the last starting at
    // padded position 6 >= 4 + 1, so it is dropped -> 3.
    module m;
    auto* x = m.add_param("x", shape(dtype::float_type, {1, 1, 4}));
    auto* y = m.add("pooling", {x},
                    attrs({{"lengths", std::vector<int64_t>{2}},
                           {"stride", std::vector<int64_t>{2}},
                           {"padding", std::vector<int64_t>{1, 1}},
                           {"ceil_mode", int64_t{1}}}));
    EXPECT_EQ(y->result.lens, (std::vector<int64_t>{1, 1, 3}));
}
TEST(ops_pooling, dilated) {
    pool2d p{1, 2, 7, 7, "max", {2, 3}, {0, 1, 0, 1}, {1, 2}};
    p.dil = {2, 2};
    check(p);
}

TEST(ops_pooling, strided_input_view) {
    // Global average pool of a transposed view equals the mean over each channel.
    auto x = values(4 * 3, 2); // stored [H*W=4, C=3]
    auto y = run_module({flit({1, 2, 2, 3}, x)}, [](module& m, std::vector<instruction*>& p) {
        auto* t = m.add("transpose", {p[0]}, attrs({{"permutation", std::vector<int64_t>{0, 3, 1, 2}}}));
        return m.add("pooling", {t}, attrs({{"mode", std::string("average")}, {"lengths", std::vector<int64_t>{2, 2}}}));
    });
    std::vector<double> want(3, 0);
    for (int i = 0; i < 4; ++i)
        for (int c = 0; c < 3; ++c) want[c] += x[i * 3 + c] / 4.0;
    expect_near(y.to_doubles(), want);
}

TEST(ops_pooling, shape_errors) {
    shape x(dtype::float_type, {1, 1, 4, 4});
    EXPECT_NE(shape_error("pooling", {x}).find("lengths {} must have 2 values"), std::string::npos);
    EXPECT_NE(shape_error("pooling", {x}, attrs({{"lengths", std::vector<int64_t>{5, 1}}})).find("does not fit"),
              std::string::npos);
    EXPECT_NE(shape_error("pooling", {x}, attrs({{"mode", std::string("lp")}, {"lengths", std::vector<int64_t>{2, 2}}}))
                  .find("mode must be"),
              std::string::npos);
    EXPECT_NE(shape_error("pooling", {x}, attrs({{"lengths", std::vector<int64_t>{2, 2}}, {"padding", std::vector<int64_t>{-1, 0, 0, 0}}}))
                  .find("must be >= 0"),
              std::string::npos);
    EXPECT_EQ(shape_error("pooling", {shape(dtype::int8_type, {1, 1, 4, 4})},
                          attrs({{"mode", std::string("average")}, {"lengths", std::vector<int64_t>{2, 2}}})),
              "pooling: average pooling needs a floating-point input, got int8_type");
}

TEST(ops_pooling, int8_max) {
    auto x = literal::from<int8_t>(dtype::int8_type, {1, 1, 4}, {-128, -5, 7, -128});
    auto y = run_op("pooling", {x}, attrs({{"lengths", std::vector<int64_t>{2}}, {"padding", std::vector<int64_t>{1, 0}}}));
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{-128, -5, 7, 7}));
}
