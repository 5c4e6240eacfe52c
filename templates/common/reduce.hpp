// reduce_sum / reduce_mean / reduce_max / reduce_min / reduce_prod over the axes ip[0..n_ip) (sorted);
// the output keeps the reduced axes with length 1. An empty reduction gives 0 for sum and
// mean, 1 for prod, and the lowest / highest value for max / min. One output element is
// computed by a team of lanes (templates/common/team.hpp).
#pragma once
#include "templates/common/math.hpp"
#include "templates/common/team.hpp"

#include <type_traits>

enum mxc_reduce_kind { mxc_reduce_sum, mxc_reduce_mean, mxc_reduce_max, mxc_reduce_min, mxc_reduce_prod };

// The number of elements reduced into one output.
MXC_HD inline int64_t mxc_reduce_count(const mxc_desc& xd, const int64_t* axes, int n_axes) {
    int64_t count = 1;
    for (int j = 0; j < n_axes; ++j) count *= xd.lens[axes[j]];
    return count;
}

// The stride s when the reduced elements of one output are at base + r * s (the reduced axes
// of x form one packed block, e.g. the trailing axes of a packed tensor); 0 otherwise.
MXC_HD inline int64_t mxc_reduce_flat_stride(const mxc_desc& xd, const int64_t* axes, int n_axes) {
    int64_t s = 0, acc = 1;
    for (int j = n_axes - 1; j >= 0; --j) {
        const int64_t l = xd.lens[axes[j]], st = xd.strides[axes[j]];
        if (l == 1) continue;
        if (s == 0) s = st;
        if (s == 0 || st != s * acc) return 0;
        acc *= l;
    }
    return s == 0 ? 1 : s;
}

template <int Kind, class C> MXC_HD inline C mxc_reduce_init() {
    return Kind == mxc_reduce_max ? mxc_lowest<C>() : Kind == mxc_reduce_min ? mxc_highest<C>()
         : Kind == mxc_reduce_prod ? C(1) : C(0);
}

template <int Kind> struct mxc_reduce_op {
    template <class C> MXC_HD C operator()(C a, C b) const {
        if constexpr (Kind == mxc_reduce_max) return mxc_op_max{}(a, b);
        else if constexpr (Kind == mxc_reduce_min) return mxc_op_min{}(a, b);
        else if constexpr (Kind == mxc_reduce_prod) return mxc_op_prod{}(a, b);
        else return mxc_op_sum{}(a, b);
    }
};

// One thread's reduction of count contiguous elements (the cpu kernels, the reference evaluator,
// constant folding), in the order of mxc_fold (templates/common/team.hpp). A mean divides by count.
template <class T, int Kind> MXC_HD inline mxc_compute_t<T> mxc_reduce_run(const T* x, int64_t count) {
    using C = mxc_compute_t<T>;
    const C acc = mxc_fold(count, mxc_reduce_init<Kind, C>(), mxc_reduce_op<Kind>{}, [&](int64_t i) { return C(x[i]); });
    if constexpr (Kind == mxc_reduce_mean) return count > 0 ? C(acc / C(count)) : C(0);
    return acc;
}

template <class T, int Kind, class Team = mxc_serial_team>
MXC_HD inline mxc_compute_t<T> mxc_reduce_at(const T* x, const mxc_desc& xd, const mxc_desc& od, const int64_t* axes,
                                             int n_axes, int64_t o, const Team& t = Team{}) {
    using C = mxc_compute_t<T>;
    int64_t idx[MXC_MAX_RANK];
    mxc_unravel(od, o, idx);
    int64_t base = 0;
    for (int d = 0; d < xd.rank; ++d) base += idx[d] * xd.strides[d];
    const int64_t count = mxc_reduce_count(xd, axes, n_axes), flat = mxc_reduce_flat_stride(xd, axes, n_axes);
    const mxc_reduce_op<Kind> op;
    if constexpr (std::is_same<Team, mxc_serial_team>::value)
        if (flat == 1) return mxc_reduce_run<T, Kind>(x + base, count);
    C acc = mxc_reduce_init<Kind, C>();
    for (int64_t r = t.rank; r < count; r += t.size) {
        int64_t off = r * flat;
        if (flat == 0) {
            int64_t rest = r;
            for (int j = n_axes - 1; j >= 0; --j) {
                const int64_t l = xd.lens[axes[j]];
                off += (rest % l) * xd.strides[axes[j]];
                rest /= l;
            }
        }
        acc = op(acc, C(x[base + off]));
    }
    acc = t.reduce(acc, op);
    if constexpr (Kind == mxc_reduce_mean) return count > 0 ? C(acc / C(count)) : C(0);
    return acc;
}
