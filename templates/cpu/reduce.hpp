// reduce_sum / reduce_mean / reduce_max / reduce_min: ip = the reduced axes (sorted); the
// packed output keeps them with length 1 (math: templates/common/reduce.hpp).
#pragma once
#include "templates/common/reduce.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

template <class T, int Kind> inline void reduce(const mxc_kargs& k) {
    const T* x = input<T>(k, 0);
    T* y = output<T>(k);
    for_each_output(k, [&](int64_t o) { y[o] = T(mxc_reduce_at<T, Kind>(x, k.in_desc[0], *k.out_desc, k.ip, k.n_ip, o)); });
}

template <class T> void reduce_sum(const mxc_kargs& k) { reduce<T, mxc_reduce_sum>(k); }
template <class T> void reduce_mean(const mxc_kargs& k) { reduce<T, mxc_reduce_mean>(k); }
template <class T> void reduce_max(const mxc_kargs& k) { reduce<T, mxc_reduce_max>(k); }
template <class T> void reduce_min(const mxc_kargs& k) { reduce<T, mxc_reduce_min>(k); }
template <class T> void reduce_prod(const mxc_kargs& k) { reduce<T, mxc_reduce_prod>(k); }

} // namespace cpu
} // namespace mxc
