// softmax / log_softmax along axis ip[0], one row (all elements along the axis) at a time,
// numerically stable (the row maximum is subtracted first). A row that is all -inf (a fully
// masked attention row) gives 0 (log_softmax: -inf) instead of NaN. The row is shared by a
// team of lanes (templates/common/team.hpp); max and sum are kept in the compute type
// (fp32 for half types).
#pragma once
#include "templates/common/math.hpp"
#include "templates/common/team.hpp"

// Number of rows: elements / lens[axis].
MXC_HD inline int64_t mxc_softmax_rows(const mxc_desc& od, int64_t axis) {
    return od.lens[axis] == 0 ? 0 : mxc_elements(od) / od.lens[axis];
}

// Elements after the axis (the output stride of the axis): 1 when rows are contiguous.
MXC_HD inline int64_t mxc_softmax_inner(const mxc_desc& od, int64_t axis) {
    int64_t inner = 1;
    for (int d = static_cast<int>(axis) + 1; d < od.rank; ++d) inner *= od.lens[d];
    return inner;
}

template <class T, bool Log, class Team = mxc_serial_team>
MXC_HD inline void mxc_softmax_row(const T* x, const mxc_desc& xd, T* y, const mxc_desc& od, int64_t axis, int64_t row,
                                   const Team& t = Team{}) {
    using C = mxc_compute_t<T>;
    const int64_t len = od.lens[axis], inner = mxc_softmax_inner(od, axis);
    const int64_t ybase = (row / inner) * len * inner + row % inner; // element with axis index 0
    const int64_t xbase = mxc_offset_of(xd, ybase), xs = xd.strides[axis];
    C m = mxc_lowest<C>();
    for (int64_t i = t.rank; i < len; i += t.size) m = mxc_op_max_nan{}(m, C(x[xbase + i * xs]));
    m = t.reduce(m, mxc_op_max_nan{});
    if (m == mxc_lowest<C>()) { // every element is -inf (a fully masked attention row): softmax 0, log -inf
        for (int64_t i = t.rank; i < len; i += t.size) y[ybase + i * inner] = T(Log ? mxc_lowest<C>() : C(0));
        return;
    }
    C sum = C(0);
    for (int64_t i = t.rank; i < len; i += t.size) sum += mxc_exp(C(C(x[xbase + i * xs]) - m));
    sum = t.reduce(sum, mxc_op_sum{});
    const C log_sum = mxc_log(sum);
    for (int64_t i = t.rank; i < len; i += t.size) {
        const C v = C(C(x[xbase + i * xs]) - m);
        y[ybase + i * inner] = T(Log ? C(v - log_sum) : C(mxc_exp(v) / sum));
    }
}
