// scatter_elements and scatter_nd: packed y = data, then the updates applied in order (linear
// time); gather_nd and tensor_scatter: one output element at a time (math and parameters:
// templates/common/scatter.hpp).
#pragma once
#include "templates/common/scatter.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

template <class T> inline void copy_data(const mxc_kargs& k) {
    T* y = output<T>(k);
    const T* data = input<T>(k, 0);
    for_each_output(k, [&](int64_t o) { y[o] = data[offset_of(k.in_desc[0], o)]; });
}

template <class T> void scatter_elements(const mxc_kargs& k) {
    copy_data<T>(k);
    T* y = output<T>(k);
    const T* upd = input<T>(k, 2);
    const int64_t n = elements(k.in_desc[1]);
    for (int64_t j = 0; j < n; ++j) {
        const int64_t at = mxc_scatter_elements_target(k.in_desc[0], k.in[1], k.in_desc[1], k.ip, j);
        if (at >= 0) y[at] = mxc_scatter_combine(y[at], upd[offset_of(k.in_desc[2], j)], k.ip[2]);
    }
}

template <class T> void scatter_nd(const mxc_kargs& k) {
    copy_data<T>(k);
    T* y = output<T>(k);
    const T* upd = input<T>(k, 2);
    const mxc_desc& id = k.in_desc[1];
    int64_t tuples = 1, slice = 1;
    for (int d = 0; d < id.rank - 1; ++d) tuples *= id.lens[d];
    for (int d = static_cast<int>(id.lens[id.rank - 1]); d < k.in_desc[0].rank; ++d) slice *= k.in_desc[0].lens[d];
    for (int64_t t = 0; t < tuples; ++t) {
        const int64_t at = mxc_scatter_nd_target(k.in_desc[0], k.in[1], id, k.ip, t);
        if (at < 0) continue;
        for (int64_t e = 0; e < slice; ++e)
            y[at + e] = mxc_scatter_combine(y[at + e], upd[offset_of(k.in_desc[2], t * slice + e)], k.ip[1]);
    }
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
