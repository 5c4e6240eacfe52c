// reduce_sum / reduce_mean / reduce_max / reduce_min: ip = the reduced axes (sorted); the
// packed output keeps them with length 1 (math: templates/common/reduce.hpp).
#pragma once
#include "templates/common/reduce.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

// The outputs in ranges over the pool, each range at least elementwise_grain inputs' worth.
// Where x is packed and the reduced axes are its last ones (a global pool, a mean over the
// last axis), output o reduces the run x[o * count ..] and nothing is located per output:
// MobileNetV2's global average pool (1280 planes of 7x7) spent most of its time unravelling
// output indices (four divisions each): alone, one thread, 0.049 -> 0.014 ms (with the
// 16 lanes of mxc_reduce_run; median of 2000 interleaved runs).
template <class T, int Kind> inline void reduce(const mxc_kargs& k) {
    const T* x = input<T>(k, 0);
    T* y = output<T>(k);
    const mxc_desc& xd = k.in_desc[0];
    const int64_t count = mxc_reduce_count(xd, k.ip, k.n_ip);
    bool trailing = k.n_ip <= xd.rank && mxc_is_packed(xd);
    for (int j = 0; j < k.n_ip && trailing; ++j) trailing = k.ip[j] == xd.rank - k.n_ip + j;
    parallel_ranges(
        elements(*k.out_desc),
        [&](int64_t begin, int64_t end) {
            if (trailing)
                for (int64_t o = begin; o < end; ++o) y[o] = T(mxc_reduce_run<T, Kind>(x + o * count, count));
            else
                for (int64_t o = begin; o < end; ++o) y[o] = T(mxc_reduce_at<T, Kind>(x, xd, *k.out_desc, k.ip, k.n_ip, o));
        },
        count > 1 ? (elementwise_grain + count - 1) / count : elementwise_grain);
}

template <class T> void reduce_sum(const mxc_kargs& k) { reduce<T, mxc_reduce_sum>(k); }
template <class T> void reduce_mean(const mxc_kargs& k) { reduce<T, mxc_reduce_mean>(k); }
template <class T> void reduce_max(const mxc_kargs& k) { reduce<T, mxc_reduce_max>(k); }
template <class T> void reduce_min(const mxc_kargs& k) { reduce<T, mxc_reduce_min>(k); }
template <class T> void reduce_prod(const mxc_kargs& k) { reduce<T, mxc_reduce_prod>(k); }

} // namespace cpu
} // namespace mxc
