// scatter_elements, scatter_nd, gather_nd and tensor_scatter: packed y, one output element
// at a time (math and parameters: templates/common/scatter.hpp).
#pragma once
#include "templates/common/scatter.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

template <class T> void scatter_elements(const mxc_kargs& k) {
    T* y = output<T>(k);
    for_each_output(k, [&](int64_t o) {
        y[o] = mxc_scatter_elements_at(input<T>(k, 0), k.in_desc[0], k.in[1], k.in_desc[1], input<T>(k, 2), k.in_desc[2],
                                       k.ip, o);
    });
}

template <class T> void scatter_nd(const mxc_kargs& k) {
    T* y = output<T>(k);
    for_each_output(k, [&](int64_t o) {
        y[o] = mxc_scatter_nd_at(input<T>(k, 0), k.in_desc[0], k.in[1], k.in_desc[1], input<T>(k, 2), k.in_desc[2], k.ip, o);
    });
}

template <class T> void gather_nd(const mxc_kargs& k) {
    T* y = output<T>(k);
    for_each_output(k, [&](int64_t o) {
        y[o] = mxc_gather_nd_at(input<T>(k, 0), k.in_desc[0], k.in[1], k.in_desc[1], *k.out_desc, k.ip, o);
    });
}

template <class T> void tensor_scatter(const mxc_kargs& k) {
    T* y = output<T>(k);
    const int64_t* w = k.n_in > 2 ? input<int64_t>(k, 2) : nullptr;
    const mxc_desc& wd = k.in_desc[k.n_in > 2 ? 2 : 0];
    for_each_output(k, [&](int64_t o) {
        y[o] = mxc_tensor_scatter_at(input<T>(k, 0), k.in_desc[0], input<T>(k, 1), k.in_desc[1], w, wd, k.ip, o);
    });
}

} // namespace cpu
} // namespace mxc
