// arg_max / arg_min (-> int64), cumulative and gather_elements cpu kernels: one call per
// output element of the math in templates/common/tensor_ops.hpp (parameters documented there).
#pragma once
#include "templates/common/tensor_ops.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

template <class T> void arg_max(const mxc_kargs& k) {
    int64_t* y = output<int64_t>(k);
    for_each_output(k, [&](int64_t o) { y[o] = mxc_arg_at(input<T>(k, 0), k.in_desc[0], *k.out_desc, k.ip, o, true); });
}
template <class T> void arg_min(const mxc_kargs& k) {
    int64_t* y = output<int64_t>(k);
    for_each_output(k, [&](int64_t o) { y[o] = mxc_arg_at(input<T>(k, 0), k.in_desc[0], *k.out_desc, k.ip, o, false); });
}
template <class T> void cumulative(const mxc_kargs& k) {
    T* y = output<T>(k);
    for_each_output(k, [&](int64_t o) { y[o] = mxc_cumulative_at(input<T>(k, 0), k.in_desc[0], *k.out_desc, k.ip, o); });
}
template <class T> void gather_elements(const mxc_kargs& k) {
    T* y = output<T>(k);
    for_each_output(k, [&](int64_t o) {
        y[o] = mxc_gather_elements_at(input<T>(k, 0), k.in_desc[0], k.in[1], k.in_desc[1], *k.out_desc, k.ip, o);
    });
}

} // namespace cpu
} // namespace mxc
