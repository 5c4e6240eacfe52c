// Math shared by the cpu and the hip kernels (and pasted into fused kernels): the compute
// type of an element type, math functions for float and double, lowest values, and index
// arithmetic over mxc_desc. Plain C++17; every function is MXC_HD.
#pragma once
#include "templates/common/abi.hpp"
#include "templates/common/types.hpp"

#include <math.h>
#include <stdint.h>
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

MXC_HD inline float mxc_exp(float x) { return expf(x); }
MXC_HD inline double mxc_exp(double x) { return exp(x); }
MXC_HD inline float mxc_log(float x) { return logf(x); }
MXC_HD inline double mxc_log(double x) { return log(x); }
MXC_HD inline float mxc_sqrt(float x) { return sqrtf(x); }
MXC_HD inline double mxc_sqrt(double x) { return sqrt(x); }
MXC_HD inline float mxc_tanh(float x) { return tanhf(x); }
MXC_HD inline double mxc_tanh(double x) { return tanh(x); }
MXC_HD inline float mxc_erf(float x) { return erff(x); }
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
