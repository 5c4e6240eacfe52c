// The row-wise cpu kernels of the direct convolution (depthwise, small groups, types without
// the GEMM), the implicit GEMM with its im2col matrix or shifted input in the scratch, and pooling against the
// per-element math of templates/common (mxc_conv_at, mxc_pool_at), over odd shapes; and the
// same results whatever the thread count.
#include "templates/cpu/convolution.hpp"
#include "templates/cpu/pooling.hpp"
#include "test/unit/pool_case.hpp"
#include "test/unit/with_threads.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

namespace {

using mxc_test::desc_of;
using mxc_test::extent;
using mxc_test::pool_case;
using mxc_test::with_threads;

template <class T> std::vector<T> values(int64_t n, uint32_t seed) {
    std::vector<T> v(size_t(n), T(0.f));
    for (auto& x : v) {
        seed = seed * 1664525u + 1013904223u;
        if constexpr (std::is_integral<T>::value) x = T(int((seed >> 8) % 200) - (std::is_signed<T>::value ? 100 : 0));
        else x = T(float((seed >> 8) % 2000) / 1000.0f - 1.0f);
    }
    return v;
}

template <class T> double tolerance() {
    if (std::is_integral<T>::value) return 0;
    if (std::is_same<T, double>::value) return 1e-12;
    if (std::is_same<T, float>::value) return 2e-5;
    return 4e-3; // half, bfloat16: rounding of the stored result
}

struct conv_case {
    std::vector<int64_t> x, w; // [N, C, spatial...], [M, C / group, k...]
    int64_t group;
    std::vector<int64_t> pb, pe, stride, dil;
    int64_t gap = 1;     // x a strided view (see desc_of)
    int64_t row_pad = 0; // or a view of rows row_pad elements longer than its width (gap 1)
};

// x's descriptor: packed, a gap between elements, or padded rows.
mxc_desc x_desc(const conv_case& c) {
    mxc_desc d = desc_of(c.x, c.gap);
    if (c.row_pad == 0) return d;
    int64_t st = c.x.back() + c.row_pad;
    for (int i = d.rank - 2; i >= 0; --i) d.strides[i] = st, st *= d.lens[i];
    return d;
}

// convolution_epilogue<T> with an epilogue that depends on the element index, against
// mxc_conv_at; then the same with 3 threads, bit for bit. With `scratch`, the implicit GEMM
// must want the arena scratch (conv_scratch_bytes) in the form `scratch` says (the shifted
// form, conv_shift_form, or the im2col matrix): it runs once more with 1 and with 3 threads,
// given a scratch of that size full of NaNs, right against mxc_conv_at and the same bits on
// both thread counts; with the im2col matrix (packed once into the scratch instead of once
// per block of rows) the same bits as without the scratch.
enum class scratch_form { none, im2col, shifted };
template <class T> void check_conv(const conv_case& c, scratch_form scratch = scratch_form::none) {
    using C = mxc::cpu::compute_t<T>;
    const size_t s = c.x.size() - 2;
    std::vector<int64_t> out{c.x[0], c.w[0]}, ip{c.group};
    for (size_t d = 0; d < s; ++d)
        out.push_back((c.x[2 + d] + c.pb[d] + c.pe[d] - (c.w[2 + d] - 1) * c.dil[d] - 1) / c.stride[d] + 1);
    for (auto* v : {&c.pb, &c.stride, &c.dil}) ip.insert(ip.end(), v->begin(), v->end());
    const mxc_desc ds[2] = {x_desc(c), desc_of(c.w)}, od = desc_of(out);
    const auto x = values<T>(extent(ds[0]), 3), w = values<T>(extent(ds[1]), 4);
    const void* in[2] = {x.data(), w.data()};
    const int64_t n = mxc_elements(od);
    auto epi = [](C v, int64_t e) { return v * C(2) + C(e % 11); }; // (11: no chunk of 64-column units is a multiple)
    std::vector<T> y1(size_t(n), T(0.f)), y3(size_t(n), T(0.f));
    for (auto* y : {&y1, &y3}) {
        const mxc_kargs k = {2, in, ds, y->data(), &od, ip.data(), int32_t(ip.size()), nullptr, 0};
        with_threads(y == &y1 ? 1 : 3, [&] { mxc::cpu::convolution_epilogue<T>(k, epi); });
    }
    // the two sums differ in order: their rounding errors grow with the depth
    double depth = 1;
    for (size_t d = 1; d < c.w.size(); ++d) depth *= double(c.w[d]);
    const double tol = tolerance<T>() * (depth > 32 && std::is_floating_point<T>::value ? depth / 32 : 1);
    for (int64_t e = 0; e < n; ++e) {
        const double want = double(epi(mxc_conv_at(x.data(), ds[0], w.data(), ds[1], od, ip.data(), e), e));
        ASSERT_NEAR(double(C(y1[size_t(e)])), want, tol * (1 + std::fabs(want))) << "element " << e;
        ASSERT_EQ(std::memcmp(&y1[size_t(e)], &y3[size_t(e)], sizeof(T)), 0) << "thread count changed element " << e;
    }
    if (scratch == scratch_form::none) return;
    const int64_t bytes = mxc::cpu::conv_scratch_bytes<T>(ds[0], ds[1], od, ip.data());
    ASSERT_GT(bytes, 0) << "this convolution wants no scratch";
    mxc::cpu::conv_shift_geometry g;
    ASSERT_EQ(mxc::cpu::conv_shift_form(ds[0], ds[1], od, ip.data(), g), scratch == scratch_form::shifted)
        << "the convolution takes the other form";
    std::vector<T> first;
    for (int threads : {1, 3}) {
        std::vector<C> sc(size_t(bytes) / sizeof(C), C(NAN));
        std::vector<T> ys(size_t(n), T(0.f));
        const mxc_kargs k = {2, in, ds, ys.data(), &od, ip.data(), int32_t(ip.size()), nullptr, 0, sc.data()};
        with_threads(threads, [&] { mxc::cpu::convolution_epilogue<T>(k, epi); });
        // im2col: the very same sums as without the scratch. shifted: the same products in the
        // same order, but where the path without it takes gemm_tail (a last strip of a few
        // columns as dot products) those are summed in another order: right against the
        // reference, and the same bits whatever the thread count
        if (first.empty()) first = ys;
        for (int64_t e = 0; e < n; ++e) {
            const double want = double(epi(mxc_conv_at(x.data(), ds[0], w.data(), ds[1], od, ip.data(), e), e));
            if (scratch == scratch_form::im2col)
                ASSERT_EQ(std::memcmp(&y1[size_t(e)], &ys[size_t(e)], sizeof(T)), 0)
                    << "the scratch changed element " << e << " (" << threads << " threads): " << double(C(ys[size_t(e)]))
                    << " want " << double(C(y1[size_t(e)]));
            ASSERT_NEAR(double(C(ys[size_t(e)])), want, tol * (1 + std::fabs(want))) << "element " << e << " (scratch)";
            ASSERT_EQ(std::memcmp(&first[size_t(e)], &ys[size_t(e)], sizeof(T)), 0) << "thread count changed element " << e;
        }
    }
}

void check_conv_all(const conv_case& c) {
    check_conv<float>(c);
    check_conv<double>(c);
    check_conv<mxc_half>(c);
    check_conv<int32_t>(c);
}

// pooling<T> against mxc_pool_at, bit for bit (the same order of the same operations), with
// 1 and 3 threads.
template <class T> void check_pool(const pool_case& c) {
    std::vector<int64_t> out, ip;
    mxc_test::pool_shape(c, out, ip);
    const mxc_desc xd = desc_of(c.x, c.gap), od = desc_of(out);
    const auto x = values<T>(extent(xd), 5);
    const void* in[1] = {x.data()};
    const int64_t n = mxc_elements(od);
    for (int threads : {1, 3}) {
        std::vector<T> y(size_t(n), T(0.f));
        const mxc_kargs k = {1, in, &xd, y.data(), &od, ip.data(), int32_t(ip.size()), nullptr, 0};
        with_threads(threads, [&] { mxc::cpu::pooling<T>(k); });
        for (int64_t e = 0; e < n; ++e) {
            const T want = T(mxc_pool_at(x.data(), xd, od, ip.data(), e));
            ASSERT_EQ(std::memcmp(&y[size_t(e)], &want, sizeof(T)), 0)
                << "element " << e << ": " << double(mxc::cpu::compute_t<T>(y[size_t(e)])) << " want "
                << double(mxc::cpu::compute_t<T>(want)) << " (" << threads << " threads)";
        }
    }
}

void check_pool_all(pool_case c) {
    check_pool<float>(c);
    check_pool<double>(c);
    check_pool<mxc_half>(c);
    if (c.mode == 0) {
        check_pool<int8_t>(c);
        check_pool<uint8_t>(c);
    }
}

} // namespace

