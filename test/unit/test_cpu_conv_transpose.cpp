// The cpu convolution_transpose kernel (templates/cpu/convolution_transpose.hpp: the GEMM +
// col2im path and the tiling path for float, double, half and bfloat16) against mxc_conv_transpose_at, the
// per-element formula the hip kernel shares, element by element over odd shapes; with no
// thread pool and with a pool of 2 threads (the results must be identical).
#include "runtime-stub/thread_pool.hpp"
#include "templates/cpu/convolution_transpose.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

struct ct_case {
    int64_t N, C, mg, group;
    std::vector<int64_t> in, k, stride, pad_begin, pad_end, dil, out_pad;
};

std::string describe(const ct_case& c) {
    auto list = [](const std::vector<int64_t>& v) {
        std::string s = "[";
        for (auto x : v) s += std::to_string(x) + " ";
        return s + "]";
    };
    return "N " + std::to_string(c.N) + " C " + std::to_string(c.C) + " mg " + std::to_string(c.mg) + " group " +
           std::to_string(c.group) + " in " + list(c.in) + " k " + list(c.k) + " stride " + list(c.stride) +
           " pads " + list(c.pad_begin) + list(c.pad_end) + " dil " + list(c.dil) + " out_pad " + list(c.out_pad);
}

mxc_desc packed_desc(const std::vector<int64_t>& lens) {
    mxc_desc d{};
    d.rank = static_cast<int32_t>(lens.size());
    int64_t acc = 1;
    for (int i = d.rank - 1; i >= 0; --i) {
        d.lens[i] = lens[static_cast<size_t>(i)];
        d.strides[i] = acc;
        acc *= d.lens[i];
    }
    return d;
}

double value(uint32_t& seed) {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<double>((seed >> 8) % 2000) / 1000.0 - 1.0;
}

template <class T> double tolerance() {
    if (std::is_same<T, double>::value) return 1e-12;
    if (std::is_same<T, float>::value) return 1e-5;
    if (std::is_same<T, mxc_half>::value) return 2e-3;
    return 1.6e-2;
}

// Runs the kernel on case c and compares it with mxc_conv_transpose_at; `threads` > 1 runs it
// on a pool. x is stored as a view when x_gap is given: x_gap[d] unused elements after every
// run of dim d (a gap in a spatial dim takes the per-element path, in dims 0 and 1 not).
// Returns the output.
template <class T>
std::vector<double> check(const ct_case& c, int threads, const std::vector<int64_t>& x_gap = {}) {
    const size_t s = c.in.size();
    std::vector<int64_t> xl{c.N, c.C}, wl{c.C, c.mg}, yl{c.N, c.mg * c.group};
    std::vector<int64_t> ip{c.group};
    for (size_t d = 0; d < s; ++d) {
        xl.push_back(c.in[d]);
        wl.push_back(c.k[d]);
        yl.push_back((c.in[d] - 1) * c.stride[d] - c.pad_begin[d] - c.pad_end[d] + (c.k[d] - 1) * c.dil[d] + 1 +
                     c.out_pad[d]);
    }
    ip.insert(ip.end(), c.pad_begin.begin(), c.pad_begin.end());
    ip.insert(ip.end(), c.stride.begin(), c.stride.end());
    ip.insert(ip.end(), c.dil.begin(), c.dil.end());
    mxc_desc xd = packed_desc(xl), wd = packed_desc(wl), yd = packed_desc(yl);
    if (!x_gap.empty()) {
        int64_t acc = 1;
        for (int i = xd.rank - 1; i >= 0; --i) {
            xd.strides[i] = acc;
            acc *= xd.lens[i] + x_gap[static_cast<size_t>(i)];
        }
    }
    int64_t x_size = 1;
    for (int i = 0; i < xd.rank; ++i) x_size += (xd.lens[i] - 1) * xd.strides[i];
    uint32_t seed = 7;
    std::vector<T> x(static_cast<size_t>(x_size)), w(static_cast<size_t>(mxc_elements(wd)));
    for (auto& v : x) v = T(static_cast<float>(value(seed)));
    for (auto& v : w) v = T(static_cast<float>(value(seed)));
    const int64_t ny = mxc_elements(yd);
    std::vector<T> y(static_cast<size_t>(ny), T(12345.0f)); // every element must be written
    const void* in[2] = {x.data(), w.data()};
    mxc_desc descs[2] = {xd, wd};
    mxc_kargs k{2, in, descs, y.data(), &yd, ip.data(), static_cast<int32_t>(ip.size()), nullptr, 0};

    mxc_rt::thread_pool pool;
    if (threads > 1) {
        EXPECT_TRUE(pool.start(threads));
        mxc::cpu::current_pool() = &pool.iface;
    }
    mxc::cpu::convolution_transpose<T>(k);
    mxc::cpu::current_pool() = nullptr;

    std::vector<double> got(static_cast<size_t>(ny));
    int bad = 0;
    for (int64_t e = 0; e < ny; ++e) {
        const double want = mxc_to_double(T(mxc_conv_transpose_at(x.data(), xd, w.data(), wd, yd, ip.data(), e)));
        got[static_cast<size_t>(e)] = mxc_to_double(y[static_cast<size_t>(e)]);
        if (!(std::fabs(got[static_cast<size_t>(e)] - want) <= tolerance<T>() * (1 + std::fabs(want))) && bad++ < 3)
            ADD_FAILURE() << describe(c) << " threads " << threads << ": y[" << e << "] = " << got[static_cast<size_t>(e)]
                          << ", want " << want;
    }
    return got;
}

