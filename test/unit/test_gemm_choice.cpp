// The compile-time kernel choice of hip GEMM launches (codegen/gemm_choice.hpp, the rule of
// templates/common/gemm_choice.hpp): the template arguments the emitter writes per launch.
#include "codegen/channels_last_weights.hpp"
#include "codegen/gemm_choice.hpp"
#include "ir/eval.hpp"
#include "templates/common/gemm_choice.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

using namespace mxc;

namespace {
kernel_call call(const std::string& kernel, dtype t, std::vector<shape> in, std::vector<int64_t> out,
                 std::vector<int64_t> ip = {}) {
    kernel_call k;
    k.kernel = kernel;
    k.type = t;
    k.in_shapes = std::move(in);
    k.out_shape = shape(t, out);
    k.params.ip = std::move(ip);
    return k;
}
shape sh(dtype t, std::vector<int64_t> l) { return shape(t, l); }
// The form the emitter names for a convolution of x by w (output: x's shape with w's channels).
std::string form_of(dtype t, std::vector<int64_t> x, std::vector<int64_t> w, const std::vector<int64_t>& ip) {
    std::vector<int64_t> y = x;
    y[1] = w[0];
    const std::string args = hip_launch_choice_of(call("convolution", t, {sh(t, x), sh(t, w)}, y, ip)).args;
    return args.substr(args.rfind(", ") + 2);
}
constexpr dtype f32 = dtype::float_type, f16 = dtype::half_type, f64 = dtype::double_type;
} // namespace

TEST(GemmChoice, RulePresets) {
    static_assert(mxc_gemm_pick(MXC_GEMM_F32, 8, 1000, 64, 1) == MXC_GEMM_SMALL_M, "few rows");
    static_assert(mxc_gemm_pick(MXC_GEMM_F32, 1000, 8, 64, 1) == MXC_GEMM_SMALL_N, "few columns");
    static_assert(mxc_gemm_pick(MXC_GEMM_F32, 1024, 1536, 64, 1) == MXC_GEMM_LARGE, "96 large tiles");
    static_assert(mxc_gemm_pick(MXC_GEMM_F32, 1024, 1408, 64, 1) == MXC_GEMM_MEDIUM, "88 large tiles");
    static_assert(mxc_gemm_pick(MXC_GEMM_F64, 1024, 1536, 64, 1) == MXC_GEMM_MEDIUM, "double: no 8x8");
    static_assert(mxc_gemm_pick(MXC_GEMM_F16, 64, 8, 64, 1) == MXC_GEMM_MMA_SMALL, "half: the matrix units, few tiles");
    static_assert(mxc_gemm_pick(MXC_GEMM_F16, 256, 3136, 64, 1) == MXC_GEMM_MMA_SMALL, "half: 50 large tiles");
    static_assert(mxc_gemm_pick(MXC_GEMM_F16, 256, 100352, 64, 1) == MXC_GEMM_MMA, "half: 1568 large tiles");
    static_assert(mxc_gemm_pick(MXC_GEMM_F16, 16, 1000, 64, 1) == MXC_GEMM_SMALL_M, "half, few rows");
    // 64 rows (ResNet-50's stem): never a 128-row tile, however many columns
    static_assert(mxc_gemm_pick(MXC_GEMM_F32, 64, 12544, 147, 1) == MXC_GEMM_MEDIUM, "64 rows: 64x64 tiles");
    static_assert(mxc_gemm_pick(MXC_GEMM_F32, 65, 12544, 147, 1) == MXC_GEMM_LARGE, "65 rows: 128x128");
    static_assert(mxc_gemm_pick(MXC_GEMM_F16, 64, 401408, 147, 1) == MXC_GEMM_MMA_SMALL, "half, 64 rows");
    static_assert(mxc_gemm_pick(MXC_GEMM_F16, 65, 401408, 147, 1) == MXC_GEMM_MMA, "half, 65 rows");
    static_assert(mxc_gemm_pick(MXC_GEMM_BF16, 1024, 1536, 64, 1) == MXC_GEMM_LARGE, "bf16 computes in float");

    EXPECT_EQ(hip_launch_choice_of(call("dot", f32, {sh(f32, {5, 64}), sh(f32, {64, 512})}, {5, 512})).args,
              ", mxc::hip::gemm_small_m");
    EXPECT_EQ(hip_launch_choice_of(call("fused_dot", f16, {sh(f16, {2, 64, 64}), sh(f16, {2, 64, 8})}, {2, 64, 8})).args,
              ", mxc::hip::gemm_mma_small");
    EXPECT_EQ(hip_launch_choice_of(call("dot", f16, {sh(f16, {64, 256, 64}), sh(f16, {64, 64, 256})}, {64, 256, 256})).args,
              ", mxc::hip::gemm_mma_large");
    auto c = hip_launch_choice_of(call("dot", f64, {sh(f64, {256, 64}), sh(f64, {64, 256})}, {256, 256}));
    EXPECT_EQ(c.args, ", mxc::hip::gemm_medium");
    EXPECT_EQ(c.comment, "gemm 256x256x64x1: mxc::hip::gemm_medium (rule: mxc_gemm_pick)");
    // no GEMM: integer types and other kernels keep the launcher's defaults
    EXPECT_EQ(hip_launch_choice_of(call("dot", dtype::int32_type, {sh(dtype::int32_type, {4, 4}), sh(dtype::int32_type, {4, 4})}, {4, 4})).args, "");
    EXPECT_EQ(hip_launch_choice_of(call("add", f32, {sh(f32, {4}), sh(f32, {4})}, {4})).args, "");
}

