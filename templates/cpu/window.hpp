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
__attribute__((always_inline)) inline void window_range(int64_t shift, int64_t stride, int64_t n, int64_t o0, int64_t o1, int64_t& lo, int64_t& hi) {
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

// R window rows (x[r]: the row's first tap) by K consecutive taps over len columns:
// a[i] = g(...g(a[i], x[0][i * step], 0, 0)..., x[R - 1][i * step + (K - 1) * dstep], R - 1, K - 1),
// row by row, tap by tap (a loop per stride 1 and 2 with a compile-time step: contiguous, or an
// even/odd split the compiler vectorises too).
template <int R, int K, class A, class T, class G>
__attribute__((always_inline)) inline void window_taps(A* a, const T* const* x, int64_t len, int64_t step, int64_t dstep, const G& g) {
    const T* p[R];
    for (int r = 0; r < R; ++r) p[r] = x[r];
    if (step == 1)
        for (int64_t i = 0; i < len; ++i) {
            A v = a[i];
#pragma GCC unroll 3
            for (int r = 0; r < R; ++r)
#pragma GCC unroll 3
                for (int j = 0; j < K; ++j) v = g(v, A(p[r][i + j * dstep]), r, j);
            a[i] = v;
        }
    else if (step == 2)
        for (int64_t i = 0; i < len; ++i) {
            A v = a[i];
#pragma GCC unroll 3
            for (int r = 0; r < R; ++r)
#pragma GCC unroll 3
                for (int j = 0; j < K; ++j) v = g(v, A(p[r][2 * i + j * dstep]), r, j);
            a[i] = v;
        }
    else
        for (int64_t i = 0; i < len; ++i) {
            A v = a[i];
#pragma GCC unroll 3
            for (int r = 0; r < R; ++r)
#pragma GCC unroll 3
                for (int j = 0; j < K; ++j) v = g(v, A(p[r][i * step + j * dstep]), r, j);
            a[i] = v;
        }
}

template <int K, class A, class T, class G>
__attribute__((always_inline)) inline void window_taps_rows(int rows, A* a, const T* const* x, int64_t len, int64_t step, int64_t dstep, const G& g) {
    if (rows == 3) window_taps<3, K>(a, x, len, step, dstep, g);
    else if (rows == 2) window_taps<2, K>(a, x, len, step, dstep, g);
    else window_taps<1, K>(a, x, len, step, dstep, g);
}

// Up to 3 rows of a window (x[r]: input row r, column 0) over output columns [o0, o1): a[o - o0]
// folds the inputs x[r][(o * stride + kw * dil - pad) * xs] of every tap inside the row's n
// columns, row after row, tap after tap (kw = 0 .. k_w - 1). One pass over the columns that see
// all taps of a group of up to 3 kernel columns (of every row when k_w <= 3, else row by row);
// the columns at the edges one by one, in the same order. make(r0, kw0) gives the fold
// g(acc, x, r, j) of row r0 + r, kernel column kw0 + j.
template <class A, class T, class M>
__attribute__((always_inline)) inline void window_row_groups(A* a, int64_t o0, int64_t o1, const T* const* x, int rows, int64_t n, int64_t xs,
                              int64_t stride, int64_t dil, int64_t pad, int64_t k_w, const M& make) {
    for (int64_t kw0 = 0; kw0 < k_w; kw0 += 3) {
        const int kk = k_w - kw0 < 3 ? int(k_w - kw0) : 3;
        const auto g = make(0, kw0);
        int64_t lo[3], hi[3], ilo = o0, ihi = o1;
        for (int j = 0; j < kk; ++j) {
            window_range((kw0 + j) * dil - pad, stride, n, o0, o1, lo[j], hi[j]);
            ilo = lo[j] > ilo ? lo[j] : ilo;
            ihi = hi[j] < ihi ? hi[j] : ihi;
        }
        if (ilo >= ihi) ilo = ihi = o1; // no column sees every tap of the group
        // the columns at the edges, one by one: each tap whose input column exists
        for (int64_t o = o0 < ilo ? o0 : ihi; o < o1; o = o + 1 == ilo ? ihi : o + 1) {
            A v = a[o - o0];
            for (int r = 0; r < rows; ++r)
                for (int j = 0; j < kk; ++j) {
                    const int64_t pos = o * stride + (kw0 + j) * dil - pad;
                    if (pos >= 0 && pos < n) v = g(v, A(x[r][pos * xs]), r, j);
                }
            a[o - o0] = v;
        }
        const T* xt[3] = {};
        if (ihi > ilo) {
            for (int r = 0; r < rows; ++r) xt[r] = x[r] + ((ilo * stride + kw0 * dil - pad) * xs);
            A* ai = a + (ilo - o0);
            if (kk == 3) window_taps_rows<3>(rows, ai, xt, ihi - ilo, stride * xs, dil * xs, g);
            else if (kk == 2) window_taps_rows<2>(rows, ai, xt, ihi - ilo, stride * xs, dil * xs, g);
            else window_taps_rows<1>(rows, ai, xt, ihi - ilo, stride * xs, dil * xs, g);
        }
    }
}

template <class A, class T, class M>
__attribute__((always_inline)) inline void window_row(A* a, int64_t o0, int64_t o1, const T* const* x, int rows, int64_t n, int64_t xs,
                       int64_t stride, int64_t dil, int64_t pad, int64_t k_w, const M& make) {
    if (rows == 1 || k_w <= 3) return window_row_groups(a, o0, o1, x, rows, n, xs, stride, dil, pad, k_w, make);
    for (int r = 0; r < rows; ++r)
        window_row_groups(a, o0, o1, x + r, 1, n, xs, stride, dil, pad, k_w,
                          [&make, r](int, int64_t kw0) { return make(r, kw0); });
}

} // namespace cpu
} // namespace mxc