TEST(cpu_depthwise, stride1_pad1_3x3) { check_conv_all({{2, 3, 9, 10}, {3, 1, 3, 3}, 3, {1, 1}, {1, 1}, {1, 1}, {1, 1}}); }
TEST(cpu_depthwise, stride2_asymmetric_pads) {
    check_conv_all({{1, 4, 11, 12}, {4, 1, 3, 3}, 4, {1, 0}, {0, 2}, {2, 2}, {1, 1}});
    check_conv_all({{1, 4, 12, 11}, {4, 1, 3, 3}, 4, {0, 1}, {1, 0}, {2, 2}, {1, 1}});
}
TEST(cpu_depthwise, stride3_kernel5_dilation2) {
    check_conv_all({{1, 2, 17, 19}, {2, 1, 5, 5}, 2, {2, 3}, {1, 4}, {3, 3}, {2, 2}});
    check_conv_all({{1, 2, 13, 14}, {2, 1, 3, 5}, 2, {1, 2}, {2, 1}, {1, 3}, {2, 1}});
}
TEST(cpu_depthwise, kernel7_wider_than_the_plane) {
    check_conv_all({{1, 3, 4, 5}, {3, 1, 7, 7}, 3, {3, 3}, {3, 3}, {1, 1}, {1, 1}});
    check_conv_all({{1, 2, 6, 3}, {2, 1, 1, 7}, 2, {0, 4}, {0, 2}, {1, 2}, {1, 1}});
}
TEST(cpu_depthwise, tiny_planes_and_kernel1) {
    check_conv_all({{2, 5, 1, 1}, {5, 1, 3, 3}, 5, {1, 1}, {1, 1}, {1, 1}, {1, 1}});
    check_conv_all({{1, 3, 7, 6}, {3, 1, 1, 1}, 3, {0, 0}, {0, 0}, {2, 2}, {1, 1}});
}
TEST(cpu_depthwise, channel_multiplier) {
    check_conv_all({{1, 4, 8, 9}, {8, 1, 3, 3}, 4, {1, 1}, {1, 1}, {1, 1}, {1, 1}});
    check_conv_all({{2, 3, 9, 8}, {9, 1, 3, 3}, 3, {1, 1}, {1, 1}, {2, 2}, {1, 1}});
}
TEST(cpu_depthwise, small_groups_and_other_ranks) {
    check_conv_all({{1, 8, 7, 7}, {8, 2, 3, 3}, 4, {1, 1}, {1, 1}, {1, 1}, {1, 1}});          // cg 2, mg 2
    check_conv_all({{1, 4, 17}, {4, 1, 5}, 4, {2}, {1}, {2}, {1}});                            // 1-d
    check_conv_all({{1, 2, 4, 5, 6}, {2, 1, 3, 3, 3}, 2, {1, 1, 1}, {1, 0, 1}, {1, 2, 1}, {1, 1, 1}}); // 3-d
}
TEST(cpu_depthwise, rows_longer_than_a_chunk) {
    check_conv_all({{1, 2, 3, 600}, {2, 1, 3, 3}, 2, {1, 1}, {1, 1}, {1, 1}, {1, 1}});
    check_conv_all({{1, 2, 3, 701}, {2, 1, 3, 3}, 2, {1, 1}, {1, 1}, {1, 2}, {1, 1}});
}
TEST(cpu_depthwise, small_planes_padded_and_large_planes_by_rows) {
    check_conv_all({{1, 3, 9, 11}, {3, 1, 3, 5}, 3, {2, 1}, {0, 3}, {1, 1}, {2, 2}}); // dilated, k_w > 3
    check_conv_all({{2, 2, 5, 4}, {4, 1, 2, 2}, 2, {0, 1}, {1, 0}, {1, 1}, {1, 1}});
    check_conv_all({{1, 2, 66, 70}, {2, 1, 3, 3}, 2, {1, 1}, {1, 1}, {1, 1}, {1, 1}}); // two bands
    check_conv_all({{1, 1, 10, 1000}, {1, 1, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}}); // bands of 2 rows
    check_conv_all({{1, 2, 20, 300}, {2, 1, 3, 3}, 2, {2, 2}, {2, 2}, {1, 1}, {2, 2}});  // dilated bands
    check_conv_all({{1, 1, 4, 1500}, {1, 1, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}});  // too wide: rows
}
TEST(cpu_depthwise, strided_input_view) {
    check_conv_all({{1, 3, 9, 10}, {3, 1, 3, 3}, 3, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 2});
    check_conv_all({{1, 3, 9, 10}, {3, 1, 3, 3}, 3, {1, 1}, {1, 1}, {2, 2}, {1, 1}, 3});
}

// More than one block of 8 channels (the vector lanes), a partial last block, widths past the
// 8 x 8 transposes, the generic tap loop (5 x 5), strided views (no transposes, or one a row)
// and small planes (transposed as one run of their rows, clipped to the columns read). (3 x 3
// stride 1 under 16 columns: 15 and 14 wide; wider ones take conv_depthwise_rows.)
TEST(cpu_depthwise, blocks_of_eight_channels) {
    check_conv_all({{2, 13, 12, 15}, {13, 1, 3, 3}, 13, {1, 1}, {1, 1}, {1, 1}, {1, 1}});
    check_conv_all({{1, 16, 23, 34}, {16, 1, 3, 3}, 16, {1, 0}, {1, 1}, {2, 2}, {1, 1}});
    check_conv_all({{1, 6, 11, 19}, {12, 1, 3, 3}, 6, {1, 1}, {1, 1}, {2, 1}, {1, 1}});    // multiplier 2
    check_conv_all({{1, 9, 14, 27}, {9, 1, 5, 5}, 9, {2, 2}, {2, 2}, {1, 1}, {1, 2}});     // generic taps
    check_conv_all({{1, 10, 9, 14}, {10, 1, 3, 3}, 10, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 2}); // strided view
    check_conv_all({{1, 9, 6, 13}, {9, 1, 3, 3}, 9, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 1, 3}); // padded rows
    check_conv_all({{1, 9, 7, 7}, {9, 1, 3, 3}, 9, {1, 1}, {1, 1}, {1, 1}, {1, 1}});          // a small plane
    check_conv_all({{1, 8, 9, 9}, {8, 1, 3, 3}, 8, {0, 0}, {1, 1}, {2, 2}, {1, 1}});          // column 8 unread
    check_conv_all({{1, 8, 3, 900}, {8, 1, 3, 3}, 8, {1, 1}, {1, 1}, {1, 2}, {2, 1}});      // one row a band
}

// The sums before the epilogue of a depthwise float convolution, as one kernel computes them:
// the 8-channel kernel (conv_depthwise) block by block, conv_depthwise_rows band by band, or
// conv_depthwise_flat a block of channels at a time, or conv_depthwise_s2 band by band;
// y[(n * M + m) * plane + p].
enum class dw_kernel { eight, rows, flat, s2 };
std::vector<float> depthwise_sums(const mxc_kargs& k, dw_kernel which) {
    const mxc_desc& od = *k.out_desc;
    const int64_t m = od.lens[1], rows = od.lens[2], ow = od.lens[3], plane = rows * ow;
    std::vector<float> y(size_t(mxc_elements(od)), NAN);
    if (which == dw_kernel::eight) {
        using D = mxc::cpu::conv_depthwise<float>;
        const D dw(k);
        EXPECT_GT(dw.band, 0) << "not the 8-channel kernel's case";
        struct scratch { // (a std::vector of D::V would lose its alignment: attributes drop from template arguments)
            D::V buf[D::buf_cap];
            float run[D::lanes * D::run_cap];
        };
        const auto sc = std::make_unique<scratch>();
        for (int64_t n = 0; n < od.lens[0] && dw.band > 0; ++n)
            for (int64_t m0 = 0; m0 < m; m0 += D::lanes)
                for (int64_t r0 = 0; r0 < rows; r0 += dw.band) {
                    const int64_t r1 = r0 + dw.band < rows ? r0 + dw.band : rows;
                    dw.block_any(n, m0, r0, r1, sc->buf, sc->run);
                    for (int64_t l = 0; l < D::lanes && m0 + l < m; ++l)
                        for (int64_t i = 0; i < (r1 - r0) * ow; ++i)
                            y[size_t((n * m + m0 + l) * plane + r0 * ow + i)] = sc->run[l * D::run_cap + i];
                }
    } else if (which == dw_kernel::rows) {
        using D = mxc::cpu::conv_depthwise_rows<float>;
        const D dr(k);
        EXPECT_GT(dr.band, 0) << "not the rows kernel's case";
        struct scratch {
            alignas(64) float buf[D::buf_cap];
            float run[D::run_cap];
        };
        const auto sc = std::make_unique<scratch>();
        for (int64_t nm = 0; nm < od.lens[0] * m && dr.band > 0; ++nm)
            for (int64_t r0 = 0; r0 < rows; r0 += dr.band) {
                const int64_t r1 = r0 + dr.band < rows ? r0 + dr.band : rows;
                dr.block_any(nm / m, nm % m, r0, r1, sc->buf, sc->run);
                std::copy(sc->run, sc->run + (r1 - r0) * ow, y.begin() + nm * plane + r0 * ow);
            }
    } else if (which == dw_kernel::s2) {
#if MXC_GEMM_AVX2
        using D = mxc::cpu::conv_depthwise_s2<float>;
        const D ds(k);
        EXPECT_GT(ds.band, 0) << "not the stride-2 kernel's case";
        std::vector<uint16_t> masks(3 * D::max_vectors);
        if (ds.band > 0) ds.fill_masks(masks.data());
        std::vector<float> run(D::run_cap);
        for (int64_t nm = 0; nm < od.lens[0] * m && ds.band > 0; ++nm)
            for (int64_t r0 = 0; r0 < rows; r0 += ds.band) {
                const int64_t r1 = r0 + ds.band < rows ? r0 + ds.band : rows;
                ds.block(nm / m, nm % m, r0, r1, masks.data(), run.data());
                std::copy(run.begin(), run.begin() + (r1 - r0) * ow, y.begin() + nm * plane + r0 * ow);
            }
#endif
    } else {
#if MXC_GEMM_AVX2
        using D = mxc::cpu::conv_depthwise_flat<float>;
        const D df(k);
        EXPECT_GT(df.channels, 0) << "not the flat kernel's case";
        std::vector<uint16_t> masks(D::max_vectors * D::max_taps);
        if (df.channels > 0) df.fill_masks(masks.data());
        std::vector<float> run(D::run_cap);
        for (int64_t n = 0; n < od.lens[0] && df.channels > 0; ++n)
            for (int64_t m0 = 0; m0 < m; m0 += df.channels) {
                const int64_t nc = m - m0 < df.channels ? m - m0 : df.channels;
                df.block(n, m0, nc, masks.data(), run.data());
                for (int64_t j = 0; j < nc; ++j)
                    std::copy(run.begin() + j * df.vectors * D::lanes, run.begin() + j * df.vectors * D::lanes + plane,
                              y.begin() + (n * m + m0 + j) * plane);
            }
#endif
    }
    return y;
}

