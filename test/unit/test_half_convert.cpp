// floats_to_half (ir/half_convert.hpp, F16C where the machine has it) gives the bits of
// mxc_half(float), the conversion the kernels and the reference use, and flags overflow.
#include <gtest/gtest.h>

#include "ir/half_convert.hpp"
#include "templates/common/types.hpp"

#include <cstring>
#include <limits>
#include <vector>

TEST(HalfConvert, SameBitsAsMxcHalf) {
    // every sign, exponent and top mantissa half-word, with low halves around the rounding
    // points of binary16 (the 13 dropped bits: below, at and above the half-way 0x1000)
    const uint32_t lows[] = {0x0000, 0x0001, 0x0fff, 0x1000, 0x1001, 0x1fff, 0x2000, 0x3000, 0x7fff, 0x8000, 0x9001, 0xffff};
    std::vector<float> in;
    for (uint32_t hi = 0; hi < 0x10000; ++hi)
        for (uint32_t lo : lows) {
            const uint32_t x = (hi << 16) | lo;
            float f;
            std::memcpy(&f, &x, 4);
            in.push_back(f);
        }
    in.push_back(1.0f); // a length that is not a multiple of 8
    std::vector<uint16_t> out(in.size());
    mxc::floats_to_half(in.data(), out.data(), int64_t(in.size()));
    for (size_t i = 0; i < in.size(); ++i) {
        uint32_t x;
        std::memcpy(&x, &in[i], 4);
        ASSERT_EQ(out[i], mxc_half(in[i]).bits) << "float bits 0x" << std::hex << x;
    }
}

TEST(HalfConvert, FlagsFiniteValuesThatOverflow) {
    auto overflows = [](std::vector<float> v) {
        std::vector<uint16_t> out(v.size());
        return mxc::floats_to_half(v.data(), out.data(), int64_t(v.size()));
    };
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    EXPECT_FALSE(overflows({65504.0f, -65504.0f, 65519.0f, inf, -inf, nan, 0.0f, 1e-9f}));
    EXPECT_TRUE(overflows({1, 2, 3, 4, 5, 6, 7, 8, 65520.0f}));  // rounds to inf (the tail, after the vectors)
    EXPECT_TRUE(overflows({-70000.0f, 1, 2, 3, 4, 5, 6, 7, 8}));  // in a vector
}
