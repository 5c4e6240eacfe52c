// softmax / log_softmax along axis ip[0] (math: templates/common/softmax.hpp, max and sum in
// the compute type). Contiguous rows of up to 1024 elements: one warp per row, the row held in
// registers (softmax_row_cached_fn); other long rows one block per row, short ones a warp; rows
// along a strided axis (axis not last, or a strided input view) with enough rows to fill the
// device: one thread per row, so that neighbouring threads read neighbouring elements.
#pragma once
#include "templates/common/softmax.hpp"
#include "templates/hip/block_reduce.hpp"

namespace mxc {
namespace hip {

template <class T, bool Log> struct softmax_row_fn {
    template <class Team> __device__ void operator()(const dev_args& a, int64_t row, const Team& t) const {
        mxc_softmax_row<T, Log>(in_ptr<T>(a, 0), a.in_desc[0], out_ptr<T>(a), a.out_desc, a.ip[0], row, t);
    }
};
// A contiguous row of at most N elements a lane on a warp (an attention's scores: 128, 197
// keys): loaded once into registers, every load of a lane issued before the first is used, the
// exponentials computed once (mxc_softmax_row reads the row three times, one load after
// another per lane, and computes each exponential twice). The same values as mxc_softmax_row
// on a warp team: the same maximum and sum in the same order, each output exp(x - max) / sum
// (log: x - max - log(sum)).
template <class T, bool Log, int N> struct softmax_row_cached_fn {
    template <class Team> __device__ void operator()(const dev_args& a, int64_t row, const Team& t) const {
        using C = mxc_compute_t<T>;
        const int64_t len = a.out_desc.lens[a.ip[0]], ybase = row * len; // contiguous rows: inner = 1
        const T* x = in_ptr<T>(a, 0) + mxc_offset_of(a.in_desc[0], ybase);
        T* y = out_ptr<T>(a) + ybase;
        C v[N];
#pragma unroll
        for (int j = 0; j < N; ++j) {
            const int64_t i = t.rank + int64_t(j) * t.size;
            v[j] = i < len ? C(x[i]) : mxc_lowest<C>();
        }
        C m = mxc_lowest<C>();
#pragma unroll
        for (int j = 0; j < N; ++j)
            if (t.rank + int64_t(j) * t.size < len) m = mxc_op_max_nan{}(m, v[j]);
        m = t.reduce(m, mxc_op_max_nan{});
        if (m == mxc_lowest<C>()) { // every element is -inf (a fully masked row): softmax 0, log -inf
#pragma unroll
            for (int j = 0; j < N; ++j) {
                const int64_t i = t.rank + int64_t(j) * t.size;
                if (i < len) y[i] = T(Log ? mxc_lowest<C>() : C(0));
            }
            return;
        }
        C sum = C(0);
#pragma unroll
        for (int j = 0; j < N; ++j) {
            if (t.rank + int64_t(j) * t.size >= len) continue;
            v[j] = C(v[j] - m);
            const C e = mxc_exp(v[j]);
            sum += e;
            if (!Log) v[j] = e;
        }
        sum = t.reduce(sum, mxc_op_sum{});
        const C log_sum = mxc_log(sum);
#pragma unroll
        for (int j = 0; j < N; ++j) {
            const int64_t i = t.rank + int64_t(j) * t.size;
            if (i < len) y[i] = T(Log ? C(v[j] - log_sum) : C(v[j] / sum));
        }
    }
};

template <class T, bool Log> void softmax_rows(const mxc_kargs& k, hipStream_t s) {
    using C = mxc_compute_t<T>;
    const int64_t axis = k.ip[0], rows = mxc_softmax_rows(*k.out_desc, axis), len = k.out_desc->lens[axis];
    const bool strided = mxc_softmax_inner(*k.out_desc, axis) != 1 || k.in_desc[0].strides[axis] != 1;
    if (shuffles<C>() && !strided && len >= 8 && len <= 32 * 32) { // rows in registers (8 or 32 a lane)
        if (len <= 32 * 8) launch_rows_as<team_kind::warp, C>(pack(k), rows, s, softmax_row_cached_fn<T, Log, 8>{});
        else launch_rows_as<team_kind::warp, C>(pack(k), rows, s, softmax_row_cached_fn<T, Log, 32>{});
        return;
    }
    const team_kind team = choose_team<C>(rows, len, strided);
    launch_rows<C>(pack(k), rows, team, s, softmax_row_fn<T, Log>{});
}
template <class T> void softmax(const mxc_kargs& k, hipStream_t s) { softmax_rows<T, false>(k, s); }
template <class T> void log_softmax(const mxc_kargs& k, hipStream_t s) { softmax_rows<T, true>(k, s); }

} // namespace hip
} // namespace mxc
