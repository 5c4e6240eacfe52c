// quantize_linear: y = saturate(round_half_to_even(x / scale) + zero_point), the division in
// the compute type of x and scale (float for float/half/bf16, double for double). Integer
// outputs saturate to the type's range; a NaN quotient gives the zero point.
#pragma once
#include "templates/common/elementwise.hpp"

#include <type_traits>

// Whether S is one of the floating element types (the inputs quantize_linear accepts).
template <class S> struct mxc_is_float_elem {
    static constexpr bool value =
        std::is_floating_point<S>::value || std::is_same<S, mxc_half>::value || std::is_same<S, mxc_bf16>::value;
};

template <class T, class C> MXC_HD inline T mxc_quantize(C x, C scale, T zero_point) {
    const C q = mxc_rint(C(x / scale));
    if (q != q) return zero_point;
    const double v = double(q) + double(zero_point);
    const double lo = double(mxc_lowest<T>()), hi = double(mxc_highest<T>());
    return T(v < lo ? lo : (v > hi ? hi : v));
}
