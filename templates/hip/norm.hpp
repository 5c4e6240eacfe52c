// layer_norm / rms_norm (math: templates/common/norm.hpp, mean and variance in the compute
// type): rows up to 1024 elements on a warp and up to 4096 on a block, held in registers
// (norm_row_cached_fn); longer ones one block per row; scale and bias are applied on the store.
#pragma once
#include "templates/common/norm.hpp"
#include "templates/hip/block_reduce.hpp"

namespace mxc {
namespace hip {

template <class T, bool Rms> struct norm_row_fn {
    template <class Team> __device__ void operator()(const dev_args& a, int64_t row, const Team& t) const {
        const T* in[3] = {in_ptr<T>(a, 0), a.n_in > 1 ? in_ptr<T>(a, 1) : nullptr, a.n_in > 2 ? in_ptr<T>(a, 2) : nullptr};
        mxc_norm_row<T, Rms>(in, a.in_desc, a.n_in, out_ptr<T>(a), a.out_desc, a.ip[0], a.fp[0], row, t);
    }
};
// x, scale or bias of a row that norm_rows_stepped accepted: element i of the row whose first
// element has row-major index `first` is p[i * step], p at the row's first element (step 1:
// packed along the row, 0: broadcast; read by load_row, i and step 32-bit, as the cached rows
// are short: 64-bit offsets held for every element of a lane took 16-32 more registers). The descriptor's dims
// are walked unrolled over MXC_MAX_RANK, so that the kernel argument's arrays are indexed by
// constants: indexed by a variable (mxc_norm_reader, dynamic input numbers), nvcc copies the
// whole dev_args to local memory (ptxas -v, sm_90: a 528-byte stack frame in every norm
// kernel, 134 registers).
template <class T> struct norm_stepped_row {
    const T* p;
    int step;
};
// base: the offset of the row's first element (norm_row_offsets).
template <class T>
__device__ __forceinline__ norm_stepped_row<T> make_stepped_row(const void* p, const mxc_desc& d, int64_t axis, int64_t base) {
    int64_t acc = 1;
    bool packed = true;
#pragma unroll
    for (int i = MXC_MAX_RANK - 1; i >= 0; --i) {
        if (i >= d.rank || i < axis) continue;
        if (d.lens[i] != 1 && d.strides[i] != acc) packed = false;
        acc *= d.lens[i];
    }
    return {static_cast<const T*>(p) + base, packed ? 1 : 0};
}
// The offsets of row `row`'s first element in inputs 0-2 (x, scale, bias: descriptors of the
// output's rank and lens, a broadcast dim of stride 0): its coordinates are 0 in the dims from
// axis on, and `row` split over the dims before it, innermost first, once for the three;
// dims of length 1 take no division, nor does a remainder smaller than the dim (ViT's and
// BERT's [1, T, E] rows: none). Splitting each input's first element over every dim took 6
// divisions an input, a chain of them before the row's first load (nvcc 13, sm_90: 24 64-bit
// and 26 32-bit div / rem in each cached kernel).
__device__ __forceinline__ void norm_row_offsets(const dev_args& a, int64_t axis, int64_t row, int64_t (&off)[3]) {
    off[0] = off[1] = off[2] = 0;
    int64_t e = row;
#pragma unroll
    for (int i = MXC_MAX_RANK - 1; i >= 0; --i) {
        if (i >= a.out_desc.rank || i >= axis || e == 0) continue;
        const int64_t len = a.out_desc.lens[i];
        if (len == 1) continue;
        int64_t c = e;
        if (e >= len) c = e % len, e /= len;
        else e = 0;
#pragma unroll
        for (int j = 0; j < 3; ++j) off[j] += c * a.in_desc[j].strides[i];
    }
}

// A row of at most N elements a lane, read with a step (norm_rows_stepped), on a warp: the row
// and its scale and bias are loaded once into registers, every load of a lane issued before
// the first is used, then
// the statistics by shuffles and the output from the registers. mxc_norm_row reads the row
// three times, one load after another per lane (a warp's 24 loads of a 768-element row: 24
// memory latencies a pass) or, with a block per row, with two block barriers per reduction.
// V = 1: lane r holds elements r + j x size, the sums in mxc_norm_row's order on a warp team.
// V = row_vec<T> (norm_rows_vectors): lane r holds the V-element chunks r + j x size, each
// read and written by one 16-byte access (block_reduce.hpp's load_row, store_row): a
// 768-element row of half is 3 loads a lane, not 24 (the same for its scale and its bias; of
// float, 6), an eighth of the memory instructions of V = 1 for half (eager's vectorised layer
// norm took 3.4 us a launch on the H200, mxc's 6.9 us in ViT-B/16 and 16 in BERT-base, both
// half, 2026-11-26, with V = 1).
template <class T, bool Rms, int N, int V = 1> struct norm_row_cached_fn {
    template <class Team> __device__ void operator()(const dev_args& a, int64_t row, const Team& t) const {
        using C = mxc_compute_t<T>;
        const int64_t axis = a.ip[0], row_len = mxc_norm_row_len(a.out_desc, axis), first = row * row_len;
        const int len = int(row_len); // at most N x the team's size
        const bool has_scale = a.n_in > 1, has_bias = a.n_in > 2;
        int64_t off[3];
        norm_row_offsets(a, axis, row, off);
        const norm_stepped_row<T> x = make_stepped_row<T>(a.in[0], a.in_desc[0], axis, off[0]);
        const norm_stepped_row<T> g = has_scale ? make_stepped_row<T>(a.in[1], a.in_desc[1], axis, off[1]) : x;
        const norm_stepped_row<T> b = has_bias ? make_stepped_row<T>(a.in[2], a.in_desc[2], axis, off[2]) : x;
        // Every load of the lane is issued before the first is used: the row, then its scale
        // and bias (which the statistics do not change). Loaded after the statistics, in
        // groups of 8 outputs before their stores (a load may not move above a store to memory
        // that could be the same: y, g and b are plain pointers), they were three more memory
        // latencies one after another for a 768-element row on a warp, after the row's own
        // (ViT-B/16's and BERT's layer norms: 6-16 us a launch on the H200, eager's 3.4).
        C v[N], gs[N], bs[N];
        load_row<V>(x.p, x.step, len, t, C(0), v);
        load_row<V>(g.p, g.step, has_scale ? len : 0, t, C(1), gs);
        load_row<V>(b.p, b.step, has_bias ? len : 0, t, C(0), bs);
        C mean = C(0), m2 = C(0);
        if (!Rms) {
#pragma unroll
            for (int j = 0; j < N; ++j)
                if (row_index<V>(t, j) < len) mean += v[j];
            mean = C(t.reduce(mean, mxc_op_sum{}) / C(len));
        }
#pragma unroll
        for (int j = 0; j < N; ++j) {
            if (row_index<V>(t, j) >= len) continue;
            const C d = C(v[j] - mean);
            m2 += d * d;
        }
        m2 = t.reduce(m2, mxc_op_sum{});
        const C inv = mxc_norm_inv(m2, len, a.fp[0]);
        store_row<V, N>(out_ptr<T>(a) + first, len, t, [&](int j) {
            C r = (v[j] - mean) * inv;
            if (has_scale) r *= gs[j];
            if (has_bias) r += bs[j];
            return T(r);
        });
    }
};

// Whether every input reads the rows with a step (the cached form's condition).
inline bool norm_rows_stepped(const mxc_kargs& k) {
    int64_t step = 0;
    for (int j = 0; j < k.n_in && j < 3; ++j)
        if (!mxc_norm_row_step(k.in_desc[j], k.ip[0], &step)) return false;
    return true;
}

// Whether the stepped rows may be read by 16-byte chunks (norm_row_cached_fn's V): rows of a
// multiple of V elements, x packed along them, scale and bias packed or broadcast, every packed
// row of an input and of the output starting on 16 bytes (the base aligned, the strides of the
// dims before the axis multiples of V).
template <class T> inline bool norm_rows_vectors(const mxc_kargs& k, int64_t len) {
    constexpr int V = row_vec<T>;
    if (len % V != 0 || !aligned_16(k.out)) return false;
    for (int j = 0; j < k.n_in && j < 3; ++j) {
        const mxc_desc& d = k.in_desc[j];
        int64_t step = 0;
        if (!mxc_norm_row_step(d, k.ip[0], &step)) return false;
        if (step == 0) {
            if (j == 0) return false;
            continue;
        }
        if (!aligned_16(k.in[j])) return false;
        for (int i = 0; i < k.ip[0] && i < d.rank; ++i)
            if (d.lens[i] != 1 && d.strides[i] % V != 0) return false;
    }
    return true;
}

// The launch of the cached form with N elements a lane on team Kind, by chunks where it may.
template <class T, bool Rms, team_kind Kind, int N> void norm_rows_cached(const mxc_kargs& k, int64_t rows, int64_t len, hipStream_t s) {
    using C = mxc_compute_t<T>;
    if (norm_rows_vectors<T>(k, len)) launch_rows_as<Kind, C>(pack(k), rows, s, norm_row_cached_fn<T, Rms, N, row_vec<T>>{});
    else launch_rows_as<Kind, C>(pack(k), rows, s, norm_row_cached_fn<T, Rms, N>{});
}

// Stepped rows of up to 1024 elements (32 a lane on a warp of 32, 16 on a wavefront of 64) take
// the cached form on a warp (up to 256 with 8 registers a lane), up to 4096 on a block (16 a
// thread); longer rows, or strided ones, mxc_norm_row on the team choose_team gives.
template <class T, bool Rms> void norm_rows(const mxc_kargs& k, hipStream_t s) {
    using C = mxc_compute_t<T>;
    const int64_t rows = mxc_norm_rows(*k.out_desc, k.ip[0]), len = mxc_norm_row_len(*k.out_desc, k.ip[0]);
    if (shuffles<C>() && len >= 8 && len <= 32 * 32 && norm_rows_stepped(k)) {
        if (len <= 32 * 8) norm_rows_cached<T, Rms, team_kind::warp, 8>(k, rows, len, s);
        else norm_rows_cached<T, Rms, team_kind::warp, 32>(k, rows, len, s);
        return;
    }
    if (shuffles<C>() && len <= team_block * 16 && norm_rows_stepped(k)) { // a block per row, 16 a thread
        norm_rows_cached<T, Rms, team_kind::block, 16>(k, rows, len, s);
        return;
    }
    const team_kind team = choose_team<C>(rows, len, false);
    launch_rows<C>(pack(k), rows, team, s, norm_row_fn<T, Rms>{});
}
template <class T> void layer_norm(const mxc_kargs& k, hipStream_t s) { norm_rows<T, false>(k, s); }
template <class T> void rms_norm(const mxc_kargs& k, hipStream_t s) { norm_rows<T, true>(k, s); }

} // namespace hip
} // namespace mxc