// The GEMV kernel (gemm_gemv): dot products of 1 to 4 rows and at least 64 columns, whatever
// the element type and the matrix units, split as mxc_gemm_splits splits its 1 x 128 x 8 tile
// (slices of at least 8 steps: 64 rows); never a convolution; a tuned tile still wins.
TEST(GemmChoice, Gemv) {
    static_assert(mxc_gemm_gemv(1, 1000, 768, 1) && mxc_gemm_gemv(4, 64, 8, 12), "1 to 4 rows, 64 columns or more");
    static_assert(!mxc_gemm_gemv(5, 1000, 768, 1) && !mxc_gemm_gemv(1, 63, 768, 1) && !mxc_gemm_gemv(0, 1000, 768, 1),
                  "5 rows, 63 columns, no rows");
    kernel_call head = call("dot", f32, {sh(f32, {1, 768}), sh(f32, {768, 1000})}, {1, 1000});
    head.f32_mma = head.large_ring = true;
    auto c = hip_launch_choice_of(head);
    EXPECT_EQ(c.args, ", mxc::hip::gemm_gemv");
    EXPECT_EQ(c.comment, "gemm 1x1000x768x1: mxc::hip::gemm_gemv (rule: mxc_gemm_gemv)");
    EXPECT_EQ(c.splits, 12); // 8 tiles: 33 slices wanted, 96 steps of 8 make 12 of 8 steps
    head.scratch_bytes = INT64_MAX;
    c = hip_launch_choice_of(head);
    EXPECT_EQ(c.args, ", mxc::hip::gemm_split<mxc::hip::gemm_gemv, 12>");
    EXPECT_EQ(c.scratch_bytes, mxc_gemm_split_counter_bytes + 12 * 1000 * 4);
    // ResNet-50's classifier: 32 slices of 64, 256 blocks
    kernel_call fc = call("fused_dot", f16, {sh(f16, {1, 2048}), sh(f16, {2048, 1000})}, {1, 1000});
    fc.scratch_bytes = INT64_MAX;
    EXPECT_EQ(hip_launch_choice_of(fc).args, ", mxc::hip::gemm_split<mxc::hip::gemm_gemv, 32>");
    EXPECT_EQ(hip_launch_choice_of(call("dot", f64, {sh(f64, {8, 3, 40}), sh(f64, {8, 40, 64})}, {8, 3, 64})).args,
              ", mxc::hip::gemm_gemv"); // batched, 5 steps: unsplit
    // a convolution of one output channel keeps the tiled engine
    EXPECT_EQ(hip_launch_choice_of(call("convolution", f32, {sh(f32, {1, 64, 56, 56}), sh(f32, {1, 64, 1, 1})}, {1, 1, 56, 56},
                                        {1, 0, 0, 1, 1, 1, 1}))
                  .args,
              ", mxc::hip::gemm_small_m, MXC_CONV_GEMM_1X1");
    head.tuning = {"64x64x8/4x4", "mxc::hip::gemm_config<64, 64, 8, 4, 4>", "db:2"};
    EXPECT_EQ(hip_launch_choice_of(head).args, ", mxc::hip::gemm_config<64, 64, 8, 4, 4>");
}

TEST(GemmChoice, TunedTileWins) {
    kernel_call k = call("dot", f16, {sh(f16, {64, 64}), sh(f16, {64, 64})}, {64, 64});
    k.tuning = {"32x32x8/2x2", "mxc::hip::gemm_config<32, 32, 8, 2, 2>", "db:3"};
    auto c = hip_launch_choice_of(k);
    EXPECT_EQ(c.args, ", mxc::hip::gemm_config<32, 32, 8, 2, 2>");
    EXPECT_EQ(c.comment, "tuned: mxc::hip::gemm_config<32, 32, 8, 2, 2>");
}