// `which` takes the case and gives the same bits as the 8-channel kernel: the same products
// summed in the same order, fused on both where the CPU has AVX2 (float, no epilogue); and
// the case end to end (check_conv_all) right against mxc_conv_at.
// A 2-d case's descriptors and ip (group, pads at the start, strides, dilations).
struct case_args {
    std::vector<int64_t> ip;
    mxc_desc ds[2], od;
    explicit case_args(const conv_case& c) : ip{c.group}, ds{x_desc(c), desc_of(c.w)} {
        std::vector<int64_t> out{c.x[0], c.w[0]};
        for (size_t d = 0; d < 2; ++d)
            out.push_back((c.x[2 + d] + c.pb[d] + c.pe[d] - (c.w[2 + d] - 1) * c.dil[d] - 1) / c.stride[d] + 1);
        for (auto* v : {&c.pb, &c.stride, &c.dil}) ip.insert(ip.end(), v->begin(), v->end());
        od = desc_of(out);
    }
    mxc_kargs kargs(const void** in, void* y) const { return {2, in, ds, y, &od, ip.data(), int32_t(ip.size()), nullptr, 0}; }
};

void check_dw_kernel(const conv_case& c, dw_kernel which) {
    SCOPED_TRACE("x " + ::testing::PrintToString(c.x) + ", w " + ::testing::PrintToString(c.w));
    check_conv_all(c);
    const case_args a(c);
    const auto x = values<float>(extent(a.ds[0]), 3), w = values<float>(extent(a.ds[1]), 4);
    const void* in[2] = {x.data(), w.data()};
    std::vector<float> y(size_t(mxc_elements(a.od)));
    const mxc_kargs k = a.kargs(in, y.data());
    const std::vector<float> want = depthwise_sums(k, dw_kernel::eight), got = depthwise_sums(k, which);
    for (size_t e = 0; e < want.size(); ++e)
        ASSERT_EQ(std::memcmp(&want[e], &got[e], sizeof(float)), 0) << "element " << e << ": " << got[e] << " want " << want[e];
}
void check_rows_kernel(const conv_case& c) { check_dw_kernel(c, dw_kernel::rows); }

// Widths of whole vectors and not, odd row counts (a last row alone), padding on one side
// only and wider than the kernel reads, a channel multiplier, strided and row-padded views, and
// two bands of 75 rows (the stack buffers hold 109 rows of 112).
TEST(cpu_depthwise, rows_kernel) {
    check_rows_kernel({{1, 3, 9, 16}, {3, 1, 3, 3}, 3, {1, 1}, {1, 1}, {1, 1}, {1, 1}});
    check_rows_kernel({{2, 5, 11, 37}, {5, 1, 3, 3}, 5, {1, 1}, {1, 1}, {1, 1}, {1, 1}});
    check_rows_kernel({{1, 4, 7, 40}, {4, 1, 3, 3}, 4, {0, 2}, {2, 0}, {1, 1}, {1, 1}});
    check_rows_kernel({{1, 2, 8, 30}, {2, 1, 3, 3}, 2, {3, 3}, {3, 3}, {1, 1}, {1, 1}});
    check_rows_kernel({{1, 3, 10, 20}, {6, 1, 3, 3}, 3, {1, 1}, {1, 1}, {1, 1}, {1, 1}});    // multiplier 2
    check_rows_kernel({{1, 3, 9, 33}, {3, 1, 3, 3}, 3, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 2});  // strided view
    check_rows_kernel({{1, 3, 9, 33}, {3, 1, 3, 3}, 3, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 1, 5}); // padded rows
    check_rows_kernel({{1, 2, 150, 112}, {2, 1, 3, 3}, 2, {1, 1}, {1, 1}, {1, 1}, {1, 1}});   // two bands
    // stride 2: even and odd input widths (the last column read or not), whole and partial
    // vectors, padding on one side only (TF's SAME) and on none, a multiplier, a strided view,
    // and several bands (57 rows of 144 a band: 56 x 112 outputs in two)
    check_rows_kernel({{1, 3, 9, 32}, {3, 1, 3, 3}, 3, {1, 1}, {1, 1}, {2, 2}, {1, 1}});
    check_rows_kernel({{2, 5, 12, 75}, {5, 1, 3, 3}, 5, {1, 1}, {1, 1}, {2, 2}, {1, 1}});
    check_rows_kernel({{1, 4, 11, 40}, {4, 1, 3, 3}, 4, {0, 0}, {1, 1}, {2, 2}, {1, 1}});
    check_rows_kernel({{1, 2, 13, 35}, {2, 1, 3, 3}, 2, {0, 0}, {0, 0}, {2, 2}, {1, 1}});
    check_rows_kernel({{1, 3, 10, 66}, {6, 1, 3, 3}, 3, {2, 2}, {2, 2}, {2, 2}, {1, 1}});    // multiplier 2
    check_rows_kernel({{1, 3, 9, 33}, {3, 1, 3, 3}, 3, {1, 1}, {1, 1}, {2, 2}, {1, 1}, 2});  // strided view
    check_rows_kernel({{1, 2, 112, 112}, {2, 1, 3, 3}, 2, {1, 1}, {1, 1}, {2, 2}, {1, 1}});  // bands
}

// conv_depthwise_flat (stride 1, at most 1024 outputs a channel, output rows as long as the
// input's, AVX-512): MobileNetV2's 3x3s over 14x14 and 7x7, a plane of 1024 (64 vectors) and
// one of a partial last vector, padding on one side of a row only and rows of padding above
// and below, 5x5 and 1x3 kernels, dilation, a multiplier, two images, blocks of channels and a
// partial last block. Not where a row's padding makes it longer, a stride, more than 1024
// outputs, more than 25 taps, or a view of x whose elements are not a row apart and
// contiguous in it.
TEST(cpu_depthwise, flat_kernel) {
    if (mxc::cpu::gemm_runtime_isa() != mxc::cpu::gemm_isa::avx512) GTEST_SKIP() << "this CPU has no AVX-512F";
    const dw_kernel flat = dw_kernel::flat;
    check_dw_kernel({{1, 24, 14, 14}, {24, 1, 3, 3}, 24, {1, 1}, {1, 1}, {1, 1}, {1, 1}}, flat);
    check_dw_kernel({{2, 19, 7, 7}, {19, 1, 3, 3}, 19, {1, 1}, {1, 1}, {1, 1}, {1, 1}}, flat);
    check_dw_kernel({{1, 3, 32, 32}, {3, 1, 3, 3}, 3, {1, 1}, {1, 1}, {1, 1}, {1, 1}}, flat);
    check_dw_kernel({{1, 5, 9, 13}, {5, 1, 3, 3}, 5, {0, 2}, {2, 0}, {1, 1}, {1, 1}}, flat);
    check_dw_kernel({{1, 4, 11, 10}, {8, 1, 5, 5}, 4, {3, 2}, {1, 2}, {1, 1}, {1, 1}}, flat);  // multiplier 2
    check_dw_kernel({{1, 6, 12, 9}, {6, 1, 3, 3}, 6, {2, 2}, {2, 2}, {1, 1}, {2, 2}}, flat);   // dilation
    check_dw_kernel({{1, 4, 6, 20}, {4, 1, 1, 3}, 4, {0, 1}, {0, 1}, {1, 1}, {1, 1}}, flat);   // 1x3
    auto flat_case = [](std::vector<int64_t> x, std::vector<int64_t> w, int64_t pad_w, int64_t stride) {
        const int64_t ow = (x[3] + 2 * pad_w - w[3]) / stride + 1, oh = (x[2] + 2 - w[2]) / stride + 1;
        const mxc_desc ds[2] = {desc_of(x), desc_of(w)}, od = desc_of({x[0], w[0], oh, ow});
        const int64_t ip[] = {x[1], 1, pad_w, stride, stride, 1, 1};
        const void* in[2] = {nullptr, nullptr};
        const mxc_kargs k = {2, in, ds, nullptr, &od, ip, 7, nullptr, 0};
        return mxc::cpu::conv_depthwise_flat<float>(k).channels > 0;
    };
    EXPECT_TRUE(flat_case({1, 8, 32, 32}, {8, 1, 3, 3}, 1, 1));
    EXPECT_FALSE(flat_case({1, 8, 14, 14}, {8, 1, 3, 3}, 2, 1)); // rows of 16 from 14
    EXPECT_FALSE(flat_case({1, 8, 14, 14}, {8, 1, 3, 3}, 1, 2));
    EXPECT_FALSE(flat_case({1, 8, 33, 32}, {8, 1, 3, 3}, 1, 1)); // 1056 outputs
    EXPECT_FALSE(flat_case({1, 8, 14, 14}, {8, 1, 7, 7}, 3, 1)); // 49 taps
    const conv_case view{{1, 3, 9, 10}, {3, 1, 3, 3}, 3, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 2};
    const mxc_desc ds[2] = {x_desc(view), desc_of(view.w)}, od = desc_of({1, 3, 9, 10});
    const int64_t ip[] = {3, 1, 1, 1, 1, 1, 1};
    const void* in[2] = {nullptr, nullptr};
    EXPECT_EQ(mxc::cpu::conv_depthwise_flat<float>({2, in, ds, nullptr, &od, ip, 7, nullptr, 0}).channels, 0);
}

