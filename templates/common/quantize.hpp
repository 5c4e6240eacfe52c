// quantize_linear: x / scale in the compute type of x and scale (float for float/half/bf16,
// double for double), then by the output type T:
//  - integers (8 to 32 bits, and the 4-/2-bit mxc_subbyte_int): rounded half to even, plus
//    the zero point, saturated to T's range; a NaN quotient gives the zero point;
//  - float8 / float4e2m1: x / scale + zero_point rounded to nearest even into T; values out of
//    range clamp to +-max with `saturate`, else become inf / NaN as the ONNX Cast spec says
//    (float4e2m1 always clamps). A zero zero point adds nothing (-0 stays -0).
#pragma once
#include "templates/common/elementwise.hpp"

#include <type_traits>

// Whether S is one of the floating element types quantize_linear takes as input.
template <class S> struct mxc_is_float_elem {
    static constexpr bool value =
        std::is_floating_point<S>::value || std::is_same<S, mxc_half>::value || std::is_same<S, mxc_bf16>::value;
};

// The saturation range of an integer output type.
template <class T> struct mxc_quant_range {
    MXC_HD static double lo() { return double(mxc_lowest<T>()); }
    MXC_HD static double hi() { return double(mxc_highest<T>()); }
};
template <int B, bool S> struct mxc_quant_range<mxc_subbyte_int<B, S>> {
    MXC_HD static double lo() { return S ? -double(1 << (B - 1)) : 0.0; }
    MXC_HD static double hi() { return S ? double((1 << (B - 1)) - 1) : double((1 << B) - 1); }
};

template <class T, class C> MXC_HD inline T mxc_quantize(C x, C scale, T zero_point, bool saturate) {
    const C q = C(x / scale);
    if constexpr (mxc_takes_cast_mode<T>::value) {
        const float z = float(zero_point);
        const float v = z != 0.0f ? float(q) + z : float(q);
        return T::from_float(v, saturate, mxc_round_nearest);
    } else {
        const C r = mxc_rint(q);
        if (r != r) return zero_point;
        const double v = double(r) + double(mxc_compute_t<T>(zero_point));
        const double lo = mxc_quant_range<T>::lo(), hi = mxc_quant_range<T>::hi();
        return T(v < lo ? lo : (v > hi ? hi : v));
    }
}