TEST(GemmChoice, ConvolutionForms) {
    // ip = [group, pads, strides, dilations]
    const std::vector<int64_t> plain = {1, 0, 0, 1, 1, 1, 1}, padded = {1, 1, 1, 1, 1, 1, 1};
    // 1x1, stride 1, unpadded: the 1x1 GEMM (M 64, N 2 x 56 x 56, K 32)
    auto c = hip_launch_choice_of(
        call("convolution", f32, {sh(f32, {2, 32, 56, 56}), sh(f32, {64, 32, 1, 1})}, {2, 64, 56, 56}, plain));
    EXPECT_EQ(c.args, ", mxc::hip::gemm_medium, MXC_CONV_GEMM_1X1");
    EXPECT_EQ(c.comment, "gemm 64x6272x32x1: mxc::hip::gemm_medium (rule: mxc_gemm_pick)");
    // 3x3 padded: im2col
    EXPECT_EQ(hip_launch_choice_of(call("fused_convolution", f32, {sh(f32, {1, 32, 7, 7}), sh(f32, {8, 32, 3, 3})},
                                        {1, 8, 7, 7}, padded))
                  .args,
              ", mxc::hip::gemm_small_m, MXC_CONV_GEMM_IM2COL");
    // 1x1 over a strided (non-packed) x: im2col, not the plain-matrix read
    EXPECT_EQ(hip_launch_choice_of(call("convolution", f32,
                                        {shape(f32, {1, 32, 7, 7}, {32 * 8 * 7, 8 * 7, 8, 1}), sh(f32, {64, 32, 1, 1})},
                                        {1, 64, 7, 7}, plain))
                  .args,
              ", mxc::hip::gemm_medium, MXC_CONV_GEMM_IM2COL");
    // depthwise: the direct kernel, its tile by the output width
    const std::vector<int64_t> dw = {32, 1, 1, 1, 1, 1, 1};
    EXPECT_EQ(hip_launch_choice_of(call("convolution", f16, {sh(f16, {1, 32, 56, 56}), sh(f16, {32, 1, 3, 3})},
                                        {1, 32, 56, 56}, dw))
                  .args,
              ", mxc::hip::dw_wide, MXC_CONV_DEPTHWISE");
    EXPECT_EQ(hip_launch_choice_of(call("convolution", f32, {sh(f32, {1, 32, 7, 7}), sh(f32, {32, 1, 3, 3})},
                                        {1, 32, 7, 7}, dw))
                  .args,
              ", mxc::hip::dw_narrow, MXC_CONV_DEPTHWISE");
    // strided weights: per output
    EXPECT_EQ(hip_launch_choice_of(call("convolution", f32,
                                        {sh(f32, {1, 4, 7, 7}), shape(f32, {8, 4, 1, 1}, {1, 8, 1, 1})},
                                        {1, 8, 7, 7}, plain))
                  .args,
              ", void, MXC_CONV_PER_OUTPUT");
    // past 31 bits of index (x: 2^31 + 2^24 elements): the int64 forms
    EXPECT_EQ(form_of(f32, {129, 8, 2048, 1024}, {8, 8, 1, 1}, plain), "MXC_CONV_GEMM_1X1_WIDE");
    EXPECT_EQ(form_of(f32, {129, 8, 2048, 1024}, {8, 8, 3, 3}, padded), "MXC_CONV_GEMM_IM2COL_WIDE");
    EXPECT_EQ(form_of(f32, {127, 8, 2048, 1024}, {8, 8, 3, 3}, padded), "MXC_CONV_GEMM_IM2COL"); // just under
    // a position past 31 bits (stride 2^20 over 2^11 outputs) while every tensor is small
    EXPECT_FALSE(mxc_conv_index_32(make_desc(sh(f32, {1, 1, 8})), make_desc(sh(f32, {1, 1, 1})),
                                   make_desc(sh(f32, {1, 1, 2048})), std::vector<int64_t>{1, 0, 1 << 20, 1}.data()));
    EXPECT_TRUE(mxc_conv_index_32(make_desc(sh(f32, {1, 1, 8})), make_desc(sh(f32, {1, 1, 1})),
                                  make_desc(sh(f32, {1, 1, 2048})), std::vector<int64_t>{1, 0, 1 << 10, 1}.data()));
    // convolution_transpose: its own GEMM (M = w.lens[1], N = 1 x 14 x 14, K = 16 x 2 x 2)
    EXPECT_EQ(hip_launch_choice_of(call("convolution_transpose", f32, {sh(f32, {1, 16, 7, 7}), sh(f32, {16, 8, 2, 2})},
                                        {1, 8, 14, 14}, {1, 0, 0, 2, 2, 1, 1}))
                  .comment,
              "gemm 8x196x64x1: mxc::hip::gemm_small_m (rule: mxc_gemm_pick)");
    // its fused form (a bias add after it) gets the same GEMM, named as the template argument
    EXPECT_EQ(hip_launch_choice_of(call("fused_convolution_transpose", f32,
                                        {sh(f32, {1, 16, 7, 7}), sh(f32, {16, 8, 2, 2}), sh(f32, {1, 8, 14, 14})},
                                        {1, 8, 14, 14}, {1, 0, 0, 2, 2, 1, 1, 0}))
                  .args,
              ", mxc::hip::gemm_small_m");
}

