// Math shared by the cpu and the hip kernels (and pasted into fused kernels): the compute
// type of an element type, math functions for float and double, lowest values, and index
// arithmetic over mxc_desc. Plain C++17; every function is MXC_HD.
#pragma once
#include "templates/common/abi.hpp"
#include "templates/common/types.hpp"

#include <math.h>
#include <stdint.h>
#include <string.h>
#include <type_traits>

// Arithmetic type of an element type: half and bfloat16 compute in float.
template <class T> struct mxc_compute { using type = T; };
template <> struct mxc_compute<mxc_half> { using type = float; };
template <> struct mxc_compute<mxc_bf16> { using type = float; };
// The low-precision floats compute in float, the sub-byte integers in int32_t.
template <class F> struct mxc_compute<mxc_minifloat<F>> { using type = float; };
template <> struct mxc_compute<mxc_f8e8m0> { using type = float; };
template <int B, bool S> struct mxc_compute<mxc_subbyte_int<B, S>> { using type = int32_t; };
template <class T> using mxc_compute_t = typename mxc_compute<T>::type;

// The host math below is always inlined: in a large generated unit GCC reaches its
// inline-unit-growth limit and calls it once per element, which stops the vectorisation of
// the loop around it (YOLO's SiLU epilogues: a call to mxc_exp_host per element).
#if defined(__GNUC__)
#define MXC_HOST_INLINE inline __attribute__((always_inline))
#else
#define MXC_HOST_INLINE inline
#endif

// mxc_exp_host's core: e^c = p * 2^n for |c| <= 104 (clamped by the caller): n = c / ln2
// rounded, as the low bits of tb (tb - 0x4b400000 = n), and p = e^r, r = c - n ln2.
MXC_HOST_INLINE float mxc_exp_reduced(float c, uint32_t& tb) {
    const float shifter = 12582912.0f;                   // 1.5 * 2^23: adding it rounds to an integer
    const float t = c * 1.44269504088896341f + shifter;  // x / ln2, rounded: n in t's low bits
    const float n = t - shifter;
    const float r = (c - n * 0.693145751953125f) - n * 1.42860682030941723e-6f; // ln2 = hi + lo
    float p = 0.0013836839786114568f;
    p = p * r + 0.008374815769960279f;
    p = p * r + 0.04166822568034563f;
    p = p * r + 0.16666420170362645f;
    p = p * r + 0.4999999207932445f;
    p = p * r + 1.0000000363230461f;
    p = p * r + 1.0f;
    memcpy(&tb, &t, sizeof tb);
    return p;
}

