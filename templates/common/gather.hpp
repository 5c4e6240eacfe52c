// gather: data [d0..dr), indices (int32 or int64) -> y = data.lens[:axis] + indices.lens +
// data.lens[axis+1:]; ip = [axis, indices are int64 (1) or int32 (0)]. A negative index
// counts from the end; an index still out of range yields 0 (kernels cannot fail).
#pragma once
#include "templates/common/math.hpp"

template <class T>
MXC_HD inline T mxc_gather_at(const T* data, const mxc_desc& dd, const void* indices, const mxc_desc& id,
                              const mxc_desc& od, const int64_t* ip, int64_t o) {
    int64_t idx[MXC_MAX_RANK];
    mxc_unravel(od, o, idx);
    const int axis = static_cast<int>(ip[0]), q = id.rank;
    int64_t ioff = 0;
    for (int j = 0; j < q; ++j) ioff += idx[axis + j] * id.strides[j];
    int64_t v = ip[1] ? static_cast<const int64_t*>(indices)[ioff] : static_cast<const int32_t*>(indices)[ioff];
    if (v < 0) v += dd.lens[axis];
    if (v < 0 || v >= dd.lens[axis]) return T(mxc_compute_t<T>(0));
    int64_t off = v * dd.strides[axis];
    for (int d = 0; d < axis; ++d) off += idx[d] * dd.strides[d];
    for (int d = axis + 1; d < dd.rank; ++d) off += idx[d + q - 1] * dd.strides[d];
    return data[off];
}
