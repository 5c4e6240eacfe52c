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

template <class T> void sin(const mxc_kargs& k) { unary<T>(k, mxc_pw_sin{}); }
template <class T> void cos(const mxc_kargs& k) { unary<T>(k, mxc_pw_cos{}); }
template <class T> void tan(const mxc_kargs& k) { unary<T>(k, mxc_pw_tan{}); }
template <class T> void asin(const mxc_kargs& k) { unary<T>(k, mxc_pw_asin{}); }
template <class T> void acos(const mxc_kargs& k) { unary<T>(k, mxc_pw_acos{}); }
template <class T> void atan(const mxc_kargs& k) { unary<T>(k, mxc_pw_atan{}); }
template <class T> void sinh(const mxc_kargs& k) { unary<T>(k, mxc_pw_sinh{}); }
template <class T> void cosh(const mxc_kargs& k) { unary<T>(k, mxc_pw_cosh{}); }
template <class T> void asinh(const mxc_kargs& k) { unary<T>(k, mxc_pw_asinh{}); }
template <class T> void acosh(const mxc_kargs& k) { unary<T>(k, mxc_pw_acosh{}); }
template <class T> void atanh(const mxc_kargs& k) { unary<T>(k, mxc_pw_atanh{}); }
template <class T> void ceil(const mxc_kargs& k) { unary<T>(k, mxc_pw_ceil{}); }
template <class T> void floor(const mxc_kargs& k) { unary<T>(k, mxc_pw_floor{}); }
template <class T> void round(const mxc_kargs& k) { unary<T>(k, mxc_pw_round{}); }
template <class T> void reciprocal(const mxc_kargs& k) { unary<T>(k, mxc_pw_reciprocal{}); }
template <class T> void sign(const mxc_kargs& k) { unary<T>(k, mxc_pw_sign{}); }
template <class T> void softplus(const mxc_kargs& k) { unary<T>(k, mxc_pw_softplus{}); }
template <class T> void softsign(const mxc_kargs& k) { unary<T>(k, mxc_pw_softsign{}); }
template <class T> void bitwise_not(const mxc_kargs& k) { unary<T>(k, mxc_pw_bitwise_not{}); }
template <class T> void mod(const mxc_kargs& k) { binary<T>(k, mxc_pw_mod{}); }
template <class T> void fmod(const mxc_kargs& k) { binary<T>(k, mxc_pw_fmod{}); }
template <class T> void bitwise_and(const mxc_kargs& k) { binary<T>(k, mxc_pw_bitwise_and{}); }
template <class T> void bitwise_or(const mxc_kargs& k) { binary<T>(k, mxc_pw_bitwise_or{}); }
template <class T> void bitwise_xor(const mxc_kargs& k) { binary<T>(k, mxc_pw_bitwise_xor{}); }
template <class T> void shift_left(const mxc_kargs& k) { binary<T>(k, mxc_pw_shift_left{}); }
template <class T> void shift_right(const mxc_kargs& k) { binary<T>(k, mxc_pw_shift_right{}); }
template <class T> void equal(const mxc_kargs& k) { compare<T>(k, mxc_cmp_equal{}); }
template <class T> void less(const mxc_kargs& k) { compare<T>(k, mxc_cmp_less{}); }
template <class T> void greater(const mxc_kargs& k) { compare<T>(k, mxc_cmp_greater{}); }
template <class T> void less_or_equal(const mxc_kargs& k) { compare<T>(k, mxc_cmp_less_or_equal{}); }
template <class T> void greater_or_equal(const mxc_kargs& k) { compare<T>(k, mxc_cmp_greater_or_equal{}); }

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