// exp for float on the host (the cpu kernels, the reference evaluator, constant folding, the
// hip emulator): branch-free, so that GCC vectorises the loops that call it (a fused
// epilogue's SiLU or sigmoid, softmax), where libm's expf is a call per element. Range
// reduction (Cody and Waite): x = n ln2 + r, |r| <= ln2 / 2, with ln2 in two parts (the
// high part has 12 significant bits, so n * ln2_hi is exact for |n| <= 2^12); exp(r) by a
// polynomial of degree 6 fitted to exp's relative error on [-ln2 / 2, ln2 / 2] (at most
// 1.9e-9, a thirtieth of an ulp; Taylor's series needed degree 7, two operations more); then
// times 2^n as two powers of two built from exponent bits (n, read off the rounding's bits,
// splits into halves that stay normal, so results in the subnormal range round once, as
// gradual underflow does). x is clamped to at most 89 first (exp(89) is above the largest
// float: inf); below -104 (exp(-104) is below half the least subnormal) the result is set to
// 0 without computing it (the last multiply would underflow, and a multiply with a
// subnormal result takes a microcode assist on Intel cores, a hundred cycles or so: BERT's
// masked attention scores, -10000 or -3.4e38 before the softmax, took 14 ns an element).
// NaN gives NaN. The special cases cost a few operations (masks from float comparisons, a
// min: YOLO's SiLU epilogue with AVX-512, 0.61 -> 0.50 ns an element, where masks built from
// the bits' fields took twice as many). Error: within 2 ulp of the
// true value (tested against double exp over the whole range, test_ops_math.cpp). GPUs keep
// their expf.
MXC_HOST_INLINE float mxc_exp_host(float x) {
    // (the special cases as masks from float comparisons applied to the bits: GCC vectorises
    // those on every x86 level, where a select of a float that is then computed on stays a
    // branch below AVX-512: it may not compute where a comparison may have said not to)
    const uint32_t nan = 0u - uint32_t(x != x), low = 0u - uint32_t(x < -104.0f), skip = nan | low;
    float c = x < 89.0f ? x : 89.0f;
    uint32_t cb;
    memcpy(&cb, &c, sizeof cb);
    cb &= ~skip; // 0 for NaN and below -104 (their results are set below)
    memcpy(&c, &cb, sizeof c);
    uint32_t tb;
    const float p = mxc_exp_reduced(c, tb);
    const int32_t k = int32_t(tb - 0x4b400000u), k1 = k >> 1, k2 = k - k1; // k in [-151, 129]: halves in [-76, 65]
    const uint32_t b1 = uint32_t(k1 + 127) << 23, b2 = uint32_t(k2 + 127) << 23;
    float s1, s2;
    memcpy(&s1, &b1, sizeof s1);
    memcpy(&s2, &b2, sizeof s2);
    const float y = p * s1 * s2;
    uint32_t xb, yb;
    memcpy(&xb, &x, sizeof xb);
    memcpy(&yb, &y, sizeof yb);
    yb = (yb & ~skip) | (xb & nan);
    float out;
    memcpy(&out, &yb, sizeof out);
    return out;
}
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
MXC_HD inline float mxc_exp(float x) { return expf(x); }
#else
MXC_HOST_INLINE float mxc_exp(float x) { return mxc_exp_host(x); }
#endif
MXC_HD inline double mxc_exp(double x) { return exp(x); }
// sigmoid for float on the host: 1 / (1 + e^-x), e^-x as mxc_exp_host computes it but with -x
// clamped to [-86, 87] first, where e^-x and the result are normal floats, so that one power
// of two scales p and no special case is needed: below -86, 1 + e^-x rounds to 1 anyway; x
// below -87 gives sigmoid(-87) = 1.6e-38 (the true value is smaller: within 1.7e-38). NaN
// gives NaN. A third fewer operations than through mxc_exp_host (YOLO's SiLU epilogues).
// Error: within 2 ulp of the true value from -87 on (test_ops_math.cpp).
MXC_HOST_INLINE float mxc_sigmoid_host(float x) {
    float c = -x < 87.0f ? -x : 87.0f; // (NaN: 87, its result replaced below)
    c = c > -86.0f ? c : -86.0f;
    uint32_t tb;
    const float p = mxc_exp_reduced(c, tb);
    const uint32_t b = (tb - 0x4b400000u + 127u) << 23; // 2^n, n in [-125, 126]
    float s;
    memcpy(&s, &b, sizeof s);
    const float y = 1.0f / (1.0f + p * s);
    return x != x ? x : y;
}
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
MXC_HD inline float mxc_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }
#else
MXC_HOST_INLINE float mxc_sigmoid(float x) { return mxc_sigmoid_host(x); }
#endif
MXC_HD inline double mxc_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
MXC_HD inline float mxc_log(float x) { return logf(x); }
MXC_HD inline double mxc_log(double x) { return log(x); }
MXC_HD inline float mxc_sqrt(float x) { return sqrtf(x); }
MXC_HD inline double mxc_sqrt(double x) { return sqrt(x); }
MXC_HD inline float mxc_tanh(float x) { return tanhf(x); }
MXC_HD inline double mxc_tanh(double x) { return tanh(x); }
// erf for float on the host, branch-free as mxc_exp_host (GCC vectorises the loops that call
// it: GELU epilogues, where libm's erff was a call per element). |x| < 0.9: x P(x^2); from 0.9:
// 1 - exp(Q(|x|)), Q fitting log(erfc) on [0.9, 4] (|x| clamped to 4: erf is 1 in float from
// 3.92). P (degree 6 in x^2) and Q (degree 12) are least-squares fits of relative error on
// Chebyshev points, made for mxc (tools/fit_erf.py). Odd; NaN through. Error: within 3 ulp
// of double erf (unit test, test_ops_math.cpp). GPUs keep erff.
MXC_HOST_INLINE float mxc_erf_host(float x) {
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    const uint32_t mag = bits & 0x7fffffffu, sign = bits & 0x80000000u;
    const uint32_t nan = 0u - uint32_t(mag > 0x7f800000u);
    const uint32_t small = 0u - uint32_t(mag < 0x3f666666u);   // |x| < 0.9
    const uint32_t clamped = mag > 0x40800000u ? 0x40800000u : mag; // min(|x|, 4)
    float a, ax;
    memcpy(&ax, &mag, sizeof ax);
    const uint32_t ab = clamped & ~nan;
    memcpy(&a, &ab, sizeof a);
    const float z = ax * ax;
    float p = 8.508395232223465e-05f;
    p = p * z + -0.0008174483700203808f;
    p = p * z + 0.005203752573024523f;
    p = p * z + -0.026860463009006075f;
    p = p * z + 0.11283714152681609f;
    p = p * z + -0.37612634917081933f;
    p = p * z + 1.12837916675703f;
    float q = 1.2710516639202751e-08f;
    q = q * a + -3.385436293523725e-07f;
    q = q * a + 3.945390141618654e-06f;
    q = q * a + -2.6282591258947052e-05f;
    q = q * a + 0.00011078736145092322f;
    q = q * a + -0.00033119496036894814f;
    q = q * a + 0.0010230644414053087f;
    q = q * a + -0.0049297157001021675f;
    q = q * a + 0.025771316155073876f;
    q = q * a + -0.1086367798254975f;
    q = q * a + -0.6332342056810857f;
    q = q * a + -1.1295310935381586f;
    q = q * a + 0.00017497486578263221f;
    const float near = ax * p, far = 1.0f - mxc_exp_host(q);
    uint32_t nb, fb;
    memcpy(&nb, &near, sizeof nb);
    memcpy(&fb, &far, sizeof fb);
    uint32_t rb = ((nb & small) | (fb & ~small)) | sign;
    rb = (rb & ~nan) | (bits & nan);
    float r;
    memcpy(&r, &rb, sizeof r);
    return r;
}
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
MXC_HD inline float mxc_erf(float x) { return erff(x); }
#else
MXC_HOST_INLINE float mxc_erf(float x) { return mxc_erf_host(x); }
#endif
MXC_HD inline double mxc_erf(double x) { return erf(x); }
MXC_HD inline float mxc_pow(float a, float b) { return powf(a, b); }
MXC_HD inline double mxc_pow(double a, double b) { return pow(a, b); }
MXC_HD inline float mxc_abs(float x) { return fabsf(x); }
MXC_HD inline double mxc_abs(double x) { return fabs(x); }
template <class C> MXC_HD inline C mxc_abs(C x) {
    if constexpr (std::is_signed<C>::value) return x < C(0) ? C(-x) : x;
    else return x;
}
// Integer power (C integral): exact for non-negative exponents; a negative exponent gives the
// truncated 1 / a^-b (1 for a == 1, +-1 for a == -1, else 0).
template <class C> MXC_HD inline C mxc_pow(C a, C b) {
    if (b < C(0)) {
        if (a == C(1)) return C(1);
        if constexpr (std::is_signed<C>::value)
            if (a == C(-1)) return (b % C(2)) == C(0) ? C(1) : C(-1);
        return C(0);
    }
    C r = C(1);
    while (b > C(0)) {
        if (b % C(2)) r = C(r * a);
        a = C(a * a);
        b = C(b / C(2));
    }
    return r;
}

