// Per-output-element math of arg_max / arg_min, cumulative (cumsum / cumprod) and
// gather_elements, shared by the cpu and hip kernels. Plain C++17, every function MXC_HD.
#pragma once
#include "templates/common/math.hpp"

// arg_max (want_max) / arg_min of x along ip[0] at output element o (whose axis index is 0);
// ip = [axis, select_last_index]. Ties give the first index, or the last if ip[1]; NaN wins.
template <class T>
MXC_HD inline int64_t mxc_arg_at(const T* x, const mxc_desc& xd, const mxc_desc& od, const int64_t* ip, int64_t o,
                                 bool want_max) {
    using C = mxc_compute_t<T>;
    int64_t idx[MXC_MAX_RANK];
    mxc_unravel(od, o, idx);
    const int axis = static_cast<int>(ip[0]);
    int64_t base = 0;
    for (int d = 0; d < xd.rank; ++d)
        if (d != axis) base += idx[d] * xd.strides[d];
    int64_t best = 0;
    C bv = C(x[base]);
    for (int64_t i = 1; i < xd.lens[axis]; ++i) {
        C v = C(x[base + i * xd.strides[axis]]);
        if (bv != bv) break; // NaN already chosen
        bool better = v != v || (want_max ? bv < v : v < bv) || (ip[1] && v == bv);
        if (better) {
            best = i;
            bv = v;
        }
    }
    return best;
}

// Running sum (or product if ip[3]) of x along ip[0] up to output element o;
// ip = [axis, exclusive, reverse, product].
template <class T>
MXC_HD inline T mxc_cumulative_at(const T* x, const mxc_desc& xd, const mxc_desc& od, const int64_t* ip, int64_t o) {
    using C = mxc_compute_t<T>;
    int64_t idx[MXC_MAX_RANK];
    mxc_unravel(od, o, idx);
    const int axis = static_cast<int>(ip[0]);
    const bool exclusive = ip[1] != 0, reverse = ip[2] != 0, product = ip[3] != 0;
    int64_t base = 0;
    for (int d = 0; d < xd.rank; ++d)
        if (d != axis) base += idx[d] * xd.strides[d];
    const int64_t n = xd.lens[axis], at = idx[axis];
    C acc = product ? C(1) : C(0);
    int64_t from = reverse ? at + (exclusive ? 1 : 0) : 0, to = reverse ? n : at + (exclusive ? 0 : 1);
    for (int64_t i = from; i < to; ++i) {
        C v = C(x[base + i * xd.strides[axis]]);
        acc = product ? C(acc * v) : C(acc + v);
    }
    return T(acc);
}

// gather_elements: y[i] = data[i with its axis index replaced by indices[i]]; ip = [axis,
// indices are int64 (1) or int32 (0)]. Negative indices count from the end; out of range: 0.
template <class T>
MXC_HD inline T mxc_gather_elements_at(const T* data, const mxc_desc& dd, const void* indices, const mxc_desc& id,
                                       const mxc_desc& od, const int64_t* ip, int64_t o) {
    int64_t idx[MXC_MAX_RANK];
    mxc_unravel(od, o, idx);
    const int axis = static_cast<int>(ip[0]);
    int64_t ioff = 0;
    for (int d = 0; d < id.rank; ++d) ioff += idx[d] * id.strides[d];
    int64_t v = ip[1] ? static_cast<const int64_t*>(indices)[ioff] : static_cast<const int32_t*>(indices)[ioff];
    if (v < 0) v += dd.lens[axis];
    if (v < 0 || v >= dd.lens[axis]) return T(mxc_compute_t<T>(0));
    idx[axis] = v;
    int64_t off = 0;
    for (int d = 0; d < dd.rank; ++d) off += idx[d] * dd.strides[d];
    return data[off];
}
