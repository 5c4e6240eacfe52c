// class_select: x [N, C, d...], target [N, d...] (int32/int64) -> y [N, d...] with
// y[n, d...] = x[n, target[n, d...], d...], or 0 where target == ignore_index (when
// has_ignore) or the class is out of range (kernels cannot fail).
// ip = [ignore_index, has_ignore, target is int64 (1) or int32 (0)].
#pragma once
#include "templates/common/math.hpp"

template <class T>
MXC_HD inline T mxc_class_select_at(const T* x, const mxc_desc& xd, const void* target, const mxc_desc& td,
                                    const mxc_desc& od, const int64_t* ip, int64_t o) {
    int64_t idx[MXC_MAX_RANK];
    mxc_unravel(od, o, idx);
    int64_t toff = 0;
    for (int d = 0; d < td.rank; ++d) toff += idx[d] * td.strides[d];
    const int64_t t = ip[2] ? static_cast<const int64_t*>(target)[toff] : static_cast<const int32_t*>(target)[toff];
    if ((ip[1] && t == ip[0]) || t < 0 || t >= xd.lens[1]) return T(mxc_compute_t<T>(0));
    int64_t off = idx[0] * xd.strides[0] + t * xd.strides[1];
    for (int d = 2; d < xd.rank; ++d) off += idx[d - 1] * xd.strides[d];
    return x[off];
}
