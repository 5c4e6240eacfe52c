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
// another per lane, and computes each exponential twice). V = 1: the same values as
// mxc_softmax_row on a warp team: the same maximum and sum in the same order, each output
// exp(x - max) / sum (log: x - max - log(sum)); V = row_vec<T> (softmax_rows_vectors): the row
// by 16-byte chunks (block_reduce.hpp's load_row, store_row), the sum in another order.
template <class T, bool Log, int N, int V = 1> struct softmax_row_cached_fn {
    template <class Team> __device__ void operator()(const dev_args& a, int64_t row, const Team& t) const {
        using C = mxc_compute_t<T>;
        const int64_t len64 = a.out_desc.lens[a.ip[0]], ybase = row * len64; // contiguous rows: inner = 1
        const int len = int(len64);                                           // at most N x the team's size
        C v[N];
        load_row<V>(in_ptr<T>(a, 0) + mxc_offset_of(a.in_desc[0], ybase), 1, len, t, mxc_lowest<C>(), v);
        T* y = out_ptr<T>(a) + ybase;
        C m = mxc_lowest<C>();
#pragma unroll
        for (int j = 0; j < N; ++j)
            if (row_index<V>(t, j) < len) m = mxc_op_max_nan{}(m, v[j]);
        m = t.reduce(m, mxc_op_max_nan{});
        if (m == mxc_lowest<C>()) { // every element is -inf (a fully masked row): softmax 0, log -inf
            store_row<V, N>(y, len, t, [](int) { return T(Log ? mxc_lowest<C>() : C(0)); });
            return;
        }
        C sum = C(0);
#pragma unroll
        for (int j = 0; j < N; ++j) {
            if (row_index<V>(t, j) >= len) continue;
            v[j] = C(v[j] - m);
            const C e = mxc_exp(v[j]);
            sum += e;
            if (!Log) v[j] = e;
        }
        sum = t.reduce(sum, mxc_op_sum{});
        const C log_sum = mxc_log(sum);
        store_row<V, N>(y, len, t, [&](int j) { return T(Log ? C(v[j] - log_sum) : C(v[j] / sum)); });
    }
};

// Whether the contiguous rows may be read and written by 16-byte chunks: rows of a multiple of
// V elements, the input's other strides multiples of V, both bases on 16 bytes.
template <class T> inline bool softmax_rows_vectors(const mxc_kargs& k, int64_t axis, int64_t len) {
    constexpr int V = row_vec<T>;
    if (len % V != 0 || !aligned_16(k.in[0]) || !aligned_16(k.out)) return false;
    for (int i = 0; i < k.in_desc[0].rank; ++i)
        if (i != axis && k.in_desc[0].lens[i] != 1 && k.in_desc[0].strides[i] % V != 0) return false;
    return true;
}

template <class T, bool Log, int N> void softmax_rows_cached(const mxc_kargs& k, int64_t axis, int64_t rows, int64_t len, hipStream_t s) {
    using C = mxc_compute_t<T>;
    if (softmax_rows_vectors<T>(k, axis, len)) launch_rows_as<team_kind::warp, C>(pack(k), rows, s, softmax_row_cached_fn<T, Log, N, row_vec<T>>{});
    else launch_rows_as<team_kind::warp, C>(pack(k), rows, s, softmax_row_cached_fn<T, Log, N>{});
}

template <class T, bool Log> void softmax_rows(const mxc_kargs& k, hipStream_t s) {
    using C = mxc_compute_t<T>;
    const int64_t axis = k.ip[0], rows = mxc_softmax_rows(*k.out_desc, axis), len = k.out_desc->lens[axis];
    const bool strided = mxc_softmax_inner(*k.out_desc, axis) != 1 || k.in_desc[0].strides[axis] != 1;
    if (shuffles<C>() && !strided && len >= 8 && len <= 32 * 32) { // rows in registers (8 or 32 a lane)
        if (len <= 32 * 8) softmax_rows_cached<T, Log, 8>(k, axis, rows, len, s);
        else softmax_rows_cached<T, Log, 32>(k, axis, rows, len, s);
        return;
    }
    const team_kind team = choose_team<C>(rows, len, strided);
    launch_rows<C>(pack(k), rows, team, s, softmax_row_fn<T, Log>{});
}
template <class T> void softmax(const mxc_kargs& k, hipStream_t s) { softmax_rows<T, false>(k, s); }
template <class T> void log_softmax(const mxc_kargs& k, hipStream_t s) { softmax_rows<T, true>(k, s); }

} // namespace hip
} // namespace mxc
