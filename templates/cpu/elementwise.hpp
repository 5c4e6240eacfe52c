// Elementwise kernels of ir/ops/elementwise.cpp (the math: templates/common/elementwise.hpp).
// Inputs already have the output's lens (broadcasts are views). Comparisons read T and write
// bool; `where` reads a bool condition and two T values. No parameters.
#pragma once
#include "templates/common/elementwise.hpp"
#include "templates/cpu/pointwise.hpp"

namespace mxc {
namespace cpu {

template <class T, class F> inline void compare(const mxc_kargs& k, F f) {
    using C = compute_t<T>;
    const T* a = input<T>(k, 0);
    const T* b = input<T>(k, 1);
    bool* y = output<bool>(k);
    for_each_element<2>(k, [&](int64_t e, const int64_t* off) { y[e] = f(C(a[off[0]]), C(b[off[1]])); });
}

#define MXC_EW_CPU(name, kind, functor) \
    template <class T> void name(const mxc_kargs& k) { kind<T>(k, functor{}); }
MXC_EW_CPU(sin, unary, mxc_pw_sin)
MXC_EW_CPU(cos, unary, mxc_pw_cos)
MXC_EW_CPU(tan, unary, mxc_pw_tan)
MXC_EW_CPU(asin, unary, mxc_pw_asin)
MXC_EW_CPU(acos, unary, mxc_pw_acos)
MXC_EW_CPU(atan, unary, mxc_pw_atan)
MXC_EW_CPU(sinh, unary, mxc_pw_sinh)
MXC_EW_CPU(cosh, unary, mxc_pw_cosh)
MXC_EW_CPU(asinh, unary, mxc_pw_asinh)
MXC_EW_CPU(acosh, unary, mxc_pw_acosh)
MXC_EW_CPU(atanh, unary, mxc_pw_atanh)
MXC_EW_CPU(ceil, unary, mxc_pw_ceil)
MXC_EW_CPU(floor, unary, mxc_pw_floor)
MXC_EW_CPU(round, unary, mxc_pw_round)
MXC_EW_CPU(reciprocal, unary, mxc_pw_reciprocal)
MXC_EW_CPU(sign, unary, mxc_pw_sign)
MXC_EW_CPU(softplus, unary, mxc_pw_softplus)
MXC_EW_CPU(softsign, unary, mxc_pw_softsign)
MXC_EW_CPU(bitwise_not, unary, mxc_pw_bitwise_not)
MXC_EW_CPU(mod, binary, mxc_pw_mod)
MXC_EW_CPU(fmod, binary, mxc_pw_fmod)
MXC_EW_CPU(bitwise_and, binary, mxc_pw_bitwise_and)
MXC_EW_CPU(bitwise_or, binary, mxc_pw_bitwise_or)
MXC_EW_CPU(bitwise_xor, binary, mxc_pw_bitwise_xor)
MXC_EW_CPU(shift_left, binary, mxc_pw_shift_left)
MXC_EW_CPU(shift_right, binary, mxc_pw_shift_right)
MXC_EW_CPU(equal, compare, mxc_cmp_equal)
MXC_EW_CPU(less, compare, mxc_cmp_less)
MXC_EW_CPU(greater, compare, mxc_cmp_greater)
MXC_EW_CPU(less_or_equal, compare, mxc_cmp_less_or_equal)
MXC_EW_CPU(greater_or_equal, compare, mxc_cmp_greater_or_equal)
#undef MXC_EW_CPU

// y = cond ? a : b; inputs cond (bool), a, b (T).
template <class T> void where(const mxc_kargs& k) {
    const bool* c = input<bool>(k, 0);
    const T* a = input<T>(k, 1);
    const T* b = input<T>(k, 2);
    T* y = output<T>(k);
    for_each_element<3>(k, [&](int64_t e, const int64_t* off) { y[e] = c[off[0]] ? a[off[1]] : b[off[2]]; });
}

} // namespace cpu
} // namespace mxc
