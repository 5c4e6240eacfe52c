// The attention kernels (templates/hip/attention.hpp: SIMT, and on the matrix units through
// mma.hpp's generic path; its vendor paths: test/lit/hip/attention-emu.test) on the host SIMT emulator, against
// softmax(scale * q kt + mask) v written out in double: each head-size bound (64, 128, 256:
// key tiles of 32 and 8), query rows and keys that do not fill the last block or tile, kt read
// as the transpose of k, a fully masked row and a key masked from every row, the heads' merge
// as the output permutation, float and half, the body as a functor (generated code) and as
// the program in ip (no functor).
#include <gtest/gtest.h>

#include "hip_emu_util.hpp"
#include "ir/pointwise_body.hpp"
#include "templates/hip/attention.hpp"

#include <cmath>
#include <limits>
#include <vector>

namespace {

using mxc::test::desc;
using mxc::test::to_device;

std::vector<float> values(size_t n, uint32_t seed) {
    std::vector<float> v(n);
    for (auto& x : v) {
        seed = seed * 1664525u + 1013904223u;
        x = float((seed >> 8) % 2000) / 1000.0f - 1.0f;
    }
    return v;
}

// The generated code's functor for "add(mul(x0,x1),x2)" (codegen/emit_fused.cpp).
struct scale_mask_body {
    static constexpr int inputs = 3;
    template <class C> MXC_HD C operator()(const C* x) const { return x[0] * x[1] + x[2]; }
};

// h heads of batch b: q [b, h, lq, d], k [b, h, lk, d], v [b, h, lk, dv], mask [b, 1, lq, lk]
// broadcast over the heads, the scale one value broadcast everywhere; the output [b, h, lq, dv],
// or with merge [b, lq, h, dv].
template <class T, int HD, bool Program, bool MMA = false>
void expect_attention(int64_t b, int64_t h, int64_t lq, int64_t lk, int64_t d, int64_t dv, bool merge) {
    SCOPED_TRACE("b " + std::to_string(b) + " h " + std::to_string(h) + " lq " + std::to_string(lq) + " lk " +
                 std::to_string(lk) + " d " + std::to_string(d) + " dv " + std::to_string(dv) + (merge ? " merged" : "") +
                 (Program ? " program" : " functor") + (MMA ? " matrix units" : "") + " HD " + std::to_string(HD) + (sizeof(T) == 2 ? " half" : " float"));
    const float scale = 1.0f / std::sqrt(float(d)), inf = std::numeric_limits<float>::infinity();
    auto qf = values(size_t(b * h * lq * d), 11), kf = values(size_t(b * h * lk * d), 12), vf = values(size_t(b * h * lk * dv), 13);
    auto mf = values(size_t(b * lq * lk), 14);
    for (auto& x : qf) x *= 2.0f;
    for (int64_t j = 0; j < lk; ++j) mf[size_t(std::min<int64_t>(lq - 1, 3) * lk + j)] = -inf; // batch 0, row 3: all masked
    for (int64_t i = 0; i < lq; ++i) mf[size_t(i * lk + lk / 2)] = -inf;                      // batch 0: key lk/2 hidden
    std::vector<T> q(qf.begin(), qf.end()), k(kf.begin(), kf.end()), v(vf.begin(), vf.end()), mask(mf.begin(), mf.end());
    std::vector<T> sc{T(scale)};

    // the reference, from the values the kernel reads (T)
    std::vector<double> want(size_t(b * h * lq * dv), 0.0); // [b, h, lq, dv]
    for (int64_t n = 0; n < b; ++n)
        for (int64_t hh = 0; hh < h; ++hh)
            for (int64_t i = 0; i < lq; ++i) {
                const int64_t bh = n * h + hh;
                std::vector<double> s(static_cast<size_t>(lk));
                double m = -std::numeric_limits<double>::infinity();
                for (int64_t j = 0; j < lk; ++j) {
                    double dot = 0;
                    for (int64_t c = 0; c < d; ++c) dot += double(float(q[size_t((bh * lq + i) * d + c)])) * double(float(k[size_t((bh * lk + j) * d + c)]));
                    s[size_t(j)] = dot * double(float(sc[0])) + double(float(mask[size_t((n * lq + i) * lk + j)]));
                    m = std::max(m, s[size_t(j)]);
                }
                if (std::isinf(m) && m < 0) continue;
                double sum = 0;
                for (auto& x : s) sum += (x = std::exp(x - m));
                for (int64_t j = 0; j < lk; ++j)
                    for (int64_t c = 0; c < dv; ++c)
                        want[size_t((bh * lq + i) * dv + c)] += s[size_t(j)] / sum * double(float(v[size_t((bh * lk + j) * dv + c)]));
            }

    T *dq = to_device(q), *dk = to_device(k), *dvv = to_device(v), *dm = to_device(mask), *ds = to_device(sc), *dy = nullptr;
    ASSERT_EQ(hipMalloc(&dy, want.size() * sizeof(T)), hipSuccess);
    const mxc_desc ins[5] = {desc({b, h, lq, d}, {h * lq * d, lq * d, d, 1}),
                             desc({b, h, d, lk}, {h * lk * d, lk * d, 1, d}), // kt: k transposed
                             desc({b, h, lk, dv}, {h * lk * dv, lk * dv, dv, 1}),
                             desc({b, h, lq, lk}, {0, 0, 0, 0}),               // the scale
                             desc({b, h, lq, lk}, {lq * lk, 0, lk, 1})};       // the mask, shared by the heads
    const mxc_desc od = merge ? desc({b, lq, h, dv}, {lq * h * dv, h * dv, dv, 1}) : desc({b, h, lq, dv}, {h * lq * dv, lq * dv, dv, 1});
    std::vector<int64_t> ip{4, 0, merge ? 2 : 1, merge ? 1 : 2, 3};
    for (int64_t c : mxc::body_program(mxc::parse_body("add(mul(x0,x1),x2)"))) ip.push_back(c);
    const void* p[5] = {dq, dk, dvv, ds, dm};
    const mxc_kargs ka = {5, p, ins, dy, &od, ip.data(), int32_t(ip.size()), nullptr, 0, nullptr};
    if (Program) mxc::hip::attention<T, HD, MMA>(ka, hipStream_t{});
    else mxc::hip::attention_expr<T, HD, MMA>(ka, hipStream_t{}, scale_mask_body{});
    ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
    std::vector<T> got(want.size());
    ASSERT_EQ(hipMemcpy(got.data(), dy, got.size() * sizeof(T), hipMemcpyDeviceToHost), hipSuccess);
    for (void* x : {(void*)dq, (void*)dk, (void*)dvv, (void*)dm, (void*)ds, (void*)dy}) (void)hipFree(x);
    const double tol = sizeof(T) == 2 ? 1e-2 : 1e-5;
    for (int64_t n = 0; n < b; ++n)
        for (int64_t hh = 0; hh < h; ++hh)
            for (int64_t i = 0; i < lq; ++i)
                for (int64_t c = 0; c < dv; ++c) {
                    const double w = want[size_t(((n * h + hh) * lq + i) * dv + c)];
                    const size_t at = merge ? size_t(((n * lq + i) * h + hh) * dv + c) : size_t(((n * h + hh) * lq + i) * dv + c);
                    ASSERT_NEAR(double(float(got[at])), w, tol * (1.0 + std::fabs(w)))
                        << "batch " << n << " head " << hh << " row " << i << " column " << c;
                }
}

} // namespace

