// top_k: the order of elements along an axis (shared by the cpu and hip kernels) and the hip
// kernel's rank of one element in its slice. Plain C++17, every function MXC_HD.
#pragma once
#include "templates/common/math.hpp"

// Whether (a, ia) ranks before (b, ib): larger (or smaller) values first, NaN counted as the
// largest value, ties by the lower index. A strict total order.
template <class C> MXC_HD inline bool mxc_topk_before(C a, int64_t ia, C b, int64_t ib, bool largest) {
    const bool na = a != a, nb = b != b;
    if (na || nb) return na != nb ? (largest ? na : nb) : ia < ib;
    if (a == b) return ia < ib;
    return largest ? b < a : a < b;
}

// The rank (0 = best) of element e (row-major over x's lens) among the elements of its slice
// along ip[0]; ip = [axis, largest]. The hip kernel runs it once per element of x and writes
// the element's index to output position rank when rank < k (ranks are distinct).
template <class T>
MXC_HD inline int64_t mxc_topk_rank(const T* x, const mxc_desc& xd, const int64_t* ip, int64_t e, int64_t* idx) {
    using C = mxc_compute_t<T>;
    mxc_unravel(xd, e, idx);
    const int axis = static_cast<int>(ip[0]);
    const bool largest = ip[1] != 0;
    const int64_t me = idx[axis], step = xd.strides[axis];
    int64_t base = 0;
    for (int d = 0; d < xd.rank; ++d)
        if (d != axis) base += idx[d] * xd.strides[d];
    const C v = C(x[base + me * step]);
    int64_t rank = 0;
    for (int64_t i = 0; i < xd.lens[axis]; ++i)
        if (mxc_topk_before(C(x[base + i * step]), i, v, me, largest)) ++rank;
    return rank;
}
