// layer_norm / rms_norm over the trailing dims from axis ip[0] (one "row" = the elements of
// those dims), epsilon fp[0]. Inputs: x, then optional scale and bias with x's lens (usually
// broadcast views of a [row] vector). One row at a time, shared by a team of lanes
// (templates/common/team.hpp), statistics in the compute type (fp32 for half types):
//   layer_norm: mean, then the variance as the mean of (x - mean)^2 (two passes: exact for rows
//               with a large mean), then y = (x - mean) / sqrt(var + eps) * scale + bias
//   rms_norm:   mean of squares in one pass, then y = x / sqrt(ms + eps) * scale
// The row is read three times (twice for rms_norm).
#pragma once
#include "templates/common/math.hpp"
#include "templates/common/team.hpp"

#include <type_traits>

// Elements of one row (the product of lens[axis..]).
MXC_HD inline int64_t mxc_norm_row_len(const mxc_desc& d, int64_t axis) {
    int64_t n = 1;
    for (int i = static_cast<int>(axis); i < d.rank; ++i) n *= d.lens[i];
    return n;
}

MXC_HD inline int64_t mxc_norm_rows(const mxc_desc& od, int64_t axis) {
    const int64_t len = mxc_norm_row_len(od, axis);
    return len == 0 ? 0 : mxc_elements(od) / len;
}

// True when dims axis.. of d are packed with the last stride 1 (or broadcast along the whole
// row: all zero), so element i of a row is at base + i * step.
MXC_HD inline bool mxc_norm_row_step(const mxc_desc& d, int64_t axis, int64_t* step) {
    bool packed = true, zero = true;
    int64_t acc = 1;
    for (int i = d.rank - 1; i >= static_cast<int>(axis); --i) {
        if (d.lens[i] != 1 && d.strides[i] != acc) packed = false;
        if (d.lens[i] != 1 && d.strides[i] != 0) zero = false;
        acc *= d.lens[i];
    }
    *step = packed ? 1 : 0;
    return packed || zero;
}

// Reads element i of the row whose first element has row-major index `first`.
template <class T> struct mxc_norm_reader {
    const T* p;
    mxc_desc d;
    int64_t base, step;
    bool fast;
    MXC_HD mxc_norm_reader(const T* ptr, const mxc_desc& desc, int64_t axis, int64_t first) : p(ptr), d(desc) {
        fast = mxc_norm_row_step(d, axis, &step);
        base = mxc_offset_of(d, first);
    }
    MXC_HD mxc_compute_t<T> operator()(int64_t first, int64_t i) const {
        using C = mxc_compute_t<T>;
        return fast ? C(p[base + i * step]) : C(p[mxc_offset_of(d, first + i)]);
    }
};

// 1 / sqrt(variance + eps) from the sum of squared deviations of a row of len elements.
template <class C> MXC_HD inline C mxc_norm_inv(C m2, int64_t len, double eps) {
    return C(1) / mxc_sqrt(C(m2 / C(len) + C(eps)));
}

// One thread's row whose x is packed along the row and whose scale and bias are packed or
// broadcast (steps gs, bs of 1 or 0): the sums in mxc_fold's order (16 lanes), the loops over
// plain pointers, so that the compiler vectorises them (the cpu kernels, the reference
// evaluator; 25 layer norms of ViT-B/16 on the cpu target took 11 of its 203 ms, a chain of
// dependent adds and a per-element test of the reader's layout).
template <class T, bool Rms>
MXC_HD inline void mxc_norm_row_packed(const T* x, const T* g, int64_t gs, const T* b, int64_t bs, T* y, int64_t len,
                                       double eps) {
    using C = mxc_compute_t<T>;
    C mean = C(0);
    if (!Rms) mean = C(mxc_fold(len, C(0), mxc_op_sum{}, [&](int64_t i) { return C(x[i]); }) / C(len));
    const C m2 = mxc_fold(len, C(0), mxc_op_sum{}, [&](int64_t i) {
        const C v = C(C(x[i]) - mean);
        return C(v * v);
    });
    const C inv = mxc_norm_inv(m2, len, eps);
    for (int64_t i = 0; i < len; ++i) {
        C v = (C(x[i]) - mean) * inv;
        if (g) v *= C(g[i * gs]);
        if (b) v += C(b[i * bs]);
        y[i] = T(v);
    }
}

template <class T, bool Rms, class Team = mxc_serial_team>
MXC_HD inline void mxc_norm_row(const T* const* in, const mxc_desc* in_desc, int n_in, T* y, const mxc_desc& od,
                                int64_t axis, double eps, int64_t row, const Team& t = Team{}) {
    using C = mxc_compute_t<T>;
    const int64_t len = mxc_norm_row_len(od, axis), first = row * len;
    mxc_norm_reader<T> x(in[0], in_desc[0], axis, first);
    const bool has_scale = n_in > 1, has_bias = n_in > 2;
    mxc_norm_reader<T> g(in[has_scale ? 1 : 0], in_desc[has_scale ? 1 : 0], axis, first);
    mxc_norm_reader<T> b(in[has_bias ? 2 : 0], in_desc[has_bias ? 2 : 0], axis, first);
    if constexpr (std::is_same<Team, mxc_serial_team>::value)
        if (x.fast && x.step == 1 && g.fast && b.fast) {
            mxc_norm_row_packed<T, Rms>(x.p + x.base, has_scale ? g.p + g.base : nullptr, g.step,
                                        has_bias ? b.p + b.base : nullptr, b.step, y + first, len, eps);
            return;
        }
    C mean = C(0), m2 = C(0);
    if (!Rms) {
        for (int64_t i = t.rank; i < len; i += t.size) mean += x(first, i);
        mean = C(t.reduce(mean, mxc_op_sum{}) / C(len));
    }
    for (int64_t i = t.rank; i < len; i += t.size) {
        const C v = C(x(first, i) - mean);
        m2 += v * v;
    }
    m2 = t.reduce(m2, mxc_op_sum{});
    const C inv = mxc_norm_inv(m2, len, eps);
    for (int64_t i = t.rank; i < len; i += t.size) {
        C v = (x(first, i) - mean) * inv;
        if (has_scale) v *= g(first, i);
        if (has_bias) v += b(first, i);
        y[first + i] = T(v);
    }
}