TEST(HipAttention, MatchesSoftmaxOfScoresTimesValues) {
    ASSERT_EQ(hipDeviceReset(), hipSuccess);
    expect_attention<float, 64, false>(2, 3, 37, 45, 64, 64, true);  // rows and keys past the last block and tile
    expect_attention<float, 64, true>(1, 2, 16, 32, 40, 24, false);  // whole blocks and tiles; heads below the bound
    expect_attention<float, 0, false>(1, 2, 21, 70, 100, 72, true);  // HD 128 picked at run time
    expect_attention<float, 256, true>(1, 1, 20, 17, 256, 200, false); // key tiles of 8
    expect_attention<mxc_half, 64, false>(2, 2, 33, 50, 64, 64, true);
    expect_attention<mxc_half, 128, true>(1, 1, 5, 3, 80, 128, false);  // fewer keys than a tile's lanes
}

// attention_mma_kernel (the generic path of mma.hpp here): key tiles of 32 (half, heads of 64)
// and 16 (half 128, float 64), rounds of four warps' tiles (several, the last one not filled
// by the keys: 200 half keys are two rounds of 128, 150 float keys three of 64), a warp
// whose keys are all masked or past the end, heads staged by 16-byte vectors and (heads not a
// whole number of them: half 100, float 30) element by element, float heads of 128 and 256
// (the SIMT kernel).
TEST(HipAttention, MatrixUnitKernelMatchesToo) {
    ASSERT_EQ(hipDeviceReset(), hipSuccess);
    expect_attention<mxc_half, 64, false, true>(2, 3, 37, 45, 64, 64, true);
    expect_attention<mxc_half, 64, true, true>(1, 2, 16, 200, 40, 24, false);
    expect_attention<mxc_half, 128, true, true>(1, 1, 5, 3, 80, 128, false);
    expect_attention<mxc_half, 0, false, true>(1, 2, 21, 70, 100, 72, true);
    expect_attention<float, 64, false, true>(2, 3, 37, 45, 64, 64, true);
    expect_attention<float, 64, true, true>(1, 2, 16, 32, 40, 24, false);
    expect_attention<float, 64, true, true>(1, 2, 9, 40, 30, 18, false);
    expect_attention<float, 64, false, true>(1, 3, 20, 150, 64, 64, true);
    expect_attention<float, 0, false, true>(1, 2, 21, 70, 100, 72, true);
    expect_attention<float, 256, true, true>(1, 1, 20, 17, 256, 200, false);
}