// Half convolutions that mxc_conv_channels_last takes and whose product is large enough
// (mxc_conv_channels_last_pays): the channels-last form once the kernel has its scratch (x and
// the weights transposed, after split-K's part), the NCHW form and the scratch wanted before
// (reserve_gemm_scratch's first question); the ring tile where the rule picks the large
// matrix-unit one; MXC_CHANNELS_LAST overrides the size rule.
TEST(GemmChoice, ChannelsLastConvolutions) {
    const std::vector<int64_t> padded = {1, 1, 1, 1, 1, 1, 1};
    kernel_call k = call("fused_convolution", f16, {sh(f16, {32, 64, 56, 56}), sh(f16, {128, 64, 3, 3}), sh(f16, {128})},
                         {32, 128, 56, 56}, padded);
    const int64_t need = mxc_conv_nhwc_bytes(make_desc(k.in_shapes[0]), make_desc(k.in_shapes[1]), 0, 2);
    EXPECT_EQ(need, 1024 + 32 * 64 * 56 * 56 * 2 + 128 * 64 * 9 * 2);
    auto c = hip_launch_choice_of(k);
    EXPECT_EQ(c.args, ", mxc::hip::gemm_mma_large, MXC_CONV_GEMM_IM2COL"); // no scratch yet
    EXPECT_EQ(c.scratch_bytes, need);
    k.scratch_bytes = need;
    c = hip_launch_choice_of(k);
    EXPECT_EQ(c.args, ", mxc::hip::gemm_mma_small, MXC_CONV_GEMM_NHWC");
    EXPECT_EQ(c.scratch_bytes, need);
    EXPECT_NE(c.comment.find("channels-last"), std::string::npos) << c.comment;
    // few tiles: split-K's partial sums first (M 256, N 256, K 18432: 16 tiles of 64 x 64)
    kernel_call s = call("convolution", f16, {sh(f16, {1, 2048, 16, 16}), sh(f16, {256, 2048, 3, 3})}, {1, 256, 16, 16}, padded);
    const int splits = mxc_gemm_splits(mxc_gemm_preset_tile(MXC_GEMM_MMA_SMALL), 256, 256, 18432, 1);
    ASSERT_GT(splits, 1);
    const int64_t split = mxc_gemm_split_scratch_bytes(256, 256, 18432, 1, splits, 32, 4);
    s.scratch_bytes = mxc_conv_nhwc_bytes(make_desc(s.in_shapes[0]), make_desc(s.in_shapes[1]), split, 2);
    EXPECT_EQ(mxc_conv_nhwc_offset(split), mxc_round_256(split));
    EXPECT_EQ(mxc_conv_nhwc_offset(0), 1024); // the counters at least
    c = hip_launch_choice_of(s);
    EXPECT_EQ(c.args, ", mxc::hip::gemm_split<mxc::hip::gemm_mma_small, " + std::to_string(splits) + ">, MXC_CONV_GEMM_NHWC");
    EXPECT_EQ(c.scratch_bytes, s.scratch_bytes);
    // few rows: the SIMT tile also reads the channels-last operands (M 8: gemm_small_m)
    kernel_call r = call("convolution", f16, {sh(f16, {1, 8192, 32, 32}), sh(f16, {8, 8192, 3, 3})}, {1, 8, 32, 32}, padded);
    r.scratch_bytes = INT64_MAX;
    const std::string ra = hip_launch_choice_of(r).args;
    EXPECT_EQ(ra.substr(0, 47), ", mxc::hip::gemm_split<mxc::hip::gemm_small_m, ") << ra;
    EXPECT_EQ(ra.substr(ra.size() - 20), ", MXC_CONV_GEMM_NHWC") << ra;
    // a small product (batch 1: 64 x 3136 x 576) stays NCHW, and asks for no transposes
    kernel_call b1 = call("convolution", f16, {sh(f16, {1, 64, 56, 56}), sh(f16, {64, 64, 3, 3})}, {1, 64, 56, 56}, padded);
    b1.scratch_bytes = INT64_MAX;
    EXPECT_FALSE(mxc_conv_channels_last_pays(64, 3136, 576, 1));
    EXPECT_TRUE(mxc_conv_channels_last_pays(64, 3136 * 32, 576, 1));
    EXPECT_EQ(hip_launch_choice_of(b1).args.substr(hip_launch_choice_of(b1).args.size() - 22), ", MXC_CONV_GEMM_IM2COL");
    // MXC_CHANNELS_LAST=1: wherever it can; =0: never
    ::setenv("MXC_CHANNELS_LAST", "1", 1);
    const std::string forced = hip_launch_choice_of(b1).args;
    ::setenv("MXC_CHANNELS_LAST", "0", 1);
    const std::string off = hip_launch_choice_of(k).args;
    ::unsetenv("MXC_CHANNELS_LAST");
    EXPECT_EQ(forced.substr(forced.size() - 20), ", MXC_CONV_GEMM_NHWC") << forced;
    EXPECT_EQ(off, ", mxc::hip::gemm_mma_large, MXC_CONV_GEMM_IM2COL");
    // float keeps the NCHW forms
    EXPECT_EQ(form_of(f32, {32, 64, 56, 56}, {64, 64, 3, 3}, padded), "MXC_CONV_GEMM_IM2COL");
}