// conv_depthwise_s2 (3x3, stride 2, rows of at least 16 outputs, AVX-512): MobileNetV2's from
// 112x112 and 56x56, even and odd input widths (the last column read or not), whole and
// partial vectors, padding on one side only (TF's SAME), on none and wider than the kernel
// reads, a multiplier, two images, rows padded in memory, and three bands (225 rows of 56).
// Not for stride 1, rows of fewer than 16 outputs, another kernel or dilation, or a view of x
// whose columns are not contiguous.
TEST(cpu_depthwise, s2_kernel) {
    if (mxc::cpu::gemm_runtime_isa() != mxc::cpu::gemm_isa::avx512) GTEST_SKIP() << "this CPU has no AVX-512F";
    const dw_kernel s2 = dw_kernel::s2;
    check_dw_kernel({{1, 4, 112, 112}, {4, 1, 3, 3}, 4, {1, 1}, {1, 1}, {2, 2}, {1, 1}}, s2);
    check_dw_kernel({{1, 3, 56, 56}, {3, 1, 3, 3}, 3, {1, 1}, {1, 1}, {2, 2}, {1, 1}}, s2);
    check_dw_kernel({{1, 3, 9, 32}, {3, 1, 3, 3}, 3, {1, 1}, {1, 1}, {2, 2}, {1, 1}}, s2);
    check_dw_kernel({{2, 5, 12, 75}, {5, 1, 3, 3}, 5, {1, 1}, {1, 1}, {2, 2}, {1, 1}}, s2);
    check_dw_kernel({{1, 4, 11, 40}, {4, 1, 3, 3}, 4, {0, 0}, {1, 1}, {2, 2}, {1, 1}}, s2);
    check_dw_kernel({{1, 2, 13, 35}, {2, 1, 3, 3}, 2, {0, 0}, {0, 0}, {2, 2}, {1, 1}}, s2);
    check_dw_kernel({{1, 3, 10, 66}, {6, 1, 3, 3}, 3, {2, 2}, {2, 2}, {2, 2}, {1, 1}}, s2);    // multiplier 2
    check_dw_kernel({{1, 3, 9, 33}, {3, 1, 3, 3}, 3, {1, 1}, {1, 1}, {2, 2}, {1, 1}, 1, 5}, s2); // padded rows
    check_dw_kernel({{1, 2, 450, 112}, {2, 1, 3, 3}, 2, {1, 1}, {1, 1}, {2, 2}, {1, 1}}, s2);    // bands
    auto s2_case = [](const conv_case& c) {
        const case_args a(c);
        const void* in[2] = {nullptr, nullptr};
        return mxc::cpu::conv_depthwise_s2<float>(a.kargs(in, nullptr)).band > 0;
    };
    EXPECT_TRUE(s2_case({{1, 8, 32, 32}, {8, 1, 3, 3}, 8, {1, 1}, {1, 1}, {2, 2}, {1, 1}}));
    EXPECT_FALSE(s2_case({{1, 8, 32, 32}, {8, 1, 3, 3}, 8, {1, 1}, {1, 1}, {1, 1}, {1, 1}}));    // stride 1
    EXPECT_FALSE(s2_case({{1, 8, 28, 28}, {8, 1, 3, 3}, 8, {1, 1}, {1, 1}, {2, 2}, {1, 1}}));    // rows of 14
    EXPECT_FALSE(s2_case({{1, 8, 32, 32}, {8, 1, 5, 5}, 8, {2, 2}, {2, 2}, {2, 2}, {1, 1}}));    // 5x5
    EXPECT_FALSE(s2_case({{1, 8, 32, 32}, {8, 1, 3, 3}, 8, {2, 2}, {2, 2}, {2, 2}, {2, 2}}));    // dilation
    EXPECT_FALSE(s2_case({{1, 8, 32, 32}, {8, 1, 3, 3}, 8, {1, 1}, {1, 1}, {2, 2}, {1, 1}, 2})); // strided view
}

// The implicit GEMM with its im2col matrix packed once into the arena scratch: more output
// channels than one block of rows holds (240 for float and half, 40 strips of 6), so that the
// blocks without it would each pack the matrix again. A partial last strip and group (two
// images, two groups), strides, 3-d (the packer's general path), double (strips of 8), and
// a matrix larger than the scratch's budget (2 MiB: chunks of 896 columns for K = 576).
TEST(cpu_conv_gemm, im2col_packed_once_in_the_scratch) {
    const conv_case plain{{1, 8, 20, 12}, {250, 8, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}}; // (narrow: not shifted)
    const auto im2col = scratch_form::im2col;
    check_conv<float>(plain, im2col);
    check_conv<double>(plain, im2col);
    check_conv<mxc_half>(plain, im2col);
    check_conv<float>({{2, 16, 13, 15}, {488, 8, 3, 3}, 2, {1, 0}, {0, 1}, {2, 1}, {1, 2}}, im2col);
    check_conv<float>({{1, 4, 5, 6, 7}, {246, 4, 2, 3, 2}, 1, {1, 0, 1}, {0, 1, 1}, {1, 2, 1}, {1, 1, 2}}, im2col);
    check_conv<float>({{1, 64, 96, 48}, {248, 64, 3, 3}, 1, {0, 0}, {0, 0}, {2, 1}, {1, 1}}, im2col); // 3 chunks
}