// A hand-written call naming a head-size bound below the heads launches nothing and leaves an
// invalid-configuration error for the run to report.
TEST(HipAttention, HeadsPastTheNamedBoundAreALaunchError) {
    ASSERT_EQ(hipDeviceReset(), hipSuccess);
    std::vector<float> q(100, 0.5f), kv(100, 0.25f), y(100, 7.0f);
    float *dq = to_device(q), *dk = to_device(kv), *dv = to_device(kv), *dy = to_device(y);
    const mxc_desc ins[3] = {desc({1, 100}, {100, 1}), desc({100, 1}, {1, 100}), desc({1, 100}, {100, 1})};
    const mxc_desc od = desc({1, 100}, {100, 1});
    const int64_t ip[4] = {2, 0, 1, 0}; // rank 2, identity, the program "x0"
    const void* p[3] = {dq, dk, dv};
    const mxc_kargs ka = {3, p, ins, dy, &od, ip, 4, nullptr, 0, nullptr};
    (void)hipGetLastError();
    mxc::hip::attention<float, 64>(ka, hipStream_t{}); // heads of 100 past the bound 64
    EXPECT_EQ(hipGetLastError(), hipErrorInvalidConfiguration);
    ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
    std::vector<float> got(100);
    ASSERT_EQ(hipMemcpy(got.data(), dy, got.size() * sizeof(float), hipMemcpyDeviceToHost), hipSuccess);
    EXPECT_EQ(got[0], 7.0f); // nothing written
    mxc::hip::attention<float, 128>(ka, hipStream_t{});
    EXPECT_EQ(hipGetLastError(), hipSuccess);
    ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
    ASSERT_EQ(hipMemcpy(got.data(), dy, got.size() * sizeof(float), hipMemcpyDeviceToHost), hipSuccess);
    EXPECT_NEAR(got[0], 0.25f, 1e-6f); // one key: its value
    for (float* x : {dq, dk, dv, dy}) (void)hipFree(x);
}
