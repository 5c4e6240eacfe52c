// Per-output-element math of scatter_elements, scatter_nd, gather_nd and tensor_scatter,
// shared by the cpu and hip kernels. Plain C++17, every function MXC_HD. Scatters come in two
// forms computing the same thing: the cpu kernels copy data and apply the updates in their
// row-major order (the *_target functions: where update j lands), linear time; the hip
// kernels run one thread per output element that visits every update that can land on it in
// that same order (the *_at functions), exact for duplicate indices (last write wins for
// reduction none) with no atomics. Indices out of range (after wrapping negative ones) are
// ignored: kernels cannot fail.
#pragma once
#include "templates/common/math.hpp"

// Reductions: 0 none (replace), 1 add, 2 mul, 3 max, 4 min.
template <class T> MXC_HD inline T mxc_scatter_combine(T cur, T u, int64_t reduction) {
    using C = mxc_compute_t<T>;
    switch (reduction) {
    case 1: return T(C(C(cur) + C(u)));
    case 2: return T(C(C(cur) * C(u)));
    case 3: return C(u) > C(cur) ? u : cur;
    case 4: return C(u) < C(cur) ? u : cur;
    default: return u;
    }
}

// Element `off` of an int64 (is64) or int32 index tensor.
MXC_HD inline int64_t mxc_index_value(const void* p, bool is64, int64_t off) {
    return is64 ? static_cast<const int64_t*>(p)[off] : static_cast<const int32_t*>(p)[off];
}

// Offset in d of the multi-index idx.
MXC_HD inline int64_t mxc_offset_at(const mxc_desc& d, const int64_t* idx) {
    int64_t off = 0;
    for (int i = 0; i < d.rank; ++i) off += idx[i] * d.strides[i];
    return off;
}

// scatter_elements: inputs data, indices, updates (indices and updates of one lens, the rank
// of data); y = data with updates[j] combined into y[j with its axis index = indices[j]];
// ip = [axis, indices are int64, reduction].
template <class T>
MXC_HD inline T mxc_scatter_elements_at(const T* data, const mxc_desc& dd, const void* indices, const mxc_desc& id,
                                        const T* updates, const mxc_desc& ud, const int64_t* ip, int64_t o) {
    int64_t idx[MXC_MAX_RANK];
    mxc_unravel(dd, o, idx);
    const int axis = static_cast<int>(ip[0]);
    T y = data[mxc_offset_at(dd, idx)];
    int64_t ioff = 0, uoff = 0;
    for (int d = 0; d < dd.rank; ++d) {
        if (d == axis) continue;
        if (idx[d] >= id.lens[d]) return y; // no update has this coordinate
        ioff += idx[d] * id.strides[d];
        uoff += idx[d] * ud.strides[d];
    }
    for (int64_t j = 0; j < id.lens[axis]; ++j) {
        int64_t v = mxc_index_value(indices, ip[1] != 0, ioff + j * id.strides[axis]);
        if (v < 0) v += dd.lens[axis];
        if (v == idx[axis]) y = mxc_scatter_combine(y, updates[uoff + j * ud.strides[axis]], ip[2]);
    }
    return y;
}

// Where update j (row-major over the indices' lens) of scatter_elements lands: the row-major
// index into data's lens, or -1 if its index is out of range.
MXC_HD inline int64_t mxc_scatter_elements_target(const mxc_desc& dd, const void* indices, const mxc_desc& id,
                                                  const int64_t* ip, int64_t j) {
    int64_t idx[MXC_MAX_RANK];
    mxc_unravel(id, j, idx);
    const int axis = static_cast<int>(ip[0]);
    int64_t v = mxc_index_value(indices, ip[1] != 0, mxc_offset_at(id, idx));
    if (v < 0) v += dd.lens[axis];
    if (v < 0 || v >= dd.lens[axis]) return -1;
    idx[axis] = v;
    int64_t at = 0;
    for (int d = 0; d < dd.rank; ++d) at = at * dd.lens[d] + idx[d];
    return at;
}

// Where the slice of index tuple t (row-major over indices.lens[:-1]) of scatter_nd starts:
// the row-major index into data's lens of its first element, or -1 if out of range.
MXC_HD inline int64_t mxc_scatter_nd_target(const mxc_desc& dd, const void* indices, const mxc_desc& id,
                                            const int64_t* ip, int64_t t) {
    const int m = id.rank - 1;
    int64_t ioff = 0, rest = t;
    for (int d = m - 1; d >= 0; --d) {
        ioff += (rest % id.lens[d]) * id.strides[d];
        rest /= id.lens[d];
    }
    int64_t at = 0;
    for (int d = 0; d < dd.rank; ++d) {
        int64_t v = 0;
        if (d < id.lens[m]) {
            v = mxc_index_value(indices, ip[0] != 0, ioff + d * id.strides[m]);
            if (v < 0) v += dd.lens[d];
            if (v < 0 || v >= dd.lens[d]) return -1;
        }
        at = at * dd.lens[d] + v;
    }
    return at;
}