// pack_channels_last_weights: the constant weights of channels-last convolutions stored as
// [M, kh, kw, C] at build time, in place where only those convolutions read them, else as a
// copy appended to the blob; 1x1, float, and weights read by another kernel as well keep what
// the others read. The launch then takes the weights as they are (no transpose, a smaller scratch).
TEST(GemmChoice, ChannelsLastWeightsPacked) {
    ::setenv("MXC_CHANNELS_LAST", "1", 1); // (small products: wherever the form is allowed)
    const std::vector<int64_t> padded = {1, 1, 1, 1, 1, 1, 1}, one = {1, 0, 0, 1, 1, 1, 1};
    lowered_module l;
    // the blob: A [16, 8, 3, 3] at 0 (one convolution), B [8, 8, 3, 2] at 4096 (two convolutions
    // and a copy kernel), C [8, 16, 1, 1] at 8192 (a 1x1), D [8, 8, 3, 3] at 12288 (float)
    l.weights.assign(16384, '\0');
    auto fill = [&](int64_t at, int64_t n, int es) {
        for (int64_t i = 0; i < n * es; ++i) l.weights[size_t(at + i)] = char(i * 7 + at / 256);
    };
    fill(0, 16 * 8 * 9, 2), fill(4096, 8 * 8 * 6, 2), fill(8192, 8 * 16, 2), fill(12288, 8 * 8 * 9, 4);
    const std::string before = l.weights;
    auto conv = [&](dtype t, std::vector<int64_t> x, std::vector<int64_t> w, std::vector<int64_t> y, int64_t at,
                    const std::vector<int64_t>& ip) {
        kernel_call k = call("convolution", t, {sh(t, x), sh(t, w)}, y, ip);
        k.in = {location{location::arena, 0, 0}, location{location::weights, 0, at}};
        return k;
    };
    l.kernels.push_back(conv(f16, {1, 8, 9, 9}, {16, 8, 3, 3}, {1, 16, 9, 9}, 0, padded));      // 0: A
    l.kernels.push_back(conv(f16, {1, 8, 9, 8}, {8, 8, 3, 2}, {1, 8, 9, 9}, 4096, padded));     // 1: B
    l.kernels.push_back(conv(f16, {2, 8, 9, 8}, {8, 8, 3, 2}, {2, 8, 9, 9}, 4096, padded));     // 2: B
    l.kernels.push_back(conv(f16, {1, 16, 5, 7}, {8, 16, 1, 1}, {1, 8, 5, 7}, 8192, one));      // 3: C
    l.kernels.push_back(conv(f32, {1, 8, 9, 9}, {8, 8, 3, 3}, {1, 8, 9, 9}, 12288, padded));    // 4: D
    for (int i : {0, 1, 2, 3}) ASSERT_TRUE(conv_runs_channels_last(l.kernels[size_t(i)])) << i;
    {
        kernel_call copy = call("contiguous", f16, {sh(f16, {8, 8, 3, 2})}, {8, 8, 3, 2});
        copy.in = {location{location::weights, 0, 4096}};
        l.kernels.push_back(copy); // 5: reads B as it is
    }
    EXPECT_EQ(pack_channels_last_weights(l), 2); // A in place, B as one copy
    ::unsetenv("MXC_CHANNELS_LAST");

    // A: in place, element (o, c, y, x) at ((o * 3 + y) * 3 + x) * 8 + c
    const kernel_call& a = l.kernels[0];
    EXPECT_EQ(a.in[1].offset, 0);
    EXPECT_EQ(a.in_shapes[1], shape(f16, {16, 8, 3, 3}, {72, 1, 24, 8}));
    EXPECT_TRUE(mxc_conv_w_channels_last(make_desc(a.in_shapes[1])));
    for (int64_t o = 0; o < 16; ++o)
        for (int64_t c = 0; c < 8; ++c)
            for (int64_t q = 0; q < 9; ++q)
                for (int b = 0; b < 2; ++b)
                    ASSERT_EQ(l.weights[size_t(((o * 9 + q) * 8 + c) * 2 + b)], before[size_t(((o * 8 + c) * 9 + q) * 2 + b)]);
    // B: one copy past the old end (256-aligned), both convolutions on it, the original intact
    const int64_t copy_at = 16384;
    EXPECT_EQ(l.kernels[1].in[1].offset, copy_at);
    EXPECT_EQ(l.kernels[2].in[1].offset, copy_at);
    EXPECT_EQ(l.kernels[1].in_shapes[1], shape(f16, {8, 8, 3, 2}, {48, 1, 16, 8}));
    EXPECT_EQ(l.kernels[5].in[0].offset, 4096);
    EXPECT_EQ(l.weights.substr(4096, 8 * 8 * 6 * 2), before.substr(4096, 8 * 8 * 6 * 2));
    EXPECT_EQ(int64_t(l.weights.size()), copy_at + 768); // 768 bytes: a multiple of 256 already
    for (int64_t o = 0; o < 8; ++o)
        for (int64_t c = 0; c < 8; ++c)
            for (int64_t q = 0; q < 6; ++q)
                ASSERT_EQ(l.weights[size_t(copy_at + ((o * 6 + q) * 8 + c) * 2)], before[size_t(4096 + ((o * 8 + c) * 6 + q) * 2)]);
    // C (1x1: channels-last already) and D (float) as they were
    EXPECT_EQ(l.kernels[3].in_shapes[1], sh(f16, {8, 16, 1, 1}));
    EXPECT_EQ(l.kernels[4].in_shapes[1], sh(f32, {8, 8, 3, 3}));
    EXPECT_EQ(l.weights.substr(8192, 8192), before.substr(8192, 8192));
    // the launch: channels-last, its scratch x only (the weights need no room)
    kernel_call k0 = l.kernels[0];
    const int64_t need = mxc_conv_nhwc_bytes(make_desc(k0.in_shapes[0]), make_desc(k0.in_shapes[1]), 0, 2);
    EXPECT_EQ(need, 1024 + mxc_round_256(8 * 81 * 2));
    ::setenv("MXC_CHANNELS_LAST", "1", 1);
    EXPECT_EQ(hip_launch_choice_of(k0).scratch_bytes, need);
    k0.scratch_bytes = need;
    const hip_launch_choice c = hip_launch_choice_of(k0);
    ::unsetenv("MXC_CHANNELS_LAST");
    EXPECT_EQ(c.args.substr(c.args.size() - 20), ", MXC_CONV_GEMM_NHWC") << c.args;
    EXPECT_NE(c.comment.find("the weights stored so"), std::string::npos) << c.comment;
}

