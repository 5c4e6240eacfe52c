// Low-precision element types: the float8 formats, float8e8m0, float4e2m1 and the 4-bit and
// 2-bit integers. Inside mxc (IR literals, the evaluator, arena buffers, generated libraries)
// every one of them takes ONE BYTE per element: floats keep their bit pattern in the low bits
// of `bits`, the sub-byte integers keep their value (int4/int2 sign-extended into int8_t).
// Packing two (4-bit) or four (2-bit) elements per byte happens only at the ONNX boundary.
// Conversions follow the ONNX Cast spec (opset 25): float -> float8 rounds to nearest even;
// with saturate, out-of-range values (and +-inf) clamp to +-max, without it they become inf
// (e5m2) or NaN (e4m3fn, the fnuz types); fnuz types have a single NaN (0x80) and no -0.
// float4e2m1 has no inf/NaN and always saturates; casts to the sub-byte integers keep the low
// bits (they wrap), floats truncate toward zero first (NaN gives 0).
// Plain C++17, included by types.hpp; every function is MXC_HD.
#pragma once
#include <stdint.h>
#include <string.h>
#include <type_traits>

MXC_HD inline uint32_t mxc_float_bits(float f) { uint32_t x; memcpy(&x, &f, 4); return x; }
MXC_HD inline float mxc_bits_float(uint32_t x) { float f; memcpy(&f, &x, 4); return f; }
// 2^e as a float for e in [-149, 127].
MXC_HD inline float mxc_pow2f(int e) {
    if (e >= -126) return mxc_bits_float((uint32_t)(e + 127) << 23);
    return mxc_bits_float(1u << (e + 149));
}

// A small float format with E exponent bits, M mantissa bits and bias B.
// Kind: 0 = IEEE-like (inf and NaNs in the top exponent: e5m2), 1 = "fn" (no inf, NaN is
// S.1111.111: e4m3fn), 2 = "fnuz" (no inf, no -0, NaN is 0x80), 3 = finite only (e2m1).
template <int E, int M, int B, int Kind> struct mxc_minifloat_format {
    static constexpr int total = 1 + E + M;
    static constexpr uint32_t sign_bit = 1u << (E + M);
    static constexpr uint32_t max_code = Kind == 0 ? ((((1u << E) - 2) << M) | ((1u << M) - 1))
                                         : Kind == 1 ? ((1u << (E + M)) - 2)
                                                     : ((1u << (E + M)) - 1);

    MXC_HD static float to_float(uint32_t v) {
        uint32_t sign = v & sign_bit, mag = v & (sign_bit - 1);
        const float nan = mxc_bits_float(0x7fc00000u);
        if (Kind == 2 && v == sign_bit) return nan;
        if (Kind == 1 && mag == sign_bit - 1) return sign ? -nan : nan;
        uint32_t exp = mag >> M, man = mag & ((1u << M) - 1);
        if (Kind == 0 && exp == (1u << E) - 1) {
            float r = man ? nan : mxc_bits_float(0x7f800000u);
            return sign ? -r : r;
        }
        float r = exp == 0 ? (float)man * mxc_pow2f(1 - B - M) : (float)(man | (1u << M)) * mxc_pow2f((int)exp - B - M);
        return sign ? -r : r;
    }

    MXC_HD static uint32_t nan_code(uint32_t sign) {
        if (Kind == 0) return sign | (((1u << E) - 1) << M) | ((1u << M) - 1);
        if (Kind == 1) return sign | (sign_bit - 1);
        if (Kind == 2) return sign_bit;
        return sign_bit; // e2m1 has no NaN: the ONNX reference gives 0x8
    }
    // What an out-of-range value (or +-inf) becomes.
    MXC_HD static uint32_t overflow_code(uint32_t sign, bool saturate) {
        if (saturate || Kind == 3) return sign | max_code;
        if (Kind == 0) return sign | (((1u << E) - 1) << M); // inf
        return nan_code(sign);
    }

    // Round to nearest even.
    MXC_HD static uint32_t from_float(float f, bool saturate) {
        uint32_t x = mxc_float_bits(f);
        uint32_t sign = (x >> 31) ? sign_bit : 0u;
        uint32_t absx = x & 0x7fffffffu;
        if (absx > 0x7f800000u) return nan_code(sign);
        if (absx == 0x7f800000u) return overflow_code(sign, saturate);
        const uint32_t zero = Kind == 2 ? 0u : sign;
        if (absx == 0) return zero;
        int e = (int)(absx >> 23) - 127;         // float subnormals are far below every format's range
        if (e < 1 - B) e = 1 - B;                // the format's subnormal range: a fixed quantum
        float s = mxc_bits_float(absx) * mxc_pow2f(M - e); // in units of the quantum 2^(e-M): exact
        uint32_t n = (uint32_t)s;
        float frac = s - (float)n;
        if (frac > 0.5f || (frac == 0.5f && (n & 1u))) ++n;
        if (n == 0) return zero;
        int64_t code;
        if (n >= (1u << M)) {                    // normal (n may have carried to 2^(M+1))
            if (n == (2u << M)) { n >>= 1; ++e; }
            int64_t biased = (int64_t)e + B;
            code = (biased << M) | (int64_t)(n - (1u << M));
        } else {
            code = (int64_t)n;                   // subnormal
        }
        if (code > (int64_t)max_code) return overflow_code(sign, saturate);
        return sign | (uint32_t)code;
    }
};

