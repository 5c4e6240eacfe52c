#include "ir/half_convert.hpp"

#include "templates/common/types.hpp"

#include <cmath>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define MXC_HAVE_F16C_PATH 1
#endif

namespace mxc {

namespace {
#if MXC_HAVE_F16C_PATH
// Eight at a time; F16C rounds to nearest even (immediate 0), makes subnormals and infinities
// as mxc_half does; NaNs keep part of their payload there, so the caller rewrites them.
__attribute__((target("f16c,avx"))) void f16c_convert(const float* in, uint16_t* out, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm256_cvtps_ph(_mm256_loadu_ps(in + i), 0));
    for (; i < n; ++i) out[i] = mxc_half(in[i]).bits;
}
// CPUID leaf 1 (ECX bit 27 OSXSAVE, 28 AVX, 29 F16C) and the OS saving the ymm registers
// (XCR0 bits 1-2); clang 14's __builtin_cpu_supports does not know "f16c".
bool has_f16c() {
    static const bool yes = [] {
        unsigned a = 0, b = 0, c = 0, d = 0;
        if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
        if (!((c >> 27) & 1u) || !((c >> 28) & 1u) || !((c >> 29) & 1u)) return false;
        unsigned lo = 0, hi = 0;
        __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        return (lo & 6u) == 6u;
    }();
    return yes;
}
#endif
} // namespace

bool floats_to_half(const float* in, uint16_t* out, int64_t n) {
#if MXC_HAVE_F16C_PATH
    const bool fast = has_f16c();
    if (fast) f16c_convert(in, out, n);
#else
    const bool fast = false;
#endif
    bool overflow = false;
    for (int64_t i = 0; i < n; ++i) {
        uint32_t x;
        std::memcpy(&x, in + i, 4);
        if (!fast) out[i] = mxc_half(in[i]).bits;
        else if ((x & 0x7fffffffu) > 0x7f800000u) out[i] = uint16_t(((x >> 16) & 0x8000u) | 0x7e00u); // NaN as mxc_half
        overflow |= (out[i] & 0x7c00u) == 0x7c00u && (x & 0x7f800000u) != 0x7f800000u;
    }
    return overflow;
}

} // namespace mxc
