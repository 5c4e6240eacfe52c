// reduce_sum / reduce_mean / reduce_max / reduce_min / reduce_prod over the axes ip[0..n_ip) (sorted);
// the output keeps the reduced axes with length 1. An empty reduction gives 0 for sum and
// mean, 1 for prod, and the lowest / highest value for max / min.
#pragma once
#include "templates/common/math.hpp"

enum mxc_reduce_kind { mxc_reduce_sum, mxc_reduce_mean, mxc_reduce_max, mxc_reduce_min, mxc_reduce_prod };

template <class T, int Kind>
MXC_HD inline mxc_compute_t<T> mxc_reduce_at(const T* x, const mxc_desc& xd, const mxc_desc& od, const int64_t* axes,
                                             int n_axes, int64_t o) {
    using C = mxc_compute_t<T>;
    int64_t idx[MXC_MAX_RANK];
    mxc_unravel(od, o, idx);
    int64_t base = 0;
    for (int d = 0; d < xd.rank; ++d) base += idx[d] * xd.strides[d];
    int64_t count = 1;
    for (int j = 0; j < n_axes; ++j) count *= xd.lens[axes[j]];
    C acc = Kind == mxc_reduce_max ? mxc_lowest<C>() : Kind == mxc_reduce_min ? mxc_highest<C>()
          : Kind == mxc_reduce_prod ? C(1) : C(0);
    for (int64_t r = 0; r < count; ++r) {
        int64_t off = 0, rest = r;
        for (int j = n_axes - 1; j >= 0; --j) {
            const int64_t l = xd.lens[axes[j]];
            off += (rest % l) * xd.strides[axes[j]];
            rest /= l;
        }
        const C v = C(x[base + off]);
        if constexpr (Kind == mxc_reduce_max) acc = acc < v ? v : acc;
        else if constexpr (Kind == mxc_reduce_min) acc = v < acc ? v : acc;
        else if constexpr (Kind == mxc_reduce_prod) acc *= v;
        else acc += v;
    }
    if constexpr (Kind == mxc_reduce_mean) return count > 0 ? C(acc / C(count)) : C(0);
    return acc;
}
