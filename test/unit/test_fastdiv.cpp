// mxc_fastdiv (templates/common/fastdiv.hpp): the multiply-and-shift division must equal / and
// % for every divisor 1 <= d <= 2^31 and every dividend n < 2^31 (host path; the device path
// differs only in computing the multiply-high with __umulhi).
#include <gtest/gtest.h>

#include "templates/common/fastdiv.hpp"

#include <random>
#include <vector>

namespace {

constexpr uint32_t n_max = 0x7fffffffu; // 2^31 - 1

// Checks n / d and n % d; returns false (after one gtest failure) on the first mismatch.
bool check(const mxc_fastdiv& f, uint32_t n) {
    const uint32_t q = f.div(n), r = f.mod(n);
    if (q == n / f.d && r == n % f.d) return true;
    ADD_FAILURE() << n << " / " << f.d << ": got " << q << " rem " << r << ", want " << n / f.d << " rem " << n % f.d;
    return false;
}

// The dividends worth checking for d: the edges around 0, d, small multiples, the multiples
// of d nearest 2^31 - 1, powers of two, and random ones.
std::vector<uint32_t> dividends(uint32_t d, std::mt19937& rng) {
    std::vector<uint32_t> ns = {0, 1, n_max, n_max - 1, 0x40000000u, 0x3fffffffu};
    for (uint32_t k : {1u, 2u, 3u, 7u, 1000u}) {
        const uint64_t m = uint64_t(d) * k;
        for (int64_t e = -1; e <= 1; ++e)
            if (m + e <= n_max && int64_t(m) + e >= 0) ns.push_back(uint32_t(m + e));
    }
    const uint32_t top = n_max / d * d; // the last multiple of d below 2^31
    for (uint32_t e : {0u, 1u, 2u})
        if (top >= e) ns.push_back(top - e);
    if (uint64_t(top) + d - 1 <= n_max) ns.push_back(top + d - 1);
    for (int b = 0; b < 31; ++b) ns.push_back(1u << b);
    std::uniform_int_distribution<uint32_t> any(0, n_max), small(0, 1u << 20);
    for (int i = 0; i < 64; ++i) ns.push_back(any(rng));
    for (int i = 0; i < 16; ++i) ns.push_back(small(rng));
    return ns;
}

TEST(FastDiv, SmallDivisorsAgainstDivide) {
    std::mt19937 rng(6);
    for (uint32_t d = 1; d <= 4096; ++d) {
        const mxc_fastdiv f(d);
        for (uint32_t n : dividends(d, rng))
            if (!check(f, n)) return;
    }
}

TEST(FastDiv, EveryDividendBelowTwoToTheSixteenForSomeDivisors) {
    for (uint32_t d : {1u, 2u, 3u, 5u, 6u, 7u, 9u, 25u, 49u, 56u, 196u, 641u, 3136u, 12544u, 65535u}) {
        const mxc_fastdiv f(d);
        for (uint32_t n = 0; n < (1u << 16); ++n)
            if (!check(f, n)) return;
    }
}

TEST(FastDiv, LargeDivisorsAgainstDivide) {
    std::mt19937 rng(31);
    std::vector<uint32_t> ds = {n_max, n_max - 1, 0x80000000u, 0x40000000u, 0x40000001u, 0x3fffffffu, 65536u, 65537u,
                                1000003u, 0x55555555u, 0x12345678u};
    for (int b = 12; b <= 30; ++b) ds.push_back((1u << b) + 1);
    std::uniform_int_distribution<uint32_t> any(4097, n_max);
    for (int i = 0; i < 2000; ++i) ds.push_back(any(rng));
    for (uint32_t d : ds) {
        const mxc_fastdiv f(d);
        for (uint32_t n : dividends(d, rng))
            if (!check(f, n)) return;
    }
}

} // namespace