// The im2col packer (conv_pack_b) on every instruction set this CPU has: the same panels,
// byte for byte, as the baseline's (a copy: float rows of unit column stride and stride 1 or 2
// take the AVX-512 path). Every block of 64 columns and of fewer, depth slices that start
// inside a kernel, rows wider and narrower than a block, runs in the left and right padding,
// rows and columns of padding only, dilations, a view with longer rows, and shapes the
// AVX-512 path leaves to the scalar one (stride 3, a view with a gap between elements).
TEST(cpu_conv_gemm, im2col_pack_isas) {
    using mxc::cpu::gemm_isa;
    constexpr int nr = mxc::cpu::gemm_shape<float>::nr;
    auto check = [&](const conv_case& c) {
        const case_args a(c);
        const auto x = values<float>(extent(a.ds[0]), 5);
        const int64_t kn = c.w[2] * c.w[3], kdim = c.w[1] * kn, plane = a.od.lens[2] * a.od.lens[3];
        const int64_t* ip = a.ip.data();
        const mxc::cpu::conv_pack_b<float> pb{x.data(), a.ds[0], a.ds[1], a.od, ip + 1, ip + 3, ip + 5, kn};
        // (k0, kc): the whole depth, and slices that start and end inside a kernel
        const std::vector<std::pair<int64_t, int64_t>> slices = {{0, kdim}, {kn / 2, kdim - kn / 2 - 1}, {kdim - 1, 1}};
        auto pack = [&](gemm_isa isa) {
            const gemm_isa* saved = mxc::cpu::gemm_isa_pinned();
            mxc::cpu::gemm_isa_pinned() = &isa;
            std::vector<float> all;
            for (const auto& [k0, kc] : slices)
                for (int64_t j0 = 0; j0 < plane; j0 += 64) {
                    const int cols = int(plane - j0 < 64 ? plane - j0 : 64);
                    std::vector<float> dst(size_t((cols + nr - 1) / nr * nr * kc), NAN);
                    pb(k0, kc, j0, cols, dst.data(), mxc::cpu::gemm_nr<nr>{});
                    all.insert(all.end(), dst.begin(), dst.end());
                }
            mxc::cpu::gemm_isa_pinned() = saved;
            return all;
        };
        const std::vector<float> want = pack(gemm_isa::base);
        for (float v : want) ASSERT_FALSE(std::isnan(v)) << "the baseline left a hole";
        for (gemm_isa isa : {gemm_isa::avx2, gemm_isa::avx512}) {
            if (int(isa) > int(mxc::cpu::gemm_runtime_isa())) continue;
            const std::vector<float> got = pack(isa);
            ASSERT_EQ(got.size(), want.size());
            for (size_t i = 0; i < want.size(); ++i)
                ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(float)), 0)
                    << "element " << i << ": " << got[i] << " where the baseline packs " << want[i] << ", isa " << int(isa)
                    << ", x " << ::testing::PrintToString(c.x) << ", stride " << ::testing::PrintToString(c.stride);
        }
    };
    check({{1, 3, 20, 150}, {8, 3, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}});     // stride 1, rows of 150: 3 blocks a row
    check({{1, 4, 33, 161}, {8, 4, 3, 3}, 1, {1, 1}, {1, 1}, {2, 2}, {1, 1}});     // stride 2, rows of 81 (YOLO's)
    check({{1, 5, 15, 15}, {8, 5, 3, 3}, 1, {1, 1}, {1, 1}, {2, 2}, {1, 1}});      // stride 2, rows of 8: 8 a block
    check({{1, 3, 23, 23}, {8, 3, 7, 7}, 1, {3, 3}, {3, 3}, {2, 2}, {1, 1}});      // a 7x7 stem's, 3 columns of padding
    check({{1, 2, 9, 40}, {8, 2, 3, 3}, 1, {0, 2}, {2, 0}, {2, 2}, {1, 1}});       // uneven padding, no left padding
    check({{1, 3, 17, 34}, {8, 3, 3, 3}, 1, {1, 0}, {0, 1}, {2, 2}, {1, 1}});      // no left padding, rows of 17
    check({{1, 2, 11, 37}, {8, 2, 3, 2}, 1, {2, 3}, {1, 2}, {1, 2}, {2, 3}});      // dilation, stride 1 by 2
    check({{1, 2, 2, 5}, {8, 2, 2, 2}, 1, {3, 4}, {3, 4}, {1, 1}, {1, 1}});        // rows and columns of padding only
    check({{1, 3, 12, 70}, {8, 3, 3, 3}, 1, {1, 1}, {1, 1}, {2, 2}, {1, 1}, 1, 9}); // rows 9 elements longer than 70
    check({{1, 3, 9, 20}, {8, 3, 3, 3}, 1, {1, 1}, {1, 1}, {3, 3}, {1, 1}});       // stride 3: the scalar path
    check({{1, 3, 9, 20}, {8, 3, 3, 3}, 1, {1, 1}, {1, 1}, {2, 2}, {1, 1}, 2});    // a gap between elements: the same
}

// A 1x1's input (its matrix as it is: no im2col) packed once into the scratch as the GEMM's
// strips, where more than one block of rows would each pack it: a plane of a partial last
// strip (130 = 8 x 16 + 2 columns), two images and two groups, double and half, and a matrix
// larger than the scratch's budget (K = 600: chunks of 832 columns of 1230). (Not where
// conv_pointwise_in_place reads it in place: these planes end in a partial strip.)
TEST(cpu_conv_gemm, pointwise_packed_once_in_the_scratch) {
    const auto im2col = scratch_form::im2col;
    const std::vector<conv_case> cases = {
        {{1, 40, 10, 13}, {250, 40, 1, 1}, 1, {0, 0}, {0, 0}, {1, 1}, {1, 1}},
        {{2, 64, 12, 15}, {496, 32, 1, 1}, 2, {0, 0}, {0, 0}, {1, 1}, {1, 1}},
        {{1, 600, 30, 41}, {246, 600, 1, 1}, 1, {0, 0}, {0, 0}, {1, 1}, {1, 1}},
    };
    for (const conv_case& c : cases) { // (the 1x1 form: x read as the matrix, the scratch its strips)
        const mxc_desc xd = x_desc(c), wd = desc_of(c.w);
        mxc_desc od = desc_of({c.x[0], c.w[0], c.x[2], c.x[3]});
        const int64_t ip[] = {c.group, 0, 0, 1, 1, 1, 1}; // (group, pads, strides, dilations)
        ASSERT_EQ(mxc::cpu::conv_im2col_depth(xd, wd, od, ip), 0);
        ASSERT_EQ(mxc::cpu::conv_scratch_bytes<float>(xd, wd, od, ip),
                  c.w[1] * mxc::cpu::conv_im2col_cols<float>(c.w[1], c.x[2] * c.x[3]) * 4);
    }
    check_conv<float>(cases[0], im2col);
    check_conv<double>(cases[0], im2col);
    check_conv<mxc_half>(cases[0], im2col);
    check_conv<float>(cases[1], im2col);
    check_conv<float>(cases[2], im2col);
}

// A 1x1 over whole strips with at most as many output as input channels (a group) reads its
// input in place (conv_pointwise_in_place) and wants no scratch: planes of 14 and 64 strips,
// two images and two groups, more blocks of rows than one, depth slices (K = 600), float and
// double, 1 and 3 threads, right against mxc_conv_at. Not with more output channels, over a
// partial last strip, deeper than conv_in_place_max_depth, or in half (summed in float).
TEST(cpu_conv_gemm, pointwise_in_place) {
    const std::vector<conv_case> cases = {
        {{1, 32, 16, 14}, {16, 32, 1, 1}, 1, {0, 0}, {0, 0}, {1, 1}, {1, 1}},
        {{2, 64, 8, 16}, {40, 32, 1, 1}, 2, {0, 0}, {0, 0}, {1, 1}, {1, 1}},
        {{1, 600, 32, 32}, {250, 600, 1, 1}, 1, {0, 0}, {0, 0}, {1, 1}, {1, 1}},
    };
    for (const conv_case& c : cases) {
        const mxc_desc xd = x_desc(c), wd = desc_of(c.w), od = desc_of({c.x[0], c.w[0], c.x[2], c.x[3]});
        const int64_t ip[] = {c.group, 0, 0, 1, 1, 1, 1};
        ASSERT_TRUE(mxc::cpu::conv_pointwise_in_place<float>(xd, wd, od, ip));
        EXPECT_EQ(mxc::cpu::conv_scratch_bytes<float>(xd, wd, od, ip), 0);
        EXPECT_FALSE(mxc::cpu::conv_pointwise_in_place<mxc_half>(xd, wd, od, ip)); // (its compute type is float)
        check_conv<float>(c);
    }
    check_conv<double>(cases[0]);
    const int64_t ip[] = {1, 0, 0, 1, 1, 1, 1};
    auto in_place = [&](std::vector<int64_t> x, int64_t m) {
        return mxc::cpu::conv_pointwise_in_place<float>(desc_of(x), desc_of({m, x[1], 1, 1}), desc_of({x[0], m, x[2], x[3]}), ip);
    };
    EXPECT_FALSE(in_place({1, 32, 16, 14}, 48));   // more output channels
    EXPECT_FALSE(in_place({1, 32, 14, 14}, 16));   // 196 columns: a partial last strip
    EXPECT_FALSE(in_place({1, 1040, 16, 16}, 16)); // deeper than the offsets' array
}

