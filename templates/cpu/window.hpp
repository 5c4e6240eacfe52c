// Row helpers of the sliding-window cpu kernels (direct convolution, pooling): along the last
// axis, output column o of a window tap reads input column o * stride + shift (shift =
// k * dilation - pad_begin). The columns whose tap is inside the input are computed up front
// (window_range), so the row loops (row_apply) need no bounds checks and run contiguous for
// stride 1 (vectorised by the compiler; stride 2 as its own loop too).
#pragma once
#include <stdint.h>

namespace mxc {
namespace cpu {

// Work items of a row-wise kernel: blocks of `per` rows of a plane, about `target` units of work
// each (a row costs row_work), at most a plane.
inline int64_t rows_per_item(int64_t rows, int64_t row_work, int64_t target) {
    const int64_t per = row_work > 0 ? target / row_work : rows;
    return per < 1 ? 1 : per > rows ? rows : per;
}

// [lo, hi): the output columns within [o0, o1) whose tap o * stride + shift lies in [0, n).
inline void window_range(int64_t shift, int64_t stride, int64_t n, int64_t o0, int64_t o1, int64_t& lo, int64_t& hi) {
    const int64_t a = shift >= 0 ? 0 : (stride - 1 - shift) / stride;
    const int64_t b = n - shift <= 0 ? 0 : (n - shift + stride - 1) / stride;
    lo = a < o0 ? o0 : a;
    hi = b > o1 ? o1 : b;
    if (hi < lo) hi = lo;
}

// a[i] = f(a[i], A(x[i * step])) for i < len.
template <class A, class T, class F> inline void row_apply(A* a, const T* x, int64_t len, int64_t step, F f) {
    if (step == 1)
        for (int64_t i = 0; i < len; ++i) a[i] = f(a[i], A(x[i]));
    else if (step == 2)
        for (int64_t i = 0; i < len; ++i) a[i] = f(a[i], A(x[2 * i]));
    else
        for (int64_t i = 0; i < len; ++i) a[i] = f(a[i], A(x[i * step]));
}

} // namespace cpu
} // namespace mxc
