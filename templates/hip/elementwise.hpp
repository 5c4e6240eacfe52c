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

#define MXC_EW_HIP(name, n, functor) \
    template <class T> void name(const mxc_kargs& k, hipStream_t s) { pointwise<T, n>(k, s, functor{}); }
MXC_EW_HIP(sin, 1, mxc_pw_sin)
MXC_EW_HIP(cos, 1, mxc_pw_cos)
MXC_EW_HIP(tan, 1, mxc_pw_tan)
MXC_EW_HIP(asin, 1, mxc_pw_asin)
MXC_EW_HIP(acos, 1, mxc_pw_acos)
MXC_EW_HIP(atan, 1, mxc_pw_atan)
MXC_EW_HIP(sinh, 1, mxc_pw_sinh)
MXC_EW_HIP(cosh, 1, mxc_pw_cosh)
MXC_EW_HIP(asinh, 1, mxc_pw_asinh)
MXC_EW_HIP(acosh, 1, mxc_pw_acosh)
MXC_EW_HIP(atanh, 1, mxc_pw_atanh)
MXC_EW_HIP(ceil, 1, mxc_pw_ceil)
MXC_EW_HIP(floor, 1, mxc_pw_floor)
MXC_EW_HIP(round, 1, mxc_pw_round)
MXC_EW_HIP(reciprocal, 1, mxc_pw_reciprocal)
MXC_EW_HIP(sign, 1, mxc_pw_sign)
MXC_EW_HIP(softplus, 1, mxc_pw_softplus)
MXC_EW_HIP(softsign, 1, mxc_pw_softsign)
MXC_EW_HIP(bitwise_not, 1, mxc_pw_bitwise_not)
MXC_EW_HIP(mod, 2, mxc_pw_mod)
MXC_EW_HIP(fmod, 2, mxc_pw_fmod)
MXC_EW_HIP(bitwise_and, 2, mxc_pw_bitwise_and)
MXC_EW_HIP(bitwise_or, 2, mxc_pw_bitwise_or)
MXC_EW_HIP(bitwise_xor, 2, mxc_pw_bitwise_xor)
MXC_EW_HIP(shift_left, 2, mxc_pw_shift_left)
MXC_EW_HIP(shift_right, 2, mxc_pw_shift_right)
#undef MXC_EW_HIP

#define MXC_EW_HIP_CMP(name, functor) \
    template <class T> void name(const mxc_kargs& k, hipStream_t s) { compare<T>(k, s, functor{}); }
MXC_EW_HIP_CMP(equal, mxc_cmp_equal)
MXC_EW_HIP_CMP(less, mxc_cmp_less)
MXC_EW_HIP_CMP(greater, mxc_cmp_greater)
MXC_EW_HIP_CMP(less_or_equal, mxc_cmp_less_or_equal)
MXC_EW_HIP_CMP(greater_or_equal, mxc_cmp_greater_or_equal)
#undef MXC_EW_HIP_CMP

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
