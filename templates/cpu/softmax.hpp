// softmax / log_softmax along axis ip[0] (math: templates/common/softmax.hpp), rows shared
// out to the thread pool in groups. A row of contiguous elements computed in its own type
// (float, double) takes a faster form of the same math: each exp is computed once, kept in
// y and then divided by the sum (the same value as mxc_softmax_row gives).
#pragma once
#include "templates/common/softmax.hpp"
#include "templates/cpu/common.hpp"
#include "templates/cpu/parallel.hpp"

#include <type_traits>

namespace mxc {
namespace cpu {

template <class T, bool Log> inline void softmax_contiguous_row(const T* x, T* y, int64_t len) {
    T m = mxc_lowest<T>();
    for (int64_t i = 0; i < len; ++i) m = mxc_op_max_nan{}(m, x[i]);
    if (m == mxc_lowest<T>()) { // every element is -inf: softmax 0, log -inf
        for (int64_t i = 0; i < len; ++i) y[i] = Log ? mxc_lowest<T>() : T(0);
        return;
    }
    T sum = T(0);
    if (Log) {
        for (int64_t i = 0; i < len; ++i) sum += mxc_exp(T(x[i] - m));
        const T log_sum = mxc_log(sum);
        for (int64_t i = 0; i < len; ++i) y[i] = T(T(x[i] - m) - log_sum);
    } else {
        // the exponentials in one loop (GCC vectorises it: mxc_exp is branch-free), then their
        // sum in order (the same sum as mxc_softmax_row's)
        for (int64_t i = 0; i < len; ++i) y[i] = mxc_exp(T(x[i] - m));
        for (int64_t i = 0; i < len; ++i) sum += y[i];
        for (int64_t i = 0; i < len; ++i) y[i] = y[i] / sum;
    }
}

template <class T, bool Log> inline void softmax_rows(const mxc_kargs& k) {
    const mxc_desc &xd = k.in_desc[0], &od = *k.out_desc;
    const int64_t axis = k.ip[0], rows = mxc_softmax_rows(od, axis);
    if (rows == 0) return;
    const int64_t len = od.lens[axis], group = 4096 / (len > 0 ? len : 1) + 1; // rows per work item
    const bool contiguous = std::is_same<T, compute_t<T>>::value && mxc_softmax_inner(od, axis) == 1 &&
                            mxc_is_packed(xd) && mxc_is_packed(od);
    parallel_for((rows + group - 1) / group, [&](int64_t g) {
        const int64_t r1 = (g + 1) * group < rows ? (g + 1) * group : rows;
        for (int64_t r = g * group; r < r1; ++r) {
            if constexpr (std::is_same<T, compute_t<T>>::value)
                if (contiguous) {
                    softmax_contiguous_row<T, Log>(input<T>(k, 0) + r * len, output<T>(k) + r * len, len);
                    continue;
                }
            mxc_softmax_row<T, Log>(input<T>(k, 0), xd, output<T>(k), od, axis, r);
        }
    });
}

template <class T> void softmax(const mxc_kargs& k) { softmax_rows<T, false>(k); }
template <class T> void log_softmax(const mxc_kargs& k) { softmax_rows<T, true>(k); }

} // namespace cpu
} // namespace mxc
