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
// packed along the row, 0: broadcast; i and step 32-bit, as the cached rows are short: 64-bit
// offsets held for every element of a lane took 16-32 more registers). The descriptor's dims
// are walked unrolled over MXC_MAX_RANK, so that the kernel argument's arrays are indexed by
// constants: indexed by a variable (mxc_norm_reader, dynamic input numbers), nvcc copies the
// whole dev_args to local memory (ptxas -v, sm_90: a 528-byte stack frame in every norm
// kernel, 134 registers).
template <class T> struct norm_stepped_row {
    const T* p;
    int step;
    __device__ mxc_compute_t<T> operator()(int i) const { return mxc_compute_t<T>(p[i * step]); }
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
// V = norm_vec<T> (norm_rows_vectors): lane r holds the V-element chunks r + j x size, each
// read and written by one 16-byte access: a 768-element row of half is 3 loads a lane, not 24
// (the same for its scale and its bias; of float, 6), an eighth of the memory instructions of
// V = 1 for half (eager's vectorised layer norm took 3.4 us a launch on the H200, mxc's 6.9 us
// in ViT-B/16 and 16 in BERT-base, both half, 2026-11-26, with V = 1).
template <class T> constexpr int norm_vec = int(16 / sizeof(T));
template <class T> struct alignas(16) norm_chunk { T v[norm_vec<T>]; };
template <class T, bool Rms, int N, int V = 1> struct norm_row_cached_fn {
    static_assert(N % V == 0 && (V == 1 || V == norm_vec<T>), "norm_row_cached_fn: whole 16-byte chunks a lane");
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
        // the row index of the lane's element s (a V-element chunk's are valid together: len
        // is a multiple of V)
        auto at = [&](int s) { return V == 1 ? t.rank + s * t.size : (t.rank + s / V * t.size) * V + s % V; };
        // Every load of the lane is issued before the first is used: the row, then its scale
        // and bias (which the statistics do not change). Loaded after the statistics, in
        // groups of 8 outputs before their stores (a load may not move above a store to memory
        // that could be the same: y, g and b are plain pointers), they were three more memory
        // latencies one after another for a 768-element row on a warp, after the row's own
        // (ViT-B/16's and BERT's layer norms: 6-16 us a launch on the H200, eager's 3.4).
        C v[N], gs[N], bs[N];
        if constexpr (V == 1) {
#pragma unroll
            for (int j = 0; j < N; ++j) {
                const int i = at(j);
                v[j] = i < len ? x(i) : C(0);
            }
#pragma unroll
            for (int j = 0; j < N; ++j) {
                const int i = at(j);
                gs[j] = has_scale && i < len ? g(i) : C(1);
                bs[j] = has_bias && i < len ? b(i) : C(0);
            }
        } else {
            // a chunk of r (step 1: a vector at element i; step 0: element 0, broadcast), or
            // `none` outside the row or where the input is absent
            auto chunk = [&](const norm_stepped_row<T>& r, bool has, int i, C none, C* dst) {
                if (!has || i >= len) {
#pragma unroll
                    for (int e = 0; e < V; ++e) dst[e] = none;
                } else if (r.step) {
                    const norm_chunk<T> p = vector_load<norm_chunk<T>>(r.p + i);
#pragma unroll
                    for (int e = 0; e < V; ++e) dst[e] = C(p.v[e]);
                } else {
#pragma unroll
                    for (int e = 0; e < V; ++e) dst[e] = C(r.p[0]);
                }
            };
#pragma unroll
            for (int j = 0; j < N; j += V) chunk(x, true, at(j), C(0), v + j);
#pragma unroll
            for (int j = 0; j < N; j += V) {
                chunk(g, has_scale, at(j), C(1), gs + j);
                chunk(b, has_bias, at(j), C(0), bs + j);
            }
        }
        C mean = C(0), m2 = C(0);
        if (!Rms) {
#pragma unroll
            for (int j = 0; j < N; ++j)
                if (at(j) < len) mean += v[j];
            mean = C(t.reduce(mean, mxc_op_sum{}) / C(len));
        }
#pragma unroll
        for (int j = 0; j < N; ++j) {
            if (at(j) >= len) continue;
            const C d = C(v[j] - mean);
            m2 += d * d;
        }
        m2 = t.reduce(m2, mxc_op_sum{});
        const C inv = mxc_norm_inv(m2, len, a.fp[0]);
        T* y = out_ptr<T>(a) + first;
        auto out = [&](int j) {
            C r = (v[j] - mean) * inv;
            if (has_scale) r *= gs[j];
            if (has_bias) r += bs[j];
            return T(r);
        };
#pragma unroll
        for (int j = 0; j < N; j += V) {
            const int i = at(j);
            if (i >= len) continue;
            if constexpr (V == 1) {
                y[i] = out(j);
            } else {
                norm_chunk<T> p;
#pragma unroll
                for (int e = 0; e < V; ++e) p.v[e] = out(j + e);
                vector_store(y + i, p);
            }
        }
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
    constexpr int V = norm_vec<T>;
    auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
    if (len % V != 0 || !aligned(k.out)) return false;
    for (int j = 0; j < k.n_in && j < 3; ++j) {
        const mxc_desc& d = k.in_desc[j];
        int64_t step = 0;
        if (!mxc_norm_row_step(d, k.ip[0], &step)) return false;
        if (step == 0) {
            if (j == 0) return false;
            continue;
        }
        if (!aligned(k.in[j])) return false;
        for (int i = 0; i < k.ip[0] && i < d.rank; ++i)
            if (d.lens[i] != 1 && d.strides[i] % V != 0) return false;
    }
    return true;
}

// The launch of the cached form with N elements a lane on team Kind, by chunks where it may.
template <class T, bool Rms, team_kind Kind, int N> void norm_rows_cached(const mxc_kargs& k, int64_t rows, int64_t len, hipStream_t s) {
    using C = mxc_compute_t<T>;
    if (norm_rows_vectors<T>(k, len)) launch_rows_as<Kind, C>(pack(k), rows, s, norm_row_cached_fn<T, Rms, N, norm_vec<T>>{});
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
