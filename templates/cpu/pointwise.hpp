// Elementwise kernels: every input already has the output's lens (broadcasts are views with
// zero strides), so one loop serves all of them.
#pragma once
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

template <class T> void relu(const mxc_kargs& k) {
    unary<T>(k, [](compute_t<T> x) { return x > compute_t<T>(0) ? x : compute_t<T>(0); });
}
template <class T> void add(const mxc_kargs& k) {
    binary<T>(k, [](compute_t<T> a, compute_t<T> b) { return a + b; });
}

} // namespace cpu
} // namespace mxc
