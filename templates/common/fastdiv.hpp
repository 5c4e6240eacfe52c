// Division by an invariant divisor as a multiply and a shift (Granlund & Montgomery, "Division
// by invariant integers using multiplication", 1994, the N+1-bit multiplier; Hacker's Delight
// ch. 10): for a divisor 1 <= d <= 2^31 built once (on the host), with l = ceil(log2 d) and
//   mul = floor(2^32 * (2^l - d) / d) + 1   (< 2^32),
// m = 2^32 + mul = floor(2^(32+l) / d) + 1 satisfies 2^(32+l) < m * d <= 2^(32+l) + 2^l, so
//   n / d = floor(m * n / 2^(32+l)) = (umulhi(mul, n) + n) >> l   for every 0 <= n < 2^32;
// the sum fits in 32 bits for n < 2^31 (umulhi(mul, n) <= n), which div requires.
// A 32-bit division by a run-time value is ~20 GPU instructions (a 64-bit one ~70); this is
// a multiply-high, an add and a shift. Used by the hip convolution's per-element index math.
#pragma once
#include "templates/common/types.hpp"

struct mxc_fastdiv {
    uint32_t d, mul;
    uint32_t shift;

    mxc_fastdiv() = default;
    // d in [1, 2^31].
    MXC_HD explicit mxc_fastdiv(uint32_t divisor) : d(divisor), mul(0), shift(0) {
        while ((uint64_t(1) << shift) < d) ++shift;
        mul = uint32_t((uint64_t(1) << 32) * ((uint64_t(1) << shift) - d) / d + 1);
    }
    // n / d and n % d for n < 2^31.
    MXC_HD uint32_t div(uint32_t n) const {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
        const uint32_t hi = __umulhi(mul, n);
#else
        const uint32_t hi = uint32_t((uint64_t(mul) * n) >> 32);
#endif
        return (hi + n) >> shift;
    }
    MXC_HD uint32_t mod(uint32_t n) const { return n - div(n) * d; }
};