using mxc_e4m3fn_format = mxc_minifloat_format<4, 3, 7, 1>;
using mxc_e4m3fnuz_format = mxc_minifloat_format<4, 3, 8, 2>;
using mxc_e5m2_format = mxc_minifloat_format<5, 2, 15, 0>;
using mxc_e5m2fnuz_format = mxc_minifloat_format<5, 2, 16, 2>;
using mxc_e2m1_format = mxc_minifloat_format<2, 1, 1, 3>;

// One byte holding a float8 (or float4, in the low 4 bits) bit pattern.
template <class Format> struct mxc_minifloat {
    uint8_t bits;
    mxc_minifloat() = default;
    MXC_HD mxc_minifloat(float f) : bits((uint8_t)Format::from_float(f, true)) {}
    MXC_HD operator float() const { return Format::to_float(bits); }
    MXC_HD static mxc_minifloat from_float(float f, bool saturate, int /*round_mode*/) {
        mxc_minifloat r;
        r.bits = (uint8_t)Format::from_float(f, saturate);
        return r;
    }
};
using mxc_f8e4m3fn = mxc_minifloat<mxc_e4m3fn_format>;
using mxc_f8e4m3fnuz = mxc_minifloat<mxc_e4m3fnuz_format>;
using mxc_f8e5m2 = mxc_minifloat<mxc_e5m2_format>;
using mxc_f8e5m2fnuz = mxc_minifloat<mxc_e5m2fnuz_format>;
using mxc_f4e2m1 = mxc_minifloat<mxc_e2m1_format>;