// scatter_nd: data [r dims], indices [m..., q], updates [m..., data.lens[q:]]: slice
// data[indices[t]] combined with updates[t] for every index tuple t; ip = [indices are
// int64, reduction].
template <class T>
MXC_HD inline T mxc_scatter_nd_at(const T* data, const mxc_desc& dd, const void* indices, const mxc_desc& id,
                                  const T* updates, const mxc_desc& ud, const int64_t* ip, int64_t o) {
    int64_t idx[MXC_MAX_RANK];
    mxc_unravel(dd, o, idx);
    T y = data[mxc_offset_at(dd, idx)];
    const int m = id.rank - 1;
    const int64_t q = id.lens[m];
    int64_t tuples = 1;
    for (int d = 0; d < m; ++d) tuples *= id.lens[d];
    int64_t usuffix = 0; // the offset of idx[q:] in updates' trailing dims
    for (int d = static_cast<int>(q); d < dd.rank; ++d) usuffix += idx[d] * ud.strides[m + d - static_cast<int>(q)];
    for (int64_t t = 0; t < tuples; ++t) {
        int64_t ioff = 0, uoff = usuffix, rest = t;
        for (int d = m - 1; d >= 0; --d) {
            const int64_t c = rest % id.lens[d];
            rest /= id.lens[d];
            ioff += c * id.strides[d];
            uoff += c * ud.strides[d];
        }
        bool hit = true;
        for (int k = 0; k < q && hit; ++k) {
            int64_t v = mxc_index_value(indices, ip[0] != 0, ioff + k * id.strides[m]);
            if (v < 0) v += dd.lens[k];
            hit = v == idx[k];
        }
        if (hit) y = mxc_scatter_combine(y, updates[uoff], ip[1]);
    }
    return y;
}

// gather_nd: data [b batch dims, ...], indices [the b batch dims, m..., q] -> y [batch...,
// m..., data.lens[b + q:]]; y = data[batch..., indices[batch..., m...], rest...]; ip =
// [batch_dims, indices are int64]. An index out of range gives 0.
template <class T>
MXC_HD inline T mxc_gather_nd_at(const T* data, const mxc_desc& dd, const void* indices, const mxc_desc& id,
                                 const mxc_desc& od, const int64_t* ip, int64_t o) {
    int64_t idx[MXC_MAX_RANK];
    mxc_unravel(od, o, idx);
    const int b = static_cast<int>(ip[0]), m = id.rank - 1;
    const int q = static_cast<int>(id.lens[m]);
    int64_t ioff = 0, doff = 0;
    for (int d = 0; d < m; ++d) ioff += idx[d] * id.strides[d];
    for (int d = 0; d < b; ++d) doff += idx[d] * dd.strides[d];
    for (int k = 0; k < q; ++k) {
        int64_t v = mxc_index_value(indices, ip[1] != 0, ioff + k * id.strides[m]);
        if (v < 0) v += dd.lens[b + k];
        if (v < 0 || v >= dd.lens[b + k]) return T(mxc_compute_t<T>(0));
        doff += v * dd.strides[b + k];
    }
    for (int d = b + q; d < dd.rank; ++d) doff += idx[m + d - b - q] * dd.strides[d];
    return data[doff];
}

// tensor_scatter: past [.., max_len at axis, ..], update [.., len at axis, ..], optional
// write_indices [batch] (int64): y = past with update written from write_indices[batch] on
// along axis (circular: modulo max_len); ip = [axis, circular, has write_indices].
template <class T>
MXC_HD inline T mxc_tensor_scatter_at(const T* past, const mxc_desc& pd, const T* update, const mxc_desc& ud,
                                      const int64_t* write, const mxc_desc& wd, const int64_t* ip, int64_t o) {
    int64_t idx[MXC_MAX_RANK];
    mxc_unravel(pd, o, idx);
    const int axis = static_cast<int>(ip[0]);
    const int64_t max_len = pd.lens[axis], at = idx[axis];
    int64_t s = at - (ip[2] ? write[idx[0] * wd.strides[0]] : 0);
    if (ip[1] && max_len > 0) s = ((s % max_len) + max_len) % max_len;
    if (s < 0 || s >= ud.lens[axis]) return past[mxc_offset_at(pd, idx)];
    idx[axis] = s;
    return update[mxc_offset_at(ud, idx)];
}