// fp32 dot products on the matrix units (gemm_mma_f32) where the target has them: sm_80+, CDNA
// and the emulator; convolutions (but with MXC_FP32_MMA=all), skinny products and other
// targets keep the SIMT engine; MXC_FP32_MMA=0 turns it off; a tuned tile still wins.
TEST(GemmChoice, Fp32MatrixUnits) {
    ::unsetenv("MXC_FP32_MMA");
    for (const char* a : {"sm_80", "sm_90", "sm_100", "gfx908", "gfx90a", "gfx90a:xnack-", "gfx942", "emu"})
        EXPECT_TRUE(has_f32_matrix_units(a)) << a;
    for (const char* a : {"sm_75", "sm_70", "sm_", "sm_8", "gfx906", "gfx1030", "gfx9080", "gfx1100", ""})
        EXPECT_FALSE(has_f32_matrix_units(a)) << a;

    lowered_module l;
    l.kernels.push_back(call("dot", f32, {sh(f32, {197, 768}), sh(f32, {768, 3072})}, {197, 3072}));
    l.kernels.push_back(call("fused_dot", f32, {sh(f32, {12, 197, 64}), sh(f32, {12, 64, 197})}, {12, 197, 197}));
    l.kernels.push_back(call("dot", f32, {sh(f32, {1, 768}), sh(f32, {768, 1000})}, {1, 1000})); // one row
    l.kernels.push_back(call("dot", f16, {sh(f16, {197, 768}), sh(f16, {768, 768})}, {197, 768}));
    l.kernels.push_back(call("convolution", f32, {sh(f32, {1, 64, 56, 56}), sh(f32, {64, 64, 1, 1})}, {1, 64, 56, 56},
                             {1, 0, 0, 1, 1, 1, 1}));
    EXPECT_EQ(use_f32_matrix_units(l, "sm_75"), 0);
    EXPECT_EQ(use_f32_matrix_units(l, "sm_90"), 3);
    EXPECT_TRUE(l.kernels[0].f32_mma && l.kernels[1].f32_mma && l.kernels[2].f32_mma);
    EXPECT_FALSE(l.kernels[3].f32_mma || l.kernels[4].f32_mma);
    auto c = hip_launch_choice_of(l.kernels[0]);
    EXPECT_EQ(c.args, ", mxc::hip::gemm_mma_f32");
    EXPECT_EQ(c.comment, "gemm 197x3072x768x1: mxc::hip::gemm_mma_f32 (rule: mxc_gemm_f32_mma)");
    EXPECT_EQ(hip_launch_choice_of(l.kernels[1]).args, ", mxc::hip::gemm_mma_f32"); // batched: 12 products of 197x197x64
    EXPECT_EQ(hip_launch_choice_of(l.kernels[2]).args, ", mxc::hip::gemm_gemv"); // mxc_gemm_f32_mma: more than 16 rows
    EXPECT_EQ(hip_launch_choice_of(l.kernels[4]).args, ", mxc::hip::gemm_medium, MXC_CONV_GEMM_1X1");
    // split-K with the matrix-unit tile: 197x768x3072 has 48 tiles of 64x64
    kernel_call proj = call("dot", f32, {sh(f32, {197, 3072}), sh(f32, {3072, 768})}, {197, 768});
    proj.f32_mma = true;
    proj.scratch_bytes = INT64_MAX;
    c = hip_launch_choice_of(proj);
    EXPECT_EQ(c.splits, mxc_gemm_splits(mxc_gemm_preset_tile(MXC_GEMM_MMA_F32), 197, 768, 3072, 1));
    EXPECT_EQ(c.splits, 6);
    EXPECT_EQ(c.args, ", mxc::hip::gemm_split<mxc::hip::gemm_mma_f32, 6>");
    // 32 deep where the target has the shared memory (use_large_ring): the split counts its steps
    kernel_call deep = l.kernels[0];
    deep.large_ring = true;
    c = hip_launch_choice_of(deep);
    EXPECT_EQ(c.args, ", mxc::hip::gemm_mma_f32_deep");
    EXPECT_EQ(c.comment, "gemm 197x3072x768x1: mxc::hip::gemm_mma_f32_deep (rule: mxc_gemm_f32_mma; 32 deep where the target "
                         "has the shared memory: has_large_ring)");
    proj.large_ring = true;
    c = hip_launch_choice_of(proj);
    EXPECT_EQ(c.splits, mxc_gemm_splits(mxc_gemm_preset_tile(MXC_GEMM_MMA_F32_DEEP), 197, 768, 3072, 1));
    EXPECT_EQ(c.args, ", mxc::hip::gemm_split<mxc::hip::gemm_mma_f32_deep, 6>");
    kernel_call out_proj = call("dot", f32, {sh(f32, {197, 768}), sh(f32, {768, 768})}, {197, 768});
    out_proj.f32_mma = out_proj.large_ring = true;
    out_proj.scratch_bytes = INT64_MAX;
    EXPECT_EQ(hip_launch_choice_of(out_proj).args, ", mxc::hip::gemm_split<mxc::hip::gemm_mma_f32_deep, 3>"); // 8 steps of 32 a slice
    // a tuned tile wins
    kernel_call tuned = l.kernels[0];
    tuned.tuning = {"64x64x8/4x4", "mxc::hip::gemm_config<64, 64, 8, 4, 4>", "db:2"};
    EXPECT_EQ(hip_launch_choice_of(tuned).args, ", mxc::hip::gemm_config<64, 64, 8, 4, 4>");
    // convolutions too with MXC_FP32_MMA=all (the half one stays as it was)
    ::setenv("MXC_FP32_MMA", "all", 1);
    EXPECT_EQ(use_f32_matrix_units(l, "gfx90a"), 4);
    EXPECT_TRUE(l.kernels[4].f32_mma && !l.kernels[3].f32_mma);
    EXPECT_EQ(hip_launch_choice_of(l.kernels[4]).args, ", mxc::hip::gemm_mma_f32, MXC_CONV_GEMM_1X1");
    EXPECT_EQ(use_f32_matrix_units(l, "gfx1030"), 0);
    // the A/B switch
    ::setenv("MXC_FP32_MMA", "0", 1);
    EXPECT_EQ(use_f32_matrix_units(l, "sm_90"), 0);
    ::unsetenv("MXC_FP32_MMA");
    EXPECT_EQ(hip_launch_choice_of(l.kernels[0]).args, ", mxc::hip::gemm_medium");
}