// float8e8m0: an unsigned power of two 2^(bits - 127); 0xff is NaN. Rounding modes of the
// ONNX Cast round_mode attribute: up (0, the default: any remainder rounds to the next power),
// down (1: truncate), nearest (2: to the nearer power, ties up). The sign is ignored.
enum { mxc_round_up = 0, mxc_round_down = 1, mxc_round_nearest = 2 };
struct mxc_f8e8m0 {
    uint8_t bits;
    mxc_f8e8m0() = default;
    MXC_HD mxc_f8e8m0(float f) : bits(encode(f, true, mxc_round_up)) {}
    MXC_HD operator float() const {
        if (bits == 0xffu) return mxc_bits_float(0x7fc00000u);
        if (bits == 0) return mxc_bits_float(0x00400000u); // 2^-127, a float subnormal
        return mxc_bits_float((uint32_t)bits << 23);
    }
    MXC_HD static mxc_f8e8m0 from_float(float f, bool saturate, int round_mode) {
        mxc_f8e8m0 r;
        r.bits = encode(f, saturate, round_mode);
        return r;
    }
    MXC_HD static uint8_t encode(float f, bool saturate, int round_mode) {
        uint32_t x = mxc_float_bits(f) & 0x7fffffffu;
        if (x > 0x7f800000u) return 0xffu;
        if (x == 0x7f800000u) return saturate ? 0xfeu : 0xffu;
        uint32_t exp = x >> 23, man = x & 0x7fffffu;
        uint32_t half = 0x400000u;               // the mantissa of 1.5 * 2^e
        if (exp == 0) {                          // below 2^-126: compare with 2^-127 (man == half)
            if (round_mode == mxc_round_up) return man > half ? 1 : 0;
            if (round_mode == mxc_round_nearest) return man >= half + half / 2 ? 1 : 0;
            return 0;
        }
        bool up = round_mode == mxc_round_up ? man != 0 : round_mode == mxc_round_nearest ? man >= half : false;
        if (up) ++exp;
        if (exp >= 0xffu) return saturate ? 0xfeu : 0xffu;
        return (uint8_t)exp;
    }
};

// A 4-bit or 2-bit integer kept unpacked in one byte (sign-extended when signed). Conversions
// into it keep the low Bits bits of the value (floats truncate toward zero; NaN gives 0).
template <int Bits, bool Signed> struct mxc_subbyte_int {
    typedef typename std::conditional<Signed, int8_t, uint8_t>::type storage;
    storage v;
    mxc_subbyte_int() = default;
    template <class V, class = typename std::enable_if<std::is_arithmetic<V>::value>::type> MXC_HD mxc_subbyte_int(V x) : v(wrap(to_i64(x))) {}
    MXC_HD operator int32_t() const { return (int32_t)v; }
    template <class V> MXC_HD static int64_t to_i64(V x) {
        if constexpr (std::is_floating_point<V>::value) {
            double d = (double)x;
            if (d != d) return 0;
            if (d >= 9.2e18) return INT64_MAX;
            if (d <= -9.2e18) return INT64_MIN;
            return (int64_t)d;
        } else {
            return (int64_t)x;
        }
    }
    MXC_HD static storage wrap(int64_t x) {
        uint32_t low = (uint32_t)((uint64_t)x & ((1u << Bits) - 1));
        if (Signed && (low & (1u << (Bits - 1)))) return (storage)((int32_t)low - (1 << Bits));
        return (storage)low;
    }
};
using mxc_int4 = mxc_subbyte_int<4, true>;
using mxc_uint4 = mxc_subbyte_int<4, false>;
using mxc_int2 = mxc_subbyte_int<2, true>;
using mxc_uint2 = mxc_subbyte_int<2, false>;

// Bits per element as ONNX counts them (the sub-byte types: 4 or 2; else 8 * sizeof).
template <class T> struct mxc_onnx_bits { static constexpr int value = 8 * (int)sizeof(T); };
template <> struct mxc_onnx_bits<mxc_f4e2m1> { static constexpr int value = 4; };
template <int B, bool S> struct mxc_onnx_bits<mxc_subbyte_int<B, S>> { static constexpr int value = B; };

// ONNX BitCast: the bits of x (types of equal mxc_onnx_bits) read as To. A sub-byte integer
// target sign-extends its bits; a bool target is true for any nonzero bits.
template <class To, class From> MXC_HD inline To mxc_bitcast(From x) {
    uint64_t b = 0;
    memcpy(&b, &x, sizeof(From)); // little-endian: the element's bits are the low bits
    constexpr int bits = mxc_onnx_bits<To>::value;
    if (bits < 64) b &= (uint64_t(1) << (bits % 64)) - 1;
    To r;
    if constexpr (std::is_same<To, bool>::value) {
        r = b != 0;
    } else if constexpr (bits < 8 && !std::is_same<To, mxc_f4e2m1>::value) {
        r = To(b); // wraps into the low bits, sign-extending int4/int2
    } else {
        memcpy(&r, &b, sizeof(To));
    }
    return r;
}
