// The cpu softmax of contiguous rows (templates/cpu/softmax.hpp: maximum and sum in vectors of
// partial results) against double: rows of every length around the vector width, masked
// elements (-10000, -3.4e38, -inf), NaN anywhere, rows all -inf; the baseline and the AVX2
// build of the row give the same bits.
#include "templates/cpu/softmax.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

namespace {

std::vector<float> row_values(int64_t n, uint32_t seed) {
    std::vector<float> v(static_cast<size_t>(n));
    for (auto& x : v) {
        seed = seed * 1664525u + 1013904223u;
        x = float((seed >> 8) % 20000) / 1000.0f - 10.0f;
        if ((seed >> 4) % 5 == 0) x = (seed >> 12) % 2 ? -10000.0f : -3.4e38f; // masked
    }
    return v;
}

// The row through each build the CPU can run (the baseline, AVX2), checked to agree bit for bit.
template <bool Log> std::vector<float> softmax_row(const std::vector<float>& x) {
    std::vector<float> y(x.size()), y2(x.size());
    mxc::cpu::softmax_row_base<float, Log>(x.data(), y.data(), int64_t(x.size()));
#if MXC_GEMM_AVX2
    if (__builtin_cpu_supports("avx2")) {
        mxc::cpu::softmax_row_avx2<float, Log>(x.data(), y2.data(), int64_t(x.size()));
        EXPECT_EQ(0, std::memcmp(y.data(), y2.data(), sizeof(float) * x.size())) << "baseline and AVX2 differ";
    }
#endif
    std::vector<float> z = x; // in place (the attention kernel's softmax)
    mxc::cpu::softmax_contiguous_row<float, Log>(z.data(), z.data(), int64_t(z.size()));
    EXPECT_EQ(0, std::memcmp(y.data(), z.data(), sizeof(float) * x.size())) << "in place differs";
    return y;
}

TEST(cpu_softmax, contiguous_rows) {
    for (int64_t len : {1, 2, 7, 8, 9, 15, 16, 17, 33, 128, 1000}) {
        const std::vector<float> x = row_values(len, uint32_t(len));
        double m = -INFINITY, sum = 0;
        for (float v : x) m = std::fmax(m, double(v));
        for (float v : x) sum += std::exp(double(v) - m);
        const std::vector<float> y = softmax_row<false>(x), ly = softmax_row<true>(x);
        for (int64_t i = 0; i < len; ++i) {
            const double want = std::exp(double(x[size_t(i)]) - m) / sum; // (x - m rounds in float: 1e-6)
            EXPECT_NEAR(y[size_t(i)], want, 3e-6 * want + 1e-38) << "len " << len << " at " << i;
            if (x[size_t(i)] > -100.0f)
                EXPECT_NEAR(ly[size_t(i)], std::log(want), 2e-6 * (1 + std::fabs(std::log(want))))
                    << "log, len " << len << " at " << i;
        }
    }
}

TEST(cpu_softmax, nan_and_masked_rows) {
    for (int64_t len : {5, 8, 19, 64}) {
        for (int64_t at : {int64_t(0), len / 2, len - 1}) { // in the vectors and in the tail
            std::vector<float> x = row_values(len, 3);
            x[size_t(at)] = NAN;
            for (float v : softmax_row<false>(x)) EXPECT_TRUE(std::isnan(v)) << len << ", NaN at " << at;
            for (float v : softmax_row<true>(x)) EXPECT_TRUE(std::isnan(v)) << len << ", NaN at " << at;
        }
        const std::vector<float> masked(static_cast<size_t>(len), -INFINITY);
        for (float v : softmax_row<false>(masked)) EXPECT_EQ(v, 0.0f);
        for (float v : softmax_row<true>(masked)) EXPECT_EQ(v, -INFINITY);
        for (int64_t at : {int64_t(0), len - 1}) { // NaN in a row otherwise all -inf: NaN, not 0
            std::vector<float> x = masked;
            x[size_t(at)] = NAN;
            for (float v : softmax_row<false>(x)) EXPECT_TRUE(std::isnan(v)) << len << ", NaN at " << at;
        }
        std::vector<float> one = masked; // one element left: probability 1
        one[size_t(len - 1)] = -3.0f;
        const std::vector<float> y = softmax_row<false>(one);
        EXPECT_EQ(y[size_t(len - 1)], 1.0f);
        EXPECT_EQ(y[0], 0.0f);
    }
}

} // namespace