// The stride-1 shifted form (conv_shift_form): the input copied with zeros around it, band by
// band, and read in place. Bands of whole and partial rows, padding on every side (and more
// than the kernel reads), dilation, groups and images, a strided view of x, double and half.
TEST(cpu_conv_gemm, shifted_form) {
    const auto shifted = scratch_form::shifted;
    const conv_case plain{{1, 8, 20, 23}, {250, 8, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}};
    check_conv<float>(plain, shifted);
    check_conv<double>(plain, shifted);
    check_conv<mxc_half>(plain, shifted);
    // 4 bands of 10 rows; 4 bands of 11, 11, 11 and 8 rows
    check_conv<float>({{1, 4, 40, 45}, {16, 4, 5, 5}, 1, {2, 2}, {2, 2}, {1, 1}, {1, 1}}, shifted);
    check_conv<float>({{1, 4, 41, 45}, {16, 4, 5, 5}, 1, {2, 2}, {2, 2}, {1, 1}, {1, 1}}, shifted);
    // 2 images, 2 groups, dilation 2 down the rows, uneven padding
    check_conv<float>({{2, 16, 21, 30}, {64, 8, 3, 3}, 2, {1, 0}, {0, 2}, {1, 1}, {2, 1}}, shifted);
    // padding wider than the kernel reads (the first and last rows and columns all zeros)
    check_conv<float>({{1, 8, 24, 40}, {32, 8, 3, 3}, 1, {3, 3}, {3, 3}, {1, 1}, {1, 1}}, shifted);
    // more bands (16) than band copies fit the scratch's budget (8 slots): two waves
    const conv_case waves{{1, 96, 64, 128}, {8, 96, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}};
    const mxc_desc wx = desc_of(waves.x), ww = desc_of(waves.w), wy = desc_of({1, 8, 64, 128});
    const int64_t wip[] = {1, 1, 1, 1, 1, 1, 1};
    mxc::cpu::conv_shift_geometry g;
    ASSERT_TRUE(mxc::cpu::conv_shift_form(wx, ww, wy, wip, g));
    EXPECT_EQ(g.bands, 16);
    EXPECT_EQ(g.slots, 8);
    check_conv<float>(waves, shifted);
    // x a view with a gap between elements, and one with longer rows
    check_conv<float>({{1, 8, 20, 23}, {64, 8, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 2}, shifted);
    check_conv<float>({{1, 8, 20, 23}, {64, 8, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 1, 5}, shifted);
}

// Ungrouped convolutions with fewer than 4 output channels (a segmentation head's 32 -> 3 1x1,
// a 3x3 to one channel) take the implicit GEMM too, their rows padded to the micro-kernel's
// 6 (UNet's last 1x1 over 128x128: 0.48 ms in the direct loop, 0.12 so); grouped ones with
// fewer than 4 a group keep the direct loop. 1x1, 3x3 (im2col), strided, two images, double
// and half, and the shifted form (3 x 40 x 45 x 288 multiply-adds).
TEST(cpu_conv_gemm, few_output_channels) {
    const std::vector<conv_case> cases = {
        {{1, 32, 12, 13}, {3, 32, 1, 1}, 1, {0, 0}, {0, 0}, {1, 1}, {1, 1}},
        {{1, 8, 20, 23}, {1, 8, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
        {{2, 16, 9, 10}, {2, 16, 3, 3}, 1, {1, 0}, {0, 1}, {2, 2}, {1, 1}},
    };
    for (const conv_case& c : cases) {
        const int64_t ip[] = {1, 0, 0, 1, 1, 1, 1};
        ASSERT_GT(mxc::cpu::conv_gemm_depth(desc_of(c.w), desc_of({c.x[0], c.w[0], 4, 4}), ip), 0);
        check_conv<float>(c);
        check_conv<double>(c);
        check_conv<mxc_half>(c);
    }
    check_conv<float>({{1, 32, 40, 45}, {3, 32, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}}, scratch_form::shifted);
    const int64_t grouped[] = {2, 0, 0, 1, 1, 1, 1};
    EXPECT_EQ(mxc::cpu::conv_gemm_depth(desc_of({6, 4, 3, 3}), desc_of({1, 6, 4, 4}), grouped), 0);
}

// Small planes, where the kernel's columns are more than a tenth of the copy's: the shifted
// form as one band (`whole`), the channels copied and the GEMM's blocks run by all the threads.
// 3x3 over 14x14 (222 extended columns, 14 strips of 16, for 13) and over 7x7 (61: 4 for 4);
// two images and two groups, uneven padding, a strided view, double and half. Not where the
// extended columns make too many more strips (5x5 over 14x14: 16 for 13) or the copy outgrows
// the budget.
TEST(cpu_conv_gemm, shifted_form_whole_plane) {
    const auto shifted = scratch_form::shifted;
    auto whole = [](const conv_case& c) {
        const mxc_desc xd = desc_of(c.x), wd = desc_of(c.w);
        const int64_t ho = c.x[2] + c.pb[0] + c.pe[0] - c.w[2] + 1, wo = c.x[3] + c.pb[1] + c.pe[1] - c.w[3] + 1;
        const mxc_desc od = desc_of({c.x[0], c.w[0], ho, wo});
        const int64_t ip[] = {c.group, c.pb[0], c.pb[1], 1, 1, 1, 1};
        mxc::cpu::conv_shift_geometry g;
        return mxc::cpu::conv_shift_form(xd, wd, od, ip, g) && g.whole && g.bands == 1;
    };
    const conv_case p14{{1, 32, 14, 14}, {64, 32, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}};
    const conv_case p7{{1, 64, 7, 7}, {96, 64, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}};
    const conv_case groups{{2, 48, 14, 14}, {64, 24, 3, 3}, 2, {1, 0}, {0, 2}, {1, 1}, {1, 1}};
    for (const conv_case* c : {&p14, &p7, &groups}) ASSERT_TRUE(whole(*c));
    check_conv<float>(p14, shifted);
    check_conv<double>(p14, shifted);
    check_conv<mxc_half>(p14, shifted);
    check_conv<float>(p7, shifted);
    check_conv<float>(groups, shifted);
    check_conv<float>({{1, 32, 14, 14}, {64, 32, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 2}, shifted);
    EXPECT_FALSE(whole({{1, 32, 14, 14}, {40, 32, 5, 5}, 1, {2, 2}, {2, 2}, {1, 1}, {1, 1}})); // (64 channels: conv_rows_form)
    EXPECT_FALSE(whole({{1, 2048, 14, 14}, {64, 2048, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}})); // a copy of 2 MiB and more
}

// The pixel-rows form (conv_rows_form, conv_rows_pointwise): float weights stored as strips of
// nr output channels (what codegen/conv_weights_panels.cpp writes), run with Panels on every
// instruction set this CPU has, 1 and 3 threads, a NaN-filled scratch: right against
// mxc_conv_at, the same bits on 1 and 3 threads and on avx2 and avx512, and (3x3) the same bits
// as the shifted form over the weights as they are (the same products in the same order; a
// 1x1's other path may sum a last few columns as dot products, gemm_tail).
void check_conv_rows(const conv_case& c) {
    using mxc::cpu::gemm_isa;
    std::vector<int64_t> out{c.x[0], c.w[0]}, ip{c.group};
    for (size_t d = 0; d < 2; ++d) out.push_back((c.x[2 + d] + c.pb[d] + c.pe[d] - (c.w[2 + d] - 1) * c.dil[d] - 1) / c.stride[d] + 1);
    for (auto* v : {&c.pb, &c.stride, &c.dil}) ip.insert(ip.end(), v->begin(), v->end());
    const mxc_desc ds[2] = {x_desc(c), desc_of(c.w)}, od = desc_of(out);
    // (a 1x1's or a strided convolution's other path may sum a last few columns as dot products)
    mxc::cpu::conv_rows_copy_geometry rg;
    const bool pointwise = mxc::cpu::conv_rows_pointwise(ds[0], ds[1], od, ip.data()),
               strided = mxc::cpu::conv_rows_strided(ds[0], ds[1], od, ip.data(), rg);
    ASSERT_TRUE(pointwise || strided || mxc::cpu::conv_rows_form(ds[0], ds[1], od, ip.data()))
        << "the case x " << ::testing::PrintToString(c.x) << ", w " << ::testing::PrintToString(c.w)
        << " does not take the pixel-rows form";
    const bool other_order = pointwise || strided;
    const auto x = values<float>(extent(ds[0]), 3), w = values<float>(extent(ds[1]), 4);
    const int64_t m = c.w[0], kdim = extent(ds[1]) / m, n = mxc_elements(od);
    std::vector<float> strips(w.size(), NAN);
    for (int64_t i = 0; i < m; ++i)
        for (int64_t kk = 0; kk < kdim; ++kk)
            strips[size_t(mxc::cpu::gemm_strip_index(kk, i, kdim, mxc::cpu::gemm_shape<float>::nr))] = w[size_t(i * kdim + kk)];
    for (float v : strips) ASSERT_FALSE(std::isnan(v)) << "gemm_strip_index left a hole";
    auto epi = [](float v, int64_t e) { return v * 2.0f + float(e % 11); };
    const int64_t bytes = mxc::cpu::conv_scratch_bytes<float>(ds[0], ds[1], od, ip.data());
    double depth = double(kdim);
    const double tol = tolerance<float>() * (depth > 32 ? depth / 32 : 1);
    const gemm_isa best = mxc::cpu::gemm_runtime_isa();
    std::vector<float> fma_bits; // avx2's, then avx512 must give the same
    for (gemm_isa isa : {gemm_isa::base, gemm_isa::avx2, gemm_isa::avx512}) {
        if (int(isa) > int(best)) continue;
        const gemm_isa* saved = mxc::cpu::gemm_isa_pinned();
        mxc::cpu::gemm_isa_pinned() = &isa;
        for (int threads : {1, 3}) {
            std::vector<float> sc(size_t(bytes) / sizeof(float), NAN), ya(size_t(n), 0.f), yb(size_t(n), 0.f);
            const void* in_a[2] = {x.data(), w.data()};
            const void* in_b[2] = {x.data(), strips.data()};
            float* scratch = bytes > 0 ? sc.data() : nullptr;
            const mxc_kargs ka = {2, in_a, ds, ya.data(), &od, ip.data(), int32_t(ip.size()), nullptr, 0, scratch};
            const mxc_kargs kb = {2, in_b, ds, yb.data(), &od, ip.data(), int32_t(ip.size()), nullptr, 0, scratch};
            with_threads(threads, [&] { mxc::cpu::convolution_epilogue<float>(ka, epi); });
            std::fill(sc.begin(), sc.end(), NAN);
            with_threads(threads, [&] { mxc::cpu::convolution_epilogue<float, decltype(epi), true>(kb, epi); });
            for (int64_t e = 0; e < n; ++e) {
                const double want = double(epi(mxc_conv_at(x.data(), ds[0], w.data(), ds[1], od, ip.data(), e), e));
                ASSERT_NEAR(double(yb[size_t(e)]), want, tol * (1 + std::fabs(want)))
                    << "element " << e << ", isa " << int(isa) << ", " << threads << " threads";
                if (!other_order)
                    ASSERT_EQ(std::memcmp(&ya[size_t(e)], &yb[size_t(e)], sizeof(float)), 0)
                        << "element " << e << ": " << yb[size_t(e)] << " where the shifted form gives " << ya[size_t(e)]
                        << ", isa " << int(isa) << ", " << threads << " threads";
            }
            if (isa == gemm_isa::base) continue;
            if (fma_bits.empty()) fma_bits = yb;
            ASSERT_EQ(std::memcmp(fma_bits.data(), yb.data(), sizeof(float) * size_t(n)), 0)
                << "isa " << int(isa) << ", " << threads << " threads: not the bits of avx2 on 1 thread";
        }
        mxc::cpu::gemm_isa_pinned() = saved;
    }
}

// The stem kernel (conv_stem_s2: 3x3, stride 2, at most 3 input channels, rows of at least 16
// outputs, AVX-512): taken where it should be, right against mxc_conv_at, and the same bits as
// the implicit GEMM on avx2 (its one depth slice of fused multiply-adds in the same order), with
// the weights as they are and as the micro-kernel's row panels (what the compiler stores), on 1
// and 3 threads; and not taken for the shapes it leaves to the GEMM.
void check_stem(const conv_case& c) {
    using mxc::cpu::gemm_isa;
    const case_args a(c);
    const mxc_desc *ds = a.ds, &od = a.od;
    const std::vector<int64_t>& ip = a.ip;
    const auto x = values<float>(extent(ds[0]), 7), w = values<float>(extent(ds[1]), 8);
    const int64_t m = c.w[0], kdim = extent(ds[1]) / m, n = mxc_elements(od);
    std::vector<float> panels(w.size());
    for (int64_t i = 0; i < m; ++i)
        for (int64_t kk = 0; kk < kdim; ++kk) panels[size_t(mxc::cpu::gemm_panel_index(i, kk, kdim, m))] = w[size_t(i * kdim + kk)];
    const int64_t bytes = mxc::cpu::conv_scratch_bytes<float>(ds[0], ds[1], od, ip.data());
    auto epi = [](float v, int64_t e) { return v * 2.0f + float(e % 13); };
    // y on `isa` with `threads` threads, the weights as panels or not
    auto run = [&](gemm_isa isa, int threads, bool as_panels) {
        const gemm_isa* saved = mxc::cpu::gemm_isa_pinned();
        mxc::cpu::gemm_isa_pinned() = &isa;
        std::vector<float> sc(size_t(bytes) / sizeof(float) + 1, NAN), y(size_t(n), NAN);
        const void* in[2] = {x.data(), as_panels ? panels.data() : w.data()};
        const mxc_kargs k = {2, in, ds, y.data(), &od, ip.data(), int32_t(ip.size()), nullptr, 0, bytes > 0 ? sc.data() : nullptr};
        if (as_panels)
            with_threads(threads, [&] { mxc::cpu::convolution_epilogue<float, decltype(epi), true>(k, epi); });
        else
            with_threads(threads, [&] { mxc::cpu::convolution_epilogue<float>(k, epi); });
        mxc::cpu::gemm_isa_pinned() = saved;
        return y;
    };
    const int64_t plane = od.lens[2] * od.lens[3], nr = mxc::cpu::gemm_shape<float>::nr;
    for (bool as_panels : {false, true}) {
        // (with the weights as they are, the GEMM sums a last strip of a few columns as dot
        // products, gemm_tail, in another order: those only against mxc_conv_at)
        const int64_t tail = !as_panels && plane % nr <= mxc::cpu::gemm_tail_max ? plane % nr : 0;
        const std::vector<float> want = run(gemm_isa::avx2, 1, as_panels);
        for (int threads : {1, 3}) {
            const std::vector<float> got = run(gemm_isa::avx512, threads, as_panels);
            for (int64_t e = 0; e < n; ++e) {
                const double ref = double(epi(mxc_conv_at(x.data(), ds[0], w.data(), ds[1], od, ip.data(), e), e));
                ASSERT_NEAR(double(got[size_t(e)]), ref, tolerance<float>() * (1 + std::fabs(ref))) << "element " << e;
                if (e % plane < plane - tail)
                    ASSERT_EQ(std::memcmp(&got[size_t(e)], &want[size_t(e)], sizeof(float)), 0)
                    << "element " << e << ": " << got[size_t(e)] << " where the GEMM on avx2 gives " << want[size_t(e)]
                    << ", " << threads << " threads, panels " << as_panels << ", x " << ::testing::PrintToString(c.x);
            }
        }
    }
}
// whether the stem kernel takes the case (on AVX-512)
bool stem_takes(const conv_case& c) {
    const case_args a(c);
    std::vector<float> w(size_t(extent(a.ds[1]))); // (the kernel copies the weights)
    const void* in[2] = {nullptr, w.data()};
    return mxc::cpu::conv_stem_s2<float>(a.kargs(in, nullptr), false).band > 0;
}

TEST(cpu_conv_gemm, stem_kernel) {
    if (mxc::cpu::gemm_runtime_isa() != mxc::cpu::gemm_isa::avx512) GTEST_SKIP() << "no AVX-512 on this CPU: the stem kernel does not run";
    const std::vector<conv_case> taken = {
        {{1, 3, 64, 64}, {32, 3, 3, 3}, 1, {1, 1}, {1, 1}, {2, 2}, {1, 1}},       // MobileNetV2's, smaller: 2 x 16 channels
        {{2, 3, 40, 71}, {24, 3, 3, 3}, 1, {0, 1}, {1, 0}, {2, 2}, {1, 1}},       // two images, uneven padding, 16 + 4 + 4
        {{1, 1, 37, 50}, {7, 1, 3, 3}, 1, {1, 1}, {1, 1}, {2, 2}, {1, 1}},        // one channel: 4 + 1 + 1 + 1 outputs
        {{1, 2, 33, 40}, {16, 2, 3, 3}, 1, {0, 0}, {0, 0}, {2, 2}, {1, 1}},       // no padding: rows of 19, a partial vector
        {{1, 3, 36, 34}, {48, 3, 3, 3}, 1, {1, 1}, {1, 1}, {2, 2}, {1, 1}, 1, 5}, // rows 5 longer than 34: a view
    };
    for (const conv_case& c : taken) {
        ASSERT_TRUE(stem_takes(c)) << "x " << ::testing::PrintToString(c.x) << ", w " << ::testing::PrintToString(c.w);
        check_stem(c);
    }
    const std::vector<conv_case> left = {
        {{1, 4, 64, 64}, {32, 4, 3, 3}, 1, {1, 1}, {1, 1}, {2, 2}, {1, 1}}, // 4 input channels
        {{1, 3, 64, 64}, {32, 3, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}}, // stride 1
        {{1, 3, 28, 28}, {32, 3, 3, 3}, 1, {1, 1}, {1, 1}, {2, 2}, {1, 1}}, // rows of 14 outputs
        {{1, 3, 64, 64}, {80, 3, 3, 3}, 1, {1, 1}, {1, 1}, {2, 2}, {1, 1}}, // 80 output channels
        {{1, 3, 64, 64}, {32, 3, 3, 3}, 1, {2, 2}, {2, 2}, {2, 2}, {2, 2}}, // dilation 2
        {{1, 3, 64, 64}, {32, 3, 5, 5}, 1, {2, 2}, {2, 2}, {2, 2}, {1, 1}}, // 5x5
    };
    for (const conv_case& c : left)
        EXPECT_FALSE(stem_takes(c)) << "x " << ::testing::PrintToString(c.x) << ", w " << ::testing::PrintToString(c.w);
}

TEST(cpu_conv_gemm, pixel_rows_form) {
    check_conv_rows({{1, 64, 7, 7}, {96, 64, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}});     // 6 strips: blocks of 3 and 3
    check_conv_rows({{1, 32, 14, 14}, {64, 32, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}});   // 196 pixels, 33 groups of 6
    check_conv_rows({{2, 160, 7, 7}, {16, 160, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}});   // two images, one strip, 2 slices
    check_conv_rows({{1, 48, 7, 12}, {48, 48, 3, 3}, 1, {0, 2}, {2, 0}, {1, 1}, {1, 1}});    // uneven padding, 7 x 12
    check_conv_rows({{1, 128, 9, 9}, {32, 128, 3, 3}, 1, {0, 0}, {0, 0}, {1, 1}, {2, 1}});   // dilation, no padding
    check_conv_rows({{1, 96, 7, 7}, {32, 96, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 2});  // x a strided view
    check_conv_rows({{1, 32, 16, 16}, {272, 32, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}});  // 16x16: more strips than im2col
    check_conv_rows({{1, 32, 14, 14}, {208, 32, 5, 5}, 1, {2, 2}, {2, 2}, {1, 1}, {1, 1}});  // 5x5: the same
    check_conv_rows({{1, 200, 7, 7}, {80, 200, 1, 1}, 1, {0, 0}, {0, 0}, {1, 1}, {1, 1}});   // 1x1: two slices, 5 strips
    // 1x1 over 14x14, three slices: on 3 threads 2 channel blocks of 3 strips x 3 pixel ranges,
    // each fetching its next slice
    check_conv_rows({{1, 384, 14, 14}, {96, 384, 1, 1}, 1, {0, 0}, {0, 0}, {1, 1}, {1, 1}});
    check_conv_rows({{2, 64, 14, 14}, {32, 64, 1, 1}, 1, {0, 0}, {0, 0}, {1, 1}, {1, 1}, 2}); // two images, a strided view
    check_conv_rows({{1, 48, 14, 13}, {16, 48, 1, 1}, 1, {0, 0}, {0, 0}, {2, 2}, {1, 1}});   // stride 2: 7 x 7 outputs
    check_conv_rows({{1, 64, 14, 14}, {64, 64, 3, 3}, 1, {1, 1}, {1, 1}, {2, 2}, {1, 1}});   // 3x3 stride 2: a padded copy
    check_conv_rows({{2, 128, 15, 13}, {48, 128, 3, 3}, 1, {0, 1}, {1, 0}, {2, 2}, {1, 2}, 2}); // uneven padding, dilation, a view
    // 3x3s over planes of more than conv_rows_max_plane outputs (the whole copy within the
    // budget): items of at most conv_rows_tile pixels, 960 and 1290 outputs a channel
    check_conv_rows({{1, 16, 30, 32}, {32, 16, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}});
    check_conv_rows({{2, 24, 30, 43}, {80, 24, 3, 3}, 1, {0, 1}, {2, 1}, {1, 1}, {1, 1}}); // two images, 5 strips
    // and band by band where the whole copy outgrows the budget (320 channels of 42 x 43: 4
    // bands of 10 rows, each on one thread)
    check_conv_rows({{1, 320, 40, 41}, {16, 320, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}});
    // strided over more than 64 outputs with a depth of 512 or more (576: 10 x 10 outputs)
    check_conv_rows({{1, 64, 20, 20}, {128, 64, 3, 3}, 1, {1, 1}, {1, 1}, {2, 2}, {1, 1}});
    // stems (at most 4 input channels, a depth of 64 or more) over any plane: items of at most
    // conv_rows_tile pixels (870 and 400 outputs a channel), two images, a view
    check_conv_rows({{1, 3, 60, 61}, {32, 3, 7, 7}, 1, {3, 3}, {3, 2}, {2, 2}, {1, 1}});
    check_conv_rows({{2, 3, 40, 40}, {64, 3, 5, 5}, 1, {2, 2}, {2, 2}, {2, 2}, {1, 1}, 2});
    // (the strided form, and the whole plane where the old rule would not take it, only where the
    // im2col matrix's scratch holds the copy: more output channels than outputs a channel)
    // not the form: groups, channels not a multiple of 16, a large plane
    const auto rows = [](const conv_case& c) {
        const int64_t ho = c.x[2] + c.pb[0] + c.pe[0] - c.w[2] + 1, wo = c.x[3] + c.pb[1] + c.pe[1] - c.w[3] + 1;
        const int64_t ip[] = {c.group, c.pb[0], c.pb[1], 1, 1, 1, 1};
        return mxc::cpu::conv_rows_form(desc_of(c.x), desc_of(c.w), desc_of({c.x[0], c.w[0], ho, wo}), ip);
    };
    EXPECT_FALSE(rows({{1, 64, 14, 14}, {64, 32, 3, 3}, 2, {1, 1}, {1, 1}, {1, 1}, {1, 1}}));
    EXPECT_FALSE(rows({{1, 64, 7, 7}, {40, 64, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}}));
    EXPECT_TRUE(rows({{1, 16, 28, 28}, {32, 16, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}})); // a larger plane: its copy fits
    // over a plane whose whole copy outgrows conv_im2col_budget (64 channels of 122 x 122):
    // the same form band by band
    mxc::cpu::conv_shift_geometry sg;
    const int64_t ip_big[] = {1, 1, 1, 1, 1, 1, 1};
    ASSERT_TRUE(mxc::cpu::conv_shift_form(desc_of({1, 64, 120, 120}), desc_of({64, 64, 3, 3}), desc_of({1, 64, 120, 120}), ip_big, sg));
    EXPECT_FALSE(sg.whole);
    EXPECT_GT(sg.bands, 1);
    EXPECT_TRUE(rows({{1, 64, 120, 120}, {64, 64, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}}));
    // a padded 1x1 with stride 2: its copy (256 channels of 15 x 15) more than im2col's scratch
    const int64_t ip1[] = {1, 1, 1, 2, 2, 1, 1};
    mxc::cpu::conv_rows_copy_geometry rg;
    EXPECT_FALSE(mxc::cpu::conv_rows_strided(desc_of({1, 256, 13, 13}), desc_of({80, 256, 1, 1}), desc_of({1, 80, 8, 8}), ip1, rg));
    EXPECT_FALSE(mxc::cpu::conv_rows_pointwise(desc_of({1, 256, 13, 13}), desc_of({80, 256, 1, 1}), desc_of({1, 80, 8, 8}), ip1));
    // strided over more than conv_rows_small_plane outputs: not a 3x3 stem (a depth of 27), not
    // 16 input channels (a depth of 144), but a 7x7 stem
    const int64_t ip2[] = {1, 1, 1, 2, 2, 1, 1}, ip3[] = {1, 3, 3, 2, 2, 1, 1};
    EXPECT_FALSE(mxc::cpu::conv_rows_strided(desc_of({1, 3, 64, 64}), desc_of({64, 3, 3, 3}), desc_of({1, 64, 32, 32}), ip2, rg));
    EXPECT_FALSE(mxc::cpu::conv_rows_strided(desc_of({1, 16, 64, 64}), desc_of({64, 16, 3, 3}), desc_of({1, 64, 32, 32}), ip2, rg));
    EXPECT_TRUE(mxc::cpu::conv_rows_strided(desc_of({1, 3, 64, 64}), desc_of({64, 3, 7, 7}), desc_of({1, 64, 32, 32}), ip3, rg));
    // a depth of 576 whose im2col path wants no scratch (32 output channels for 100 outputs)
    EXPECT_FALSE(mxc::cpu::conv_rows_strided(desc_of({1, 64, 20, 20}), desc_of({32, 64, 3, 3}), desc_of({1, 32, 10, 10}), ip2, rg));
}

TEST(cpu_pool, max_3x3_stride2_pad1) { check_pool_all({{1, 3, 12, 13}, 0, 0, 0, {1, 1}, {1, 1}, {2, 2}, {3, 3}, {1, 1}}); }
TEST(cpu_pool, ceil_mode) {
    check_pool_all({{1, 2, 7, 8}, 0, 0, 1, {0, 0}, {0, 0}, {2, 2}, {3, 3}, {1, 1}});
    check_pool_all({{1, 2, 7, 8}, 1, 0, 1, {1, 0}, {0, 1}, {2, 3}, {3, 2}, {1, 1}});
    check_pool_all({{1, 2, 7, 8}, 1, 1, 1, {1, 0}, {0, 1}, {2, 3}, {3, 2}, {1, 1}});
}
TEST(cpu_pool, average_count_include_pad) {
    check_pool_all({{2, 3, 6, 7}, 1, 1, 0, {1, 2}, {2, 1}, {1, 1}, {3, 3}, {1, 1}});
    check_pool_all({{2, 3, 6, 7}, 1, 0, 0, {1, 2}, {2, 1}, {1, 1}, {3, 3}, {1, 1}});
}
TEST(cpu_pool, dilation_and_stride3) {
    for (int64_t mode : {0, 1})
        check_pool_all({{1, 2, 13, 14}, mode, 0, 0, {1, 2}, {0, 2}, {3, 3}, {2, 3}, {2, 2}});
}
TEST(cpu_pool, windows_in_the_padding_and_tiny_planes) {
    for (int64_t mode : {0, 1})
        for (int64_t cip : {0, 1}) {
            check_pool_all({{1, 2, 5, 6}, mode, cip, 0, {2, 2}, {2, 2}, {1, 1}, {2, 2}, {1, 1}}); // all-padding windows
            check_pool_all({{1, 2, 1, 1}, mode, cip, 0, {1, 1}, {1, 1}, {1, 1}, {3, 3}, {1, 1}});
            check_pool_all({{1, 2, 5, 2}, mode, cip, 1, {1, 1}, {1, 1}, {2, 2}, {3, 3}, {1, 1}}); // width < kernel
        }
}
TEST(cpu_pool, other_ranks_long_rows_strided_views) {
    for (int64_t mode : {0, 1}) {
        check_pool_all({{2, 3, 17}, mode, 1, 1, {1}, {2}, {2}, {4}, {1}});
        check_pool_all({{1, 2, 4, 5, 6}, mode, 0, 0, {1, 0, 1}, {0, 1, 1}, {1, 2, 2}, {2, 3, 3}, {1, 1, 1}});
        check_pool_all({{1, 2, 2, 700}, mode, 0, 0, {1, 1}, {1, 1}, {1, 1}, {3, 3}, {1, 1}});
        check_pool_all({{1, 2, 5, 9}, mode, 0, 0, {1, 1}, {1, 1}, {2, 2}, {3, 3}, {1, 1}, 2});
    }
}