template <class T> void check_threads(const ct_case& c) {
    SCOPED_TRACE(describe(c));
    const auto one = check<T>(c, 1), two = check<T>(c, 2);
    EXPECT_EQ(one, two) << "the result depends on the thread count";
}

// 1-d, 2-d and 3-d cases: strides 1/2/3, kernels 1/2/3/4, pads, output_padding, dilation, groups, N > 1.
std::vector<ct_case> cases() {
    return {
        // the UNet case: 2x2 kernel, stride 2
        {1, 16, 8, 1, {5, 7}, {2, 2}, {2, 2}, {0, 0}, {0, 0}, {1, 1}, {0, 0}},
        // overlapping 3x3 stride 2 with pads and output_padding, N > 1
        {2, 5, 3, 1, {6, 5}, {3, 3}, {2, 2}, {1, 1}, {1, 0}, {1, 1}, {1, 1}},
        // stride 3 with a 4-wide kernel, uneven pads, dilation
        {1, 3, 7, 1, {4, 6}, {4, 3}, {3, 1}, {2, 0}, {1, 2}, {2, 1}, {2, 0}},
        // stride larger than the kernel (outputs no input reaches), 1x1 kernel
        {2, 4, 5, 1, {3, 4}, {1, 1}, {3, 2}, {0, 0}, {0, 0}, {1, 1}, {1, 1}},
        // groups
        {2, 6, 4, 3, {5, 4}, {3, 2}, {2, 1}, {1, 0}, {0, 1}, {1, 2}, {1, 0}},
        // depthwise
        {1, 5, 1, 5, {4, 4}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, {0, 0}},
        // 1-d: stride 3, kernel 4, dilation 2, pads, output_padding
        {3, 4, 3, 2, {9}, {4}, {3}, {2}, {1}, {2}, {2}},
        // 1-d: stride 1, kernel 3
        {1, 3, 2, 1, {11}, {3}, {1}, {1}, {1}, {1}, {0}},
        // 3-d: 2x2x2 stride 2 and an overlapping 3x2x3
        {1, 4, 3, 1, {3, 2, 3}, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {0, 0, 0}, {1, 1, 1}, {0, 0, 0}},
        {2, 4, 3, 2, {3, 4, 2}, {3, 2, 3}, {2, 1, 3}, {1, 0, 2}, {0, 1, 1}, {1, 2, 1}, {1, 0, 2}},
        // big enough for several channel blocks, bands and input chunks
        {1, 37, 70, 1, {19, 23}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
        {2, 20, 64, 1, {24, 24}, {2, 2}, {2, 2}, {0, 0}, {0, 0}, {1, 1}, {0, 0}},
        // tiling (kernel = stride, no pads: the GEMM stores into the band, conv_transpose_scatter):
        // 3x3 stride 3, 1x2 stride (1, 2) with groups, rows that do not fill the GEMM's column
        // blocks over several bands and chunks; 4x4 stride 4 (4 does not divide the GEMM's row
        // groups: the col buffer)
        {2, 5, 4, 1, {4, 5}, {3, 3}, {3, 3}, {0, 0}, {0, 0}, {1, 1}, {0, 0}},
        {1, 6, 5, 2, {3, 7}, {1, 2}, {1, 2}, {0, 0}, {0, 0}, {1, 1}, {0, 0}},
        {1, 24, 40, 1, {33, 37}, {2, 2}, {2, 2}, {0, 0}, {0, 0}, {1, 1}, {0, 0}},
        {1, 3, 2, 1, {3, 4}, {4, 4}, {4, 4}, {0, 0}, {0, 0}, {1, 1}, {0, 0}},
        // an empty kernel dim: every output is zero (the GEMM form divided by the kernel's size)
        {1, 4, 3, 1, {3, 4}, {0, 2}, {2, 2}, {0, 0}, {0, 0}, {1, 1}, {0, 0}},
        // an empty input dim: every output is zero
        {1, 2, 3, 1, {3, 0}, {2, 3}, {1, 1}, {0, 0}, {0, 0}, {1, 1}, {0, 0}},
        // a long 1-d signal: chunks cut the rows of the last dim
        {1, 8, 100, 1, {300}, {4}, {2}, {1}, {1}, {1}, {0}},
    };
}

} // namespace

TEST(cpu_conv_transpose, float_cases) {
    for (const auto& c : cases()) check_threads<float>(c);
}
TEST(cpu_conv_transpose, double_cases) {
    for (const auto& c : cases()) check_threads<double>(c);
}
TEST(cpu_conv_transpose, half_cases) {
    for (const auto& c : cases()) check_threads<mxc_half>(c);
}
TEST(cpu_conv_transpose, bf16_cases) {
    for (const auto& c : cases()) check_threads<mxc_bf16>(c);
}

TEST(cpu_conv_transpose, strided_input_views) {
    const auto c = cases()[1]; // N 2, C 5, 2-d
    check<float>(c, 1, {0, 0, 0, 3}); // gaps in the last dim: the per-element path
    check<float>(c, 2, {0, 0, 1, 0});
    check<float>(c, 1, {1, 2, 0, 0}); // gaps between images and channels: the GEMM path
    check<mxc_half>(c, 2, {0, 3, 0, 0});
}