template <class C> MXC_HD inline C mxc_highest();
// The lowest value of a compute type (the identity of max): -inf for floats.
template <class C> MXC_HD inline C mxc_lowest() {
    if constexpr (std::is_floating_point<C>::value) return C(-INFINITY);
    else if constexpr (std::is_same<C, bool>::value) return false;
    else if constexpr (std::is_signed<C>::value) return C(-mxc_highest<C>() - 1);
    else return C(0);
}
// The highest value of a compute type (the identity of min): +inf for floats.
template <class C> MXC_HD inline C mxc_highest() {
    if constexpr (std::is_floating_point<C>::value) return C(INFINITY);
    else if constexpr (std::is_same<C, bool>::value) return true;
    else if constexpr (std::is_signed<C>::value) return C((uint64_t(1) << (sizeof(C) * 8 - 1)) - 1);
    else return C(~C(0));
}

// Conversion between any two element types, through the compute type of the source
// (half/bf16 go through float; bool is x != 0).
template <class To, class From> MXC_HD inline To mxc_convert(From v) {
    return static_cast<To>(static_cast<mxc_compute_t<From>>(v));
}

// A cast with the ONNX Cast attributes: `saturate` (out-of-range values clamp to the largest
// finite value; else inf or NaN) and `round_mode` (mxc_round_up/down/nearest) matter only
// for the float8 and float4 targets; other targets convert as mxc_convert.
template <class T> struct mxc_takes_cast_mode : std::false_type {};
template <class F> struct mxc_takes_cast_mode<mxc_minifloat<F>> : std::true_type {};
template <> struct mxc_takes_cast_mode<mxc_f8e8m0> : std::true_type {};
template <class To, class From> MXC_HD inline To mxc_cast(From v, bool saturate, int round_mode) {
    if constexpr (mxc_takes_cast_mode<To>::value)
        return To::from_float(static_cast<float>(static_cast<mxc_compute_t<From>>(v)), saturate, round_mode);
    else
        return mxc_convert<To>(v);
}

// Index arithmetic over descriptors (lens and strides in elements).
MXC_HD inline int64_t mxc_elements(const mxc_desc& d) {
    int64_t n = 1;
    for (int i = 0; i < d.rank; ++i) n *= d.lens[i];
    return n;
}
// Whether d is standard (packed row-major: element i at offset i); dims of length 1 may have
// any stride.
MXC_HD inline bool mxc_is_packed(const mxc_desc& d) {
    int64_t acc = 1;
    for (int i = d.rank - 1; i >= 0; --i) {
        if (d.lens[i] != 1 && d.strides[i] != acc) return false;
        acc *= d.lens[i];
    }
    return true;
}
// Element offset (through strides) of the element with row-major index `linear`.
MXC_HD inline int64_t mxc_offset_of(const mxc_desc& d, int64_t linear) {
    int64_t off = 0;
    for (int i = d.rank - 1; i >= 0; --i) {
        int64_t l = d.lens[i];
        off += (linear % l) * d.strides[i];
        linear /= l;
    }
    return off;
}
// Row-major multi-index of element `linear` of d's lens.
MXC_HD inline void mxc_unravel(const mxc_desc& d, int64_t linear, int64_t* idx) {
    for (int i = d.rank - 1; i >= 0; --i) {
        idx[i] = linear % d.lens[i];
        linear /= d.lens[i];
    }
}
