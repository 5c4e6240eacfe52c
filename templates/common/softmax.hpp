// softmax / log_softmax along axis ip[0], one row (all elements along the axis) at a time,
// numerically stable (the row maximum is subtracted first). A row that is all -inf (a fully
// masked attention row) gives 0 (log_softmax: -inf) instead of NaN.
#pragma once
#include "templates/common/math.hpp"

// Number of rows: elements / lens[axis].
MXC_HD inline int64_t mxc_softmax_rows(const mxc_desc& od, int64_t axis) {
    return od.lens[axis] == 0 ? 0 : mxc_elements(od) / od.lens[axis];
}

template <class T, bool Log>
MXC_HD inline void mxc_softmax_row(const T* x, const mxc_desc& xd, T* y, const mxc_desc& od, int64_t axis, int64_t row) {
    using C = mxc_compute_t<T>;
    const int64_t len = od.lens[axis];
    int64_t inner = 1;
    for (int d = static_cast<int>(axis) + 1; d < od.rank; ++d) inner *= od.lens[d];
    const int64_t ybase = (row / inner) * len * inner + row % inner; // element with axis index 0
    const int64_t xbase = mxc_offset_of(xd, ybase), xs = xd.strides[axis];
    C m = mxc_lowest<C>();
    for (int64_t i = 0; i < len; ++i) {
        const C v = C(x[xbase + i * xs]);
        m = (m < v || v != v) ? v : m; // NaN propagates
    }
    if (m == mxc_lowest<C>()) { // every element is -inf (a fully masked attention row): softmax 0, log -inf
        for (int64_t i = 0; i < len; ++i) y[ybase + i * inner] = T(Log ? mxc_lowest<C>() : C(0));
        return;
    }
    C sum = C(0);
    for (int64_t i = 0; i < len; ++i) sum += mxc_exp(C(C(x[xbase + i * xs]) - m));
    const C log_sum = mxc_log(sum);
    for (int64_t i = 0; i < len; ++i) {
        const C v = C(C(x[xbase + i * xs]) - m);
        y[ybase + i * inner] = T(Log ? C(v - log_sum) : C(mxc_exp(v) / sum));
    }
}
