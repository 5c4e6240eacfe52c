// top_k: x -> packed int64 indices of the k best elements along an axis, in rank order. Per
// slice a partial sort by the shared order mxc_topk_before (templates/common/topk.hpp, where
// the hip kernel's per-element ranking lives too); ip = [axis, largest].
#pragma once
#include "templates/common/topk.hpp"
#include "templates/cpu/common.hpp"

#include <algorithm>
#include <vector>

namespace mxc {
namespace cpu {

template <class T> void top_k(const mxc_kargs& k) {
    using C = compute_t<T>;
    int64_t* y = output<int64_t>(k);
    const T* x = input<T>(k, 0);
    const mxc_desc &xd = k.in_desc[0], &od = *k.out_desc;
    const int axis = static_cast<int>(k.ip[0]);
    const bool largest = k.ip[1] != 0;
    const int64_t n = xd.lens[axis], kk = od.lens[axis];
    int64_t inner = 1;
    for (int d = axis + 1; d < od.rank; ++d) inner *= od.lens[d];
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::vector<C> v(static_cast<size_t>(n));
    int64_t idx[MXC_MAX_RANK] = {}; // (filled by mxc_unravel: the rank is at least 1)
    for (int64_t o = 0; o < elements(od); ++o) {
        mxc_unravel(od, o, idx);
        if (idx[axis] != 0) continue; // one slice per output element at rank 0
        int64_t base = 0;
        for (int d = 0; d < xd.rank; ++d) base += idx[d] * xd.strides[d];
        for (int64_t i = 0; i < n; ++i) {
            order[static_cast<size_t>(i)] = i;
            v[static_cast<size_t>(i)] = C(x[base + i * xd.strides[axis]]);
        }
        std::partial_sort(order.begin(), order.begin() + kk, order.end(), [&](int64_t a, int64_t b) {
            return mxc_topk_before(v[static_cast<size_t>(a)], a, v[static_cast<size_t>(b)], b, largest);
        });
        for (int64_t j = 0; j < kk; ++j) y[o + j * inner] = order[static_cast<size_t>(j)];
    }
}

} // namespace cpu
} // namespace mxc
