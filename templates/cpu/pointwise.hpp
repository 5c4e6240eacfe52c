// Elementwise kernels: every input already has the output's lens (broadcasts are views with
// zero strides), so one loop serves all of them. The math is in templates/common/pointwise.hpp.
// No parameters except `convert`: ip = [source dtype index] (the order of mxc::dtype).
#pragma once
#include "templates/common/pointwise.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

template <class T, class F> inline void unary(const mxc_kargs& k, F f) {
    using C = compute_t<T>;
    const T* x = input<T>(k, 0);
    T* y = output<T>(k);
    for_each_element<1>(k, [&](int64_t e, const int64_t* off) { y[e] = T(f(C(x[off[0]]))); });
}

template <class T, class F> inline void binary(const mxc_kargs& k, F f) {
    using C = compute_t<T>;
    const T* a = input<T>(k, 0);
    const T* b = input<T>(k, 1);
    T* y = output<T>(k);
    for_each_element<2>(k, [&](int64_t e, const int64_t* off) { y[e] = T(f(C(a[off[0]]), C(b[off[1]]))); });
}

template <class T, class F> inline void ternary(const mxc_kargs& k, F f) {
    using C = compute_t<T>;
    const T* a = input<T>(k, 0);
    const T* b = input<T>(k, 1);
    const T* c = input<T>(k, 2);
    T* y = output<T>(k);
    for_each_element<3>(k, [&](int64_t e, const int64_t* off) {
        y[e] = T(f(C(a[off[0]]), C(b[off[1]]), C(c[off[2]])));
    });
}

template <class T> void relu(const mxc_kargs& k) { unary<T>(k, mxc_pw_relu{}); }
template <class T> void sigmoid(const mxc_kargs& k) { unary<T>(k, mxc_pw_sigmoid{}); }
template <class T> void tanh(const mxc_kargs& k) { unary<T>(k, mxc_pw_tanh{}); }
template <class T> void neg(const mxc_kargs& k) { unary<T>(k, mxc_pw_neg{}); }
template <class T> void abs(const mxc_kargs& k) { unary<T>(k, mxc_pw_abs{}); }
template <class T> void exp(const mxc_kargs& k) { unary<T>(k, mxc_pw_exp{}); }
template <class T> void log(const mxc_kargs& k) { unary<T>(k, mxc_pw_log{}); }
template <class T> void sqrt(const mxc_kargs& k) { unary<T>(k, mxc_pw_sqrt{}); }
template <class T> void erf(const mxc_kargs& k) { unary<T>(k, mxc_pw_erf{}); }
template <class T> void gelu(const mxc_kargs& k) { unary<T>(k, mxc_pw_gelu{}); }
template <class T> void gelu_tanh(const mxc_kargs& k) { unary<T>(k, mxc_pw_gelu_tanh{}); }
template <class T> void add(const mxc_kargs& k) { binary<T>(k, mxc_pw_add{}); }
template <class T> void sub(const mxc_kargs& k) { binary<T>(k, mxc_pw_sub{}); }
template <class T> void mul(const mxc_kargs& k) { binary<T>(k, mxc_pw_mul{}); }
template <class T> void div(const mxc_kargs& k) { binary<T>(k, mxc_pw_div{}); }
template <class T> void max(const mxc_kargs& k) { binary<T>(k, mxc_pw_max{}); }
template <class T> void min(const mxc_kargs& k) { binary<T>(k, mxc_pw_min{}); }
template <class T> void pow(const mxc_kargs& k) { binary<T>(k, mxc_pw_pow{}); }
template <class T> void clip(const mxc_kargs& k) { ternary<T>(k, mxc_pw_clip{}); }

// A packed copy of a (strided) view: bytes are copied as they are. A view that repeats each
// value along its last dim, a few times (nearest upsampling, YOLO's: [.., 20, 2, 20, 2] of a
// [.., 20, 20]), is walked over its other dims and each value stored that many times: the
// element walk's rows were its 2-long last dim (1.9 ns an element).
template <class T> void contiguous(const mxc_kargs& k) {
    const T* x = input<T>(k, 0);
    T* y = output<T>(k);
    const mxc_desc& xd = k.in_desc[0];
    const int last = xd.rank - 1;
    if (last >= 1 && xd.strides[last] == 0 && xd.lens[last] > 1 && xd.lens[last] <= 8) {
        const int64_t r = xd.lens[last], n = elements(xd) / r;
        const int64_t* strides[1] = {xd.strides};
        parallel_ranges(n, [&](int64_t b, int64_t e) {
            for_each_strided<1>(xd.lens, last, strides, [&](int64_t i, const int64_t* off) {
                const T v = x[off[0]];
                for (int64_t j = 0; j < r; ++j) y[i * r + j] = v;
            }, 1, b, e);
        }, elementwise_grain / r);
        return;
    }
    for_each_element<1>(k, [&](int64_t e, const int64_t* off) { y[e] = x[off[0]]; });
}

// y = x cast to T from S; ip = [source type, saturate, round_mode]. S = void (the reference
// tables): S is the source type ip[0] names, chosen at run time.
template <class T, class S = void> void convert(const mxc_kargs& k) {
    if constexpr (std::is_void<S>::value) {
        mxc_visit_dtype(static_cast<int>(k.ip[0]), [&](auto tag) { convert<T, decltype(tag)>(k); });
    } else {
        T* y = output<T>(k);
        const S* x = input<S>(k, 0);
        const bool saturate = k.ip[1] != 0;
        const int round_mode = static_cast<int>(k.ip[2]);
        for_each_element<1>(k, [&](int64_t e, const int64_t* off) { y[e] = mxc_cast<T>(x[off[0]], saturate, round_mode); });
    }
}

// y = the bits of x (of S) read as T (ONNX BitCast, types of equal width); ip = [source type].
// S = void: as for convert.
template <class T, class S = void> void bitcast(const mxc_kargs& k) {
    if constexpr (std::is_void<S>::value) {
        mxc_visit_dtype(static_cast<int>(k.ip[0]), [&](auto tag) { bitcast<T, decltype(tag)>(k); });
    } else {
        T* y = output<T>(k);
        const S* x = input<S>(k, 0);
        for_each_element<1>(k, [&](int64_t e, const int64_t* off) { y[e] = mxc_bitcast<T>(x[off[0]]); });
    }
}

} // namespace cpu
} // namespace mxc
