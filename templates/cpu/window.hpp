// Row helpers of the sliding-window cpu kernels (direct convolution, pooling): along the last
// axis, output column o of a window tap reads input column o * stride + shift (shift =
// k * dilation - pad_begin). The columns whose tap is inside the input are computed up front
// (window_range), so the row loops (window_row) need no bounds checks and run contiguous for
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
    int64_t a, b; // the first column at or past 0, the first past n - 1 (no division for strides 1 and 2)
    if (stride == 1) {
        a = -shift;
        b = n - shift;
    } else if (stride == 2) {
        a = (1 - shift) >> 1;
        b = (n - shift + 1) >> 1;
    } else {
        a = shift >= 0 ? 0 : (stride - 1 - shift) / stride;
        b = n - shift <= 0 ? 0 : (n - shift + stride - 1) / stride;
    }
    lo = a < o0 ? o0 : a;
    hi = b > o1 ? o1 : b;
    if (hi < lo) hi = lo;
}

// K consecutive taps over len columns: a[i] = g(...g(g(a[i], x[i * step], 0), x[i * step + dstep], 1)..., K - 1)
// (a loop per stride 1 and 2 with a compile-time step: contiguous, or an even/odd split).
template <int K, class A, class T, class G>
inline void window_taps(A* a, const T* x, int64_t len, int64_t step, int64_t dstep, const G& g) {
    if (step == 1)
        for (int64_t i = 0; i < len; ++i) {
            A v = a[i];
            for (int j = 0; j < K; ++j) v = g(v, A(x[i + j * dstep]), j);
            a[i] = v;
        }
    else if (step == 2)
        for (int64_t i = 0; i < len; ++i) {
            A v = a[i];
            for (int j = 0; j < K; ++j) v = g(v, A(x[2 * i + j * dstep]), j);
            a[i] = v;
        }
    else
        for (int64_t i = 0; i < len; ++i) {
            A v = a[i];
            for (int j = 0; j < K; ++j) v = g(v, A(x[i * step + j * dstep]), j);
            a[i] = v;
        }
}

// One row of a window over output columns [o0, o1): a[o - o0] folds, tap after tap (kw = 0,
// 1, ..., k_w - 1), the input x[(o * stride + kw * dil - pad) * xs] of every tap inside the
// row's n columns. Taps go in groups of up to 3, each group one pass over the columns that
// see all of its taps (the edges tap by tap: every column still folds its taps in order).
// make(kw0) gives the group's fold g(acc, x, j) for its tap kw0 + j.
template <class A, class T, class M>
inline void window_row(A* a, int64_t o0, int64_t o1, const T* x, int64_t n, int64_t xs, int64_t stride, int64_t dil,
                       int64_t pad, int64_t k_w, const M& make) {
    for (int64_t kw0 = 0; kw0 < k_w; kw0 += 3) {
        const int kk = k_w - kw0 < 3 ? int(k_w - kw0) : 3;
        const auto g = make(kw0);
        int64_t lo[3], hi[3], ilo = o0, ihi = o1;
        for (int j = 0; j < kk; ++j) {
            window_range((kw0 + j) * dil - pad, stride, n, o0, o1, lo[j], hi[j]);
            ilo = lo[j] > ilo ? lo[j] : ilo;
            ihi = hi[j] < ihi ? hi[j] : ihi;
        }
        if (ilo >= ihi) ilo = ihi = o1; // no column sees every tap of the group
        const T* xg = x + (kw0 * dil - pad) * xs;
        for (int j = 0; j < kk; ++j) {
            const auto gj = [&g, j](A v, A in, int) { return g(v, in, j); };
            const T* xj = xg + j * dil * xs;
            const int64_t l1 = hi[j] < ilo ? hi[j] : ilo, r0 = lo[j] > ihi ? lo[j] : ihi;
            if (l1 > lo[j]) window_taps<1>(a + (lo[j] - o0), xj + lo[j] * stride * xs, l1 - lo[j], stride * xs, 0, gj);
            if (hi[j] > r0) window_taps<1>(a + (r0 - o0), xj + r0 * stride * xs, hi[j] - r0, stride * xs, 0, gj);
        }
        if (ihi > ilo) {
            A* ai = a + (ilo - o0);
            const T* xi = xg + ilo * stride * xs;
            if (kk == 3) window_taps<3>(ai, xi, ihi - ilo, stride * xs, dil * xs, g);
            else if (kk == 2) window_taps<2>(ai, xi, ihi - ilo, stride * xs, dil * xs, g);
            else window_taps<1>(ai, xi, ihi - ilo, stride * xs, dil * xs, g);
        }
    }
}

} // namespace cpu
} // namespace mxc