// gemm_mma_large_ring: the large matrix-unit tile with the ring of stages (80 KiB of dynamic
// shared memory) on NVIDIA GPUs with 160 KiB or more per SM and the emulator; the rule's large
// tile becomes it for half kernels (channels-last convolutions included, which would otherwise
// take gemm_mma_small for its ring), and float ones on the matrix units take gemm_mma_f32_deep;
// MXC_LARGE_RING=0 is the A/B.
TEST(GemmChoice, LargeRing) {
    ::unsetenv("MXC_LARGE_RING");
    for (const char* a : {"sm_80", "sm_87", "sm_90", "sm_100", "sm_103", "emu"}) EXPECT_TRUE(has_large_ring(a)) << a;
    for (const char* a : {"sm_75", "sm_86", "sm_89", "sm_120", "sm_", "sm_9", "sm_900", "gfx90a", "gfx942", ""})
        EXPECT_FALSE(has_large_ring(a)) << a;

    const std::vector<int64_t> padded = {1, 1, 1, 1, 1, 1, 1}, one = {1, 0, 0, 1, 1, 1, 1};
    lowered_module l;
    l.kernels.push_back(call("fused_convolution", f16, {sh(f16, {32, 256, 56, 56}), sh(f16, {128, 256, 1, 1})},
                             {32, 128, 56, 56}, one)); // 128 x 100352 x 256: the large tile
    l.kernels.push_back(call("convolution", f16, {sh(f16, {32, 64, 56, 56}), sh(f16, {128, 64, 3, 3})}, {32, 128, 56, 56},
                             padded)); // channels-last once it has its scratch
    l.kernels.push_back(call("dot", f16, {sh(f16, {32, 197, 768}), sh(f16, {768, 768})}, {32, 197, 768}));
    l.kernels.push_back(call("dot", f16, {sh(f16, {197, 768}), sh(f16, {768, 768})}, {197, 768})); // few tiles: small
    l.kernels.push_back(call("dot", f32, {sh(f32, {4096, 768}), sh(f32, {768, 768})}, {4096, 768}));
    EXPECT_EQ(use_large_ring(l, "sm_86"), 0);
    EXPECT_EQ(hip_launch_choice_of(l.kernels[0]).args, ", mxc::hip::gemm_mma_large, MXC_CONV_GEMM_1X1");
    EXPECT_EQ(use_large_ring(l, "sm_90"), 5); // the half ones and the float one
    EXPECT_TRUE(l.kernels[4].large_ring);
    EXPECT_EQ(hip_launch_choice_of(l.kernels[4]).args, ", mxc::hip::gemm_large"); // (the SIMT engine: not marked f32_mma)
    l.kernels[4].f32_mma = true;
    EXPECT_EQ(hip_launch_choice_of(l.kernels[4]).args, ", mxc::hip::gemm_mma_f32_deep");
    auto c = hip_launch_choice_of(l.kernels[0]);
    EXPECT_EQ(c.args, ", mxc::hip::gemm_mma_large_ring, MXC_CONV_GEMM_1X1");
    EXPECT_EQ(c.comment, "gemm 128x100352x256x1: mxc::hip::gemm_mma_large_ring (rule: mxc_gemm_pick; its large tile with "
                         "the ring of stages: has_large_ring)");
    EXPECT_EQ(hip_launch_choice_of(l.kernels[1]).args, ", mxc::hip::gemm_mma_large_ring, MXC_CONV_GEMM_IM2COL"); // no scratch yet
    l.kernels[1].scratch_bytes = INT64_MAX;
    EXPECT_EQ(hip_launch_choice_of(l.kernels[1]).args, ", mxc::hip::gemm_mma_large_ring, MXC_CONV_GEMM_NHWC");
    EXPECT_EQ(hip_launch_choice_of(l.kernels[2]).args, ", mxc::hip::gemm_mma_large_ring");
    EXPECT_EQ(hip_launch_choice_of(l.kernels[3]).args, ", mxc::hip::gemm_mma_small");
    // the A/B switch
    ::setenv("MXC_LARGE_RING", "0", 1);
    EXPECT_FALSE(large_ring_wanted("sm_90"));
    EXPECT_EQ(use_large_ring(l, "sm_90"), 0);
    ::unsetenv("MXC_LARGE_RING");
    EXPECT_EQ(hip_launch_choice_of(l.kernels[1]).args, ", mxc::hip::gemm_mma_small, MXC_CONV_GEMM_NHWC");
    EXPECT_EQ(hip_launch_choice_of(l.kernels[4]).args, ", mxc::hip::gemm_mma_f32");
    EXPECT_TRUE(large_ring_wanted("emu"));
}
