// top_k: the order of elements along an axis (shared by the cpu and hip kernels) and the hip
// kernel's per-output selection of the j-th best element. Plain C++17, every function MXC_HD.
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

// top_k at output element o (the hip kernel; the cpu one sorts each slice): x along ip[0], the (idx[axis])-th element in rank order;
// ip = [axis, largest]. Walks the order from its first element (k steps of one pass each).
template <class T>
MXC_HD inline int64_t mxc_topk_at(const T* x, const mxc_desc& xd, const mxc_desc& od, const int64_t* ip, int64_t o) {
    using C = mxc_compute_t<T>;
    int64_t idx[MXC_MAX_RANK];
    mxc_unravel(od, o, idx);
    const int axis = static_cast<int>(ip[0]);
    const bool largest = ip[1] != 0;
    const int64_t rank = idx[axis], n = xd.lens[axis], step = xd.strides[axis];
    int64_t base = 0;
    for (int d = 0; d < xd.rank; ++d)
        if (d != axis) base += idx[d] * xd.strides[d];
    int64_t prev = -1;
    C pv = C(0);
    for (int64_t r = 0; r <= rank; ++r) {
        int64_t best = -1;
        C bv = C(0);
        for (int64_t i = 0; i < n; ++i) {
            C v = C(x[base + i * step]);
            if (prev >= 0 && !mxc_topk_before(pv, prev, v, i, largest)) continue; // already ranked
            if (best < 0 || mxc_topk_before(v, i, bv, best, largest)) {
                best = i;
                bv = v;
            }
        }
        prev = best;
        pv = bv;
    }
    return prev;
}
