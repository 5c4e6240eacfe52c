// pad: x cropped (negative pads) then padded (positive pads) per axis, the new elements a
// constant, a reflection (without the edge), the edge value, or x wrapped around. Shared by
// the cpu and hip kernels; plain C++17, every function MXC_HD.
#pragma once
#include "templates/common/math.hpp"

// Modes: 0 constant, 1 reflect, 2 edge, 3 wrap.
// Maps position i (may be outside [0, n)) of an axis of length n >= 1 into it.
MXC_HD inline int64_t mxc_pad_source(int64_t i, int64_t n, int64_t mode) {
    if (i >= 0 && i < n) return i;
    if (mode == 2) return i < 0 ? 0 : n - 1;
    if (mode == 3) return ((i % n) + n) % n;
    if (n == 1) return 0; // reflect
    const int64_t period = 2 * (n - 1);
    i = ((i % period) + period) % period;
    return i < n ? i : period - i;
}

// pad at output element o. Inputs x, optional value (one element; 0 without it);
// ip = [mode, has value, start[r], len[r], before[r]]: axis d of the kept part of x is
// [start, start + len), and `before` new elements precede it.
template <class T>
MXC_HD inline T mxc_pad_at(const T* x, const mxc_desc& xd, const T* value, const mxc_desc& od, const int64_t* ip,
                           int64_t o) {
    int64_t idx[MXC_MAX_RANK];
    mxc_unravel(od, o, idx);
    const int r = od.rank;
    const int64_t mode = ip[0];
    const int64_t *start = ip + 2, *len = ip + 2 + r, *before = ip + 2 + 2 * r;
    int64_t off = 0;
    for (int d = 0; d < r; ++d) {
        int64_t i = idx[d] - before[d];
        if (i < 0 || i >= len[d]) {
            if (mode == 0) return ip[1] ? value[0] : T(mxc_compute_t<T>(0));
            i = mxc_pad_source(i, len[d], mode);
        }
        off += (start[d] + i) * xd.strides[d];
    }
    return x[off];
}
