// Elementwise hip kernels of ir/ops/elementwise.cpp: one thread per output element; the math
// is in templates/common/elementwise.hpp. Comparisons read T and write bool; `where` reads a
// bool condition and two T values.
#pragma once
#include "templates/common/elementwise.hpp"
#include "templates/hip/pointwise.hpp"

namespace mxc {
namespace hip {

template <class T, class F> struct compare_elem {
    F f;
    __device__ void operator()(const dev_args& a, int64_t i) const {
        using C = mxc_compute_t<T>;
        C x = C(in_ptr<T>(a, 0)[mxc_offset_of(a.in_desc[0], i)]);
        C y = C(in_ptr<T>(a, 1)[mxc_offset_of(a.in_desc[1], i)]);
        out_ptr<bool>(a)[i] = f(x, y);
    }
};
template <class T, class F> inline void compare(const mxc_kargs& k, hipStream_t s, F f) {
    launch_per_output(k, s, compare_elem<T, F>{f});
}

template <class T> void sin(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_sin{}); }
template <class T> void cos(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_cos{}); }
template <class T> void tan(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_tan{}); }
template <class T> void asin(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_asin{}); }
template <class T> void acos(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_acos{}); }
template <class T> void atan(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_atan{}); }
template <class T> void sinh(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_sinh{}); }
template <class T> void cosh(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_cosh{}); }
template <class T> void asinh(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_asinh{}); }
template <class T> void acosh(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_acosh{}); }
template <class T> void atanh(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_atanh{}); }
template <class T> void ceil(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_ceil{}); }
template <class T> void floor(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_floor{}); }
template <class T> void round(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_round{}); }
template <class T> void reciprocal(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_reciprocal{}); }
template <class T> void sign(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_sign{}); }
template <class T> void softplus(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_softplus{}); }
template <class T> void softsign(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_softsign{}); }
template <class T> void bitwise_not(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_bitwise_not{}); }
template <class T> void mod(const mxc_kargs& k, hipStream_t s) { pointwise<T, 2>(k, s, mxc_pw_mod{}); }
template <class T> void fmod(const mxc_kargs& k, hipStream_t s) { pointwise<T, 2>(k, s, mxc_pw_fmod{}); }
template <class T> void bitwise_and(const mxc_kargs& k, hipStream_t s) { pointwise<T, 2>(k, s, mxc_pw_bitwise_and{}); }
template <class T> void bitwise_or(const mxc_kargs& k, hipStream_t s) { pointwise<T, 2>(k, s, mxc_pw_bitwise_or{}); }
template <class T> void bitwise_xor(const mxc_kargs& k, hipStream_t s) { pointwise<T, 2>(k, s, mxc_pw_bitwise_xor{}); }
template <class T> void shift_left(const mxc_kargs& k, hipStream_t s) { pointwise<T, 2>(k, s, mxc_pw_shift_left{}); }
template <class T> void shift_right(const mxc_kargs& k, hipStream_t s) { pointwise<T, 2>(k, s, mxc_pw_shift_right{}); }

template <class T> void equal(const mxc_kargs& k, hipStream_t s) { compare<T>(k, s, mxc_cmp_equal{}); }
template <class T> void less(const mxc_kargs& k, hipStream_t s) { compare<T>(k, s, mxc_cmp_less{}); }
template <class T> void greater(const mxc_kargs& k, hipStream_t s) { compare<T>(k, s, mxc_cmp_greater{}); }
template <class T> void less_or_equal(const mxc_kargs& k, hipStream_t s) { compare<T>(k, s, mxc_cmp_less_or_equal{}); }
template <class T> void greater_or_equal(const mxc_kargs& k, hipStream_t s) { compare<T>(k, s, mxc_cmp_greater_or_equal{}); }

template <class T> struct where_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        bool c = in_ptr<bool>(a, 0)[mxc_offset_of(a.in_desc[0], i)];
        out_ptr<T>(a)[i] = c ? in_ptr<T>(a, 1)[mxc_offset_of(a.in_desc[1], i)] : in_ptr<T>(a, 2)[mxc_offset_of(a.in_desc[2], i)];
    }
};
// y = cond ? a : b; inputs cond (bool), a, b (T).
template <class T> void where(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, where_elem<T>{}); }

} // namespace hip
} // namespace mxc
